"""Benchmark: seconds per seed of ``inev reproduce``'s figures, and whether two codes give the
same rows.

Each named figure runs as ``INEV reproduce FIG -o DIR --seeds FIG=N --master M`` in a child
process (the whole command is timed: Spark start, every task, the report; wall seconds, and
CPU seconds, which a loaded machine moves less). With ``--vs INEV_B``
(another checkout's ``inev``, e.g. main's ``.venv/bin/inev``) the other code runs the same figure
right after, so each figure's ratio A/B is taken under the same load; then the two
``results.parquet`` are compared row by row on every column except the wall-time ones
(:data:`inev.experiments.results.TIMING_COLUMNS`): a speed-up must not move a row.

Run::

    python benchmarks/bench_reproduce_speed.py 8c 9a --seeds 1 --vs MAIN/.venv/bin/inev
    python benchmarks/bench_reproduce_speed.py --quick --vs MAIN/.venv/bin/inev  # all
    python benchmarks/bench_reproduce_speed.py --compare RUN_A RUN_B   # two reproduce folders

``--master serial`` (the default) runs the tasks one after another in one process, which
measures the work itself; ``--master 'local[*]'`` is what ``inev reproduce`` uses. ``--keep
DIR`` keeps the report folders (``DIR/a/FIG``, ``DIR/b/FIG``).
"""

from __future__ import annotations

import argparse
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from inev.experiments.reproduce import choose
from inev.experiments.results import TIMING_COLUMNS

RELATIVE = 1e-9
"""Floats closer than this (relative) count as equal (none differs in practice: the codes
are meant to compute bit for bit the same)."""


def _run(
    inev: str, figure: str, folder: Path, seeds: int | None, master: str
) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the command and the processes it waited for)
    of one ``inev reproduce`` of ``figure`` into ``folder`` (new); ``seeds`` None: the
    preset's ``--quick`` scale."""
    command = [inev, "reproduce", figure, "-o", str(folder)]
    command += ["--quick"] if seeds is None else ["--seeds", f"{figure}={seeds}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--master", master], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(command)} failed: {done.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def _rows(folder: Path) -> dict[str, dict[tuple, dict]]:
    """``{preset: {(task_id, method): row}}`` of a reproduce folder's runs."""
    out = {}
    for path in sorted(folder.glob("runs/*/results.parquet")):
        table = pq.read_table(path).to_pylist()
        out[path.parent.name] = {(r["task_id"], r["method"]): r for r in table}
    return out


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b or abs(a - b) <= RELATIVE * max(abs(a), abs(b))
    return a == b


def compare(first: Path, second: Path) -> list[str]:
    """Differences between the rows of two reproduce folders (empty: the same rows)."""
    one, other = _rows(first), _rows(second)
    problems = []
    if set(one) != set(other):
        problems.append(f"figures differ: {sorted(one)} vs {sorted(other)}")
    for preset in sorted(set(one) & set(other)):
        a, b = one[preset], other[preset]
        if set(a) != set(b):
            problems.append(f"{preset}: {len(set(a) ^ set(b))} rows in one folder only")
        for key in sorted(set(a) & set(b)):
            columns = (set(a[key]) | set(b[key])) - set(TIMING_COLUMNS)
            for column in sorted(columns):
                if not _same(a[key].get(column), b[key].get(column)):
                    problems.append(
                        f"{preset} task {key[0]} {key[1]}: {column} "
                        f"{a[key].get(column)!r} vs {b[key].get(column)!r}"
                    )
    return problems


def _count(folder: Path) -> int:
    return sum(len(rows) for rows in _rows(folder).values())


def main() -> None:
    """Time the figures (A, and B with ``--vs``), compare their rows, print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures", nargs="*", help="figures, e.g. 8c 9a")
    parser.add_argument("--seeds", type=int, default=1, help="seeds per point (default 1)")
    parser.add_argument("--quick", action="store_true", help="the presets' --quick scale")
    parser.add_argument("--inev", default=str(Path(sys.executable).parent / "inev"))
    parser.add_argument("--vs", help="another inev to time and compare with (B)")
    parser.add_argument("--master", default="serial")
    parser.add_argument("--keep", type=Path, help="keep the report folders here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("RUN_A", "RUN_B"))
    args = parser.parse_args()
    if args.compare:
        problems = compare(*args.compare)
        print("\n".join(problems) or f"same rows ({_count(args.compare[0])} compared)")
        sys.exit(1 if problems else 0)
    figures = [f.id for f in choose(args.figures)]
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-reproduce-"))
    seeds = None if args.quick else args.seeds
    scale = "--quick" if args.quick else f"{args.seeds} seed(s) per point"
    print(f"{scale}, --master {args.master}; A = {args.inev}")
    if args.vs:
        print(f"B = {args.vs}")
    total = {"a": 0.0, "b": 0.0, "cpu a": 0.0, "cpu b": 0.0}
    different = 0
    try:
        for figure in figures:
            a_dir, b_dir = root / "a" / figure, root / "b" / figure
            for folder in (a_dir, b_dir):
                shutil.rmtree(folder, ignore_errors=True)
                folder.parent.mkdir(parents=True, exist_ok=True)
            seconds_a, cpu_a = _run(args.inev, figure, a_dir, seeds, args.master)
            total["a"] += seconds_a
            total["cpu a"] += cpu_a
            line = f"fig {figure:>4}: A {seconds_a:7.1f} s wall {cpu_a:7.1f} s cpu"
            if args.vs:
                seconds_b, cpu_b = _run(args.vs, figure, b_dir, seeds, args.master)
                total["b"] += seconds_b
                total["cpu b"] += cpu_b
                problems = compare(a_dir, b_dir)
                different += bool(problems)
                verdict = "rows equal" if not problems else f"{len(problems)} differences"
                line += f" | B {seconds_b:7.1f} s wall {cpu_b:7.1f} s cpu"
                line += f" | A/B wall {seconds_a / seconds_b:5.3f} cpu {cpu_a / cpu_b:5.3f}"
                line += f" | {verdict} ({_count(a_dir)} rows)"
                for problem in problems[:10]:
                    line += f"\n      {problem}"
            print(line, flush=True)
        if args.vs and len(figures) > 1:
            print(
                f"all:       A {total['a']:7.1f} s wall {total['cpu a']:7.1f} s cpu"
                f" | B {total['b']:7.1f} s wall {total['cpu b']:7.1f} s cpu"
                f" | A/B wall {total['a'] / total['b']:5.3f}"
                f" cpu {total['cpu a'] / total['cpu b']:5.3f}"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
