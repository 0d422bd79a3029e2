"""One simulation: execute an INEv plan node by node in SimPy (INEv §5, Definition 2, §6.6).

The plan runs as a :class:`~inev.simulator.execution.PlanExecution` (engines per vertex,
forwarding over the plan's trees, watermarks; see that module). This module draws or replays
the trace, applies changes at run time, evaluates the same trace centrally, and measures; its
parts live in modules of their own: :mod:`~inev.simulator.trace_replay` (a recorded trace,
held or streamed), :mod:`~inev.simulator.change_epochs` (epochs between changes, repairs and
their report), :mod:`~inev.simulator.epoch_execution` (the SimPy run of the epochs: plans
installed, sources) and :mod:`~inev.simulator.measurement` (message counters, centralized
gathering).

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
counted twice and a switch drops no state. Messages detour around lost links and around dead
nodes (to the live nodes below them in a forwarding tree); what a dead node held or was sent
is lost, and every missing match is attributed to a recorded loss
(:mod:`inev.simulator.losses`: ``loss_causes`` and, per change, ``lost_by_cause``).

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
import operator
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.simulator.aggregation import aggregate_run, result_fields, size_workload
from inev.simulator.capacity import (
    SLACK_RETRIES,
    CapacityModel,
    needed_node_capacity,
    node_work,
    resolve_capacities,
    shedding_report,
)
from inev.simulator.change_epochs import Epoch, alive_events, change_epochs, change_report
from inev.simulator.engine.engine import Adaptation
from inev.simulator.engine.events import Event
from inev.simulator.engine.matching import MatchOptions, match_ids
from inev.simulator.epoch_execution import Feed, RunGuard, execute_epochs
from inev.simulator.estimate import check_size
from inev.simulator.execution import PlanExecution
from inev.simulator.losses import attribute
from inev.simulator.measurement import (
    centralized_gathering,
    deviation,
    run_counters,
    with_centralized_node,
)
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
from inev.simulator.timeline import run_timeline
from inev.simulator.trace_replay import (
    TraceFilter,
    TraceStream,
    replay_stream,
    replayed_events,
    streamable,
)
from inev.topologies.network import Network
from inev.workloads.workload import Workload

# re-exported: these names were defined here before the module was split
__all__ = [
    "Epoch",
    "MatchBalance",
    "TraceStream",
    "centralized_matches",
    "collector_paused",
    "deviation",
    "simulate",
]

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
    plan = with_centralized_node(network, wl, plan)
    for name in plan.sinks:
        wl.query(name)
    if isinstance(trace, TraceStream):
        options = replace(options, duration=max(options.duration, trace.end))
    epochs = change_epochs(network, wl, plan, changes, options.duration)
    # sinks of return queries aggregate instead of building trends, unless the run needs
    # their matches (capacity: false negatives; changes: matches per epoch)
    aggregate_only = options.capacity is None and not changes
    filtered = None
    if trace is None:
        sized = size_workload(workload) if aggregate_only else workload
        events = _draw(epochs, wl, sized, options)
    else:
        filtered = TraceFilter(network, wl)
        if isinstance(trace, TraceStream) and streamable(wl, changes, options):
            return replay_stream(
                network, wl, plan, epochs[0], trace, filtered, options, progress, started
            )
        events = alive_events(epochs, replayed_events(trace, filtered, bool(changes), options))
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
        guard = RunGuard(plan, wl.window) if options.check else None
        return execute_epochs(
            network,
            wl,
            epochs,
            Feed([events]),
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


def _loss_causes(
    run: _Run,
    tally: Tally,
    central: Mapping[str, Counter],
    epochs: list[Epoch],
    events: list[Event],
) -> tuple[dict[str, int], list[dict[str, int]]]:
    """The run's missing matches by cause, and per change (:mod:`inev.simulator.losses`);
    without changes, none. With a capacity, what no change explains is ``shedding``."""
    log = run.executions[0].losses if run.executions else None
    if log is None:
        return {}, []
    times = {e.id: e.time for e in events}
    fallback = "unexplained" if run.capacity is None else "shedding"
    starts = [start for start, *_ in epochs]
    return attribute(tally.sink_found, central, times, starts, log, fallback)


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
    filtered: TraceFilter | None,
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
        centralized_gathering(net_k, wl, plan_k, [e for e in events if start <= e.time < stop])
        for start, stop, net_k, plan_k, _ in epochs
    )
    loss_causes, by_change = _loss_causes(run, tally, central, epochs, events)
    report = change_report(epochs, run.marks, sim.messages, by_change)
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
        **run_counters(sim, tally, executions),
        centralized_messages=centralized_messages,
        model_messages=model,
        matches={q: sum(c.values()) for q, c in tally.sink_found.items()},
        centralized_matches={q: sum(c.values()) for q, c in central.items()},
        missing=missing,
        extra=extra,
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        changes=report,
        loss_causes=loss_causes,
        timeline=run_timeline(sim, tally, duration, report, events, central),
        trace_ignored=filtered.ignored if filtered is not None else 0,
        trace_skipped=trace.skipped if isinstance(trace, TraceStream) else 0,
        shedding=shedding,
        **result_fields(aggregations),
    )
