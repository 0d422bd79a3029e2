"""How far can partial-match shedding get? pSPICE against shedders that know the future.

Issue 26's instance: 20,000 events at times i × 0.01, types A-D weighted 4:3:2:1, an
attribute x in 0..19 (seed 9); ``SEQ(A, B, C, D)`` with ``A.x == D.x`` (keyed) or
``A.x < D.x`` (unkeyed), window 0.5, latency bound 0.2 with a 10 % safety buffer, capacity
``auto:0.6`` (0.6 of what the unshedded run needs). For the plan in pattern order
(``--adaptive off``) and inev match's default (``invariant``), the script prints the false
negatives of:

* ``pspice`` and ``random-pm``, as ``inev match`` runs them;
* ``clairvoyant-random``: the overload detector knows every item's exact work before
  processing it (the engines are copied and the item processed on the copy), and drops
  random partial matches the item is joined with until the item fits;
* ``clairvoyant-best``: the same detector, and it drops first the partial matches with the
  fewest future matches (counted in the unshedded run) per unit of window left.

No real shedder can do better than the clairvoyant ones' estimates, so their false
negatives bound what a better pSPICE model could reach on this instance. The clairvoyant
runs copy the engines for every item, so they take minutes.

    python benchmarks/bench_shedding_ceiling.py                  # 20,000 events
    python benchmarks/bench_shedding_ceiling.py --events 10000
"""

from __future__ import annotations

import argparse
import bisect
import copy
import math
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.shedding.detector import OverloadDetector
from inev.simulator.engine.shedding.node_queue import Processor, item_kind
from inev.simulator.engine.shedding.quality import run_node
from inev.simulator.engine.shedding.shedders import RandomPartialMatchShedder, buffer_costs
from inev.workloads.workload import Query, Workload

WINDOW = 0.5
BOUND = 0.2
LOAD = 1 / 0.6


def stream(events: int) -> list[Event]:
    """Issue 26's stream (the pSPICE gate's, tests/gate_figures.py)."""
    rng = random.Random(9)
    out = []
    for i in range(events):
        typ = rng.choices("ABCD", weights=[4, 3, 2, 1])[0]
        out.append(make_event(round(i * 0.01, 4), typ, 0, i, {"x": rng.randint(0, 19)}))
    return out


class ExactDetector(OverloadDetector):
    """Knows the exact work of the item being checked (processed on a copy of the engines)."""

    def __init__(self) -> None:
        super().__init__()
        self.item: Any = None
        self.engines: list[Engine] = []

    def estimate(self, kind: Any, explained: float, base: float = 1.0) -> float:
        """The item's exact work units, the state model's estimate ignored."""
        total = 0.0
        for engine in self.engines:
            twin = copy.deepcopy(engine, memo={id(engine.adaptation): engine.adaptation})
            twin._adaptive = False  # the copy must not re-plan (the original does, later)
            before = twin.counters["work"]
            twin.push(self.item)
            total += twin.counters["work"] - before
        return total

    def slope(self, kind: Any) -> float:
        """Work units are counted exactly."""
        return 1.0


class ClairvoyantProcessor(Processor):
    """A :class:`Processor` whose detector is an :class:`ExactDetector`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.detector = ExactDetector()

    def arrive(self, item: Any, time: float) -> Any:
        """Tell the detector which item and engines it is checking, then process."""
        self.detector.item = item
        self.detector.engines = [e for _, e in self._targets(item, item_kind(item))]
        return super().arrive(item, time)


class FutureShedder(RandomPartialMatchShedder):
    """Drops the partial matches with the fewest future matches per unit of window left."""

    name = "clairvoyant-best"

    def __init__(self, ends: dict[int, list[float]], window: float, seed: int = 0) -> None:
        super().__init__(seed)
        self.ends = ends
        self.window = window

    def shed(self, item: Any, kind: Any, time: float, excess: float, buffers: Sequence) -> bool:
        """Drop by future matches per window left until ``excess`` is covered."""
        scored = []
        for b in buffers:
            runner, node = b[0], b[1]
            scores = []
            for pm in runner.buffers[node]:
                events = [v for v in pm[3] if v is not None]
                left = max(self.window - (time - pm[0]), 1e-3)
                future = 0
                if len(events) == 1 and not isinstance(events[0], tuple):
                    ends = self.ends.get(events[0].id, [])
                    future = len(ends) - bisect.bisect_right(ends, time)
                scores.append(future / left)
            scored.append((runner, node, np.array(scores) + 1e-12, buffer_costs(b)))
        self._drop(scored, excess, free=False)
        return False


def run(condition: str, adaptive: str, events: list[Event], strategy: str) -> tuple[int, int, int]:
    """(false negatives, reference matches, violations) of one strategy."""
    workload = Workload.build(WINDOW, [Query.build("q", "SEQ(A, B, C, D)", where=condition)])

    def make() -> dict[str, Engine]:
        q = workload.queries[0]
        return {"q": Engine.from_query(q, workload, adaptation=Adaptation(adaptive))}

    ref_proc, ref_out, _ = run_node(make, events, math.inf)
    capacity = ref_proc.stats.work / (events[-1].time - events[0].time) / LOAD
    reference = {tuple(e.id for e in m) for m in ref_out["q"]}
    ends: dict[int, list[float]] = defaultdict(list)
    for m in ref_out["q"]:
        for e in m:
            ends[e.id].append(max(x.time for x in m))
    for times in ends.values():
        times.sort()
    options: dict[str, Any] = {"latency_bound": BOUND, "safety": 0.1 * BOUND, "seed": 0}
    if strategy == "clairvoyant-random":
        proc = ClairvoyantProcessor(make(), capacity, shedder="random-pm", **options)
    elif strategy == "clairvoyant-best":
        proc = ClairvoyantProcessor(
            make(), capacity, shedder=FutureShedder(ends, WINDOW), **options
        )
    else:
        proc = Processor(make(), capacity, shedder=strategy, **options)
    found = set()
    for e in events:
        for _, m in proc.arrive(e, e.time).outputs:
            found.add(tuple(x.id for x in m))
    for _, m in proc.finish().outputs:
        found.add(tuple(x.id for x in m))
    return len(reference - found), len(reference), proc.stats.violations


def main() -> None:
    """Print one line per instance and strategy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    args = parser.parse_args()
    events = stream(args.events)
    strategies = ("pspice", "random-pm", "clairvoyant-random", "clairvoyant-best")
    for adaptive in ("off", "invariant"):
        for name, condition in (("keyed", "A.x == D.x"), ("unkeyed", "A.x < D.x")):
            for strategy in strategies:
                fn, total, violations = run(condition, adaptive, events, strategy)
                print(
                    f"adaptive={adaptive:<9} {name:<7} {strategy:<18} false negatives "
                    f"{fn:>7} of {total} ({fn / total:.1%}), {violations} violations",
                    flush=True,
                )


if __name__ == "__main__":
    main()
