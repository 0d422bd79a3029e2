"""Reading a recorded trace for a simulation: held in memory or streamed chunk by chunk.

:class:`TraceStream` is a trace read chunk by chunk, :class:`TraceFilter` keeps the events a
run replays. A streamed trace (no changes, no capacity, no ``return`` query, see
:func:`streamable`) is a :class:`~inev.simulator.event_sources.StreamedEvents` source: its
centralized reference runs in the same pass and keeps only the matches in flight
(:class:`~inev.simulator.reference.StreamedReference`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.events import Event
from inev.simulator.estimate import MAX_EVENTS
from inev.simulator.options import SimulationOptions
from inev.simulator.sources import with_variables
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
