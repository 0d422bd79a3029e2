"""The rate model of the INEv paper (§3.2) with the order of a SEQ counted, in log space.

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

**The order of a SEQ.** The paper's SEQ line ignores the order it asks for: measured on
Poisson sources, the matches of a SEQ over 2, 3 and 4 types are 0.95, 0.51 and 0.16 of it,
while AND agrees. Counted exactly: n events, one of each of n types arriving at rates r_i,
lie within a window w (their span at most w, the engines' rule) n · w^(n−1) · Π r_i times
per time unit (the earliest of them may be any of the n, the others fall in the w after it);
an operator tree admits e(P) of the n! orders of its events, where e(P) is the number of
linear extensions of the partial order it imposes (SEQ: each child's events before the
next child's; AND: any interleaving). So the matches are

    σ · Π r_i · n · w^(n−1) · e(P) / n!,

with e(P) built up the tree: 1 for a primitive, Π e(P_i) for SEQ, and the multinomial
n! / Π n_i! times Π e(P_i) for AND. For a flat AND this is the paper's k · Π r (e = n!), for
SEQ(A, B) the paper's Π r, for a flat SEQ of n types Π r · w^(n−1) / (n − 1)! (0.5 and
0.17 of the paper's line for 3 and 4 types, as measured); SEQ(A, AND(B, C)) has e = 2,
half the paper's 2 · Π r. Choices where the model has no order to count: an NSEQ counts as
the SEQ of its first and last child (its negated child adds no event); a KL or OR node is
one point in time with its own rate (a Kleene trend or an alternative is one item of the
enclosing pattern), and so is every primitive.

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
15.0
>>> round(rate(parse_pattern("SEQ(A, B, C)"), {"A": 2, "B": 3, "C": 5}), 9)  # 30 / 2!
15.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.pattern import Operator, Pattern, Primitive, leaf_types, negated_types

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
            # sorted: a float product depends on its order, and a set's order on the
            # string hash (PYTHONHASHSEED), so the rate would too
            child_types = [sorted(set(leaf_types(c)) - negated) for c in node.children]
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

    def point(node: Pattern) -> float:
        """The rate of a node taken as one point in time (its block's order counted)."""
        rate_, n, orders = block(node)
        return rate_ + _order_factor(n, orders) if n > 1 else rate_

    def block(node: Pattern) -> tuple[float, int, int]:
        """(log2 of σ · Π rates, events n, e(P)) of a SEQ/AND/NSEQ block."""
        if isinstance(node, Primitive):
            value = rates[node.type]
            return (math.log2(value) if value > 0 else -math.inf), 1, 1
        own = math.log2(sigma[id(node)]) if sigma[id(node)] > 0 else -math.inf
        if node.kind in ("SEQ", "AND", "NSEQ"):
            kids = node.children if node.kind != "NSEQ" else (node.children[0], node.children[2])
            parts = [block(c) for c in kids]
            n = sum(p[1] for p in parts)
            orders = math.prod(p[2] for p in parts)
            if node.kind == "AND":
                orders *= math.factorial(n) // math.prod(math.factorial(p[1]) for p in parts)
            return own + sum(p[0] for p in parts), n, orders
        if node.kind == "NOT":  # an absent sub-pattern adds no events to a match
            return 0.0, 0, 1
        if node.kind == "OR":
            return own + _log2_sum([point(c) for c in node.children]), 1, 1
        if node.kind == "KL":
            inner = point(node.children[0])
            exponent = 2.0**inner if inner < 1100 else math.inf
            return own + exponent, 1, 1
        raise ValueError(f"unknown operator {node.kind}")

    return point(pattern)


def _order_factor(n: int, orders: int) -> float:
    """log2 of n · e(P) / n!: the share of a block's n events in a window (w = 1)."""
    return math.log2(n * orders) - math.log2(math.factorial(n))


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
    window: float = WORKLOAD_DEFAULTS.window,
) -> float:
    """R(p) per time unit for a query window ``window``: the paper's rate model applied in
    window units, rate(p, {e: R(e) · w}) / w.

    The paper's rates count events and matches per window (its experiments use a window of
    one time unit). A block of n events over Poisson sources has σ · Π R(e_i) · n ·
    w^(n-1) · e(P) / n! matches per time unit (module docstring), which is what this gives.
    It matters for traces measured in seconds under a 24 h window, and for the pairwise
    selectivities ``inev workload estimate`` measures within the window.

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
