"""Baselines of the INEv paper (§7.1, §7.2): centralized evaluation and push-pull placement.

Push-pull comes in two cost models (:data:`PUSH_PULL_MODELS`): ``ppop``, inev's own, prices
each pull at the prefix's partial-match rate *after* the query's selectivities; ``flouris``,
after Flouris et al. (the model the paper compares with), triggers the pulls by every
occurrence of the pushed prefix in a window, predicates not applied (see :func:`push_pull`).

**Centralized**: every query is evaluated at one node c, the node minimising
Σ_{e used} r(e) · Σ_{n ∈ f(e)} hops(n, c); every event of every used type travels a
shortest path from its source to c, so the cost is exactly that sum (a type used by several
queries is sent once).

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (5.0, [2])})
>>> centralized_node(net, ["A", "B"])
(2, 2.0)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from inev.planner.alg2_placement import place
from inev.planner.assemble import PlanGraph, build_plan, rate_fields
from inev.planner.combination_model import Combination
from inev.planner.inev_graph import Node, Plan, ProjectionInfo, Vertex, link
from inev.planner.latency_model import DEFAULT_XI, partial_match_rate
from inev.planner.projections import (
    Projection,
    make_projection,
    own_key,
    primitive_projection,
    projection_rate,
)
from inev.planner.sites import sites
from inev.topologies.network import Network
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.workload import Query, Workload


def gather_costs(network: Network, types: Iterable[str]) -> np.ndarray:
    """Per site m: Σ_e Σ_{n ∈ f(e)} r(e, n) · hops(n, m), the cost of gathering ``types`` at m.

    Sites are every node of a small network and a set of central nodes of a large one
    (:mod:`inev.planner.sites`); ``sites(network).nodes`` names them.
    """
    total = np.zeros(len(sites(network).nodes))
    for e in dict.fromkeys(types):
        total += weighted_hops(network, e, network.source_rates(e))
    return total


def weighted_hops(network: Network, name: str, weights: Sequence[float]) -> np.ndarray:
    """Per site m: Σ_{n ∈ f(e)} w(n) · hops(n, m), one weight per source of ``name``."""
    where = sites(network)
    if where.dense:
        index = network.node_index
        rows = [index[n] for n in network.sources(name)]
        w = np.asarray(weights, dtype=np.float64)
        return w @ network.hop_matrix[rows, :].astype(np.float64)
    return where.weighted(name, weights)


def centralized_node(network: Network, types: Iterable[str]) -> tuple[Node, float]:
    """The best single node (site, on a large network) for gathering ``types`` and its cost.

    Parameters
    ----------
    network : Network
    types : iterable of str

    Returns
    -------
    (node, float)
        The node with the least Σ_e Σ_{n ∈ f(e)} r(e, n) · hops(n, node); ties: the first.

    Examples
    --------
    Gathering A (5 at each end of 0 - 1 - 2) costs 10 at every node; the first one wins:

    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> centralized_node(net, ["A"]), centralized_node(net, ["A", "B"])
    ((0, 10.0), (1, 10.0))
    """
    costs = gather_costs(network, types)
    best = int(np.argmin(costs))
    return sites(network).nodes[best], float(costs[best])


def sink_projection(
    query: Query, global_rates: Mapping[str, float], window: float = WORKLOAD_DEFAULTS.window
) -> Projection:
    """The projection producing a query's matches: q_nKL over all types, keyed by q's pattern."""
    p = make_projection(query, query.types, global_rates, window)
    if query.kleene:
        return Projection(
            key=str(query.pattern),
            pattern=query.pattern,
            types=p.types,
            negated=p.negated,
            rate=p.rate,
            selectivity=p.selectivity,
            single=p.single,
            conditions=p.conditions,
            owner=p.owner,
            window=p.window,
        )
    return p


def centralized_combination(network: Network, workload: Workload) -> Combination:
    """Every query's sink takes all of its event types as inputs (no splitting)."""
    glob = network.global_rates()
    projections: dict[str, Projection] = {}
    for t in workload.types:
        projections[t] = primitive_projection(t, glob[t])
    inputs: dict[str, tuple[str, ...]] = {}
    sinks: dict[str, str] = {}
    queries_of: dict[str, tuple[str, ...]] = {}
    for q in workload.queries:
        sink = own_key(sink_projection(q, glob, workload.window), projections, q.name)
        projections.setdefault(sink.key, sink)
        inputs[sink.key] = tuple(q.types)
        sinks[q.name] = sink.key
        queries_of[sink.key] = (*queries_of.get(sink.key, ()), q.name)
    return Combination(projections, inputs, {}, sinks, queries_of)


