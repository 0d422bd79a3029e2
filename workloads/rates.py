"""The rate model of the INEv paper (§3.2), in log space, and per time unit for any window.

For an operator o with children o_1 … o_k and selectivity σ(o) the paper defines

========  ===================================
AND       σ(o) · k · Π r(o_i)
SEQ       σ(o) · Π r(o_i)
OR        σ(o) · Σ r(o_i)
NSEQ      σ(o) · r(o_1) · r(o_3)
KL        σ(o) · 2^r(o_1)
========  ===================================

and r(o) = σ(o) · r(e) for a primitive over type e (σ(o) = 1: the workload format has no
unary selectivities). Feeding local rates r(e) gives r(q); feeding global rates R(e) gives
the total rate R(p) of a projection used by the cost model.

Operator selectivities come from the *pairwise* selectivities of the workload: the
selectivity of the pair {a, b} is charged to the lowest operator that has both types below
it (their lowest common ancestor), so σ(q) is the product of all pairwise selectivities of
the query. Two deliberate choices, as the paper is silent on them: a pair whose lowest
common ancestor is an OR is ignored (no match holds both types), and a pair involving a
negated type is ignored (the negated events appear in no match; the model does not credit
the reduction negation causes, so it errs on the side of a higher rate).

**KL in log space.** 2^r overflows a float as soon as r > 1024, so every rate is computed as
its base-2 logarithm (:func:`log2_rate`); :func:`rate` converts back and returns
``math.inf`` when the rate exceeds the float range. Planning strips KL anyway (§6.1).

>>> from inev.workloads.syntax import parse_pattern
>>> round(rate(parse_pattern("SEQ(A, AND(B, C))"), {"A": 2, "B": 3, "C": 5}, {("A", "B"): 0.5}), 9)
30.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from inev.workloads.query import Operator, Pattern, Primitive, event_types, negated_types

Pair = tuple[str, str]


def pair(a: str, b: str) -> Pair:
    """The canonical (sorted) key of the unordered pair {a, b}."""
    return (a, b) if a <= b else (b, a)


def _log2_sum(values: Iterable[float]) -> float:
    values = list(values)
    top = max(values)
    if top == -math.inf:
        return -math.inf
    return top + math.log2(sum(2.0 ** (v - top) for v in values))


def operator_selectivities(pattern: Pattern, selectivity: Mapping[Pair, float]) -> dict[int, float]:
    """``{id(operator): σ(o)}``: each pairwise selectivity charged to the pair's lowest common ancestor."""
    negated = negated_types(pattern)
    out: dict[int, float] = {}

    def visit(node: Pattern) -> None:
        if isinstance(node, Primitive):
            return
        sigma = 1.0
        if node.kind != "OR":
            child_types = [set(event_types(c)) - negated for c in node.children]
            for i, left in enumerate(child_types):
                for right in child_types[i + 1 :]:
                    for a in left:
                        for b in right:
                            sigma *= selectivity.get(pair(a, b), 1.0)
        out[id(node)] = sigma
        for child in node.children:
            visit(child)

    visit(pattern)
    return out


def log2_rate(
    pattern: Pattern,
    rates: Mapping[str, float],
    selectivity: Mapping[Pair, float] | None = None,
) -> float:
    """log2 of the rate of ``pattern`` under per-type ``rates`` (see the module docstring)."""
    sigma = operator_selectivities(pattern, selectivity or {})

    def visit(node: Pattern) -> float:
        if isinstance(node, Primitive):
            value = rates[node.type]
            return math.log2(value) if value > 0 else -math.inf
        own = math.log2(sigma[id(node)]) if sigma[id(node)] > 0 else -math.inf
        children = [visit(c) for c in node.children]
        if node.kind == "SEQ":
            return own + sum(children)
        if node.kind == "AND":
            return own + math.log2(len(children)) + sum(children)
        if node.kind == "OR":
            return own + _log2_sum(children)
        if node.kind == "NSEQ":
            return own + children[0] + children[2]
        if node.kind == "NOT":  # an absent sub-pattern adds no events to a match
            return 0.0
        if node.kind == "KL":
            inner = children[0]
            exponent = 2.0**inner if inner < 1100 else math.inf
            return own + exponent
        raise ValueError(f"unknown operator {node.kind}")

    return visit(pattern)


def rate(
    pattern: Pattern,
    rates: Mapping[str, float],
    selectivity: Mapping[Pair, float] | None = None,
) -> float:
    """The rate of ``pattern`` (``math.inf`` when it exceeds the float range)."""
    value = log2_rate(pattern, rates, selectivity)
    if value > 1023:
        return math.inf
    return 2.0**value


def windowed_rate(
    pattern: Pattern,
    global_rates: Mapping[str, float],
    selectivity: Mapping[Pair, float] | None = None,
    window: float = 1.0,
) -> float:
    """R(p) per time unit for a query window ``window``: the paper's rate model applied in
    window units, rate(p, {e: R(e) · w}) / w.

    The paper's rates count events and matches per window (its experiments use a window of
    one time unit). A SEQ of k types over Poisson sources then has about
    σ · Π R(e_i) · w^(k-1) matches per time unit, which is what this gives; with w = 1 it is
    the paper's formula. It matters for traces measured in seconds under a 24 h window, and
    for the pairwise selectivities ``inev workload estimate`` measures within the window.

    >>> from inev.workloads.syntax import parse_pattern
    >>> windowed_rate(parse_pattern("SEQ(A, B)"), {"A": 2.0, "B": 3.0}, {}, window=0.5)
    3.0
    """
    if window == 1.0:
        return rate(pattern, global_rates, selectivity)
    scaled = {t: r * window for t, r in global_rates.items()}
    return rate(pattern, scaled, selectivity) / window


def strip_kleene(pattern: Pattern) -> Pattern:
    """q_nKL of §6.1: every ``KL(X)`` replaced by ``X`` (KL matches are built only at sinks)."""
    if isinstance(pattern, Primitive):
        return pattern
    if pattern.kind == "KL":
        return strip_kleene(pattern.children[0])
    return Operator(pattern.kind, tuple(strip_kleene(c) for c in pattern.children))


def pattern_selectivity(types: Iterable[str], selectivity: Mapping[Pair, float]) -> float:
    """σ(p) over a set of types: the product of the pairwise selectivities among them."""
    names = sorted(set(types))
    out = 1.0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            out *= selectivity.get((a, b), 1.0)
    return out
