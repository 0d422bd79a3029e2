"""The rate model of §3.2 on hand-computed examples, and single selectivities."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inev.workloads.rates import (
    log2_rate,
    pattern_selectivity,
    rate,
    single_selectivities,
    strip_kleene,
)
from inev.workloads.syntax import parse_pattern

RATES = {"A": 2.0, "B": 3.0, "C": 5.0, "D": 7.0}


@pytest.mark.parametrize(
    ("pattern", "selectivity", "expected"),
    [
        ("A", {}, 2.0),
        ("SEQ(A, B)", {}, 6.0),
        ("SEQ(A, B)", {("A", "B"): 0.1}, 0.6),
        ("AND(A, B)", {("A", "B"): 0.1}, 2 * 0.1 * 6),
        ("AND(A, B, C)", {}, 3 * 30.0),
        # sigma(A,B) charged to the SEQ (their lowest common ancestor): 0.5 * 2 * (2 * 3 * 5)
        ("SEQ(A, AND(B, C))", {("A", "B"): 0.5}, 30.0),
        # sigma(B,C) charged to the AND: 2 * (2 * 0.25 * 3 * 5)
        ("SEQ(A, AND(B, C))", {("B", "C"): 0.25}, 15.0),
        ("OR(A, B)", {("A", "B"): 0.5}, 5.0),
        ("SEQ(D, OR(A, B))", {("A", "D"): 0.5}, 0.5 * 7 * 5),
        ("NSEQ(A, B, C)", {("A", "C"): 0.1, ("A", "B"): 0.5}, 0.1 * 2 * 5),
        ("KL(C)", {}, 32.0),
        ("SEQ(KL(C), A)", {("A", "C"): 0.5}, 0.5 * 32 * 2),
    ],
)
def test_hand_computed_rates(pattern, selectivity, expected):
    assert rate(parse_pattern(pattern), RATES, selectivity) == pytest.approx(expected)


def test_kleene_rate_stays_exact_in_log_space():
    tree = parse_pattern("SEQ(KL(A), B)")
    rates = {"A": 5000.0, "B": 4.0}
    assert log2_rate(tree, rates, {("A", "B"): 0.5}) == pytest.approx(5000 + 2 - 1)
    assert rate(tree, rates) == math.inf


def test_strip_kleene_gives_q_nkl():
    assert str(strip_kleene(parse_pattern("SEQ(KL(A), AND(B, KL(C)))"))) == "SEQ(A, AND(B, C))"


def test_pattern_selectivity_is_the_product_of_pairs():
    sel = {("A", "B"): 0.5, ("B", "C"): 0.2, ("A", "D"): 0.1}
    assert pattern_selectivity("ABC", sel) == pytest.approx(0.1)
    assert pattern_selectivity("AD", sel) == pytest.approx(0.1)
    assert pattern_selectivity("C", sel) == 1.0


@given(
    st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=6, unique=True),
    st.dictionaries(
        st.sampled_from([("A", "B"), ("A", "C"), ("B", "D"), ("C", "E"), ("E", "F"), ("D", "F")]),
        st.floats(0.001, 1.0),
    ),
    st.integers(0, 2**31),
)
def test_single_selectivities_multiply_to_the_projection_selectivity(types, sel, seed):
    single = single_selectivities(types, sel, seed)
    assert set(single) == set(types)
    total = pattern_selectivity(types, sel)
    assert math.prod(single.values()) == pytest.approx(total, rel=1e-9)
    assert all(total - 1e-12 <= s <= 1.0 for s in single.values())
    assert single == single_selectivities(list(reversed(types)), sel, seed)
