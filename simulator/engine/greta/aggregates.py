"""Trend aggregates and their propagation along GRETA edges (GRETA paper §2 Def. 2, §4.2).

Every vertex carries a small vector of components; component 0 is always the number of
(sub-)trends that start at a START event and end at the vertex (Theorem 2). The other
components follow the same dynamic-programming rule:

- ``COUNT(E)`` (events of type E over all trends): ``cE(v) = Σ cE(p) + [v is E]·count(v)``.
- ``SUM(E.a)``: ``sum(v) = Σ sum(p) + [v is E]·v.a·count(v)``.
- ``AVG(E.a)`` is ``SUM(E.a) / COUNT(E)`` (both carried).
- ``MIN(E.a)`` / ``MAX(E.a)``: ``min(v) = min(min(p) over p, v.a if v is E)``.

Final aggregates combine the vectors of END events. Counts are Python integers and stay
exact however large; sums are exact for integer attributes (floats are summed as floats).
With no trend in a window, ``COUNT``/``SUM`` give 0 and ``MIN``/``MAX``/``AVG`` give ``None``.

>>> spec = aggregate_spec(Aggregate("SUM", "A", "x"))
>>> spec.vertex((2, 10), True, "A", {"x": 5})  # 2 trends end at preds, plus one starting here
(3, 25)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from operator import add
from typing import Any

from inev.workloads.expressions import Aggregate

SUM = "sum"
MIN = "min"
MAX = "max"
IDENTITY = {SUM: 0, MIN: math.inf, MAX: -math.inf}
Vector = tuple[Any, ...]


@dataclass(frozen=True)
class AggregateSpec:
    """How one ``return`` aggregate is carried on vertices: component ops and updates."""

    aggregate: Aggregate
    ops: tuple[str, ...]

    @cached_property
    def identity(self) -> Vector:
        """The vector of no trend at all."""
        return tuple(IDENTITY[o] for o in self.ops)

    @cached_property
    def all_sum(self) -> bool:
        """Whether every component adds (COUNT, SUM, AVG): a faster path in the stores."""
        return all(o == SUM for o in self.ops)

    def combine(self, left: Vector, right: Vector) -> Vector:
        """Componentwise combination (sum, min or max) of two vectors."""
        if len(left) == 1 and self.ops[0] == SUM:  # COUNT(*), the common case
            return (left[0] + right[0],)
        if self.all_sum:
            return tuple(map(add, left, right))
        return tuple(
            a + b if o == SUM else (a if a <= b else b) if o == MIN else (a if a >= b else b)
            for o, a, b in zip(self.ops, left, right, strict=True)
        )

    def combine_all(self, vectors: Iterable[Vector]) -> Vector:
        """The combination of many vectors (the identity for none)."""
        columns = list(zip(*vectors, strict=True))
        if not columns:
            return self.identity
        return tuple(
            sum(col) if o == SUM else min(col) if o == MIN else max(col)
            for o, col in zip(self.ops, columns, strict=True)
        )

    def vertex(
        self, incoming: Vector, start: bool, type_name: str, attributes: Mapping[str, Any]
    ) -> Vector | None:
        """The vector of a new vertex from the combined vector of its predecessors.

        ``None`` when the event starts no trend and extends none (it is not inserted).
        """
        count = incoming[0] + 1 if start else incoming[0]
        if not count:
            return None
        agg = self.aggregate
        if agg.type is None:  # COUNT(*): one component
            return (count,)
        if agg.type != type_name:
            return (count, *incoming[1:])
        function = agg.function
        if function == "COUNT":
            return (count, incoming[1] + count)
        value = attributes[agg.attribute]  # type: ignore[index]
        if function == "SUM":
            return (count, incoming[1] + value * count)
        if function == "AVG":
            return (count, incoming[1] + count, incoming[2] + value * count)
        if function == "MIN":
            return (count, value if value < incoming[1] else incoming[1])
        return (count, value if value > incoming[1] else incoming[1])

    def value(self, final: Vector) -> Any:
        """The reported aggregate from the final vector of a window and group."""
        function = self.aggregate.function
        if function == "COUNT":
            return final[0] if self.aggregate.type is None else final[1]
        if function == "SUM":
            return final[1]
        if function == "AVG":
            return final[2] / final[1] if final[1] else None
        return None if math.isinf(final[1]) else final[1]

    def accepts(self, type_name: str, attributes: Mapping[str, Any]) -> bool:
        """Whether an event can carry the aggregate (its attribute is a real number)."""
        agg = self.aggregate
        if agg.attribute is None or agg.type != type_name:
            return True
        value = attributes.get(agg.attribute)
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and not (isinstance(value, float) and math.isnan(value))
        )


def aggregate_spec(aggregate: Aggregate) -> AggregateSpec:
    """The component layout for an aggregate (component 0 is always the trend count)."""
    f = aggregate.function
    if f == "COUNT":
        ops: tuple[str, ...] = (SUM,) if aggregate.type is None else (SUM, SUM)
    elif f == "SUM":
        ops = (SUM, SUM)
    elif f == "AVG":
        ops = (SUM, SUM, SUM)
    elif f == "MIN":
        ops = (SUM, MIN)
    else:
        ops = (SUM, MAX)
    return AggregateSpec(aggregate, ops)


# The vector of negative sub-graphs (§5.2): the latest start time of a trend ending at a
# vertex, combined with max; it tells which earlier events a finished trend invalidates.
LATEST_START = AggregateSpec(Aggregate("MAX", None, None), (MAX,))
