"""``inev plan --method exact``: the INEv graph of least ψ on small instances, and its proof.

**What it returns.** The cheapest of

1. the design of least ψ in the planner's design space with shared projections
   (:mod:`inev.planner.exact_space`, found by :mod:`inev.planner.exact_search`), with
   minimum Steiner trees as forwarding graphs;
2. with several queries, each query's own least-ψ design, side by side (the sharing-agnostic
   plan of §7.2, made exact: a query may do better alone than with the projections it
   must share);
3. the centralized plan and the push-pull (PPoP) plan, the other candidates of ``inev``;
4. ``inev``'s own plan when it holds a regional placement (issue 28, beyond the paper):
   those lie outside the searched space, so the optimum is over the paper's design space,
   and a regional plan that beats it is returned instead (its note says so).

**Why nothing the planner can build costs less** (the proof sketch). ``inev``'s result is
the cheapest of its own design, the centralized, isolated and push-pull plans
(:mod:`inev.planner.search`). Its own design is a combination with shared keys, placements,
output selectors and forwarding graphs; every such design lies in the space of (1) (the
module docstring of :mod:`inev.planner.exact_space` says why the choices the space leaves
out are never cheaper), and Alg. 2's forwarding graph of each vertex is a tree spanning the
vertex's node and its consumers' nodes, so no smaller than the minimum tree (1) prices.
The search of (1) is exhaustive up to bounds that never exceed the cost of any completion
(:mod:`inev.planner.exact_search`), so (1) costs at most ``inev``'s design. The isolated plan
is one ``inev`` search per query, side by side, and each is bounded the same way by (2); the
centralized design is in the space; the push-pull plan is (3) itself. Every figure is ψ under
the same cost model (:mod:`inev.planner.cost_model`): the rates and selected-event rates come
from the same functions.

**Limits.** Networks of up to :data:`~inev.planner.steiner_table.TABLE_NODES` nodes (the
Steiner table holds every node subset), queries of up to :data:`MAX_TYPES` types, at most
:data:`MAX_QUERIES` queries, and no latency bound (the optimum is over ψ alone). These are
checked before any work, and the search itself stops with one error line after
:data:`~inev.planner.exact_search.BUDGET` steps (some 15 s) instead of running
unbounded. ``benchmarks/bench_optimality.py`` reports the sizes and times it handles.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.planning import plan_workload
>>> net = Network.build(range(4), [(0, 1), (1, 2), (2, 3)],
...                     {"A": (0.5, [0]), "B": (8.0, [2, 3]), "C": (4.0, [1])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B, C)", {"A B": 0.1})])
>>> best = plan_workload(net, wl, "exact")
>>> best.psi <= plan_workload(net, wl, "inev").psi
True
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.planner import alg2_placement
from inev.planner.alg2_placement import Placement
from inev.planner.assemble import build_plan
from inev.planner.baselines import push_pull_plan
from inev.planner.combination_model import Combination, inputs_first
from inev.planner.exact_search import (
    BUDGET,
    ExactDesign,
    ExactTooLarge,
    Limits,
    least_cost_design,
    limited_search,
    search_within,
)
from inev.planner.exact_space import DesignSpace
from inev.planner.inev_graph import Node, Plan, Vertex
from inev.planner.isolated import side_by_side
from inev.planner.options import PlanOptions
from inev.planner.projections import Projection
from inev.planner.steiner import bfs
from inev.planner.steiner_table import TABLE_NODES
from inev.topologies.network import Network
from inev.workloads.workload import Workload

MAX_TYPES = 5
"""The longest query (event types) the exact method takes."""
MAX_QUERIES = 6
"""The most queries the exact method takes."""
SEARCH_STEPS = 2_000
"""Units of work (:func:`~inev.planner.exact_search.search_within`) of the exact search that
``inev``'s own search ends with, per unit of effort (:func:`with_exact_search`; about 10-30 ms
here). Measured on ``bench_optimality.py``'s first 120 instances (all within the limits),
searched below the plan of the search alone: 54 finish within 2,000 units (a finished search
is a proof), 68 within 10,000, 101 within 2,000,000; the six where a cheaper design exists
(0.4-4 % cheaper) need from 57 units to more than 2,000,000. A larger default doubled the
time of the planner's property tests for a handful more proofs."""


