"""Is ``--time-budget`` honoured? Planning seconds against the budget, per method and instance.

A budget bounds the whole plan (``planner/options.py``): the push-pull baseline first, the
search until the deadline, then writing out the best plan; with ``--method exact`` the
incumbent takes half and the exact search the rest. Below the time of the baselines and one
pass of Alg. 1 the plan takes that time, which the "floor" column shows (the plan at budget
1 ms). Each row: the instance, the method, the budget, ``planning_seconds`` of the plan (wall
time: a budget is a wall-clock promise) and its ratio to the budget.

Run: ``python benchmarks/bench_time_budget.py [--budgets 1 3 6]``.
"""

from __future__ import annotations

import argparse
import time

from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Workload

INSTANCES = {
    # nodes, event types, queries, length, effort, method
    "200 nodes, 8 queries x 6, effort 5": (200, 8, 8, 6, 5.0, "inev"),
    "50 nodes, 10 queries x 5, effort 10": (50, 10, 10, 5, 10.0, "inev"),
    "12 nodes, 2 queries x 4, exact": (12, 5, 2, 4, 1.0, "exact"),
}


def instance(nodes: int, types: int, queries: int, length: int) -> tuple[Network, Workload]:
    """A generated network and workload (seed 3 and 2)."""
    net = generate_network(nodes=nodes, event_types=types, seed=3)
    wl = generate_workload(net, queries=queries, length=length, seed=2)
    return net, wl


def main() -> None:
    """Print one row per instance and budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[1.0, 3.0, 6.0])
    args = parser.parse_args()
    print(f"{'instance':<38} {'method':>6} {'budget':>7} {'seconds':>8} {'ratio':>6} {'floor':>6}")
    for name, (nodes, types, queries, length, effort, method) in INSTANCES.items():
        net, wl = instance(nodes, types, queries, length)
        floor = plan_workload(net, wl, method, PlanOptions(effort=effort, time_budget=1e-3))
        for budget in args.budgets:
            start = time.perf_counter()
            plan = plan_workload(net, wl, method, PlanOptions(effort=effort, time_budget=budget))
            wall = time.perf_counter() - start
            print(
                f"{name:<38} {method:>6} {budget:>7g} {plan.planning_seconds:>8.2f} "
                f"{plan.planning_seconds / budget:>6.2f} {floor.planning_seconds:>6.2f}"
                + ("" if wall < 2 * budget + floor.planning_seconds else "  (slow start)")
            )


if __name__ == "__main__":
    main()
