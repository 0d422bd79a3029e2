"""One simulation: execute an INEv plan node by node in SimPy (INEv §5, Definition 2, §6.6).

The plan runs as a :class:`~inev.simulator.execution.PlanExecution` (engines per vertex,
forwarding over the plan's trees, watermarks; see that module). This module draws or replays
the trace, applies changes at run time, evaluates the same trace centrally, and measures.

**Changes at run time** (``inev-changes/1``: ``set-rate``, ``swap-rates``, ``link-down``,
``link-up``, ``node-down``). The run is cut into epochs at the change times. Rates change in
the sources from that time on; a lost link drops what crosses it from then on; a lost node
generates and evaluates nothing more. At each change the plan is repaired as §6.6 says
(:func:`inev.planner.repair.repair_plan`: harmful projections forward their inputs instead,
multi-node placements whose Eq. 1 fails fall back to their single node, touched forwarding
graphs are re-routed, or the workload is re-planned when that is cheaper). We assume the
change is detected at once (no monitoring delay). The repaired plan takes the matches whose
first event comes after the change; the old plan keeps running for one more window to finish
the matches that started before it (as an engine retires a replaced plan), so no match is
counted twice. A match that needed a message over a lost link or node is lost and reported
(``missing`` and, per change, ``lost``); nothing re-routes messages already under way.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.planning import plan_workload
>>> net = Network.build(
...     range(4), [(0, 1), (1, 2), (2, 3)], {"A": (2.0, [0]), "B": (1.0, [3]), "C": (3.0, [1, 2])}
... )
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B, C)", {"A B": 0.5})])
>>> result = simulate(net, wl, plan_workload(net, wl), duration=20.0, seed=1)
>>> result.equal_to_centralized, result.matches
(True, {'q': 65})
"""

from __future__ import annotations

import gc
import math
import operator
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import accumulate, groupby
from typing import Any

import simpy

from inev.common.errors import InevError
from inev.common.stats import latency_summary
from inev.planner import centralized_node
from inev.planner.inev_graph import Plan
from inev.planner.repair import apply_changes, repair_plan
from inev.simulator.aggregation import aggregate_run, result_fields, size_workload
from inev.simulator.capacity import (
    SLACK_RETRIES,
    CapacityModel,
    needed_node_capacity,
    node_work,
    resolve_capacities,
    shedding_report,
)
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event
from inev.simulator.engine.matching import MatchOptions, match_ids
from inev.simulator.engine.size import SizeGuard
from inev.simulator.estimate import MAX_EVENTS, check_size
from inev.simulator.execution import PlanExecution
from inev.simulator.options import SimulationOptions
from inev.simulator.simpy_network import SimNetwork
from inev.simulator.simulation_result import (
    MatchBalance,
    SimulationResult,
    compare_matches,
)
from inev.simulator.sources import (
    poisson_trace,
    with_variables,
    without_variables,
    workload_attributes,
)
from inev.simulator.tally import Tally
from inev.topologies.network import Network, link_key
from inev.workloads.workload import Workload

_TIME_ID = operator.attrgetter("time", "id")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the length of a simulation.

    A simulation holds the trace and the engines' buffers, hundreds of thousands of live
    tuples, and allocates millions more; every collection of the oldest generation walks
    them all. Measured with ``benchmarks/bench_simulator.py`` (20 nodes, 10^5 events): the
    collector took a third of the time. A run makes little cyclic garbage (about 3 % of the
    objects it creates, besides its own state), which the collector takes afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _as_events(trace: Sequence[Any]) -> list[Event]:
    out = list(trace)
    for e in out:
        if not isinstance(e, Event):
            raise InevError(f"trace item {e!r} is not an event")
    return out


def centralized_matches(
    workload: Workload,
    events: Sequence[Event],
    engine_plan: str = "greedy",
    skip: Iterable[str] = (),
) -> dict[str, Counter]:
    """Matches of every query (but those in ``skip``) by one engine over the sorted trace:
    :func:`inev.simulator.engine.matching.match_ids` with static plans (no re-optimisation:
    the reference must not depend on when an engine re-plans). ``events`` may hold the
    plan's copies of events per variable (:func:`~inev.simulator.sources.with_variables`):
    the reference reads each event once, as the trace had it."""
    options = MatchOptions(engine_plan, Adaptation("off"), aggregate=False, guard=False)
    originals = without_variables(events, workload)
    return match_ids(workload, sorted(originals, key=_TIME_ID), options, skip=skip)


