"""Query projections Π_q, suitable projections Π_eval and their rates (INEv paper §3.3, §6.1).

A projection of a query q over a subset S of its event types is q's operator tree with
every primitive outside S removed; operators left with one child collapse into that child
and a child of the same kind as its SEQ/AND parent is inlined, so equal projections of
different queries print (and share) the same canonical key. Projections inherit the
query's pairwise selectivities over S and its window.

Choices where the paper is vague:

* **Negation closure** (§5.2): a projection that holds a negated type also holds the
  types that bound its interval (for ``NSEQ(first, negated, last)`` every type of ``first``
  and ``last``; for ``NOT(N)`` inside a SEQ or an AND the nearest leaves before and after it,
  :func:`inev.workloads.pattern.negation_bounds`), and every type a predicate ties to the
  negated type (:func:`negation_ties`). A negation bounded by the window on a side (first or
  last in a SEQ, inside a top-level AND) reads the match's earliest and latest events, so a
  projection holding it holds every positive type: only the query itself. A projection that
  drops the negated type drops the negation (a superset of the query's matches over those
  types, which is all a projection must give).
* **Kleene** (§6.1): projections are taken of q_nKL (every ``KL(X)`` replaced by ``X``); the
  Kleene matches are materialised only at the query's sink, whose key keeps the KL.
* **Suitable projections**: the paper's text prints the condition with the inequality
  reversed; the intended and used one is R(p) < Σ_{e ∈ E(p)} R(e) (sending p's matches is
  cheaper than sending its events). Negated types count in the sum: their events must be
  sent too. The query itself is always kept.

>>> from inev.workloads.workload import Query
>>> q = Query.build("q", "SEQ(A, AND(B, C))", selectivity={"A B": 0.1})
>>> str(restrict(q.pattern, {"A", "C"}))
'SEQ(A, C)'
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from inev.common.errors import InevError
from inev.planner.cost_model import single_selectivity
from inev.workloads.expressions import condition_types, conjuncts
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.pattern import (
    Operator,
    Pattern,
    Primitive,
    leaf_types,
    negated_types,
    negation_bounds,
)
from inev.workloads.rates import Pair, strip_kleene, windowed_rate
from inev.workloads.workload import Query, Workload


@dataclass(frozen=True)
class Projection:
    """A projection p of a query: pattern, types E(p), negated types and total rate R(p).

    ``key`` is the canonical pattern text (the name used in plan files); ``selectivity``
    holds the pairwise selectivities among E(p); ``single`` the single selectivities
    σ(e, p) = 1 − exp(−R(p) / R(e)) of its positive types (§5.3, :mod:`inev.planner.cost_model`).
    """

    key: str
    pattern: Pattern
    types: frozenset[str]
    negated: frozenset[str]
    rate: float
    selectivity: tuple[tuple[Pair, float], ...] = ()
    single: tuple[tuple[str, float], ...] = ()
    conditions: tuple[str, ...] = ()
    """The query's ``where`` conjuncts over E(p) only, as text (the projection's own filter)."""
    owner: str = ""
    """The query whose predicates define the projection (empty for a single event type).
    Other queries may use it too: theirs agree, or are stronger and applied downstream."""
    window: float = WORKLOAD_DEFAULTS.window
    """The query's time window (R(p) is per time unit, see :func:`windowed_rate`)."""

    @property
    def predicates(self) -> tuple:
        """Everything that filters the projection's matches: pairwise selectivities and
        ``where`` conjuncts over its types. Two queries share a projection only when these
        agree (the engine evaluates a shared projection with one query's predicates)."""
        return (self.selectivity, self.conditions)

    @cached_property
    def is_primitive(self) -> bool:
        """Whether the projection is a single event type (kept on the instance: searches
        ask it hundreds of thousands of times)."""
        return isinstance(self.pattern, Primitive)

    @property
    def positive(self) -> frozenset[str]:
        """Types whose events occur in matches (E(p) without negated types)."""
        return self.types - self.negated

    def single_selectivity(self, name: str) -> float:
        """σ(e, p): the chance that an event of type ``name`` is part of a match of p."""
        return dict(self.single).get(name, 1.0)


