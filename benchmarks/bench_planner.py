"""Planner speed and quality figures (issue 3 targets). Run: python benchmarks/bench_planner.py

Prints, per instance family, the median planning time over seeds, the median transmission
ratio ψ / centralized cost, the median ψ / lower bound (§7.2) and how many plans fall below
the (approximate) lower bound; the planning time of one 8-type query with a nested operator
tree (247 projections); and the skew sensitivity of Figure 6a (median ratio at skew 1.1 and
1.9 over 50 seeds, 20 nodes, one 6-type query, selectivity 0.1).
Targets: default < 0.5 s, 8-type query < 10 s, 1,000 nodes / 10 queries < 30 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from inev.planner.planning import plan_workload
from inev.planner.projections import all_projections
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload
from inev.workloads.pattern import Operator, walk


def depth(pattern) -> int:
    """Operator nesting depth of a pattern."""
    if not isinstance(pattern, Operator):
        return 0
    return 1 + max(depth(c) for c in pattern.children)


def family(name: str, seeds: range, make) -> None:
    """Plan one instance per seed and print the medians."""
    times, ratios, to_lb, below, slow = [], [], [], 0, 0
    for seed in seeds:
        net, wl = make(seed)
        start = time.perf_counter()
        plan = plan_workload(net, wl)
        times.append(time.perf_counter() - start)
        ratios.append(plan.ratio)
        if plan.lower_bound > 0:
            to_lb.append(plan.psi / plan.lower_bound)
        below += plan.psi < plan.lower_bound
        slow += plan.latency > plan.centralized_latency * (1 + 1e-9)
    lb = f"{statistics.median(to_lb):.4g}" if to_lb else "n/a (bound 0)"
    print(
        f"{name}: seeds={len(seeds)} median_seconds={statistics.median(times):.3f} "
        f"max_seconds={max(times):.3f} median_ratio={statistics.median(ratios):.4g} "
        f"median_psi_over_lower_bound={lb} below_lower_bound={below}/{len(seeds)} "
        f"latency_above_tau={slow}/{len(seeds)}"
    )


def main() -> None:
    """Run the benchmark families."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--large-seeds", type=int, default=10)
    parser.add_argument("--skew-seeds", type=int, default=50)
    parser.add_argument(
        "--large-selectivity", type=float, nargs="+", default=[0.1], help="Selectivity scales."
    )
    args = parser.parse_args()

    def default(seed):
        net = generate_network(
            nodes=20, out_degree=3, event_types=6, skew=1.3, node_ratio=0.5, seed=seed
        )
        return net, generate_workload(net, queries=1, length=6, selectivity=0.1, seed=seed)

    def large_at(scale):
        def large(seed):
            net = generate_network(nodes=1000, out_degree=3, event_types=10, skew=1.3, seed=seed)
            wl = generate_workload(net, queries=10, length=6, selectivity=scale, seed=seed)
            return net, wl

        return large

    family("default (20 nodes, 1 query x 6 types)", range(args.seeds), default)

    times = []
    for seed in range(args.seeds):
        net = generate_network(nodes=20, event_types=8, seed=seed)
        wl, s = None, seed
        while wl is None or depth(wl.queries[0].pattern) < 3:
            wl = generate_workload(net, length=8, selectivity=0.1, seed=s)
            s += 1000
        q = wl.queries[0]
        count = len(all_projections(q, net.global_rates()))
        start = time.perf_counter()
        plan = plan_workload(net, wl)
        times.append(time.perf_counter() - start)
        if seed == 0:
            ops = sum(1 for n in walk(q.pattern) if isinstance(n, Operator))
            print(f"8-type query example: {q.pattern} ({ops} operators, {count} projections)")
    print(
        f"8-type nested query: seeds={len(times)} median_seconds={statistics.median(times):.3f} "
        f"max_seconds={max(times):.3f} last_ratio={plan.ratio:.4g}"
    )

    for scale in args.large_selectivity:
        family(
            f"large (1000 nodes, 10 types, 10 queries x 6 types, selectivity {scale})",
            range(args.large_seeds),
            large_at(scale),
        )

    medians = {}
    for skew in (1.1, 1.9):
        ratios = []
        for seed in range(args.skew_seeds):
            net = generate_network(nodes=20, out_degree=3, skew=skew, seed=seed)
            ratios.append(plan_workload(net, generate_workload(net, length=6, seed=seed)).ratio)
        medians[skew] = statistics.median(ratios)
    print(
        f"skew sensitivity (Fig. 6a, {args.skew_seeds} seeds): median ratio at 1.1 = {medians[1.1]:.4g}, "
        f"at 1.9 = {medians[1.9]:.4g}"
    )


if __name__ == "__main__":
    main()
