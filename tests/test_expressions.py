"""The where-clause language and return aggregates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.workloads.expressions import (
    Aggregate,
    Arith,
    Attr,
    Compare,
    Const,
    Logic,
    Negate,
    Not,
    condition_types,
    conjuncts,
    evaluate,
    parse_aggregate,
    parse_condition,
)


def test_precedence_and_structure():
    c = parse_condition("A.id == B.id AND C.v > 10 OR NOT D.w * 2 + 1 <= -3")
    assert c == Logic(
        "OR",
        (
            Logic(
                "AND",
                (
                    Compare("==", Attr("A", "id"), Attr("B", "id")),
                    Compare(">", Attr("C", "v"), Const(10)),
                ),
            ),
            Not(
                Compare("<=", Arith("+", Arith("*", Attr("D", "w"), Const(2)), Const(1)), Const(-3))
            ),
        ),
    )
    assert condition_types(c) == {"A", "B", "C", "D"}


def test_next_and_parenthesised_arithmetic():
    c = parse_condition("S.price * 1.05 < NEXT(S).price AND (S.v + 1) * 2 >= 4")
    first, second = conjuncts(c)
    assert first == Compare(
        "<", Arith("*", Attr("S", "price"), Const(1.05)), Attr("S", "price", next=True)
    )
    assert second.left == Arith("*", Arith("+", Attr("S", "v"), Const(1)), Const(2))
    assert evaluate(first, {"S": {"price": 100}}, {"S": {"price": 106}}) is True
    assert evaluate(first, {"S": {"price": 100}}, {"S": {"price": 105}}) is False


def test_evaluation_by_hand():
    c = parse_condition("A.x % 3 == 1 AND (B.name == 'ab' OR B.y / 2 > A.x)")
    assert evaluate(c, {"A": {"x": 4}, "B": {"name": "ab", "y": 0}}) is True
    assert evaluate(c, {"A": {"x": 4}, "B": {"name": "zz", "y": 10}}) is True
    assert evaluate(c, {"A": {"x": 4}, "B": {"name": "zz", "y": 8}}) is False
    assert evaluate(c, {"A": {"x": 5}, "B": {"name": "ab", "y": 0}}) is False
    # a missing attribute or a division by zero makes the comparison false
    assert evaluate(parse_condition("A.q > 1"), {"A": {}}) is False
    assert evaluate(parse_condition("A.x / 0 > 1"), {"A": {"x": 1}}) is False


names = st.sampled_from(["A", "B", "C"])
attrs = st.builds(Attr, names, st.sampled_from(["x", "y", "id"]), st.booleans())
consts = st.one_of(st.integers(0, 100).map(Const), st.sampled_from([0.5, 1.05, 2.25]).map(Const))
exprs = st.recursive(
    st.one_of(attrs, consts),
    lambda inner: st.one_of(
        st.builds(Arith, st.sampled_from(["+", "-", "*", "/", "%"]), inner, inner),
        st.builds(Negate, st.one_of(attrs, st.builds(Arith, st.just("+"), inner, inner))),
    ),
    max_leaves=5,
)
comparisons = st.builds(Compare, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), exprs, exprs)
conditions = st.recursive(
    comparisons,
    lambda inner: st.one_of(
        st.builds(Logic, st.sampled_from(["AND", "OR"]), st.tuples(inner, inner)),
        st.builds(Not, inner),
    ),
    max_leaves=4,
)


@given(conditions)
def test_print_then_parse_is_the_identity(condition):
    assert parse_condition(str(condition)) == condition


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A.x >", "expected a value or attribute"),
        ("A.x 3", "expected a comparison operator"),
        ("A.x > 3 AND", "expected a value or attribute"),
        ("A.x > 3)", "unexpected ')'"),
        ("A.x > 3 $", "unexpected character '$'"),
        ("", "non-empty"),
        ("A > 3", "expected '.'"),
    ],
)
def test_syntax_errors(text, message):
    with pytest.raises(InevError) as info:
        parse_condition(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("COUNT(*)", Aggregate("COUNT")),
        ("count(E)", Aggregate("COUNT", "E")),
        ("SUM(E.price)", Aggregate("SUM", "E", "price")),
        ("AVG( S.v )", Aggregate("AVG", "S", "v")),
    ],
)
def test_aggregates(text, expected):
    assert parse_aggregate(text) == expected
    assert parse_aggregate(str(expected)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("MEDIAN(E.a)", "unknown aggregate MEDIAN"),
        ("SUM(*)", "only COUNT takes '*'"),
        ("SUM(E)", "needs an attribute"),
        ("COUNT(E.a)", "not an attribute"),
        ("COUNT", "expected e.g."),
    ],
)
def test_aggregate_errors(text, message):
    with pytest.raises(InevError) as info:
        parse_aggregate(text)
    assert message in str(info.value)
