"""A workload for the terminal (``inev workload show``, ``inev show``): its heading and a rich
table of its queries.

It lives in the library, not in a command module, so any layer above may use it without
importing a command.
"""

from __future__ import annotations

from typing import Any

from inev.common.words import plural


def workload_table(workload: Any, network: Any | None = None) -> Any:
    """A rich table of the queries: name, pattern, types and, given a network, r(q) and R(q)
    (matches per time unit with local and with global rates, §3.2)."""
    from rich.table import Table

    columns = ["query", "pattern", "types"] + (["r(q)", "R(q)"] if network else [])
    caption = "r(q), R(q): matches per time unit with local, global rates" if network else None
    table = Table(*columns, caption=caption)
    for row in workload.describe(network):
        cells = [row["name"], row["pattern"], str(row["types"])]
        if network is not None:
            cells += [f"{row['rate']:.4g}", f"{row['global_rate']:.4g}"]
        table.add_row(*cells)
    return table


def workload_heading(workload: Any) -> str:
    """What ``inev workload show`` and ``inev show`` say of a workload after its file name.

    >>> from inev.workloads.workload import Query, Workload
    >>> workload_heading(Workload.build(2.0, [Query.build("q", "SEQ(A, B)")]))
    '1 query, window 2 time units'
    """
    unit = "time unit" if workload.window == 1 else "time units"
    return f"{plural(len(workload.queries), 'query', 'queries')}, window {workload.window:g} {unit}"


def load_shown(workload_file: str, network_file: str | None) -> tuple[Any, Any | None]:
    """The workload of ``workload_file`` and, when given, the network of ``network_file``,
    checked against each other (the rates of the table need the workload's types)."""
    from inev.topologies.io import load_network
    from inev.workloads.io import load_workload

    workload = load_workload(workload_file)
    network = load_network(network_file) if network_file else None
    if network is not None:
        workload.check_network(network, (workload_file, network_file))
    return workload, network


def workload_view(path: str, network_file: str | None = None) -> list[Any]:
    """``inev show wl.json``: each query with its pattern (and rates, given the network)."""
    workload, network = load_shown(path, network_file)
    return [f"{path}: workload, {workload_heading(workload)}", workload_table(workload, network)]
