"""The cheaper invariant checks decide exactly as the plain ones: ZStream costs from flat
programs against the recursive :func:`tree_cost`, and the noise estimate restricted to the
values a condition reads against the one over every value (hypothesis properties)."""

from __future__ import annotations

import dataclasses
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from inev.simulator.engine.evaluation_plans import all_trees
from inev.simulator.engine.greedy import greedy_plan, step_value
from inev.simulator.engine.invariant_noise import (
    coefficients,
    pair_index,
    pair_of,
    perturbed,
)
from inev.simulator.engine.invariants import InvariantDecision, select_invariants
from inev.simulator.engine.statistics import Stats
from inev.simulator.engine.zstream import (
    SplitCosts,
    _range_cardinalities,
    cardinality,
    tree_cost,
    zstream_plan,
)


def noisy_stats(rng: random.Random, n: int) -> Stats:
    """Rates over two orders of magnitude, some selectivities, a variance for every value."""
    rates = tuple(rng.uniform(0.05, 9.0) for _ in range(n))
    sel = [[1.0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < 0.6:
            sel[i][j] = sel[j][i] = rng.uniform(0.02, 1.0)
    m = n + n * (n - 1) // 2
    variance = tuple(rng.choice([0.0, rng.uniform(1e-4, 0.5)]) for _ in range(m))
    return Stats(rates, tuple(tuple(r) for r in sel), variance)


def drifted(rng: random.Random, stats: Stats) -> Stats:
    """Every value moved by up to a factor 4, variances moved too."""
    n = len(stats.rates)
    rates = tuple(r * rng.uniform(0.25, 4.0) for r in stats.rates)
    sel = [list(r) for r in stats.sel]
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < 0.4:
            sel[i][j] = sel[j][i] = min(1.0, sel[i][j] * rng.uniform(0.25, 4.0))
    variance = tuple(v * rng.uniform(0.5, 2.0) for v in stats.variance or ())
    return Stats(rates, tuple(tuple(r) for r in sel), variance)


def test_pair_index_inverts_pair_of():
    for n in range(2, 9):
        seen = []
        for i, j in itertools.combinations(range(n), 2):
            k = pair_index(i, j, n)
            assert pair_of(k, n) == (i, j) and pair_index(j, i, n) == k
            seen.append(k)
        # the pairs take the indices after the rates, in Stats.values order
        assert seen == list(range(n, n + n * (n - 1) // 2))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(2, 7))
def test_flat_program_gives_the_recursive_cost_to_the_bit(seed, n):
    rng = random.Random(seed)
    stats = noisy_stats(rng, n)
    trees = all_trees(n)
    costs = SplitCosts(n)  # one memo over trees sharing subtrees, several statistics
    others = [drifted(rng, stats) for _ in range(3)]
    for tree in rng.sample(trees, min(len(trees), 12)):
        ref = costs.intern(tree)
        for s in [stats, *others]:
            assert costs.cost(ref, s) == tree_cost(tree, s)


def test_flat_program_by_hand():
    # rates 2, 3, 5; sel(0, 1) = 0.5, sel(1, 2) = 0.1: ((0, 1), 2) costs 2 + 3 + 2·3·0.5
    # (= 3) + 5 + 2·3·0.5·5·1·0.1 (= 1.5) = 14.5
    stats = Stats((2.0, 3.0, 5.0), ((1, 0.5, 1), (0.5, 1, 0.1), (1, 0.1, 1)))
    costs = SplitCosts(3)
    assert costs.cost(costs.intern(((0, 1), 2)), stats) == 14.5


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    n=st.integers(2, 7),
    generator=st.sampled_from(["greedy", "zstream"]),
)
def test_a_condition_reads_only_what_it_says(seed, n, generator):
    # perturbing any value outside a condition's reads leaves both sides' floats unchanged
    # (what lets the noise estimate skip them)
    rng = random.Random(seed)
    stats = noisy_stats(rng, n)
    _, conditions = (greedy_plan if generator == "greedy" else zstream_plan)(stats)
    m = n + n * (n - 1) // 2
    for c in conditions:
        reads = c.read_set()
        assert reads is not None and set(reads) <= set(range(m))
        for k in set(range(m)) - set(reads):
            s = perturbed(stats, k, 3.0)
            assert c.chosen(s) == c.chosen(stats) and c.alternative(s) == c.alternative(stats)


def _plain(conditions):
    """The same conditions without their reads: the unrestricted noise estimate."""
    return [dataclasses.replace(c, reads=None) for c in conditions]


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    n=st.integers(2, 7),
    k=st.integers(1, 3),
    generator=st.sampled_from(["greedy", "zstream"]),
    selection=st.sampled_from(["gap", "probability"]),
)
def test_restricted_noise_estimate_decides_as_the_full_one(seed, n, k, generator, selection):
    rng = random.Random(seed)
    stats = noisy_stats(rng, n)
    _, conditions = (greedy_plan if generator == "greedy" else zstream_plan)(stats)
    for c in conditions:
        assert coefficients(c.chosen, c.alternative, stats, reads=c.read_set()) == coefficients(
            c.chosen, c.alternative, stats
        )
    fast = select_invariants(conditions, stats, k, selection)
    slow = select_invariants(_plain(conditions), stats, k, selection)
    assert [c.label for c in fast] == [c.label for c in slow]
    a, b = InvariantDecision(k, "auto", selection), InvariantDecision(k, "auto", selection)
    a.reset(conditions, stats)
    b.reset(_plain(conditions), stats)
    for _ in range(15):
        now = drifted(rng, stats)
        assert a(now) == b(now)
        assert a.coefficients == b.coefficients


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(1, 8))
def test_range_cardinalities_are_cardinality_to_the_bit(seed, n):
    rng = random.Random(seed)
    stats = noisy_stats(rng, n)
    cards = _range_cardinalities(stats)
    assert set(cards) == {(i, j) for i in range(n) for j in range(i + 1, n + 1)}
    for (i, j), value in cards.items():
        assert value == cardinality(tuple(range(i, j)), stats)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(1, 8))
def test_greedy_order_is_the_argmin_of_step_value(seed, n):
    # Algorithm 2 by its definition: at each position the unit of least step value (ties:
    # the lowest index), the step values computed by the conditions' own functions
    rng = random.Random(seed)
    stats = noisy_stats(rng, n)
    plan, _ = greedy_plan(stats)
    remaining, order = list(range(n)), []
    for _ in range(n):
        best = min(remaining, key=lambda j: (step_value(j, tuple(order))(stats), j))
        order.append(best)
        remaining.remove(best)
    assert plan.order == tuple(order)