def centralized_plan(network: Network, wl: Workload, xi: float = DEFAULT_XI) -> Plan:
    """Every query at the best single node, every used event sent there once."""
    comb = centralized_combination(network, wl)
    node, cost = centralized_node(network, wl.types)
    placement = place(network, comb, pinned=dict.fromkeys(comb.sinks.values(), node))
    plan = build_plan(network, comb, placement, "centralized", xi)
    return replace(plan, centralized_node=node, centralized_cost=cost)


# ---------------------------------------------------------------------- push-pull (PPoP)
@dataclass(frozen=True)
class PushPullPlan:
    """The optimal push-pull placement of one query: node, type order, pushed prefix, cost.

    Parameters
    ----------
    query : str
    node
        Where the query is evaluated.
    order : tuple of str
        The evaluation order of its types; the first ``pushed`` are pushed, the rest pulled.
    pushed : int
    cost : float
        Events (and pull requests) sent per time unit, times hops.

    Examples
    --------
    >>> PushPullPlan("q", 1, ("B", "A"), 1, 2.4).order[1:]    # the pulled types
    ('A',)
    """

    query: str
    node: Node
    order: tuple[str, ...]
    pushed: int
    cost: float
    link_rates: tuple[tuple[float, ...], ...] = ()
    """Per type in ``order``, per source of the type: the rate it sends per hop (r(e, n) when
    pushed, R(prefix) · (1 + window · r(e, n)) when pulled)."""


PUSH_PULL_MODELS = ("ppop", "flouris")
"""How pulls are priced: per partial match after selectivities (``ppop``), or per occurrence
of the pushed prefix with no predicate applied (``flouris``)."""


def trigger_query(query: Query, model: str) -> Query:
    """The query whose prefix rates trigger the pulls: ``query`` itself (``ppop``), or its
    pattern alone, every selectivity 1 (``flouris``).

    >>> q = Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})
    >>> dict(trigger_query(q, "flouris").selectivities)
    {}
    """
    if model not in PUSH_PULL_MODELS:
        raise ValueError(f"push-pull model must be one of {PUSH_PULL_MODELS}, got {model!r}")
    return query if model == "ppop" else Query.build(query.name, query.pattern)


