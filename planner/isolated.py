"""The sharing-agnostic plan (INEv paper §7.2, Fig. 10a): each query planned alone, side by side.

:func:`side_by_side` joins per-query plans into one: their vertices (renumbered), trees and
records are kept apart, so an event type used by two queries is sent twice and nothing is
shared; ψ is the sum of the parts. A projection key that two queries use for different
projections gets the query's name appended (``"SEQ(A, B) @q2"``).

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.planning import plan_workload
>>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (2.0, [2])})
>>> q1, q2 = Query.build("q1", "SEQ(A, B)"), Query.build("q2", "AND(A, B)")
>>> alone = [plan_workload(net, Workload.build(1.0, [q])) for q in (q1, q2)]
>>> joined = side_by_side([("q1", alone[0]), ("q2", alone[1])])
>>> joined.psi == alone[0].psi + alone[1].psi, len(joined.vertices) == sum(
...     len(p.vertices) for p in alone)
(True, True)
>>> sorted(joined.sinks)
['q1', 'q2']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from inev.planner.assemble import PlanGraph, build_plan
from inev.planner.inev_graph import Link, Node, Plan, ProjectionInfo, Vertex


def side_by_side(parts: Sequence[tuple[str, Plan]], method: str = "isolated") -> Plan:
    """One plan holding every ``(query name, plan of that query alone)`` part unchanged."""
    vertices: list[Vertex] = []
    trees: list[tuple[Link, ...]] = []
    projections: dict[str, ProjectionInfo] = {}
    combination: dict[str, tuple[str, ...]] = {}
    multi_node: dict[str, str] = {}
    fallback: dict[str, Node] = {}
    sinks: dict[str, str] = {}
    type_rates: dict[str, tuple[float, float]] = {}
    source_rates: dict = {}
    notes: list[str] = []
    latency = 0.0
    for name, sub in parts:
        rename = {}
        for key, info in sub.projections.items():
            new = key if key not in projections or info.types == (key,) else f"{key} @{name}"
            rename[key] = new
            if new not in projections:
                projections[new] = replace(info, key=new)
        offset, tree_offset = len(vertices), len(trees)
        trees.extend(sub.trees)
        for v in sub.vertices:
            vertices.append(
                replace(
                    v,
                    id=v.id + offset,
                    projection=rename[v.projection],
                    inputs=tuple(i + offset for i in v.inputs),
                    tree=None if v.tree is None else v.tree + tree_offset,
                )
            )
        for k, ins in sub.combination.items():
            combination[rename[k]] = tuple(rename[i] for i in ins)
        multi_node.update({rename[k]: v for k, v in sub.multi_node.items()})
        fallback.update({rename[k]: v for k, v in sub.fallback.items()})
        sinks.update({n: rename[k] for n, k in sub.sinks.items()})
        type_rates.update(sub.type_rates)
        source_rates.update(sub.source_rates)
        notes.extend(
            line if line.startswith(f"{name}: ") else f"{name}: {line}" for line in sub.notes
        )
        latency = max(latency, sub.latency)
    graph = PlanGraph(
        vertices=tuple(vertices),
        projections=projections,
        combination=combination,
        sinks=sinks,
        type_rates=type_rates,
        source_rates=source_rates,
        multi_node=multi_node,
        fallback=fallback,
        trees=tuple(trees),
    )
    return build_plan(None, None, graph, method, notes=notes, latency=latency)
