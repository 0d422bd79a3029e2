"""From an Alg. 2 placement to a :class:`~inev.planner.inev_graph.Plan`, and why it looks as it does.

:func:`build_plan` is the one place a :class:`~inev.planner.inev_graph.Plan` is made (reading
a plan file, :func:`~inev.planner.inev_graph.plan_from_dict`, is the only other;
``tests/test_layers.py`` fails on any more). It wraps the vertices of an Alg. 2 placement with
the projections' records, the rates the file needs to be self-contained, ψ and the latency
ℓ(I) (§5.3, §5.4). Methods that lay out their vertices themselves, PPoP's push-pull vertices
(:func:`inev.planner.baselines.push_pull_plan`) and the side-by-side join of per-query plans
(:func:`inev.planner.isolated.side_by_side`), hand it a :class:`PlanGraph` instead, with the
figures their own model prices where it differs (PPoP's pull cost, its pull-doubled paths);
:func:`explain_lines` says, per projection, which inputs were chosen, where it is placed,
Eq. 1's figures for a multi-node placement and the output selector (``inev plan --explain``).

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1], [(0, 1)], {"A": (None, [0, 1], [1.0, 2.0]), "B": (3.0, [1])})
>>> rate_fields(net, ["A", "B"])
({'A': (1.5, 3.0), 'B': (3.0, 3.0)}, {'A': {0: 1.0, 1: 2.0}})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import Placement
from inev.planner.combination_model import Combination
from inev.planner.cost_model import psi as psi_of
from inev.planner.inev_graph import Link, Node, Plan, ProjectionInfo, Vertex
from inev.planner.latency_model import DEFAULT_XI, plan_latency
from inev.planner.regions import Regions
from inev.topologies.network import Network
from inev.workloads.pattern import leaf_types


def rate_fields(
    network: Network, types: Iterable[str]
) -> tuple[dict[str, tuple[float, float]], dict[str, dict[Node, float]]]:
    """A plan's ``type_rates`` ({type: (r(e), R(e))}) and ``source_rates`` (non-uniform types)."""
    names = sorted(set(types))
    type_rates = {t: (network.rate(t), network.global_rate(t)) for t in names}
    source_rates = {
        t: dict(zip(network.sources(t), network.source_rates(t), strict=True))
        for t in names
        if not network.event_type(t).uniform
    }
    return type_rates, source_rates


def queries_using(combination: Combination) -> dict[str, list[str]]:
    """``{projection key: queries whose sink reaches it}``."""
    out: dict[str, list[str]] = {}
    for name, sink in combination.sinks.items():
        stack, seen = [sink], set()
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            out.setdefault(k, []).append(name)
            stack.extend(combination.inputs.get(k, ()))
    return out


def _owner_first(owner: str, queries: Iterable[str]) -> tuple[str, ...]:
    """The queries using a projection, the one whose predicates define it first: an executor
    evaluates the projection with the first query's predicates (restricted to its types)."""
    names = list(dict.fromkeys(queries))
    if owner in names:
        names.remove(owner)
        names.insert(0, owner)
    return tuple(names)


@dataclass(frozen=True)
class PlanGraph:
    """An INEv graph already in a plan's records, for methods that do not run Alg. 2.

    PPoP lays out one sink vertex per query fed by its pushed and pulled event vertices;
    the isolated plan joins per-query plans side by side. Both hand :func:`build_plan` their
    vertices with the records a plan file holds; ψ defaults to the sum of the vertices'
    costs, the latency must be given (it is the method's own model).
    """

    vertices: tuple[Vertex, ...]
    projections: Mapping[str, ProjectionInfo]
    combination: Mapping[str, tuple[str, ...]]
    sinks: Mapping[str, str]
    type_rates: Mapping[str, tuple[float, float]]
    source_rates: Mapping[str, Mapping[Node, float]] = field(default_factory=dict)
    multi_node: Mapping[str, str] = field(default_factory=dict)
    fallback: Mapping[str, Node] = field(default_factory=dict)
    trees: tuple[tuple[Link, ...], ...] = ()