def restrict(pattern: Pattern, types: Iterable[str]) -> Pattern | None:
    """The pattern restricted to ``types`` (None when nothing is left); see the module docstring.

    A ``NOT(N)`` stays only with the types that bound it (its nearest leaves in the order,
    or every positive type when the window bounds a side); without them its interval would
    differ from the query's, and a projection may only add matches, never lose them.

    Parameters
    ----------
    pattern : Pattern
    types : iterable of str

    Returns
    -------
    Pattern or None

    Examples
    --------

    >>> from inev.workloads.syntax import parse_pattern
    >>> str(restrict(parse_pattern("SEQ(A, B, NOT(D))"), {"A", "D"}))
    'A'
    >>> str(restrict(parse_pattern("SEQ(A, NOT(D), B, C)"), {"A", "B", "D"}))
    'SEQ(A, NOT(D), B)'
    """
    return _restrict(pattern, frozenset(types))


RESTRICTIONS_KEPT = 1 << 16
"""Restrictions :func:`restrict` remembers per (pattern, type set), the least recently used
dropped first. The search's merge moves and rate kicks ask for the same few thousand
restrictions tens of thousands of times (20,936 calls on issue 46's default instance);
the bound keeps a long sweep's memory flat (an entry is a small tree, well under 2 KB)."""


@lru_cache(maxsize=RESTRICTIONS_KEPT)
def _restrict(pattern: Pattern, keep: frozenset[str]) -> Pattern | None:
    positive = frozenset(leaf_types(pattern)) - negated_types(pattern)
    unbound = set()
    for n, (first, last) in negation_bounds(pattern).items():
        ends = first | last if first and last else positive
        if not ends <= keep:
            unbound.add(n)

    def visit(node: Pattern) -> Pattern | None:
        if isinstance(node, Primitive):
            return node if node.type in keep else None
        if node.kind == "NSEQ":
            first, neg, last = (visit(c) for c in node.children)
            if neg is not None and first is not None and last is not None:
                return Operator("NSEQ", (first, neg, last))
            kids = [k for k in (first, last) if k is not None]
            return _join("SEQ", kids)
        if node.kind == "NOT":
            inner = visit(node.children[0])
            if inner is None or set(leaf_types(inner)) & unbound:
                return None
            return Operator("NOT", (inner,))
        kids = [k for k in (visit(c) for c in node.children) if k is not None]
        if all(isinstance(k, Operator) and k.kind == "NOT" for k in kids):
            return None  # nothing positive left: no match to negate
        return _join(node.kind, kids)

    return visit(pattern)


def _join(kind: str, kids: list[Pattern]) -> Pattern | None:
    if not kids:
        return None
    if len(kids) == 1:
        return kids[0]
    flat: list[Pattern] = []
    for kid in kids:
        if isinstance(kid, Operator) and kid.kind == kind and kind in ("SEQ", "AND"):
            flat.extend(kid.children)
        else:
            flat.append(kid)
    return Operator(kind, tuple(flat))  # type: ignore[arg-type]


def negation_closed(
    pattern: Pattern, types: Iterable[str], ties: Mapping[str, frozenset[str]] | None = None
) -> bool:
    """Whether a type subset holds, with each negated type, every type of its NSEQ's ends
    (and every type ``ties`` names for it: see :func:`negation_ties`)."""
    chosen = frozenset(types)
    ties = ties or {}
    for node in _nseqs(pattern):
        neg = set(leaf_types(node.children[1]))
        ends = set(leaf_types(node.children[0])) | set(leaf_types(node.children[2]))
        if neg & chosen and not ends <= chosen:
            return False
        if neg & chosen and not neg <= chosen:
            return False
        if any(not ties.get(n, frozenset()) <= chosen for n in neg & chosen):
            return False
    positive = set(leaf_types(pattern)) - negated_types(pattern)
    for n, (first, last) in negation_bounds(pattern).items():
        if n not in chosen:
            continue
        ends = first | last if first and last else positive
        if not ends <= chosen or not ties.get(n, frozenset()) <= chosen:
            return False
    return True


