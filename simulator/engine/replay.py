"""Replaying a recorded trace through one engine per query, at trace scale (``inev match``).

The trace is streamed in chunks (:mod:`inev.common.traces`), so memory holds one chunk and
what the engines keep for their window, never the whole trace: matches are handed to a
writer as they become final. Before the run, :func:`prepare` scans the trace once: it checks
its content (ids unique per type), its order, and the size estimate of
:mod:`.size` (refusing a run whose partial matches would exhaust memory, naming the query,
the knob and the estimate); during the run a :class:`.size.SizeGuard` watches the partial
matches the engines hold.

A trace that is not in time order is sorted in memory when it has at most ``SORT_LIMIT``
rows (the engines need time order), and refused above that, saying so.

Queries with a ``return`` clause that GRETA can evaluate are aggregated GRETA-style in the
same pass (no trend is built); their results are written after the matches, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.traces import TraceFile, TraceScan
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event
from inev.simulator.engine.greta.event_rows import as_event
from inev.simulator.engine.size import SizeGuard, TraceSize, check_trace_size, scan_for
from inev.simulator.engine.streams import leaf_routes, relabel
from inev.simulator.engine.trace import as_events
from inev.workloads.workload import Workload

SORT_LIMIT = 2_000_000
"""Rows of an unsorted trace that are still sorted in memory."""


@dataclass
class Prepared:
    """A scanned, checked trace: the scan, the size estimate and the reader."""

    trace: TraceFile
    scan: TraceScan
    size: TraceSize | None


def prepare(
    workload: Workload,
    path: str | os.PathLike[str],
    check: bool = True,
    aggregated: Collection[str] = (),
) -> Prepared:
    """Scan ``path`` once: content, order and (with ``check``) the size estimate, in which the
    queries named in ``aggregated`` are priced as GRETA graphs (:mod:`.size`)."""
    trace = TraceFile(path)
    scan = scan_for(workload, path)
    if scan.unsorted is not None and scan.rows > SORT_LIMIT:
        raise InevError(
            f"{scan.unsorted} goes back in time: a trace of {scan.rows:,} rows must be sorted "
            f"by time to be streamed (up to {SORT_LIMIT:,} rows are sorted in memory)"
        )
    size = check_trace_size(workload, scan, trace.name, aggregated=aggregated) if check else None
    return Prepared(trace, scan, size)


def absent_types(workload: Workload, scan: TraceScan) -> list[str]:
    """One note per query whose positive types the trace never holds: which types, and
    whether the query can match at all (an OR branch without them still can).

    >>> from collections import Counter
    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, Z)"), Query.build("r", "OR(A, Y)")])
    >>> for note in absent_types(wl, TraceScan(rows=3, counts=Counter({"A": 3}))):
    ...     print(note)
    query q: the trace holds no event of type Z, so it cannot match
    query r: the trace holds no event of type Y
    """
    notes = []
    for q in workload.queries:
        negated = q.negated
        # a variable reads its type's events
        missing = [
            q.stream_of(t)
            for t in q.types
            if t not in negated and not scan.counts.get(q.stream_of(t), 0)
        ]
        missing = list(dict.fromkeys(missing))
        if not missing:
            continue
        possible = any(
            all(scan.counts.get(q.stream_of(t), 0) > 0 for t in _positive(branch))
            for branch in q.branches
        )
        listed = ", ".join(missing)
        word = "type" if len(missing) == 1 else "types"
        notes.append(
            f"query {q.name}: the trace holds no event of {word} {listed}"
            + ("" if possible else ", so it cannot match")
        )
    return notes


def _positive(pattern: Any) -> list[str]:
    """The types of an OR-free pattern that a match must hold (its negated ones excepted)."""
    from inev.workloads.pattern import leaf_types, negated_types

    negated = negated_types(pattern)
    return [t for t in leaf_types(pattern) if t not in negated]


def ordered_chunks(prepared: Prepared, attributes: Any = None) -> Iterator[list[Event]]:
    """The trace's events in time order, chunk by chunk (see the module docstring)."""
    chunks = (as_events(batch) for batch in prepared.trace.batches(attributes))
    if prepared.scan.unsorted is None:
        yield from chunks
        return
    events = [e for chunk in chunks for e in chunk]
    events.sort(key=lambda e: e.time)
    for start in range(0, len(events), 65_536):
        yield events[start : start + 65_536]


