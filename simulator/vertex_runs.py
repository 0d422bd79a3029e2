"""Building a plan's execution: its layout on the network, one engine per vertex, watermarks.

:class:`~inev.simulator.execution.PlanExecution` runs what this module builds (see that
module for the run-time rules): :func:`plan_layout` reads the plan's vertices, forwarding
trees and consumers, :func:`vertex_runs` gives every projection vertex its local CEP engine
and run-time state (a :class:`VertexRun`), and :func:`watermark_delays` computes each
engine's D_v, the longest an input can arrive after its timestamp.

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0])})
>>> tree_latency(net, {0: (1,), 1: (2,)}, 0)
{0: 0.0, 1: 1.0, 2: 2.0}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan, Vertex
from inev.simulator.aggregation import aggregates_alone
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.pull import PullStage
from inev.simulator.simpy_network import forwarding_tree
from inev.topologies.network import Network
from inev.workloads.pattern import kleene_types, negation_bounds
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Workload

EPSILON = 1e-9
"""Relative margin added to every D (floating-point sums of path latencies)."""


@dataclass(kw_only=True)
class VertexRun:
    """Run-time state of one projection vertex (built by keyword)."""

    vertex: Vertex
    engine: Engine
    delay: float = 0.0
    """D_v: how long an item waits after its time before the engine takes it."""
    queries: tuple[str, ...] = ()
    """The queries whose sink this vertex is."""
    emitted: dict[tuple[str, Any], float] = field(default_factory=dict)
    """Selected events sent so far (by type and id, with their time; purged past a window)."""
    seen: dict[tuple[str, Any], float] = field(default_factory=dict)
    """Events received so far, when duplicates can arrive (``dedup``)."""
    unfold: frozenset[int] = frozenset()
    """Input vertices whose matches are unfolded into their events."""
    purge_at: int = 1024
    emitted_at: int = 1024
    stage: PullStage | None = None
    """The push-pull stage of a PPoP prefix engine."""
    arrivals: tuple[tuple[int, float], ...] = ()
    """Per input vertex, how much older than its emission an item can be (0 or a window)."""
    slack: float = 0.0
    """Extra watermark wait for upstream processing (set by a capacity model)."""
    alone: bool = False
    """A sink that aggregates its queries GRETA-style and builds no trend (aggregation.py)."""
    collect: list[Any] | None = None  # items received, for GRETA at sinks (aggregation.py)
    lag: float = 0.0
    """How long the engine may trail its release times (batched releases; 0: exact)."""
    timer: float = float("inf")
    """When the pending batched release fires."""
    hold_at: float = float("inf")
    """When the engine's held matches are next released (exact mode)."""
    dedup: bool = True
    """Whether an event can reach the vertex twice (see :func:`needs_dedup`)."""


def tree_latency(
    network: Network,
    tree: dict,
    root: Hashable,
    latency: Callable[[Hashable, Hashable], float] | None = None,
) -> dict[Hashable, float]:
    """Latency from ``root`` to every node of a rooted forwarding tree.

    ``latency(u, v)`` overrides the links' own latencies (a detour around a lost link).
    """
    out = {root: 0.0}
    stack = [root]
    edges = network.graph.edges
    while stack:
        u = stack.pop()
        for v in tree.get(u, ()):
            out[v] = out[u] + (edges[u, v]["latency"] if latency is None else latency(u, v))
            stack.append(v)
    return out


@dataclass(frozen=True)
class PlanLayout:
    """A plan on the network: vertices by id, event vertices by (type, node), each vertex's
    rooted forwarding tree and path latencies, its consumers per node, each sink's queries."""

    by_id: dict[int, Vertex]
    event_vertex: dict[tuple[str, Hashable], list[int]]
    event_ids: frozenset[int]
    trees: dict[int, dict]
    reach: dict[int, dict[Hashable, float]]
    consumers: dict[int, dict[Hashable, list[int]]]
    sinks: dict[str, list[str]]


def plan_layout(network: Network, plan: Plan) -> PlanLayout:
    """The :class:`PlanLayout` of ``plan``; unknown projections and inputs are refused."""
    by_id = {v.id: v for v in plan.vertices}
    sinks: dict[str, list[str]] = defaultdict(list)
    for q, key in plan.sinks.items():
        sinks[key].append(q)
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
        reach[v.id] = tree_latency(network, tree, v.node)
        for u in v.inputs:
            if u not in by_id:
                raise InevError(f"plan vertex {v.id} has unknown input {u}")
            consumers[u][v.node].append(v.id)
    return PlanLayout(by_id, event_vertex, frozenset(event_ids), trees, reach, consumers, sinks)


def _inputs(
    layout: PlanLayout, plan: Plan, workload: Workload, v: Vertex
) -> tuple[list[tuple[int, float]], list[str], set[int]]:
    """What vertex ``v`` receives: (input vertex, extra age) pairs, the engine's input
    names, and the inputs whose matches it unfolds (module doc of execution.py)."""
    arrivals: list[tuple[int, float]] = []
    inputs: list[str] = []
    unfold: set[int] = set()
    kleene = kleene_types(parse_pattern(plan.projections[v.projection].pattern))
    for u_id in v.inputs:
        u = layout.by_id[u_id]
        if v.node not in layout.reach[u_id]:
            raise InevError(
                f"plan vertex {v.id} at node {v.node!r} is not on the forwarding graph "
                f"of its input {u_id} (Definition 2)"
            )
        extra = 0.0
        u_info = plan.projections[u.projection]
        if u_id in layout.event_ids:
            names = [u_info.types[0]]
        elif u.output is None and not (kleene & set(u_info.types)):
            names = [u_info.pattern]
        elif u.output is None:
            # A Kleene trend spans several matches of the input: unfold them into
            # events, each up to one window older than its match's time.
            unfold.add(u_id)
            names = [t for t in u_info.types if t != v.partition]
            extra = workload.window
        else:
            # Selected events leave with their match, up to one window after their time.
            names = list(u.output)
            extra = workload.window
        if u_id not in layout.event_ids and _holds(u_info.pattern, workload):
            # an engine holds a match until no negated event can still cancel it: up to
            # a window after its earliest event (inev.simulator.engine.constraints)
            extra = workload.window
        arrivals.append((u_id, extra))
        for name in names:
            if name not in inputs:
                inputs.append(name)
    return arrivals, inputs, unfold


