"""``inev match``: centralized evaluation of a workload over a trace (SPEC: matches as JSONL)."""

from __future__ import annotations

import itertools
import json
import time as clock

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.trace import read_trace
from inev.workloads.io import load_workload

PROGRESS_FROM = 200_000


@click.command("match")
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="JSONL output.")
@click.option(
    "--plan", type=click.Choice(["greedy", "zstream"]), default="greedy", show_default=True
)
@click.option(
    "--adaptive",
    type=click.Choice(["invariant", "always", "threshold", "off"]),
    default="off",
    show_default=True,
    help="Re-optimisation decision function.",
)
@click.option(
    "--invariants", "k", default=1, show_default=True, help="K of the K-invariant method."
)
@click.option(
    "--distance",
    default="auto",
    show_default=True,
    help="Invariant distance d: a number, or 'auto' (average relative gap).",
)
@click.option(
    "--check-every", default=256, show_default=True, help="Processed events between checks."
)
def match_command(
    workload_file: str,
    trace_file: str,
    out: str,
    plan: str,
    adaptive: str,
    k: int,
    distance: str,
    check_every: int,
) -> None:
    """Evaluate every query of a workload over a trace; write one JSON line per match."""
    if distance != "auto":
        try:
            d: float | str = float(distance)
        except ValueError:
            raise InevError(f"--distance must be a number or 'auto', got {distance!r}") from None
        if d < 0:
            raise InevError(f"--distance must not be negative, got {distance}")
    else:
        d = "auto"
    if k < 1 or check_every < 1:
        raise InevError("--invariants and --check-every must be at least 1")
    adaptation = Adaptation(adaptive, k=k, distance=d, check_every=check_every)
    workload = load_workload(workload_file)
    engines = {
        q.name: Engine.from_query(q, workload, plan=plan, adaptation=adaptation)
        for q in workload.queries
    }
    console = Console(stderr=True)
    for q in workload.queries:
        if q.returns is not None:
            console.print(
                f"note: {q.name} has a return clause; its matches are written (aggregation "
                "is not part of this command yet)"
            )
    routes: dict[str, list[tuple[str, Engine]]] = {}
    for q in workload.queries:
        for t in set(q.types):
            routes.setdefault(t, []).append((q.name, engines[q.name]))
    events = list(read_trace(trace_file))
    if any(a.time > b.time for a, b in itertools.pairwise(events)):
        events.sort(key=lambda e: e.time)
    counts = dict.fromkeys(engines, 0)
    ignored = 0
    total = len(events)
    start = clock.perf_counter()
    with atomic_output(out) as handle:

        def write(name: str, matches: list) -> None:
            for m in matches:
                handle.write(json.dumps({"query": name, "events": [e.id for e in m]}) + "\n")
            counts[name] += len(matches)

        progress = Progress(console=console, transient=True, disable=total < PROGRESS_FROM)
        with progress:
            task = progress.add_task("matching", total=total)
            for i, event in enumerate(events):
                targets = routes.get(event.type)
                if targets is None:
                    ignored += 1
                else:
                    for name, engine in targets:
                        found = engine.push(event)
                        if found:
                            write(name, found)
                if i % 10_000 == 0:
                    progress.update(task, completed=i)
        for name, engine in engines.items():
            write(name, engine.flush())
    seconds = clock.perf_counter() - start
    table = Table("query", "matches", "reoptimizations", "plan changes")
    for name, engine in engines.items():
        c = engine.counters
        table.add_row(name, str(counts[name]), str(c["reoptimizations"]), str(c["plan_changes"]))
    Console().print(table)
    rate = total / seconds if seconds > 0 else float("inf")
    click.echo(
        f"match: {sum(counts.values())} matches, {total} events ({ignored} of unknown types "
        f"ignored) in {seconds:.2f}s, {rate:,.0f} events/s -> {out}"
    )
