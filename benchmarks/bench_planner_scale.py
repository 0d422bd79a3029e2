"""Planning at network scale (issue 17): time, peak memory, ratio and plan-file size.

For each size ``NODES:RATIO`` it generates a network (20 event types, skew 1.3, out-degree 3,
the given node ratio) and a workload (20 queries of length 5, selectivity 0.1) with the
command line, as a user would, then runs ``inev plan`` in a child process and prints one line:

    nodes ratio seed  generate_s  plan_s  peak_MB  psi/central  plan_MB  status

``generate_s`` is ``inev network generate`` end to end; ``plan_s`` and ``peak_MB`` are the
wall time and the peak resident memory of ``inev plan`` end to end, loading and writing
included (the child's own ``VmHWM``, which it writes at exit). Each child is killed after
``--timeout`` seconds (status ``timeout``), so the table can be run in parts
(``--sizes 1000:0.5 10000:0.05``). Where the planner kept the centralized plan, the plan's
notes saying why (:mod:`inev.planner.dominant_pairs`) follow the line. With ``--seeds K``
every size runs seeds 1..K and a summary line gives the median time and ratio.

Run: ``python benchmarks/bench_planner_scale.py`` (the whole table takes long; see
``--sizes``). Extra arguments after ``--`` go to ``inev plan`` (``-- --effort 0``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (
    "100:0.5",
    "1000:0.5",
    "5000:0.5",
    "10000:0.5",
    "1000:0.05",
    "10000:0.05",
    "20000:0.05",
    "50000:0.05",
    "100000:0.05",
)
LAUNCH = """
import atexit, os
def _peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    open(os.environ["INEV_BENCH_PEAK"], "w").write(status)
atexit.register(_peak)
from inev.common.cli import main
main()
"""
INEV = [sys.executable, "-c", LAUNCH]
"""The child reports its own peak (VmHWM, kB) at exit: ``ru_maxrss`` from ``wait4`` is at
least this parent's resident size when it forked the child (Linux keeps the larger of the two
across ``exec``), so after a large plan file was read every later row showed the parent's."""


def run(args: list[str], timeout: float) -> tuple[str, float, float, str]:
    """Run ``inev ARGS`` in a child: (status, seconds, peak MB, last line of output)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile() as peak_file:
        env = {**os.environ, "INEV_BENCH_PEAK": peak_file.name}
        child = subprocess.Popen(
            INEV + args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
        status = "ok"
        while True:
            pid, code, _ = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                os.killpg(child.pid, signal.SIGKILL)
                pid, code, _ = os.wait4(child.pid, 0)
                status = "timeout"
                break
            time.sleep(0.05)
        child.returncode = code  # reaped here, so Popen must not wait for it again
        seconds = time.perf_counter() - start
        out.seek(0)
        lines = out.read().decode(errors="replace").strip().splitlines()
        reported = Path(peak_file.name).read_text().strip()
    if status == "ok" and code != 0:
        status = "failed"
    peak = int(reported) / 1024 if reported else math.nan
    return status, seconds, peak, lines[-1] if lines else ""


def instance(
    nodes: int, ratio: float, seed: int, timeout: float, work: Path
) -> tuple[Path, Path, dict]:
    """Generate one scale instance with the command line: (network, workload, row); the row
    holds ``generate_s`` and, when a command failed, ``status``."""
    net, wl = (work / f"{name}-{nodes}-{ratio}-{seed}.json" for name in "nw")
    row: dict = {"nodes": nodes, "ratio": ratio, "seed": seed}
    status, seconds, _, last = run(
        [
            "network", "generate", "--nodes", str(nodes), "--event-types", "20",
            "--skew", "1.3", "--out-degree", "3", "--node-ratio", str(ratio),
            "--seed", str(seed), "-o", str(net),
        ],
        timeout,
    )  # fmt: skip
    row["generate_s"] = seconds
    if status != "ok":
        return net, wl, {**row, "status": f"generate {status}: {last}"}
    status, _, _, last = run(
        [
            "workload", "generate", "--network", str(net), "--queries", "20", "--length", "5",
            "--selectivity", "0.1", "--seed", str(seed), "-o", str(wl),
        ],
        timeout,
    )  # fmt: skip
    if status != "ok":
        return net, wl, {**row, "status": f"workload {status}: {last}"}
    return net, wl, row


def measure(nodes: int, ratio: float, seed: int, args: argparse.Namespace, work: Path) -> dict:
    """Generate one instance and plan it; the figures of one table line."""
    net, wl, row = instance(nodes, ratio, seed, args.timeout, work)
    if "status" in row:
        return row
    plan = work / f"p-{nodes}-{ratio}-{seed}.json"
    status, seconds, peak, last = run(
        ["plan", str(net), str(wl), "-o", str(plan), *args.plan_args], args.timeout
    )
    row.update(plan_s=seconds, peak_mb=peak, status=status if status == "ok" else last)
    if status == "timeout":
        row["status"] = f"timeout after {args.timeout:g} s"
    if status == "ok":
        data = json.loads(plan.read_text())
        row.update(psi_ratio=data["ratio"], plan_mb=plan.stat().st_size / 1e6, kept=data["kept"])
        row["why"] = [
            n
            for n in data.get("notes", ())
            if n.startswith(("share of", "keeping ", "inev's best plan")) or " meet in query " in n
        ][:4]
    for path in (net, wl, plan):
        if not args.keep:
            path.unlink(missing_ok=True)
    return row


def line(row: dict) -> str:
    """One printed table line."""

    def fig(key: str, fmt: str) -> str:
        return format(row[key], fmt) if key in row else "-"

    return (
        f"{row['nodes']:>7} {row['ratio']:>5g} {row['seed']:>4} {fig('generate_s', '9.2f')} "
        f"{fig('plan_s', '8.1f')} {fig('peak_mb', '8.0f')} {fig('psi_ratio', '11.4g')} "
        f"{fig('plan_mb', '8.2f')}  {row['status']}"
        + (f" (kept {row['kept']})" if "kept" in row else "")
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), help="NODES:RATIO entries")
    parser.add_argument("--seeds", type=int, default=1, help="Seeds 1..K per size")
    parser.add_argument("--timeout", type=float, default=600.0, help="Seconds per child")
    parser.add_argument("--keep", type=Path, help="Keep the files in this folder")
    parser.add_argument("plan_args", nargs="*", help="Extra `inev plan` options (after --)")
    args = parser.parse_args()
    print(
        f"{'nodes':>7} {'ratio':>5} {'seed':>4} {'generate_s':>9} {'plan_s':>8} {'peak_MB':>8} "
        f"{'psi/central':>11} {'plan_MB':>8}  status",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            nodes, ratio = size.split(":")
            rows = []
            for seed in range(1, args.seeds + 1):
                rows.append(measure(int(nodes), float(ratio), seed, args, work))
                print(line(rows[-1]), flush=True)
                for why in rows[-1].get("why", ()):  # the planner's reason for a centralized plan
                    print(f"{'':>12}{why}", flush=True)
            done = [r for r in rows if "psi_ratio" in r]
            if args.seeds > 1 and done:
                print(
                    f"{nodes:>7} {float(ratio):>5g} median over {len(done)}/{len(rows)} seeds: "
                    f"plan_s={statistics.median(r['plan_s'] for r in done):.1f} "
                    f"peak_MB={max(r['peak_mb'] for r in done):.0f} (max) "
                    f"ratio={statistics.median(r['psi_ratio'] for r in done):.4g} "
                    f"(min {min(r['psi_ratio'] for r in done):.4g}, "
                    f"max {max(r['psi_ratio'] for r in done):.4g})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
