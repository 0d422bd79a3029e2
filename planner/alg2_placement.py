"""Forwarding graph construction and placement: Algorithm 2 of the INEv paper (§6.4).

Given a combination with its multi-node projections, :func:`place` builds the vertices of
the INEv graph:

1. the disseminated event types DissEv: the non-partitioning event-type inputs of
   multi-node projections (line 2);
2. an output selector per projection (:func:`output_selector`, getOS of line 29);
3. λ extended by the types each input no longer sends (line 7);
4. one event vertex per (used type, source); for a multi-node projection one vertex per
   source of its partitioning type (inputs: the local partitioning events and every vertex
   of every other input); for a single-node projection one vertex at the node where it adds
   least to the forwarding graphs (line 17–22; see :func:`_layout`: the paper's rule charges
   shortest paths from the sources, we charge the way from the graphs the inputs already
   travel, which is what the paper's plan II exploits), unless the node is pinned (repair);
5. forwarding graphs: a vertex whose consumers include multi-node vertices sends over a
   Steiner tree spanning their nodes (Successors, line 9 and 14; see
   :mod:`inev.planner.steiner`), extended by a shortest path from the graph to each
   single-node consumer (line 26, which takes the path from the source); tc(v) from
   :mod:`inev.planner.cost_model`; the hop distance from the vertex to each destination inside its
   forwarding graph is recorded (``Vertex.hops``); on small networks a graph grown this
   way is then replaced by a minimum Steiner tree over the same terminals where that is
   smaller and no slower (:mod:`inev.planner.tight_trees`, beyond the paper);
6. a fall-back single node for every multi-node projection (§6.6), chosen by the same
   rule as single-node placements with all sources of the partitioning type as input.

Beyond the paper, a partitioned projection listed in ``Combination.regional`` has a
*regional* placement (:mod:`inev.planner.regional`): one vertex per site of its regions,
taking the event vertices of its region's sources (each of them sends to the site, a
single-node consumer for its forwarding graph) and every vertex of every other input (which
travel over the Steiner tree spanning the sites, as they do over the sources' tree for a
multi-node placement).

Choices: output selection needs every negated type of the projection to be disseminated
(the receiver must see the negated events to re-evaluate the projection); query sinks that
feed nothing and event types keep ≡ ("all").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from inev.common.errors import InevError
from inev.planner.combination_model import Combination, inputs_first
from inev.planner.cost_model import vertex_rate
from inev.planner.forwarding_graphs import (
    MAX_CACHED_ROWS,
    NO_NODES,
    Reach,
    extend_all,
    initial_reach,
    network_cache,
    reach_distances,
    steiner_tree_nodes,
)
from inev.planner.inev_graph import Link, Node, Vertex, link
from inev.planner.projections import Projection, primitive_projection
from inev.planner.regions import Regions
from inev.planner.sites import sites
from inev.planner.tight_trees import tightened
from inev.planner.tree_hops import TreeHops, tree_hops
from inev.topologies.network import Network


@dataclass(frozen=True)
class Placement:
    """Result of Alg. 2: vertices, extended inputs λ', output selectors, nodes and fall-backs."""

    vertices: tuple[Vertex, ...]
    trees: tuple[tuple[Link, ...], ...]
    projections: Mapping[str, Projection]
    inputs: Mapping[str, tuple[str, ...]]
    outputs: Mapping[str, tuple[str, ...] | None]
    nodes: Mapping[str, tuple[Node, ...]]
    fallback: Mapping[str, Node]
    disseminated: frozenset[str]


def disseminated_types(combination: Combination) -> frozenset[str]:
    """DissEv: non-partitioning event-type inputs of multi-node projections (Alg. 2, line 2)."""
    out: set[str] = set()
    for key, part in combination.multi_node.items():
        for i in combination.inputs.get(key, ()):
            if combination.projections[i].is_primitive and i != part:
                out.add(i)
    return frozenset(out)


def output_selector(
    projection: Projection,
    disseminated: frozenset[str],
    network: Network,
    partition: str | None = None,
    regions: Regions | None = None,
) -> tuple[str, ...] | None:
    """getOS (Alg. 2, line 29) under the physically consistent model of :mod:`inev.planner.cost_model`.

    The candidate is E(p) \\ DissEv (the types a consumer does not get anyway). It is used
    when its selected events cost less than the matches in all, and no more at any single
    vertex (a multi-node placement's vertices differ only by their local partitioning rate),
    so no vertex's output costs more than its matches; else ≡ (None). A regional placement's
    vertices are its ``regions``' sites, each with its region's rate of the partitioning type.
    """
    if projection.is_primitive or not projection.negated <= disseminated:
        return None
    chosen = tuple(sorted(projection.positive - disseminated))
    cache = network_cache(network).selectors  # searches ask for the same selectors many times
    key = (projection.rate, chosen, partition, regions)
    if key not in cache:
        if len(cache) >= MAX_CACHED_ROWS:
            cache.clear()
        cache[key] = _selector(network, projection.rate, chosen, partition, regions)
    return cache[key]