Epoch = tuple[float, float, Network, Plan, dict[str, Any]]


class _Feed:
    """Events in time order, one chunk at a time, with the times each must be handed over.

    ``wake[i]``: the latest time at which the chunk's events from ``i`` on can be handed
    over (their times plus the sources' slacks, see :meth:`PlanExecution.source_slack`).
    Across chunks it is bounded by the next chunk's first time, which no later event's
    deadline precedes: handing over earlier than needed is always exact.
    """

    def __init__(self, chunks: Iterable[Sequence[Event]]) -> None:
        self.chunks = iter(chunks)
        self.chunk: Sequence[Event] = ()
        self.wake: list[float] = []
        self.i = 0
        self.ahead: Sequence[Event] | None = None
        self.slack: Callable[[Event], float] | None = None
        self.count = 0

    def _next_chunk(self) -> Sequence[Event] | None:
        for chunk in self.chunks:
            if chunk:
                return chunk
        return None

    def start(self, slack: Callable[[Event], float] | None) -> bool:
        """Begin handing over (``slack``: the batched sources' slack of an event, or None)."""
        self.slack = slack
        self.ahead = self._next_chunk()
        return self.next()

    def next(self) -> bool:
        """Move to the next chunk; False at the end of the trace."""
        chunk = self.ahead
        if chunk is None:
            return False
        self.ahead = self._next_chunk()
        self.chunk, self.i = chunk, 0
        self.count += len(chunk)
        if self.slack is None:
            self.wake = [e.time for e in chunk]
            return True
        due = [e.time + self.slack(e) for e in chunk]
        if self.ahead is not None:
            due.append(self.ahead[0].time)
        wake = list(accumulate(reversed(due), min))[::-1]
        self.wake = wake[: len(chunk)]
        return True


def _execute(
    network: Network,
    wl: Workload,
    epochs: list[Epoch],
    feed: _Feed,
    options: SimulationOptions,
    progress: Callable[[float], None] | None,
    capacity: CapacityModel | None,
    aggregate_only: bool = False,
    on_event: Callable[[Event], None] | None = None,
    tally: Tally | None = None,
    installed: Callable[[list[PlanExecution]], None] | None = None,
) -> tuple[SimNetwork, Tally, list[PlanExecution], list[int]]:
    """Install the epochs' plans on a fresh SimPy network, hand over the ``feed``'s events
    (and each to ``on_event``, after the sources), run to ``options.duration``."""
    env = simpy.Environment()
    sim = SimNetwork(env, network, bandwidth=options.bandwidth)
    tally = Tally() if tally is None else tally
    # Batched releases and sources (execution._set_lags): exact in every observable time, but
    # only where nothing else reads the clock: no changes, no capacity queues, no bandwidth.
    batched = options.batch and len(epochs) == 1 and capacity is None and options.bandwidth is None
    executions = [
        _install(sim, k, epochs, wl, tally, options, capacity, aggregate_only, batched)
        for k in range(len(epochs))
    ]
    for node in {n for _, _, net_k, _, _ in epochs for n in net_k.nodes}:
        sim.on_receive(
            node, lambda n, payload, kind: executions[payload[0]].deliver(n, payload[1], payload[2])
        )
    if installed is not None:
        installed(executions)
    marks = _schedule_changes(sim, epochs, executions)
    _start_sources(sim.env, feed, executions, batched, on_event, progress, options.duration)
    env.run()
    for execution in executions:
        execution.flush()
    return sim, tally, executions, marks


