"""The approximate lower bound on transmission costs of §7.2 of the INEv paper.

For each event type ε of a query q, ε is a *candidate* partitioning input, cand(q), if some
projection p of q *without* ε (a single type included) has R(p) < r(ε) or
Σ_{ε' ∈ E(p)} R(ε') < r(ε): then p's matches or events can be sent to ε's sources more cheaply
than ε's local events, and an optimal plan may never send ε. Every other type is assumed to
travel at least δ hops (δ the mean shortest-path length), for (R(ε) − r(ε)) · δ. The paper
does not say whether p contains ε; we read it as not containing ε (with ε inside, R(p) < r(ε)
would rarely hold and the sum never would). For a workload, a type counts once and is
exempt only if it is a candidate in every query that uses it. It is an approximation, not a
proven bound: plans may fall below it.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (5.0, [1, 2])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
>>> lower_bound(net, wl)  # B is a candidate (R(A) = 1 < r(B) = 5); A is not: (1 - 1) * δ
0.0
"""

from __future__ import annotations

from inev.planner.projections import all_projections
from inev.topologies.network import Network
from inev.workloads.workload import Workload


def candidate_types(network: Network, workload: Workload) -> dict[str, bool]:
    """``{type: exempt}``: whether each used type is a candidate in every query using it."""
    glob = network.global_rates()
    exempt: dict[str, bool] = {}
    for q in workload.split_or().queries:
        projections = all_projections(q, glob, workload.selectivity_seed)
        for e in q.types:
            r = network.rate(e)
            cand = any(glob[o] < r for o in q.types if o != e) or any(
                e not in p.types and (p.rate < r or sum(glob[t] for t in p.types) < r)
                for p in projections
            )
            exempt[e] = exempt.get(e, True) and cand
    return exempt


def lower_bound(network: Network, workload: Workload) -> float:
    """Σ over non-candidate types of (R(ε) − r(ε)) · δ."""
    delta = network.mean_hops
    return float(
        sum(
            (network.global_rate(e) - network.rate(e)) * delta
            for e, exempt in candidate_types(network, workload).items()
            if not exempt
        )
    )
