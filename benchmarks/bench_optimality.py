"""How far are inev's plans from the best INEv graph? Run: python benchmarks/bench_optimality.py

Plans a grid of small instances (6-12 nodes, 4-6 event types, skew 1.1-2.0, node ratio
0.3-0.8, selectivity 0.01-0.5, 1-4 queries of 2-4 types, Kleene and negation operators in
about a third of them; instance k's parameters are drawn from k, so it is the same in every
run) with ``inev`` (at ``--effort``) and with ``--method exact``, and prints:

* the distribution of ψ_inev / ψ_exact (median, share within 5 %, worst), for inev as it
  plans (its search ending with the exact search's budget, ``--exact-steps`` of ``inev plan``)
  and for its search alone (``exact_steps=0``), and how often inev's plan says it is optimal;
* that the exact plan is never above inev's or the centralized plan;
* the exact method's time per instance size;
* the two yardsticks against the optimum: the provable lower bound (ψ_exact / bound) and
  the paper's §7.2 approximation (approximation / ψ_exact: above 1 means the approximation
  claims more than any plan can reach).

An instance the exact method refuses (its search budget, see :mod:`inev.planner.exact`) is
counted and listed, not hidden. Options: ``--instances N`` (default 240), ``--jobs J``
(processes), ``--effort E``, ``--worst N``, ``--out FILE`` (one JSON line per instance),
``--budget STEPS`` (the exact search's step budget, :data:`inev.planner.exact_search.BUDGET`
unless given: a smaller one refuses more instances, each refusal listed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import math
import statistics
import time
from dataclasses import asdict, dataclass

import numpy as np
from bench_plan_quality import grid_network

from inev.common.errors import InevError
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.workloads.generate import generate_workload


@dataclass(frozen=True)
class Instance:
    """The generator parameters of one instance."""

    index: int
    nodes: int
    types: int
    skew: float
    node_ratio: float
    queries: int
    length: int
    kleene: int
    negation: int
    selectivity: float

    def label(self) -> str:
        """A short description for the tables."""
        ops = "".join(s for s, n in (("K", self.kleene), ("N", self.negation)) if n)
        return (
            f"#{self.index} n={self.nodes} skew={self.skew} ratio={self.node_ratio} "
            f"{self.queries}x{self.length}{ops} sel={self.selectivity}"
        )

    def build(self):
        """The network and workload (seeded by the index)."""
        net = grid_network(self)
        wl = generate_workload(
            net,
            queries=self.queries,
            length=self.length,
            kleene=self.kleene,
            negation=self.negation,
            selectivity=self.selectivity,
            seed=self.index,
        )
        return net, wl


def instance(index: int) -> Instance:
    """Instance ``index`` of the grid (parameters drawn from ``default_rng(index)``)."""
    rng = np.random.default_rng([0x0E7AC7, index])
    queries = int(rng.choice([1, 1, 2, 2, 3, 4]))
    length = int(rng.choice([3, 4] if queries == 1 else [2, 3]))
    return Instance(
        index=index,
        nodes=int(rng.choice([6, 8, 10, 12])),
        types=max(length, int(rng.choice([4, 5, 6]))),
        skew=float(rng.choice([1.1, 1.3, 1.6, 2.0])),
        node_ratio=float(rng.choice([0.3, 0.5, 0.8])),
        queries=queries,
        length=length,
        kleene=int(rng.random() < 0.3),
        negation=int(length >= 3 and rng.random() < 0.3),
        selectivity=float(rng.choice([0.01, 0.1, 0.5])),
    )


def run(args: tuple[int, float]) -> dict:
    """Plan one instance with inev and exactly (a dict of figures)."""
    index, effort = args
    inst = instance(index)
    net, wl = inst.build()
    start = time.perf_counter()
    inev = plan_workload(net, wl, "inev", PlanOptions(effort=effort))
    inev_s = time.perf_counter() - start
    search = plan_workload(net, wl, "inev", PlanOptions(effort=effort, exact_steps=0))
    row = {
        "instance": asdict(inst),
        "label": inst.label(),
        "inev": inev.psi,
        "inev_s": inev_s,
        "inev_kept": inev.kept,
        "inev_proved": any(n.startswith("optimal: ") for n in inev.notes),
        "search": search.psi,
        "search_s": search.planning_seconds,
        "centralized": inev.centralized_cost,
        "lower_bound": inev.lower_bound,
        "approximate": inev.approximate_bound,
    }
    start = time.perf_counter()
    try:
        exact = plan_workload(net, wl, "exact")
    except InevError as exc:
        row["refused"] = str(exc)
        row["exact_s"] = time.perf_counter() - start
        return row
    row.update(exact=exact.psi, exact_s=time.perf_counter() - start, kept=exact.kept)
    return row


def _cap(budget: int | None) -> None:
    """Give the exact method ``budget`` search steps (in this worker process)."""
    if budget is not None:
        from inev.planner import exact, exact_search

        exact.least_cost_design = functools.partial(exact_search.least_cost_design, budget=budget)


def _share(values: list[float], test) -> str:
    hit = sum(1 for v in values if test(v))
    return f"{hit}/{len(values)} ({hit / max(len(values), 1):.1%})"


def summarise(rows: list[dict], worst: int) -> None:
    """Print the figures of the module docstring."""
    solved = [r for r in rows if "exact" in r]
    refused = [r for r in rows if "refused" in r]
    print(f"instances: {len(rows)}, solved exactly: {len(solved)}, refused: {len(refused)}")
    for r in refused:
        print(f"  refused {r['label']}: {r['refused']} ({r['exact_s']:.0f} s)")
    alone = [r["search"] / r["exact"] if r["exact"] > 0 else 1.0 for r in solved]
    print("\npsi of inev's search alone (no exact search at its end) / psi_exact")
    print(f"  median {statistics.median(alone):.4f}, <= 1.05: {_share(alone, lambda v: v <= 1.05)}")
    print(f"  == 1 (within 1e-9): {_share(alone, lambda v: v <= 1 + 1e-9)}, worst {max(alone):.4f}")
    proved = [r for r in rows if r.get("inev_proved")]
    found = [r for r in rows if r.get("inev_kept") == "exact"]
    times = [r["inev_s"] - r["search_s"] for r in rows]
    print(
        f"inev's plan says it is optimal (proved by the exact search it ends with) on "
        f"{len(proved)} of {len(rows)}; the exact search kept a cheaper design on {len(found)}; "
        f"its time: median {statistics.median(times) * 1e3:.0f} ms, max {max(times) * 1e3:.0f} ms"
    )
    ratio = [r["inev"] / r["exact"] if r["exact"] > 0 else 1.0 for r in solved]
    print("\npsi_inev / psi_exact (inev as it plans)")
    print(f"  median {statistics.median(ratio):.4f}, mean {statistics.fmean(ratio):.4f}")
    print(f"  == 1 (within 1e-9): {_share(ratio, lambda v: v <= 1 + 1e-9)}")
    print(f"  <= 1.05: {_share(ratio, lambda v: v <= 1.05)}")
    print(f"  <= 1.25: {_share(ratio, lambda v: v <= 1.25)}")
    order = sorted(zip(ratio, solved, strict=True), key=lambda t: -t[0])
    print(f"  worst {order[0][0]:.4f}; the {worst} worst:")
    for value, r in order[:worst]:
        print(f"    {value:.4f} {r['label']} (exact kept {r['kept']})")
    above = [r for r in solved if r["exact"] > min(r["inev"], r["centralized"]) * (1 + 1e-9)]
    print(f"\nexact above inev or centralized: {len(above)} of {len(solved)}")
    kept: dict[str, int] = {}
    for r in solved:
        kept[r["kept"]] = kept.get(r["kept"], 0) + 1
    print(f"exact plan kept: {kept}")
    print("\nexact method's time (s, inev's search included), by nodes and queries x length")
    groups: dict[tuple, list[float]] = {}
    for r in rows:
        i = r["instance"]
        groups.setdefault((i["nodes"], f"{i['queries']}x{i['length']}"), []).append(r["exact_s"])
    for (nodes, shape), times in sorted(groups.items()):
        print(
            f"  {nodes:>2} nodes {shape}: {len(times):>3} instances, "
            f"median {statistics.median(times):.2f}, max {max(times):.2f}"
        )
    all_times = [r["exact_s"] for r in rows]
    print(f"  all: median {statistics.median(all_times):.2f}, max {max(all_times):.2f}")
    print("\nyardsticks against the optimum")
    lb = [r["exact"] / r["lower_bound"] for r in solved if r["lower_bound"] > 0]
    print(
        f"  psi_exact / provable lower bound: median {statistics.median(lb):.3g}, "
        f"min {min(lb):.3g}, max {max(lb):.3g} ({len(lb)} with a positive bound); "
        f"below 1: {_share(lb, lambda v: v < 1 - 1e-9)}"
    )
    approx = [r["approximate"] / r["exact"] for r in solved if r["exact"] > 0]
    print(
        f"  §7.2 approximation / psi_exact: median {statistics.median(approx):.3g}, "
        f"min {min(approx):.3g}, max {max(approx):.3g}; above the optimum (not a bound): "
        f"{_share(approx, lambda v: v > 1 + 1e-9)}"
    )
    for name, values in (("lower bound", [1 / v for v in lb]), ("approximation", approx)):
        logs = [abs(math.log(v)) for v in values if v > 0]
        zero = len(values) - len(logs)
        print(
            f"  {name}: mean |log(yardstick / optimum)| {statistics.fmean(logs):.3g}"
            + (f" ({zero} at 0 left out)" if zero else "")
        )


def main() -> None:
    """Run the grid and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=240)
    parser.add_argument("--only", type=int, nargs="*")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--effort", type=float, default=1.0)
    parser.add_argument("--worst", type=int, default=8)
    parser.add_argument("--out", default=None)
    parser.add_argument("--budget", type=int, default=None)
    args = parser.parse_args()
    indices = args.only if args.only else list(range(args.instances))
    rows: list[dict] = []
    started = time.perf_counter()
    work = [(i, args.effort) for i in indices]
    with concurrent.futures.ProcessPoolExecutor(
        args.jobs, initializer=_cap, initargs=(args.budget,)
    ) as pool:
        for n, row in enumerate(pool.map(run, work), 1):
            rows.append(row)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")
            if n % 20 == 0:
                print(f"  {n}/{len(work)} in {time.perf_counter() - started:.0f} s", flush=True)
    summarise(rows, args.worst)
    print(f"\nwall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