def check_size(network: Network, workload: Workload, options: PlanOptions) -> None:
    """Refuse, before any work, an instance outside the exact method's limits (module doc)."""
    if options.bounded:
        raise InevError(
            f"{option('method')} exact minimises psi without a latency bound: leave out "
            f"{option('latency_factor')} and {option('latency_bound')}"
        )
    if len(network.nodes) > TABLE_NODES:
        raise InevError(
            f"{option('method')} exact handles networks of up to {TABLE_NODES} nodes, "
            f"this one has {len(network.nodes)}"
        )
    if len(workload.queries) > MAX_QUERIES:
        raise InevError(
            f"{option('method')} exact handles up to {MAX_QUERIES} queries, "
            f"this workload has {len(workload.queries)}"
        )
    for q in workload.queries:
        if len(q.types) > MAX_TYPES:
            raise InevError(
                f"{option('method')} exact handles queries of up to {MAX_TYPES} event types, "
                f"{q.name} has {len(q.types)}"
            )


def fits(network: Network, workload: Workload, options: PlanOptions) -> bool:
    """Whether :func:`check_size` accepts the instance."""
    try:
        check_size(network, workload, options)
    except InevError:
        return False
    return True


def exact_steps(network: Network, wl: Workload, options: PlanOptions) -> int:
    """The units of work :func:`with_exact_search` gives the exact search on this instance
    (0: it does not run: effort 0, ``exact_steps=0``, or outside :func:`check_size`'s limits)."""
    steps = options.exact_steps
    steps = int(SEARCH_STEPS * options.effort) if steps is None else steps
    return steps if steps > 0 and fits(network, wl, options) else 0


def with_exact_search(network: Network, wl: Workload, plan: Plan, options: PlanOptions) -> Plan:
    """``inev``'s ``plan`` after the exact search below its ψ, for a budget of work (issue 32,
    item 6: the search uses the exact optimum where it is cheap enough).

    The branch and bound of :mod:`inev.planner.exact_search` runs for ``options.exact_steps``
    units of work (default :data:`SEARCH_STEPS` per unit of effort; none at effort 0, the paper's
    single pass, or outside :func:`check_size`'s limits) with ``plan``'s ψ as its bound:

    * it finishes with no design: no design with shared projections costs less than ``plan``,
      which a note says (the proof of the module docstring, bounded by ``plan``'s ψ);
    * it finds a cheaper design: that design's plan is returned (``kept`` "exact"), the least
      ψ of the space if the search finished, else the best it found within the budget;
    * it runs out of work with nothing cheaper: ``plan`` is returned unchanged.

    The extra work is bounded by the budget, so ``inev`` stays a heuristic with a proof where
    one is cheap; ``--method exact`` is the search without a budget.

    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> from inev.planner.planning import plan_workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (9.0, [2])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    >>> plan = plan_workload(net, wl)  # A's events walk two links to B's source: ψ 2
    >>> plan.psi, plan.notes[-1]
    (2.0, 'optimal: no design with shared projections costs less (the exact search proved it in 5 steps)')
    >>> any("exact search" in n for n in plan_workload(net, wl, "inev", PlanOptions(exact_steps=0)).notes)
    False
    """
    steps = exact_steps(network, wl, options)
    if steps == 0:
        return plan
    outcome = search_within(DesignSpace.build(network, wl), plan.psi, steps)
    if outcome.design is None:
        if not outcome.proved:
            return plan
        note = (
            "optimal: no design with shared projections costs less "
            f"(the exact search proved it in {outcome.steps:,} steps)"
        )
        return replace(plan, notes=(*plan.notes, note))
    found = realise(network, wl, outcome.design, options.xi)
    if sum(len(v.destinations) for v in found.vertices) > alg2_placement.MAX_DESTINATIONS:
        return plan  # like every candidate, it must be written out (never on 18 nodes)
    how = "the least psi of the space" if outcome.proved else "not proved optimal"
    note = (
        f"kept the exact search's design: psi {found.psi:.6g}, {1 - found.psi / plan.psi:.2%} "
        f"below the search's {plan.kept or 'inev'} plan ({how}, {outcome.steps:,} steps)"
    )
    return replace(found, kept="exact", notes=(*found.notes, note))


