"""An OR-free pattern as slots and constraints (INEv §3.2 semantics, skip-till-any-match).

Every leaf name (event type, or pattern variable ``GOOG a``) occurs at most once in a query,
so a match is an assignment of events to the pattern's *positive* leaves (slots): one event
for a primitive, a non-empty sequence of events for a type under ``KL``, a non-empty
sequence of *iterations* (matches of the sub-pattern) for a ``KL`` over a composite. A
match is valid when

* **distinct events**: two slots never bind the same event (variables of one type range
  over one stream; a Kleene trend holds each event once);
* **order**: for ``SEQ(c1, …, ck)`` every event of ``ci`` is earlier than every event of
  ``cj`` (i < j); ``NSEQ(f, n, l)`` orders ``f`` before ``l`` the same way. *Ties*, the
  workload's rule for equal timestamps: ``strict`` (the default) puts events of equal time
  in no order, so they are never in sequence; ``any`` takes them in either order (``<=``),
  as minute-granularity stock data needs (OpenCEP's reading);
* **window**: latest minus earliest timestamp of the match is at most the window;
* **pairwise predicates**: for every pair of leaves with selectivity σ < 1, every pair of
  their events satisfies the deterministic predicate of :mod:`.events`;
* **where**: every top-level conjunct holds for every choice of one event per referenced
  Kleene type (universal reading); ``NEXT(T).a`` ranges over consecutive events of the trend
  of ``T`` (vacuously true for a trend of one event); ``T[i].a``, ``FIRST(T).a`` and
  ``LAST(T).a`` read one position of the trend (1 is the first), and a conjunct reading a
  position the trend lacks is false;
* **Kleene**: a trend of ``KL(T){low,high}`` has ``low`` to ``high`` events (default 1 to
  any) in time order; for ``KL(P)`` over a composite ``P`` each iteration is a match of
  ``P`` (with the conjuncts over ``P``'s leaves alone), iterations are pairwise
  event-disjoint, and over a ``SEQ`` (or a nested ``KL``) each iteration ends before the
  next starts (GRETA's Definition 1; ``<=`` under ties ``any``); over an ``AND``, which
  orders nothing, the iterations may interleave in time (our choice: GRETA does not define
  Kleene over a conjunction). Iterations are numbered in the order they complete (latest
  event, then earliest); ``NEXT`` and positions refer to that order;
* **negation**: ``NOT(N)`` (or the middle child of ``NSEQ``) stands inside a SEQ or an AND.
  An event of ``N`` cancels the match when it lies after every leaf that precedes ``N`` in
  the pattern's order and before every leaf that follows it, *and* satisfies every
  predicate (pairwise and where) that names ``N`` together with the match's events, *and*
  is no event the match binds. Where nothing precedes ``N`` (first in a SEQ, anywhere in a
  top-level AND) the window bounds it: no earlier than the match's latest event minus the
  window; where nothing follows it, no later than the match's earliest event plus the
  window. So ``SEQ(NOT(X), A, B)`` means "no X in the window before A", ``SEQ(A, B,
  NOT(X))`` "no X after B while the window lasts", ``AND(A, B, NOT(X))`` "no X anywhere in
  the window". Bounds set by the match's leaves are open under ties ``strict`` and closed
  under ``any``; window bounds are closed. A match whose negation reaches past its last
  event (nothing follows ``N``) is final only once the window has passed: the engine holds
  it until then (:class:`inev.simulator.engine.engine.Engine`).

Every constraint carries its *scope* (the slots it reads); a plan checks it at the lowest
node whose slots include the scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from inev.common.errors import InevError
from inev.workloads.expressions import Condition, Logic, condition_attributes, conjuncts
from inev.workloads.pattern import (
    Operator,
    Pattern,
    Primitive,
    kleene_bounds,
    kleene_types,
    leaf_types,
    validate_pattern,
)
from inev.workloads.workload import DEFAULT_TIES, TIES

Pair = tuple[str, str]


@dataclass(frozen=True)
class Negation:
    """An absence condition: no ``type`` event after ``first`` and before ``last``.

    An empty ``first`` (``last``) means the window bounds that side (module docstring);
    ``scope`` then holds every positive slot (``positive``), as the match's earliest and
    latest events set the bound. ``same`` holds the positive slots of the negated type's
    stream, whose events never count as blocking.
    """

    type: str
    first: frozenset[str]
    last: frozenset[str]
    pairs: tuple[tuple[str, float], ...]  # (other type, σ) of predicates with the negated type
    conditions: tuple[Condition, ...]  # where conjuncts that name the negated type
    positive: frozenset[str] = frozenset()
    same: frozenset[str] = frozenset()

    @property
    def bounded_below(self) -> bool:
        """Whether a leaf of the match precedes the negated type."""
        return bool(self.first)

    @property
    def deferred(self) -> bool:
        """Whether the negation reaches past the match's last event (nothing follows it)."""
        return not self.last

    @property
    def scope(self) -> frozenset[str]:
        """Positive slots read by the check."""
        others = {t for t, _ in self.pairs}
        for c in self.conditions:
            others |= {a.type for a in condition_attributes(c)}
        window = self.positive if not (self.first and self.last) else frozenset()
        return frozenset(self.first | self.last | others | window | self.same) - {self.type}


