"""Pattern trees: parsing, canonical printing, validation, OR splitting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.workloads.pattern import (
    Operator,
    Primitive,
    kl,
    kleene_types,
    leaf_types,
    negated_types,
    negation_bounds,
    nseq,
    seq,
    split_or,
    validate_pattern,
)
from inev.workloads.syntax import parse_pattern

SPEC_PATTERN = "SEQ(A, AND(B, C), KL(D), NSEQ(E, F, G))"


def test_spec_pattern_round_trips_and_has_the_right_tree():
    tree = parse_pattern(SPEC_PATTERN)
    assert str(tree) == SPEC_PATTERN
    assert tree == seq(
        "A", Operator("AND", (Primitive("B"), Primitive("C"))), kl("D"), nseq("E", "F", "G")
    )
    assert leaf_types(tree) == tuple("ABCDEFG")
    assert negated_types(tree) == {"F"}
    assert kleene_types(tree) == {"D"}
    validate_pattern(tree)


def test_whitespace_is_free_and_printing_is_canonical():
    assert str(parse_pattern("  SEQ(A,AND( B ,C) )\n")) == "SEQ(A, AND(B, C))"
    assert str(parse_pattern("A")) == "A"


@st.composite
def patterns(draw, names=None, depth=0):
    if names is None:
        names = iter(f"T{i}" for i in range(1000))
    if depth > 3 or draw(st.booleans()):
        leaf = Primitive(next(names))
        return Operator("KL", (leaf,)) if draw(st.integers(0, 5)) == 0 else leaf
    kind = draw(st.sampled_from(["SEQ", "AND", "OR", "NSEQ"]))
    count = 3 if kind == "NSEQ" else draw(st.integers(2, 4))
    return Operator(kind, tuple(draw(patterns(names, depth + 1)) for _ in range(count)))


@given(patterns())
def test_print_then_parse_is_the_identity(tree):
    text = str(tree)
    assert parse_pattern(text) == tree
    assert str(parse_pattern(text)) == text
    validate_pattern(tree)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SEQ(A, FOO(B, C))", "unknown operator 'FOO'"),
        ("SEQ(A, B", "missing ')'"),
        ("SEQ(A b c)", "expected ',' or ')'"),
        ("SEQ(GOOG KL)", "variable name 'KL' at 9 is an operator"),
        ("SEQ(A, KL(B){2,1", "missing '}'"),
        ("SEQ(A, KL(B){x})", "expected a number in the size bounds"),
        ("SEQ(A, B){1,2}", "size bounds at 9 follow KL only"),
        ("SEQ(A, B))", "unexpected ')'"),
        ("SEQ(A, )", "expected an event type"),
        ("SEQ", "needs '(' and children"),
        ("SEQ(A, B) C", "unexpected 'C'"),
        ("SEQ(A, $)", "unexpected character '$'"),
        ("", "empty"),
    ],
)
def test_syntax_errors_name_the_problem(text, message):
    with pytest.raises(InevError) as info:
        parse_pattern(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SEQ(A, B, A)", "event type A is used twice"),
        ("AND(A, SEQ(B, KL(A)))", "event type A is used twice"),
        ("SEQ(GOOG a, GOOG a)", "variable a is used twice"),
        ("SEQ(A, KL(SEQ(B, NOT(C))))", "Kleene over a negation"),
        ("SEQ(A, KL(OR(B, C)))", "Kleene over OR"),
        ("SEQ(A, KL(B){3,2})", "KL size bounds must be 1 <= low <= high"),
        ("NOT(A)", "negation may not be the outermost operator"),
        ("OR(A, NOT(B))", "NOT must be a child of SEQ or AND"),
        ("SEQ(A, NOT(SEQ(B, C)))", "NOT negates one event type"),
        ("AND(NOT(A), NOT(B))", "AND needs a positive child"),
        ("SEQ(A, KL(B, C))", "KL takes exactly one child"),
        ("NSEQ(A, B)", "NSEQ needs three children"),
        ("NSEQ(A, B, C, D)", "NSEQ needs three children"),
        ("SEQ(A)", "SEQ needs at least two children"),
    ],
)
def test_structural_errors_name_the_problem(text, message):
    with pytest.raises(InevError, match=None) as info:
        validate_pattern(parse_pattern(text), where="query q1")
    assert message in str(info.value)
    assert str(info.value).startswith("query q1: ")


def test_split_or_distributes_over_every_branch():
    variants = [str(p) for p in split_or(parse_pattern("AND(OR(A, B), SEQ(C, OR(D, E)))"))]
    assert variants == [
        "AND(A, SEQ(C, D))",
        "AND(A, SEQ(C, E))",
        "AND(B, SEQ(C, D))",
        "AND(B, SEQ(C, E))",
    ]
    assert [str(p) for p in split_or(parse_pattern("OR(SEQ(A, B), C)"))] == ["SEQ(A, B)", "C"]
    assert split_or(parse_pattern("SEQ(A, B)")) == [parse_pattern("SEQ(A, B)")]


@given(patterns())
def test_split_or_leaves_no_or_and_keeps_every_type(tree):
    variants = split_or(tree)
    assert all(not (isinstance(n, Operator) and n.kind == "OR") for v in variants for n in _walk(v))
    covered = set().union(*(set(leaf_types(v)) for v in variants))
    assert covered == set(leaf_types(tree))


def _walk(node):
    yield node
    if isinstance(node, Operator):
        for child in node.children:
            yield from _walk(child)


def test_cached_pattern_views_cannot_be_changed_through_a_result():
    """The views are cached per pattern (the planner asks again and again): a caller that
    changes the dict it got must not change what the next caller gets."""
    pattern = parse_pattern("SEQ(A, NOT(N), B)")
    first = negation_bounds(pattern)
    first["N"] = (frozenset(), frozenset())
    first["X"] = (frozenset("A"), frozenset("B"))
    assert negation_bounds(parse_pattern("SEQ(A, NOT(N), B)")) == {
        "N": (frozenset("A"), frozenset("B"))
    }
