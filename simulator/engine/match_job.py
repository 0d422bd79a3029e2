"""``inev match`` as library functions: options to one checked request, a trace to a JSONL file.

The command (:mod:`inev.simulator.engine.cli`) parses and checks its flags, builds the
engines' :class:`~inev.simulator.engine.matching.MatchOptions` and, with a capacity, the
:class:`~inev.simulator.engine.api.SheddingOptions`, and prints; the job lives here, so a
notebook or a test runs the same job without click (and without flags):

:func:`match_request`
    The files and the options checked and turned into one :class:`MatchRequest`; a bad
    value is one :class:`~inev.common.errors.InevError` before any file is read.
:func:`open_match`
    The workload read and the trace scanned (order, size estimate): a :class:`MatchJob`, with
    the notes to show before the run and the trace's time span for a progress bar.
:meth:`MatchJob.run`
    The matches written to the output file (atomically); the result is a :class:`MatchSummary`
    (exact run) or a :class:`ShedSummary` (one overloaded node), which
    :mod:`inev.simulator.engine.tables` formats.

Examples
--------
>>> import tempfile, pathlib, json
>>> from inev.workloads.io import save_workload
>>> from inev.workloads.workload import Query, Workload
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> save_workload(Workload.build(5.0, [Query.build("q", "SEQ(A, B)")]), tmp / "wl.json")
>>> _ = (tmp / "t.csv").write_text("time,type,node,id\\n0,A,0,1\\n1,B,0,2\\n2,B,0,3\\n")
>>> request = match_request(tmp / "wl.json", tmp / "t.csv", tmp / "m.jsonl")
>>> summary = open_match(request).run()
>>> summary.matches, summary.events
({'q': 2}, 3)
>>> [json.loads(line)["events"] for line in (tmp / "m.jsonl").read_text().splitlines()]
[[1, 2], [1, 3]]
"""

from __future__ import annotations

import json
import os
import time as clock
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.option_names import option
from inev.common.paths import check_paths
from inev.simulator.engine.api import SheddingOptions, compile_workload
from inev.simulator.engine.matching import (
    MatchOptions,
    check_engines,
    greta_queries,
    match_workload,
)
from inev.simulator.engine.replay import Prepared, absent_types, ordered_chunks, prepare
from inev.simulator.engine.selection import Selection
from inev.simulator.engine.shedding.node_queue import (
    check_shedding,
    parse_capacity,
)
from inev.workloads.io import load_workload
from inev.workloads.workload import Workload

Path = str | os.PathLike[str]


@dataclass(frozen=True)
class MatchRequest:
    """One checked ``inev match`` job: its files, the engines' options, the shedding.

    Attributes
    ----------
    workload_file, trace_file, out : path
        The workload (inev-workload/1), the trace (CSV or Parquet) and the JSONL output.
    options : MatchOptions
        Plan generation, re-optimisation, selection strategy, size guard.
    shedding : SheddingOptions or None
        With a capacity: one overloaded node and how it sheds; None: the exact run.
    """

    workload_file: Path
    trace_file: Path
    out: Path
    options: MatchOptions
    shedding: SheddingOptions | None = None


def match_request(
    workload_file: Path,
    trace_file: Path,
    out: Path,
    options: MatchOptions | None = None,
    shedding: SheddingOptions | None = None,
) -> MatchRequest:
    """The checked :class:`MatchRequest` of a workload, a trace, an output and the options.

    Parameters
    ----------
    workload_file, trace_file, out : path
        The inputs and the JSONL output (checked: inputs exist, the output is not an input).
    options : MatchOptions, optional
        The engines' options (default: ``MatchOptions()``).
    shedding : SheddingOptions, optional
        One overloaded node and how it sheds (``None``: the exact run); it runs
        skip-till-any-match only.

    Returns
    -------
    MatchRequest

    Examples
    --------
    >>> import tempfile, pathlib
    >>> tmp = pathlib.Path(tempfile.mkdtemp()); (tmp / "w").touch(); (tmp / "t").touch()
    >>> match_request(tmp / "w", tmp / "t", tmp / "o", shedding=SheddingOptions("a=3"))
    Traceback (most recent call last):
    inev.common.errors.InevError: capacity must be a number or auto:F, got 'a=3'
    """
    options = options or MatchOptions()
    check_paths({"workload": workload_file, "trace": trace_file}, out)
    if shedding is not None:
        if options.selection is not None and not options.selection.default:
            raise InevError("a shedding run is skip-till-any-match only (no other selection)")
        parse_capacity(shedding.capacity)
        check_shedding(shedding.latency_bound, shedding.cost_per_unit)
    return MatchRequest(workload_file, trace_file, out, options, shedding)


