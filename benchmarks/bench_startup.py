"""Benchmark: start-up of the ``inev`` command (wall time and import time).

Runs ``inev --help`` and ``inev plan`` on a 20-node instance (the README's first plan, with
the default search effort and with ``--effort 0``, the paper's single pass, which leaves
mostly start-up) as fresh processes and prints, for each, the minimum and median wall time
over ``--repeat`` runs, and the total import time that ``python -X importtime`` reports for one run, with the
five largest top-level imports. The minimum is the figure to compare: the median includes
whatever else the machine is doing.

Run: ``python benchmarks/bench_startup.py [--inev PATH] [--repeat N]``
(``--inev`` defaults to the ``inev`` script next to this Python).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def wall_times(command: list[str], repeat: int, cwd: str) -> list[float]:
    """Seconds of ``repeat`` runs of ``command``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def import_profile(command: list[str], cwd: str) -> tuple[float, list[tuple[float, str]]]:
    """Total import seconds and the largest top-level imports of one run (``-X importtime``),
    with the Python of the venv the ``inev`` script (``command[0]``) belongs to."""
    python = Path(command[0]).with_name("python")
    run = subprocess.run(
        [str(python if python.exists() else sys.executable), "-X", "importtime", *command],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    total, top = 0.0, []
    for line in run.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if not match:
            continue
        self_us, cumulative_us, indent, name = match.groups()
        total += int(self_us) / 1e6
        if len(indent) == 1:
            top.append((int(cumulative_us) / 1e6, name))
    return total, sorted(top, reverse=True)[:5]


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inev", default=str(Path(sys.executable).with_name("inev")))
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        inev = [args.inev]
        setup = [
            "network generate --nodes 20 --out-degree 3 --event-types 6 --skew 1.3 "
            "--node-ratio 0.5 --seed 1 -o net.json",
            "workload generate --network net.json --queries 1 --length 6 --selectivity 0.1 "
            "--seed 1 -o wl.json",
        ]
        for command in setup:
            subprocess.run([*inev, *command.split()], cwd=folder, check=True, capture_output=True)
        cases = {
            "inev --help": ["--help"],
            "inev plan (20 nodes)": ["plan", "net.json", "wl.json", "-o", "plan.json"],
            "inev plan --effort 0 (one pass, start-up)": [
                *("plan", "net.json", "wl.json", "-o", "plan.json", "--effort", "0")
            ],
        }
        print(f"{args.inev}, {args.repeat} runs each, {os.cpu_count()} cores")
        for label, arguments in cases.items():
            probe = subprocess.run([*inev, *arguments], cwd=folder, capture_output=True)
            if probe.returncode != 0:
                print(f"{label}: not supported by this inev")
                continue
            times = wall_times([*inev, *arguments], args.repeat, folder)
            total, top = import_profile([args.inev, *arguments], folder)
            largest = ", ".join(f"{name} {seconds:.3f}" for seconds, name in top)
            print(
                f"{label}: wall min {min(times):.3f} s, median {statistics.median(times):.3f} s; "
                f"imports {total:.3f} s (largest: {largest})"
            )


if __name__ == "__main__":
    main()