def _selector(
    network: Network,
    rate: float,
    chosen: tuple[str, ...],
    partition: str | None,
    regions: Regions | None = None,
) -> tuple[str, ...] | None:
    """:func:`output_selector`'s choice for a projection of rate ``rate`` (see there)."""
    glob = network.global_rates()
    selected = matches = 0.0
    for share, local in vertex_shares(network, partition, regions):
        m = rate * share
        s = vertex_rate(m, chosen, lambda e, a=local: a if e == partition else glob[e])
        if s > m:
            return None
        selected += s
        matches += m
    return chosen if selected < matches else None


def send_rate(
    network: Network,
    projection: Projection,
    node: Node,
    partition: str | None,
    output: tuple[str, ...] | None,
) -> float:
    """What the vertex of ``projection`` at ``node`` sends per link (:mod:`inev.planner.cost_model`)."""
    if partition is None:
        return vertex_rate(projection.rate, output, network.global_rates().__getitem__)
    return partitioned_rate(
        network, projection, partition, network.rate_at(partition, node), output
    )


def partitioned_rate(
    network: Network,
    projection: Projection,
    partition: str,
    local: float,
    output: tuple[str, ...] | None,
) -> float:
    """What a vertex partitioned by ``partition`` sends per link when ``local`` events of
    that type per time unit reach it (its source's own rate, or its region's at a site)."""
    glob = network.global_rates()
    matches = projection.rate * local / network.global_rate(partition)
    return vertex_rate(matches, output, lambda e: local if e == partition else glob[e])


def _partition_rates(
    network: Network, projection: Projection, partition: str, output: tuple[str, ...] | None
) -> tuple[float, ...]:
    """:func:`send_rate` at each source of ``partition`` (cached per network: it depends on
    the projection's rate only, and searches ask for it once per placed design)."""
    cache = network_cache(network).partition_rates
    key = (projection.rate, partition, output)
    found = cache.get(key)
    if found is None:
        found = tuple(
            send_rate(network, projection, n, partition, output) for n in network.sources(partition)
        )
        if len(cache) >= MAX_CACHED_ROWS:
            cache.clear()
        cache[key] = found
    return found


def vertex_shares(
    network: Network, partition: str | None, regions: Regions | None = None
) -> list[tuple[float, float]]:
    """``(share of R(p), local rate of the partitioning type)`` per vertex of a placement.

    One entry, ``(1, 0)``, for a single node; for a multi-node placement partitioned by c,
    ``(r(c, n) / R(c), r(c, n))`` per source n of c; for a regional one, per site the same
    with its region's rate.
    """
    if partition is None:
        return [(1.0, 0.0)]
    total = network.global_rate(partition)
    rates = network.source_rates(partition) if regions is None else regions.rates
    return [(r / total, r) for r in rates]


class _Builder(NamedTuple):
    """A vertex before it is written out (``shared``: the inputs every vertex of a multi-node
    projection has, one tuple for all of them)."""

    key: str
    node: Node
    inputs: tuple[int, ...]
    shared: tuple[int, ...]
    rate: float
    partition: str | None
    region: tuple[Node, ...] = ()


@dataclass
class _Layout:
    """What Alg. 2 decides before the vertices are written out (see :func:`place`)."""

    projections: dict[str, Projection]
    extended: dict[str, tuple[str, ...]]
    outputs: dict[str, tuple[str, ...] | None]
    builders: list[_Builder]
    reaches: list[Reach]
    placed: dict[str, list[int]]
    fallback: dict[str, Node]
    disseminated: frozenset[str]

    def psi(self) -> float:
        """ψ of the layout: Σ_v |E_v| · rate(v)."""
        return math.fsum(r.size * b.rate for b, r in zip(self.builders, self.reaches, strict=True))