@dataclass(frozen=True)
class Composite:
    """A ``KL`` over a composite sub-pattern, evaluated as a slot of its own: ``pattern``
    the sub-pattern, ``bounds`` its iterations, ``chained`` whether each iteration must end
    before the next starts (SEQ, nested KL) or may interleave (AND)."""

    slot: str
    pattern: Pattern
    bounds: tuple[int, int | None]
    chained: bool


@dataclass(frozen=True)
class Constraints:
    """The positive slots of an OR-free pattern and every constraint over them."""

    types: tuple[str, ...]
    kleene: frozenset[str]
    window: float
    order: tuple[Pair, ...]
    pairs: tuple[tuple[str, str, float], ...]
    conditions: tuple[Condition, ...]
    negations: tuple[Negation, ...]
    ties: str = DEFAULT_TIES
    distinct: tuple[Pair, ...] = ()
    """Positive slot pairs of one stream whose events must differ (not implied by order)."""
    bounds: Mapping[str, tuple[int, int | None]] = field(default_factory=dict)
    """Kleene slots with size bounds other than one-or-more."""
    composites: Mapping[str, Composite] = field(default_factory=dict)
    """Kleene slots that stand for a KL over a composite (their values are iterations)."""
    streams: Mapping[str, str] = field(default_factory=dict)
    """``{slot: event type}`` of every slot whose name is a variable."""

    def slot(self, type_name: str) -> int:
        """The slot index of a positive type."""
        return self.types.index(type_name)

    @property
    def deferred(self) -> bool:
        """Whether some negation holds matches until the window has passed."""
        return any(n.deferred for n in self.negations)

    @property
    def hold(self) -> str | None:
        """How long a match waits for negated events that may still come: ``window`` (a
        negation reaches past its last event: until its earliest event plus the window),
        ``latest`` (ties ``any``: a negated event of the time of the match's latest event
        may still arrive after it) or None."""
        if self.deferred:
            return "window"
        if self.negations and self.ties == "any":
            return "latest"
        return None


def _collect(node: Pattern, order: list[Pair], negated: set[str]) -> None:
    """Order pairs among every leaf (negated ones included) and the negated leaves."""
    if isinstance(node, Primitive):
        return
    if node.kind == "OR":
        raise InevError(f"pattern {node}: OR must be split into branches first")
    if node.kind == "NOT":
        child = node.children[0]
        if not isinstance(child, Primitive):
            raise InevError(f"pattern {node}: NOT negates one event type")
        negated.add(child.type)
        return
    if node.kind == "NSEQ":
        first, neg, last = node.children
        if not isinstance(neg, Primitive):
            raise InevError(f"pattern {node}: the negated child of NSEQ must be one event type")
        negated.add(neg.type)
        groups = [leaf_types(first), (neg.type,), leaf_types(last)]
        children: tuple[Pattern, ...] = (first, last)
    elif node.kind == "SEQ":
        groups = [leaf_types(c) for c in node.children]
        children = node.children
    else:
        groups = []
        children = node.children
    for i, left in enumerate(groups):
        for right in groups[i + 1 :]:
            order.extend((a, b) for a in left for b in right)
    for child in children:
        _collect(child, order, negated)


