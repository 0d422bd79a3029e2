"""Every topology of the Internet Topology Zoo loaded and planned (issue 30).

The Zoo (github.com/mroughan/InternetTopologyZoo, folder ``graphml/``) holds 276 real network
topologies as GraphML. For each one this script does what ``inev network generate
--from-file F.graphml`` does (:func:`inev.topologies.io.read_topology`,
:func:`~inev.topologies.io.connected_part`), first as it is, then with ``--largest-component``
where that was refused, and plans a workload on the result (6 event types, skew 1.3, node
ratio 0.5, 3 queries of length 4, seed 1, INEv), then prints the counts and every failure:

    load as-is: N / 276, load with --largest-component: M / 276, plan OK: K / 276

Run: ``python benchmarks/bench_topology_zoo.py --zoo PATH`` with PATH either a folder of
``.graphml`` files or a bare git directory of the repository (the ``fetch`` tool's snapshot:
its files are read with ``git show``). Needs no network itself; tests do not run it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from inev.common.errors import InevError
from inev.planner.planning import plan_workload
from inev.topologies.generate import network_from_topology
from inev.topologies.io import connected_part, read_topology
from inev.workloads.generate import generate_workload


def graphml_files(zoo: Path, work: Path) -> list[Path]:
    """The Zoo's GraphML files, copied out of a bare git directory if ``zoo`` is one."""
    if zoo.is_dir() and not (zoo / "HEAD").is_file():
        return sorted(zoo.glob("*.graphml"))
    git = ["git", f"--git-dir={zoo}"]
    names = subprocess.run(
        [*git, "ls-tree", "--name-only", "HEAD", "graphml/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    out = []
    for name in names:
        if name.endswith(".graphml"):
            target = work / Path(name).name
            target.write_bytes(
                subprocess.run(
                    [*git, "show", f"HEAD:{name}"], capture_output=True, check=True
                ).stdout
            )
            out.append(target)
    return out


def one(path: Path) -> tuple[bool, bool, bool, str]:
    """(loads as it is, loads with the option, plans, what failed) for one topology."""
    try:
        graph = read_topology(path)
    except InevError as exc:
        return False, False, False, f"read: {exc}"
    try:
        connected_part(graph, path.name)
        as_is = True
    except InevError:
        as_is = False
    try:
        part, _ = connected_part(graph, path.name, largest_component=True)
        network = network_from_topology(part, 6, 1.3, 0.5, np.random.default_rng(1))
    except InevError as exc:
        return as_is, False, False, f"load: {exc}"
    try:
        workload = generate_workload(network, queries=3, length=4, selectivity=0.1, seed=1)
        plan_workload(network, workload)
    except InevError as exc:
        return as_is, True, False, f"plan: {exc}"
    return as_is, True, True, ""


def main() -> None:
    """Print the counts of the module docstring and each failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", required=True, type=Path, help="folder or bare git dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inev-zoo-") as folder:
        files = graphml_files(args.zoo, Path(folder))
        if not files:
            sys.exit(f"error: {args.zoo}: no GraphML files")
        counts = [0, 0, 0]
        started = time.perf_counter()
        for path in files:
            result = one(path)
            for i in range(3):
                counts[i] += result[i]
            if result[3] or not result[0]:
                note = result[3] or "disconnected: loads with --largest-component"
                print(f"{path.name}: {note}", flush=True)
        total = len(files)
        print(
            f"load as-is: {counts[0]} / {total}, load with --largest-component: "
            f"{counts[1]} / {total}, plan OK: {counts[2]} / {total} "
            f"({time.perf_counter() - started:.0f} s)"
        )


if __name__ == "__main__":
    main()
