"""The headline figures the quality gates assert (``tests/test_quality_gates.py``).

Each gate's figure is computed here, by the same function the test calls, so that the
command quoted next to a floor prints the figure the floor was measured from::

    python tests/gate_figures.py            # every figure
    python tests/gate_figures.py shedding   # one group

The instances are fixed and seeded: the same code gives the same figures on any machine.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from typing import Any

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.shedding.quality import run_node, run_overload
from inev.workloads.workload import Query, Workload

# ----------------------------------------------------------------------------- shedding
SHED_WINDOW = 0.5
SHED_BOUND = 0.2
SHED_QUERIES = {"keyed": "A.x == D.x", "unkeyed": "A.x < D.x"}
"""The pSPICE gate's queries: SEQ(A, B, C, D) with these conditions (issue 26's runs)."""


def shedding_stream(events: int = 10_000, seed: int = 9) -> list[Event]:
    """Events at times i × 0.01, types A-D weighted 4:3:2:1, an attribute x in 0..19."""
    rng = random.Random(seed)
    out = []
    for i in range(events):
        typ = rng.choices("ABCD", weights=[4, 3, 2, 1])[0]
        out.append(make_event(round(i * 0.01, 4), typ, 0, i, {"x": rng.randint(0, 19)}))
    return out


def shedding_figures(
    condition: str, adaptive: str, load: float, strategies: tuple[str, ...], events: int = 10_000
) -> dict[str, dict[str, Any]]:
    """``inev match``'s overloaded run on the pSPICE gate's stream: capacity ``1 / load`` of
    what the unshedded run needs, latency bound 0.2 with the default safety (10 %); per
    strategy its false negatives, false positives and bound violations."""
    workload = Workload.build(
        SHED_WINDOW, [Query.build("q", "SEQ(A, B, C, D)", where=SHED_QUERIES[condition])]
    )
    stream = shedding_stream(events)

    def make() -> dict[str, Engine]:
        return {
            q.name: Engine.from_query(q, workload, adaptation=Adaptation(adaptive))
            for q in workload.queries
        }

    ref_proc, ref_out, _ = run_node(make, stream, math.inf)
    reference = (ref_out, ref_proc.stats.work)
    out = {}
    for strategy in strategies:
        result, _ = run_overload(
            make,
            stream,
            f"auto:{1 / load}",
            SHED_BOUND,
            strategy,
            safety=0.1 * SHED_BOUND,
            reference=reference,
        )
        out[strategy] = {
            "false_negatives": result["false_negatives"],
            "false_positives": result["false_positives"],
            "violations": result["bound_violations"],
            "matches": len(ref_out["q"]),
        }
    return out


def _print_shedding() -> None:
    strategies = ("pspice", "random-pm", "random-event")
    for adaptive in ("off", "invariant"):
        for condition in SHED_QUERIES:
            for load in (1.6, 2.5):
                figures = shedding_figures(condition, adaptive, load, strategies)
                pspice = figures["pspice"]["false_negatives"]
                cells = ", ".join(
                    f"{s} {f['false_negatives']} (fp {f['false_positives']}, "
                    f"viol {f['violations']})"
                    for s, f in figures.items()
                )
                ratio = pspice / max(figures["random-pm"]["false_negatives"], 1)
                print(
                    f"shedding {condition} adaptive={adaptive} load {load}: of "
                    f"{figures['pspice']['matches']} matches, {cells}; "
                    f"pspice / random-pm {ratio:.3f}"
                )


GROUPS: dict[str, Callable[[], None]] = {"shedding": _print_shedding}


if __name__ == "__main__":
    for name in sys.argv[1:] or list(GROUPS):
        GROUPS[name]()