def composite_slots(pattern: Pattern) -> tuple[Pattern, dict[str, Composite]]:
    """``pattern`` with every KL over a composite replaced by ``KL(_k<i>)`` (a slot of its
    own), and those slots. Nested composites stay inside their outer sub-pattern."""
    found: dict[str, Composite] = {}

    def visit(node: Pattern) -> Pattern:
        if isinstance(node, Primitive):
            return node
        if node.kind == "KL" and not isinstance(node.children[0], Primitive):
            slot = f"_k{len(found) + 1}"
            inner = node.children[0]
            chained = not (isinstance(inner, Operator) and inner.kind == "AND")
            found[slot] = Composite(slot, inner, kleene_bounds(node), chained)
            return Operator("KL", (Primitive(slot),), node.bounds)
        return Operator(node.kind, tuple(visit(c) for c in node.children), node.bounds)

    return visit(pattern), found


def build_constraints(
    pattern: Pattern,
    window: float,
    selectivities: Mapping[Pair, float] | None = None,
    where: Condition | None = None,
    ties: str = DEFAULT_TIES,
    streams: Mapping[str, str] | None = None,
) -> Constraints:
    """Flatten an OR-free pattern with its predicates into :class:`Constraints`.

    ``streams`` maps variables to their event types (:func:`inev.workloads.pattern.streams`;
    for a projection, the query's). A KL over a composite becomes a slot ``_k<i>``
    (:func:`composite_slots`); the conjuncts over its leaves alone are the sub-pattern's,
    or, with ``NEXT`` or a position, compare its iterations.
    """
    validate_pattern(pattern)
    if ties not in TIES:
        raise InevError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    flat, composites = composite_slots(pattern)
    order: list[Pair] = []
    negated: set[str] = set()
    _collect(flat, order, negated)
    types = tuple(t for t in leaf_types(flat) if t not in negated)
    inner = {t for c in composites.values() for t in leaf_types(c.pattern)}
    all_types = set(types) | negated
    stream_of = {t: (streams or {}).get(t, t) for t in all_types | inner}
    pairs = _selective_pairs(selectivities or {}, all_types, negated)
    _check_closure_pairs(pattern, selectivities or {}, all_types | inner, inner)
    items = _branch_conjuncts(where, all_types | inner, inner)
    kleene = _kleene_types(flat)
    _check_positions(items, kleene | inner)
    positive_order = tuple(dict.fromkeys(_positive_pairs(order, negated)))
    slot_streams = _slot_streams(types, composites, stream_of)
    negations = tuple(
        _negation(n, order, slot_streams, pairs, items, negated, stream_of[n], ties)
        for n in sorted(negated)
    )
    return Constraints(
        types=types,
        kleene=kleene,
        window=float(window),
        order=positive_order,
        pairs=tuple(_positive_pairs(pairs, negated)),
        conditions=tuple(c for c in items if not condition_scope(c) & (negated | inner)),
        negations=negations,
        ties=ties,
        distinct=_distinct(types, positive_order, stream_of, ties, composites),
        bounds=_bounds(flat),
        composites=composites,
        streams={t: s for t, s in stream_of.items() if s != t},
    )


def _positive_pairs(pairs, negated: set[str]) -> list:
    """The pairs (or ``(a, b, σ)`` triples) whose first two leaves are both positive."""
    return [p for p in pairs if p[0] not in negated and p[1] not in negated]


