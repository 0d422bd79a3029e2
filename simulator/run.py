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

>>> from inev.topologies.generate import generate_network
>>> from inev.workloads.generate import generate_workload
>>> from inev.planner.planning import plan_workload
>>> net = generate_network(nodes=8, seed=2)
>>> wl = generate_workload(net, queries=1, length=3, selectivity=0.5, seed=2)
>>> result = simulate(net, wl, plan_workload(net, wl), duration=5.0, seed=1)
>>> result.equal_to_centralized
True
"""

from __future__ import annotations

import gc
import math
import operator
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import accumulate, groupby
from typing import Any

import simpy

from inev.common.errors import InevError
from inev.planner.plan import Plan
from inev.planner.repair import apply_changes, repair_plan
from inev.simulator.aggregation import aggregate_run, result_fields, size_workload
from inev.simulator.capacity import (
    SLACK_RETRIES,
    CapacityModel,
    CapacityOptions,
    needed_node_capacity,
    node_work,
    resolve_capacities,
    shedding_report,
)
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import MASK64, Event, event_key
from inev.simulator.estimate import check_size
from inev.simulator.execution import PlanExecution, Tally
from inev.simulator.network import SimNetwork, link_key
from inev.simulator.result import SimulationResult, compare_matches, latency_summary
from inev.simulator.sources import SourceEvent, poisson_trace, workload_attributes
from inev.topologies.network import Network
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
    out: list[Event] = []
    append = out.append
    new = tuple.__new__
    for e in trace:
        if isinstance(e, Event):
            append(e)
        elif isinstance(e, SourceEvent):
            i = e.id  # make_event, inlined for the common integer id (half of the setup)
            key = i & MASK64 if type(i) is int else event_key(i)
            append(new(Event, (float(e.time), e.type, e.node, i, e.attrs, key)))
        else:
            raise InevError(f"trace item {e!r} is not an event")
    return out


def centralized_matches(
    workload: Workload,
    events: Sequence[Event],
    skip: Iterable[str] = (),
    **options: Any,
) -> dict[str, Counter]:
    """Matches of every query (but those in ``skip``) by one engine over the sorted trace."""
    ordered = sorted(events, key=_TIME_ID)
    out: dict[str, Counter] = {}
    skipped = set(skip)
    for query in workload.queries:
        if query.name in skipped:
            continue
        engine = Engine.from_query(query, workload, **options)
        found: Counter = Counter()
        types = set(query.types)
        for event in ordered:
            if event.type in types:
                for match in engine.push(event):
                    found[tuple(e.id for e in match)] += 1
        for match in engine.flush():
            found[tuple(e.id for e in match)] += 1
        out[query.name] = found
    return out


Epoch = tuple[float, float, Network, Plan, dict[str, Any]]


def _execute(
    network: Network,
    wl: Workload,
    epochs: list[Epoch],
    events: Sequence[Event],
    duration: float,
    bandwidth: float | None,
    engine_plan: str,
    adaptation: str,
    progress: Callable[[float], None] | None,
    capacity: CapacityModel | None,
    aggregate_only: bool = False,
    batch: bool = True,
) -> tuple[SimNetwork, Tally, list[PlanExecution], list[int]]:
    """Install the epochs' plans on a fresh SimPy network, feed ``events``, run to the end."""
    env = simpy.Environment()
    sim = SimNetwork(env, network, bandwidth=bandwidth)
    tally = Tally()
    executions: list[PlanExecution] = []
    # Batched releases and sources (execution._set_lags): exact in every observable time, but
    # only where nothing else reads the clock: no changes, no capacity queues, no bandwidth.
    batched = batch and len(epochs) == 1 and capacity is None and bandwidth is None
    for k, (start, stop, net_k, plan_k, _) in enumerate(epochs):
        for u, v, latency in net_k.links:
            sim.latency.setdefault(link_key(u, v), latency)
        last = k == len(epochs) - 1
        executions.append(
            PlanExecution(
                k,
                sim,
                net_k,
                wl,
                plan_k,
                tally,
                feed=(start, math.inf if last else stop + wl.window),
                record=(start, math.inf if last else stop),
                engine_plan=engine_plan,
                adaptation=adaptation,
                capacity=capacity,
                aggregate_only=aggregate_only,
                batched=batched,
            )
        )
    for node in {n for _, _, net_k, _, _ in epochs for n in net_k.nodes}:
        sim.on_receive(
            node, lambda n, payload, kind: executions[payload[0]].deliver(n, payload[1], payload[2])
        )
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
        env.timeout(epochs[k][0]).callbacks.append(lambda _e, k=k: change_at(k))

    step = max(duration / 100.0, 1e-9)
    cursor = {"next": 0, "report": step}
    # wake[i]: the latest time at which events[i:] can be handed over (times plus slacks)
    if batched:
        slack: dict[tuple[str, Any], float] = {}
        due = []
        for e in events:
            key = (e.type, e.node)
            if key not in slack:
                slack[key] = min(x.source_slack(e.type, e.node) for x in executions)
            due.append(e.time + slack[key])
        wake = list(accumulate(reversed(due), min))[::-1]
    else:
        wake = [e.time for e in events]

    def sources(_event: Any = None) -> None:
        # The sources as a chain of timeout callbacks: hand every event whose time has come
        # to the executions, then wait until the next one must be handed over (a plain
        # callback is cheaper than resuming a SimPy process per event; batched, one callback
        # serves every event up to the smallest slack).
        now = env.now
        i, count = cursor["next"], len(events)
        while i < count and events[i].time <= now:
            for execution in executions:
                execution.source(events[i])
            i += 1
        cursor["next"] = i
        if progress is not None and now >= cursor["report"]:
            progress(now)
            cursor["report"] = now + step
        if i < count:
            env.timeout(wake[i] - now).callbacks.append(sources)

    sources()
    env.run()
    for execution in executions:
        execution.flush()

    return sim, tally, executions, marks


