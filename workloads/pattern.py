"""CEP query operator trees (INEv paper §3.2): primitives and SEQ, AND, OR, KL, NSEQ, NOT.

A pattern is an immutable tree of :class:`Primitive` leaves and :class:`Operator` nodes.
Structural rules (each name at most once, KL over one child, NSEQ with three children, NOT
inside a SEQ or AND) are checked by :func:`validate_pattern`, not by the constructors, so
that later layers (GRETA's nested Kleene) can relax them.

**Pattern variables.** A leaf is an event type (``GOOG``) or a variable bound to one
(``GOOG a``: the leaf's name is ``a``, its *stream* ``GOOG``). A type may occur several times
in a query when each occurrence has its own variable: ``SEQ(GOOG a, GOOG b)``, with
``a.peak < b.peak`` in the ``where`` clause. Every later layer works on leaf names (the
slots of a match): a variable is a stream of its type (:func:`streams`), each occurrence
binds a distinct event.

**Kleene size bounds.** ``KL(X){2,5}`` matches 2 to 5 iterations of ``X`` (``{2,}``: at
least 2); the default is one or more.

>>> from inev.workloads.syntax import parse_pattern
>>> p = parse_pattern("SEQ(A, AND(B, C), KL(D))")
>>> leaf_types(p)
('A', 'B', 'C', 'D')
>>> str(p)
'SEQ(A, AND(B, C), KL(D))'
>>> q = parse_pattern("SEQ(GOOG a, KL(GOOG b){2,}, NOT(AMZN))")
>>> leaf_types(q), streams(q)
(('a', 'b', 'AMZN'), {'a': 'GOOG', 'b': 'GOOG'})
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal, TypeAlias

from inev.common.errors import InevError

OPERATORS = ("SEQ", "AND", "OR", "KL", "NSEQ", "NOT")
Kind: TypeAlias = Literal["SEQ", "AND", "OR", "KL", "NSEQ", "NOT"]


@dataclass(frozen=True)
class Primitive:
    """A primitive operator: matches each event of one event type.

    ``type`` is the leaf's name (the slot a match binds); for a pattern variable
    (``GOOG a``) it is the variable and ``stream`` the event type it ranges over.
    """

    type: str
    stream: str | None = None

    @property
    def event_type(self) -> str:
        """The event type whose events the leaf matches."""
        return self.stream or self.type

    def __str__(self) -> str:
        return f"{self.stream} {self.type}" if self.stream else self.type


@dataclass(frozen=True)
class Operator:
    """A composite operator with an ordered tuple of children (and, for KL, size bounds:
    ``(low, high)`` iterations, ``high`` None for no upper bound; None means ``(1, None)``)."""

    kind: Kind
    children: tuple[Pattern, ...]
    bounds: tuple[int, int | None] | None = None

    def __hash__(self) -> int:
        """The dataclass hash of the fields, computed once: patterns key the planner's
        memos, and a tree's hash would otherwise walk every node on every look-up."""
        found = self.__dict__.get("_hash")
        if found is None:
            found = hash((self.kind, self.children, self.bounds))
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict:
        """The fields without the kept hash (string hashes differ between processes)."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __str__(self) -> str:
        text = f"{self.kind}({', '.join(str(c) for c in self.children)})"
        if self.bounds is None:
            return text
        low, high = self.bounds
        if high == low:
            return f"{text}{{{low}}}"
        return f"{text}{{{low},{'' if high is None else high}}}"


Pattern: TypeAlias = Primitive | Operator


def seq(*children: Pattern | str) -> Operator:
    """``SEQ`` of the children (strings become primitives)."""
    return Operator("SEQ", _wrap(children))


def and_(*children: Pattern | str) -> Operator:
    """``AND`` of the children (strings become primitives)."""
    return Operator("AND", _wrap(children))


def or_(*children: Pattern | str) -> Operator:
    """``OR`` of the children (strings become primitives)."""
    return Operator("OR", _wrap(children))


def kl(child: Pattern | str, low: int = 1, high: int | None = None) -> Operator:
    """Kleene plus ``KL`` over one child, with ``low`` to ``high`` iterations."""
    bounds = None if (low, high) == (1, None) else (low, high)
    return Operator("KL", _wrap((child,)), bounds)


def nseq(first: Pattern | str, negated: Pattern | str, last: Pattern | str) -> Operator:
    """``NSEQ(first, negated, last)``: first then last with no ``negated`` in between."""
    return Operator("NSEQ", _wrap((first, negated, last)))


def not_(child: Pattern | str) -> Operator:
    """Negation ``NOT(N)``: no ``N`` event where it stands (inside a SEQ or an AND)."""
    return Operator("NOT", _wrap((child,)))


def _wrap(children: tuple[Pattern | str, ...]) -> tuple[Pattern, ...]:
    return tuple(Primitive(c) if isinstance(c, str) else c for c in children)


def walk(pattern: Pattern) -> Iterator[Pattern]:
    """All operators of the tree in pre-order (the root first)."""
    yield pattern
    if isinstance(pattern, Operator):
        for child in pattern.children:
            yield from walk(child)


@functools.lru_cache(maxsize=1 << 14)
def leaf_types(pattern: Pattern) -> tuple[str, ...]:
    """The leaves E(p) of the pattern, in left-to-right order: event types, and a variable's
    name where a leaf is one (``GOOG a`` gives ``a``; :attr:`Query.event_types
    <inev.workloads.workload.Query.event_types>` resolves variables to the types whose events a
    query reads). Cached: the planner asks for the same projections' leaves again and again.

    >>> from inev.workloads.syntax import parse_pattern
    >>> leaf_types(parse_pattern("SEQ(A, KL(B), NOT(C))"))
    ('A', 'B', 'C')
    """
    return tuple(node.type for node in walk(pattern) if isinstance(node, Primitive))


def streams(pattern: Pattern) -> dict[str, str]:
    """``{variable: event type}`` of the pattern's variables (leaves such as ``GOOG a``)."""
    return {
        node.type: node.stream
        for node in walk(pattern)
        if isinstance(node, Primitive) and node.stream is not None
    }


