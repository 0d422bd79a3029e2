"""The figures of a plan that ``inev plan`` and ``inev show`` print, with names and units.

Two latencies must never be confused: the plan's **model latency** ℓ(I) of §5.4 (hops of
transmission plus ξ times a partial-match rate: a model score, not a time) and the
**detection latency** the simulator measures (time units). Summaries call the first
``model_latency``. A PPoP plan's model latency extends §5.4 (which has no pull phase): a
pulled type's path counts twice, request and response
(:func:`inev.planner.baselines.push_pull_plan`).

>>> from inev.planner.inev_graph import Plan
>>> plan = Plan("ppop", (), {}, {}, {}, {}, {}, psi=2.0, latency=6.0, centralized_cost=8.0)
>>> from inev.common.figures import summary_line
>>> summary_line(plan_figures(plan))
'method=ppop psi=2 centralized=8 ratio=0.25 lower_bound=0 model_latency=6'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inev.common.figures import Figure

if TYPE_CHECKING:
    from inev.planner.inev_graph import Plan

RATE = "events / time unit"
MODEL_LATENCY = "hops + ξ·pm (§5.4)"


def model_latency(plan: Plan) -> float:
    """ℓ(I) of the plan (for PPoP with its pull phase, see the module docstring)."""
    return plan.latency


def plan_figures(plan: Plan) -> list[Figure]:
    """The figures of ``plan``: the candidate kept, costs, ratio, bound and model latency (one
    line), then the bound's ratio, the §7.2 approximation, counts and the planning time
    (table only)."""
    composite = [k for k, p in plan.projections.items() if len(p.types) > 1]
    placed = {v.projection for v in plan.vertices if v.projection in set(composite)}
    central_latency = plan.centralized_latency
    over_bound = plan.psi / plan.lower_bound if plan.lower_bound > 0 else None
    figures = [
        Figure("method", "method", plan.method),
        Figure("psi", "transmission cost ψ", plan.psi, RATE),
        Figure("centralized", "centralized cost", plan.centralized_cost, RATE),
        Figure("ratio", "transmission ratio ψ / centralized", plan.ratio),
        Figure("lower_bound", "provable lower bound of ψ", plan.lower_bound, RATE),
        Figure("psi_over_bound", "ψ / lower bound", over_bound, in_line=False),
        Figure(
            "approximate_bound",
            "§7.2 approximation (not a bound)",
            plan.approximate_bound,
            RATE,
            in_line=False,
        ),
        Figure("model_latency", "model latency ℓ(I)", model_latency(plan), MODEL_LATENCY),
        Figure(
            "centralized_model_latency",
            "centralized model latency",
            central_latency,
            MODEL_LATENCY,
            in_line=False,
        ),
        Figure("centralized_node", "centralized node", plan.centralized_node, in_line=False),
        Figure("projections", "projections placed", len(placed), in_line=False),
        Figure("multi_node", "multi-node placements", len(plan.multi_node), in_line=False),
        Figure("vertices", "vertices of the INEv graph", len(plan.vertices), in_line=False),
        Figure("seconds", "planning time", plan.planning_seconds, "s", digits=3, in_line=False),
    ]
    if plan.kept:
        figures.insert(7, Figure("kept", "plan kept (best candidate)", plan.kept))
    return figures
