"""Byte-identity check of the planner on bench_plan_quality's instances, with their CPU times.

Plans instances ``FIRST`` to ``LAST - 1`` of :func:`bench_plan_quality.instance` with the
default options and writes their ``inev-plan/1`` documents (without planning seconds) as one
JSON file, and each instance's planning CPU seconds to ``OUT.cpu``. A speed-up that must not
move a plan is checked by ``cmp`` of two checkouts' outputs; the ``.cpu`` files give the
ratio (run the two one after the other on the same machine).

Run: ``python benchmarks/plan_quality_snapshot.py OUT.json [FIRST LAST]`` (default 0 200)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench_plan_quality import instance

from inev.planner.inev_graph import plan_to_dict
from inev.planner.planning import plan_workload


def main() -> None:
    """Plan the instances and write the two files (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("first", type=int, nargs="?", default=0)
    parser.add_argument("last", type=int, nargs="?", default=200)
    args = parser.parse_args()
    docs, cpu = {}, {}
    for i in range(args.first, args.last):
        net, wl = instance(i).build()
        start = time.process_time()
        plan = plan_workload(net, wl)
        cpu[i] = time.process_time() - start
        doc = plan_to_dict(plan)
        doc.pop("planning_seconds", None)
        docs[i] = doc
    args.out.write_text(json.dumps(docs, sort_keys=True, indent=0, default=str))
    Path(f"{args.out}.cpu").write_text(json.dumps(cpu))
    print(f"{len(docs)} plans -> {args.out}; planning CPU {sum(cpu.values()):.1f} s in all")


if __name__ == "__main__":
    main()
