"""The engine's public API (``inev.simulator.engine.api``) against the brute-force oracle."""

from __future__ import annotations

import random

from engine_oracle import oracle, random_pattern, random_stream
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.simulator.engine.api import MatchOptions, compile_workload
from inev.workloads.pattern import leaf_types
from inev.workloads.workload import Query, Workload


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), chunk=st.integers(1, 7))
def test_run_finds_what_the_oracle_finds_flat_or_chunked(seed, chunk):
    rng = random.Random(seed)
    patterns = [random_pattern(rng, rng.randint(2, 4)) for _ in range(2)]
    types = sorted({t for p in patterns for t in leaf_types(p)})
    events = random_stream(rng, types, rng.randint(8, 16))
    window = float(rng.randint(2, 6))
    wl = Workload.build(window, [Query.build(f"q{i}", str(p)) for i, p in enumerate(patterns)])
    compiled = compile_workload(wl, MatchOptions(guard=False))
    flat = compiled.run(events)
    chunked = compiled.run(events[i : i + chunk] for i in range(0, len(events), chunk))
    for i, pattern in enumerate(patterns):
        expected = oracle(pattern, events, window)
        assert set(flat.matches[f"q{i}"]) == expected
        assert len(flat.matches[f"q{i}"]) == len(expected)  # each match once
        assert sorted(chunked.matches[f"q{i}"]) == sorted(flat.matches[f"q{i}"])
    assert flat.events == chunked.events == len(events)