@collector_paused()
def simulate(
    network: Network,
    workload: Workload,
    plan: Plan,
    duration: float = 100.0,
    seed: int = 0,
    trace: Sequence[Any] | None = None,
    changes: Sequence[Mapping[str, Any]] = (),
    bandwidth: float | None = None,
    engine_plan: str = "greedy",
    adaptation: str = "invariant",
    progress: Callable[[float], None] | None = None,
    check: bool = True,
    capacity: CapacityOptions | None = None,
    batch: bool = True,
) -> SimulationResult:
    """Run ``plan`` on ``network`` for ``duration`` time units and measure it (module doc).

    ``trace`` replays given events (``SourceEvent`` or engine ``Event`` objects, any order)
    instead of Poisson sources drawn with ``seed``. ``changes`` are ``inev-changes/1``
    entries applied at their times. ``progress(t)`` is called with the simulation time as the
    sources advance. With ``check`` (the default), a run whose estimated size would exhaust
    memory is refused before it starts (:func:`inev.simulator.estimate.check_size`).
    ``capacity`` gives the nodes a processing capacity (and load shedding): the trace is run
    once with unlimited capacity as the reference, then with the capacity; the result's
    ``shedding`` entry compares the two (:mod:`inev.simulator.capacity`).

    Without a capacity and without changes, the sinks of ``return`` queries that GRETA can
    aggregate exactly build no trends (:func:`inev.simulator.aggregation.aggregates_alone`):
    such a query has no ``matches`` entry and is checked by its aggregates.

    ``batch`` lets engines and sources work in batches where no one can observe it (see
    :mod:`inev.simulator.execution`, batched releases): every message, match and latency is
    the same as with ``batch=False``, which releases each item by its own SimPy event.
    """
    started = time.perf_counter()
    wl = workload.split_or()
    wl.check_network(network)
    for name in plan.sinks:
        wl.query(name)
    epochs = _epochs(network, wl, plan, changes, duration)
    # sinks of return queries aggregate instead of building trends, unless the run needs
    # their matches (capacity: false negatives; changes: matches per epoch)
    aggregate_only = capacity is None and not changes
    sized = size_workload(workload) if aggregate_only else workload
    if trace is None:
        events = []
        for k, (start, stop, net_k, _, _) in enumerate(epochs):
            if check:
                check_size(net_k, sized, duration)
            drawn = poisson_trace(
                net_k,
                stop,
                seed + 7919 * k,
                types=wl.types,
                attributes=workload_attributes(wl),
                start=start,
            )
            events.extend(drawn)
        events.sort(key=_TIME_ID)
        # renumbered in time order (ids of different epochs' draws would collide)
        events = [Event(float(e.time), e.type, e.node, i, e.attrs, i) for i, e in enumerate(events)]
    else:
        sources = {t: frozenset(network.event_types[t].sources) for t in wl.types}
        events = []
        for event in _as_events(trace):
            if event.type not in sources:
                continue
            if event.node not in sources[event.type]:
                raise InevError(
                    f"trace event {event.id!r}: node {event.node!r} is not a source of "
                    f"{event.type} in the network"
                )
            events.append(event)
        events.sort(key=_TIME_ID)
        if events:
            duration = max(duration, events[-1].time)

    def execute(
        model: CapacityModel | None, report: Callable[[float], None] | None, alone: bool = False
    ) -> tuple[SimNetwork, Tally, list[PlanExecution], list[int]]:
        return _execute(
            network,
            wl,
            epochs,
            events,
            duration,
            bandwidth,
            engine_plan,
            adaptation,
            report,
            model,
            alone,
            batch,
        )

    reference: tuple[Tally, Counter] | None = None
    capacity_model = None
    if capacity is not None:
        _, ref_tally, ref_executions, _ = execute(None, None)
        work = node_work(ref_executions)
        needed = needed_node_capacity(work, duration)
        reference = (ref_tally, work)
        nodes = {n for _, _, net_k, _, _ in epochs for n in net_k.nodes}
        capacities = resolve_capacities(capacity, nodes, needed)
        capacity_model = CapacityModel(capacity, capacities, wl.window)
    sim, tally, executions, marks = execute(capacity_model, progress, aggregate_only)
    for _ in range(SLACK_RETRIES if capacity is not None and capacity.stage_slack is None else 0):
        if capacity_model is None or reference is None or tally.late <= reference[0].late:
            break
        slack = capacity_model.next_slack()
        capacity_model = CapacityModel(capacity, capacities, wl.window, slack=slack)
        sim, tally, executions, marks = execute(capacity_model, None)
    # queries whose sinks aggregated alone have no matches: they are checked by aggregates
    alone = {
        q
        for execution in executions
        for run in execution.runs.values()
        if run.alone
        for q in run.queries
    }
    for q in alone:
        tally.sink_found.pop(q, None)
        tally.latencies.pop(q, None)
    checking = time.perf_counter()
    central = centralized_matches(wl, events, plan=engine_plan, skip=alone)
    aggregations = aggregate_run(wl, executions, tally.sink_found, events, bool(changes))
    check_seconds = time.perf_counter() - checking
    missing, extra = compare_matches(tally.sink_found, central)
    centralized_messages = sum(
        _centralized_messages(net_k, wl, plan_k, [e for e in events if start <= e.time < stop])
        for start, stop, net_k, plan_k, _ in epochs
    )
    report = _change_report(epochs, events, marks, sim.messages, wl, tally, central)
    partial: Counter = Counter()
    reopt: Counter = Counter()
    for execution in executions:
        partial += execution.partial_matches()
        reopt += execution.reoptimizations()
    model = sum(plan_k.psi * (min(stop, duration) - start) for start, stop, _, plan_k, _ in epochs)
    return SimulationResult(
        method=plan.method,
        duration=duration,
        events=len(events),
        messages=sim.messages,
        messages_by_type=dict(sim.by_kind),
        messages_by_link={
            f"{u} {v}": c for (u, v), c in sorted(sim.by_link.items(), key=lambda kv: str(kv[0]))
        },
        messages_by_vertex={int(k): c for k, c in sim.by_sender.items()},
        centralized_messages=centralized_messages,
        model_messages=model,
        matches={q: sum(c.values()) for q, c in tally.sink_found.items()},
        centralized_matches={q: sum(c.values()) for q, c in central.items()},
        missing=missing,
        extra=extra,
        latency={q: latency_summary(values) for q, values in tally.latencies.items()},
        events_processed={str(n): c for n, c in tally.processed.items()},
        partial_matches=dict(partial),
        reoptimizations=dict(reopt),
        late=tally.late,
        unused_events=dict(tally.unused),
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        changes=report,
        shedding=None
        if capacity_model is None or reference is None
        else shedding_report(
            capacity_model,
            tally.sink_found,
            reference[0].sink_found,
            {q.name: q.weight for q in wl.queries},
            tally.latencies,
            reference[1],
            duration,
            tally.late,
            central,
        ),
        **result_fields(aggregations),
    )


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


def _centralized_messages(
    network: Network, workload: Workload, plan: Plan, events: Sequence[Event]
) -> int:
    """Messages of gathering the trace's events of the workload's types at the centralized node."""
    node = plan.centralized_node
    if node is None or node not in network.node_index:
        return 0
    index = network.node_index
    row = network.hops_row(node)
    used = set(workload.types)
    per_node = Counter(e.node for e in events if e.type in used)
    return sum(int(row[index[n]]) * count for n, count in per_node.items())


def deviation(measured: float, model: float) -> float:
    """Relative deviation of a measured count from the model's (0 when both are 0)."""
    if model == 0:
        return 0.0 if measured == 0 else math.inf
    return (measured - model) / model
