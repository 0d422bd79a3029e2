"""The size checks' largest subset bound against brute force (simulator/engine/subsets.py).

Grouping interchangeable leaves must give exactly the maximum over every subset; the relaxed
bound must never lie below it; distinct bindings must count at least every way a match can
bind distinct events to its leaves.
"""

from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from inev.simulator.engine.subsets import (
    MAX_SUBSET,
    Bindings,
    largest_subset_bound,
    leaf_groups,
    relaxed_bound,
    subset_bound,
    vector_count,
)


@st.composite
def instances(draw, bindings: bool):
    n = draw(st.integers(1, 7))
    leaves = [f"x{i}" for i in range(n)]
    pairs = list(itertools.combinations(leaves, 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    selectivity = {p: draw(st.sampled_from([0.1, 0.5])) for p in chosen}
    if not bindings:
        counts = {t: draw(st.sampled_from([-1.0, 0.0, 1.0, 2.5])) for t in leaves}
        return leaves, selectivity, counts, None
    streams = {t: draw(st.sampled_from(["C", "D"])) for t in leaves}
    events = {"C": draw(st.integers(0, 5)), "D": draw(st.integers(0, 5))}
    kleene = frozenset(t for t in leaves if draw(st.booleans()) and draw(st.booleans()))
    counts = {
        t: float(events[streams[t]]) if t in kleene else _log2(events[streams[t]]) for t in leaves
    }
    order = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    ordered = frozenset(frozenset(p) for p in order)
    strict = draw(st.booleans())
    return leaves, selectivity, counts, Bindings(streams, events, ordered, strict, kleene)


def _log2(c: int) -> float:
    return math.log2(c) if c > 0 else -math.inf


def brute(leaves, selectivity, counts, bindings) -> float:
    return max(
        subset_bound(subset, selectivity, counts, (), None, bindings)
        for size in range(1, min(len(leaves), MAX_SUBSET) + 1)
        for subset in itertools.combinations(leaves, size)
    )


@given(instances(bindings=False))
def test_grouped_leaves_give_exactly_the_exhaustive_maximum(case):
    assert largest_subset_bound(*case[:3]) == brute(*case)


@given(instances(bindings=True))
def test_grouped_leaves_give_the_exhaustive_maximum_with_distinct_bindings(case):
    assert largest_subset_bound(*case[:3], (), case[3]) == brute(*case)


@given(st.booleans().flatmap(lambda b: instances(bindings=b)))
def test_the_relaxed_bound_never_lies_below_the_maximum(case):
    leaves, selectivity, counts, bindings = case
    groups = leaf_groups(leaves, selectivity, counts, (), bindings)
    assert relaxed_bound(groups, counts, bindings) >= brute(*case) - 1e-9


@given(st.integers(1, 4), st.integers(0, 6), st.data())
def test_distinct_bindings_bound_every_binding_of_distinct_events(m, c, data):
    leaves = [f"x{i}" for i in range(m)]
    pairs = list(itertools.combinations(range(m), 2))  # (i, j): x_i before x_j
    before = data.draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    strict = data.draw(st.booleans())
    times = sorted(data.draw(st.lists(st.integers(0, 3), min_size=c, max_size=c)))
    count = 0
    for chosen in itertools.permutations(range(c), m):  # distinct events, one per leaf
        # a SEQ orders its children's events by time; under ties "any" equal times are in
        # either order, under "strict" in none
        if all(
            times[chosen[i]] < times[chosen[j]]
            or (not strict and times[chosen[i]] == times[chosen[j]])
            for i, j in before
        ):
            count += 1
    ordered = frozenset(frozenset((leaves[i], leaves[j])) for i, j in before)
    bound = Bindings(dict.fromkeys(leaves, "C"), {"C": c}, ordered, strict).log2_bindings(leaves)
    assert count <= 2**bound + 1e-9
    if len(before) == len(pairs) and strict and len(set(times)) == c:
        assert count == round(2**bound)  # a chain over distinct times: exactly C(c, m)


def test_thirty_leaves_of_one_stream_are_one_group_and_eight_vectors():
    leaves = [f"v{i}" for i in range(30)]
    counts = dict.fromkeys(leaves, 0.0)
    groups = leaf_groups(leaves, {}, counts)
    assert len(groups) == 1 and vector_count([len(g) for g in groups]) == 8


def test_thirty_distinct_leaves_fall_back_to_the_relaxed_bound():
    leaves = [f"t{i}" for i in range(30)]
    pairs = itertools.combinations(leaves, 2)
    selectivity = {p: 0.5 for i, p in enumerate(pairs) if i % 3 == 0}
    counts = {t: float(i % 4) for i, t in enumerate(leaves)}
    groups = leaf_groups(leaves, selectivity, counts)
    assert vector_count([len(g) for g in groups]) > 10_000
    # the relaxed bound: the eight largest counts, selectivities taken as 1
    assert largest_subset_bound(leaves, selectivity, counts) == sum(sorted(counts.values())[-8:])
