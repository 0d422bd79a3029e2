"""One simulation: execute an INEv plan node by node in SimPy (INEv §5, Definition 2).

Every vertex of the plan that evaluates a projection gets its own local CEP engine
(:class:`inev.simulator.engine.engine.Engine`) at its node; event vertices are the sources.
An item (an event, or a match of a projection) produced by vertex ``u`` is delivered to the
consumers of ``u`` at ``u``'s node at once and travels over ``u``'s forwarding tree to the
others (:mod:`inev.simulator.network`); a node hands an arriving item to exactly the local
vertices that list ``u`` among their inputs, so a multi-node vertex sees only its own node's
events of the partitioning type, and nodes on a forwarding path use what passes through them.

**Watermarks.** Items reach an engine out of timestamp order (paths differ in length). For
each vertex v we compute a bound D_v on how late an input item can arrive after its
timestamp: 0 for events at their source, the latency of the forwarding-tree path for items
that travel, plus the upstream vertex's own D for matches (an upstream engine emits a match
when its watermark passes the match's time). At simulation time T the engine of v is told
that nothing older than T - D_v will come (``Engine.advance``); every arriving item schedules
the advance that releases it, so no match is emitted before it is final and none is held
back longer than D_v. The bound needs fixed link latencies: with a bandwidth (queueing), the
bound is raised by the queueing delay the run observes, and late arrivals (never expected)
are counted in ``late`` rather than hidden.

**Outputs.** A vertex without output selector sends its matches; with one, it sends the
distinct events of the selected types that occur in its matches, each once. Engines always
produce full matches; the partial outputs are derived here, so a sink whose projection is
also an input of another projection records full matches and still forwards partial output.

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

import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import simpy

from inev.common.errors import InevError
from inev.planner.plan import Plan, Vertex
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.estimate import check_size
from inev.simulator.network import SimNetwork, forwarding_tree
from inev.simulator.result import SimulationResult, compare_matches, latency_summary
from inev.simulator.sources import SourceEvent, poisson_trace, workload_attributes
from inev.topologies.network import Network
from inev.workloads.query import kleene_types
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Workload

_EPSILON = 1e-9


@dataclass
class _VertexRun:
    """Run-time state of one projection vertex."""

    vertex: Vertex
    engine: Engine
    delay: float
    queries: tuple[str, ...]
    emitted: set[tuple[str, Any]]
    seen: dict[tuple[str, Any], float]
    unfold: frozenset[int] = frozenset()
    purge_at: int = 1024


def _tree_latency(network: Network, tree: dict, root: Hashable) -> dict[Hashable, float]:
    """Latency from ``root`` to every node of a rooted forwarding tree."""
    out = {root: 0.0}
    stack = [root]
    while stack:
        u = stack.pop()
        for v in tree.get(u, ()):
            out[v] = out[u] + network.graph.edges[u, v]["latency"]
            stack.append(v)
    return out


def _as_events(trace: Sequence[Any]) -> list[Event]:
    out = []
    for e in trace:
        if isinstance(e, Event):
            out.append(e)
        elif isinstance(e, SourceEvent):
            out.append(make_event(e.time, e.type, e.node, e.id, e.attrs))
        else:
            raise InevError(f"trace item {e!r} is not an event")
    return out


def centralized_matches(
    workload: Workload, events: Sequence[Event], **options: Any
) -> dict[str, Counter]:
    """Matches of every query evaluated by one engine over the whole (sorted) trace."""
    ordered = sorted(events, key=lambda e: (e.time, e.id))
    out: dict[str, Counter] = {}
    for query in workload.queries:
        engine = Engine.from_query(query, workload, **options)
        found: Counter = Counter()
        for event in ordered:
            if event.type in query.types:
                for match in engine.push(event):
                    found[tuple(e.id for e in match)] += 1
        for match in engine.flush():
            found[tuple(e.id for e in match)] += 1
        out[query.name] = found
    return out


def simulate(
    network: Network,
    workload: Workload,
    plan: Plan,
    duration: float = 100.0,
    seed: int = 0,
    trace: Sequence[Any] | None = None,
    bandwidth: float | None = None,
    engine_plan: str = "greedy",
    adaptation: str = "invariant",
    progress: Callable[[float], None] | None = None,
    check: bool = True,
) -> SimulationResult:
    """Run ``plan`` on ``network`` for ``duration`` time units and measure it (see module doc).

    ``trace`` replays given events (``SourceEvent`` or engine ``Event`` objects, any order)
    instead of Poisson sources drawn with ``seed``. ``progress(t)`` is called with the
    simulation time as the sources advance. With ``check`` (the default), a run whose
    estimated size would exhaust memory is refused before it starts
    (:func:`inev.simulator.estimate.check_size`).
    """
    started = time.perf_counter()
    wl = workload.split_or()
    wl.check_network(network)
    for name in plan.sinks:
        wl.query(name)
    if trace is None:
        if check:
            check_size(network, workload, duration)
        source_events = poisson_trace(
            network, duration, seed, types=wl.types, attributes=workload_attributes(wl)
        )
        events = _as_events(source_events)
    else:
        used = set(wl.types)
        events = []
        for event in _as_events(trace):
            if event.type not in used:
                continue
            if event.node not in network.event_types[event.type].sources:
                raise InevError(
                    f"trace event {event.id!r}: node {event.node!r} is not a source of "
                    f"{event.type} in the network"
                )
            events.append(event)
        events.sort(key=lambda e: (e.time, e.id))
        if events:
            duration = max(duration, events[-1].time)
    env = simpy.Environment()
    sim = SimNetwork(env, network, bandwidth=bandwidth)
    by_id = {v.id: v for v in plan.vertices}
    sink_queries: dict[str, list[str]] = defaultdict(list)
    for q, key in plan.sinks.items():
        sink_queries[key].append(q)

    # ---------------------------------------------------------------- static structure
    event_vertex: dict[tuple[str, Hashable], list[int]] = defaultdict(list)
    event_ids: set[int] = set()
    trees: dict[int, dict] = {}
    reach: dict[int, dict[Hashable, float]] = {}
    consumers: dict[int, dict[Hashable, list[int]]] = defaultdict(lambda: defaultdict(list))
    for v in plan.vertices:
        info = plan.projections.get(v.projection)
        if info is None:
            raise InevError(f"plan vertex {v.id} names unknown projection {v.projection!r}")
        if not v.inputs and len(info.types) == 1:
            event_vertex[(info.types[0], v.node)].append(v.id)
            event_ids.add(v.id)
        tree = forwarding_tree(v.node, v.forwarding) if v.forwarding else {v.node: ()}
        trees[v.id] = tree
        reach[v.id] = _tree_latency(network, tree, v.node)
        for u in v.inputs:
            if u not in by_id:
                raise InevError(f"plan vertex {v.id} has unknown input {u}")
            consumers[u][v.node].append(v.id)

    runs: dict[int, _VertexRun] = {}
    emission: dict[int, float] = {}
    adapt = Adaptation(adaptation)
    for v in plan.vertices:  # inputs come first: a topological order
        if v.id in event_ids:
            emission[v.id] = 0.0
            continue
        delay = 0.0
        inputs: list[str] = []
        unfold: set[int] = set()
        kleene = kleene_types(parse_pattern(plan.projections[v.projection].pattern))
        for u_id in v.inputs:
            u = by_id[u_id]
            if v.node not in reach[u_id]:
                raise InevError(
                    f"plan vertex {v.id} at node {v.node!r} is not on the forwarding graph of "
                    f"its input {u_id} (Definition 2)"
                )
            delay = max(delay, emission[u_id] + reach[u_id][v.node])
            u_info = plan.projections[u.projection]
            if u_id in event_ids:
                names = [u_info.types[0]]
            elif u.output is None and not (kleene & set(u_info.types)):
                names = [u_info.pattern]
            elif u.output is None:
                # A Kleene trend of the sink spans several matches of the (Kleene-free, §6.1)
                # input: unfold each match into its events and let the sink build the trends.
                # An unfolded event can be up to one window older than its match's time.
                unfold.add(u_id)
                names = [t for t in u_info.types if t != v.partition]
                delay = max(delay, emission[u_id] + reach[u_id][v.node] + wl.window)
            else:
                # Selected events leave with their match, up to one window after their own time.
                names = list(u.output)
                delay = max(delay, emission[u_id] + reach[u_id][v.node] + wl.window)
            for name in names:
                if name not in inputs:
                    inputs.append(name)
        delay += _EPSILON * (1.0 + delay)
        info = plan.projections[v.projection]
        query = wl.query(info.queries[0]) if info.queries else wl.queries[0]
        engine = Engine.for_projection(
            query,
            wl,
            info.pattern,
            inputs=inputs,
            output=None,
            plan=engine_plan,
            adaptation=adapt,
            lateness=None,
        )
        runs[v.id] = _VertexRun(
            v,
            engine,
            delay,
            tuple(sink_queries.get(v.projection, ())),
            set(),
            {},
            frozenset(unfold),
        )
        emission[v.id] = delay

    # ---------------------------------------------------------------- dynamics
    sink_found: dict[str, Counter] = {q: Counter() for q in plan.sinks}
    latencies: dict[str, list[float]] = {q: [] for q in plan.sinks}
    processed: Counter = Counter()
    late = 0

    def emit(run: _VertexRun, outputs: list[Any]) -> None:
        v = run.vertex
        now = env.now
        for match in outputs:
            if run.queries:
                ids = tuple(e.id for e in match)
                last = max(e.time for e in match)
                for q in run.queries:
                    sink_found[q][ids] += 1
                    latencies[q].append(now - last)
            if not consumers.get(v.id):
                continue
            if v.output is None:
                send(v, match)
            else:
                for e in match:
                    if e.type in v.output and (e.type, e.id) not in run.emitted:
                        run.emitted.add((e.type, e.id))
                        send(v, e)

    def release(run: _VertexRun, watermark: float) -> None:
        # ``watermark`` is the released item's own time: recomputing it as now - delay could
        # round below the item's time and leave the item for a later release.
        emit(run, run.engine.advance(max(watermark, env.now - run.delay)))

    def deliver(node: Hashable, sender: int, item: Any) -> None:
        for vid in consumers[sender].get(node, ()):
            run = runs[vid]
            if sender in run.unfold:
                partition = run.vertex.partition
                for event in item:
                    if event.type != partition:
                        push(run, node, event)
            else:
                push(run, node, item)

    def push(run: _VertexRun, node: Hashable, item: Any) -> None:
        nonlocal late
        if isinstance(item, Event):
            key = (item.type, item.id)
            if key in run.seen:
                return
            run.seen[key] = item.time
            if len(run.seen) > run.purge_at:  # forget events the watermark has passed
                horizon = run.engine.watermark
                run.seen = {k: t for k, t in run.seen.items() if t >= horizon}
                run.purge_at = max(1024, 2 * len(run.seen))
            t = item.time
        else:
            t = max(e.time for e in item)
        before = run.engine.counters["late"]
        run.engine.push(item)
        processed[node] += 1
        if run.engine.counters["late"] != before:
            late += 1
            return
        wait = t + run.delay - env.now
        if wait <= 0:
            release(run, t)
        else:
            env.timeout(wait).callbacks.append(lambda _e, run=run, t=t: release(run, t))

    def send(v: Vertex, item: Any) -> None:
        deliver(v.node, v.id, item)
        if v.forwarding:
            sim.send(v.node, trees[v.id], (v.id, item), kind=v.projection, sender=v.id)

    for node in network.nodes:
        sim.on_receive(node, lambda n, payload, kind: deliver(n, payload[0], payload[1]))

    unused = Counter()

    def sources():  # type: ignore[no-untyped-def]
        step = max(duration / 100.0, 1e-9)
        next_report = step
        for event in events:
            if event.time > env.now:
                yield env.timeout(event.time - env.now)
            senders = event_vertex.get((event.type, event.node))
            if not senders:
                unused[event.type] += 1
                continue
            for vid in senders:
                send(by_id[vid], event)
            if progress is not None and env.now >= next_report:
                progress(env.now)
                next_report = env.now + step

    env.process(sources())
    env.run()
    for run in runs.values():  # safety net: every release was scheduled, nothing should remain
        emit(run, run.engine.flush())

    central = centralized_matches(wl, events, plan=engine_plan)
    missing, extra = compare_matches(sink_found, central)
    centralized_messages = _centralized_messages(network, wl, plan, events)
    messages = sim.messages
    model = plan.psi * duration
    return SimulationResult(
        method=plan.method,
        duration=duration,
        events=len(events),
        messages=messages,
        messages_by_type=dict(sim.by_kind),
        messages_by_link={
            f"{u} {v}": c for (u, v), c in sorted(sim.by_link.items(), key=lambda kv: str(kv[0]))
        },
        messages_by_vertex={int(k): c for k, c in sim.by_sender.items()},
        centralized_messages=centralized_messages,
        model_messages=model,
        matches={q: sum(c.values()) for q, c in sink_found.items()},
        centralized_matches={q: sum(c.values()) for q, c in central.items()},
        missing=missing,
        extra=extra,
        latency={q: latency_summary(values) for q, values in latencies.items()},
        events_processed={str(n): c for n, c in processed.items()},
        partial_matches=_partial_matches(runs),
        reoptimizations=_reoptimizations(runs),
        late=late,
        unused_events=dict(unused),
        wall_seconds=time.perf_counter() - started,
    )


def _partial_matches(runs: dict[int, _VertexRun]) -> dict[str, int]:
    out: Counter = Counter()
    for run in runs.values():
        out[str(run.vertex.node)] += run.engine.partial_match_count()
    return dict(out)


def _reoptimizations(runs: dict[int, _VertexRun]) -> dict[str, int]:
    out: Counter = Counter()
    for run in runs.values():
        out[str(run.vertex.node)] += run.engine.counters["reoptimizations"]
    return dict(out)


def _centralized_messages(
    network: Network, workload: Workload, plan: Plan, events: Sequence[Event]
) -> int:
    """Messages of gathering the trace's events of the workload's types at the centralized node."""
    node = plan.centralized_node
    if node is None or node not in network.node_index:
        return 0
    index = network.node_index
    row = network.hop_matrix[:, index[node]]
    used = set(workload.types)
    return int(sum(int(row[index[e.node]]) for e in events if e.type in used))


def deviation(measured: float, model: float) -> float:
    """Relative deviation of a measured count from the model's (0 when both are 0)."""
    if model == 0:
        return 0.0 if measured == 0 else math.inf
    return (measured - model) / model