@dataclass(frozen=True)
class MatchSummary:
    """What an exact ``inev match`` run wrote and counted.

    ``matches`` per query (GRETA queries: aggregate cells, named in ``aggregated``),
    ``reoptimizations`` and ``plan_changes`` per matching query, ``events`` read (``ignored``
    of unknown types, ``skipped`` empty lines), wall ``seconds``, ``notes``, the ``out`` file.
    """

    out: Path
    matches: dict[str, int]
    aggregated: tuple[str, ...]
    reoptimizations: dict[str, int]
    plan_changes: dict[str, int]
    events: int
    ignored: int
    skipped: int
    seconds: float
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShedSummary:
    """What an overloaded ``inev match --capacity`` run wrote: the shedding figures (the
    file's last line, :class:`~inev.simulator.engine.api.SheddingReport`), the strategy, the
    events run and wall ``seconds``."""

    out: Path
    figures: dict[str, Any]
    strategy: str
    events: int
    seconds: float


@dataclass(frozen=True)
class MatchJob:
    """A request with its workload read and its trace scanned; :meth:`run` writes the file."""

    request: MatchRequest
    workload: Workload
    prepared: Prepared
    notes: list[str]

    @property
    def span(self) -> tuple[float, float]:
        """The trace's first and last time (for a progress bar)."""
        return self.prepared.scan.start, self.prepared.scan.end

    def run(self, progress: Callable[[float], None] | None = None) -> MatchSummary | ShedSummary:
        """Evaluate the workload over the trace and write the matches (JSON Lines)."""
        if self.request.shedding is not None:
            return self._shed(self.request.shedding)
        request, scan = self.request, self.prepared.scan
        start = clock.perf_counter()
        with atomic_output(request.out) as handle:

            def write(name: str, matches: list) -> None:
                for m in matches:
                    handle.write(json.dumps({"query": name, "events": [e.id for e in m]}) + "\n")

            def write_result(result: dict[str, Any]) -> None:
                handle.write(json.dumps(result) + "\n")

            run = match_workload(
                self.workload,
                ordered_chunks(self.prepared),
                request.options,
                write=write,
                write_result=write_result,
                progress=progress,
            )
        counters = {name: engine.counters for name, engine in run.engines.items()}
        return MatchSummary(
            out=request.out,
            matches={n: run.counts.matches[n] for n in [*run.engines, *run.aggregated]},
            aggregated=tuple(run.aggregated),
            reoptimizations={n: c["reoptimizations"] for n, c in counters.items()},
            plan_changes={n: c["plan_changes"] for n, c in counters.items()},
            events=run.counts.events,
            ignored=run.counts.ignored,
            skipped=scan.skipped,
            seconds=clock.perf_counter() - start,
            notes=list(run.notes),
        )

    def _shed(self, shedding: SheddingOptions) -> ShedSummary:
        """One overloaded node: its matches, then the ``{"shedding": …}`` line."""
        events = [e for chunk in ordered_chunks(self.prepared) for e in chunk]
        start = clock.perf_counter()
        report = compile_workload(self.workload, self.request.options).shed(events, shedding)
        seconds = clock.perf_counter() - start
        with atomic_output(self.request.out) as handle:
            for q in self.workload.queries:
                for ids in report.matches.get(q.name, []):
                    handle.write(json.dumps({"query": q.name, "events": list(ids)}) + "\n")
            # wall-clock figures stay out of the file, so that equal inputs give equal files
            figures = {
                k: v
                for k, v in report.figures.items()
                if k not in ("shedder_seconds", "wall_seconds")
            }
            handle.write(json.dumps({"shedding": figures}) + "\n")
        return ShedSummary(
            self.request.out, report.figures, shedding.strategy, len(events), seconds
        )


def open_match(request: MatchRequest) -> MatchJob:
    """Read the workload and scan the trace of ``request`` (refusing what would not fit).

    Parameters
    ----------
    request : MatchRequest
        From :func:`match_request`.

    Returns
    -------
    MatchJob
        Its ``notes`` (query types the trace never holds) are for the user before the run.
    """
    workload = load_workload(request.workload_file)
    _check_leaves(workload, request.options.selection)
    # an overloaded node builds every query's matches (its shedders drop partial matches)
    exact = request.shedding is None
    aggregated = greta_queries(workload, request.options) if exact else frozenset()
    check_engines(workload, request.options, aggregated, os.fspath(request.workload_file))
    prepared = prepare(
        workload, request.trace_file, check=request.options.guard, aggregated=aggregated
    )
    return MatchJob(request, workload, prepared, absent_types(workload, prepared.scan))


def _check_leaves(workload: Workload, selection: Selection | None) -> None:
    """Every leaf --consume and --freeze name is a leaf of some query."""
    if selection is None:
        return
    leaves = {t for q in workload.queries for t in q.types} | {"*"}
    for leaf in sorted((selection.consume | selection.freeze) - leaves):
        raise InevError(f"{option('consume')}/{option('freeze')}: no query has a leaf {leaf}")
