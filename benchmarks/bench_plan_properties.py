"""Plan properties over many random workloads. Run: python benchmarks/bench_plan_properties.py

Prints, over ``--workloads`` random instances (20-50 nodes, skew 1.1-1.9, 1-5 queries of
4-6 types, selectivity 0.1 or 0.01; instance k drawn from its index):

* how often the INEv plan costs more than the centralized, isolated or push-pull plan of the
  same instance (the planner promises never);
* the standard deviation of the ratio over ``--orders`` orders of the workload's queries
  (share of workloads below 0.001);
* Kleene closure (the INEv paper's Fig. 7a design): one query, its Kleene child given the
  highest- or the lowest-rate type, against the same query without the operator; the share of
  queries whose ratio changes by at most 1.1x;
* repair (§6.6): after swapping the rates of two types from the middle of the rate order,
  how often the repaired plan costs more than the broken plan or the centralized one.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace

import numpy as np

from inev.planner.planning import plan_workload
from inev.planner.repair import repair_plan
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload
from inev.workloads.pattern import Operator, Primitive, leaf_types
from inev.workloads.workload import Query, Workload


def instance(index: int, queries: int | None = None):
    """Network and workload number ``index`` (parameters drawn from the index)."""
    rng = np.random.default_rng([0x9E0, index])
    count = queries or int(rng.choice([1, 2, 3, 5]))
    length = int(rng.choice([4, 5, 6]))
    net = generate_network(
        nodes=int(rng.choice([20, 30, 50])),
        event_types=length + int(rng.integers(1, 4)),
        skew=float(rng.choice([1.1, 1.3, 1.5, 1.9])),
        node_ratio=float(rng.choice([0.3, 0.5, 0.8])),
        seed=index,
    )
    wl = generate_workload(
        net,
        queries=count,
        length=length,
        selectivity=float(rng.choice([0.1, 0.01])),
        seed=index,
    )
    return net, wl


def with_kleene(query: Query, kleene_type: str) -> Query:
    """``query`` with ``KL(kleene_type)`` in place of that type's primitive."""

    def visit(node):
        if isinstance(node, Primitive):
            return Operator("KL", (node,)) if node.type == kleene_type else node
        return Operator(node.kind, tuple(visit(c) for c in node.children))

    return replace(query, pattern=visit(query.pattern))


def main() -> None:
    """Run every property over the instances and print the shares."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--orders", type=int, default=20)
    args = parser.parse_args()
    n = args.workloads

    worse = {"centralized": 0, "isolated": 0, "ppop": 0}
    for k in range(n):
        net, wl = instance(k)
        inev = plan_workload(net, wl).psi
        for method in worse:
            other = plan_workload(net, wl, method).psi
            worse[method] += inev > other * (1 + 1e-9)
    print(
        f"never worse ({n} workloads): inev costs more than centralized on {worse['centralized']},"
        f" isolated on {worse['isolated']}, ppop on {worse['ppop']}"
    )

    deviations = []
    for k in range(n):
        net, wl = instance(k, queries=int(np.random.default_rng(k).choice([3, 5])))
        rng = np.random.default_rng([k, 7])
        ratios = []
        for _ in range(args.orders):
            order = [wl.queries[i] for i in rng.permutation(len(wl.queries))]
            ratios.append(plan_workload(net, replace(wl, queries=tuple(order))).ratio)
        deviations.append(statistics.pstdev(ratios))
    below = sum(d < 0.001 for d in deviations)
    print(
        f"query orders ({n} workloads x {args.orders} orders): std of the ratio < 0.001 on"
        f" {below}/{n} ({below / n:.1%}); largest std {max(deviations):.3g}"
    )

    changes, within = [], 0
    for k in range(n):
        net, wl = instance(k, queries=1)
        q = wl.queries[0]
        glob = net.global_rates()
        ranked = sorted(leaf_types(q.pattern), key=lambda t: (glob[t], t))
        kleene_type = ranked[-1] if k % 2 == 0 else ranked[0]
        plain = plan_workload(net, wl).ratio
        kleene = plan_workload(net, Workload.build(wl.window, [with_kleene(q, kleene_type)])).ratio
        change = max(kleene, plain) / min(kleene, plain) if min(kleene, plain) > 0 else 1.0
        changes.append(change)
        within += change <= 1.1
    print(
        f"Kleene closure ({n} queries, the Kleene child the highest- or lowest-rate type):"
        f" ratio changes by <= 1.1x on {within}/{n} ({within / n:.1%});"
        f" median change {statistics.median(changes):.4g}x, largest {max(changes):.4g}x"
    )

    costlier_broken = costlier_central = 0
    for k in range(n):
        net, wl = instance(k)
        plan = plan_workload(net, wl)
        ranked = sorted(wl.types, key=lambda t: (net.global_rate(t), t))
        middle = len(ranked) // 2
        a, b = ranked[middle - 1], ranked[middle]
        result = repair_plan(plan, net, wl, [{"time": 0.0, "kind": "swap-rates", "types": [a, b]}])
        chosen = result.result.psi
        costlier_broken += chosen > result.broken.psi * (1 + 1e-9)
        costlier_central += chosen > result.replanned.centralized_cost * (1 + 1e-9)
    print(
        f"repair ({n} middle-of-the-order swaps): the repaired plan costs more than the broken"
        f" one on {costlier_broken}, more than centralized on {costlier_central}"
    )


if __name__ == "__main__":
    main()
