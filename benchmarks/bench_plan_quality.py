"""Plan quality against the INEv authors' planner. Run: python benchmarks/bench_plan_quality.py

Plans a grid of generated instances (skew 1.1-1.9, node ratio 0.2-1.0, query length 4-7,
1-10 queries, selectivity 0.1 and 0.01, 20-50 nodes; each instance's parameters are drawn
from its index, so instance k is the same in every run) with inev and, where ``INEV_REF_GIT``
(or ``--ref-git``) points at a samieze/INEv snapshot, with the reference through
``../shared/reference/run_reference.py``. Prints the share of instances where inev's
transmission ratio is <= the reference's, strictly lower, the geometric mean and the worst of
inev / reference, and ψ over inev's provable lower bound.

Each ratio is under its own planner's model (the reference draws its own single
selectivities), as the reference harness's README explains. To tell the planners' searches
apart from their models, the benchmark also takes the reference's own combination (its
projections, their inputs and multi-node partitioning types, read from the reference's
pickles) and places and costs it with inev's Alg. 2 and cost model: "same model" below
compares inev's ψ with that. Reference results are cached in ``--cache`` (default
``~/.cache/inev/reference.jsonl``), keyed by the instance files, so a re-run after a planner
change costs only inev's planning.

Options: ``--instances N`` (default 200), ``--only K [K ...]``, ``--jobs J`` reference
processes at once, ``--timeout S`` per reference run, ``--worst N`` rows of the worst list,
``--effort`` passed to the planner. ``--regional-gain`` also plans every instance without
regional placements (``--no-regional``, the paper's placements only: issue 28) and prints on
how many instances the regional placements made the plan cheaper, left it equal, or made it
costlier (which the planner must never do). ``--nodes N [N ...]`` draws each instance's
size from these instead of 20-50 (e.g. ``--nodes 100 200``, the upper end of the paper's).
``--kick-gain`` likewise plans every instance without the rate kicks (``--no-kicks``,
:func:`inev.planner.last_passes._kicks`) and prints what they gained and what they cost in time;
``--chain-gain`` the same for the rate-ordered chains (``--no-chains``,
:mod:`inev.planner.rate_chains`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from inev.common.errors import InevError
from inev.planner.external import combination_cost, shares_by_type_set
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.topologies.io import network_to_dict
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.io import workload_to_dict

HERE = Path(__file__).resolve().parent
_HARNESS_PATH = Path("shared", "reference", "run_reference.py")
# the shared folder beside the checkout (/work/main) or above it (a worktree, /work/wt/iN)
HARNESS = next(
    (p / _HARNESS_PATH for p in HERE.parents if (p / _HARNESS_PATH).is_file()),
    HERE.parent.parent / _HARNESS_PATH,
)


def grid_network(p) -> Network:
    """The network of a grid instance ``p`` (its ``nodes``, ``types``, ``skew``,
    ``node_ratio``; seeded by its ``index``): the benchmarks of plan quality share it."""
    return generate_network(
        nodes=p.nodes,
        out_degree=3,
        event_types=p.types,
        skew=p.skew,
        node_ratio=p.node_ratio,
        seed=p.index,
    )


@dataclass(frozen=True)
class Instance:
    """The generator parameters of one benchmark instance."""

    index: int
    nodes: int
    skew: float
    node_ratio: float
    types: int
    length: int
    queries: int
    selectivity: float

    def label(self) -> str:
        """A short description for the tables."""
        return (
            f"#{self.index} n={self.nodes} skew={self.skew} ratio={self.node_ratio} "
            f"types={self.types} {self.queries}x{self.length} sel={self.selectivity}"
        )

    low_rates: bool = False
    """Every type at every node, rates scaled so that the largest is 0.5 per time unit."""

    def build(self):
        """The network and workload of the instance (seeded by its index)."""
        net = grid_network(self)
        if self.low_rates:
            top = max(net.rate(t) for t in net.types)
            net = net.with_rates({t: net.rate(t) * 0.5 / top for t in net.types})
        wl = generate_workload(
            net,
            queries=self.queries,
            length=self.length,
            selectivity=self.selectivity,
            seed=self.index,
        )
        return net, wl


def instance(index: int, sizes: tuple[int, ...] = (20, 30, 40, 50)) -> Instance:
    """Instance ``index`` of the grid: its parameters drawn from ``default_rng(index)``
    (its node count from ``sizes``)."""
    rng = np.random.default_rng([0xBE7C4, index])
    queries = int(rng.choice([1, 1, 2, 3, 5, 10]))
    # the reference's combination generator takes > 12 minutes on 10 queries of 7 types:
    # the largest workloads get the shorter queries
    length = int(rng.choice({10: [4, 5], 5: [4, 5, 6]}.get(queries, [4, 5, 6, 7])))
    return Instance(
        index=index,
        nodes=int(rng.choice(list(sizes))),
        skew=float(rng.choice([1.1, 1.3, 1.5, 1.7, 1.9])),
        node_ratio=float(rng.choice([0.2, 0.4, 0.6, 0.8, 1.0])),
        types=length + int(rng.integers(0, 4)),
        length=length,
        queries=queries,
        selectivity=float(rng.choice([0.1, 0.01])),
    )


def low_rate_instance(index: int) -> Instance:
    """Instance ``index`` of the low-rate family: every type generated at every node, rates
    below one per time unit (the shape of the INEv case study's recorded traces)."""
    rng = np.random.default_rng([0x10E, index])
    queries = int(rng.choice([1, 1, 2, 4]))
    length = int(rng.choice([4, 5, 6]))
    return Instance(
        index=index,
        nodes=20,
        skew=float(rng.choice([1.1, 1.3, 1.5, 1.9])),
        node_ratio=1.0,
        types=length + int(rng.integers(0, 4)),
        length=length,
        queries=queries,
        selectivity=float(rng.choice([0.1, 0.01])),
        low_rates=True,
    )


def _key(net_doc: dict, wl_doc: dict, extra: str) -> str:
    text = json.dumps([net_doc, wl_doc, extra], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _load_cache(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                out[row["key"]] = row["result"]
    return out


EXTRACT = """import json, pickle
with open('curcombi', 'rb') as f:
    combi = pickle.load(f)
with open('EvaluationPlan', 'rb') as f:
    _, _, placements = pickle.load(f)
print(json.dumps({str(p): {"inputs": [str(i) for i in ins],
                           "partition": (placements.get(p) or [None])[0]}
                  for p, ins in combi.items()}))
"""


def _extract_combination(scratch: str) -> dict | None:
    """The reference's combination from its pickles (run inside its scratch copy)."""
    code = os.path.join(scratch, "INEv", "code")
    env = dict(
        os.environ,
        PYTHONPATH=os.path.join(scratch, "_site") + os.pathsep + code,
        PYTHONHASHSEED="0",
        INEV_REF_SEED="0",
    )
    done = subprocess.run(
        [sys.executable, "-c", EXTRACT], cwd=code, env=env, capture_output=True, text=True
    )
    return json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else None


def run_reference(net_doc: dict, wl_doc: dict, ref_git: str, timeout: float) -> dict:
    """One reference run through the harness (a dict with ``ratio`` or ``error``), with the
    reference's combination under ``combination`` when it could be read."""
    with tempfile.TemporaryDirectory(prefix="inev-bench-") as tmp:
        net_path, wl_path = Path(tmp, "net.json"), Path(tmp, "wl.json")
        net_path.write_text(json.dumps(net_doc))
        wl_path.write_text(json.dumps(wl_doc))
        cmd = [
            sys.executable,
            str(HARNESS),
            "--ref-git",
            ref_git,
            "--timeout",
            str(timeout),
            "--keep",
            str(net_path),
            str(wl_path),
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return {"error": "timeout"}
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        result = json.loads(lines[-1]) if lines else {"error": done.stderr.strip()[-300:]}
        scratch = result.pop("scratch", None)
        if scratch:
            result["combination"] = _extract_combination(scratch)
            shutil.rmtree(scratch, ignore_errors=True)
        return result


def reference_design_psi(net, wl, combination: dict) -> float | None:
    """ψ of the reference's combination, placed and costed by inev (None if it cannot map)."""
    try:
        return combination_cost(net, wl, combination)
    except (InevError, KeyError, IndexError, ValueError):
        return None


WITHOUT = (
    ("paper", "regional_gain", {"regional": False}),
    ("nokick", "kick_gain", {"kicks": False}),
    ("nochain", "chain_gain", {"chains": False}),
)
"""The passes a ``--*-gain`` flag plans without: the row's key, the flag, the options off."""


def print_regional_gain(rows: list[dict]) -> None:
    """How the regional placements changed each plan against the paper's placements alone."""
    regional = sum(any(v.region for v in r["plan"].vertices) for r in rows)
    print_gain(rows, "paper", "regional placements", f"plans with a regional placement: {regional}")


def print_gain(rows: list[dict], base: str, what: str, extra: str = "") -> None:
    """How a pass of the search changed each plan against the plan without it (``row[base]``,
    planned in ``row[base + "_seconds"]``): cheaper, equal, costlier (which the planner must
    never be), and the planning time it added."""
    quotients = [(r["plan"].psi / r[base].psi if r[base].psi > 0 else 1.0, r) for r in rows]
    better = [q for q, _ in quotients if q < 1 - 1e-9]
    worse = [(q, r) for q, r in quotients if q > 1 + 1e-9]
    added = [r["seconds"] - r[f"{base}_seconds"] for r in rows]
    total = sum(r["seconds"] for r in rows) / max(sum(r[f"{base}_seconds"] for r in rows), 1e-12)
    print(
        f"{what}: cheaper on {len(better)}/{len(rows)} (median "
        f"{statistics.median(better) if better else 1:.4g}, best {min(better, default=1):.4g} "
        f"of psi without them, geometric mean over all {geometric_mean([q for q, _ in quotients]):.4g}"
        f"), equal on {len(rows) - len(better) - len(worse)}, costlier on {len(worse)}"
        f"{'; ' + extra if extra else ''}; planning seconds added: median "
        f"{statistics.median(added):.3f}, max {max(added):.3f}; total planning time "
        f"{total:.2f}x"
    )
    for q, r in sorted(worse, key=lambda t: -t[0])[:10]:
        print(f"  costlier {q:.6g}x: {r['inst'].label()}")


def geometric_mean(values: list[float]) -> float:
    """exp of the mean of the logs."""
    return math.exp(statistics.fmean(math.log(v) for v in values))


def main() -> None:
    """Plan the grid and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--only", type=int, nargs="*")
    parser.add_argument("--ref-git", default=os.environ.get("INEV_REF_GIT"))
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "inev" / "reference.jsonl"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--worst", type=int, default=10)
    parser.add_argument("--effort", type=float, default=None)
    parser.add_argument(
        "--nodes", type=int, nargs="+", help="Node counts to draw from (default 20 30 40 50)."
    )
    parser.add_argument(
        "--regional-gain",
        action="store_true",
        help="Also plan without regional placements and compare (issue 28).",
    )
    parser.add_argument(
        "--kick-gain",
        action="store_true",
        help="Also plan without the rate kicks and compare (issue 32).",
    )
    parser.add_argument(
        "--chain-gain",
        action="store_true",
        help="Also plan without the rate-ordered chains and compare (issue 32).",
    )
    parser.add_argument(
        "--low-rates",
        action="store_true",
        help="The low-rate family: every type at every node, rates below one per time unit.",
    )
    args = parser.parse_args()

    indices = args.only if args.only else list(range(args.instances))
    if args.low_rates:
        make = low_rate_instance
    elif args.nodes:
        make = functools.partial(instance, sizes=tuple(args.nodes))
    else:
        make = instance
    grid = [make(k) for k in indices]
    cache_path = Path(args.cache)
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = _load_cache(cache_path)

    rows = []
    started = time.perf_counter()
    pending = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for inst in grid:
            net, wl = inst.build()
            net_doc, wl_doc = network_to_dict(net), workload_to_dict(wl)
            key = _key(net_doc, wl_doc, "kou|0|0d65d7b|combination")
            older = _key(net_doc, wl_doc, "kou|0|0d65d7b")  # ratios only, no combination
            options = PlanOptions() if args.effort is None else PlanOptions(effort=args.effort)
            t0 = time.perf_counter()
            plan = plan_workload(net, wl, options=options)
            seconds = time.perf_counter() - t0
            row = {
                "inst": inst,
                "plan": plan,
                "seconds": seconds,
                "key": key,
                "ref": cache.get(key) or cache.get(older),
            }
            for base, flag, off in WITHOUT:  # a fresh network: no cache of the first run helps
                if getattr(args, flag):
                    fresh, fresh_wl = inst.build()
                    t0 = time.perf_counter()
                    row[base] = plan_workload(fresh, fresh_wl, options=replace(options, **off))
                    row[f"{base}_seconds"] = time.perf_counter() - t0
            rows.append(row)
            if cache.get(key) is None and args.ref_git:
                pending[key] = pool.submit(
                    run_reference, net_doc, wl_doc, args.ref_git, args.timeout
                )
        for key, future in pending.items():
            result = future.result()
            with cache_path.open("a") as f:
                f.write(json.dumps({"key": key, "result": result}) + "\n")
            for row in rows:
                if row["key"] == key:
                    row["ref"] = result
    elapsed = time.perf_counter() - started

    compared = [r for r in rows if r["ref"] and "ratio" in r["ref"]]
    failed = [r for r in rows if r["ref"] and "ratio" not in r["ref"]]
    print(
        f"instances={len(rows)} compared={len(compared)} reference_failed={len(failed)} "
        f"wall_seconds={elapsed:.1f}"
    )
    times = [r["seconds"] for r in rows]
    print(
        f"inev planning seconds: median={statistics.median(times):.3f} max={max(times):.3f}"
        f" (instance {max(rows, key=lambda r: r['seconds'])['inst'].index})"
    )
    if args.regional_gain:
        print_regional_gain(rows)
    if args.kick_gain:
        print_gain(rows, "nokick", "rate kicks")
    if args.chain_gain:
        print_gain(rows, "nochain", "rate-ordered chains")
    bounds = [r["plan"].psi / r["plan"].lower_bound for r in rows if r["plan"].lower_bound > 0]
    if bounds:
        print(
            f"psi / lower bound: median={statistics.median(bounds):.4g} max={max(bounds):.4g}"
            f" (bound > 0 on {len(bounds)} of {len(rows)}; below 1 on"
            f" {sum(b < 1 - 1e-9 for b in bounds)})"
        )
    if not compared:
        print("no reference figures (set INEV_REF_GIT or --ref-git to compare)")
        return
    quotients = []
    for r in compared:
        ours, theirs = r["plan"].ratio, r["ref"]["ratio"]
        r["q"] = (ours / theirs) if theirs > 0 else (1.0 if ours == 0 else math.inf)
        quotients.append(r["q"])
    n = len(compared)
    at_most = sum(q <= 1 + 1e-9 for q in quotients)
    lower = sum(q < 1 - 1e-9 for q in quotients)
    finite = [max(q, 1e-300) for q in quotients if math.isfinite(q)]
    print(
        f"inev <= reference: {at_most}/{n} ({at_most / n:.1%}); strictly lower: {lower}/{n}"
        f" ({lower / n:.1%}); above 1.05x: {sum(q > 1.05 for q in quotients)}"
    )
    print(
        f"inev / reference: geometric mean={geometric_mean(finite):.4g}"
        f" median={statistics.median(quotients):.4g} worst={max(quotients):.4g}"
    )
    same, wrongly = [], 0
    for r in compared:
        combo = r["ref"].get("combination")
        if combo:
            net, wl = r["inst"].build()
            if shares_by_type_set(wl, combo):
                r["wrong"] = True
                wrongly += 1
            value = reference_design_psi(net, wl, combo)
            if value is not None and value > 0:
                r["same"] = r["plan"].psi / value
                same.append(r["same"])
    if same:
        n2 = len(same)
        print(
            f"same model (the reference's combination placed and costed by inev): compared={n2}"
            f" inev <= it: {sum(q <= 1 + 1e-9 for q in same)}/{n2}"
            f" strictly lower: {sum(q < 1 - 1e-9 for q in same)}/{n2}"
            f" geometric mean={geometric_mean(same):.4g} worst={max(same):.4g}"
        )
        print(
            f"the reference feeds a query another pattern's matches (shares by type set) on"
            f" {wrongly} of {sum(1 for r in compared if r['ref'].get('combination'))} instances"
        )
        losses = sorted(
            (r for r in compared if r.get("same", 0) > 1 + 1e-9), key=lambda r: -r["same"]
        )
        for r in losses:  # where inev's search misses the reference's design under one model
            kind = " (reference shares by type set)" if r.get("wrong") else ""
            print(f"  same model {r['same']:.4g}x{kind}  {r['inst'].label()}")
    if args.low_rates:
        fallback = [
            r for r in compared if r["plan"].ratio >= 1 - 1e-12 and r["ref"]["ratio"] < 1 - 1e-9
        ]
        print(
            f"low rates: inev keeps the centralized plan on {len(fallback)} instances where the"
            f" reference finds an in-network plan (inev centralized on"
            f" {sum(r['plan'].ratio >= 1 - 1e-12 for r in compared)},"
            f" reference on {sum(r['ref']['ratio'] >= 1 - 1e-9 for r in compared)})"
        )
    print(f"worst {args.worst}:")
    for r in sorted(compared, key=lambda r: -r["q"])[: args.worst]:
        same_text = f" same-model {r['same']:.4g}x" if "same" in r else ""
        same_text += " (reference shares by type set)" if r.get("wrong") else ""
        print(
            f"  {r['q']:.4g}x  inev={r['plan'].ratio:.6g} ref={r['ref']['ratio']:.6g}"
            f"{same_text}  {r['inst'].label()}"
        )
    for r in failed:
        print(f"  reference failed on {r['inst'].label()}: {r['ref']['error'][:120]}")


if __name__ == "__main__":
    main()
