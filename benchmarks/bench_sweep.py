"""Benchmark: the same 200-task sweep serially and on local Spark, with the speed-up.

The sweep is the paper's default instance (20 nodes, one 6-type query) over 5 skews x 2
selectivities x 20 seeds, methods inev and centralized. "serial" runs every task in this
process without Spark; "local[2]" runs them on an embedded Spark with two executor slots.
The Spark figure is reported twice: including the session start (what a user waits for) and
excluding it (the fan-out itself). The issue's target is >= 1.7x on 2 cores.

Run: ``python benchmarks/bench_sweep.py [--seeds 20] [--master local[2]]``
"""

from __future__ import annotations

import argparse
import tempfile
import time

from inev.experiments.spark import spark_session
from inev.experiments.spec import parse_spec
from inev.experiments.sweep import run_sweep


def main() -> None:
    """Print the wall times and the speed-up."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    spec = parse_spec(
        {
            "name": "bench",
            "seeds": args.seeds,
            "methods": ["inev", "centralized"],
            "axes": {"skew": [1.1, 1.3, 1.5, 1.7, 1.9], "selectivity": [0.1, 0.01]},
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        serial = run_sweep(spec, f"{folder}/serial", master="serial")
        serial_seconds = time.perf_counter() - start
        start = time.perf_counter()
        spark_session(args.master)
        session_seconds = time.perf_counter() - start
        start = time.perf_counter()
        parallel = run_sweep(spec, f"{folder}/spark", master=args.master)
        spark_seconds = time.perf_counter() - start
    assert serial.table.num_rows == parallel.table.num_rows
    print(f"tasks: {spec.size} (x {len(spec.methods)} methods)")
    print(f"serial:            {serial_seconds:7.2f} s")
    print(
        f"{args.master} sweep:  {spark_seconds:7.2f} s  (+ {session_seconds:.2f} s session start)"
    )
    print(f"speed-up, sweep only:          {serial_seconds / spark_seconds:.2f}x")
    print(
        f"speed-up, with session start:  {serial_seconds / (spark_seconds + session_seconds):.2f}x"
    )


if __name__ == "__main__":
    main()
