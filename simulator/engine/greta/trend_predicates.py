"""Vertex and edge predicates of a GRETA query (GRETA paper §6, "Predicates").

The ``where`` condition is split into its top-level AND items, each classified:

- **local** (vertex) predicate: it names one type and no ``NEXT``; it filters that type's
  events before they reach the graph.
- **edge** predicate on the transition ``T -> T``: it names only ``T`` and ``NEXT(T)``;
  it holds between two adjacent ``T`` events of a trend (``T`` is the earlier one).
- **edge** predicate between two types ``X`` and ``Y`` (no ``NEXT``): it holds between
  adjacent ``X`` and ``Y`` events of a trend, so ``X -> Y`` or ``Y -> X`` must be a
  transition of the template.

Anything else (three types, ``NEXT`` mixed with another type, a pair of types that are
never adjacent, a predicate across a negation boundary) is refused with a one-line error:
GRETA evaluates predicates on vertices and edges only.

An edge predicate ``f(prev) op g(next)``, one side naming only the earlier event and the
other only the later one, is indexed: with ``op`` ``==`` (an equivalence predicate such as
``S.company == NEXT(S).company``) predecessors are partitioned by ``f(prev)``; with ``op``
in ``< <= > >=`` they are found by a range query over ``f(prev)`` (the paper's Vertex
Trees). One equality and one range predicate per transition are indexed, any further edge
predicate makes the transition scan its predecessors. Range keys must be real numbers and
equality keys numbers or strings; an event whose key is not (a missing attribute, NaN) has
no such edge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.predicates import compiled_source
from inev.workloads.expressions import (
    ARITHMETIC,
    Arith,
    Attr,
    Compare,
    Condition,
    Const,
    Expr,
    Negate,
    condition_attributes,
    conjuncts,
    evaluate,
)

from .template import Template

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
KeyFunction = Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class RangeKey:
    """An edge predicate ``prev_key(prev) op next_key(next)`` answered by a range query."""

    prev_key: KeyFunction
    op: str
    next_key: KeyFunction


@dataclass(frozen=True)
class EqualKey:
    """An edge predicate ``prev_key(prev) == next_key(next)`` answered by partitioning."""

    prev_key: KeyFunction
    next_key: KeyFunction


@dataclass(frozen=True)
class EdgePredicate:
    """The predicates of one transition: conditions, and their indexable forms.

    ``equal`` and ``range`` are set only when they cover every condition of the edge.
    """

    source: str
    target: str
    conditions: tuple[Condition, ...]
    range: RangeKey | None
    equal: EqualKey | None = None

    def holds(self, prev: Mapping[str, Any], nxt: Mapping[str, Any]) -> bool:
        """Whether every condition holds from ``prev`` (earlier) to ``nxt`` (later)."""
        if self.source == self.target:
            binding = {self.source: prev}
            following = {self.source: nxt}
            return all(evaluate(c, binding, following) for c in self.conditions)
        binding = {self.source: prev, self.target: nxt}
        return all(evaluate(c, binding) for c in self.conditions)


@dataclass(frozen=True)
class Predicates:
    """Local predicates per type and edge predicates per transition ``(source, target)``."""

    local: Mapping[str, tuple[Condition, ...]]
    edges: Mapping[tuple[str, str], EdgePredicate]

    def admits(self, type_name: str, attributes: Mapping[str, Any]) -> bool:
        """Whether an event passes the local predicates of its type."""
        conditions = self.local.get(type_name)
        if not conditions:
            return True
        binding = {type_name: attributes}
        return all(evaluate(c, binding) for c in conditions)


def _all_templates(template: Template) -> list[Template]:
    out = [template]
    for n in (*template.negations, template.leading, template.trailing):
        if n is not None:
            out.extend(_all_templates(n))
    return out


def classify_predicates(where: Condition | None, template: Template, label: str) -> Predicates:
    """Split a ``where`` condition into local and edge predicates; refuse other shapes."""
    local: dict[str, list[Condition]] = {}
    edge_conditions: dict[tuple[str, str], list[Condition]] = {}
    owner: dict[tuple[str, str], Template] = {}
    for t in _all_templates(template):
        for tr in t.transitions:
            owner[(tr.source, tr.target)] = t
    for item in conjuncts(where) if where is not None else ():
        types, has_next = _shape(item, label)
        if len(types) == 1 and not has_next:
            local.setdefault(next(iter(types)), []).append(item)
        else:
            for p in _edges_of(item, types, has_next, owner, label):
                edge_conditions.setdefault(p, []).append(item)
    edges = {
        key: EdgePredicate(key[0], key[1], tuple(items), *_indexed_forms(items, key))
        for key, items in edge_conditions.items()
    }
    return Predicates({k: tuple(v) for k, v in local.items()}, edges)


def _shape(item: Condition, label: str) -> tuple[set[str], bool]:
    """The types a conjunct names and whether it reads ``NEXT``; refuses a position."""
    attributes = condition_attributes(item)
    if any(a.position is not None for a in attributes):
        raise InevError(
            f"{label}: predicate {item} reads a position of a trend (FIRST, LAST, X[i]), "
            "which GRETA does not define (its predicates are local or between adjacent "
            "events, §6)"
        )
    return {a.type for a in attributes}, any(a.next for a in attributes)


def _edges_of(
    item: Condition,
    types: set[str],
    has_next: bool,
    owner: Mapping[tuple[str, str], Template],
    label: str,
) -> list[tuple[str, str]]:
    """The transitions an edge predicate holds on (``T -> T`` for one type with ``NEXT``,
    either direction between two types that are adjacent in a trend); refuses the rest."""
    if len(types) == 1:
        (t,) = types
        if (t, t) not in owner:
            raise InevError(
                f"{label}: NEXT({t}) needs a Kleene transition from {t} to {t} in the pattern"
            )
        return [(t, t)]
    if len(types) == 2 and not has_next:
        x, y = sorted(types)
        pairs = [p for p in ((x, y), (y, x)) if p in owner]
        if not pairs:
            raise InevError(
                f"{label}: predicate {item} relates {x} and {y}, which are never adjacent "
                "in a trend"
            )
        return pairs
    raise InevError(
        f"{label}: predicate {item} is neither a vertex nor an edge predicate (GRETA §6)"
    )


def _side(expr: Expr, source: str, target: str) -> str | None:
    """``"prev"``/``"next"`` when the expression names only one end of the edge."""
    sides = set()
    for a in condition_attributes(expr):
        if source == target:
            sides.add("next" if a.next else "prev")
        else:
            sides.add("prev" if a.type == source else "next")
    return sides.pop() if len(sides) == 1 else None


def _indexed_forms(
    items: list[Condition], key: tuple[str, str]
) -> tuple[RangeKey | None, EqualKey | None]:
    """The range and equality forms when together they are all of the edge's conditions."""
    found_range: RangeKey | None = None
    found_equal: EqualKey | None = None
    for c in items:
        if not isinstance(c, Compare) or (c.op not in _FLIP and c.op != "=="):
            return None, None
        left, right = _side(c.left, *key), _side(c.right, *key)
        if (left, right) == ("prev", "next"):
            prev, op, nxt = c.left, c.op, c.right
        elif (left, right) == ("next", "prev"):
            prev, op, nxt = c.right, _FLIP.get(c.op, c.op), c.left
        else:
            return None, None
        if op == "==" and found_equal is None:
            found_equal = EqualKey(compile_expr(prev, numeric=False), compile_expr(nxt, False))
        elif op != "==" and found_range is None:
            found_range = RangeKey(compile_expr(prev), op, compile_expr(nxt))
        else:
            return None, None
    return found_range, found_equal


