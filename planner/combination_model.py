"""The combination c = (ℙ, λ) of a workload (INEv paper §3.3) with its multi-node choices.

A :class:`Combination` is what Alg. 1 (and §6.3) hands to Alg. 2: the projections (event
types included, keyed by their names), the inputs λ(p) of every composite projection, the
partitioning type of each multi-node projection, and the sink projection of every query.

>>> from inev.planner.projections import primitive_projection
>>> a, b = primitive_projection("A", 1.0), primitive_projection("B", 2.0)
>>> c = Combination({"A": a, "B": b}, {}, {}, {})
>>> c.topological_order()
['A', 'B']
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field

from inev.planner.projections import Projection
from inev.planner.regions import Regions


def inputs_first(
    projections: Mapping[str, Projection], inputs: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The keys with every input before its consumers; ties by size, then insertion order.

    Size alone is not enough: a Kleene query's sink takes its Kleene-free twin, which has
    as many types, as its input.

    >>> from inev.planner.projections import primitive_projection
    >>> ps = {k: primitive_projection(k, 1.0) for k in "XYZ"}
    >>> inputs_first(ps, {"X": ("Z",), "Z": ("Y",)})
    ['Y', 'Z', 'X']
    """
    keys = list(projections)
    rank = {k: (len(projections[k].types), i) for i, k in enumerate(keys)}
    ranked = sorted(keys, key=rank.__getitem__)
    if all(
        rank[i] < rank[k] for k in ranked for i in inputs.get(k, ()) if i in rank
    ):  # every input ranks before its consumers: the order below pops the keys by rank
        return ranked
    waiting = {k: {i for i in inputs.get(k, ()) if i in rank} for k in keys}
    consumers: dict[str, list[str]] = {k: [] for k in keys}
    for k, ins in waiting.items():
        for i in ins:
            consumers[i].append(k)
    ready = [(rank[k], k) for k, ins in waiting.items() if not ins]
    heapq.heapify(ready)
    out = []
    while ready:
        _, k = heapq.heappop(ready)
        out.append(k)
        for c in consumers[k]:
            waiting[c].discard(k)
            if not waiting[c]:
                heapq.heappush(ready, (rank[c], c))
    if len(out) != len(keys):
        raise ValueError("the combination has a cycle")
    return out


@dataclass(frozen=True)
class Combination:
    """Projections ℙ (by key), inputs λ, multi-node partitioning types MN and query sinks."""

    projections: Mapping[str, Projection]
    inputs: Mapping[str, tuple[str, ...]]
    multi_node: Mapping[str, str]
    sinks: Mapping[str, str]
    queries_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    regional: Mapping[str, Regions] = field(default_factory=dict)
    """Regional placements (beyond the paper, :mod:`inev.planner.regional`): a projection of
    ``multi_node`` listed here is evaluated at its regions' sites, not at every source."""

    def topological_order(self) -> list[str]:
        """Projection keys with every input before its consumers (by size, then insertion)."""
        return inputs_first(self.projections, self.inputs)

    def consumers(self) -> dict[str, list[str]]:
        """``{key: projections that take it as input}``."""
        out: dict[str, list[str]] = {k: [] for k in self.projections}
        for p, inputs in self.inputs.items():
            for i in inputs:
                out[i].append(p)
        return out

    def used(self) -> Combination:
        """The combination restricted to projections reachable from the sinks."""
        keep: set[str] = set()
        stack = list(self.sinks.values())
        while stack:
            k = stack.pop()
            if k in keep:
                continue
            keep.add(k)
            stack.extend(self.inputs.get(k, ()))
        return Combination(
            projections={k: v for k, v in self.projections.items() if k in keep},
            inputs={k: v for k, v in self.inputs.items() if k in keep},
            multi_node={k: v for k, v in self.multi_node.items() if k in keep},
            sinks=dict(self.sinks),
            queries_of={k: v for k, v in self.queries_of.items() if k in keep},
            regional={k: v for k, v in self.regional.items() if k in keep},
        )
