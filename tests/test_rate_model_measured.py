"""The rate model against counted matches: Poisson streams through the engine.

The model (:mod:`inev.workloads.rates`) says how many matches a pattern has per time unit; a
projection vertex sends one message per match and link, so this is what makes a plan's ψ
agree with the messages a simulation counts. The paper's SEQ line ignored the order and
overpriced a SEQ of 4 types about 6 times; counted here for 2 to 5 types, nested operators
and a window other than 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from inev.simulator.engine.events import make_event
from inev.simulator.engine.matching import match_ids
from inev.workloads.pattern import leaf_types
from inev.workloads.rates import windowed_rate
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Query, Workload


def poisson_events(rates: dict[str, float], duration: float, seed: int) -> list:
    """Time-ordered events of independent Poisson sources, one per type."""
    rng = np.random.default_rng(seed)
    out = []
    for t, r in sorted(rates.items()):
        times = np.sort(rng.uniform(0.0, duration, rng.poisson(r * duration)))
        out += [(float(x), t) for x in times]
    out.sort()
    return [make_event(time, t, 0, i) for i, (time, t) in enumerate(out)]


CASES = [
    # pattern, rate per type, window, duration: about 2,000-6,000 matches each
    ("SEQ(A, B)", 4.0, 1.0, 200.0),
    ("SEQ(A, B, C)", 4.0, 1.0, 150.0),
    ("SEQ(A, B, C, D)", 4.0, 1.0, 300.0),
    ("SEQ(A, B, C, D, E)", 4.0, 1.0, 300.0),
    ("AND(A, B, C)", 2.5, 1.0, 100.0),
    ("SEQ(A, AND(B, C))", 4.0, 1.0, 150.0),
    ("AND(A, SEQ(B, C))", 3.0, 1.0, 150.0),
    ("SEQ(A, B, C, D)", 8.0, 0.5, 300.0),
]


@pytest.mark.parametrize(("pattern", "rate", "window", "duration"), CASES)
def test_modelled_matches_agree_with_counted_ones(pattern, rate, window, duration):
    tree = parse_pattern(pattern)
    rates = dict.fromkeys(leaf_types(tree), rate)
    wl = Workload.build(window, [Query.build("q", pattern)])
    events = poisson_events(rates, duration, seed=7)
    counted = sum(match_ids(wl, events)["q"].values())
    # the model at the rates the trace realised (a type's count varies by a few per cent,
    # and a product of five such counts by more); the last window's matches are cut off
    realised = {t: sum(1 for e in events if e.type == t) / duration for t in rates}
    modelled = windowed_rate(tree, realised, {}, window) * (duration - window)
    assert counted > 1500
    print(f"{pattern} w={window}: counted {counted}, modelled {modelled:.0f}")
    assert abs(counted / modelled - 1) <= 0.15, (counted, modelled)
