"""``inev match``: centralized evaluation of a workload over a trace (SPEC: matches as JSONL).

The command parses and checks its flags and builds the options objects
(:func:`request_from_flags`) and prints; the job (checks, the trace, the output file) is
:mod:`inev.simulator.engine.match_job`, its table and summary line
:mod:`inev.simulator.engine.tables`. The flags ``inev simulate`` shares with it are defined
once in :mod:`inev.simulator.engine.click_options`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from rich.console import Console

from inev.common.click_options import seed_option
from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.progress import time_progress
from inev.simulator.engine.api import SheddingOptions
from inev.simulator.engine.click_options import (
    capacity_option,
    engine_options,
    shedding_options,
    size_check_option,
)
from inev.simulator.engine.engine_options import (
    DEFAULT_ADAPTATION,
    DEFAULT_ENGINE_PLAN,
    Adaptation,
)
from inev.simulator.engine.match_job import MatchRequest, MatchSummary, match_request, open_match
from inev.simulator.engine.matching import MatchOptions, adaptation_of
from inev.simulator.engine.selection import Selection, parse_selection
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.node_queue import (
    check_shedding,
    parse_capacity,
    shedding_strategy,
)
from inev.simulator.engine.tables import result_table, summary_line

DEFAULT_FLAGS: Mapping[str, Any] = {
    "engine_plan": DEFAULT_ENGINE_PLAN,
    "adaptive": DEFAULT_ADAPTATION,
    "k": Adaptation.k,
    "distance": Adaptation.distance,
    "check_every": Adaptation.check_every,
    "capacity": None,
    "latency_bound": None,
    "shed": None,
    "cost_per_unit": DEFAULT_COST_PER_UNIT,
    "safety": None,
    "seed": 0,
    "strategy": "any",
    "consume": (),
    "freeze": (),
    "no_size_check": False,
}
"""``inev match``'s flag values when none is given (the command's defaults)."""


@click.command(
    "match",
    epilog=examples(
        "inev match seq.json trace.csv -o matches.jsonl",
        "inev match seq.json trace.csv --capacity auto:0.5 --latency-bound 2 -o matches.jsonl",
    ),
)
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="JSONL output.")
@engine_options
@click.option(
    "--invariants",
    "k",
    default=Adaptation.k,
    type=int,
    help="K of the K-invariant method [default: 1 for greedy plans, 2 for ZStream's].",
)
@click.option(
    "--distance",
    default=Adaptation.distance,
    show_default=True,
    help=(
        "Invariant distance d: a number; 'auto' (per invariant, from the statistics' noise); "
        "or 'average' (the mean relative gap at creation)"
    ),
)
@click.option(
    "--check-every",
    default=Adaptation.check_every,
    show_default=True,
    help="Processed events between checks.",
)
@capacity_option(every_node=False)
@shedding_options
@seed_option("the random shedders")
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
def match_command(workload_file: str, trace_file: str, out: str, **flags: Any) -> None:
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
    job = open_match(request_from_flags(workload_file, trace_file, out, flags))
    errors = Console(stderr=True)
    for note in job.notes:
        errors.print(f"note: {note}", highlight=False)
    with time_progress("match", *job.span) as update:
        summary = job.run(update)
    for note in summary.notes if isinstance(summary, MatchSummary) else ():
        errors.print(f"note: {note}")
    Console().print(result_table(summary))
    click.echo(summary_line(summary))


def request_from_flags(
    workload_file: str, trace_file: str, out: str, flags: Mapping[str, Any]
) -> MatchRequest:
    """The :class:`~inev.simulator.engine.match_job.MatchRequest` of the command's flag
    values (by parameter name, :data:`DEFAULT_FLAGS`; missing ones: defaults); a bad value or
    combination is one :class:`~inev.common.errors.InevError` naming the flags."""
    unknown = set(flags) - set(DEFAULT_FLAGS)
    if unknown:
        raise TypeError(f"request_from_flags: unknown flags {', '.join(sorted(unknown))}")
    f = {**DEFAULT_FLAGS, **flags}
    check_paths({"workload": workload_file, "trace": trace_file}, out)
    adaptation = adaptation_of(f["adaptive"], f["k"], f["distance"], f["check_every"])
    selection = parse_selection(f["strategy"], f["consume"], f["freeze"])
    options = MatchOptions(
        f["engine_plan"], adaptation, guard=not f["no_size_check"], selection=selection
    )
    return match_request(workload_file, trace_file, out, options, _shedding(f, selection))


def _shedding(f: Mapping[str, Any], selection: Selection) -> SheddingOptions | None:
    """The shedding options of the flags (None without ``--capacity``), checked."""
    capacity = f["capacity"]
    strategy = shedding_strategy(capacity is not None, f["shed"], f["latency_bound"])
    if capacity is None:
        if f["safety"] is not None:
            raise InevError("--safety needs --capacity and --latency-bound")
        return None
    if not selection.default:
        raise InevError("--capacity runs skip-till-any-match only (no --strategy, --consume)")
    parse_capacity(capacity)
    check_shedding(f["latency_bound"], f["cost_per_unit"])
    return SheddingOptions(
        capacity=capacity,
        latency_bound=f["latency_bound"],
        strategy=strategy,
        cost_per_unit=f["cost_per_unit"],
        safety=f["safety"],
        seed=f["seed"],
    )