def _check_closure_pairs(
    pattern: Pattern, selectivities: Mapping[Pair, float], types: set[str], inner: set[str]
) -> None:
    """Refuse a selectivity between a leaf inside a KL over a composite and one outside."""
    for a, b, _ in _selective_pairs(selectivities, types, set()):
        if (a in inner) != (b in inner):
            raise InevError(
                f"pattern {pattern}: a selectivity between {a} and {b} crosses a Kleene "
                "closure over a composite; give it as a where condition inside the closure"
            )


def _branch_conjuncts(
    where: Condition | None, types: set[str], inner: set[str]
) -> tuple[Condition, ...]:
    """The where conjuncts that apply to this OR-free branch (a conjunct naming a type
    outside it does not); refuses one that crosses a KL over a composite."""
    items = tuple(
        c for c in (conjuncts(where) if where is not None else ()) if condition_scope(c) <= types
    )
    for c in items:
        scope = condition_scope(c)
        if scope & inner and scope - inner:
            raise InevError(
                f"where conjunct {c}: compares a leaf inside a Kleene closure over a composite "
                "with one outside it (not supported)"
            )
    return items


def _slot_streams(
    types: tuple[str, ...], composites: Mapping[str, Composite], stream_of: Mapping[str, str]
) -> dict[str, frozenset[str]]:
    """The event types (streams) each positive slot binds."""
    return {
        t: (
            frozenset(stream_of[x] for x in leaf_types(composites[t].pattern))
            if t in composites
            else frozenset((stream_of[t],))
        )
        for t in types
    }


def _distinct(
    types: tuple[str, ...],
    order: tuple[Pair, ...],
    stream_of: Mapping[str, str],
    ties: str,
    composites: Mapping[str, Composite],
) -> tuple[Pair, ...]:
    """Slot pairs over one stream whose events must differ and whose order does not say so."""
    ordered = {frozenset(o) for o in order} if ties == "strict" else set()

    def streams_of(t: str) -> set[str]:
        if t in composites:
            return {stream_of[x] for x in leaf_types(composites[t].pattern)}
        return {stream_of[t]}

    out = []
    for i, a in enumerate(types):
        for b in types[i + 1 :]:
            if streams_of(a) & streams_of(b) and frozenset((a, b)) not in ordered:
                out.append((a, b))
    return tuple(out)


def projection_where(where: Condition | None, projection: Pattern) -> Condition | None:
    """A query's ``where`` clause as a projection of it evaluates it: without the conjuncts
    that read ``NEXT`` or a position of a leaf no Kleene closure of ``projection`` iterates.
    Projections are taken of q_nKL (INEv §6.1: every KL over a leaf replaced by the leaf), so
    a condition on consecutive or fixed iterations of ``KL(C)`` has no iterations to read in
    ``SEQ(B, C)``; it is left to the query's sink, and the projection matches a superset,
    which is all a projection must give. (A query's own clause is checked when the workload
    is read, and :func:`build_constraints` refuses such a conjunct.)

    >>> from inev.workloads.expressions import parse_condition
    >>> from inev.workloads.syntax import parse_pattern
    >>> str(projection_where(parse_condition("NEXT(C).v > 2 AND C.v > 1"), parse_pattern("SEQ(B, C)")))
    'C.v > 1'
    """
    if where is None:
        return None
    kleene = kleene_types(projection)  # every leaf under some KL
    kept = tuple(
        c
        for c in conjuncts(where)
        if not any(
            (a.next or a.position is not None) and a.type not in kleene
            for a in condition_attributes(c)
        )
    )
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else Logic("AND", kept)


def _check_positions(items: tuple[Condition, ...], kleene: set[str] | frozenset[str]) -> None:
    """Positions and NEXT read Kleene leaves, and a conjunct never combines the two."""
    for c in items:
        attributes = condition_attributes(c)
        for a in attributes:
            if a.position is not None and a.type not in kleene:
                raise InevError(f"where conjunct {c}: {a} needs {a.type} under KL")
        nexts = any(a.next for a in attributes)
        fixed = any(a.position is not None for a in attributes)
        if nexts and fixed:
            raise InevError(
                f"where conjunct {c}: compares consecutive elements (NEXT) and fixed positions "
                "at once; write them as two conjuncts"
            )


