"""Text and rich tables of a network for the terminal: its distances line, its event types,
and the whole view of a network file.

The ``network`` commands and ``inev show`` print these; they live in the library, not in a
command module, so any layer above may use them without importing a command.
"""

from __future__ import annotations

from typing import Any

from inev.common.words import listing, plural


def distances_text(summary: dict[str, Any]) -> str:
    """The diameter and mean hop count of a :meth:`Network.summary`, marked when estimated.

    >>> distances_text({"diameter": 30, "mean_hops": 12.345, "exact": False})
    'diameter ≥ 30, mean hops ≈ 12.35 (estimated from a sample)'
    """
    if summary.get("exact", True):
        return f"diameter {summary['diameter']}, mean hops {summary['mean_hops']:.2f}"
    return (
        f"diameter ≥ {summary['diameter']}, mean hops ≈ {summary['mean_hops']:.2f} "
        "(estimated from a sample)"
    )


def network_table(network: Any) -> Any:
    """A rich table of a network's event types: rates (events per time unit) and sources."""
    from rich.table import Table

    table = Table(
        "type",
        "r(e) per source",
        "R(e) in all",
        "sources |f(e)|",
        caption="rates in events per time unit",
    )
    for name, t in network.event_types.items():
        table.add_row(
            name,
            f"{t.rate:g}",
            f"{t.global_rate:g}",
            f"{len(t.sources)}: {listing(t.sources, limit=24)}",
        )
    return table


def network_heading(network: Any) -> str:
    """What ``inev network show`` and ``inev show`` say of a network after its file name:
    nodes, links, mean degree and distances."""
    s = network.summary()
    return (
        f"{plural(s['nodes'], 'node')}, {plural(s['links'], 'link')}, mean "
        f"degree {s['mean_degree']:.2f}, {distances_text(s)}"
    )


def network_view(path: str) -> list[Any]:
    """``inev show net.json``: summary line, event types, and the links (all of them up to
    300)."""
    from inev.common.display import rich_table
    from inev.topologies.io import load_network

    network = load_network(path)
    out: list[Any] = [f"{path}: network, {network_heading(network)}", network_table(network)]
    links = network.links
    if len(links) <= 300:
        table = rich_table("link", "latency", title="links")
        for u, v, latency in links:
            table.add_row(f"{u}-{v}", f"{latency:g}")
        out.append(table)
    else:
        out.append(f"{len(links)} links (inev draw {path} --text lists them all)")
    return out
