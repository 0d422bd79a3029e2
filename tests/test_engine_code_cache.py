"""The process-wide cache of compiled join code: reused across engines, never changing a match."""

from __future__ import annotations

import random

from engine_oracle import oracle, random_pattern, random_selectivities, random_stream
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.simulator.engine.drift_streams import rate_swap
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.predicates import CODE_CACHE_SIZE, compiled_source
from inev.workloads.pattern import leaf_types


def _ids(engine: Engine, events) -> set:
    out = [m for e in events for m in engine.push(e)] + list(engine.flush())
    return {tuple(e.id for e in m) for m in out}


def test_a_second_engine_of_one_pattern_compiles_nothing():
    stream = rate_swap(300, seed=1)
    compiled_source.cache_clear()

    def build() -> Engine:
        return Engine(stream.pattern, stream.window, selectivities=stream.selectivities)

    build()
    first = compiled_source.cache_info()
    assert first.misses > 0
    build()
    second = compiled_source.cache_info()
    assert second.misses == first.misses
    assert second.hits >= first.misses


def test_the_cache_is_bounded():
    compiled_source.cache_clear()
    for i in range(CODE_CACHE_SIZE + 50):
        compiled_source(f"x = {i}\n")
    assert compiled_source.cache_info().currsize == CODE_CACHE_SIZE


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**9), plan=st.sampled_from(["greedy", "zstream"]))
def test_engines_on_a_warm_cache_equal_the_oracle(seed, plan):
    """Many engines in one process (the cache warm with other patterns' and seeds' code) and
    one adaptive engine that changes plans: every one finds exactly the oracle's matches."""
    rng = random.Random(seed)
    pattern = random_pattern(rng, rng.randint(2, 4))
    events = random_stream(rng, list(leaf_types(pattern)), rng.randint(8, 16))
    window = float(rng.randint(2, 6))
    sel = random_selectivities(rng, pattern)
    expected = oracle(pattern, events, window, sel, None)
    for adaptation in (Adaptation("off"), Adaptation("invariant")):
        engine = Engine(pattern, window, selectivities=sel, plan=plan, adaptation=adaptation)
        assert _ids(engine, events) == expected


def test_a_cold_and_a_warm_adaptive_run_find_the_same_matches():
    stream = rate_swap(2000, seed=3)

    def run() -> tuple[set, int]:
        engine = stream.engine(adaptation=Adaptation("invariant"))
        return _ids(engine, stream.events), engine.counters["plan_changes"]

    compiled_source.cache_clear()
    cold = run()
    misses = compiled_source.cache_info().misses
    warm = run()
    assert cold == warm
    assert cold[1] > 0  # the rate swap makes the engine change plans
    assert compiled_source.cache_info().misses == misses