def _install(
    sim: SimNetwork,
    k: int,
    epochs: list[Epoch],
    wl: Workload,
    tally: Tally,
    options: SimulationOptions,
    capacity: CapacityModel | None,
    aggregate_only: bool,
    batched: bool,
) -> PlanExecution:
    """Epoch ``k``'s plan on ``sim``: it takes the events of its epoch (and one window more,
    to finish the matches begun in it) and records the matches that begin in it."""
    start, stop, net_k, plan_k, _ = epochs[k]
    for u, v, latency in net_k.links:
        sim.latency.setdefault(link_key(u, v), latency)
    last = k == len(epochs) - 1
    return PlanExecution(
        k,
        sim,
        net_k,
        wl,
        plan_k,
        tally,
        feed=(start, math.inf if last else stop + wl.window),
        record=(start, math.inf if last else stop),
        engine_plan=options.engine_plan,
        adaptation=options.adaptation,
        capacity=capacity,
        aggregate_only=aggregate_only,
        batched=batched,
    )


def _schedule_changes(
    sim: SimNetwork, epochs: list[Epoch], executions: list[PlanExecution]
) -> list[int]:
    """At each epoch's start: links and nodes go down or up, executions reroute. Returns the
    list that will hold the message count at each change."""
    marks: list[int] = []

    def change_at(k: int) -> None:
        marks.append(sim.messages)
        previous, current = epochs[k - 1][2], epochs[k][2]
        old = {link_key(u, v) for u, v, _ in previous.links}
        new = {link_key(u, v) for u, v, _ in current.links}
        sim.down |= old - new
        sim.down -= new
        lost = set(previous.nodes) - set(current.nodes)
        for execution in executions:
            execution.dead |= lost
            if sim.down:
                execution.reroute(sim.link_latency)

    for k in range(1, len(epochs)):
        sim.env.timeout(epochs[k][0]).callbacks.append(lambda _e, k=k: change_at(k))
    return marks


def _start_sources(
    env: simpy.Environment,
    feed: _Feed,
    executions: list[PlanExecution],
    batched: bool,
    on_event: Callable[[Event], None] | None,
    progress: Callable[[float], None] | None,
    duration: float,
) -> None:
    """The sources as a chain of timeout callbacks: hand every event whose time has come to
    the executions, then wait until the next one must be handed over (a plain callback is
    cheaper than resuming a SimPy process per event; batched, one callback serves every
    event up to the smallest slack). ``progress`` hears the time every 1 % of ``duration``."""
    step = max(duration / 100.0, 1e-9)
    report = {"next": step}
    # the latest time at which each event can be handed over (times plus slacks)
    if batched:
        slack: dict[tuple[str, Any], float] = {}

        def slack_of(e: Event) -> float:
            key = (e.type, e.node)
            value = slack.get(key)
            if value is None:
                value = slack[key] = min(x.source_slack(e.type, e.node) for x in executions)
            return value

        more = feed.start(slack_of)
    else:
        more = feed.start(None)

    def sources(_event: Any = None) -> None:
        now = env.now
        while True:
            chunk, i, count = feed.chunk, feed.i, len(feed.chunk)
            while i < count and chunk[i].time <= now:
                event = chunk[i]
                for execution in executions:
                    execution.source(event)
                if on_event is not None:
                    on_event(event)
                i += 1
            feed.i = i
            if i < count:
                env.timeout(feed.wake[i] - now).callbacks.append(sources)
                break
            if not feed.next():
                break
        if progress is not None and now >= report["next"]:
            progress(now)
            report["next"] = now + step

    if more:
        sources()


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


class _TraceFilter:
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


class _Guarded:
    """A :class:`SizeGuard` over every engine of a run, grouped by the query they serve."""

    def __init__(self, plan: Plan, window: float) -> None:
        self.plan = plan
        self.engines: dict[str, list[Engine]] = {}
        self.guard = SizeGuard(self.engines, window)

    def install(self, executions: list[PlanExecution]) -> None:
        """Watch the engines of the run's plan executions."""
        for execution in executions:
            for run in execution.runs.values():
                info = self.plan.projections.get(run.vertex.projection)
                owner = info.queries[0] if info is not None and info.queries else "plan"
                self.engines.setdefault(owner, []).append(run.engine)

    def tick(self, event: Event) -> None:
        """One more event handed over."""
        self.guard.tick(event.time)


