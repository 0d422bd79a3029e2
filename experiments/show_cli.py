"""``inev show FILE``: any inev file as tables.

What a file is follows from its ``format`` key (network, workload, plan, simulation result,
changes, sweep record), its suffix (``.jsonl`` matches, ``.csv`` traces, ``.parquet`` sweep
results or traces) or, for a folder, its sweep results. Plans and simulation results are
read through their models, so figures are named as everywhere else; keys a reader does not
know (a newer planner's additions) are listed as they are instead of being refused.

This module only finds the kind and prints: each kind's view is library code in the layer
that owns its format (``topologies/tables.py`` networks, ``workloads/tables.py`` workloads,
``planner/tables.py`` changes, ``simulator/tables.py`` simulation results and matches,
``simulator/engine/tables.py`` traces, ``experiments/plan_view.py`` plans,
``experiments/sweep_view.py`` sweep folders and results).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from inev.common.display import show_view
from inev.common.errors import InevError
from inev.common.help_text import examples


@dataclass(frozen=True)
class Given:
    """The files given with the one shown: a workload's network, a simulation's plan."""

    network: str | None = None
    plan: str | None = None


def kind_of(path: str) -> str:
    """What ``path`` holds: a ``format`` value, ``sweep``, ``matches``, ``trace`` or ``results``."""
    p = Path(path)
    if p.is_dir():
        return "sweep"
    if not p.exists():
        raise InevError(f"{path}: no such file or folder")
    suffix = p.suffix.lower()
    if suffix == ".jsonl":
        return "matches"
    if suffix == ".csv":
        return "trace"
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            names = pq.ParquetFile(p).schema_arrow.names
        except Exception:
            raise InevError(f"{path}: not a readable Parquet file") from None
        return "results" if "task_id" in names else "trace"
    from inev.common.files import file_format

    return file_format(path)


def _views() -> dict[str, Callable[[str, Given], list[Any]]]:
    """The view of each kind of file (imported on first use: each pulls in its layer)."""
    from inev.experiments.plan_view import plan_view
    from inev.experiments.sweep_view import results_view, sweep_view
    from inev.planner.tables import changes_view
    from inev.simulator.engine.tables import trace_view
    from inev.simulator.tables import matches_view, simulation_view
    from inev.topologies.tables import network_view
    from inev.workloads.tables import workload_view

    return {
        "inev-network/1": lambda path, given: network_view(path),
        "inev-workload/1": lambda path, given: workload_view(path, given.network),
        "inev-plan/1": lambda path, given: plan_view(path),
        "inev-sim/1": lambda path, given: simulation_view(path, given.plan),
        "inev-changes/1": lambda path, given: changes_view(path),
        "inev-sweep/1": lambda path, given: sweep_view(path),
        "sweep": lambda path, given: sweep_view(path),
        "results": lambda path, given: results_view(path),
        "matches": lambda path, given: matches_view(path),
        "trace": lambda path, given: trace_view(path),
    }


@click.command(
    "show",
    epilog=examples(
        "inev show net.json",
        "inev show wl.json --network net.json",
        "inev show plan.json",
        "inev show results",
    ),
)
@click.argument("file", type=click.Path())
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="With a workload: the network for the queries' rates.",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False),
    help="With a simulation result: the plan it ran, to name each vertex's messages.",
)
def show_command(file: str, network_file: str | None, plan_file: str | None) -> None:
    """Print any inev file (network, workload, plan, simulation, changes, sweep results)."""
    kind = kind_of(file)
    view = _views().get(kind)
    if view is None:
        raise InevError(f"{file}: cannot show {kind} files")
    show_view(view(file, Given(network_file, plan_file)))