def place(
    network: Network,
    combination: Combination,
    pinned: Mapping[str, Node] | None = None,
    keep_matches: frozenset[str] = frozenset(),
) -> Placement:
    """Run Alg. 2 on ``combination`` (see the module docstring).

    ``pinned`` fixes the node of single-node projections; ``keep_matches`` names
    projections that send their matches even where an output selector would pay.
    """
    layout = _layout(network, combination, dict(pinned or {}), keep_matches)
    return _materialise(network, layout)


def placement_cost(
    network: Network,
    combination: Combination,
    pinned: Mapping[str, Node] | None = None,
    keep_matches: frozenset[str] = frozenset(),
    with_nodes: bool = False,
    tight: bool = True,
) -> Any:
    """ψ of :func:`place`'s result, without writing the vertices out (for searches); with
    ``with_nodes``, ``(ψ, {single-node projection: its node})``; without ``tight``, ψ of
    Alg. 2's grown forwarding graphs (:mod:`inev.planner.tight_trees`)."""
    layout = _layout(
        network, combination, dict(pinned or {}), keep_matches, fallbacks=False, tight=tight
    )
    if not with_nodes:
        return layout.psi()
    return layout.psi(), {
        b.key: b.node for b in layout.builders if b.inputs and b.partition is None
    }


def uses_selectors(
    network: Network, combination: Combination, keep_matches: frozenset[str] = frozenset()
) -> bool:
    """Whether Alg. 2 gives some projection of ``combination`` an output selector."""
    mn = combination.multi_node
    consumers = combination.consumers()
    diss = disseminated_types(combination)
    return any(
        output_selector(p, diss, network, mn.get(key)) is not None
        for key, p in combination.projections.items()
        if consumers[key] and key not in keep_matches
    )


def _outputs_and_inputs(
    network: Network, combination: Combination, keep_matches: frozenset[str]
) -> tuple[dict[str, Projection], dict[str, tuple[str, ...] | None], dict[str, tuple[str, ...]]]:
    """Output selectors (getOS, line 29) and λ extended by what inputs no longer send (line 7)."""
    glob = network.global_rates()
    projections: dict[str, Projection] = dict(combination.projections)
    mn = combination.multi_node
    consumers = combination.consumers()
    diss = disseminated_types(combination)
    outputs: dict[str, tuple[str, ...] | None] = {}
    for key, p in combination.projections.items():
        use = consumers[key] and key not in keep_matches
        regions = combination.regional.get(key)
        outputs[key] = output_selector(p, diss, network, mn.get(key), regions) if use else None

    def primitive(t: str) -> Projection:
        return primitive_projection(t, glob[t])

    extended = {
        key: extended_inputs(ins, outputs, projections, primitive)
        for key, ins in combination.inputs.items()
    }
    return projections, outputs, extended


def extended_inputs(
    ins: tuple[str, ...],
    outputs: Mapping[str, tuple[str, ...] | None],
    projections: dict[str, Projection],
    primitive: Callable[[str], Projection],
) -> tuple[str, ...]:
    """λ extended by the types the inputs' selectors leave out (Alg. 2, line 7); a new event
    type's projection ``primitive(t)`` is added to ``projections``."""
    extra: list[str] = []
    for i in ins:
        selected = outputs.get(i)
        if selected is None:
            continue
        for t in sorted(projections[i].types - set(selected)):
            if t not in ins and t not in extra:
                extra.append(t)
                if t not in projections:
                    projections[t] = primitive(t)
    return tuple(ins) + tuple(extra)


