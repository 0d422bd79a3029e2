"""CEP query operator trees (INEv paper §3.2): primitives and SEQ, AND, OR, KL, NSEQ.

A pattern is an immutable tree of :class:`Primitive` leaves (one event type each) and
:class:`Operator` nodes. Structural rules (KL over one primitive, NSEQ with three
children, each type at most once) are checked by :func:`validate_pattern`, not by the
constructors, so that later layers (GRETA's nested Kleene) can relax them.

>>> from inev.workloads.syntax import parse_pattern
>>> p = parse_pattern("SEQ(A, AND(B, C), KL(D))")
>>> event_types(p)
('A', 'B', 'C', 'D')
>>> str(p)
'SEQ(A, AND(B, C), KL(D))'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal, TypeAlias

from inev.common.errors import InevError

OPERATORS = ("SEQ", "AND", "OR", "KL", "NSEQ", "NOT")
Kind: TypeAlias = Literal["SEQ", "AND", "OR", "KL", "NSEQ", "NOT"]


@dataclass(frozen=True)
class Primitive:
    """A primitive operator: matches each event of one event type."""

    type: str

    def __str__(self) -> str:
        return self.type


@dataclass(frozen=True)
class Operator:
    """A composite operator with an ordered tuple of children."""

    kind: Kind
    children: tuple[Pattern, ...]

    def __str__(self) -> str:
        return f"{self.kind}({', '.join(str(c) for c in self.children)})"


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


def kl(child: Pattern | str) -> Operator:
    """Kleene plus ``KL`` over one child."""
    return Operator("KL", _wrap((child,)))


def nseq(first: Pattern | str, negated: Pattern | str, last: Pattern | str) -> Operator:
    """``NSEQ(first, negated, last)``: first then last with no ``negated`` in between."""
    return Operator("NSEQ", _wrap((first, negated, last)))


def not_(child: Pattern | str) -> Operator:
    """GRETA's negation ``NOT(N)``, allowed only inside a SEQ of an aggregation query."""
    return Operator("NOT", _wrap((child,)))


def _wrap(children: tuple[Pattern | str, ...]) -> tuple[Pattern, ...]:
    return tuple(Primitive(c) if isinstance(c, str) else c for c in children)


def walk(pattern: Pattern) -> Iterator[Pattern]:
    """All operators of the tree in pre-order (the root first)."""
    yield pattern
    if isinstance(pattern, Operator):
        for child in pattern.children:
            yield from walk(child)


def event_types(pattern: Pattern) -> tuple[str, ...]:
    """The event types E(p) referenced by the pattern, in left-to-right order."""
    return tuple(node.type for node in walk(pattern) if isinstance(node, Primitive))


def negated_types(pattern: Pattern) -> frozenset[str]:
    """Types that occur under the middle child of an NSEQ or under a NOT (events that must be absent)."""
    found: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "NSEQ" and len(node.children) == 3:
            found.update(event_types(node.children[1]))
        if isinstance(node, Operator) and node.kind == "NOT":
            found.update(event_types(node))
    return frozenset(found)


def kleene_types(pattern: Pattern) -> frozenset[str]:
    """Types that occur under a KL operator."""
    found: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "KL":
            found.update(event_types(node))
    return frozenset(found)


def has_operator(pattern: Pattern, kind: Kind) -> bool:
    """Whether an operator of ``kind`` occurs anywhere in the tree."""
    return any(isinstance(n, Operator) and n.kind == kind for n in walk(pattern))


def validate_pattern(pattern: Pattern, where: str = "pattern", aggregation: bool = False) -> None:
    """Check the structural rules of §3.2; raise :class:`InevError` naming the first problem.

    Rules: every type at most once; KL has exactly one child, a primitive; NSEQ has
    exactly three children; SEQ, AND and OR have at least two children. With
    ``aggregation=True`` (queries with a ``return`` clause) the GRETA rules apply (§2 of
    the GRETA paper): KL may nest over any sub-pattern, ``NOT(N)`` may appear inside a SEQ
    between two positive children, or first or last in the outermost SEQ (as in the
    paper's Q3); refused are negation outermost or next to another negation, Kleene over
    a negation, and AND (GRETA §9 only sketches conjunction).
    """
    if aggregation:
        _check_aggregation(pattern, None, where)
    seen: set[str] = set()
    for node in walk(pattern):
        if isinstance(node, Primitive):
            if node.type in seen:
                raise InevError(f"{where}: event type {node.type} is used twice")
            seen.add(node.type)
            continue
        if node.kind not in OPERATORS:
            raise InevError(f"{where}: unknown operator {node.kind!r}")
        count = len(node.children)
        if node.kind == "KL":
            if count != 1:
                raise InevError(f"{where}: KL takes exactly one child, got {count} in {node}")
            if aggregation:
                continue
            if not isinstance(node.children[0], Primitive):
                raise InevError(f"{where}: KL over a non-primitive {node.children[0]} in {node}")
        elif node.kind == "NSEQ":
            if count != 3:
                raise InevError(
                    f"{where}: NSEQ needs three children (first, negated, last) in {node}"
                )
        elif node.kind == "NOT":
            if not aggregation:
                raise InevError(f"{where}: NOT is allowed only in queries with a return clause")
        elif count < 2:
            raise InevError(f"{where}: {node.kind} needs at least two children in {node}")


def _check_aggregation(node: Pattern, parent: Operator | None, where: str) -> None:
    if isinstance(node, Primitive):
        return
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
        negated = [isinstance(c, Operator) and c.kind == "NOT" for c in node.children]
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
    return [Operator(pattern.kind, tuple(children)) for children in variants]