@dataclass
class ReplayCounts:
    """What a replay saw: events read, events of types no query uses, matches per query."""

    events: int = 0
    ignored: int = 0
    matches: dict[str, int] = field(default_factory=dict)


def replay(
    workload: Workload,
    chunks: Iterator[list[Event]],
    engines: Mapping[str, Engine],
    aggregated: Mapping[str, Any],
    write: Callable[[str, list], None],
    write_result: Callable[[dict[str, Any]], None],
    progress: Callable[[float], None] | None = None,
    guard: SizeGuard | None = None,
) -> ReplayCounts:
    """Push every event to the engines of the queries that use its type, in one pass.

    ``engines``: one per query that builds matches; ``aggregated``: a ``GretaQuery`` per
    query aggregated without trends. ``write(query, matches)`` gets matches as they become
    final; ``write_result`` each GRETA result, after all matches (their order in the file
    is as before streaming: matches first).

    The per-event path of ``inev match`` and of the simulator's centralized check, timed by
    ``benchmarks/bench_trace_replay.py`` and ``bench_simulator.py`` (its "centralized
    check" seconds): the loop stays here, routing and delivery are helpers.
    """
    routes, greta_routes = _routes(workload, engines, aggregated)
    counts = ReplayCounts(matches=dict.fromkeys([*engines, *aggregated], 0))
    results: list[dict[str, Any]] = []
    for chunk in chunks:
        for event in chunk:
            targets = routes.get(event.type)
            greta = greta_routes.get(event.type)
            if targets is None and greta is None:
                counts.ignored += 1
                continue
            if targets is not None:
                _deliver(event, targets, counts, write)
            if greta is not None:
                _aggregate(event, greta, results)
            if guard is not None:
                guard.tick(event.time)
        counts.events += len(chunk)
        if progress is not None and chunk:
            progress(chunk[-1].time)
    _finish(engines, aggregated, counts, results, write, write_result)
    return counts


Route = tuple[str, Any, tuple[str, ...] | None]


def _routes(
    workload: Workload, engines: Mapping[str, Engine], aggregated: Mapping[str, Any]
) -> tuple[dict[str, list[Route]], dict[str, list[Route]]]:
    """Per event type, the engines and the GRETA runners that get it, each with the leaf
    names the event is relabelled to (None: its own type; a variable's engine gets its
    type's events relabelled, see .streams)."""
    routes: dict[str, list[Route]] = {}
    greta_routes: dict[str, list[Route]] = {}
    for q in workload.queries:
        leaves = leaf_routes(q.types, q.streams)
        if q.name in engines:
            for t, names in leaves.items():
                plain = None if names == (t,) else names
                routes.setdefault(t, []).append((q.name, engines[q.name], plain))
        if q.name in aggregated:
            runner = aggregated[q.name]
            for t, names in leaves.items():
                if set(names) & set(runner.compiled.all_types):
                    plain = None if names == (t,) else names
                    greta_routes.setdefault(t, []).append((q.name, runner, plain))
    return routes, greta_routes


def _deliver(
    event: Event, targets: list[Route], counts: ReplayCounts, write: Callable[[str, list], None]
) -> None:
    """Push ``event`` to the engines of ``targets`` and write the matches it completes."""
    for name, engine, leaves in targets:
        if leaves is None:
            found = engine.push(event)
        else:
            found = [m for x in relabel(event, leaves) for m in engine.push(x)]
        if found:
            counts.matches[name] += len(found)
            write(name, found)


def _aggregate(event: Event, greta: list[Route], results: list[dict[str, Any]]) -> None:
    """Push ``event`` to the GRETA runners of ``greta``, collecting the results they emit."""
    for _name, runner, leaves in greta:
        for x in relabel(event, leaves) if leaves is not None else (event,):
            results.extend(runner.push(as_event(x)))


def _finish(
    engines: Mapping[str, Engine],
    aggregated: Mapping[str, Any],
    counts: ReplayCounts,
    results: list[dict[str, Any]],
    write: Callable[[str, list], None],
    write_result: Callable[[dict[str, Any]], None],
) -> None:
    """Flush the engines, finish the GRETA runners, then write the GRETA results."""
    for name, engine in engines.items():
        found = engine.flush()
        counts.matches[name] += len(found)
        write(name, found)
    for _name, runner in aggregated.items():
        results.extend(runner.finish())
    for result in results:
        counts.matches[result["query"]] += 1
        write_result(result)
