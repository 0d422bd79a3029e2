"""The engine against the brute-force oracle on random small streams and patterns."""

from __future__ import annotations

import random
from collections import Counter

from engine_oracle import (
    oracle,
    random_pattern,
    random_selectivities,
    random_stream,
    random_where,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.evaluation_plans import OrderPlan, TreePlan, all_orders, all_trees
from inev.workloads.expressions import parse_condition
from inev.workloads.pattern import has_operator, leaf_types


def _instance(seed: int, size: int | None = None, n: int | None = None, with_where: bool = True):
    rng = random.Random(seed)
    size = size or rng.randint(2, 5)
    n = n or rng.randint(8, 18)
    pattern = random_pattern(rng, size)
    events = random_stream(rng, list(leaf_types(pattern)), n)
    window = float(rng.randint(2, 7))
    sel = random_selectivities(rng, pattern)
    where = random_where(rng, pattern) if with_where and rng.random() < 0.5 else None
    return rng, pattern, events, window, sel, where


def _run(engine: Engine, events) -> Counter:
    out = []
    for e in events:
        out.extend(engine.push(e))
    out.extend(engine.flush())
    return Counter(tuple(e.id for e in m) for m in out)


def _expected(pattern, events, window, sel, where):
    cond = parse_condition(where) if where else None
    return oracle(pattern, events, window, sel, cond)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**9), plan=st.sampled_from(["greedy", "zstream"]))
def test_default_plans_equal_oracle(seed, plan):
    _, pattern, events, window, sel, where = _instance(seed)
    engine = Engine(pattern, window, selectivities=sel, where=where, plan=plan)
    got = _run(engine, events)
    assert set(got) == _expected(pattern, events, window, sel, where)
    assert all(v == 1 for v in got.values())


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_every_plan_equals_oracle(seed):
    rng, pattern, events, window, sel, where = _instance(seed)
    if has_operator(pattern, "OR"):
        return
    expected = _expected(pattern, events, window, sel, where)
    probe = Engine(pattern, window, selectivities=sel, where=where)
    n = len(probe.branches[0].units)
    plans = [OrderPlan(o) for o in all_orders(n)] + [TreePlan(t) for t in all_trees(n)]
    for plan in rng.sample(plans, min(8, len(plans))):
        engine = Engine(pattern, window, selectivities=sel, where=where, plan=plan)
        got = _run(engine, events)
        assert set(got) == expected, plan
        assert all(v == 1 for v in got.values())


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), lateness=st.integers(0, 4))
def test_shuffled_input_with_watermark_equals_oracle(seed, lateness):
    rng, pattern, events, window, sel, where = _instance(seed)
    # shuffle within the lateness bound: an event may come after later ones, never
    # after an event more than `lateness` time units younger
    keyed = sorted(events, key=lambda e: e.time + rng.uniform(0, lateness))
    engine = Engine(pattern, window, selectivities=sel, where=where, lateness=float(lateness))
    got = _run(engine, keyed)
    assert engine.counters["late"] == 0
    assert set(got) == _expected(pattern, events, window, sel, where)
    assert all(v == 1 for v in got.values())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_arbitrary_order_with_explicit_watermarks(seed):
    rng, pattern, events, window, sel, where = _instance(seed)
    shuffled = events[:]
    rng.shuffle(shuffled)
    engine = Engine(pattern, window, selectivities=sel, where=where, lateness=None)
    out = []
    for e in shuffled:
        out.extend(engine.push(e))
    out.extend(engine.flush())
    got = Counter(tuple(e.id for e in m) for m in out)
    assert set(got) == _expected(pattern, events, window, sel, where)
    assert all(v == 1 for v in got.values())


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    kind=st.sampled_from(["always", "invariant", "threshold"]),
    plan=st.sampled_from(["greedy", "zstream"]),
)
def test_adaptive_engine_equals_oracle(seed, kind, plan):
    _, pattern, events, window, sel, where = _instance(seed, n=14)
    adaptation = Adaptation(
        kind, distance=0.0, threshold=0.1, check_every=2, span=3.0, sample_every=1
    )
    engine = Engine(
        pattern, window, selectivities=sel, where=where, plan=plan, adaptation=adaptation
    )
    got = _run(engine, events)
    assert set(got) == _expected(pattern, events, window, sel, where)
    assert all(v == 1 for v in got.values())


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_forced_plan_replacements_lose_and_duplicate_nothing(seed):
    rng, pattern, events, window, sel, where = _instance(seed, n=14)
    if has_operator(pattern, "OR"):
        return
    engine = Engine(pattern, window, selectivities=sel, where=where)
    n = len(engine.branches[0].units)
    plans = [OrderPlan(o) for o in all_orders(n)] + [TreePlan(t) for t in all_trees(n)]
    out = []
    changes = 0
    for e in events:
        if rng.random() < 0.3:
            engine.replace_plan(engine.branches[0], rng.choice(plans))
            changes += 1
        out.extend(engine.push(e))
    out.extend(engine.flush())
    got = Counter(tuple(e.id for e in m) for m in out)
    assert engine.counters["plan_changes"] == changes
    assert set(got) == _expected(pattern, events, window, sel, where)
    assert all(v == 1 for v in got.values())


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_partial_outputs_are_the_distinct_selected_events(seed):
    rng, pattern, events, window, sel, where = _instance(seed)
    types = sorted(set(leaf_types(pattern)))
    selected = set(rng.sample(types, rng.randint(1, len(types))))
    expected_matches = _expected(pattern, events, window, sel, where)
    by_id = {e.id: e for e in events}
    expected = {i for m in expected_matches for i in m if by_id[i].type in selected}
    engine = Engine(pattern, window, selectivities=sel, where=where, output=selected)
    out = []
    for e in events:
        out.extend(engine.push(e))
    out.extend(engine.flush())
    ids = [e.id for e in out]
    assert sorted(ids) == sorted(expected)
    assert len(ids) == len(set(ids))
