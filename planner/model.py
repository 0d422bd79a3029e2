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

from collections.abc import Mapping
from dataclasses import dataclass, field

from inev.planner.projections import Projection


@dataclass(frozen=True)
class Combination:
    """Projections ℙ (by key), inputs λ, multi-node partitioning types MN and query sinks."""

    projections: Mapping[str, Projection]
    inputs: Mapping[str, tuple[str, ...]]
    multi_node: Mapping[str, str]
    sinks: Mapping[str, str]
    queries_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def topological_order(self) -> list[str]:
        """Projection keys with every input before its consumers (by size, then insertion)."""
        keys = list(self.projections)
        position = {k: i for i, k in enumerate(keys)}
        return sorted(keys, key=lambda k: (len(self.projections[k].types), position[k]))

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
        )