def _kleene_types(pattern: Pattern) -> frozenset[str]:
    """The types directly under a KL operator."""
    return frozenset(
        n.children[0].type
        for n in _walk(pattern)
        if isinstance(n, Operator) and n.kind == "KL" and isinstance(n.children[0], Primitive)
    )


def _bounds(pattern: Pattern) -> dict[str, tuple[int, int | None]]:
    """Size bounds of the Kleene slots that have any."""
    return {
        n.children[0].type: kleene_bounds(n)
        for n in _walk(pattern)
        if isinstance(n, Operator)
        and n.kind == "KL"
        and n.bounds is not None
        and isinstance(n.children[0], Primitive)
    }


def _selective_pairs(
    selectivities: Mapping[Pair, float], all_types: set[str], negated: set[str]
) -> list[tuple[str, str, float]]:
    """The pairs with selectivity below 1 among the pattern's types (not two negated ones)."""
    pairs: list[tuple[str, str, float]] = []
    for (a, b), s in sorted(selectivities.items()):
        if a in all_types and b in all_types and s < 1.0 and not (a in negated and b in negated):
            pairs.append((a, b, float(s)))
    return pairs


def _negation(
    n: str,
    order: list[Pair],
    slot_streams: Mapping[str, frozenset[str]],
    pairs: list[tuple[str, str, float]],
    items: tuple[Condition, ...],
    negated: set[str],
    stream: str,
    ties: str,
) -> Negation:
    """The :class:`Negation` of the negated leaf ``n``: bounds, predicates, same stream
    (``slot_streams``: the event types each positive slot binds)."""
    positive = frozenset(slot_streams)
    first, last = _nearest_bounds(n, order, positive)
    npairs = tuple(
        (b if a == n else a, s) for a, b, s in pairs if n in (a, b) and not {a, b} <= negated
    )
    nconds = _negation_conditions(n, items, negated)
    # with strict ties and bounds on both sides, the blocking interval is open at events of
    # the match, so they never fall in it; otherwise the check skips them by id
    same = frozenset(t for t in positive if stream in slot_streams[t])
    if ties == "strict" and first and last:
        same = frozenset(t for t in same if t not in first | last)
    return Negation(n, first, last, npairs, nconds, positive, same)


def _nearest_bounds(
    n: str, order: list[Pair], positive: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """The positive leaves right before and right after the negated leaf ``n``."""
    before = set(order)
    first = {a for a, b in order if b == n and a in positive}
    last = {b for a, b in order if a == n and b in positive}
    # only the nearest leaves bound the interval: one that precedes another of ``first``
    # ends before it (and one that follows another of ``last`` starts after it)
    return (
        frozenset(a for a in first if not any((a, x) in before for x in first)),
        frozenset(b for b in last if not any((x, b) in before for x in last)),
    )


def _negation_conditions(
    n: str, items: tuple[Condition, ...], negated: set[str]
) -> tuple[Condition, ...]:
    """The where conjuncts that name the negated leaf ``n`` (and no other negated one: no
    match binds two); refuses NEXT or a position of ``n``."""
    nconds = tuple(
        c
        for c in items
        if n in condition_scope(c)
        and not any(x.type in negated and x.type != n for x in condition_attributes(c))
    )
    for c in nconds:
        if any((x.next or x.position is not None) for x in condition_attributes(c) if x.type == n):
            raise InevError(f"where conjunct {c}: NEXT or a position of a negated type")
    return nconds


def _walk(node: Pattern):
    yield node
    if isinstance(node, Operator):
        for c in node.children:
            yield from _walk(c)


def condition_scope(condition: Condition) -> frozenset[str]:
    """Types a where conjunct reads."""
    return frozenset(a.type for a in condition_attributes(condition))
