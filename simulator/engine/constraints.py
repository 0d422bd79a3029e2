"""An OR-free pattern as slots and constraints (INEv §3.2 semantics, skip-till-any-match).

Each event type occurs at most once in a query, so a match is an assignment of events to
the pattern's *positive* types (slots): one event for a primitive, a non-empty sequence of
events with strictly increasing timestamps for a type under ``KL``. A match is valid when

* **order**: for ``SEQ(c1, …, ck)`` every event of ``ci`` is strictly earlier than every
  event of ``cj`` (i < j); ``NSEQ(f, n, l)`` orders ``f`` before ``l`` the same way.
  Events with equal timestamps are never in sequence (a choice: ties have no order);
* **window**: latest minus earliest timestamp of the match is at most the window;
* **pairwise predicates**: for every pair of types with selectivity σ < 1, every pair of
  their events satisfies the deterministic predicate of :mod:`.events`;
* **where**: every top-level conjunct holds for every choice of one event per referenced
  Kleene type (universal reading), and ``NEXT(T).a`` ranges over consecutive events of the
  trend of ``T`` (vacuously true for a trend of one event);
* **negation**: for ``NSEQ(f, N, l)`` no event of ``N`` lies strictly between the last event
  of ``f`` and the first event of ``l`` *and* satisfies every predicate (pairwise and where)
  that names ``N`` together with the match's events. Predicates involving ``N`` are thus
  part of the negation, so the answer does not depend on the evaluation plan.

Every constraint carries its *scope* (the slots it reads); a plan checks it at the lowest
node whose slots include the scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inev.common.errors import InevError
from inev.workloads.expressions import Condition, condition_attributes, conjuncts
from inev.workloads.query import Operator, Pattern, Primitive, event_types, validate_pattern

Pair = tuple[str, str]


@dataclass(frozen=True)
class Negation:
    """``NSEQ``'s absence condition: no ``type`` event between ``first`` and ``last``."""

    type: str
    first: frozenset[str]
    last: frozenset[str]
    pairs: tuple[tuple[str, float], ...]  # (other type, σ) of predicates with the negated type
    conditions: tuple[Condition, ...]  # where conjuncts that name the negated type

    @property
    def scope(self) -> frozenset[str]:
        """Positive types read by the check."""
        others = {t for t, _ in self.pairs}
        for c in self.conditions:
            others |= {a.type for a in condition_attributes(c)}
        return frozenset(self.first | self.last | others) - {self.type}


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

    def slot(self, type_name: str) -> int:
        """The slot index of a positive type."""
        return self.types.index(type_name)


def _collect(node: Pattern, order: list[Pair], negations: list[tuple[str, Pattern, Pattern]]):
    if isinstance(node, Primitive):
        return
    if node.kind == "OR":
        raise InevError(f"pattern {node}: OR must be split into branches first")
    if node.kind == "SEQ":
        groups = [event_types(c) for c in node.children]
        for i, left in enumerate(groups):
            for right in groups[i + 1 :]:
                order.extend((a, b) for a in left for b in right)
    if node.kind == "NSEQ":
        first, negated, last = node.children
        if not isinstance(negated, Primitive):
            raise InevError(f"pattern {node}: the negated child of NSEQ must be one event type")
        order.extend((a, b) for a in event_types(first) for b in event_types(last))
        negations.append((negated.type, first, last))
        _collect(first, order, negations)
        _collect(last, order, negations)
        return
    for child in node.children:
        _collect(child, order, negations)


def build_constraints(
    pattern: Pattern,
    window: float,
    selectivities: Mapping[Pair, float] | None = None,
    where: Condition | None = None,
) -> Constraints:
    """Flatten an OR-free pattern with its predicates into :class:`Constraints`."""
    validate_pattern(pattern)
    order: list[Pair] = []
    raw_negations: list[tuple[str, Pattern, Pattern]] = []
    _collect(pattern, order, raw_negations)
    negated = {n for n, _, _ in raw_negations}
    types = tuple(t for t in event_types(pattern) if t not in negated)
    kleene = _kleene_types(pattern)
    if kleene & negated:
        raise InevError(f"pattern {pattern}: a negated type cannot be under KL")
    all_types = set(types) | negated
    pairs = _selective_pairs(selectivities or {}, all_types, negated)
    # a conjunct naming a type outside this (OR-free) branch does not apply to it
    items = tuple(
        c
        for c in (conjuncts(where) if where is not None else ())
        if condition_scope(c) <= all_types
    )
    negations = [_negation(raw, pairs, items, negated) for raw in raw_negations]
    return Constraints(
        types=types,
        kleene=kleene,
        window=float(window),
        order=tuple(dict.fromkeys(o for o in order if o[0] not in negated and o[1] not in negated)),
        pairs=tuple(p for p in pairs if p[0] not in negated and p[1] not in negated),
        conditions=tuple(c for c in items if not (condition_scope(c) & negated)),
        negations=tuple(negations),
    )


def _kleene_types(pattern: Pattern) -> frozenset[str]:
    """The types directly under a KL operator."""
    return frozenset(
        n.children[0].type
        for n in _walk(pattern)
        if isinstance(n, Operator) and n.kind == "KL" and isinstance(n.children[0], Primitive)
    )


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
    raw: tuple[str, Pattern, Pattern],
    pairs: list[tuple[str, str, float]],
    items: tuple[Condition, ...],
    negated: set[str],
) -> Negation:
    """The :class:`Negation` of NSEQ(first, ¬n, last): its pairs and where conjuncts."""
    n, first, last = raw
    npairs = tuple(
        (b if a == n else a, s) for a, b, s in pairs if n in (a, b) and not {a, b} <= negated
    )
    # a conjunct naming two negated types never applies: no match binds both
    nconds = tuple(
        c
        for c in items
        if n in condition_scope(c)
        and not any(x.type in negated and x.type != n for x in condition_attributes(c))
    )
    for c in nconds:
        if any(x.next for x in condition_attributes(c) if x.type == n):
            raise InevError(f"where conjunct {c}: NEXT of a negated type")
    return Negation(
        n,
        frozenset(event_types(first)) - negated,
        frozenset(event_types(last)) - negated,
        npairs,
        nconds,
    )


def _walk(node: Pattern):
    yield node
    if isinstance(node, Operator):
        for c in node.children:
            yield from _walk(c)


def condition_scope(condition: Condition) -> frozenset[str]:
    """Types a where conjunct reads."""
    return frozenset(a.type for a in condition_attributes(condition))
