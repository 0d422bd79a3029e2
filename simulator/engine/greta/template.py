"""The static GRETA template (GRETA paper §4.1, Algorithm 1, and §5.1, Algorithm 3).

A positive pattern becomes an automaton whose states are its event types and whose
transitions connect types that may be adjacent in a trend: ``SEQ(P_i, P_j)`` adds
``end(P_i) -> start(P_j)``, ``KL(P_i)`` adds ``end(P_i) -> start(P_i)``. Because every
type occurs at most once, a sequence of events with strictly increasing times is a trend
exactly when its first type is a start type, its last type an end type and every pair of
adjacent types is a transition (the pattern is a linear regular expression, whose
language is local).

Choices beyond the paper, and why:

- ``OR`` is supported by letting ``start`` and ``end`` be *sets* of types (the Glushkov
  construction); this is exact, also under ``KL``, and costs nothing at run time.
  ``AND`` is refused (GRETA §9 only sketches it).
- Negation ``SEQ(P_i, NOT(N), P_j)`` (or ``NSEQ(P_i, N, P_j)``) is split off as in
  Algorithm 3: ``N`` gets its own template, and the transitions ``end(P_i) -> start(P_j)``
  are *guarded* by it: such an edge ``u -> v`` is valid only if no trend of ``N`` lies
  strictly between ``u`` and ``v`` (Definition 1).
- Negation first or last in the outermost SEQ (the paper's Q3, ``SEQ(NOT(N), P)``; the
  paper leaves these cases to its extended version) gets a ``leading`` or ``trailing``
  template. We define: a trend is refused when a trend of the leading ``N`` lies in its
  window before the trend's first event, or a trend of the trailing ``N`` lies in its
  window after the trend's last event. Elsewhere such negation is refused by validation.

>>> from inev.workloads.syntax import parse_pattern
>>> t = build_template(parse_pattern("KL(SEQ(KL(A), B))"))
>>> sorted(t.starts), sorted(t.ends), sorted((x.source, x.target) for x in t.transitions)
(['A'], ['B'], [('A', 'A'), ('A', 'B'), ('B', 'A')])
"""

from __future__ import annotations

from dataclasses import dataclass

from inev.common.errors import InevError
from inev.workloads.pattern import Operator, Pattern, Primitive, leaf_types


@dataclass(frozen=True)
class Transition:
    """A template transition; ``guard`` indexes the negative sub-template that guards it."""

    source: str
    target: str
    guard: int | None = None


@dataclass(frozen=True)
class Template:
    """A GRETA template: states (types), start and end types, transitions, negations."""

    pattern: Pattern
    types: tuple[str, ...]
    starts: frozenset[str]
    ends: frozenset[str]
    transitions: tuple[Transition, ...]
    negations: tuple[Template, ...]
    leading: Template | None = None
    trailing: Template | None = None

    def incoming(self, target: str) -> tuple[Transition, ...]:
        """Transitions into ``target``."""
        return tuple(t for t in self.transitions if t.target == target)

    def outgoing(self, source: str) -> tuple[Transition, ...]:
        """Transitions out of ``source``."""
        return tuple(t for t in self.transitions if t.source == source)

    def all_types(self) -> tuple[str, ...]:
        """Types of this template and of all nested negative templates."""
        out = list(self.types)
        for n in (*self.negations, self.leading, self.trailing):
            if n is not None:
                out.extend(n.all_types())
        return tuple(out)


def build_template(pattern: Pattern) -> Template:
    """The GRETA template of an aggregation pattern (validated with ``aggregation=True``)."""
    if isinstance(pattern, Operator) and pattern.kind == "SEQ":
        children = list(pattern.children)
        ends: list[Template | None] = [None, None]
        for side, index in ((0, 0), (1, -1)):
            child = children[index] if children else None
            if isinstance(child, Operator) and child.kind == "NOT":
                ends[side] = build_template(child.children[0])
                children.pop(index)
        if ends != [None, None]:
            inner = children[0] if len(children) == 1 else Operator("SEQ", tuple(children))
            core = build_template(inner)
            return Template(
                pattern=pattern,
                types=core.types,
                starts=core.starts,
                ends=core.ends,
                transitions=core.transitions,
                negations=core.negations,
                leading=ends[0],
                trailing=ends[1],
            )
    transitions: dict[tuple[str, str], int | None] = {}
    negations: list[Template] = []

    def add(sources: frozenset[str], targets: frozenset[str], guard: int | None) -> None:
        for s in sources:
            for t in targets:
                if (s, t) in transitions and transitions[(s, t)] != guard:
                    raise InevError(f"pattern {pattern}: transition {s}->{t} is ambiguous")
                transitions[(s, t)] = guard

    def visit(node: Pattern) -> tuple[frozenset[str], frozenset[str]]:
        if isinstance(node, Primitive):
            return frozenset({node.type}), frozenset({node.type})
        kind = node.kind
        if kind == "KL":
            first, last = visit(node.children[0])
            add(last, first, None)
            return first, last
        if kind == "OR":
            parts = [visit(c) for c in node.children]
            return frozenset().union(*(p[0] for p in parts)), frozenset().union(
                *(p[1] for p in parts)
            )
        if kind in ("SEQ", "NSEQ"):
            children = list(node.children)
            if kind == "NSEQ":
                children = [children[0], Operator("NOT", (children[1],)), children[2]]
            first: frozenset[str] | None = None
            last: frozenset[str] = frozenset()
            guard: int | None = None
            for child in children:
                if isinstance(child, Operator) and child.kind == "NOT":
                    negations.append(build_template(child.children[0]))
                    guard = len(negations) - 1
                    continue
                f, la = visit(child)
                if first is None:
                    first = f
                else:
                    add(last, f, guard)
                guard = None
                last = la
            if first is None:
                raise InevError(f"pattern {node}: SEQ without a positive child")
            return first, last
        raise InevError(f"pattern {node}: operator {kind} is not supported by GRETA")

    starts, ends = visit(pattern)
    positive: list[str] = []
    negated = {t for n in negations for t in n.all_types()}
    for t in leaf_types(pattern):
        if t not in negated and t not in positive:
            positive.append(t)
    return Template(
        pattern=pattern,
        types=tuple(positive),
        starts=starts,
        ends=ends,
        transitions=tuple(Transition(s, t, g) for (s, t), g in transitions.items()),
        negations=tuple(negations),
    )
