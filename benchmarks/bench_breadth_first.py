"""Benchmark: hop rows by levels against pointer doubling, and directed against undirected
searches, on one generated network (CPU milliseconds per row, ratios in one run).

``inev.topologies.breadth_first.hop_rows`` turns scipy's breadth-first visiting order into hop
counts level by level, and searches the symmetric adjacency as a directed graph. This script
times it beside the way it was computed before (``directed=False``, which adds the transpose
on every search, then pointer doubling over the predecessor tree), checks that the rows are
equal, and times the multi-source Dijkstra of ``planner.steiner.mehlhorn`` both ways.

Run: ``python benchmarks/bench_breadth_first.py [--nodes 100000] [--rows 64] [--seed 1]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from scipy.sparse.csgraph import breadth_first_order, dijkstra

from inev.topologies.breadth_first import hop_rows
from inev.topologies.generate import generate_network


def doubled_rows(adjacency: Any, roots: list[int]) -> np.ndarray:
    """The rows as computed before: an undirected search, then pointer doubling."""
    n = adjacency.shape[0]
    out = np.empty((len(roots), n))
    everyone = np.arange(n)
    for i, root in enumerate(roots):
        order, pred = breadth_first_order(adjacency, root, directed=False, return_predecessors=True)
        linked = pred >= 0
        jump = np.where(linked, pred, everyone)
        depth = linked.astype(np.int64)
        while True:
            up = jump[jump]
            if np.array_equal(up, jump):
                break
            depth += depth[jump]
            jump = up
        row = np.full(n, np.inf)
        row[order] = depth[order]
        out[i] = row
    return out


def cpu_ms(function, count: int) -> float:
    """CPU milliseconds per item of one call of ``function``."""
    start = time.process_time()
    function()
    return (time.process_time() - start) / count * 1e3


def main() -> None:
    """Time both ways and print the figures (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    net = generate_network(nodes=args.nodes, seed=args.seed)
    adjacency = net._adjacency
    rng = np.random.default_rng(args.seed)
    roots = rng.choice(adjacency.shape[0], args.rows, replace=False).tolist()
    found = {}
    before = cpu_ms(lambda: found.setdefault("before", doubled_rows(adjacency, roots)), len(roots))
    after = cpu_ms(lambda: found.setdefault("after", hop_rows(adjacency, roots)), len(roots))
    equal = np.array_equal(found["before"], found["after"])
    print(f"network: {args.nodes} nodes, {len(net.links)} links; {len(roots)} rows")
    print(f"hop rows: before {before:.2f} ms/row, now {after:.2f} ms/row, "
          f"ratio {after / before:.3f}, equal={equal}")  # fmt: skip
    sets = [sorted(rng.choice(adjacency.shape[0], k, replace=False).tolist()) for k in (8, 32)]
    times = {}
    for directed in (False, True):
        times[directed] = cpu_ms(
            lambda d=directed: [
                dijkstra(adjacency, directed=d, unweighted=True, indices=s, min_only=True,
                         return_predecessors=True)
                for s in sets * 8
            ],
            len(sets) * 8,
        )  # fmt: skip
    print(f"multi-source dijkstra: undirected {times[False]:.2f} ms, directed {times[True]:.2f} "
          f"ms, ratio {times[True] / times[False]:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