def compile_expr(expr: Expr, numeric: bool = True) -> KeyFunction:
    """A function of one event's attributes computing ``expr``; ``None`` when undefined.

    With ``numeric`` the value must be a real number, else also a string or a boolean.

    Only the attribute name is used (the type and ``NEXT`` are implied by the edge side).
    The range index calls it once per event and edge side, so the expression is generated
    as Python source and compiled into one function (as the engine's predicates are):
    measured (timeit, call included) 1.26x faster than the former chain of closures for
    ``S.price * 1.05`` and 1.1x for ``S.price``.
    """
    constants: dict[str, Any] = {}
    body = _source(expr, constants)
    namespace: dict[str, Any] = {"_other": _other_numeric if numeric else _other_any, **constants}
    code = (
        "def key(a):\n"
        "    try:\n"
        f"        value = {body}\n"
        "    except (KeyError, TypeError, ArithmeticError):\n"
        "        return None\n"
        "    kind = value.__class__\n"
        "    if kind is int:\n"
        "        return value\n"
        "    if kind is float:\n"
        "        return None if value != value else value\n"
        "    return _other(value)\n"
    )
    exec(compiled_source(code, "<greta-key>"), namespace)
    key: KeyFunction = namespace["key"]
    return key


def _other_numeric(value: Any) -> Any:
    """A key value that is not a plain int or float: a real number, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _other_any(value: Any) -> Any:
    """As :func:`_other_numeric`, but strings and booleans are keys too (equality)."""
    if isinstance(value, str | bool):
        return value
    return _other_numeric(value)


def _source(expr: Expr, constants: dict[str, Any]) -> str:
    """Python source of an expression over the attribute mapping ``a``."""
    if isinstance(expr, Const):
        name = f"_c{len(constants)}"
        constants[name] = expr.value
        return name
    if isinstance(expr, Attr):
        name = f"_c{len(constants)}"
        constants[name] = expr.name
        return f"a[{name}]"
    if isinstance(expr, Negate):
        return f"(-{_source(expr.operand, constants)})"
    if isinstance(expr, Arith) and expr.op in ARITHMETIC:
        left, right = _source(expr.left, constants), _source(expr.right, constants)
        return f"({left} {expr.op} {right})"
    raise TypeError(f"not an expression: {expr!r}")