def leaf_order(pattern: Pattern) -> set[tuple[str, str]]:
    """``{(x, y)}``: leaf x comes before leaf y (a SEQ or NSEQ orders a child holding x
    before one holding y); negated leaves included.

    >>> from inev.workloads.syntax import parse_pattern
    >>> sorted(leaf_order(parse_pattern("SEQ(A, AND(NOT(N), B), C)")))
    [('A', 'B'), ('A', 'C'), ('A', 'N'), ('B', 'C'), ('N', 'C')]
    """
    out: set[tuple[str, str]] = set()
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind in ("SEQ", "NSEQ"):
            groups = [leaf_types(c) for c in node.children]
            for i, left in enumerate(groups):
                for right in groups[i + 1 :]:
                    out.update((x, y) for x in left for y in right)
    return out


def negation_bounds(pattern: Pattern) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per negated leaf, the positive leaves nearest before and after it in the pattern's
    order (an empty side: the window bounds it; see :mod:`inev.simulator.engine.constraints`).

    >>> from inev.workloads.syntax import parse_pattern
    >>> negation_bounds(parse_pattern("SEQ(A, B, NOT(N), C)"))
    {'N': (frozenset({'B'}), frozenset({'C'}))}
    >>> negation_bounds(parse_pattern("SEQ(NOT(X), A, B)"))
    {'X': (frozenset(), frozenset({'A'}))}
    """
    return dict(_negation_bounds(pattern))


@functools.lru_cache(maxsize=1 << 14)
def _negation_bounds(
    pattern: Pattern,
) -> tuple[tuple[str, tuple[frozenset[str], frozenset[str]]], ...]:
    negated = negated_types(pattern)
    positive = set(leaf_types(pattern)) - negated
    order = leaf_order(pattern)
    out = {}
    for n in sorted(negated):
        first = {a for a, b in order if b == n and a in positive}
        last = {b for a, b in order if a == n and b in positive}
        first = {a for a in first if not any((a, x) in order for x in first)}
        last = {b for b in last if not any((x, b) in order for x in last)}
        out[n] = (frozenset(first), frozenset(last))
    return tuple(out.items())


def kleene_bounds(node: Operator) -> tuple[int, int | None]:
    """The ``(low, high)`` iterations of a KL operator (``(1, None)`` by default)."""
    return node.bounds if node.bounds is not None else (1, None)


@functools.lru_cache(maxsize=1 << 14)
def negated_types(pattern: Pattern) -> frozenset[str]:
    """Types that occur under the middle child of an NSEQ or under a NOT (events that must be absent)."""
    found: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "NSEQ" and len(node.children) == 3:
            found.update(leaf_types(node.children[1]))
        if isinstance(node, Operator) and node.kind == "NOT":
            found.update(leaf_types(node))
    return frozenset(found)


@functools.lru_cache(maxsize=1 << 14)
def kleene_types(pattern: Pattern) -> frozenset[str]:
    """Types that occur under a KL operator."""
    found: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "KL":
            found.update(leaf_types(node))
    return frozenset(found)


def has_operator(pattern: Pattern, kind: Kind) -> bool:
    """Whether an operator of ``kind`` occurs anywhere in the tree."""
    return any(isinstance(n, Operator) and n.kind == kind for n in walk(pattern))


def validate_pattern(pattern: Pattern, where: str = "pattern", aggregation: bool = False) -> None:
    """Check the structural rules; raise :class:`InevError` naming the first problem.

    Rules: every leaf name (event type, or variable) at most once; KL has exactly one child,
    a primitive or a SEQ/AND of them (no OR, no negation under KL), and bounds
    ``1 <= low <= high``; NSEQ has exactly three children; SEQ, AND and OR have at least two
    children; ``NOT(N)`` negates one event type and stands inside a SEQ or an AND that has a
    positive child (first, last, between, or anywhere in an AND: see
    :mod:`inev.simulator.engine.constraints` for what it means). With ``aggregation=True``
    (queries with a ``return`` clause) the GRETA rules apply (§2 of the GRETA paper): KL may
    nest over any sub-pattern, ``NOT(N)`` may appear inside a SEQ between two positive
    children, or first or last in the outermost SEQ (as in the paper's Q3); refused are
    negation outermost or next to another negation, Kleene over a negation, AND (GRETA §9
    only sketches conjunction) and Kleene size bounds (GRETA defines none).
    """
    if aggregation:
        _check_aggregation(pattern, None, where)
    else:
        _check_enumeration(pattern, None, where)
    seen: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Primitive):
            if node.type in seen:
                kind = "variable" if node.stream is not None else "event type"
                raise InevError(
                    f"{where}: {kind} {node.type} is used twice (give each occurrence its own "
                    f"variable: SEQ({node.event_type} a, {node.event_type} b))"
                )
            seen.add(node.type)
            continue
        if node.kind not in OPERATORS:
            raise InevError(f"{where}: unknown operator {node.kind!r}")
        count = len(node.children)
        if node.bounds is not None and node.kind != "KL":
            raise InevError(f"{where}: only KL takes size bounds, not {node.kind} in {node}")
        if node.kind == "KL":
            if count != 1:
                raise InevError(f"{where}: KL takes exactly one child, got {count} in {node}")
            low, high = kleene_bounds(node)
            if low < 1 or (high is not None and high < low):
                raise InevError(f"{where}: KL size bounds must be 1 <= low <= high in {node}")
        elif node.kind == "NSEQ":
            if count != 3:
                raise InevError(
                    f"{where}: NSEQ needs three children (first, negated, last) in {node}"
                )
        elif node.kind == "NOT":
            if count != 1:
                raise InevError(f"{where}: NOT takes exactly one child in {node}")
        elif count < 2:
            raise InevError(f"{where}: {node.kind} needs at least two children in {node}")


def _check_enumeration(node: Pattern, parent: Operator | None, where: str) -> None:
    """The rules of queries that build matches (KL over composites, NOT anywhere)."""
    if isinstance(node, Primitive):
        return
    if node.kind == "NOT":
        if parent is None:
            raise InevError(f"{where}: negation may not be the outermost operator in {node}")
        if parent.kind not in ("SEQ", "AND"):
            raise InevError(
                f"{where}: NOT must be a child of SEQ or AND, not of {parent.kind} in {parent}"
            )
        if len(node.children) == 1 and not isinstance(node.children[0], Primitive):
            raise InevError(
                f"{where}: NOT negates one event type, not {node.children[0]} (a negated "
                "sub-pattern is supported in queries with a return clause only)"
            )
    if node.kind in ("SEQ", "AND") and all(_is_negation(c) for c in node.children):
        raise InevError(f"{where}: {node.kind} needs a positive child in {node}")
    if node.kind == "KL" and node.children:
        inner = node.children[0]
        for sub in walk(inner):
            if isinstance(sub, Operator) and sub.kind in ("NOT", "NSEQ"):
                raise InevError(f"{where}: Kleene over a negation in {node}")
            if isinstance(sub, Operator) and sub.kind == "OR":
                raise InevError(f"{where}: Kleene over OR in {node} (write one query per branch)")
    for child in node.children:
        _check_enumeration(child, node, where)


def _is_negation(node: Pattern) -> bool:
    return isinstance(node, Operator) and node.kind == "NOT"


def _check_aggregation(node: Pattern, parent: Operator | None, where: str) -> None:
    if isinstance(node, Primitive):
        return
    if node.bounds is not None:
        raise InevError(
            f"{where}: Kleene size bounds in {node} are not defined by GRETA (aggregation)"
        )
    if node.kind == "NOT":
        if parent is None:
            raise InevError(f"{where}: negation may not be the outermost operator in {node}")
        if parent.kind == "KL":
            raise InevError(f"{where}: Kleene over a negation in {parent}")
        if parent.kind != "SEQ":
            raise InevError(f"{where}: NOT must be a child of SEQ, not of {parent.kind}")
        if len(node.children) != 1:
            raise InevError(f"{where}: NOT takes exactly one child in {node}")
    if node.kind == "SEQ":
        negated = [_is_negation(c) for c in node.children]
        if (negated[0] or negated[-1]) and parent is not None:
            raise InevError(
                f"{where}: negation first or last is allowed only in the outermost SEQ, "
                f"not in {node}"
            )
        if any(a and b for a, b in pairwise(negated)):
            raise InevError(f"{where}: two adjacent negations in {node}")
        if not sum(not n for n in negated):
            raise InevError(f"{where}: SEQ needs a positive child in {node}")
    for child in node.children:
        _check_aggregation(child, node, where)


def split_or(pattern: Pattern) -> list[Pattern]:
    """Rewrite a pattern into OR-free patterns whose union of matches is the original's.

    Each OR is replaced by one of its branches (all combinations, left to right); an OR
    directly under an operator is inlined rather than nested. A pattern without OR is
    returned alone.

    >>> from inev.workloads.syntax import parse_pattern
    >>> [str(p) for p in split_or(parse_pattern("SEQ(A, OR(B, C))"))]
    ['SEQ(A, B)', 'SEQ(A, C)']
    """
    if isinstance(pattern, Primitive):
        return [pattern]
    if pattern.kind == "OR":
        out: list[Pattern] = []
        for child in pattern.children:
            out.extend(split_or(child))
        return out
    variants: list[list[Pattern]] = [[]]
    for child in pattern.children:
        options = split_or(child)
        variants = [[*prefix, option] for prefix in variants for option in options]
    return [Operator(pattern.kind, tuple(children), pattern.bounds) for children in variants]
