"""A rich table of a simulation's queries for the terminal (``inev simulate``, ``inev show``).

It lives in the library, not in a command module, so any layer above may use it without
importing a command.
"""

from __future__ import annotations

from typing import Any

from inev.simulator.simulation_result import SimulationResult


def query_table(result: SimulationResult) -> Any:
    """Per query: matches at the sinks and centrally, and detection latency (time units)."""
    from rich.table import Table

    table = Table(
        "query",
        "matches",
        "centralized",
        "latency p50",
        "latency p99",
        "latency max",
        caption="detection latency in time units",
    )
    for name in sorted(set(result.matches) | set(result.centralized_matches)):
        summary = result.latency.get(name, {})
        cells = [
            "n/a" if summary.get(k) is None else f"{summary[k]:.4g}" for k in ("p50", "p99", "max")
        ]
        table.add_row(
            name,
            str(result.matches.get(name, "n/a")),
            str(result.centralized_matches.get(name, "n/a")),
            *cells,
        )
    return table