def exact_plan(
    network: Network,
    wl: Workload,
    central: Plan,
    incumbent: Plan,
    options: PlanOptions,
    deadline: float = math.inf,
) -> Plan:
    """The cheapest of the candidates of the module docstring for an OR-free workload.

    ``incumbent`` (any plan of the instance, e.g. ``inev``'s) bounds the search: a design is
    searched for below its ψ. When it holds a regional placement (beyond the paper,
    :mod:`inev.planner.regional`), it is also a candidate: regional placements are outside
    the searched space, so the result is then the least ψ of the paper's space or that plan,
    whichever is cheaper, and the note says which.

    The searches (each query's alone, then the joint one) share one budget: without a
    ``deadline`` (``time.perf_counter()`` seconds, from ``--time-budget``)
    :data:`~inev.planner.exact_search.BUDGET` steps in all, past which the instance is
    refused; with one, no step limit, and at the deadline the cheapest plan found so far
    is returned with a note that it is not proved optimal.
    """
    check_size(network, wl, options)
    timed = math.isfinite(deadline)
    limits = Limits(math.inf if timed else BUDGET, deadline)
    candidates: list[tuple[Plan, str]] = [(central, "centralized")]
    bound = min(incumbent.psi, central.psi) * (1 + 1e-6)
    proved = True
    try:
        if len(wl.queries) > 1:
            parts = []
            for q in wl.queries:
                alone = Workload.build(wl.window, [q], wl.slide, wl.selectivity_seed)
                part, done = limited_search(DesignSpace.build(network, alone), math.inf, limits)
                proved = proved and done
                if part is None:
                    break
                parts.append((q.name, realise(network, alone, part, options.xi)))
            if len(parts) == len(wl.queries):
                isolated = side_by_side(parts, "exact")
                candidates.append((isolated, "isolated"))
                bound = min(bound, isolated.psi * (1 + 1e-6))
        if proved:
            joint, proved = limited_search(DesignSpace.build(network, wl), bound, limits)
            if joint is not None:
                candidates.append((realise(network, wl, joint, options.xi), "exact"))
    except ExactTooLarge:
        raise ExactTooLarge(
            f"the exact search needs more than {BUDGET:,} steps on this instance (its queries' "
            f"searches and the joint one together, some 15 s): plan with {option('method')} inev, "
            f"or give {option('time_budget')} for the best design found in that time"
        ) from None
    candidates.append((push_pull_plan(network, wl, central, options.xi), "ppop"))
    if any(v.region for v in incumbent.vertices) or not proved:
        candidates.append((incumbent, "inev"))
    plan, kept = min(candidates, key=lambda c: c[0].psi)
    notes = list(plan.notes)
    if not proved:
        notes.append(
            f"not proved optimal: the time budget ran out after {limits.spent:,} steps of the "
            f"exact search; kept the {kept} plan, the cheapest found"
        )
    elif kept == "inev":
        notes.append(
            "kept the inev plan: its regional placements lie outside the exact search's "
            "design space (the paper's), and no design inside it costs less"
        )
    elif kept != "exact":
        notes.append(f"kept the {kept} plan: no INEv design with shared projections costs less")
    return replace(plan, kept=kept, notes=tuple(notes))


def optimal_design(network: Network, wl: Workload, bound: float) -> ExactDesign | None:
    """The least-ψ design of the shared space below ``bound`` (None: none is below it)."""
    return least_cost_design(DesignSpace.build(network, wl), bound)


def realise(network: Network, wl: Workload, design: ExactDesign, xi: float) -> Plan:
    """The :class:`Plan` of a design: vertices, minimum Steiner trees, hops, ψ, latency."""
    space = DesignSpace.build(network, wl)
    placement = _placement(space, design)
    psi = math.fsum(v.cost for v in placement.vertices)
    if not math.isclose(psi, design.cost, rel_tol=1e-9, abs_tol=1e-12):
        raise AssertionError(f"the exact design costs {design.cost}, its plan {psi}")
    combination = _combination(space, design, placement)
    return build_plan(network, combination, placement, "exact", xi)


def _extended(space: DesignSpace, design: ExactDesign) -> dict[str, tuple[str, ...]]:
    """λ extended by the types each input's output selector leaves out (Alg. 2, line 7)."""
    out = {}
    for key, d in design.decisions.items():
        ins = list(d.choice.inputs)
        for i in d.choice.inputs:
            dec = design.decisions.get(i)
            if dec is None or dec.output is None:
                continue
            for t in sorted(space.types_of(i) - set(dec.output)):
                if t not in ins:
                    ins.append(t)
        out[key] = tuple(ins)
    return out


