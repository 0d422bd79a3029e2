"""From an event network and a workload to an INEv graph (INEv paper §4–§6): the planner's entry point.

:func:`plan_workload` runs one method and returns a :class:`~inev.planner.plan.Plan` with
ψ, the centralized cost and node, the ratio, the lower bound of §7.2, the latency ℓ(I) and
the centralized latency τ:

``inev``
    Alg. 1 per query in the given order with shared construction, sharing-based scoring and
    Θ (§6.3), then Alg. 2 (§6.4). Alg. 2 places each single-node projection on its own best
    node; we also place the combination with the event-gathering sinks, and then with all
    single-node projections, pinned at the centralized node (where shared events travel
    once) and keep the cheapest of the three placements (for graphs of at most
    :data:`PIN_TRIAL_VERTICES` vertices, where it is cheap). The planner keeps the centralized
    plan when its own is not cheaper (ψ ≥ centralized cost), and says so in the notes.
``centralized``
    All queries at the best single node (:mod:`inev.planner.baselines`).
``isolated``
    The sharing-agnostic INEv plan: each query planned alone, the vertices of all plans
    side by side, costs summed (§7.2, Fig. 10a).
``ppop``
    Push-pull operator placement (:func:`inev.planner.baselines.push_pull`) per query.

OR queries are split first (§3.2). τ = ``latency_factor`` × the centralized plan's latency;
ξ weighs processing against transmission latency (§5.4). Alg. 1 prunes on estimated
latencies as the paper does; ``strict_latency`` also enforces ℓ(I) ≤ τ on the placed graph.

>>> from inev.topologies.generate import generate_network
>>> from inev.workloads.generate import generate_workload
>>> net = generate_network(seed=1)
>>> plan = plan_workload(net, generate_workload(net, seed=1))
>>> plan.psi <= plan.centralized_cost
True
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from inev.common.errors import InevError
from inev.planner.baselines import (
    centralized_combination,
    centralized_node,
    push_pull,
    sink_projection,
)
from inev.planner.combination import Choice, Params, SharingState, combine_query
from inev.planner.costs import psi as psi_of
from inev.planner.latency import DEFAULT_XI, plan_latency
from inev.planner.lower_bound import lower_bound
from inev.planner.model import Combination
from inev.planner.placement import Placement, place
from inev.planner.plan import Node, Plan, ProjectionInfo, Vertex, link
from inev.topologies.network import Network
from inev.workloads.workload import Workload

METHODS = ("inev", "centralized", "isolated", "ppop")
PIN_TRIAL_VERTICES = 5000
"""Above this many vertices the pinned placements are not tried (they triple Alg. 2's time)."""


def prepare(network: Network, workload: Workload) -> Workload:
    """The OR-free workload, checked against the network (bad input: :class:`InevError`)."""
    wl = workload.split_or()
    wl.check_network(network)
    for q in wl.queries:
        if len(q.types) < 2:
            raise InevError(f"query {q.name}: a single event type needs no plan (use 2 or more)")
    return wl


def combine_workload(
    network: Network,
    workload: Workload,
    *,
    tau: float = float("inf"),
    xi: float = DEFAULT_XI,
    order: Sequence[str] | None = None,
) -> tuple[Combination, dict[str, Choice]]:
    """Alg. 1 over the queries of an OR-free workload in ``order`` (§6.3): combination, choices."""
    glob = network.global_rates()
    state = SharingState()
    params = Params(delta=network.mean_hops, tau=tau, xi=xi)
    names = list(order) if order is not None else [q.name for q in workload.queries]
    for name in names:
        q = workload.query(name)
        sink = sink_projection(q, glob, workload.selectivity_seed)
        combine_query(network, q, state, params, sink, workload.selectivity_seed)
    return state.combination(), dict(state.choices)


def _queries_using(combination: Combination) -> dict[str, list[str]]:
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


def build_plan(
    network: Network,
    combination: Combination,
    placement: Placement,
    method: str,
    xi: float = DEFAULT_XI,
    notes: Sequence[str] = (),
) -> Plan:
    """Wrap an Alg. 2 placement into a :class:`Plan` (figures other than ψ and ℓ left at 0)."""
    using = _queries_using(
        Combination(
            placement.projections, placement.inputs, combination.multi_node, combination.sinks
        )
    )
    glob = network.global_rates()
    infos = {}
    for key, p in placement.projections.items():
        order = [t for t in _type_order(p)]
        infos[key] = ProjectionInfo(
            key=key,
            pattern=str(p.pattern),
            types=tuple(order),
            negated=tuple(sorted(p.negated)),
            rate=p.rate,
            single=p.single,
            queries=tuple(using.get(key, ())),
        )
    used_types = sorted({t for p in placement.projections.values() for t in p.types})
    latency = plan_latency(
        placement.vertices,
        placement.projections,
        placement.inputs,
        combination.sinks.values(),
        glob,
        xi,
    )
    return Plan(
        method=method,
        vertices=placement.vertices,
        projections=infos,
        combination={k: v for k, v in placement.inputs.items()},
        multi_node=dict(combination.multi_node),
        sinks=dict(combination.sinks),
        type_rates={t: (network.rate(t), network.global_rate(t)) for t in used_types},
        fallback=dict(placement.fallback),
        trees=placement.trees,
        psi=psi_of(placement.vertices),
        latency=latency,
        notes=tuple(notes),
    )


def _type_order(p) -> list[str]:
    from inev.workloads.query import event_types

    return list(event_types(p.pattern))


def plan_workload(
    network: Network,
    workload: Workload,
    method: str = "inev",
    *,
    latency_factor: float = 1.0,
    xi: float = DEFAULT_XI,
    order: Sequence[str] | None = None,
    strict_latency: bool = False,
) -> Plan:
    """Plan ``workload`` on ``network`` with ``method`` (see the module docstring)."""
    if method not in METHODS:
        raise InevError(f"unknown planning method {method!r} (use one of {', '.join(METHODS)})")
    if not latency_factor > 0:
        raise InevError(f"latency factor must be positive, got {latency_factor}")
    start = time.perf_counter()
    wl = prepare(network, workload)
    central_comb = centralized_combination(network, wl)
    c_node, c_cost = centralized_node(network, wl.types)
    central_place = place(
        network, central_comb, pinned={k: c_node for k in central_comb.sinks.values()}
    )
    central = replace(
        build_plan(network, central_comb, central_place, "centralized", xi),
        centralized_node=c_node,
        centralized_cost=c_cost,
    )
    tau = central.latency
    notes: list[str] = []
    if method == "centralized":
        result = central
    elif method == "inev":
        result = _inev(network, wl, central, tau * latency_factor, xi, order, strict_latency)
    elif method == "isolated":
        result = _isolated(network, wl, latency_factor, xi, strict_latency)
    else:
        result = _ppop(network, wl, central)
    notes.extend(result.notes)
    return replace(
        result,
        centralized_cost=c_cost,
        centralized_node=c_node,
        lower_bound=lower_bound(network, wl),
        centralized_latency=tau,
        planning_seconds=time.perf_counter() - start,
        notes=tuple(notes),
    )


def _inev(
    network: Network,
    wl: Workload,
    central: Plan,
    tau: float,
    xi: float,
    order: Sequence[str] | None,
    strict: bool = False,
    retries: int = 3,
) -> Plan:
    """Alg. 1 + Alg. 2; the centralized plan when not cheaper (or, if ``strict``, too slow).

    Alg. 1 prunes on *estimated* latencies, as in the paper, so the placed graph's real ℓ(I)
    may exceed τ (the plan's notes say so). With ``strict``, Alg. 1 is then re-run with its
    bound scaled by 0.9 · τ / ℓ(I) (at most ``retries`` times) and the centralized plan is kept
    if no plan meets ℓ(I) ≤ τ: Problem 1 enforced on the model's real latency.
    """
    bound = tau
    notes: list[str] = []
    for attempt in range(retries + 1 if strict else 1):
        combination, choices = combine_workload(network, wl, tau=bound, xi=xi, order=order)
        placement = place(network, combination)
        c = central.centralized_node
        for pinned in (
            _gathering_sinks(combination, c),
            {k: c for k in combination.inputs if k not in combination.multi_node},
        ):
            # also try the single-node projections at the centralized node, where the
            # events they share travel once (Alg. 2 places each projection on its own)
            if pinned and len(placement.vertices) <= PIN_TRIAL_VERTICES:
                other = place(network, combination, pinned=pinned)
                if psi_of(other.vertices) < psi_of(placement.vertices):
                    placement = other
        lines = explain_lines(combination, choices, placement)
        plan = build_plan(network, combination, placement, "inev", xi, lines)
        if plan.latency <= tau * (1 + 1e-9):
            break
        notes.append(
            f"latency {plan.latency:.6g} > tau {tau:.6g} with the estimate bound {bound:.6g}"
            + ("; retrying" if strict and attempt < retries else "")
        )
        bound *= 0.9 * tau / plan.latency
        if not strict:
            break
    else:
        kept = "kept the centralized plan: no INEv plan met the latency bound"
        return replace(central, method="inev", notes=(*notes, kept))
    if plan.psi >= central.psi:
        kept = f"kept the centralized plan: the INEv plan costs {plan.psi:.6g} >= {central.psi:.6g}"
        rejected = [f"rejected: {line}" for line in lines]
        return replace(central, method="inev", notes=(*notes, kept, *rejected))
    return replace(plan, notes=(*notes, *lines))


def _gathering_sinks(combination: Combination, node: Node | None) -> dict[str, Node]:
    """Single-node projections whose inputs are all event types, to pin at ``node``."""
    if node is None:
        return {}
    return {
        key: node
        for key, ins in combination.inputs.items()
        if key not in combination.multi_node
        and all(combination.projections[i].is_primitive for i in ins)
    }


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
        if key in combination.multi_node:
            part = combination.multi_node[key]
            eq1 = ""
            if ch is not None and ch.eq1 is not None:
                eq1 = f"; Eq. 1: R({part})·δ = {ch.eq1[0]:.6g} > {ch.eq1[1]:.6g}"
            lines.append(
                f"{key} <- [{ins}]: multi-node at the {len(nodes)} sources of {part}"
                f" (fall-back node {placement.fallback.get(key)}){eq1}; output {sel}"
            )
        else:
            where = nodes[0] if nodes else "?"
            est = f"; estimated cost {ch.cost:.6g}" if ch is not None else ""
            lines.append(f"{key} <- [{ins}]: single node {where}{est}; output {sel}")
    return lines


def _isolated(
    network: Network, wl: Workload, latency_factor: float, xi: float, strict: bool = False
) -> Plan:
    vertices: list[Vertex] = []
    trees: list = []
    projections: dict[str, ProjectionInfo] = {}
    combination: dict[str, tuple[str, ...]] = {}
    multi_node: dict[str, str] = {}
    fallback: dict[str, Node] = {}
    sinks: dict[str, str] = {}
    type_rates: dict[str, tuple[float, float]] = {}
    notes: list[str] = []
    latency = 0.0
    for q in wl.queries:
        alone = Workload.build(wl.window, [q], wl.slide, wl.selectivity_seed)
        sub = plan_workload(
            network, alone, "inev", latency_factor=latency_factor, xi=xi, strict_latency=strict
        )
        rename = {}
        for key in sub.projections:
            info = sub.projections[key]
            new = key if key not in projections or info.types == (key,) else f"{key} @{q.name}"
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
        notes.extend(f"{q.name}: {line}" for line in sub.notes)
        latency = max(latency, sub.latency)
    return Plan(
        method="isolated",
        vertices=tuple(vertices),
        projections=projections,
        combination=combination,
        multi_node=multi_node,
        sinks=sinks,
        type_rates=type_rates,
        fallback=fallback,
        trees=tuple(trees),
        psi=psi_of(vertices),
        latency=latency,
        notes=tuple(notes),
    )


def _ppop(network: Network, wl: Workload, central: Plan) -> Plan:
    """A PPoP plan: per query one sink vertex; pushed and pulled event vertices feed it.

    Event vertices carry the cost of their type's push or pull traffic; a pulled type's
    vertices are marked in the notes (``pull``), which an executor must honour by requesting
    events per partial match instead of streaming them.
    """
    vertices: list[Vertex] = []
    projections: dict[str, ProjectionInfo] = {}
    sinks: dict[str, str] = {}
    combination: dict[str, tuple[str, ...]] = {}
    notes = []
    index = network.node_index
    total = 0.0
    for q in wl.queries:
        pp = push_pull(network, q, wl.window, wl.selectivity_seed)
        total += pp.cost
        notes.append(
            f"{q.name}: node {pp.node}, order {', '.join(pp.order)}, pushed {', '.join(pp.order[: pp.pushed])}"
            f", pulled {', '.join(pp.order[pp.pushed :]) or '-'}, cost {pp.cost:.6g}"
        )
        ids = []
        for pos, e in enumerate(pp.order):
            key = e if e not in projections else f"{e} @{q.name}"
            projections[key] = ProjectionInfo(
                key, e, (e,), (), network.global_rate(e), ((e, 1.0),), (q.name,)
            )
            for n, rate in zip(network.sources(e), pp.link_rates[pos], strict=True):
                links = tuple(
                    sorted(
                        {link(u, v) for u, v in network.path_links(n, pp.node)},
                        key=lambda x: (index[x[0]], index[x[1]]),
                    )
                )
                vid = len(vertices)
                vertices.append(
                    Vertex(
                        id=vid,
                        projection=key,
                        node=n,
                        forwarding=links,
                        destinations=(pp.node,),
                        hops=(len(links),),
                        rate=rate,
                        cost=len(links) * rate,
                    )
                )
                ids.append(vid)
            if pos >= pp.pushed:
                notes.append(f"{q.name}: pull {e}")
        sink_info = central.projections[central.sinks[q.name]]
        skey = sink_info.key if sink_info.key not in projections else f"{sink_info.key} @{q.name}"
        projections[skey] = replace(sink_info, key=skey, queries=(q.name,))
        vertices.append(Vertex(len(vertices), skey, pp.node, tuple(ids)))
        sinks[q.name] = skey
        combination[skey] = tuple(pp.order)
    return Plan(
        method="ppop",
        vertices=tuple(vertices),
        projections=projections,
        combination=combination,
        multi_node={},
        sinks=sinks,
        type_rates={t: (network.rate(t), network.global_rate(t)) for t in wl.types},
        psi=total,
        latency=0.0,
        notes=tuple(notes),
    )
