"""Benchmark: generating and measuring large event networks.

Prints the median wall time (over ``--repeat`` runs) to generate a network of 10,000 nodes
with 20 event types (the foundation issue's target: < 10 s), to write it as JSON, and to
compute its all-pairs hop matrix, once with our blocked ``scipy.sparse.csgraph`` BFS and
once with networkx's ``all_pairs_shortest_path_length`` on a 2,000-node network (networkx
is too slow for 10,000 nodes: it is timed on the smaller network and both are reported), and,
for the small networks searched in Python, all pairs at the threshold next to the time
scipy's import alone takes.

Run: ``python benchmarks/bench_topologies.py``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

from inev.topologies.generate import generate_network
from inev.topologies.io import load_network, save_network
from inev.topologies.network import PYTHON_BFS_UP_TO


def timed(action, repeat: int) -> tuple[float, object]:
    """Median seconds of ``repeat`` calls of ``action`` and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--event-types", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    for topology in ("degree", "ws"):
        seconds, net = timed(
            lambda topology=topology: generate_network(
                nodes=args.nodes,
                out_degree=3,
                event_types=args.event_types,
                seed=1,
                topology=topology,
            ),
            args.repeat,
        )
        print(
            f"generate {args.nodes} nodes, {args.event_types} types, topology {topology}: "
            f"{seconds:.2f} s (median of {args.repeat}); mean degree {net.summary()['mean_degree']:.2f}"
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "net.json"
        seconds, _ = timed(lambda: save_network(net, path), args.repeat)
        print(f"save as JSON: {seconds:.2f} s ({path.stat().st_size / 1e6:.1f} MB)")
        seconds, _ = timed(lambda: load_network(path), args.repeat)
        print(f"load and validate JSON: {seconds:.2f} s")
    seconds, matrix = timed(lambda: generate_network(nodes=args.nodes, seed=1).hop_matrix, 1)
    print(
        f"all-pairs hops, csgraph BFS, {args.nodes} nodes: {seconds:.2f} s, {matrix.nbytes / 1e6:.0f} MB"
    )
    small = generate_network(nodes=2000, seed=1)
    seconds, _ = timed(lambda: generate_network(nodes=2000, seed=1).hop_matrix, args.repeat)
    print(f"all-pairs hops, csgraph BFS, 2000 nodes: {seconds:.2f} s")
    seconds, _ = timed(lambda: dict(nx.all_pairs_shortest_path_length(small.graph)), 1)
    print(f"all-pairs hops, networkx BFS, 2000 nodes: {seconds:.2f} s")
    size = PYTHON_BFS_UP_TO
    seconds, _ = timed(lambda: generate_network(nodes=size, seed=1).hop_matrix, args.repeat)
    print(f"all-pairs hops, Python BFS (inev plan's small networks), {size} nodes: {seconds:.3f} s")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import scipy.sparse.csgraph"], check=True)
    with_import = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    print(f"importing scipy.sparse.csgraph: {with_import - (time.perf_counter() - started):.3f} s")


if __name__ == "__main__":
    main()
