"""Incremental repair against re-planning (issue 44 item 3).
Run: python benchmarks/bench_incremental_repair.py [--seeds N] [--first-seed N] [--networks N] [--full] [--only TEXT]

Two families of cases, each repaired with :func:`inev.planner.repair.repair_plan` (which
re-plans and repairs incrementally in the same process, CPU time of each in
``RepairResult.seconds``):

* **rate swaps**, Fig. 9b and 9d-like: the presets' workloads (20 event types, selectivity
  0.1 and 0.001, rates swapped from the middle of the rate order,
  :func:`inev.experiments.dynamics.dynamic_changes` with ``swap_from = "middle"``) at every
  swap share 0.1 … 1.0, ``--seeds`` seeds each; by default with 5 queries of 4 types so
  that the run takes minutes (the presets' 15 queries of 5 types take about a minute a
  re-plan here: ``--full``);
* **failures**: every single link failure that keeps the network connected and every
  single node failure that keeps it connected with a source of every type, on
  ``--networks`` generated networks of 20 to 50 nodes (3 queries of 4 types over 6 types).

Printed per family and in all: the cases, the share where the incremental repair's ψ is
within 5 % of the re-plan's, the cases where it costs more than §6.6's local repair (the
repair promises none), the median CPU-time ratio incremental / re-plan (both in this run),
and the median migration (projections moved, partial matches shipped: the model's
estimate, :func:`inev.planner.repair_search.migration_cost`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from inev.common.errors import InevError
from inev.experiments.dynamics import dynamic_changes
from inev.experiments.measure import plan_options, task_inputs
from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.changes import apply_changes
from inev.planner.checks import check_fits
from inev.planner.planning import plan_workload
from inev.planner.repair import repair_plan
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload

WITHIN = 1.05
SHARES = [round(0.1 * k, 1) for k in range(1, 11)]
SIZES = (20, 30, 50)


def swap_cases(
    seeds: int, full: bool, first: int = 0
) -> Iterator[tuple[str, Any, Any, Any, list, Any]]:
    """(family, network, workload, plan, changes, options) of the rate-swap cases, seeds
    ``first`` to ``first + seeds - 1``."""
    for name, selectivity in (("fig9b", 0.1), ("fig9d", 0.001)):
        config = TaskConfig(event_types=20, selectivity=selectivity, swap_from="middle",
                            queries=15 if full else 5, length=5 if full else 4)  # fmt: skip
        options = plan_options(config)
        for seed in range(first, first + seeds):
            net, wl = task_inputs(config, seed)
            plan = plan_workload(net, wl, options=options)
            for share in SHARES:
                changes = dynamic_changes(net, replace(config, rate_swap=share), seed)
                if changes:
                    yield f"{name}-like", net, wl, plan, changes, options


def failure_cases(networks: int) -> Iterator[tuple[str, Any, Any, Any, list, Any]]:
    """(family, network, workload, plan, changes, options) of the single failures."""
    for k in range(networks):
        nodes = SIZES[k % len(SIZES)]
        net = generate_network(nodes=nodes, event_types=6, seed=100 + k)
        wl = generate_workload(net, queries=3, length=4, seed=100 + k)
        plan = plan_workload(net, wl)
        failures = [{"kind": "link-down", "link": [u, v]} for u, v, _ in net.links]
        failures += [{"kind": "node-down", "node": n} for n in net.nodes]
        for change in failures:
            try:
                apply_changes(net, [change])
            except InevError:  # disconnects the network or loses a type's last source
                continue
            yield f"{change['kind']} ({nodes} nodes)", net, wl, plan, [change], None


def run(
    cases: Iterator[tuple[str, Any, Any, Any, list, Any]], rows_to: str | None = None
) -> list[dict[str, Any]]:
    """One row per case: ψ of each plan, CPU seconds, migration (each also appended to the
    JSON-lines file ``rows_to`` as it is made, so a run cut short leaves its rows)."""
    rows = []
    for family, net, wl, plan, changes, options in cases:
        result = repair_plan(plan, net, wl, changes, options)
        assert result.incremental is not None and result.local is not None
        try:  # written on the changed network: its links and sources, every query's sink
            check_fits(result.incremental, result.network.with_streams(wl.or_free.streams))
            present = {v.projection for v in result.incremental.vertices}
            valid = all(key in present for key in result.incremental.sinks.values())
        except InevError:
            valid = False
        rows.append(
            {
                "family": family,
                "local": result.local.psi,
                "repaired": result.repaired.psi,
                "incremental": result.incremental.psi,
                "replanned": result.replanned.psi,
                "ratio": result.seconds["incremental"] / max(result.seconds["replanned"], 1e-9),
                "valid": valid,
                **result.migration,
            }
        )
        if rows_to:
            with open(rows_to, "a", encoding="utf-8") as out:
                out.write(json.dumps({**rows[-1], "changes": changes}) + "\n")
    return rows


def report(label: str, rows: list[dict[str, Any]]) -> str:
    """One line of figures over ``rows``."""
    if not rows:
        return f"{label}: no cases"
    within = sum(r["incremental"] <= WITHIN * r["replanned"] + 1e-9 for r in rows)
    above = sum(r["incremental"] > r["local"] * (1 + 1e-9) + 1e-9 for r in rows)
    below = sum(r["incremental"] < r["replanned"] * (1 - 1e-9) for r in rows)
    ratio = statistics.median(r["ratio"] for r in rows)
    invalid = sum(not r["valid"] for r in rows)
    moved = statistics.median(r["projections_moved"] for r in rows)
    shipped = statistics.median(r["partial_matches_shipped"] for r in rows)
    return (
        f"{label}: {len(rows)} cases, within 5 % of the re-plan {within / len(rows):.1%} "
        f"({within}), below the re-plan {below}, above the local repair {above}, invalid {invalid}, "
        f"median CPU time incremental/re-plan {ratio:.3f}, median projections moved "
        f"{moved:g}, median partial matches shipped {shipped:.4g}"
    )


def main() -> None:
    """Run both families and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds of each rate-swap preset")
    parser.add_argument("--first-seed", type=int, default=0, help="the rate swaps' first seed")
    parser.add_argument("--networks", type=int, default=3, help="networks of 20-50 nodes")
    parser.add_argument("--full", action="store_true", help="the presets' 15 queries of 5 types")
    parser.add_argument("--only", default="", help="the families whose name holds this text")
    parser.add_argument("--rows", help="append each case's row to this JSON-lines file")
    parser.add_argument("--report", help="only report the rows of this JSON-lines file")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.report:
        with open(args.report, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
    else:
        cases = itertools.chain(
            swap_cases(args.seeds, args.full, args.first_seed), failure_cases(args.networks)
        )
        rows = run((case for case in cases if args.only in case[0]), args.rows)
    for family in dict.fromkeys(r["family"] for r in rows):
        print(report(family, [r for r in rows if r["family"] == family]))
    print(report("rate swaps", [r for r in rows if r["family"].startswith("fig")]))
    print(report("failures", [r for r in rows if not r["family"].startswith("fig")]))
    print(report("all", rows))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
