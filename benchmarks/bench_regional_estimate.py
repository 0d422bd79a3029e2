"""An estimate of the best regional plan of one family, per seed (issue 28; renamed, issue 45).

For the instances of ``bench_planner_scale.py`` (20 event types, skew 1.3, out-degree 3; 20
queries of length 5, selectivity 0.1) it prints, per seed, the dominant type a of the
centralized plan and, for every query holding a, the *estimated* cost of the cheapest design
of one family *for that query alone*: a partitioned at the k sites of the greedy k-median
ladder of :mod:`inev.planner.regions` (k on the count ladder, 1 … |f(a)|), every other type of
the query sent over the tree spanning the sites (:func:`inev.planner.regional.estimates`), or
all of them sent to the best single node of the candidate sites (``k`` 0). The largest of
these costs over ψ_central is the line's ``estimate``. A query in which some projection
holding a is rarer than a is left out.

**This is not a floor.** It is an upper estimate of the minimum of one family (the ladder's
sites, k on the ladder only, trees by a heuristic, the one-node option over candidate sites
only on large networks), so plans of that family can beat it (moving sites, other k, better
trees), and it says nothing about plans outside the family (partitioning by another type,
multi-level designs). A ratio above it says the planner misses plans of this family; a ratio
below it says nothing about how far the plan is from the best one.

    nodes ratio seed  type share  binding-query partner a/partner  k  estimate

``share``: a's share of ψ_central; ``partner``: the heaviest other type of the binding query
and a's rate over its rate.

Run: ``python benchmarks/bench_regional_estimate.py --sizes 1000:0.5 --seeds 10`` (seconds per
seed at 1,000 nodes, about a minute at 10,000).
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from inev.planner import regional
from inev.planner.baselines import centralized_node, centralized_plan
from inev.planner.projections import all_projections
from inev.topologies.io import load_network
from inev.workloads.io import load_workload
from inev.workloads.workload import Query

INEV = [sys.executable, "-m", "inev.common.cli"]


def instance(nodes: int, ratio: float, seed: int, work: Path) -> tuple[Path, Path]:
    """Generate the scale instance of ``bench_planner_scale.py`` with the command line."""
    net, wl = work / f"n-{nodes}-{ratio}-{seed}.json", work / f"w-{nodes}-{ratio}-{seed}.json"
    generate = ["network", "generate", "--nodes", str(nodes), "--event-types", "20",
                "--skew", "1.3", "--out-degree", "3", "--node-ratio", str(ratio),
                "--seed", str(seed), "-o", str(net)]  # fmt: skip
    subprocess.run(INEV + generate, check=True, capture_output=True)
    workload = ["workload", "generate", "--network", str(net), "--queries", "20",
                "--length", "5", "--selectivity", "0.1", "--seed", str(seed), "-o", str(wl)]  # fmt: skip
    subprocess.run(INEV + workload, check=True, capture_output=True)
    return net, wl


def estimate(net_path: Path, wl_path: Path) -> dict:
    """The dominant type, its binding query, the best k there and the estimate (module
    docstring)."""
    network, workload = load_network(net_path), load_workload(wl_path)
    central = centralized_plan(network, workload)
    costs: dict[str, float] = {}
    for v in central.vertices:
        if not v.inputs:
            costs[v.projection] = costs.get(v.projection, 0.0) + v.cost
    a = max(costs, key=lambda t: (costs[t], t))
    total = sum(network.source_rates(a))
    worst = {"cost": 0.0, "query": "-", "k": 0, "partner": "-", "times": math.nan}
    glob = network.global_rates()
    for q in workload.queries:
        if a not in q.types or _thins(q, a, glob, workload.window):
            continue
        partners = [(t, sum(network.source_rates(t))) for t in sorted(set(q.types) - {a})]
        scored = regional.estimates(network, a, partners, [], regional.count_ladder(network, a))
        k, cost = min(scored, key=lambda kc: (kc[1], kc[0]))
        _, gathered = centralized_node(network, q.types)  # or all of q's types at one node
        if gathered < cost:
            k, cost = 0, gathered
        if cost > worst["cost"]:
            heavy = max(partners, key=lambda p: (p[1], p[0]))
            worst = {"cost": cost, "query": q.name, "k": k, "partner": heavy[0],
                     "times": total / heavy[1]}  # fmt: skip
    return {"type": a, "share": costs[a] / central.psi, **worst,
            "estimate": worst["cost"] / central.psi}  # fmt: skip


def _thins(query: Query, a: str, rates: dict[str, float], window: float) -> bool:
    """Whether some projection of ``query`` holding ``a`` is rarer than ``a`` itself: then
    a's events can be thinned near their sources first, and the query binds nothing."""
    return any(p.rate < rates[a] for p in all_projections(query, rates, window) if a in p.types)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1000:0.5"], help="NODES:RATIO entries")
    parser.add_argument("--seeds", type=int, default=10, help="Seeds 1..K per size")
    args = parser.parse_args()
    print(
        f"{'nodes':>6} {'ratio':>5} {'seed':>4}  type  share  query partner a/partner    k  estimate"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            nodes, ratio = int(size.split(":")[0]), float(size.split(":")[1])
            estimates = []
            for seed in range(1, args.seeds + 1):
                row = estimate(*instance(nodes, ratio, seed, Path(tmp)))
                estimates.append(row["estimate"])
                print(f"{nodes:>6} {ratio:>5g} {seed:>4}  {row['type']:>4} {row['share']:6.3f}  "
                      f"{row['query']:>5} {row['partner']:>7} {row['times']:9.3g} {row['k']:>4} "
                      f"{row['estimate']:6.3f}", flush=True)  # fmt: skip
            print(f"{nodes:>6} {ratio:>5g} median estimate over {len(estimates)} seeds: "
                  f"{statistics.median(estimates):.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
