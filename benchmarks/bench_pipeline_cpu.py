"""Benchmark: CPU seconds of ``simulate`` alone on bench_simulator's instances, for A/B ratios.

``benchmarks/bench_simulator.py`` prints rates per wall second of a whole run; to compare two
checkouts within a few per cent on a shared machine, this prints only the process CPU time
(``time.process_time``) spent inside :func:`inev.simulator.run.simulate`, the median of
``--repeat`` runs per instance (planning, the trace draw and the imports excluded). Run it
for two checkouts in turn, A B A B, and compare the medians.

Run: ``python benchmarks/bench_pipeline_cpu.py [--events 30000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time

from inev.planner.planning import plan_workload
from inev.simulator.run import simulate
from inev.simulator.sources import poisson_trace
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload


def main() -> None:
    """Print one line per instance: nodes, events, median CPU seconds of simulate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--duration", type=float, default=100.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for nodes in (20, 200):
        net = generate_network(nodes=nodes, event_types=6, skew=1.9, node_ratio=0.5, seed=1)
        wl = generate_workload(net, queries=1, length=3, selectivity=0.01, window=0.2, seed=1)
        total = sum(net.global_rate(t) for t in wl.types) * args.duration
        net = net.with_rates({t: net.rate(t) * args.events / total for t in net.types})
        plan = plan_workload(net, wl)
        trace = poisson_trace(net, args.duration, 1, types=wl.types)
        seconds = []
        for _ in range(args.repeat):
            start = time.process_time()
            result = simulate(net, wl, plan, duration=args.duration, trace=trace)
            seconds.append(time.process_time() - start)
        print(f"{nodes} nodes {result.events} events: {statistics.median(seconds):.4f} cpu s")


if __name__ == "__main__":
    main()
