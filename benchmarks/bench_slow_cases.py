"""The two slow cases of issue 30, timed end to end as a user meets them.

1. ``inev plan`` on a path of 20,000 nodes (4 event types on about 36 sources, node ratio
   0.0004, 2 queries of length 4), ``--method isolated`` and INEv: wall time and peak memory
   (the child's own ``VmHWM``). Before issue 30: 51-60 s and 3.2 GB each, nearly all of it
   networkx's Kou-Markowsky-Berman Steiner heuristic, which keeps every shortest path from
   every terminal (``planner/steiner.py kou`` now works on sparse arrays).
2. ``inev sweep`` of ``simulate = [true, false]`` x ``node_ratio = [1e-9]`` (2 seeds,
   ``--master serial``): before, past 60 s, all of it redrawing the sources of types that had
   none, about 5e7 times per type (``topologies/generate.py assign_sources``).

Run: ``python benchmarks/bench_slow_cases.py`` (about half a minute). Prints one line per case:

    case  wall_s  peak_MB  status
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LAUNCH = """
import atexit, os
def _peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    open(os.environ["INEV_BENCH_PEAK"], "w").write(status)
atexit.register(_peak)
from inev.common.cli import main
main()
"""
SWEEP = """\
name = "tiny node ratio"
seeds = 2
methods = ["inev", "centralized"]
[axes]
simulate = [true, false]
node_ratio = [1e-9]
"""


def inev(args: list[str], work: Path, timeout: float = 300) -> tuple[float, float, str]:
    """Wall seconds, peak MB and status (ok, exit N, timeout) of one ``inev`` command."""
    peak = work / "peak.txt"
    peak.unlink(missing_ok=True)
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", LAUNCH, *args],
            cwd=work,
            env={**os.environ, "INEV_BENCH_PEAK": str(peak)},
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        status = "timeout"
    seconds = time.perf_counter() - started
    mb = int(peak.read_text()) / 1024 if peak.exists() else float("nan")
    return seconds, mb, status


def main() -> None:
    """Print the table of the module docstring."""
    with tempfile.TemporaryDirectory(prefix="inev-bench-slow-") as folder:
        work = Path(folder)
        (work / "path.txt").write_text("".join(f"{i} {i + 1}\n" for i in range(19_999)))
        (work / "sweep.toml").write_text(SWEEP)
        net = ["network", "generate", "--from-file", "path.txt", "--event-types", "4"]
        inev([*net, "--node-ratio", "0.0004", "--seed", "1", "-o", "net.json"], work)
        wl = ["workload", "generate", "--network", "net.json", "--queries", "2", "--length"]
        inev([*wl, "4", "--seed", "1", "-o", "wl.json"], work)
        cases = {
            "plan, path of 20,000 nodes, isolated": [
                *("plan", "net.json", "wl.json", "--method", "isolated", "-o", "iso.json")
            ],
            "plan, path of 20,000 nodes, inev": ["plan", "net.json", "wl.json", "-o", "p.json"],
            "sweep, simulate x node_ratio 1e-9": [
                *("sweep", "sweep.toml", "-o", "results", "--master", "serial")
            ],
        }
        print(f"{'case':40s} {'wall_s':>7s} {'peak_MB':>8s}  status")
        for name, args in cases.items():
            seconds, mb, status = inev(args, work)
            print(f"{name:40s} {seconds:7.1f} {mb:8.0f}  {status}", flush=True)


if __name__ == "__main__":
    main()
