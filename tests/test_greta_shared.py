"""The shared sliding-window graph equals the per-window stores and a brute-force oracle."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_greta_random import brute_force_results, random_events, random_query

from inev.simulator.engine.greta import greta_aggregates
from inev.workloads.workload import Query


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    shape=st.sampled_from([(6.0, 2.0), (4.0, 3.0), (5.0, 1.0), (3.0, 5.0), (8.0, 4.0)]),
)
def test_shared_equals_per_window_and_brute_force(seed: int, shape: tuple) -> None:
    rng = random.Random(seed)
    query = random_query(rng, grouped=rng.random() < 0.3)
    events = random_events(rng, ("A", "B", "C", "D"), rng.randint(1, 9))
    window, slide = shape
    shared = list(greta_aggregates(query, events, window, slide, shared=True))
    per_window = list(greta_aggregates(query, events, window, slide))
    assert shared == per_window
    assert shared == brute_force_results(query, events, window, slide)


def test_kleene_count_by_hand_in_two_windows() -> None:
    # KL(A) at times 1, 4, 7; window 6 sliding by 3: windows [0,6) {1,4} -> 3 trends,
    # [3,9) {4,7} -> 3 trends, [6,12) {7} -> 1 trend
    q = Query.build("q", "KL(A)", returns="COUNT(*)")
    events = [{"time": t, "type": "A"} for t in (1.0, 4.0, 7.0)]
    got = [r["value"] for r in greta_aggregates(q, events, 6.0, 3.0)]
    assert got == [3, 3, 1]