def _layout(
    network: Network,
    combination: Combination,
    pinned: dict[str, Node],
    keep_matches: frozenset[str],
    fallbacks: bool = True,
    tight: bool = True,
) -> _Layout:
    """Vertices, nodes and forwarding graphs (the work of :func:`place` before writing out);
    without ``fallbacks`` the multi-node projections' fall-back nodes are left out (ψ does not
    depend on them, and searches place hundreds of designs: they took a quarter of the time);
    without ``tight`` the grown forwarding graphs are kept (:mod:`inev.planner.tight_trees`).

    Projections are handled in topological order. A vertex's forwarding graph starts as the
    Steiner tree over the sources of its multi-node consumers, joined to the vertex's node
    by a shortest path (Successors, lines 9 and 14), and grows by a shortest path from the
    graph to each single-node consumer as that consumer is placed (line 26). A single-node
    projection goes to the node m minimising what it adds (line 17–22, dissemination-aware):
    Σ over its input vertices of rate · hops from m to the vertex's graph so far (events
    already forwarded past a node are used there, as the paper's plan II does), plus its own
    rate · hops from m to the tree over its multi-node consumers' sources.

    It stays one function: it is the planner's hot path (every design the search compares is
    laid out here; about three quarters of a search's time on Fig. 9's 20-node instances,
    measured by ``benchmarks/bench_planner.py``), and its inner closures share the layout's
    lists without passing them per call.
    """
    projections, outputs, extended = _outputs_and_inputs(network, combination, keep_matches)
    mn = combination.multi_node
    order = inputs_first(projections, extended)
    spread = _multi_node_targets(network, combination, extended)

    index = network.node_index
    where = sites(network, pinned.values())
    caches = network_cache(network)
    nodes_list = where.nodes
    builders: list[_Builder] = []
    reaches: list[Reach] = []
    placed: dict[str, list[int]] = {}
    event_vertex: dict[tuple[str, Node], int] = {}

    def new_vertex(
        key: str,
        node: Node,
        inputs: tuple[int, ...],
        rate: float,
        part: str | None,
        shared: tuple[int, ...] = (),
        region: tuple[Node, ...] = (),
    ) -> int:
        vid = len(builders)
        builders.append(_Builder(key, node, inputs, shared, rate, part, region))
        reaches.append(initial_reach(network, spread.get(key, NO_NODES), node, caches))
        placed.setdefault(key, []).append(vid)
        return vid

    def distance_to(vids: list[int]) -> np.ndarray:
        """Per node m: Σ_w rate(w) · hops(m, graph of w) (summed in the order of ``vids``:
        numpy reduces a C-ordered matrix over axis 0 row after row, as a loop would)."""
        if not vids:
            return np.zeros(len(nodes_list))
        rows = np.array([reach_distances(where, reaches[vid]) for vid in vids])
        rates = np.array([builders[vid].rate for vid in vids])
        return (rates[:, None] * rows).sum(axis=0)

    def downstream(key: str, rate: float) -> np.ndarray | float:
        targets = spread.get(key)
        if not targets:
            return 0.0
        return rate * where.to_set(steiner_tree_nodes(network, targets))

    for key in order:
        if projections[key].is_primitive:
            targets = spread.get(key, NO_NODES)
            vids = placed.setdefault(key, [])
            for n, r in zip(network.sources(key), network.source_rates(key), strict=True):
                vid = event_vertex[(key, n)] = len(builders)
                builders.append(_Builder(key, n, (), (), r, None))
                reaches.append(initial_reach(network, targets, n, caches))
                vids.append(vid)

    fallback: dict[str, Node] = {}
    for key in order:
        p = projections[key]
        if p.is_primitive:
            continue
        ins = extended[key]
        inputs = [vid for i in ins for vid in placed[i]]
        if key in combination.regional:  # beyond the paper: one vertex per site
            part, regions = mn[key], combination.regional[key]
            others = tuple(vid for i in ins if i != part for vid in placed[i])
            for site, group, local in zip(
                regions.sites, regions.members, regions.rates, strict=True
            ):
                rate = partitioned_rate(network, p, part, local, outputs[key])
                own = tuple(event_vertex[(part, n)] for n in group)
                new_vertex(key, site, own, rate, part, others, group)
                extend_all(network, where, [reaches[vid] for vid in own], site)
            if fallbacks:
                fallback[key] = nodes_list[int(np.argmin(distance_to(inputs)))]
            continue
        if key in mn:
            part = mn[key]
            others = tuple(vid for i in ins if i != part for vid in placed[i])
            rates = _partition_rates(network, p, part, outputs[key])
            for n, rate in zip(network.sources(part), rates, strict=True):
                local = event_vertex[(part, n)]
                new_vertex(key, n, (local,), rate, part, others)  # not quadratic until written
                reaches[local].targets.add(n)
            # every vertex of ``others`` has these sources in its shared targets already
            if fallbacks:
                fallback[key] = nodes_list[int(np.argmin(distance_to(inputs)))]
            continue
        rate = send_rate(network, p, None, None, outputs[key])
        if key in pinned and pinned[key] in index:
            m = pinned[key]
        else:
            m = nodes_list[int(np.argmin(distance_to(inputs) + downstream(key, rate)))]
        new_vertex(key, m, tuple(inputs), rate, None)
        extend_all(network, where, [reaches[vid] for vid in inputs], m)
    return _Layout(
        projections,
        extended,
        outputs,
        builders,
        tightened(network, [b.node for b in builders], reaches) if tight else reaches,
        placed,
        fallback,
        disseminated_types(combination),
    )