def negation_ties(query: Query) -> dict[str, frozenset[str]]:
    """Per negated type, the types its predicates read (selectivities < 1, where conjuncts).

    As the engine's negation check does (:mod:`inev.simulator.engine.constraints`). A negated event cancels a match only if it satisfies these predicates with the match's
    events, so a projection can decide the negation only if it holds all of them; one that
    cannot would cancel too much and lose matches. Such a projection keeps the negated type
    out (its NSEQ becomes a SEQ) and the consumer checks the negation.

    Parameters
    ----------
    query : Query

    Returns
    -------
    dict of str to frozenset of str

    Examples
    --------
    >>> q = Query.build("q", "AND(B, NSEQ(E, A, F))", {"A B": 0.5})
    >>> negation_ties(q)
    {'A': frozenset({'B'})}
    """
    negated = query.negated
    names = set(query.types)
    out: dict[str, frozenset[str]] = {}
    for n in sorted(negated):
        tied: set[str] = set()
        for (a, b), s in query.selectivities:
            if s < 1.0 and n in (a, b) and not {a, b} <= negated:
                tied.add(b if a == n else a)
        if query.where is not None:
            for c in conjuncts(query.where):
                scope = condition_types(c)
                if n in scope and scope <= names and not (scope - {n}) & negated:
                    tied |= scope - {n}
        if tied:
            out[n] = frozenset(tied)
    return out


def _nseqs(pattern: Pattern) -> list[Operator]:
    out = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if isinstance(node, Operator):
            if node.kind == "NSEQ":
                out.append(node)
            stack.extend(node.children)
    return out


def make_projection(
    query: Query,
    types: Iterable[str],
    global_rates: Mapping[str, float],
    window: float = WORKLOAD_DEFAULTS.window,
) -> Projection:
    """The projection of ``query`` (its q_nKL) over ``types`` with its global rate R(p).

    R(p) is per time unit: the paper's rate model applied in units of the ``window``
    (:func:`windowed_rate`). Single selectivities are derived from it
    (:func:`inev.planner.cost_model.single_selectivity`).
    """
    chosen = frozenset(types)
    pattern, sel, negated, conditions = _shape(query, chosen)
    total = windowed_rate(pattern, global_rates, dict(sel), window)
    single = {
        t: single_selectivity(total, global_rates[t]) for t in sorted(chosen) if t not in negated
    }
    return Projection(
        key=str(pattern),
        pattern=pattern,
        types=chosen,
        negated=negated,
        rate=total,
        selectivity=sel,
        single=tuple(single.items()),
        conditions=conditions,
        owner=query.name,
        window=window,
    )


SHAPES_KEPT = 1 << 16
"""Projection shapes remembered (:func:`_shape`), the oldest dropped first."""
_SHAPES: OrderedDict[tuple, tuple] = OrderedDict()


def _shape(query: Query, chosen: frozenset[str]) -> tuple:
    """The parts of the projection of ``query`` over ``chosen`` that no rate changes: its
    pattern, predicates' selectivities, negated types and conditions (remembered per query
    and type set; the search's rate kicks make every projection again under other rates)."""
    key = (query, chosen)
    found = _SHAPES.get(key)
    if found is not None:
        _SHAPES.move_to_end(key)
        return found
    pattern = restrict(strip_kleene(query.pattern), chosen)
    if pattern is None:
        raise ValueError(f"empty projection of {query.name}")
    sel = tuple((k, v) for k, v in query.selectivities if set(k) <= chosen)
    conditions: tuple[str, ...] = ()
    if query.where is not None:
        conditions = tuple(
            sorted(str(c) for c in conjuncts(query.where) if condition_types(c) <= chosen)
        )
    found = _SHAPES[key] = (pattern, sel, negated_types(pattern), conditions)
    if len(_SHAPES) > SHAPES_KEPT:
        _SHAPES.popitem(last=False)
    return found


def own_key(projection: Projection, known: Mapping[str, Projection], query: str) -> Projection:
    """``projection``, renamed ``"<key> @<query>"`` if ``known`` holds another projection under
    its key that filters differently (another query's predicates): shared keys mean shared
    matches, so equal patterns with different predicates must not share one.

    >>> a = Projection("SEQ(A, B)", None, frozenset("AB"), frozenset(), 1.0, conditions=("A.v > 1",))
    >>> own_key(a, {"SEQ(A, B)": replace(a, conditions=())}, "q2").key
    'SEQ(A, B) @q2'
    """
    other = known.get(projection.key)
    if other is None or other.predicates == projection.predicates:
        return projection
    return replace(projection, key=f"{projection.key} @{query}")