def build_plan(
    network: Network | None,
    combination: Combination | None,
    placement: Placement | PlanGraph,
    method: str,
    xi: float = DEFAULT_XI,
    notes: Sequence[str] = (),
    *,
    psi: float | None = None,
    latency: float | None = None,
) -> Plan:
    """Wrap a placement into a :class:`Plan` (figures other than ψ and ℓ left at 0).

    Parameters
    ----------
    network, combination : Network, Combination
        The network planned on and the combination Alg. 2 placed (``None`` with a
        :class:`PlanGraph`, which carries its own records and rates).
    placement : Placement or PlanGraph
        Alg. 2's result, or the graph of a method that lays out its vertices itself.
    method : str
        The plan's method (``inev``, ``centralized``, ``ppop`` …).
    xi : float
        ξ of the latency model (§5.4), for a placement.
    notes : sequence of str
        Lines the plan carries (``inev plan --explain``, PPoP's pulls).
    psi, latency : float, optional
        The method's own figures; by default ψ is the sum of the vertices' costs and ℓ the
        latency model's (a :class:`PlanGraph` must give ``latency``).

    Returns
    -------
    Plan

    Examples
    --------
    >>> from inev.planner.inev_graph import ProjectionInfo, Vertex
    >>> info = ProjectionInfo("A", "A", ("A",), (), 2.0, (("A", 1.0),), ("q",))
    >>> graph = PlanGraph((Vertex(0, "A", 1, (), ((0, 1),), (0,), (1,), rate=2.0, cost=2.0),),
    ...                   {"A": info}, {}, {"q": "A"}, {"A": (2.0, 2.0)})
    >>> plan = build_plan(None, None, graph, "by-hand", latency=1.0)
    >>> plan.psi, plan.latency, plan.method
    (2.0, 1.0, 'by-hand')
    """
    if isinstance(placement, PlanGraph):
        if latency is None:
            raise ValueError("build_plan: a PlanGraph needs its latency")
        graph = placement
    else:
        if network is None or combination is None:
            raise ValueError("build_plan: a placement needs its network and combination")
        graph = _graph_of(network, combination, placement)
        if latency is None:
            latency = plan_latency(
                placement.vertices,
                placement.projections,
                placement.inputs,
                combination.sinks.values(),
                network.global_rates(),
                xi,
            )
    return Plan(
        method=method,
        vertices=graph.vertices,
        projections=graph.projections,
        combination=graph.combination,
        multi_node=graph.multi_node,
        sinks=graph.sinks,
        type_rates=graph.type_rates,
        source_rates=graph.source_rates,
        fallback=graph.fallback,
        trees=graph.trees,
        psi=psi_of(graph.vertices) if psi is None else psi,
        latency=latency,
        notes=tuple(notes),
    )


def _graph_of(network: Network, combination: Combination, placement: Placement) -> PlanGraph:
    """The records of an Alg. 2 placement: projections with their queries, λ', rates."""
    using = queries_using(
        Combination(
            placement.projections, placement.inputs, combination.multi_node, combination.sinks
        )
    )
    infos = {}
    for key, p in placement.projections.items():
        infos[key] = ProjectionInfo(
            key=key,
            pattern=str(p.pattern),
            types=tuple(leaf_types(p.pattern)),
            negated=tuple(sorted(p.negated)),
            rate=p.rate,
            single=p.single,
            queries=_owner_first(p.owner, using.get(key, ())),
        )
    used_types = {t for p in placement.projections.values() for t in p.types}
    type_rates, source_rates = rate_fields(network, used_types)
    return PlanGraph(
        vertices=placement.vertices,
        projections=infos,
        combination=dict(placement.inputs),
        sinks=dict(combination.sinks),
        type_rates=type_rates,
        source_rates=source_rates,
        multi_node=dict(combination.multi_node),
        fallback=dict(placement.fallback),
        trees=placement.trees,
    )


def explain_lines(
    combination: Combination, choices: Mapping[str, Choice], placement: Placement
) -> list[str]:
    """Why the plan looks as it does: inputs, multi-node choices with Eq. 1 figures, nodes."""
    lines = []
    for key in combination.topological_order():
        if key not in combination.inputs:
            continue
        ch = choices.get(key)
        nodes = placement.nodes.get(key, ())
        ins = ", ".join(combination.inputs[key])
        added = [i for i in placement.inputs.get(key, ()) if i not in combination.inputs[key]]
        if added:
            ins += f"; + {', '.join(added)} (output selection of an input)"
        os_ = placement.outputs.get(key)
        sel = "all" if os_ is None else "{" + ", ".join(os_) + "}"
        if key in combination.regional:
            lines.append(_regional_line(key, ins, combination.regional[key], placement, sel))
        elif key in combination.multi_node:
            part = combination.multi_node[key]
            eq1 = ""
            if ch is not None and ch.eq1 is not None and ch.partition == part:
                eq1 = f"; Eq. 1: R({part})·δ = {ch.eq1[0]:.6g} > {ch.eq1[1]:.6g}"
            lines.append(
                f"{key} <- [{ins}]: multi-node at the {len(nodes)} sources of {part}"
                f" (fall-back node {placement.fallback.get(key)}){eq1}; output {sel}"
            )
        else:
            where = nodes[0] if nodes else "?"
            est = (
                f"; estimated cost {ch.cost:.6g}"
                if ch is not None and math.isfinite(ch.cost)
                else ""
            )
            lines.append(f"{key} <- [{ins}]: single node {where}{est}; output {sel}")
    return lines


def _regional_line(key: str, ins: str, regions: Regions, placement: Placement, sel: str) -> str:
    """The explanation of a regional placement (beyond the paper, :mod:`inev.planner.regional`)."""
    sizes = sorted((len(m) for m in regions.members), reverse=True)
    shown = ", ".join(map(str, sizes[:8])) + (", …" if len(sizes) > 8 else "")
    return (
        f"{key} <- [{ins}]: regional at {regions.count} sites partitioned by "
        f"{regions.partition} ({sum(sizes)} sources in regions of {shown}; sites "
        f"{', '.join(map(str, regions.sites[:8]))}{', …' if regions.count > 8 else ''}; "
        f"fall-back node {placement.fallback.get(key)}); output {sel}"
    )
