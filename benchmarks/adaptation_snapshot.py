"""Byte-identity check for changes to the adaptive engine's decisions (no timing): every
variant of the invariant method (defaults, d = 0, d = average, gap selection, K = 2) and one
threshold method, greedy and ZStream plans, over the drift streams of the invariant paper's
figures (rate swap; traffic-like, stocks-like and stationary at pattern sizes 4-8; 20,000
events each): every output's event ids, the engine's counters (checks, violations,
re-optimisations, plan changes, partial matches, work) and its final plans, as one JSON file.
Compare two checkouts' outputs with ``cmp`` (about 20 s).

Run: ``python benchmarks/adaptation_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inev.simulator.engine.drift_streams import rate_swap, stationary, stocks_like, traffic_like
from inev.simulator.engine.engine import Adaptation
from inev.simulator.engine.events import Event

METHODS = {
    "invariant": Adaptation("invariant"),
    "invariant-d0": Adaptation("invariant", distance=0.0),
    "invariant-average": Adaptation("invariant", distance="average"),
    "invariant-gap": Adaptation("invariant", selection="gap"),
    "invariant-k2": Adaptation("invariant", k=2),
    "threshold-0.5": Adaptation("threshold", threshold=0.5),
}


def ids(output: list) -> list:
    """Event ids of an engine's outputs (a match: its events' ids)."""
    return [m.id if isinstance(m, Event) else [e.id for e in m] for m in output]


def run_all(n: int = 20_000) -> dict:
    """Every stream, plan and method's outputs, counters and plans, by name."""
    streams = [("rate-swap", rate_swap(n, seed=1))]
    for name, make in (
        ("traffic", traffic_like),
        ("stocks", stocks_like),
        ("stationary", stationary),
    ):
        streams += [(f"{name}-{size}", make(n, seed=1, size=size)) for size in range(4, 9)]
    out: dict = {}
    for name, s in streams:
        for plan in ("greedy", "zstream"):
            for label, adaptation in METHODS.items():
                engine = s.engine(plan, adaptation)
                found = [ids(engine.push(e)) for e in s.events]
                found.append(ids(engine.flush()))
                out[f"{name}/{plan}/{label}"] = {
                    "outputs": [f for f in found if f],
                    "counters": engine.counters,
                    "plans": [str(p) for p in engine.plans],
                }
    return out


def main() -> None:
    """Write the documents to the path given."""
    documents = run_all()
    Path(sys.argv[1]).write_text(json.dumps(documents, indent=0, sort_keys=True) + "\n")
    print(f"{len(documents)} adaptive engine runs written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
