"""A rich table of a workload's queries for the terminal (``inev workload show``, ``inev show``).

It lives in the library, not in a command module, so any layer above may use it without
importing a command.
"""

from __future__ import annotations

from typing import Any


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
