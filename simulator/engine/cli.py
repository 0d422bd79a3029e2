"""``inev match``: centralized evaluation of a workload over a trace (SPEC: matches as JSONL)."""

from __future__ import annotations

import json
import time as clock
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.progress import time_progress
from inev.common.words import plural
from inev.simulator.engine.api import (
    SAFETY_SHARE,
    CompiledWorkload,
    SheddingOptions,
    compile_workload,
)
from inev.simulator.engine.matching import (
    ADAPTIVE,
    ENGINE_PLANS,
    MatchOptions,
    adaptation_of,
    greta_queries,
    match_workload,
)
from inev.simulator.engine.processing import check_shedding, parse_capacity, shedding_strategy
from inev.simulator.engine.replay import absent_types, ordered_chunks, prepare
from inev.simulator.engine.selection import parse_selection
from inev.simulator.engine.shedding.shedders import STRATEGIES
from inev.workloads.io import load_workload


def engine_options(command: Any) -> Any:
    """``--engine-plan`` and ``--adaptive``: the local engines' options, the same (names,
    choices, defaults) for ``inev match`` and ``inev simulate``."""
    command = click.option(
        "--adaptive",
        type=click.Choice(ADAPTIVE),
        default="invariant",
        show_default=True,
        help="Re-optimisation of the engines' evaluation plans (invariant-based, or always, "
        "on a threshold, or never).",
    )(command)
    return click.option(
        "--engine-plan",
        type=click.Choice(ENGINE_PLANS),
        default="greedy",
        show_default=True,
        help="How the engines order a pattern's evaluation (greedy or ZStream cost model).",
    )(command)