def _multi_node_targets(
    network: Network, combination: Combination, extended: Mapping[str, tuple[str, ...]]
) -> dict[str, frozenset[Node]]:
    """Per input projection: the sources of the partitioning types of its multi-node consumers
    (the sites, for a regional consumer)."""
    out: dict[str, set[Node]] = {}
    for key, part in combination.multi_node.items():
        regions = combination.regional.get(key)
        nodes = network.sources(part) if regions is None else regions.sites
        for i in extended[key]:
            if i != part:
                out.setdefault(i, set()).update(nodes)
    interned = network_cache(
        network
    ).node_sets  # one object per set: cache keys compare by identity
    return {k: interned.setdefault(fs, fs) for k, v in out.items() for fs in (frozenset(v),)}


def _destinations(
    reach: Reach, index: Mapping[Node, int], shared_order: dict[int, tuple[Node, ...]]
) -> tuple[Node, ...]:
    """The vertex's consumer nodes in network order; one tuple object for every vertex whose
    consumers are exactly a shared set (thousands of vertices with thousands of entries each on
    large networks; ``shared_order`` is keyed by the set's identity, alive for the layout)."""
    shared = reach.shared_targets
    if not reach.targets - shared:
        found = shared_order.get(id(shared))
        if found is None:
            found = shared_order[id(shared)] = tuple(sorted(shared, key=index.__getitem__))
        return found
    return tuple(sorted(reach.destinations(), key=index.__getitem__))


MAX_DESTINATIONS = 20_000_000
"""The most (vertex, destination) pairs a placed plan may list (each vertex lists its
destinations and the hops to each: 20 million pairs take about 2 GB)."""


class PlanTooLarge(InevError):
    """A placement whose vertices would list more destinations than :data:`MAX_DESTINATIONS`."""


def _materialise(network: Network, layout: _Layout) -> Placement:
    """The :class:`Placement` of a layout: vertices with sorted links, destinations, hops.

    Refused (:class:`PlanTooLarge`) before any work when the vertices would list more than
    :data:`MAX_DESTINATIONS` destinations: on a 10,000-node network at node ratio 0.5 a plan
    whose thousands of event vertices each feed multi-node projections with 5,000 sources
    lists hundreds of millions (the search costs it without writing it out).
    """
    pairs = sum(len(r.targets) + len(r.shared_targets) for r in layout.reaches)
    if pairs > MAX_DESTINATIONS:
        raise PlanTooLarge(
            f"the plan's {len(layout.reaches):,} vertices would list about {pairs:,} "
            f"destinations (at most {MAX_DESTINATIONS:,} can be written out)"
        )
    index = network.node_index
    link_position = {
        e: i
        for i, e in enumerate(
            sorted(
                (link(u, v) for u, v, _ in network.links), key=lambda e: (index[e[0]], index[e[1]])
            )
        )
    }
    vertices = []
    trees: list[tuple[Link, ...]] = []
    tree_index: dict[frozenset[Link], int] = {}
    searched = TreeHops()
    shared_order: dict[int, tuple[Node, ...]] = {}
    for vid, (b, reach) in enumerate(zip(layout.builders, layout.reaches, strict=True)):
        tree_id = None
        if reach.base:
            if reach.base not in tree_index:
                tree_index[reach.base] = len(trees)
                trees.append(tuple(sorted(reach.base, key=link_position.__getitem__)))
            tree_id = tree_index[reach.base]
            extra = sorted(reach.own_links, key=link_position.__getitem__)
            forwarding = trees[tree_id] + tuple(extra)
        else:
            forwarding = tuple(sorted(reach.own_links, key=link_position.__getitem__))
        destinations = _destinations(reach, index, shared_order)
        hops = tree_hops(reach, tree_id, b.node, destinations, searched)
        vertices.append(
            Vertex(
                id=vid,
                projection=b.key,
                node=b.node,
                inputs=(*b.inputs, *b.shared),
                forwarding=forwarding,
                destinations=destinations,
                hops=hops,
                tree=tree_id,
                output=layout.outputs.get(b.key),
                partition=b.partition,
                region=b.region,
                rate=b.rate,
                cost=len(forwarding) * b.rate,
            )
        )
    return Placement(
        vertices=tuple(vertices),
        trees=tuple(trees),
        projections=layout.projections,
        inputs=layout.extended,
        outputs=layout.outputs,
        nodes={
            k: tuple(layout.builders[v].node for v in vids) for k, vids in layout.placed.items()
        },
        fallback=layout.fallback,
        disseminated=layout.disseminated,
    )
