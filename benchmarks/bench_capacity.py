"""Benchmark: node capacity in the network simulator (a FIFO server per node, pSPICE shedding); prints figures, asserts nothing.

Part 1, cost of the capacity path: one generated instance (20 nodes, skew 3, one query of 4
types, predicates at 0.5, rates rescaled to ``--rate`` events per time unit over the
workload's types) is simulated for five times ``--duration`` time units with the INEv plan: without a
capacity, with ``--capacity auto:1`` (queues, no bound: one unlimited reference run plus the
capacity run), and with ``auto:1/1.5``, latency bound ``--bound`` and each shedding strategy.
Wall seconds per simulated event of the workload's types.

Part 2, quality over instances: for seeds 0 … ``--seeds``-1 and overload 1.2 … 1.8 the
median weighted false-negative share, the total false positives and the total latency-bound
violations per strategy (the same runs as the ``overload`` sweep preset, here without Spark).

Run: ``python benchmarks/bench_capacity.py [--rate 50] [--duration 20] [--seeds 6]``
"""

from __future__ import annotations

import argparse
import statistics
import time

from inev.experiments.measure import task_inputs
from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.planning import plan_workload
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.run import simulate
from inev.simulator.sources import rescale_rates

STRATEGIES = ["none", "pspice", "random-pm", "random-event", "type-utility"]
LOADS = [1.2, 1.4, 1.6, 1.8]


def instance(seed: int, rate: float, nodes: int):
    """Network (rescaled), workload and INEv plan of one seed."""
    config = TaskConfig(nodes=nodes, skew=3.0, length=4, selectivity=0.5)
    network, workload = task_inputs(config, seed)
    network = rescale_rates(network, workload.types, rate)
    return network, workload, plan_workload(network, workload, "inev")


def main() -> None:
    """Print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--bound", type=float, default=0.5)
    parser.add_argument("--seeds", type=int, default=6)
    args = parser.parse_args()

    network, workload, plan = instance(1, args.rate, 20)
    long = 5 * args.duration
    print(f"part 1: {workload.queries[0].pattern}, 20 nodes, {long:g} time units")
    runs = [("no capacity", None), ("auto:1, no bound", CapacityOptions({"*": ("auto", 1.0)}))]
    for strategy in STRATEGIES:
        runs.append(
            (
                f"auto:1/1.5, {strategy}",
                CapacityOptions(
                    parse_node_capacities([f"auto:{1 / 1.5}"]),
                    latency_bound=args.bound,
                    shed=strategy,
                ),
            )
        )
    print(f"{'run':<26} {'events':>7} {'wall s':>8} {'µs/event':>9} {'FN share':>9}")
    for label, capacity in runs:
        start = time.perf_counter()
        result = simulate(network, workload, plan, duration=long, seed=1, capacity=capacity)
        wall = time.perf_counter() - start
        share = result.shedding["false_negative_share"] if result.shedding else 0.0
        print(
            f"{label:<26} {result.events:>7} {wall:>8.3f} "
            f"{wall / max(result.events, 1) * 1e6:>9.1f} {share:>9.3f}"
        )

    print(f"\npart 2: seeds 0..{args.seeds - 1}, 8 nodes, bound {args.bound}, INEv plans")
    print(f"{'load':>5} {'strategy':<13} {'FN share (median)':>18} {'FP':>5} {'violations':>11}")
    cases = [instance(seed, args.rate, 8) for seed in range(args.seeds)]
    for load in LOADS:
        for strategy in STRATEGIES:
            shares, fp, violations = [], 0, 0
            for seed, (net, wl, p) in enumerate(cases):
                options = CapacityOptions(
                    parse_node_capacities([f"auto:{1 / load}"]),
                    latency_bound=args.bound,
                    shed=strategy,
                    seed=seed,
                )
                s = simulate(
                    net, wl, p, duration=args.duration, seed=seed, capacity=options
                ).shedding
                shares.append(s["false_negative_share"])
                fp += s["false_positives"]
                violations += s["bound_violations"]
            print(
                f"{load:>5.1f} {strategy:<13} {statistics.median(shares):>18.3f} "
                f"{fp:>5} {violations:>11}"
            )


if __name__ == "__main__":
    main()
