"""The largest partial-match bound over a query's leaf subsets, found without trying them all.

The size checks (:mod:`.size` over a trace, :mod:`inev.simulator.estimate` over rates) price a
query by the subset S of its leaves, of up to :data:`MAX_SUBSET` leaves, whose bound
:func:`subset_bound` is largest. Trying every subset is C(n, 1) + … + C(n, 8) bounds: 8.6
million for a pattern of 30 leaves, minutes before any matching. Two facts keep it short.

**Interchangeable leaves.** Two leaves that read the same stream, have the same count, are in
no key class, and relate to every other leaf alike (the same pairwise selectivity, ordered by
the pattern or not alike) give the same bound wherever one stands for the other. So the
leaves fall into groups (:func:`leaf_groups`), and a subset is a vector of how many leaves it
takes of each group: 8 vectors, not 8.6 million, for ``SEQ(C v0, …, C v29)``.

**A bounded enumeration.** The vectors are counted before they are tried
(:func:`vector_count`). Above :data:`MAX_EVALUATIONS` the bound is relaxed
(:func:`relaxed_bound`): selectivities are taken as 1 and key classes as unpartitioned,
which can only raise each subset's bound (σ(S) <= 1; Σ_k Π c_k(e) <= Π c(e), the counts per
key summing to c(e)), and the best subset is then a knapsack over the groups, solved
exactly in a few steps. The relaxed figure is an upper bound of the exact one, so a size
check that passes on it is right; a refusal on it names a figure that may be pessimistic.

**Distinct bindings** (a trace's whole counts, :class:`Bindings`). A match binds distinct
events to its leaves (``AND(C a, C b)`` over 3 C events has 3 · 2 matches, not 3^2), so m
leaves over one stream with c events in the window take at most c! / (c - m)! bindings, and
C(c, m) when the pattern orders every pair of them and ties are strict (a sequence of
distinct times has one order). A workload of 20 variables over a stream with 9 events in its
busiest window is no longer priced at 9^20.

>>> sel = {}
>>> counts = {f"v{i}": 3.0 for i in range(30)}  # log2 of 8 events each
>>> len(leaf_groups(list(counts), sel, counts))
1
>>> largest_subset_bound(list(counts), sel, counts)  # 8 leaves: (2^3)^8 = 2^24
24.0
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.workloads.pattern import Operator, Pattern, Primitive, kleene_bounds, walk
from inev.workloads.rates import pattern_selectivity

MAX_SUBSET = 8
"""The largest subsets of a query's types the bound looks at (the partial matches over more
types are bounded by those over fewer, times counts the estimate already saw)."""
MAX_EVALUATIONS = 10_000
"""The most subsets :func:`largest_subset_bound` prices one by one (about 0.2 s); above,
:func:`relaxed_bound`."""

KeyClasses = Sequence[tuple[Any, Mapping[str, Mapping[Any, float]]]]
"""Key classes as :mod:`.size` builds them: each class's attributes and, per type, its counts
per key value."""


@dataclass(frozen=True)
class Bindings:
    """What distinct events bound to the leaves allow (over a trace, whose counts are whole).

    ``streams``: each leaf's stream; ``events``: each stream's events in the busiest window;
    ``ordered``: the leaf pairs the pattern orders (``{x, y}``, either way); ``strict``:
    events of equal time are in no order (the workload's ``ties``); ``kleene``: leaves whose
    count is a number of trends, which this bound leaves alone.
    """

    streams: Mapping[str, str]
    events: Mapping[str, int]
    ordered: frozenset[frozenset[str]] = frozenset()
    strict: bool = True
    kleene: frozenset[str] = field(default_factory=frozenset)

    def log2_bindings(self, leaves: Sequence[str]) -> float:
        """log2 of the ways to bind distinct events of one stream to ``leaves``.

        >>> b = Bindings({"a": "C", "b": "C"}, {"C": 3}, frozenset({frozenset("ab")}))
        >>> 2 ** b.log2_bindings(["a", "b"]), 2 ** Bindings({"a": "C", "b": "C"}, {"C": 3}).log2_bindings(["a", "b"])
        (3.0, 6.0)
        """
        c, m = self.events.get(self.streams[leaves[0]], 0), len(leaves)
        if m > c:
            return -math.inf
        chain = self.strict and all(
            frozenset((x, y)) in self.ordered for x, y in itertools.combinations(leaves, 2)
        )
        ways = math.comb(c, m) if chain else math.perm(c, m)
        return math.log2(ways)


def subset_bound(
    subset: Sequence[str],
    selectivity: Mapping[Any, float],
    log2_counts: Mapping[str, float],
    classes: KeyClasses = (),
    note: set[str] | None = None,
    bindings: Bindings | None = None,
) -> float:
    """log2 of the partial matches over the leaves ``subset``: σ(S) from the pairwise
    ``selectivity``, per key class S meets (``classes``) Σ_k Π c_k(e), times each other
    leaf's count (``log2_counts``: log2 of its events, or of its trends for a Kleene type,
    per window), or with ``bindings`` the distinct bindings of the other leaves of each
    stream. The key attributes used are added to ``note``.

    >>> subset_bound(("A", "B"), {("A", "B"): 0.5}, {"A": 3.0, "B": 2.0})
    4.0
    """
    note = set() if note is None else note
    left = set(subset)
    out = _log2(pattern_selectivity(subset, selectivity))
    for members, per_type in sorted(classes, key=lambda c: -len(left & set(c[1]))):
        inside = [t for t in per_type if t in left]
        if len(inside) < 2:
            continue
        out += _log2(_keyed_sum([per_type[t] for t in inside]))
        left -= set(inside)
        note.update(str(a) for a in members if a.type in inside)
    by_stream: dict[str, list[str]] = {}
    for t in dict.fromkeys(subset):  # in the subset's order: the same sum on every run
        if t not in left:
            continue
        if bindings is None or t in bindings.kleene:
            out += log2_counts[t]
        else:
            by_stream.setdefault(bindings.streams[t], []).append(t)
    for leaves in by_stream.values():
        out += bindings.log2_bindings(leaves) if bindings is not None else 0.0
    return out


def leaf_groups(
    types: Sequence[str],
    selectivity: Mapping[Any, float],
    log2_counts: Mapping[str, float],
    classes: KeyClasses = (),
    bindings: Bindings | None = None,
) -> list[list[str]]:
    """The leaves of ``types`` in groups of interchangeable ones (module docstring), each in
    the order of ``types``.

    A and C relate to B alike (selectivity 1), so either stands for the other; B does not
    stand for A (it relates to C with 1, A with 0.5):

    >>> leaf_groups(["A", "B", "C"], {("A", "C"): 0.5}, {"A": 1.0, "B": 1.0, "C": 1.0})
    [['A', 'C'], ['B']]
    >>> leaf_groups(["A", "B", "C"], {}, {"A": 1.0, "B": 1.0, "C": 2.0})
    [['A', 'B'], ['C']]
    """
    keyed = {t for _, per_type in classes for t in per_type}
    leaves = list(dict.fromkeys(types))
    groups: list[list[str]] = []
    for t in leaves:
        home = None
        if t not in keyed:
            home = next(
                (
                    g
                    for g in groups
                    if _twins(t, g[0], leaves, selectivity, log2_counts, keyed, bindings)
                ),
                None,
            )
        if home is None:
            groups.append([t])
        else:
            home.append(t)
    out: list[list[str]] = []
    for g in groups:  # twins of one leaf are twins of each other when the group is uniform
        out.extend([g] if _uniform(g, selectivity, bindings) else [[t] for t in g])
    return out


def _twins(
    t: str,
    u: str,
    leaves: Sequence[str],
    selectivity: Mapping[Any, float],
    log2_counts: Mapping[str, float],
    keyed: set[str],
    bindings: Bindings | None,
) -> bool:
    """Whether ``t`` may stand for ``u`` in every subset bound."""
    if u in keyed or log2_counts[t] != log2_counts[u]:
        return False
    if bindings is not None:
        if (t in bindings.kleene) != (u in bindings.kleene):
            return False
        if bindings.streams[t] != bindings.streams[u]:
            return False
    for w in leaves:
        if w in (t, u):
            continue
        if _sel(selectivity, t, w) != _sel(selectivity, u, w):
            return False
        if bindings is not None and _ordered(bindings, t, w) != _ordered(bindings, u, w):
            return False
    return True


def _uniform(
    group: Sequence[str], selectivity: Mapping[Any, float], bindings: Bindings | None
) -> bool:
    """Whether every pair of ``group`` has one selectivity and one order relation."""
    pairs = list(itertools.combinations(group, 2))
    if not pairs:
        return True
    sels = {_sel(selectivity, x, y) for x, y in pairs}
    orders = {_ordered(bindings, x, y) for x, y in pairs} if bindings is not None else {False}
    return len(sels) == 1 and len(orders) == 1


def _sel(selectivity: Mapping[Any, float], x: str, y: str) -> float:
    return selectivity.get((x, y) if x < y else (y, x), 1.0)


def _ordered(bindings: Bindings, x: str, y: str) -> bool:
    return frozenset((x, y)) in bindings.ordered


def vector_count(sizes: Sequence[int], most: int = MAX_SUBSET) -> int:
    """How many non-empty subsets of at most ``most`` leaves there are, up to interchangeable
    leaves: vectors (m_1, …, m_k), 0 <= m_i <= ``sizes[i]``, 1 <= Σ m_i <= ``most``.

    >>> vector_count([30]), vector_count([1] * 30) == sum(math.comb(30, k) for k in range(1, 9))
    (8, True)
    """
    ways = [1] + [0] * most
    for size in sizes:
        ways = [sum(ways[k - m] for m in range(min(size, k) + 1)) for k in range(most + 1)]
    return sum(ways[1:])


def largest_subset_bound(
    types: Sequence[str],
    selectivity: Mapping[Any, float],
    log2_counts: Mapping[str, float],
    classes: KeyClasses = (),
    bindings: Bindings | None = None,
) -> float:
    """log2 of the most partial matches over any subset of up to :data:`MAX_SUBSET` of
    ``types`` (:func:`subset_bound`; a partial match is a match of some part of the
    pattern, and the engine may hold any of them); ``-inf`` without types. Exact over
    groups of interchangeable leaves when there are at most :data:`MAX_EVALUATIONS`
    subsets to try, else :func:`relaxed_bound`, an upper bound of it (module docstring).

    >>> largest_subset_bound(("A", "B"), {("A", "B"): 0.5}, {"A": 3.0, "B": 2.0})
    4.0
    """
    groups = leaf_groups(types, selectivity, log2_counts, classes, bindings)
    if vector_count([len(g) for g in groups]) > MAX_EVALUATIONS:
        return relaxed_bound(groups, log2_counts, bindings)
    best = -math.inf
    for vector in _vectors([len(g) for g in groups]):
        subset = [t for g, m in zip(groups, vector, strict=True) for t in g[:m]]
        best = max(best, subset_bound(subset, selectivity, log2_counts, classes, None, bindings))
    return best


def _vectors(sizes: Sequence[int], most: int = MAX_SUBSET) -> Any:
    """Every vector :func:`vector_count` counts, in a fixed order."""

    def extend(i: int, left: int) -> Any:
        if i == len(sizes):
            yield ()
            return
        for m in range(min(sizes[i], left) + 1):
            for rest in extend(i + 1, left - m):
                yield (m, *rest)

    for vector in extend(0, most):
        if any(vector):
            yield vector


def relaxed_bound(
    groups: Sequence[Sequence[str]],
    log2_counts: Mapping[str, float],
    bindings: Bindings | None = None,
) -> float:
    """An upper bound of :func:`largest_subset_bound` without selectivities or keys: the
    best choice of at most :data:`MAX_SUBSET` leaves (at least one), each group contributing
    the bound of the leaves it gives, by a knapsack over the groups.

    >>> relaxed_bound([["A"], ["B"]], {"A": 3.0, "B": -1.0})
    3.0
    """
    best = [0.0] + [-math.inf] * MAX_SUBSET  # best[k]: the most with k leaves taken
    for group in groups:
        values = [_group_value(group[:m], log2_counts, bindings) for m in range(len(group) + 1)]
        best = [
            max(best[k - m] + values[m] for m in range(min(len(group), k) + 1))
            for k in range(MAX_SUBSET + 1)
        ]
    return max(best[1:])


def _group_value(
    leaves: Sequence[str], log2_counts: Mapping[str, float], bindings: Bindings | None
) -> float:
    """The bound of ``leaves`` of one group, alone (no selectivity, no keys)."""
    if not leaves:
        return 0.0
    if bindings is None or leaves[0] in bindings.kleene:
        return sum(log2_counts[t] for t in leaves)
    ordered = Bindings(bindings.streams, bindings.events, frozenset(), strict=False)
    return ordered.log2_bindings(leaves)  # c!/(c-m)!: any order, the larger count


def _keyed_sum(counts: Sequence[Mapping[Any, float]]) -> float:
    """Σ_k Π_i counts[i][k] over the key values every mapping holds."""
    smallest = min(counts, key=len)
    total = 0.0
    for k, n in smallest.items():
        product = n
        for other in counts:
            if other is not smallest:
                product *= other.get(k, 0.0)
                if not product:
                    break
        total += product
    return total


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else -math.inf


def kleene_leaf_bounds(pattern: Pattern) -> dict[str, tuple[int, int | None]]:
    """``{leaf: (low, high)}`` of every Kleene closure over a single leaf (``KL(C){2,3}``;
    ``(1, None)`` without bounds).

    >>> from inev.workloads.syntax import parse_pattern
    >>> kleene_leaf_bounds(parse_pattern("SEQ(A, KL(C){2,3}, KL(D))"))
    {'C': (2, 3), 'D': (1, None)}
    """
    return {
        node.children[0].type: kleene_bounds(node)
        for node in walk(pattern)
        if isinstance(node, Operator)
        and node.kind == "KL"
        and isinstance(node.children[0], Primitive)
    }


def log2_trends(events: int, low: int = 1, high: int | None = None) -> float:
    """log2 of the trends a Kleene closure bounded to ``low`` … ``high`` iterations builds
    over ``events`` events of a window: Σ_{k=low}^{high} C(events, k) (each trend a set of
    distinct events, in time order); about ``events`` without bounds (2^events - 1 trends).

    >>> log2_trends(10), round(2 ** log2_trends(10, 2, 3), 6)  # C(10, 2) + C(10, 3)
    (10.0, 165.0)
    """
    if high is None:
        return float(events)  # at most 2^c - 1, priced as 2^c (an unbounded closure's)
    low, top = max(low, 0), min(high, events)
    if top < low:
        return -math.inf
    terms = [_log2_comb(events, k) for k in _spread(low, top, events)]
    peak = max(terms)
    if top - low + 1 > len(terms):  # many terms: their count times the largest, an upper bound
        return peak + math.log2(top - low + 1)
    return peak + math.log2(sum(2.0 ** (t - peak) for t in terms))


def _log2_comb(n: int, k: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def _spread(low: int, top: int, n: int, most: int = 64) -> list[int]:
    """Every k in ``low`` … ``top`` when there are at most ``most``, else the one nearest
    n / 2 (where C(n, k) peaks) alone."""
    if top - low + 1 <= most:
        return list(range(low, top + 1))
    return [min(max(n // 2, low), top)]


def log2_expected_trends(mean: float, low: int = 1, high: int | None = None) -> float:
    """log2 of the expected trends of a closure bounded to ``low`` … ``high`` iterations over
    a Poisson(``mean``) count of events: Σ_k E[C(N, k)] = Σ_k mean^k / k!; without an upper
    bound e^mean (priced as ``mean · log2 e``, as unbounded closures are).

    >>> round(2 ** log2_expected_trends(4.0, 2, 3), 6)  # 4^2/2 + 4^3/6
    18.666667
    """
    if high is None or high - low > 64:
        return mean * math.log2(math.e)  # Σ over every k: e^mean, an upper bound
    if mean <= 0:
        return -math.inf
    terms = [(k * math.log(mean) - math.lgamma(k + 1)) / math.log(2) for k in range(low, high + 1)]
    peak = max(terms)
    return peak + math.log2(sum(2.0 ** (t - peak) for t in terms))
