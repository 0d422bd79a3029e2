"""Costing a combination made elsewhere (e.g. by the INEv authors' planner) with inev's model.

A combination given as pattern texts, ``{projection: {"inputs": [...], "partition": type or
None}}``, is turned into a design of :mod:`inev.planner.improve` and placed by inev's Alg. 2,
so that two planners' choices can be compared under one cost model.

Every projection in a query's tree becomes that query's own projection over the same types:
the INEv authors' planner shares projections by their *set* of types, so it may feed
q2 = AND(SEQ(C, D), SEQ(B, A)) with q1's SEQ(C, AND(A, D)), which requires C before A and
loses q2's matches where A comes first (:func:`shares_by_type_set` detects it). Queries share a
projection only where their own projections coincide.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (9.0, [1, 2])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.1})])
>>> combination_cost(net, wl, {"SEQ(A, B)": {"inputs": ["A", "B"], "partition": "B"}})
2.0

:func:`external_plan` writes the placement out as a plan that the simulator can run:

>>> plan = external_plan(net, wl, {"SEQ(A, B)": {"inputs": ["A", "B"], "partition": "B"}})
>>> plan.method, plan.psi, plan.multi_node, plan.centralized_cost
('external', 2.0, {'SEQ(A, B)': 'B'}, 10.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from inev.common.errors import InevError
from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import place, placement_cost
from inev.planner.assemble import build_plan
from inev.planner.baselines import centralized_plan, sink_projection
from inev.planner.improve import Design
from inev.planner.inev_graph import Plan
from inev.planner.projections import (
    Projection,
    make_projection,
    own_key,
    primitive_projection,
    restrict,
)
from inev.topologies.network import Network
from inev.workloads.pattern import Operator, Pattern, leaf_types
from inev.workloads.rates import strip_kleene
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Query, Workload


def external_design(
    network: Network, workload: Workload, combination: Mapping[str, Mapping[str, Any]]
) -> tuple[Design, dict[str, Projection]]:
    """The design (and its projections) of a combination given as pattern texts."""
    glob = network.global_rates()
    queries = workload.or_free.queries
    types_of = {text: frozenset(leaf_types(parse_pattern(text))) for text in combination}
    pool: dict[str, Projection] = {}
    choices: dict[str, Choice] = {}

    def projection(q: Query, types: frozenset[str]) -> Projection:
        if len(types) == 1:
            (t,) = types
            return primitive_projection(t, glob[t])
        if types == frozenset(q.types):
            p = sink_projection(q, glob, workload.window)
        else:
            p = make_projection(q, types, glob, workload.window)
        return own_key(p, pool, q.name)

    def visit(q: Query, text: str) -> str:
        types = types_of.get(text) or frozenset(leaf_types(parse_pattern(text)))
        p = projection(q, types)
        pool.setdefault(p.key, p)
        if p.is_primitive or p.key in choices:
            choices.setdefault(p.key, Choice(p.key, (), None, {}, 0.0))
            return p.key
        if text not in combination:
            raise InevError(f"combination: {text} is an input but has no entry")
        entry = combination[text]
        inputs = tuple(dict.fromkeys(visit(q, str(i)) for i in entry["inputs"]))
        choices[p.key] = Choice(p.key, inputs, entry.get("partition"), {}, 0.0)
        return p.key

    sinks = {}
    for q in queries:
        roots = [t for t, types in types_of.items() if types == frozenset(q.types)]
        if not roots:
            raise InevError(f"combination: no projection over all types of {q.name}")
        sinks[q.name] = visit(q, roots[0])
    return Design(choices, sinks), pool


def combination_cost(
    network: Network, workload: Workload, combination: Mapping[str, Mapping[str, Any]]
) -> float:
    """ψ of a combination given as pattern texts, placed by inev's Alg. 2 (module docstring)."""
    design, pool = external_design(network, workload, combination)
    return placement_cost(network, design.combination(pool))


def external_plan(
    network: Network,
    workload: Workload,
    combination: Mapping[str, Mapping[str, Any]],
    send_matches: bool = True,
) -> Plan:
    """A combination given as pattern texts as an inev :class:`Plan`, placed by Alg. 2.

    With ``send_matches`` (the default) every projection sends its matches, without output
    selectors, as the INEv authors' placement does; otherwise Alg. 2 adds selectors where
    they pay. The plan's centralized cost and node are the workload's, so that its ratio
    compares with other methods' plans.
    """
    design, pool = external_design(network, workload, combination)
    comb = design.combination(pool)
    keep = frozenset(comb.projections) if send_matches else frozenset()
    plan = build_plan(network, comb, place(network, comb, keep_matches=keep), "external")
    central = centralized_plan(network, workload.or_free)
    return replace(
        plan,
        centralized_cost=central.centralized_cost,
        centralized_node=central.centralized_node,
    )


def _canonical(pattern: Pattern) -> str:
    if not isinstance(pattern, Operator):
        return str(pattern)
    kids = [_canonical(c) for c in pattern.children]
    if pattern.kind == "AND":
        kids.sort()
    return f"{pattern.kind}({', '.join(kids)})"


def shares_by_type_set(workload: Workload, combination: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether some query's tree holds a projection that is not the query's own restriction
    to its types (another pattern's matches fed to the query)."""

    def wrong(q: Query, text: str, seen: set[str]) -> bool:
        if text in seen or text not in combination:
            return False
        seen.add(text)
        pattern = parse_pattern(text)
        own = restrict(strip_kleene(q.pattern), set(leaf_types(pattern)))
        if own is None or _canonical(own) != _canonical(strip_kleene(pattern)):
            return True
        return any(wrong(q, str(i), seen) for i in combination[text]["inputs"])

    for q in workload.or_free.queries:
        roots = [t for t in combination if set(leaf_types(parse_pattern(t))) == set(q.types)]
        if roots and wrong(q, roots[0], set()):
            return True
    return False