def primitive_projection(name: str, global_rate: float) -> Projection:
    """The projection over one event type (its rate is the global rate R(e))."""
    return Projection(
        key=name,
        pattern=Primitive(name),
        types=frozenset({name}),
        negated=frozenset(),
        rate=global_rate,
        single=((name, 1.0),),
    )


def projection_rate(
    projection: Projection, types: Iterable[str], global_rates: Mapping[str, float]
) -> float:
    """R of ``projection`` restricted further to ``types`` (used for partial matches; kept
    per pattern, selectivities, window, types and the rates of those types, all it reads:
    the restricted pattern holds only ``types``, and plans of one workload in many query
    orders ask the same again)."""
    keep = frozenset(types)
    rates = tuple((t, global_rates[t]) for t in sorted(keep) if t in global_rates)
    key = (projection.pattern, projection.selectivity, projection.window, keep, rates)
    found = _RATES.get(key)
    if found is None:
        sub = restrict(projection.pattern, keep)
        if sub is None:
            found = 0.0
        else:
            sel = {k: v for k, v in projection.selectivity if set(k) <= keep}
            found = windowed_rate(sub, global_rates, sel, projection.window)
        if len(_RATES) >= MAX_CACHED_RATES:
            _RATES.clear()
        _RATES[key] = found
    return found


MAX_CACHED_RATES = 100_000
"""Rates :func:`projection_rate` keeps per process before it drops them."""
_RATES: dict[tuple, float] = {}


MAX_PROJECTION_SUBSETS = 2**15
"""The most type subsets a workload's projections may be enumerated from (Σ over its queries
of 2^n - n - 1 for n leaves): a query of up to 15 leaves. Each subset is tried for negation
closure and most are made into projections, which Alg. 1, the bound and the search all visit:
on a loaded 2-core machine a query of 14 leaves (16,369 subsets) took 9 s to plan, one of 16
(65,519) 24 s and one of 17 more than 60 s; the count doubles with every leaf, so 50 leaves
would never end."""


def projection_subsets(query: Query) -> int:
    """How many type subsets :func:`all_projections` tries for ``query``: 2^n - n - 1 over its
    n leaves (Kleene closures stripped), every subset of 2 or more.

    >>> projection_subsets(Query.build("q", "SEQ(A, KL(B), C)"))
    4
    """
    n = len(leaf_types(strip_kleene(query.pattern)))
    return 2**n - n - 1


def check_projection_count(workload: Workload) -> None:
    """Refuse, in one line and before any enumeration, a workload whose projections would
    be enumerated from more than :data:`MAX_PROJECTION_SUBSETS` type subsets (the planner
    tries every subset of each query's types, Π_q of §3.3), naming the largest query.

    >>> wide = "SEQ(" + ", ".join(f"C v{i}" for i in range(50)) + ")"
    >>> check_projection_count(Workload.build(1.0, [Query.build("many", wide)]))
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: query many: its 50 leaves have 2^50 subsets (1.1e+15) to enumerate projections from, over the planner's limit of 32,768 for a workload (queries of up to 15 leaves): split the query, or evaluate it with inev match
    """
    counts = {q.name: projection_subsets(q) for q in workload.queries}
    if sum(counts.values()) <= MAX_PROJECTION_SUBSETS:
        return
    name = max(counts, key=lambda k: (counts[k], k))
    leaves = len(leaf_types(strip_kleene(workload.query(name).pattern)))
    raise InevError(
        f"query {name}: its {leaves} leaves have 2^{leaves} subsets ({counts[name]:.2g}) to "
        f"enumerate projections from, over the planner's limit of {MAX_PROJECTION_SUBSETS:,} "
        f"for a workload (queries of up to {MAX_PROJECTION_SUBSETS.bit_length() - 1} leaves): "
        "split the query, or evaluate it with inev match"
    )


PROJECTIONS_KEPT = 4096
"""Queries whose projections :func:`all_projections` keeps (the most recently asked)."""

_PROJECTIONS: OrderedDict[tuple, tuple[Projection, ...]] = OrderedDict()