def _holds(pattern: str, workload: Workload) -> bool:
    """Whether an engine of ``pattern`` holds matches after their last event."""
    bounds = negation_bounds(parse_pattern(pattern))
    if getattr(workload, "ties", "strict") == "any":
        return bool(bounds)
    return any(not last for _, last in bounds.values())


def vertex_runs(
    layout: PlanLayout,
    plan: Plan,
    workload: Workload,
    engine_plan: str,
    adaptation: Adaptation,
    lateness: float | None,
    aggregate_only: bool,
) -> dict[int, VertexRun]:
    """A :class:`VertexRun` (engine and state) per projection vertex, in plan order.

    With ``aggregate_only``, a sink of ``return`` queries that GRETA aggregates exactly
    aggregates alone and builds no trend (:func:`inev.simulator.aggregation.aggregates_alone`).
    """
    runs: dict[int, VertexRun] = {}
    alone: dict[str, bool] = {}
    for v in plan.vertices:  # inputs come first: a topological order
        if v.id in layout.event_ids:
            continue
        arrivals, inputs, unfold = _inputs(layout, plan, workload, v)
        info = plan.projections[v.projection]
        query = workload.query(info.queries[0]) if info.queries else workload.queries[0]
        engine = Engine.for_projection(
            query,
            workload,
            info.pattern,
            inputs=inputs,
            output=None,
            plan=engine_plan,
            adaptation=adaptation,
            lateness=lateness,
        )
        run = runs[v.id] = VertexRun(
            vertex=v,
            engine=engine,
            queries=tuple(layout.sinks.get(v.projection, ())),
            unfold=frozenset(unfold),
            arrivals=tuple(arrivals),
        )
        if any(workload.query(q).returns is not None for q in run.queries):
            run.collect = []
            # the members of a multi-node sink share inputs and consumers: decide once
            if v.projection not in alone:
                consumed = bool(layout.consumers.get(v.id))
                alone[v.projection] = aggregate_only and aggregates_alone(
                    workload, plan, layout.by_id, v, run.queries, consumed
                )
            run.alone = alone[v.projection]
    for run in runs.values():
        run.dedup = needs_dedup(layout, plan, run)
    return runs


def needs_dedup(layout: PlanLayout, plan: Plan, run: VertexRun) -> bool:
    """Whether ``run`` can receive one event twice and must filter duplicates.

    An event vertex's events reach a node once (its forwarding tree reaches each node
    once), and a vertex with an output selector sends each event once. So duplicates
    need two inputs that can carry the same event (two event vertices of one type and
    node, or a selector of a type beside another input of that type), or an input
    whose matches are unfolded into events.
    """
    sources: dict[str, set[Hashable | None]] = defaultdict(set)
    for u, _ in run.arrivals:
        if u in run.unfold:
            return True
        v = layout.by_id[u]
        if u in layout.event_ids:
            carried = [(plan.projections[v.projection].types[0], v.node)]
        elif v.output is not None:
            carried = [(t, None) for t in v.output]  # selected events of any node
        else:
            continue  # matches, which are not filtered
        for t, node in carried:
            known = sources[t]
            if node in known or (known and (node is None or None in known)):
                return True
            known.add(node)
    return False


def watermark_delays(
    runs: Mapping[int, VertexRun],
    stages: Sequence[PullStage],
    reach: Mapping[int, Mapping[Hashable, float]],
    window: float,
) -> tuple[dict[int, float], float]:
    """D of every engine under the path latencies ``reach``, and the pull buffer horizon.

    See the module docstring of :mod:`inev.simulator.execution` (watermarks) and
    :mod:`inev.simulator.pull` (pulled events).
    """
    late: dict[int, float] = {}  # pulled vertices: lateness on arrival at the query's node
    delays: dict[int, float] = {}
    horizon = 0.0
    for k, stage in enumerate(stages):
        d = max(late.get(u, reach[u][stage.node]) for u in stage.inputs)
        d += EPSILON * (1.0 + d)
        path = max((reach[u][stage.node] for u in stage.sources), default=0.0)
        bound = max(d + 2.0 * path + window, 2.0 * window + path)
        horizon = max(horizon, d + path + window)
        for u in stage.sources:
            late[u] = bound + 2.0 * EPSILON * (1.0 + bound)
        delays[-1 - k] = d
    for vid, run in runs.items():  # plan order: inputs first
        if run.stage is not None:
            continue
        node = run.vertex.node
        d = 0.0
        for u, extra in run.arrivals:
            d = max(d, late[u] if u in late else delays.get(u, 0.0) + reach[u][node] + extra)
        delays[vid] = d + EPSILON * (1.0 + d)
    return delays, horizon
