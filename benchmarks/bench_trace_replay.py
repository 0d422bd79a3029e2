"""Benchmark: a recorded-trace study at the INEv case study's scale, end to end.

The shape of the paper's Citi Bike replay: a trace of 1,000,000 events over 20 nodes
(stations), 4 event types with heterogeneous per-source rates, a key attribute ``bid``
drawn from 10,000 bikes, and 4 queries of 4 types (AND and SEQ) joined on the bike over a
24 h window. The trace is generated (``inev trace generate``; no third-party data), with
time in days (so the window is 1.0: the planner's rate model counts events per window)
and a diurnal profile. Then, each stage timed:

1. trace -> network: one scan, per-source rates (``inev network from-trace``);
2. estimated workload: the where-selectivities measured on the trace (``inev workload
   estimate``; the bike joins are counted exactly, per key);
3. plan (INEv, no latency bound);
4. full replay (``inev simulate --trace``): the scan and size check, then the trace
   streamed through the plan's engines on the simulated network, with centralized
   evaluation of the same trace in the same pass; the matches must equal centralized.

Targets (issue 14): < 5 minutes and < 4 GB peak memory on the team machine. It prints the
replay's events per second and the peak resident memory of the process.

Run: ``python benchmarks/bench_trace_replay.py [--events 1000000] [--keys 10000]``
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from inev.common.traces import scan_trace
from inev.planner.planning import plan_workload
from inev.simulator.engine.replay import ordered_chunks, prepare
from inev.simulator.run import TraceStream, simulate
from inev.topologies.from_trace import network_from_scan
from inev.topologies.trace_generator import TraceOptions, generate_trace_file
from inev.workloads.estimate import estimate_selectivities
from inev.workloads.workload import Query, Workload

CHAIN = "A.bid == B.bid AND B.bid == C.bid AND C.bid == D.bid"
PATTERNS = {
    "q1": "SEQ(A, B, C, D)",
    "q2": "AND(A, B, C, D)",
    "q3": "SEQ(A, AND(B, C), D)",
    "q4": "AND(SEQ(A, B), SEQ(C, D))",
}


def peak_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    """Run the pipeline once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--skew", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    stages: list[tuple[str, float]] = []
    began = time.perf_counter()

    cpu = [time.process_time()]

    def stage(name: str, since: float) -> float:
        now = time.perf_counter()
        used = time.process_time() - cpu[0]
        cpu[0] = time.process_time()
        stages.append((name, now - since))
        print(
            f"  {name:<28} {now - since:7.1f} s wall {used:7.1f} s cpu   peak {peak_mb():7.0f} MB",
            flush=True,
        )
        return now

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.parquet"
        options = TraceOptions(
            nodes=args.nodes,
            types=4,
            events=args.events,
            duration=args.days,
            skew=args.skew,
            profile="diurnal",
            period=1.0,
            keys=args.keys,
            key_name="bid",
            seed=args.seed,
        )
        t = time.perf_counter()
        table = generate_trace_file(options, path)
        rows = table.num_rows
        del table
        t = stage(f"generate ({rows:,} events)", t)

        scan = scan_trace(path)
        network = network_from_scan(scan, seed=args.seed, link_latency=1e-4)
        t = stage("trace -> network", t)

        queries = [Query.build(name, p, where=CHAIN) for name, p in PATTERNS.items()]
        estimate = estimate_selectivities(Workload.build(1.0, queries), path)
        workload = estimate.workload
        t = stage("estimated workload", t)

        plan = plan_workload(network, workload, "inev")
        t = stage(f"plan (ratio {plan.ratio:.3g})", t)

        prepared = prepare(workload, path)
        t = stage("scan + size check", t)
        s = prepared.scan
        stream = TraceStream(lambda: ordered_chunks(prepared), s.end, s.rows, s.skipped, s.start)
        result = simulate(network, workload, plan, duration=s.end, trace=stream)
        replay = time.perf_counter() - t
        t = stage("replay (simulate --trace)", t)

    total = time.perf_counter() - began
    cpu_total = time.process_time()
    print(
        f"replay: {result.events:,} events in {replay:.1f} s = {result.events / replay:,.0f} "
        f"events/s (of it {result.check_seconds:.1f} s closing the centralized check); "
        f"{result.messages:,} messages, ratio {result.ratio:.3g}, model deviation "
        f"{result.model_deviation:+.3f}"
    )
    print(
        f"matches: {sum(result.matches.values()):,} at the sinks, "
        f"{sum(result.centralized_matches.values()):,} centralized, missing {result.missing}, "
        f"extra {result.extra}, equal to centralized: {result.equal_to_centralized}"
    )
    print(
        f"total {total:.1f} s wall, {cpu_total:.1f} s cpu (target < 300 s), peak memory "
        f"{peak_mb():,.0f} MB (target < 4096 MB); load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
