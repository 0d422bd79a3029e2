"""Replaying a recorded trace in a simulation: held in memory or streamed chunk by chunk.

A streamed trace (no changes, no capacity, no ``return`` query) runs the centralized engines in
the same pass and keeps only the matches in flight (see :mod:`inev.simulator.run`).
"""

from __future__ import annotations

import operator
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.simulator.change_epochs import Epoch
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event
from inev.simulator.epoch_execution import Feed, RunGuard, execute_epochs
from inev.simulator.estimate import MAX_EVENTS
from inev.simulator.measurement import gathering, run_counters
from inev.simulator.options import SimulationOptions
from inev.simulator.simulation_result import MatchBalance, SimulationResult
from inev.simulator.sources import with_variables
from inev.simulator.tally import Tally
from inev.simulator.timeline import run_timeline
from inev.topologies.network import Network
from inev.workloads.workload import Workload

_TIME_ID = operator.attrgetter("time", "id")


def as_events(trace: Sequence[Any]) -> list[Event]:
    out = list(trace)
    for e in out:
        if not isinstance(e, Event):
            raise InevError(f"trace item {e!r} is not an event")
    return out


@dataclass
class TraceStream:
    """A recorded trace replayed chunk by chunk: ``chunks()`` yields its events in time
    order (and may be called again), ``start`` and ``end`` are its first and last times,
    ``rows`` its events and ``skipped`` its empty lines (see
    :func:`inev.simulator.engine.replay.prepare`). The model's messages are ψ times the
    trace's span, ``end - min(start, 0)``."""

    chunks: Callable[[], Iterator[Sequence[Event]]]
    end: float
    rows: int
    skipped: int = 0
    start: float = 0.0


class TraceFilter:
    """Keeps the trace events of the workload's types; refuses one at a node that is not a
    source of its type, or at a negative time; counts the events of other types
    (``ignored``)."""

    def __init__(self, network: Network, workload: Workload) -> None:
        self.sources = {t: frozenset(network.event_types[t].sources) for t in workload.event_types}
        self.workload = workload
        self.ignored = 0

    def chunks(self, chunks: Iterable[Sequence[Event]]) -> Iterator[list[Event]]:
        sources = self.sources
        for chunk in chunks:
            kept = []
            for event in chunk:
                if event.time < 0:
                    raise InevError(
                        f"trace event {event.id!r} has the negative time {event.time:g}: the "
                        "simulation clock starts at 0, shift the trace's times"
                    )
                allowed = sources.get(event.type)
                if allowed is None:
                    self.ignored += 1
                    continue
                if event.node not in allowed:
                    raise InevError(
                        f"trace event {event.id!r}: node {event.node!r} is not a source of "
                        f"{event.type} in the network"
                    )
                kept.append(event)
            yield with_variables(kept, self.workload)


def streamable(
    wl: Workload, changes: Sequence[Mapping[str, Any]], options: SimulationOptions
) -> bool:
    """Whether a recorded trace can stream (no changes, no capacity, no ``return`` query)."""
    return (
        not changes
        and options.capacity is None
        and not any(q.returns is not None for q in wl.queries)
    )


def replayed_events(
    trace: Sequence[Any], filtered: TraceFilter, changes: bool, options: SimulationOptions
) -> list[Event]:
    """A given trace in memory: the network's and workload's events, in time order."""
    if isinstance(trace, TraceStream):
        if trace.rows > MAX_EVENTS:
            raise InevError(
                f"a trace of {trace.rows:,} events is held in memory with changes, a "
                f"capacity or return queries (limit {MAX_EVENTS:,}): replay a part of it"
            )
        trace = [e for chunk in trace.chunks() for e in chunk]
    events = [e for chunk in filtered.chunks([as_events(trace)]) for e in chunk]
    events.sort(key=_TIME_ID)
    return events


def replay_stream(
    network: Network,
    wl: Workload,
    plan: Plan,
    epoch: Epoch,
    stream: TraceStream,
    filtered: TraceFilter,
    options: SimulationOptions,
    progress: Callable[[float], None] | None,
    started: float,
) -> SimulationResult:
    """A recorded trace streamed through the plan (no changes, no capacity, no ``return``).

    Memory holds a chunk of the trace, what the engines keep for their window, and the
    matches in flight: the centralized engines run in the same pass, fed each event as the
    sources hand it over, and a :class:`MatchBalance` per query forgets a match once both
    sides found it. A :class:`SizeGuard` stops the run if the engines' partial matches grow
    past what the size check expected.
    """
    tally = Tally()
    balances = {q.name: MatchBalance() for q in wl.queries}
    for name in plan.sinks:
        tally.sink_found[name] = balances[name]
        tally.latencies[name] = array("d")
    central = {q.name: Engine.from_query(q, wl, plan=options.engine_plan) for q in wl.queries}
    routes: dict[str, list[tuple[MatchBalance, Engine]]] = {}
    for q in wl.queries:
        for t in dict.fromkeys(q.types):
            routes.setdefault(t, []).append((balances[q.name], central[q.name]))
    per_node: Counter = Counter()
    guard = RunGuard(plan, wl.window)
    engines = guard.engines
    for q, engine in central.items():
        engines[q] = [engine]
    tick = guard.tick

    def on_event(event: Event) -> None:
        per_node[event.node] += 1
        for balance, engine in routes.get(event.type, ()):
            for match in engine.push(event):
                balance.expect(tuple(e.id for e in match))
        tick(event)

    feed = Feed(filtered.chunks(stream.chunks()))
    sim, tally, executions, _ = execute_epochs(
        network, wl, [epoch], feed, options, progress, None,
        on_event=on_event, tally=tally, installed=guard.install,
    )  # fmt: skip
    checking = time.perf_counter()
    for name, engine in central.items():
        for match in engine.flush():
            balances[name].expect(tuple(e.id for e in match))
    check_seconds = time.perf_counter() - checking
    missing = extra = 0
    for name in plan.sinks:
        m, x = balances[name].missing_extra()
        missing += m
        extra += x
    counted = run_counters(sim, tally, executions)  # partial matches: before the release
    for group in engines.values():
        for engine in group:
            engine.release()
    return SimulationResult(
        method=plan.method,
        duration=options.duration,
        events=feed.count,
        **counted,
        centralized_messages=gathering(network, plan, per_node),
        model_messages=plan.psi * (stream.end - min(stream.start, 0.0)),
        matches={q: balances[q].found for q in plan.sinks},
        centralized_matches={q: b.expected for q, b in balances.items()},
        missing=missing,
        extra=extra,
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        trace_ignored=filtered.ignored,
        trace_skipped=stream.skipped,
        timeline=run_timeline(sim, tally, options.duration),
    )
