"""The INEv paper's three latency graphs (§7.2, Fig. 12b): plans of one workload with few,
middling and many hops.

The paper measures "three INEv graphs (same query), involving 26, 40, and 74 hops" under
0, 100 and 200 ms of delay per hop, the one with the most hops being the cheapest. It does
not say how the three were made. inev makes them with the knob Problem 1 gives: the
latency bound. :func:`candidate_plans` plans the workload under a ladder of bounds
τ = F × the centralized latency (:data:`LADDER`, unbounded last), each at the paper's single
pass (effort 0) and at inev's default search, adds the centralized plan, and keeps per
hop count the cheapest plan; a tighter bound allows fewer hops, so the candidates run from
centralized evaluation to the unbounded INEv graph. :func:`pick` takes the one with the
fewest hops (rank 1), the most (rank 3) or the middle one (rank 2). Hops are those of the
forwarding graphs, Σ over vertices of the links each uses.

>>> from inev.topologies.generate import generate_network
>>> from inev.workloads.generate import generate_workload
>>> net = generate_network(seed=3, nodes=10, event_types=4, skew=1.5)
>>> wl = generate_workload(net, length=3, seed=3)
>>> plans = candidate_plans(net, wl)
>>> [hops(p) for p in plans] == sorted({hops(p) for p in plans})
True
>>> hops(pick(plans, 1)) <= hops(pick(plans, 2)) <= hops(pick(plans, 3))
True
"""

from __future__ import annotations

from collections.abc import Sequence

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.network import Network
from inev.workloads.workload import Workload

LADDER = (1.0, 1.5, 2.0, 3.0, 5.0, None)
"""Latency bound factors tried (``None``: no bound)."""
EFFORTS = (0.0, 1.0)
"""Search efforts tried at every bound: the paper's single pass and inev's default."""


def hops(plan: Plan) -> int:
    """Links of all forwarding graphs of ``plan``, Σ over vertices."""
    return sum(len(v.forwarding) for v in plan.vertices)


def candidate_plans(
    network: Network, workload: Workload, options: PlanOptions | None = None
) -> list[Plan]:
    """The cheapest plan per hop count over the bound ladder and the centralized plan, in
    increasing hops (module docstring). ``options`` gives ξ; bound and effort are the
    ladder's. A bound no plan can meet is skipped."""
    xi = (options or PlanOptions()).xi
    found: dict[int, Plan] = {}
    plans = [plan_workload(network, workload, "centralized", PlanOptions(xi=xi))]
    for factor in LADDER:
        for effort in EFFORTS:
            try:
                plans.append(
                    plan_workload(
                        network,
                        workload,
                        "inev",
                        PlanOptions(latency_factor=factor, effort=effort, xi=xi),
                    )
                )
            except InevError:  # no plan meets this bound
                continue
    for plan in plans:
        count = hops(plan)
        if count not in found or plan.psi < found[count].psi:
            found[count] = plan
    return [found[count] for count in sorted(found)]


def pick(plans: Sequence[Plan], rank: int) -> Plan:
    """The plan of fewest hops (``rank`` 1), the middle one (2) or the most hops (3)."""
    if rank not in (1, 2, 3):
        raise InevError(f"hop rank must be 1, 2 or 3, got {rank}")
    if not plans:
        raise InevError("no candidate plan to pick from")
    index = {1: 0, 2: (len(plans) - 1) // 2, 3: len(plans) - 1}[rank]
    return plans[index]
