"""Pulled event types of a push-pull (PPoP) plan: which partial matches request which events.

A PPoP plan (:func:`inev.planner.baselines.push_pull`) evaluates query q at one node m in an
order e_1 … e_k of its types: e_1 … e_j are pushed to m as they occur, and every later type
e_i is *pulled*: each match of the prefix e_1 … e_{i-1} found at m sends one request to every
source of e_i, which answers with its e_i events of the window. The plan records the order in
``plan.combination[sink]`` and the pulled types as ``"<query>: pull <type>"`` notes; this
module turns them into :class:`PullStage` objects the executor runs
(:class:`inev.simulator.execution.PlanExecution`).

**Which events a request asks for.** A prefix match with events from t_min to t_max can only
grow into a match whose events all lie in [t_max − W, t_min + W] (W the window), so the
request asks for exactly those events, and the source answers once its clock has passed
t_min + W (every event of the range exists by then). Prefix matches are matches of the
prefix's restriction of q_nKL (Kleene stripped, negated types kept only with both their
sequence ends, :func:`inev.planner.projections.restrict`): every match of q contains one, so
no match is lost; restricting may only add requests. One exception needs care: a negated
type tied by a predicate (a selectivity below 1 or a where conjunct) to a type outside the
prefix cancels only matches whose events *with that type* satisfy it; the prefix cannot
check that and would cancel more, losing matches. Such negated types are left out of the
prefix (:func:`prefix_types`), which then only adds requests. A pulled type whose source is
m itself costs nothing to pull and is simply delivered there.

**Lateness bound.** A pulled event reaches m at most
``max(D_prefix + 2·L + W, 2·W + L)`` after its time (L the longest source–m path latency,
D_prefix the prefix engine's own delay): the request leaves when the prefix match is final,
travels L, waits at most until t_min + W, and the answer travels L back; the event is at most
W older than t_max. The executor adds this bound to the delay of every engine that consumes
pulled events, so pulled events are never late.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from inev.common.errors import InevError
from inev.planner import Plan, negation_ties, pulled_types, restrict
from inev.workloads.pattern import Pattern, leaf_types
from inev.workloads.rates import strip_kleene
from inev.workloads.workload import Query, Workload


@dataclass(frozen=True)
class PullStage:
    """One pulled type of a query: the prefix whose matches request it, and its sources."""

    query: str
    node: Hashable
    """The node m that evaluates the query and sends the requests."""
    pulled: str
    prefix: Pattern
    """The prefix pattern (q_nKL restricted to e_1 … e_{i-1}) whose matches send requests."""
    inputs: tuple[int, ...]
    """Event vertices that feed the prefix engine (pushed or pulled earlier)."""
    sources: tuple[int, ...]
    """Event vertices of the pulled type that answer requests (their node is not m)."""


@dataclass(frozen=True)
class PullRequest:
    """A request from m to the source vertex ``vertex`` for its events in [low, high]."""

    vertex: int
    node: Hashable
    low: float
    high: float


def prefix_types(query: Query, types: Sequence[str]) -> list[str]:
    """``types`` less every negated type tied by a predicate to a type not in the result.

    >>> q = Query.build("q", "SEQ(A, NSEQ(B, C, D))", {"A C": 0.5})
    >>> prefix_types(q, ["B", "C", "D"]), prefix_types(q, ["A", "B", "C", "D"])
    (['B', 'D'], ['A', 'B', 'C', 'D'])
    """
    keep = set(types)
    ties = negation_ties(query)
    for n in sorted(set(ties) & keep):
        if not ties[n] <= keep:  # ties name positive types only: no knock-on effects
            keep.discard(n)
    return [t for t in types if t in keep]


def pull_stages(plan: Plan, workload: Workload) -> list[PullStage]:
    """The pull stages of ``plan`` in evaluation order (none unless it pulls).

    >>> from inev.planner.planning import plan_workload
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (0.1, [1]), "B": (5.0, [0, 2])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    >>> stage = pull_stages(plan_workload(net, wl, "ppop"), wl)[0]
    >>> stage.pulled, str(stage.prefix), stage.node, len(stage.sources)
    ('B', 'A', 1, 2)
    """
    pulled = pulled_types(plan)
    if not pulled:
        return []
    by_id = {v.id: v for v in plan.vertices}
    stages: list[PullStage] = []
    for name, types in pulled.items():
        sink_key = plan.sinks[name]
        sink = next(v for v in plan.vertices if v.projection == sink_key)
        order = plan.combination[sink_key]
        base = strip_kleene(workload.query(name).pattern)
        vertex_type = {u: plan.projections[by_id[u].projection].types[0] for u in sink.inputs}
        for i, e in enumerate(order):
            if e not in types:
                continue
            prefix = restrict(base, prefix_types(workload.query(name), order[:i]))
            if prefix is None:
                raise InevError(f"{name}: the prefix before pulled type {e} has no event type")
            used = set(leaf_types(prefix))
            stages.append(
                PullStage(
                    query=name,
                    node=sink.node,
                    pulled=e,
                    prefix=prefix,
                    inputs=tuple(u for u in sink.inputs if vertex_type[u] in used),
                    sources=tuple(
                        u for u in sink.inputs if vertex_type[u] == e and by_id[u].node != sink.node
                    ),
                )
            )
    return stages
