"""The rate model of §3.2 on hand-computed examples, and single selectivities."""

from __future__ import annotations

import math

import pytest

from inev.workloads.rates import (
    log2_rate,
    pattern_selectivity,
    rate,
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
        # sigma(A,B) charged to the SEQ (their lowest common ancestor); 3 events, 2 of the
        # 3! orders allowed (A first): 3 * 2 / 3! = 1 times 0.5 * (2 * 3 * 5)
        ("SEQ(A, AND(B, C))", {("A", "B"): 0.5}, 15.0),
        # sigma(B,C) charged to the AND: 0.25 * (2 * 3 * 5) * 1
        ("SEQ(A, AND(B, C))", {("B", "C"): 0.25}, 7.5),
        # one order of 3! for 3 events: 3 / 6 = 1/2 of 2 * 3 * 5; of 4! for 4: 4 / 24
        ("SEQ(A, B, C)", {}, 15.0),
        ("SEQ(A, B, C, D)", {}, 210.0 / 6),
        # AND(A, SEQ(B, C)): 3 of the 6 orders (B before C): 3 * 3 / 6 = 1.5
        ("AND(A, SEQ(B, C))", {}, 45.0),
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


def test_rates_per_time_unit_scale_with_the_window():
    # SEQ(A, B) over Poisson sources with window w: every A meets the B events of the next w
    # time units, R(A) · R(B) · w matches per time unit; AND counts both orders, twice that;
    # a single type is unchanged; window 1 is the paper's formula
    from inev.workloads.rates import windowed_rate

    rates = {"A": 2.0, "B": 3.0}
    assert windowed_rate(parse_pattern("SEQ(A, B)"), rates, {}, 0.5) == pytest.approx(3.0)
    assert windowed_rate(parse_pattern("AND(A, B)"), rates, {}, 0.5) == pytest.approx(6.0)
    assert windowed_rate(parse_pattern("SEQ(A, B)"), rates, {}, 1.0) == rate(
        parse_pattern("SEQ(A, B)"), rates, {}
    )
    # three types in order: w^2 / 2!
    three = {"A": 2.0, "B": 3.0, "C": 5.0}
    assert windowed_rate(parse_pattern("SEQ(A, B, C)"), three, {}, 0.1) == pytest.approx(
        30.0 * 0.01 / 2
    )
