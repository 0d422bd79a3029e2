"""Planning time over the paper's figure presets, and whether another checkout plans the same.

Run: python benchmarks/bench_preset_planning.py [--per-preset 6] [--against PATH]

Plans ``--per-preset`` tasks (seeds 0 and 1, spread over the grid) of every figure preset
with the task's own options, as ``inev reproduce`` does, and prints the summed planning time
per preset and a digest of every plan (ψ, latency, and each vertex's projection, node,
output, forwarding links and hops).

``--against PATH`` runs the same in a child process on the checkout at PATH (for example a
``git worktree`` of an older commit) and prints both totals, their ratio and whether every
plan is the same. A speed-up that is meant to leave the plans unchanged is checked by this:
``identical plans: 108 of 108``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIPPED = {"5b", "9b", "9d", "10b", "11a", "11b", "12b"}
"""Figures left out: 9b and 9d share 9a's and 9c's tasks, 5b plans what 5a does, 10b plans
each task 50 times, 11a-b and 12b simulate."""


def figures() -> list[str]:
    """The figures of ``experiments/claims.toml`` whose tasks are planned (not :data:`SKIPPED`)."""
    from inev.experiments.reproduce import choose

    return [f.id for f in choose([]) if f.id not in SKIPPED]


def digest(plan) -> str:
    """A short hash of what a plan decides (vertices, their forwarding and hops)."""
    text = repr(
        (
            plan.psi,
            plan.latency,
            [
                (v.projection, str(v.node), v.output, sorted(map(str, v.forwarding)), v.hops)
                for v in plan.vertices
            ],
        )
    )
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def run(per_preset: int) -> list[tuple[str, str, float, str]]:
    """(figure, task id, seconds, digest) per planned task, printed as they finish."""
    from importlib import resources

    from inev.experiments.measure import plan_options, task_inputs
    from inev.experiments.spec import expand, load_spec
    from inev.planner.planning import plan_workload

    presets = resources.files("inev.experiments") / "presets"
    rows = []
    for fig in figures():
        tasks = [t for t in expand(load_spec(presets / f"fig{fig}.toml")) if t.seed in (0, 1)]
        for task in tasks[:: max(1, len(tasks) // per_preset)][:per_preset]:
            config = task.config()
            network, workload = task_inputs(config, task.seed)
            start = time.perf_counter()
            plan = plan_workload(network, workload, "inev", plan_options(config))
            seconds = time.perf_counter() - start
            rows.append((fig, task.task_id, seconds, digest(plan)))
            print(f"{fig}\t{task.task_id}\t{seconds:.3f}\t{rows[-1][3]}", flush=True)
    return rows


def child(path: str, per_preset: int) -> list[tuple[str, str, float, str]]:
    """:func:`run` on the checkout at ``path`` (imported as ``inev`` through a symlink)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(Path(path).resolve(), Path(tmp) / "inev")
        env = {**os.environ, "PYTHONPATH": tmp}
        out = subprocess.run(
            [sys.executable, __file__, "--per-preset", str(per_preset), "--rows-only"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    rows = []
    for line in out.splitlines():
        fig, tid, seconds, dig = line.split("\t")
        rows.append((fig, tid, float(seconds), dig))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-preset", type=int, default=6)
    parser.add_argument("--against", help="another checkout to plan the same tasks with")
    parser.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rows_only:
        run(args.per_preset)
        return
    theirs = child(args.against, args.per_preset) if args.against else None
    mine = child(str(Path(__file__).resolve().parents[1]), args.per_preset)
    for fig in figures():
        own = sum(s for f, _, s, _ in mine if f == fig)
        line = f"fig{fig:4} {own:8.2f} s"
        if theirs:
            other = sum(s for f, _, s, _ in theirs if f == fig)
            line += f"   against {other:8.2f} s  ({other / max(own, 1e-9):.2f}x)"
        print(line)
    total = sum(r[2] for r in mine)
    print(f"total: {total:.1f} s planning {len(mine)} tasks")
    if theirs:
        other = sum(r[2] for r in theirs)
        same = sum(a[3] == b[3] for a, b in zip(mine, theirs, strict=True))
        print(f"against {args.against}: {other:.1f} s ({other / total:.2f}x this checkout's time)")
        print(f"identical plans: {same} of {len(mine)}")


if __name__ == "__main__":
    main()