def _replay_stream(
    network: Network,
    wl: Workload,
    plan: Plan,
    epoch: Epoch,
    stream: TraceStream,
    filtered: _TraceFilter,
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
    guard = _Guarded(plan, wl.window)
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

    feed = _Feed(filtered.chunks(stream.chunks()))
    sim, tally, executions, _ = _execute(
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
    counted = _counted(sim, tally, executions)  # partial matches: before the release
    for group in engines.values():
        for engine in group:
            engine.release()
    return SimulationResult(
        method=plan.method,
        duration=options.duration,
        events=feed.count,
        **counted,
        centralized_messages=_gathering(network, plan, per_node),
        model_messages=plan.psi * (stream.end - min(stream.start, 0.0)),
        matches={q: balances[q].found for q in plan.sinks},
        centralized_matches={q: b.expected for q, b in balances.items()},
        missing=missing,
        extra=extra,
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        trace_ignored=filtered.ignored,
        trace_skipped=stream.skipped,
    )


@collector_paused()
def simulate(
    network: Network,
    workload: Workload,
    plan: Plan,
    options: SimulationOptions | None = None,
    *,
    trace: Sequence[Any] | None = None,
    changes: Sequence[Mapping[str, Any]] = (),
    progress: Callable[[float], None] | None = None,
    **fields: Any,
) -> SimulationResult:
    """Run ``plan`` on ``network`` and measure it (module doc); ``options`` says how.

    ``options`` is a :class:`~inev.simulator.options.SimulationOptions`; its fields may also
    be given by name (``simulate(net, wl, plan, duration=5.0, seed=1)``), alone or on top of
    ``options``. ``trace`` replays given events (engine ``Event``
    objects, any order, or a :class:`TraceStream`) instead of Poisson sources drawn with
    ``options.seed``. ``changes`` are ``inev-changes/1`` entries applied at their times.
    ``progress(t)`` is called with the simulation time as the sources advance. With
    ``options.check`` (the default), a run whose estimated size would exhaust memory is
    refused before it starts (:func:`inev.simulator.estimate.check_size`). A
    ``options.capacity`` gives the nodes a processing capacity (and load shedding): the
    trace is run once with unlimited capacity as the reference, then with the capacity; the
    result's ``shedding`` entry compares the two (:mod:`inev.simulator.capacity`).

    Without a capacity and without changes, the sinks of ``return`` queries that GRETA can
    aggregate exactly build no trends (:func:`inev.simulator.aggregation.aggregates_alone`):
    such a query has no ``matches`` entry and is checked by its aggregates.

    ``options.batch`` lets engines and sources work in batches where no one can observe it
    (see :mod:`inev.simulator.execution`, batched releases): every message, match and
    latency is the same as with ``batch=False``, which releases each item by its own SimPy
    event.
    """
    options = SimulationOptions.of(options, fields)
    started = time.perf_counter()
    wl = workload.split_or()
    wl.check_network(network)
    if wl.streams:
        if changes:
            raise InevError(
                "changes at run time with pattern variables are not simulated (a variable is "
                "a stream of its own in the plan; repairs would treat it apart from its type)"
            )
        # the planner's network: each variable a stream with its type's sources and rates
        network = network.with_streams(wl.streams)
    plan = _with_centralized_node(network, wl, plan)
    for name in plan.sinks:
        wl.query(name)
    if isinstance(trace, TraceStream):
        options = replace(options, duration=max(options.duration, trace.end))
    epochs = _epochs(network, wl, plan, changes, options.duration)
    # sinks of return queries aggregate instead of building trends, unless the run needs
    # their matches (capacity: false negatives; changes: matches per epoch)
    aggregate_only = options.capacity is None and not changes
    filtered = None
    if trace is None:
        sized = size_workload(workload) if aggregate_only else workload
        events = _draw(epochs, wl, sized, options)
    else:
        filtered = _TraceFilter(network, wl)
        if isinstance(trace, TraceStream) and _streamable(wl, changes, options):
            return _replay_stream(
                network, wl, plan, epochs[0], trace, filtered, options, progress, started
            )
        events = _replayed(trace, filtered, bool(changes), options)
        if events:
            options = replace(options, duration=max(options.duration, events[-1].time))
    run = _run(network, wl, plan, epochs, events, options, progress, aggregate_only)
    return _measure(run, plan, wl, epochs, events, changes, options, started, trace, filtered)


def _draw(
    epochs: list[Epoch], wl: Workload, sized: Workload, options: SimulationOptions
) -> list[Event]:
    """Poisson sources of every epoch (its network's rates), renumbered in time order."""
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


def _streamable(
    wl: Workload, changes: Sequence[Mapping[str, Any]], options: SimulationOptions
) -> bool:
    """Whether a recorded trace can stream (no changes, no capacity, no ``return`` query)."""
    return (
        not changes
        and options.capacity is None
        and not any(q.returns is not None for q in wl.queries)
    )


def _replayed(
    trace: Sequence[Any], filtered: _TraceFilter, changes: bool, options: SimulationOptions
) -> list[Event]:
    """A given trace in memory: the network's and workload's events, in time order."""
    if isinstance(trace, TraceStream):
        if trace.rows > MAX_EVENTS:
            raise InevError(
                f"a trace of {trace.rows:,} events is held in memory with changes, a "
                f"capacity or return queries (limit {MAX_EVENTS:,}): replay a part of it"
            )
        trace = [e for chunk in trace.chunks() for e in chunk]
    events = [e for chunk in filtered.chunks([_as_events(trace)]) for e in chunk]
    events.sort(key=_TIME_ID)
    return events


@dataclass
class _Run:
    """The executed run: the network's counters, the tally, the executions, the message
    counts at each change, and with a capacity its model and the unlimited reference."""

    sim: SimNetwork
    tally: Tally
    executions: list[PlanExecution]
    marks: list[int]
    capacity: CapacityModel | None = None
    reference: tuple[Tally, Counter] | None = None


def _run(
    network: Network,
    wl: Workload,
    plan: Plan,
    epochs: list[Epoch],
    events: list[Event],
    options: SimulationOptions,
    progress: Callable[[float], None] | None,
    aggregate_only: bool,
) -> _Run:
    """Execute the epochs; with a capacity, first the unlimited reference, then the capacity
    run (again with a wider stage slack while it is later than the reference)."""

    def execute(
        model: CapacityModel | None, report: Callable[[float], None] | None, alone: bool = False
    ) -> tuple[SimNetwork, Tally, list[PlanExecution], list[int]]:
        guard = _Guarded(plan, wl.window) if options.check else None
        return _execute(
            network,
            wl,
            epochs,
            _Feed([events]),
            options,
            report,
            model,
            alone,
            on_event=None if guard is None else guard.tick,
            installed=None if guard is None else guard.install,
        )

    capacity = options.capacity
    if capacity is None:
        return _Run(*execute(None, progress, aggregate_only))
    _, ref_tally, ref_executions, _ = execute(None, None)
    work = node_work(ref_executions)
    needed = needed_node_capacity(work, options.duration)
    nodes = {n for _, _, net_k, _, _ in epochs for n in net_k.nodes}
    capacities = resolve_capacities(capacity, nodes, needed)
    model = CapacityModel(capacity, capacities, wl.window)
    run = _Run(*execute(model, progress, aggregate_only), model, (ref_tally, work))
    for _ in range(SLACK_RETRIES if capacity.stage_slack is None else 0):
        if run.tally.late <= ref_tally.late:
            break
        model = CapacityModel(capacity, capacities, wl.window, slack=model.next_slack())
        run = _Run(*execute(model, None), model, (ref_tally, work))
    return run


def _measure(
    run: _Run,
    plan: Plan,
    wl: Workload,
    epochs: list[Epoch],
    events: list[Event],
    changes: Sequence[Mapping[str, Any]],
    options: SimulationOptions,
    started: float,
    trace: Any,
    filtered: _TraceFilter | None,
) -> SimulationResult:
    """The run against centralized evaluation and the model: the :class:`SimulationResult`."""
    sim, tally, executions, duration = run.sim, run.tally, run.executions, options.duration
    # queries whose sinks aggregated alone have no matches: they are checked by aggregates
    alone = {q for x in executions for r in x.runs.values() if r.alone for q in r.queries}
    for q in alone:
        tally.sink_found.pop(q, None)
        tally.latencies.pop(q, None)
    checking = time.perf_counter()
    central = centralized_matches(wl, events, options.engine_plan, skip=alone)
    aggregations = aggregate_run(wl, executions, tally.sink_found, events, bool(changes))
    check_seconds = time.perf_counter() - checking
    missing, extra = compare_matches(tally.sink_found, central)
    centralized_messages = sum(
        _centralized_messages(net_k, wl, plan_k, [e for e in events if start <= e.time < stop])
        for start, stop, net_k, plan_k, _ in epochs
    )
    report = _change_report(epochs, events, run.marks, sim.messages, wl, tally, central)
    model = sum(plan_k.psi * (min(stop, duration) - start) for start, stop, _, plan_k, _ in epochs)
    shedding = None
    if run.capacity is not None and run.reference is not None:
        ref_tally, ref_work = run.reference
        shedding = shedding_report(
            run.capacity,
            tally.sink_found,
            ref_tally.sink_found,
            {q.name: q.weight for q in wl.queries},
            tally.latencies,
            ref_work,
            duration,
            tally.late,
            central,
        )
    return SimulationResult(
        method=plan.method,
        duration=duration,
        events=len(events),
        **_counted(sim, tally, executions),
        centralized_messages=centralized_messages,
        model_messages=model,
        matches={q: sum(c.values()) for q, c in tally.sink_found.items()},
        centralized_matches={q: sum(c.values()) for q, c in central.items()},
        missing=missing,
        extra=extra,
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        changes=report,
        trace_ignored=filtered.ignored if filtered is not None else 0,
        trace_skipped=trace.skipped if isinstance(trace, TraceStream) else 0,
        shedding=shedding,
        **result_fields(aggregations),
    )


def _by_link_and_type(sim: SimNetwork) -> dict[str, dict[str, int]]:
    """Messages per link (keyed as ``messages_by_link``) and per type or projection sent."""
    out: dict[str, dict[str, int]] = {}
    for ((u, v), kind), count in sorted(sim.by_link_kind.items(), key=lambda kv: str(kv[0])):
        out.setdefault(f"{u} {v}", {})[str(kind)] = count
    return out


def _counted(sim: SimNetwork, tally: Tally, executions: list[PlanExecution]) -> dict[str, Any]:
    """The result's counters: messages (by type, link and sending vertex; links keyed as
    plan files write them), latencies, items processed per node, partial matches and
    re-optimisations per node, late items and unused events."""
    partial: Counter = Counter()
    reopt: Counter = Counter()
    for execution in executions:
        partial += execution.partial_matches()
        reopt += execution.reoptimizations()
    return {
        "messages": sim.messages,
        "messages_by_type": dict(sim.by_kind),
        "messages_by_link": {
            f"{u} {v}": c for (u, v), c in sorted(sim.by_link.items(), key=lambda kv: str(kv[0]))
        },
        "messages_by_vertex": {int(k): c for k, c in sim.by_sender.items()},
        "messages_by_link_and_type": _by_link_and_type(sim),
        "latency": {q: latency_summary(values) for q, values in tally.latencies.items()},
        "events_processed": {str(n): c for n, c in tally.processed.items()},
        "partial_matches": dict(partial),
        "reoptimizations": dict(reopt),
        "late": tally.late,
        "unused_events": dict(tally.unused),
    }


def _epochs(
    network: Network,
    workload: Workload,
    plan: Plan,
    changes: Sequence[Mapping[str, Any]],
    duration: float,
) -> list[Epoch]:
    """``(start, stop, network, plan, repair figures)`` per epoch between change times."""
    timed = []
    for position, change in enumerate(changes):
        when = change.get("time") if isinstance(change, Mapping) else None
        if isinstance(when, bool) or not isinstance(when, int | float) or not 0 < when < duration:
            raise InevError(
                f"change #{position + 1}: time must be inside the run (0, {duration:g})"
            )
        timed.append((float(when), position, change))
    timed.sort()
    epochs: list[Epoch] = [(0.0, duration, network, plan, {})]
    for when, group in groupby(timed, key=lambda x: x[0]):
        batch = [c for _, _, c in group]
        start, _, net_prev, plan_prev, info = epochs[-1]
        repair = repair_plan(plan_prev, net_prev, workload, batch)
        net_next = apply_changes(net_prev, batch)
        epochs[-1] = (start, when, net_prev, plan_prev, info)
        figures = {
            "time": when,
            "changes": [dict(c) for c in batch],
            "harmful": list(repair.harmful),
            "invalid_multi_node": list(repair.invalid_multi_node),
            "broken_psi": repair.broken.psi,
            "repaired_psi": repair.repaired.psi,
            "replanned_psi": repair.replanned.psi,
            "used": _used(repair),
        }
        epochs.append((when, duration, net_next, repair.result, figures))
    return epochs


def _used(repair: Any) -> str:
    """The plan that ran after a change: replanned, repaired (§6.6's local repair), old or
    centralized (the repair kept the old plan or chose centralized evaluation)."""
    if repair.written == "replanned":
        return "replanned"
    return {"local": "repaired"}.get(repair.repaired.kept, repair.repaired.kept or "repaired")


def _change_report(
    epochs: list[Epoch],
    events: Sequence[Event],
    marks: list[int],
    total: int,
    workload: Workload,
    tally: Tally,
    central: Mapping[str, Counter],
) -> list[dict[str, Any]]:
    """Messages and ratio before and after each change, repairs, and matches lost near it."""
    counts = []
    bounds = [*marks, total]
    previous = 0
    for mark in bounds:
        counts.append(mark - previous)
        previous = mark
    report = []
    for k in range(1, len(epochs)):
        when = epochs[k][0]
        before_start, after_stop = epochs[k - 1][0], epochs[k][1]
        lost = 0
        for q, expected in central.items():
            found = tally.sink_found.get(q, Counter())
            for ids, count in expected.items():
                if found.get(ids, 0) < count:
                    first = min(e.time for e in events if e.id in set(ids))
                    if when - workload.window <= first < when + workload.window:
                        lost += count - found.get(ids, 0)
        entry = dict(epochs[k][4])
        entry.update(
            messages_before=counts[k - 1],
            messages_after=counts[k],
            rate_before=counts[k - 1] / max(when - before_start, 1e-12),
            rate_after=counts[k] / max(after_stop - when, 1e-12),
            lost=lost,
        )
        report.append(entry)
    return report


def _with_centralized_node(network: Network, workload: Workload, plan: Plan) -> Plan:
    """``plan``, with the centralized node (and its cost) derived where the file lacks them (a
    plan built from another planner's combination with ``build_plan``): the run's ratio is
    measured against gathering at that node."""
    if plan.centralized_node is not None and plan.centralized_node in network.node_index:
        return plan
    node, cost = centralized_node(network, workload.types)
    return replace(plan, centralized_node=node, centralized_cost=cost)


def _centralized_messages(
    network: Network, workload: Workload, plan: Plan, events: Sequence[Event]
) -> int:
    """Messages of gathering the trace's events of the workload's types at the centralized node."""
    used = set(workload.types)
    return _gathering(network, plan, Counter(e.node for e in events if e.type in used))


def _gathering(network: Network, plan: Plan, per_node: Mapping[Any, int]) -> int:
    """Messages of sending ``per_node[n]`` events from each node n to the centralized node."""
    node = plan.centralized_node
    if node is None or node not in network.node_index:
        return 0
    index = network.node_index
    row = network.hops_row(node)
    return sum(int(row[index[n]]) * count for n, count in per_node.items())


def deviation(measured: float, model: float) -> float:
    """Relative deviation of a measured count from the model's (0 when both are 0)."""
    if model == 0:
        return 0.0 if measured == 0 else math.inf
    return (measured - model) / model
