"""Reporting a run: what every plan execution adds to (matches at sinks, latencies, counters).

>>> from inev.simulator.engine.events import make_event
>>> tally = Tally()
>>> tally.expect(["q"])
>>> tally.record(("q",), (make_event(1.0, "A", 0, 1), make_event(2.0, "B", 0, 2)), now=2.5)
>>> dict(tally.sink_found["q"]), list(tally.latencies["q"])
({(1, 2): 1}, [0.5])
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def _latencies() -> array:
    """An empty bin of detection latencies (a function, so that a tally pickles)."""
    return array("d")


@dataclass
class Tally:
    """What every execution of a run adds to: matches at sinks, latencies, counters.

    ``sink_found[q]`` counts each match of query ``q`` (the tuple of its events' ids) found
    at its sink, ``latencies[q]`` the detection latency of each (time found - its latest
    event's time); ``processed`` counts the items each node's engines took, ``unused`` the
    events no vertex uses (per type), ``late`` the items that arrived after their engine's
    watermark (never hidden; see :mod:`inev.simulator.execution`); ``detected[k]`` the
    detection latencies recorded in bin ``k`` of width ``bin``, ``occurred[k]`` the matches
    recorded whose latest event is in bin ``k`` (:mod:`inev.simulator.timeline`).
    """

    sink_found: dict[str, Counter] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    processed: Counter = field(default_factory=Counter)
    unused: Counter = field(default_factory=Counter)
    late: int = 0
    bin: float = 1.0
    detected: defaultdict = field(default_factory=lambda: defaultdict(_latencies))
    occurred: Counter = field(default_factory=Counter)

    def expect(self, queries: Iterable[str]) -> None:
        """Make room for the matches of ``queries`` (their sinks are installed)."""
        for q in queries:
            self.sink_found.setdefault(q, Counter())
            self.latencies.setdefault(q, [])

    def record(self, queries: Sequence[str], match: Sequence[Any], now: float) -> None:
        """A sink of ``queries`` found ``match`` at time ``now``."""
        ids = tuple(e.id for e in match)
        last = max(e.time for e in match)
        detected = self.detected[int(now / self.bin)]
        self.occurred[int(last / self.bin)] += len(queries)
        for q in queries:
            self.sink_found[q][ids] += 1
            self.latencies[q].append(now - last)
            detected.append(now - last)


def per_node(runs: Iterable[Any], figure: str) -> Counter:
    """A figure of the vertex runs' engines summed per node (keys: node names as strings):
    ``partial_matches`` held, or an engine counter such as ``reoptimizations``."""
    out: Counter = Counter()
    for run in runs:
        engine = run.engine
        value = (
            engine.partial_match_count() if figure == "partial_matches" else engine.counters[figure]
        )
        out[str(run.vertex.node)] += value
    return out