def _placement(space: DesignSpace, design: ExactDesign) -> Placement:
    """The vertices of ``design`` with minimum Steiner trees as forwarding (run once, on the
    optimum): the builders of :func:`_builders`, each written out by :func:`_vertex`."""
    extended = _extended(space, design)
    projections: dict[str, Projection] = {k: space.projections[k] for k in design.decisions}
    for ins in extended.values():
        for i in ins:
            if space.is_type(i):
                projections.setdefault(i, space.primitive(i))
    order = inputs_first(projections, extended)
    builders, of_key = _builders(space, design, extended, order)
    destinations: dict[int, set[Node]] = defaultdict(set)
    for b in builders:
        for u in b["inputs"]:
            destinations[u].add(b["node"])
    vertices = [_vertex(space, design, vid, b, destinations[vid]) for vid, b in enumerate(builders)]
    return Placement(
        vertices=tuple(vertices),
        trees=(),
        projections=projections,
        inputs=extended,
        outputs={k: d.output for k, d in design.decisions.items()},
        nodes={k: tuple(builders[v]["node"] for v in vids) for k, vids in of_key.items()},
        fallback=_fallbacks(space, design, extended, builders, of_key),
        disseminated=frozenset(),
    )


def _builders(
    space: DesignSpace,
    design: ExactDesign,
    extended: Mapping[str, tuple[str, ...]],
    order: list[str],
) -> tuple[list[dict], dict[str, list[int]]]:
    """One builder per vertex (key, node, input vertices, rate, partition) in ``order``: first
    every source's events of each type, then each projection at its node or at every source of
    its partitioning type; and the vertex ids of each key."""
    network = space.network
    builders: list[dict] = []
    of_key: dict[str, list[int]] = defaultdict(list)
    event: dict[tuple[str, Node], int] = {}
    for key in order:
        if not space.is_type(key):
            continue
        for n, r in zip(network.sources(key), network.source_rates(key), strict=True):
            event[(key, n)] = len(builders)
            of_key[key].append(len(builders))
            builders.append({"key": key, "node": n, "inputs": (), "rate": r, "part": None})
    for key in order:
        if space.is_type(key):
            continue
        d = design.decisions[key]
        placed = d.placed
        part = placed.partition
        rates = space.vertex_rates(key, placed, d.output)
        others = tuple(v for i in extended[key] if i != part for v in of_key[i])
        nodes = [placed.node] if part is None else list(network.sources(part))
        for n, rate in zip(nodes, rates, strict=True):
            local = (event[(part, n)],) if part is not None else ()
            of_key[key].append(len(builders))
            builders.append(
                {"key": key, "node": n, "inputs": local + others, "rate": rate, "part": part}
            )
    return builders, of_key


def _vertex(
    space: DesignSpace, design: ExactDesign, vid: int, b: dict, destinations: set[Node]
) -> Vertex:
    """Builder ``b`` as a vertex forwarding over the minimum Steiner tree to its destinations."""
    table, index = space.table, space.network.node_index
    dest = tuple(sorted(destinations, key=index.__getitem__))
    links = table.links(table.mask((b["node"], *dest))) if dest else frozenset()
    forwarding = tuple(sorted(links, key=lambda e: (index[e[0]], index[e[1]])))
    dist = bfs(forwarding, b["node"]) if forwarding else {b["node"]: 0}
    decision = design.decisions.get(b["key"])
    return Vertex(
        id=vid,
        projection=b["key"],
        node=b["node"],
        inputs=b["inputs"],
        forwarding=forwarding,
        destinations=dest,
        hops=tuple(dist[x] for x in dest),
        output=decision.output if decision is not None else None,
        partition=b["part"],
        rate=b["rate"],
        cost=len(forwarding) * b["rate"],
    )


def _fallbacks(
    space: DesignSpace,
    design: ExactDesign,
    extended: Mapping[str, tuple[str, ...]],
    builders: list[dict],
    of_key: Mapping[str, list[int]],
) -> dict[str, Node]:
    """Per multi-node projection, the node nearest (rate-weighted hops) to its inputs (§6.6)."""
    network = space.network
    hops, index = network.hop_matrix, network.node_index
    out = {}
    for key, d in design.decisions.items():
        if d.placed.partition is None:
            continue
        weights: dict[Node, float] = defaultdict(float)
        for i in extended[key]:
            for v in of_key[i]:
                weights[builders[v]["node"]] += builders[v]["rate"]
        cost = {
            m: sum(w * float(hops[index[n], index[m]]) for n, w in weights.items())
            for m in network.nodes
        }
        out[key] = min(network.nodes, key=lambda m: (cost[m], index[m]))
    return out


def _combination(space: DesignSpace, design: ExactDesign, placement: Placement) -> Combination:
    return Combination(
        projections=dict(placement.projections),
        inputs={k: d.choice.inputs for k, d in design.decisions.items()},
        multi_node={
            k: d.placed.partition for k, d in design.decisions.items() if d.placed.partition
        },
        sinks=dict(design.sinks),
    )