def push_pull(
    network: Network,
    query: Query,
    window: float = WORKLOAD_DEFAULTS.window,
    exhaustive_up_to: int = 6,
    model: str = "ppop",
) -> PushPullPlan:
    """PPoP (after Flouris et al., the baseline of §7.2), defined as follows.

    The query is placed on one node m and evaluated in an order e_1 … e_k of its types. The
    first j ≥ 1 types are *pushed* to m continuously (cost r(e) · Σ_{n ∈ f(e)} hops(n, m)).
    Each later type e_i is *pulled*: every partial match of the prefix e_1 … e_{i-1}
    (produced at rate R(prefix), the rate model over the prefix's projection) sends one
    request to each source of e_i and receives that source's e_i events of the window,
    costing R(prefix) · Σ_{n ∈ f(e_i)} hops(m, n) · (1 + window · r(e_i)). The optimum over
    m, orders and j is found by exhaustive search for queries of up to ``exhaustive_up_to``
    types; longer queries use the single order of ascending global rate (our choice, as the
    search grows factorially). Pushing everything is centralized evaluation at m, so PPoP
    never costs more than the centralized plan.

    An order never starts with a negated type (our choice): the pulls are triggered by
    matches of the prefix, and a prefix of negated types alone has none (a match is the
    *absence* of such events), so an executor could never request the positive types.

    ``model = "flouris"`` prices the pulls as Flouris et al.'s push-pull does (the paper's
    PPoP): their pull requests carry no predicate and the node triggers them on the raw
    occurrences of what it has acquired, so R(prefix) is the prefix's occurrence rate with
    every selectivity 1 (:func:`trigger_query`); with one pushed type that is one pull per
    pushed event, each returning the pulled type's events of the window. Pulling e after a
    prefix of rate T then costs about T · w · r(e) per hop against r(e) for pushing it: it
    pays only while the prefix occurs less than once per window, which is the paper's
    Fig. 4 (similar to INEv at ≤ 1 event per type and window, a single-node placement
    above). ``ppop`` (inev's model) applies the selectivities first, so its pulls stay cheap
    at any number of events per window.

    Parameters
    ----------
    network : Network
    query : Query
    window : float
        The window in the pulls' cost.
    exhaustive_up_to : int
        Longest query whose orders are all tried.
    model : str
        ``ppop`` or ``flouris`` (:data:`PUSH_PULL_MODELS`).

    Returns
    -------
    PushPullPlan

    Examples
    --------
    On 0 - 1 - 2, B (0.2) is pushed to node 1 for free and each B pulls A from both ends:
    0.2 · 2 hops · (1 + 1 · 5) = 2.4, against 10 for pushing A as well.

    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> p = push_pull(net, Query.build("q", "SEQ(B, A)"), window=1.0)
    >>> p.node, p.order, p.pushed, round(p.cost, 9)
    (1, ('B', 'A'), 1, 2.4)
    """
    query = trigger_query(query, model)
    glob = network.global_rates()
    types = list(query.types)
    # per node m: Σ_n r(e, n) · hops(n, m) (push) and Σ_n (1 + window · r(e, n)) · hops(n, m)
    push_hops = {e: weighted_hops(network, e, network.source_rates(e)) for e in types}
    pull_hops = {
        e: weighted_hops(network, e, [1.0 + window * r for r in network.source_rates(e)])
        for e in types
    }
    base = make_projection(query, types, glob, window)
    prefix_cache: dict[frozenset[str], float] = {}

    def prefix_rate(prefix: frozenset[str]) -> float:
        if prefix not in prefix_cache:
            prefix_cache[prefix] = projection_rate(base, prefix, glob)
        return prefix_cache[prefix]

    negated = query.negated
    if len(types) <= exhaustive_up_to:
        orders: Iterable[tuple[str, ...]] = (
            o for o in itertools.permutations(types) if o[0] not in negated
        )
    else:
        orders = [tuple(sorted(types, key=lambda e: (e in negated, glob[e], e)))]
    site_nodes = sites(network).nodes
    best = PushPullPlan(query.name, site_nodes[0], tuple(types), len(types), math.inf)
    for order in orders:
        push = [push_hops[e] for e in order]
        pull = [np.zeros(0)] * len(order)
        for i in range(1, len(order)):
            pull[i] = prefix_rate(frozenset(order[:i])) * pull_hops[order[i]]
        # cost with j pushed: sum(push[:j]) + sum(pull[j:])
        suffix = np.zeros(len(site_nodes))
        suffix_list = [suffix]
        for i in range(len(order) - 1, 0, -1):
            suffix = suffix + pull[i]
            suffix_list.append(suffix)
        suffix_list.reverse()  # suffix_list[j-1] = sum(pull[j:]) for j = 1..k
        prefix = np.zeros(len(site_nodes))
        for j in range(1, len(order) + 1):
            prefix = prefix + push[j - 1]
            total = prefix + suffix_list[j - 1]
            m = int(np.argmin(total))
            if total[m] < best.cost:
                rates = [network.source_rates(e) for e in order[:j]] + [
                    tuple(
                        prefix_rate(frozenset(order[:i])) * (1.0 + window * r)
                        for r in network.source_rates(order[i])
                    )
                    for i in range(j, len(order))
                ]
                best = PushPullPlan(
                    query.name, site_nodes[m], order, j, float(total[m]), tuple(rates)
                )
    return best


def push_pull_floor(network: Network, workload: Workload) -> float:
    """A floor under the cost of any push-pull plan of the workload: every query pushes at
    least its first type to its node, so it costs at least the cheapest gathering of one of its
    (non-negated) types; the queries' floors add up, as PPoP plans them apart.

    >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (0.1, [1]), "B": (5.0, [0, 2])})
    >>> push_pull_floor(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]))
    0.0
    """
    total = 0.0
    for q in workload.queries:
        negated = q.negated
        total += min(float(gather_costs(network, [e]).min()) for e in q.types if e not in negated)
    return total