def all_projections(
    query: Query, global_rates: Mapping[str, float], window: float = WORKLOAD_DEFAULTS.window
) -> list[Projection]:
    """Π_q: every negation-closed projection over 2 … |E(q)| types (the query itself last).

    Ordered by size, then by the query's type order, so the list is a topological order of
    the "is a possible input of" relation.

    Remembered per query (a frozen value), window and the global rates of the query's types,
    which is all the projections are made of: Alg. 1, both bounds, the search's notes and
    a sweep's figures ask for them again and again (on Fig. 10b's 25 queries, 70 % of a
    plan's time went to making the same projections anew).
    """
    base = strip_kleene(query.pattern)
    names = list(leaf_types(base))
    if projection_subsets(query) > MAX_PROJECTION_SUBSETS:  # before a hopeless enumeration
        check_projection_count(Workload.build(window, [query]))
    key = (query, window, tuple(global_rates.get(t) for t in names))
    found = _PROJECTIONS.get(key)
    if found is None:
        found = _PROJECTIONS[key] = tuple(
            _all_projections(query, base, names, global_rates, window)
        )
        if len(_PROJECTIONS) > PROJECTIONS_KEPT:
            _PROJECTIONS.popitem(last=False)
    else:
        _PROJECTIONS.move_to_end(key)
    return list(found)


def _all_projections(
    query: Query,
    base: Pattern,
    names: list[str],
    global_rates: Mapping[str, float],
    window: float,
) -> list[Projection]:
    return [
        _made(query, s, global_rates, window) for s in _closed_subsets(query, base, tuple(names))
    ]


MADE_KEPT = 1 << 16
"""Projections :func:`_made` keeps (the oldest dropped first)."""
_MADE: OrderedDict[tuple, Projection] = OrderedDict()


def _made(
    query: Query, subset: tuple[str, ...], global_rates: Mapping[str, float], window: float
) -> Projection:
    """:func:`make_projection`, kept per query, type subset, window and the rates of the
    subset's types (all it reads): a rate kick changes one type's rate, so the projections
    without that type are made once for all kicks."""
    key = (query, subset, window, tuple(global_rates[t] for t in subset))
    found = _MADE.get(key)
    if found is None:
        found = _MADE[key] = make_projection(query, subset, global_rates, window)
        if len(_MADE) > MADE_KEPT:
            _MADE.popitem(last=False)
    return found


CLOSED_SUBSETS_KEPT = 4096
"""Queries whose negation-closed type subsets :func:`_closed_subsets` remembers (the most
recently asked). The subsets depend on the query alone, while :func:`all_projections`'
own memo is keyed by the rates too, which the search's rate kicks change; 4,096 queries
is far more than a workload holds, and an entry is at most 2^|E(q)| short tuples."""

_CLOSED: OrderedDict[Query, tuple[tuple[str, ...], ...]] = OrderedDict()


def _closed_subsets(
    query: Query, base: Pattern, names: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    """The negation-closed subsets of 2 … |E(q)| of ``names`` (by size, then type order)."""
    found = _CLOSED.get(query)
    if found is not None:
        _CLOSED.move_to_end(query)
        return found
    ties = negation_ties(query)
    found = _CLOSED[query] = tuple(
        subset
        for size in range(2, len(names) + 1)
        for subset in itertools.combinations(names, size)
        if negation_closed(base, subset, ties)
    )
    if len(_CLOSED) > CLOSED_SUBSETS_KEPT:
        _CLOSED.popitem(last=False)
    return found


def suitable_projections(
    query: Query,
    global_rates: Mapping[str, float],
    window: float = WORKLOAD_DEFAULTS.window,
    slack: float = 1.0,
) -> list[Projection]:
    """Π_eval (§6.1): projections with R(p) < slack · Σ_{e ∈ E(p)} R(e), plus the query (q_nKL).

    The paper's rule is ``slack`` 1. It compares rates, not costs: one stream of matches from
    one node can cost fewer links than the events of the same types from many sources, so a
    search judged by exact costs may look at projections somewhat above it (``slack`` > 1).
    The sum is ``math.fsum``: E(p) is a frozenset, whose order follows the string hash
    (PYTHONHASHSEED), and fsum's correctly rounded sum does not depend on the order.
    """
    projections = all_projections(query, global_rates, window)
    full = frozenset(query.types)
    return [
        p
        for p in projections
        if p.types == full or p.rate < slack * math.fsum(global_rates[t] for t in p.types)
    ]
