"""Where a simulation's events come from: one interface, three sources.

An :class:`EventSource` says how long the run lasts (:meth:`~EventSource.span`, before the
epochs are cut), which events it holds in memory (:meth:`~EventSource.events`; ``None``
when it streams), the chunks it hands to the sources (:meth:`~EventSource.chunks`), up to
which time the cost model counts messages (:meth:`~EventSource.horizon`) and what it left
out (``ignored``, ``skipped``). :func:`event_source` picks one:

- :class:`GeneratedEvents`: seeded Poisson sources, drawn per epoch (``options.seed``);
- :class:`RecordedEvents`: a given trace held in memory (a list of events, or a
  :class:`~inev.simulator.trace_replay.TraceStream` read whole because the run needs every
  event: changes, a capacity or ``return`` queries);
- :class:`StreamedEvents`: a :class:`~inev.simulator.trace_replay.TraceStream` streamed
  chunk by chunk, its centralized reference evaluated in the same pass.

Whether a source holds its events decides the centralized reference
(:func:`inev.simulator.reference.centralized_reference`); everything else is one pipeline
(:mod:`inev.simulator.run`, :func:`inev.simulator.measurer.measure`).

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.simulator.engine.events import make_event
>>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0]), "B": (1.0, [1])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
>>> trace = [make_event(2.5, "B", 1, 1), make_event(0.5, "Z", 0, 2), make_event(1.0, "A", 0, 0)]
>>> options = SimulationOptions(duration=2.0)
>>> source = event_source(trace, net, wl, (), options)
>>> type(source).__name__, source.span(2.0)
('RecordedEvents', 2.0)
>>> scenario = Scenario(net, wl, None, [(0.0, 2.0, net, None, {})], options)
>>> [e.id for e in source.events(scenario, wl)], source.ignored
([0, 1], 1)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from inev.simulator.change_epochs import Epoch, alive_events
from inev.simulator.engine.events import Event
from inev.simulator.epoch_execution import Scenario
from inev.simulator.estimate import check_size
from inev.simulator.options import SimulationOptions
from inev.simulator.sources import poisson_trace, with_variables, workload_attributes
from inev.simulator.trace_replay import TraceFilter, TraceStream, replayed_events, streamable
from inev.topologies.network import Network
from inev.workloads.workload import Workload

_TIME_ID = operator.attrgetter("time", "id")


class EventSource(Protocol):
    """The events of one simulation (module doc)."""

    ignored: int
    """Trace events of types no query uses (not replayed)."""
    skipped: int
    """Empty lines of a CSV trace."""

    def span(self, duration: float) -> float:
        """The run's duration, before the epochs are cut at the change times."""
        ...

    def events(self, scenario: Scenario, sized: Workload) -> list[Event] | None:
        """The ``scenario``'s events in time order, held in memory (``sized``: the workload
        the size check reads); ``None`` for a source that streams."""
        ...

    def chunks(self, events: list[Event] | None) -> Iterable[Sequence[Event]]:
        """The time-ordered chunks the run's sources hand over (``events``: from
        :meth:`events`)."""
        ...

    def horizon(self, duration: float) -> float:
        """The time up to which the cost model counts messages (ψ per time unit)."""
        ...


def event_source(
    trace: Sequence[Any] | TraceStream | None,
    network: Network,
    workload: Workload,
    changes: Sequence[Mapping[str, Any]],
    options: SimulationOptions,
) -> EventSource:
    """The source of a run's events: generated when ``trace`` is None, else the trace
    recorded in memory, or streamed when it is a :class:`TraceStream` the run can stream
    (:func:`~inev.simulator.trace_replay.streamable`). ``network`` and ``workload`` are the
    run's (variables as streams, OR split)."""
    if trace is None:
        return GeneratedEvents()
    filtered = TraceFilter(network, workload)
    if isinstance(trace, TraceStream) and streamable(workload, changes, options):
        return StreamedEvents(trace, filtered)
    return RecordedEvents(trace, filtered)


class GeneratedEvents:
    """Seeded Poisson sources (:func:`draw_events`)."""

    ignored = 0
    skipped = 0

    def span(self, duration: float) -> float:
        return duration

    def events(self, scenario: Scenario, sized: Workload) -> list[Event]:
        return draw_events(scenario.epochs, scenario.workload, sized, scenario.options)

    def chunks(self, events: list[Event] | None) -> Iterable[Sequence[Event]]:
        return [events or []]

    def horizon(self, duration: float) -> float:
        return duration


class RecordedEvents:
    """A recorded trace held in memory: the network's and workload's events in time order,
    those of nodes that are down at their time left out
    (:func:`~inev.simulator.change_epochs.alive_events`). A :class:`TraceStream` read whole
    lasts at least to its end, as a streamed one."""

    def __init__(self, trace: Sequence[Any] | TraceStream, filtered: TraceFilter) -> None:
        self.trace = trace
        self.filtered = filtered
        self.skipped = trace.skipped if isinstance(trace, TraceStream) else 0

    @property
    def ignored(self) -> int:
        return self.filtered.ignored

    def span(self, duration: float) -> float:
        if isinstance(self.trace, TraceStream):
            return max(duration, self.trace.end)
        return duration

    def events(self, scenario: Scenario, sized: Workload) -> list[Event]:
        read = replayed_events(self.trace, self.filtered, scenario.changed, scenario.options)
        return alive_events(scenario.epochs, read)

    def chunks(self, events: list[Event] | None) -> Iterable[Sequence[Event]]:
        return [events or []]

    def horizon(self, duration: float) -> float:
        return duration


class StreamedEvents:
    """A :class:`TraceStream` streamed chunk by chunk (no changes, no capacity, no
    ``return`` query): memory holds one chunk. The run lasts at least to the trace's end,
    and the cost model counts to its end (its times are not negative: the filter refuses a
    negative time)."""

    def __init__(self, stream: TraceStream, filtered: TraceFilter) -> None:
        self.stream = stream
        self.filtered = filtered
        self.skipped = stream.skipped

    @property
    def ignored(self) -> int:
        return self.filtered.ignored

    def span(self, duration: float) -> float:
        return max(duration, self.stream.end)

    def events(self, scenario: Scenario, sized: Workload) -> None:
        return None

    def chunks(self, events: list[Event] | None) -> Iterable[Sequence[Event]]:
        return self.filtered.chunks(self.stream.chunks())

    def horizon(self, duration: float) -> float:
        return self.stream.end


def draw_events(
    epochs: list[Epoch], wl: Workload, sized: Workload, options: SimulationOptions
) -> list[Event]:
    """Poisson sources of every epoch (its network's rates), renumbered in time order; with
    ``options.check``, each epoch's size is checked first
    (:func:`inev.simulator.estimate.check_size`, for the workload ``sized``)."""
    events = []
    for k, (start, stop, net_k, _, _) in enumerate(epochs):
        if options.check:
            check_size(net_k, sized, options.duration)
        drawn = poisson_trace(
            net_k,
            stop,
            options.seed + 7919 * k,
            types=wl.event_types,
            attributes=workload_attributes(wl),
            start=start,
        )
        events.extend(drawn)
    events.sort(key=_TIME_ID)
    # renumbered in time order (ids of different epochs' draws would collide)
    ordered = [Event(float(e.time), e.type, e.node, i, e.attrs, i) for i, e in enumerate(events)]
    return with_variables(ordered, wl)