def push_pull_cost(
    network: Network,
    query: Query,
    node: Node,
    order: Sequence[str],
    pushed: int,
    window: float = WORKLOAD_DEFAULTS.window,
    model: str = "ppop",
) -> float:
    """The cost of one fixed push-pull placement (node, order, pushed prefix) on ``network``.

    The same formula :func:`push_pull` minimises, for a placement chosen earlier (the old
    plan after a change, for instance).

    >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (0.1, [1]), "B": (5.0, [0, 2])})
    >>> q = Query.build("q", "SEQ(A, B)")
    >>> round(push_pull_cost(net, q, 1, ("A", "B"), 1), 6)  # 0.1 * 2 hops * (1 + 5)
    1.2
    """
    query = trigger_query(query, model)
    glob = network.global_rates()
    row = network.hops_row(node)

    def hops(e: str, weights: Iterable[float]) -> float:
        index = network.node_index
        return float(
            sum(w * float(row[index[n]]) for n, w in zip(network.sources(e), weights, strict=True))
        )

    base = make_projection(query, order, glob, window)
    cost = sum(hops(e, network.source_rates(e)) for e in order[:pushed])
    for i in range(pushed, len(order)):
        prefix = projection_rate(base, frozenset(order[:i]), glob)
        pulls = [1.0 + window * r for r in network.source_rates(order[i])]
        cost += prefix * hops(order[i], pulls)
    return cost


def push_pull_plan(
    network: Network,
    wl: Workload,
    central: Plan,
    xi: float = DEFAULT_XI,
    model: str = "ppop",
) -> Plan:
    """A PPoP plan: per query one sink vertex; pushed and pulled event vertices feed it.

    ``model`` prices the pulls (:data:`PUSH_PULL_MODELS`); the plan's method is ``ppop``, or
    ``ppop-flouris`` for Flouris et al.'s model.

    ``central`` is the workload's centralized plan, whose sink records the PPoP sinks reuse.

    Its latency ℓ (§5.4) is, per query, ξ · pm of the sink over the primitive inputs plus the
    longest input path, where a pulled type's path counts twice: the request travels from
    the sink to the source before the events travel back (PPoP pulls on demand). ℓ is the
    largest over the queries.

    Event vertices carry the cost of their type's push or pull traffic; a pulled type's
    vertices are marked in the notes (``pull``), which an executor must honour by requesting
    events per partial match instead of streaming them.
    """
    type_rates, source_rates = rate_fields(network, wl.types)
    vertices: list[Vertex] = []
    projections: dict[str, ProjectionInfo] = {}
    sinks: dict[str, str] = {}
    combination: dict[str, tuple[str, ...]] = {}
    notes = []
    index = network.node_index
    glob = network.global_rates()
    total = latency = 0.0
    routes: dict[tuple[Node, Node], tuple[tuple[Node, Node], ...]] = {}
    for q in wl.queries:
        pp = push_pull(network, q, wl.window, model=model)
        total += pp.cost
        notes.append(
            f"{q.name}: node {pp.node}, order {', '.join(pp.order)}, pushed {', '.join(pp.order[: pp.pushed])}"
            f", pulled {', '.join(pp.order[pp.pushed :]) or '-'}, cost {pp.cost:.6g}"
        )
        ids, longest = [], 0
        for pos, e in enumerate(pp.order):
            key = e if e not in projections else f"{e} @{q.name}"
            projections[key] = ProjectionInfo(
                key, e, (e,), (), network.global_rate(e), ((e, 1.0),), (q.name,)
            )
            for n, rate in zip(network.sources(e), pp.link_rates[pos], strict=True):
                links = routes.get((n, pp.node))
                if links is None:  # queries at one node share their sources' routes
                    links = routes[(n, pp.node)] = tuple(
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
                longest = max(longest, len(links) * (2 if pos >= pp.pushed else 1))  # pulls
            if pos >= pp.pushed:
                notes.append(f"{q.name}: pull {e}")
        inputs = [primitive_projection(t, glob[t]) for t in q.types]
        processing = partial_match_rate(sink_projection(q, glob, wl.window), inputs, glob)
        latency = max(latency, xi * processing + longest)
        sink_info = central.projections[central.sinks[q.name]]
        skey = sink_info.key if sink_info.key not in projections else f"{sink_info.key} @{q.name}"
        projections[skey] = replace(sink_info, key=skey, queries=(q.name,))
        vertices.append(Vertex(len(vertices), skey, pp.node, tuple(ids)))
        sinks[q.name] = skey
        combination[skey] = tuple(pp.order)
    graph = PlanGraph(tuple(vertices), projections, combination, sinks, type_rates, source_rates)
    method = "ppop" if model == "ppop" else f"ppop-{model}"
    return build_plan(network, None, graph, method, notes=notes, psi=total, latency=latency)
