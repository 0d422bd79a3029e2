"""Bring your own trace, end to end, on a generated bike-share-like trace.

The README's "Bring your own trace" walk-through as one script: trace -> network ->
estimated workload -> plan -> replay -> ratio. Each step is the ``inev`` command the README
shows, run in this process::

    python examples/trace_walkthrough.py [OUT_DIR] [--events 100000] [--keys 5000]

It takes about half a minute at the default size and ends with ``inev simulate``'s line
(``... ratio=... equal=true ...``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inev.common.cli import main as inev

CHAIN = "A.bid == B.bid AND B.bid == C.bid AND C.bid == D.bid"
QUERIES = {
    "format": "inev-workload/1",
    "window": 1.0,
    "queries": [
        {"name": "round_trip", "pattern": "SEQ(A, B, C, D)", "where": CHAIN},
        {"name": "busy_bike", "pattern": "AND(A, B, C, D)", "where": CHAIN},
    ],
}


def run(out: Path, events: int = 100_000, keys: int = 5_000) -> None:
    """Run every step into the folder ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    trace, net, wl = out / "trips.parquet", out / "net.json", out / "workload.json"
    # 0. the trace: 20 stations, 4 event types whose per-station rates differ widely, a bike
    #    id per event from a pool, a day-and-night profile; time in days (the window is 1)
    step("trace", "generate", "--nodes", 20, "--types", 4, "--events", events,
         "--duration", 30, "--period", 1, "--profile", "diurnal", "--skew", 1.5,
         "--keys", keys, "--key-name", "bid", "--seed", 1, "-o", trace)  # fmt: skip
    # 1. trace -> network: types, sources, each station's own rate
    step("network", "from-trace", trace, "--out-degree", 3, "--link-latency", 0.0001,
         "--seed", 1, "-o", net)  # fmt: skip
    # 2. queries joined on the bike within a day; their selectivities measured on the trace
    queries = out / "queries.json"
    queries.write_text(json.dumps(QUERIES, indent=1) + "\n", encoding="utf-8")
    step("workload", "estimate", queries, trace, "-o", wl)
    # 3. plan; 4. replay the trace through the plan, compared with centralized evaluation
    step("plan", net, wl, "-o", out / "plan.json")
    step("simulate", net, wl, out / "plan.json", "--trace", trace, "-o", out / "sim.json")


def step(*args: object) -> None:
    """One ``inev`` command (exits on an error, as the command would)."""
    print("$ inev " + " ".join(str(a) for a in args), flush=True)
    inev([str(a) for a in args])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default="trace-walkthrough")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=5_000)
    args = parser.parse_args()
    run(Path(args.out), args.events, args.keys)