def shedding_options(command: Any) -> Any:
    """``--latency-bound``, ``--shed``, ``--cost-per-unit`` and ``--safety``: load shedding
    under a capacity, the same for ``inev match`` (one node) and ``inev simulate`` (each)."""
    options = [
        click.option(
            "--latency-bound",
            type=float,
            default=None,
            help="Latency bound per node (time units).",
        ),
        click.option(
            "--shed",
            type=click.Choice(list(STRATEGIES)),
            default=None,
            help="Load shedding strategy (needs --capacity; default pspice with a bound, else none).",
        ),
        click.option(
            "--cost-per-unit",
            type=float,
            default=1.0,
            show_default=True,
            help="Service time per work unit, times the capacity.",
        ),
        click.option(
            "--safety",
            type=float,
            default=None,
            help=f"Safety buffer of the overload detector (default: {SAFETY_SHARE:.0%} of the bound).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def size_check_option(command: Any) -> Any:
    """``--no-size-check``: run even when the size estimate says the run would not fit."""
    return click.option(
        "--no-size-check", is_flag=True, help="Run even when the estimated size is too big."
    )(command)


@click.command(
    "match",
    epilog=examples(
        "inev match seq.json trace.csv -o matches.jsonl",
    ),
)
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="JSONL output.")
@engine_options
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
@click.option(
    "--capacity",
    default=None,
    help="Work units per time unit of the node, or auto:F (F times what the unshedded run needs).",
)
@shedding_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of random shedders.")
@click.option(
    "--strategy",
    default="any",
    show_default=True,
    help="Selection strategy: any (skip-till-any-match), next (skip-till-next-match), "
    "contiguous (strict contiguity) or partition:ATTR (contiguity per value of ATTR).",
)
@click.option(
    "--consume",
    multiple=True,
    metavar="LEAF",
    help="Events bound to this leaf (event type or variable; 'all' for every leaf) are in one "
    "match at most, the first emitted (repeatable).",
)
@click.option(
    "--freeze",
    multiple=True,
    metavar="LEAF",
    help="An event of this leaf blocks new events of it and of the leaves before it until it "
    "is matched or its window passes (OpenCEP's freeze policy; repeatable).",
)
@size_check_option
def match_command(
    workload_file: str,
    trace_file: str,
    out: str,
    engine_plan: str,
    adaptive: str,
    k: int,
    distance: str,
    check_every: int,
    capacity: str | None,
    latency_bound: float | None,
    shed: str | None,
    cost_per_unit: float,
    safety: float | None,
    seed: int,
    strategy: str,
    consume: tuple[str, ...],
    freeze: tuple[str, ...],
    no_size_check: bool,
) -> None:
    """Evaluate every query of a workload over a trace; write one JSON line per match.

    --strategy, --consume and --freeze choose among the matches (skip-till-any-match, the
    default, keeps them all, and is what the planner and inev simulate assume); see
    docs/spec-extensions.md.

    With --capacity the trace runs through one node of that capacity (FIFO queue, work
    units as service time), with --latency-bound and --shed under load shedding; the
    matches of that run are written, then a final {"shedding": {...}} line with the quality
    of results against an unshedded run of the same trace.

    The trace is streamed in time order (an unsorted one is sorted in memory up to a size);
    a scan first checks it and estimates the partial matches per window (per key for
    equality joins), refusing a run that would exhaust memory."""
    check_paths({"workload": workload_file, "trace": trace_file}, out)
    adaptation = adaptation_of(adaptive, k, distance, check_every)
    selection = parse_selection(strategy, consume, freeze)
    strategy = shedding_strategy(capacity is not None, shed, latency_bound)
    if capacity is not None and not selection.default:
        raise InevError("--capacity runs skip-till-any-match only (no --strategy, --consume)")
    if capacity is not None:
        parse_capacity(capacity)
        check_shedding(latency_bound, cost_per_unit)
    workload = load_workload(workload_file)
    _check_leaves(workload, selection)
    options = MatchOptions(engine_plan, adaptation, guard=not no_size_check, selection=selection)
    # an overloaded node builds every query's matches (its shedders drop partial matches)
    aggregated = greta_queries(workload, options) if capacity is None else frozenset()
    prepared = prepare(workload, trace_file, check=not no_size_check, aggregated=aggregated)
    for note in absent_types(workload, prepared.scan):
        Console(stderr=True).print(f"note: {note}", highlight=False)
    if capacity is not None:
        events = [e for chunk in ordered_chunks(prepared) for e in chunk]
        shedding = SheddingOptions(capacity, latency_bound, strategy, cost_per_unit, safety, seed)
        _match_overloaded(compile_workload(workload, options), events, out, shedding)
        return
    scan = prepared.scan
    start = clock.perf_counter()
    with atomic_output(out) as handle, time_progress("match", scan.start, scan.end) as update:

        def write(name: str, matches: list) -> None:
            for m in matches:
                handle.write(json.dumps({"query": name, "events": [e.id for e in m]}) + "\n")

        def write_result(result: dict[str, Any]) -> None:
            handle.write(json.dumps(result) + "\n")

        run = match_workload(
            workload,
            ordered_chunks(prepared),
            options,
            write=write,
            write_result=write_result,
            progress=update,
        )
    seconds = clock.perf_counter() - start
    for note in run.notes:
        Console(stderr=True).print(f"note: {note}")
    table = Table("query", "matches", "reoptimizations", "plan changes")
    counts, engines, aggregated = run.counts, run.engines, run.aggregated
    for name, engine in engines.items():
        c = engine.counters
        table.add_row(
            name, str(counts.matches[name]), str(c["reoptimizations"]), str(c["plan_changes"])
        )
    for name in aggregated:
        table.add_row(name, f"{plural(counts.matches[name], 'aggregate cell')} (GRETA)", "–", "–")
    Console().print(table)
    rate = counts.events / seconds if seconds > 0 else float("inf")
    found = plural(sum(counts.matches[n] for n in engines), "match", "matches")
    if aggregated:
        found += ", " + plural(sum(counts.matches[n] for n in aggregated), "aggregate cell")
    dropped = f"{counts.ignored} of unknown types ignored"
    if scan.skipped:
        dropped += f", {plural(scan.skipped, 'empty line')} skipped"
    click.echo(
        f"match: {found}, {plural(counts.events, 'event')} ({dropped}) in "
        f"{seconds:.2f} s, {rate:,.0f} events/s -> {out}"
    )


def _check_leaves(workload: Any, selection: Any) -> None:
    """Every leaf --consume and --freeze name is a leaf of some query."""
    leaves = {t for q in workload.queries for t in q.types} | {"*"}
    for leaf in sorted((selection.consume | selection.freeze) - leaves):
        raise InevError(f"--consume/--freeze: no query has a leaf {leaf}")


def _match_overloaded(
    compiled: CompiledWorkload, events: list, out: str, shedding: SheddingOptions
) -> None:
    """``inev match --capacity …``: one overloaded node, matches plus the shedding line."""
    start = clock.perf_counter()
    report = compiled.shed(events, shedding)
    result, strategy = report.figures, shedding.strategy
    seconds = clock.perf_counter() - start
    with atomic_output(out) as handle:
        for q in compiled.workload.queries:
            for ids in report.matches.get(q.name, []):
                handle.write(json.dumps({"query": q.name, "events": list(ids)}) + "\n")
        # wall-clock figures stay out of the file, so that equal inputs give equal files
        figures = {k: v for k, v in result.items() if k not in ("shedder_seconds", "wall_seconds")}
        handle.write(json.dumps({"shedding": figures}) + "\n")
    table = Table("query", "reference", "matches", "false neg.", "false pos.")
    for name, figures in result["queries"].items():
        table.add_row(
            name,
            str(figures["reference"]),
            str(figures["matches"]),
            str(figures["false_negatives"]),
            str(figures["false_positives"]),
        )
    Console().print(table)
    lat = result["latency"]
    click.echo(
        f"match: shed {strategy} at load {result['load']:.2f} (capacity "
        f"{result['capacity']:.4g}), false negatives {result['false_negatives']} "
        f"({result['false_negative_share']:.1%} weighted), false positives "
        f"{result['false_positives']}, bound violations {result['bound_violations']}, "
        f"shed {result['shed_partial_matches']} partial matches and {result['shed_events']} "
        f"events, latency mean {_figure(lat['mean'])} p99 {_figure(lat['p99'])} "
        f"max {_figure(lat['max'])}, "
        f"{len(events)} events in {seconds:.2f}s -> {out}"
    )


def _figure(value: float | None) -> str:
    """A summary figure for the terminal: four significant digits, ``n/a`` for none."""
    return "n/a" if value is None else f"{value:.4g}"
