"""The figures of a plan that ``inev plan`` and ``inev show`` print, with names and units.

Two latencies must never be confused: the plan's **model latency** ℓ(I) of §5.4 (hops of
transmission plus ξ times a partial-match rate: a model score, not a time) and the
**detection latency** the simulator measures (time units). Summaries call the first
``model_latency``. A PPoP plan's model latency extends §5.4 (which has no pull phase): a
pulled type's path counts twice, request and response
(:func:`inev.planner.baselines.push_pull_plan`).

The model counts **hops**, on every network: a forwarding graph's transmission latency is
its hop count from sender to consumer (§5.4); link latencies, where the network file has
them, are not used (on the Abilene network of the 2026-12-01 reproducers, with link
latencies from 1 to 14, and with every latency set to 1, ψ = 117.011 and ℓ(I) = 177.849
come out the same). A large ℓ(I) on a small network is the ξ·pm term: the table gives the
hops alone (:func:`transmission_hops`, ℓ(I) with ξ = 0), and when the network has latencies
other than 1 the unit says that they are not counted. Rates are in events per time unit; in
the one-line form ``rate_unit`` and ``model_latency_unit`` state the units.

>>> from inev.planner.inev_graph import Plan
>>> plan = Plan("ppop", (), {}, {}, {}, {}, {}, psi=2.0, latency=6.0, centralized_cost=8.0)
>>> from inev.common.figures import summary_line
>>> summary_line(plan_figures(plan))
'method=ppop psi=2 centralized=8 ratio=0.25 lower_bound=0 model_latency=6 rate_unit=events/time_unit model_latency_unit=hops+xi*pm'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from inev.common.figures import Figure


class PlanLike(Protocol):
    """What the figures read of a plan; :class:`inev.planner.inev_graph.Plan` has it all.

    A protocol rather than the class: the plan's ``repr`` and notebook view import this
    module, so it names nothing of the plan's module back, not even for an annotation (no
    import cycle, ``tests/test_layers.py``). ``vertices`` are the plan's
    :class:`~inev.planner.inev_graph.Vertex` values and ``projections`` its
    :class:`~inev.planner.inev_graph.ProjectionInfo` ones.
    """

    @property
    def method(self) -> str: ...
    @property
    def vertices(self) -> Sequence[Any]: ...
    @property
    def projections(self) -> Mapping[str, Any]: ...
    @property
    def multi_node(self) -> Mapping[str, str]: ...
    @property
    def sinks(self) -> Mapping[str, str]: ...
    @property
    def psi(self) -> float: ...
    @property
    def centralized_cost(self) -> float: ...
    @property
    def centralized_node(self) -> Any: ...
    @property
    def lower_bound(self) -> float: ...
    @property
    def approximate_bound(self) -> float: ...
    @property
    def latency(self) -> float: ...
    @property
    def centralized_latency(self) -> float: ...
    @property
    def planning_seconds(self) -> float: ...
    @property
    def kept(self) -> str: ...
    @property
    def ratio(self) -> float: ...


RATE = "events / time unit"
MODEL_LATENCY = "hops + ξ·pm (§5.4)"
UNWEIGHTED = "hops + ξ·pm (§5.4; the link latencies are not counted)"
RATIO = "ratio"


def model_latency_unit(network: Any | None = None) -> str:
    """The unit of ℓ(I) on ``network``: it says when the network's link latencies (other
    than 1) are not counted (module docstring)."""
    if network is not None and any(latency != 1.0 for _, _, latency in network.links):
        return UNWEIGHTED
    return MODEL_LATENCY


def transmission_hops(plan: PlanLike) -> float:
    """ℓ(I) with ξ = 0: the hops along the slowest chain of forwarding graphs to a sink.

    The same recursion as :func:`inev.planner.latency_model.vertex_latencies` without the
    processing term: ℓ_t(v) = max over inputs w of hops(w → v) inside w's forwarding graph,
    plus the largest ℓ_t of the inputs.

    >>> from inev.planner.inev_graph import Plan, Vertex
    >>> vs = (Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,), hops=(2,)),
    ...       Vertex(1, "SEQ(A, B)", 2, inputs=(0,)))
    >>> transmission_hops(Plan("inev", vs, {}, {}, {}, {"q": "SEQ(A, B)"}, {}))
    2.0
    """
    by_id = {v.id: v for v in plan.vertices}
    reach: dict[int, dict] = {}
    out: dict[int, float] = {}
    for v in plan.vertices:
        if not v.inputs:
            out[v.id] = 0.0
            continue
        hops = 0.0
        for w in v.inputs:
            if w not in reach:
                u = by_id[w]
                if u.hops and len(u.hops) == len(u.destinations):
                    reach[w] = dict(zip(u.destinations, u.hops, strict=True))
                else:
                    reach[w] = _hops_from(u.forwarding, u.node)
                reach[w][u.node] = 0
            hops = max(hops, reach[w].get(v.node, math.inf))
        out[v.id] = hops + max(out.get(w, 0.0) for w in v.inputs)
    sinks = set(plan.sinks.values())
    return max((out[v.id] for v in plan.vertices if v.projection in sinks), default=0.0)


def model_latency(plan: PlanLike) -> float:
    """ℓ(I) of the plan (for PPoP with its pull phase, see the module docstring)."""
    return plan.latency


def _hops_from(links: Any, source: Any) -> dict[Any, int]:
    """Hops from ``source`` inside the graph of ``links`` (breadth-first; the planner's
    :func:`inev.planner.steiner.bfs`, which this module may not import: the plan file's model
    imports this one)."""
    around: dict[Any, list[Any]] = {}
    for u, v in links:
        around.setdefault(u, []).append(v)
        around.setdefault(v, []).append(u)
    dist, frontier = {source: 0}, [source]
    while frontier:
        step = []
        for a in frontier:
            for b in around.get(a, ()):
                if b not in dist:
                    dist[b] = dist[a] + 1
                    step.append(b)
        frontier = step
    return dist


def plan_figures(plan: PlanLike, network: Any | None = None) -> list[Figure]:
    """The figures of ``plan``: the candidate kept, costs, ratio, bound and model latency (one
    line, with their units), then the bound's ratio, the §7.2 approximation, the hops of ℓ(I),
    counts and the planning time (table only). ``network`` (the one planned on) makes the
    model latency's unit say whether its link latencies count."""
    composite = [k for k, p in plan.projections.items() if len(p.types) > 1]
    placed = {v.projection for v in plan.vertices if v.projection in set(composite)}
    central_latency = plan.centralized_latency
    over_bound = plan.psi / plan.lower_bound if plan.lower_bound > 0 else None
    latency_unit = model_latency_unit(network)
    figures = [
        Figure("method", "method", plan.method),
        Figure("psi", "transmission cost ψ", plan.psi, RATE, unit_key="rate_unit"),
        Figure(
            "centralized", "centralized cost", plan.centralized_cost, RATE, unit_key="rate_unit"
        ),
        Figure("ratio", "transmission ratio ψ / centralized", plan.ratio, RATIO),
        Figure(
            "lower_bound", "provable lower bound of ψ", plan.lower_bound, RATE, unit_key="rate_unit"
        ),
        Figure("psi_over_bound", "ψ / lower bound", over_bound, RATIO, in_line=False),
        Figure(
            "approximate_bound",
            "§7.2 approximation (not a bound)",
            plan.approximate_bound,
            RATE,
            in_line=False,
        ),
        Figure(
            "model_latency",
            "model latency ℓ(I)",
            model_latency(plan),
            latency_unit,
            unit_key="model_latency_unit",
        ),
        Figure(
            "model_latency_hops",
            "of which hops (ℓ(I) with ξ = 0)",
            transmission_hops(plan),
            "hops",
            in_line=False,
        ),
        Figure(
            "centralized_model_latency",
            "centralized model latency",
            central_latency,
            latency_unit,
            in_line=False,
        ),
        Figure(
            "centralized_node", "centralized node", plan.centralized_node, "node", in_line=False
        ),
        Figure("projections", "projections placed", len(placed), "projections", in_line=False),
        Figure(
            "multi_node",
            "multi-node placements",
            len(plan.multi_node),
            "projections",
            in_line=False,
        ),
        Figure(
            "vertices", "vertices of the INEv graph", len(plan.vertices), "vertices", in_line=False
        ),
        Figure("seconds", "planning time", plan.planning_seconds, "s", digits=3, in_line=False),
    ]
    if plan.kept:
        figures.insert(7, Figure("kept", "plan kept (best candidate)", plan.kept))
    return figures
