"""The centralized node on large networks: the best *site* against the exact best node.

Above :data:`inev.topologies.network.DENSE_UP_TO` nodes the planner gathers the centralized
plan at the best of a few dozen candidate sites (:mod:`inev.planner.sites`), not at the best
of all nodes. This script measures what that costs: for each size ``NODES:RATIO`` (networks
as ``bench_planner_scale.py`` makes them: 20 types, skew 1.3, out-degree 3) it computes the
exact gathering cost Σ_n W(n) · hops(n, m) of every node m (W(n): the summed rates of the
types at n; one unweighted search per node, in chunks, with scipy) and prints

    nodes ratio seed  site_cost  exact_min  site/exact  exact_s

Run: ``python benchmarks/bench_centralized_node.py --sizes 5000:0.5 10000:0.05 --seeds 3``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.sparse.csgraph import shortest_path

from inev.planner.baselines import centralized_node
from inev.topologies.generate import generate_network
from inev.topologies.network import Network


def exact_gather_costs(network: Network, chunk: int = 256) -> np.ndarray:
    """Per node m (network order): Σ_n W(n) · hops(n, m) over every node n."""
    index = network.node_index
    weights = np.zeros(len(network.nodes))
    for name in network.event_types:
        for n, r in zip(network.sources(name), network.source_rates(name), strict=True):
            weights[index[n]] += r
    matrix = network._adjacency  # the CSR adjacency the network searches with
    costs = np.empty(len(network.nodes))
    for start in range(0, len(network.nodes), chunk):
        rows = np.arange(start, min(start + chunk, len(network.nodes)))
        hops = shortest_path(matrix, directed=False, unweighted=True, indices=rows)
        costs[rows] = hops @ weights
    return costs


def main() -> None:
    """Print one line per size and seed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["5000:0.5", "10000:0.05", "10000:0.5"])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'nodes':>7} {'ratio':>5} {'seed':>4} {'site_cost':>12} {'exact_min':>12} "
          f"{'site/exact':>10} {'exact_s':>8}", flush=True)  # fmt: skip
    for size in args.sizes:
        nodes, ratio = size.split(":")
        for seed in range(1, args.seeds + 1):
            net = generate_network(
                nodes=int(nodes), out_degree=3, event_types=20, skew=1.3,
                node_ratio=float(ratio), seed=seed,
            )  # fmt: skip
            _, site_cost = centralized_node(net, list(net.event_types))
            start = time.perf_counter()
            exact = float(exact_gather_costs(net).min())
            seconds = time.perf_counter() - start
            print(
                f"{nodes:>7} {float(ratio):>5g} {seed:>4} {site_cost:>12.6g} {exact:>12.6g} "
                f"{site_cost / exact:>10.6f} {seconds:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
