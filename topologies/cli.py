"""``inev network …``: generate event networks, measure one from a trace, and inspect them."""

from __future__ import annotations

import click

from inev.common.click_options import seed_option
from inev.common.display import show_view
from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.words import plural
from inev.topologies.generate import (
    TOPOLOGIES,
    build_topology,
    generate_network,
    network_from_topology,
)
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.io import (
    connected_part,
    drawing_keys,
    read_topology,
    save_network,
)
from inev.topologies.tables import distances_text, network_view


@click.group(
    "network",
    epilog=examples(
        "inev network generate --nodes 20 --event-types 6 --seed 1 -o net.json",
        "inev network show net.json",
    ),
)
def network_group() -> None:
    """Generate and inspect event networks (inev-network/1 JSON)."""


@network_group.command(
    "generate",
    epilog=examples(
        "inev network generate --nodes 20 --out-degree 3 --event-types 6 --skew 1.3 --node-ratio 0.5 --seed 1 -o net.json",
        "inev network generate --nodes 100 --topology grid --seed 2 -o grid.json",
        "inev network generate --from-file Geant2011.graphml --largest-component -o geant.json",
    ),
)
@click.option("--nodes", default=NETWORK_DEFAULTS.nodes, show_default=True, help="Number of nodes.")
@click.option(
    "--out-degree",
    default=NETWORK_DEFAULTS.out_degree,
    show_default=True,
    help="Average node degree.",
)
@click.option(
    "--event-types",
    default=NETWORK_DEFAULTS.event_types,
    show_default=True,
    help="Number of event types.",
)
@click.option(
    "--skew",
    default=NETWORK_DEFAULTS.skew,
    show_default=True,
    help="Zipf exponent of the rates (> 1).",
)
@click.option(
    "--node-ratio",
    default=NETWORK_DEFAULTS.node_ratio,
    show_default=True,
    help="Share of types each node generates.",
)
@click.option(
    "--topology",
    type=click.Choice(TOPOLOGIES),
    default=NETWORK_DEFAULTS.topology,
    show_default=True,
    help="Topology kind ('ws' is the paper's networkx Watts-Strogatz).",
)
@click.option(
    "--from-file",
    "from_file",
    type=click.Path(dir_okay=False),
    help="Use a real topology (GraphML or edge list) instead of generating one.",
)
@click.option(
    "--largest-component",
    is_flag=True,
    help="With --from-file: keep the largest connected part of a disconnected topology.",
)
@seed_option("the generated network")
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Output JSON file."
)
def generate_command(
    nodes: int,
    out_degree: float,
    event_types: int,
    skew: float,
    node_ratio: float,
    topology: str,
    from_file: str | None,
    largest_component: bool,
    seed: int,
    out: str,
) -> None:
    """Generate a synthetic event network as in the INEv paper (section 7.1)."""
    check_paths({"topology": from_file}, out)
    left_out = 0
    drawing = None
    if from_file:
        import numpy as np

        rng = np.random.default_rng(seed)
        graph, left_out = connected_part(read_topology(from_file), from_file, largest_component)
        network = network_from_topology(graph, event_types, skew, node_ratio, rng)
        drawing = drawing_keys(graph.subgraph(network.nodes))
    else:
        if largest_component:
            raise InevError("--largest-component applies to --from-file topologies only")
        network = generate_network(nodes, out_degree, event_types, skew, node_ratio, seed, topology)
    save_network(network, out, drawing)
    s = network.summary()
    kept = f" (largest component; {plural(left_out, 'node')} left out)" if left_out else ""
    click.echo(
        f"network: {plural(s['nodes'], 'node')}{kept}, {plural(s['links'], 'link')}, mean "
        f"degree {s['mean_degree']:.2f}, {distances_text(s)}, "
        f"{plural(len(network.types), 'event type')} -> {out}"
    )


@network_group.command(
    "show",
    epilog=examples(
        "inev network show net.json",
    ),
)
@click.argument("network_file", type=click.Path(dir_okay=False))
def show_command(network_file: str) -> None:
    """Summarise a network: nodes, links, diameter, types with rates and sources (as ``inev show``)."""
    check_paths({"network": network_file})
    show_view(network_view(network_file))


@click.command(
    "from-trace",
    epilog=examples(
        "inev network from-trace trips.parquet --out-degree 3 --link-latency 0.0001 --seed 1 -o net.json",
        "inev network from-trace trips.parquet --topology stations.graphml -o net.json",
    ),
)
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option(
    "--topology",
    "topology_file",
    type=click.Path(dir_okay=False),
    help="The topology (GraphML or edge list 'u v [latency]'); it must hold every trace node.",
)
@click.option(
    "--out-degree",
    default=NETWORK_DEFAULTS.out_degree,
    show_default=True,
    help="Mean degree of the generated topology (without --topology).",
)
@seed_option("the generated topology")
@click.option(
    "--link-latency",
    default=1.0,
    show_default=True,
    help="Latency of every generated link, in the trace's time unit.",
)
@click.option(
    "--duration",
    type=float,
    default=None,
    help="Time span the rates are measured over (default: the trace's last minus first time).",
)
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Output network JSON."
)
def from_trace_command(
    trace_file: str,
    topology_file: str | None,
    out_degree: float,
    seed: int,
    link_latency: float,
    duration: float | None,
    out: str,
) -> None:
    """Measure an event network from a trace: types, sources and each source's own rate."""
    check_paths({"trace": trace_file, "topology": topology_file}, out)
    from rich.console import Console
    from rich.table import Table

    from inev.common.traces import scan_trace
    from inev.topologies.from_trace import network_from_scan
    from inev.topologies.io import read_topology, save_network

    topology = read_topology(topology_file) if topology_file else None
    scan = scan_trace(trace_file)
    network = network_from_scan(
        scan, topology, out_degree, seed, duration, name=trace_file, link_latency=link_latency
    )
    save_network(network, out)
    span = duration if duration is not None else scan.duration
    table = Table("type", "events", "sources", "r(e, n) min", "r(e, n) max", "mean r(e)", "R(e)")
    for name in network.types:
        rates = network.source_rates(name)
        table.add_row(
            name,
            str(scan.counts[name]),
            str(len(rates)),
            f"{min(rates):.4g}",
            f"{max(rates):.4g}",
            f"{network.rate(name):.4g}",
            f"{network.global_rate(name):.4g}",
        )
    Console().print(table)
    s = network.summary()
    click.echo(
        f"network: {s['nodes']} nodes, {s['links']} links, diameter {s['diameter']}, "
        f"{len(network.types)} event types measured on {scan.rows} events over {span:g} time "
        f"units" + (f" ({scan.skipped} empty lines skipped)" if scan.skipped else "") + f" -> {out}"
    )


# measured from a trace
network_group.add_command(from_trace_command)

__all__ = ["build_topology", "network_group"]
