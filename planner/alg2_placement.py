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
   forwarding graph is recorded (``Vertex.hops``);
6. a fall-back single node for every multi-node projection (§6.6), chosen by the same
   rule as single-node placements with all sources of the partitioning type as input.

Choices: output selection needs every negated type of the projection to be disseminated
(the receiver must see the negated events to re-evaluate the projection); query sinks that
feed nothing and event types keep ≡ ("all").
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from inev.common.errors import InevError
from inev.planner.combination_model import Combination, inputs_first
from inev.planner.cost_model import vertex_rate
from inev.planner.inev_graph import Link, Node, Vertex, link
from inev.planner.projections import Projection, primitive_projection
from inev.planner.sites import Sites, sites
from inev.planner.steiner import bfs, steiner_links, tree_nodes
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
) -> tuple[str, ...] | None:
    """getOS (Alg. 2, line 29) under the physically consistent model of :mod:`inev.planner.cost_model`.

    The candidate is E(p) \\ DissEv (the types a consumer does not get anyway). It is used
    when its selected events cost less than the matches in all, and no more at any single
    vertex (a multi-node placement's vertices differ only by their local partitioning rate),
    so no vertex's output costs more than its matches; else ≡ (None).
    """
    if projection.is_primitive or not projection.negated <= disseminated:
        return None
    chosen = tuple(sorted(projection.positive - disseminated))
    cache = _cache(network).selectors  # searches ask for the same selectors many times
    key = (projection.rate, chosen, partition)
    if key not in cache:
        if len(cache) >= _MAX_ROWS:
            cache.clear()
        cache[key] = _selector(network, projection.rate, chosen, partition)
    return cache[key]


def _selector(
    network: Network, rate: float, chosen: tuple[str, ...], partition: str | None
) -> tuple[str, ...] | None:
    """:func:`output_selector`'s choice for a projection of rate ``rate`` (see there)."""
    glob = network.global_rates()
    selected = matches = 0.0
    for share, local in vertex_shares(network, partition):
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
    glob = network.global_rates()
    if partition is None:
        return vertex_rate(projection.rate, output, glob.__getitem__)
    local = network.rate_at(partition, node)
    matches = projection.rate * local / network.global_rate(partition)
    return vertex_rate(matches, output, lambda e: local if e == partition else glob[e])


def _partition_rates(
    network: Network, projection: Projection, partition: str, output: tuple[str, ...] | None
) -> tuple[float, ...]:
    """:func:`send_rate` at each source of ``partition`` (cached per network: it depends on
    the projection's rate only, and searches ask for it once per placed design)."""
    cache = _cache(network).partition_rates
    key = (projection.rate, partition, output)
    found = cache.get(key)
    if found is None:
        found = tuple(
            send_rate(network, projection, n, partition, output) for n in network.sources(partition)
        )
        if len(cache) >= _MAX_ROWS:
            cache.clear()
        cache[key] = found
    return found


def vertex_shares(network: Network, partition: str | None) -> list[tuple[float, float]]:
    """``(share of R(p), local rate of the partitioning type)`` per vertex of a placement.

    One entry, ``(1, 0)``, for a single node; for a multi-node placement partitioned by c,
    ``(r(c, n) / R(c), r(c, n))`` per source n of c.
    """
    if partition is None:
        return [(1.0, 0.0)]
    total = network.global_rate(partition)
    return [(r / total, r) for r in network.source_rates(partition)]


@dataclass(slots=True)
class _Reach:
    """The forwarding graph of one vertex, grown as its consumers are placed.

    ``base`` is the shared Steiner tree over the sources of its multi-node consumers (empty if
    none) and ``tree`` its nodes; ``own_links`` and ``own_nodes`` are the rest of the graph so
    far (the path joining the vertex's node to the tree, then the paths to single-node
    consumers; the vertex's node is in ``tree`` or ``own_nodes``). Its consumers' nodes are
    ``shared_targets`` (the sources of its multi-node consumers' partitioning types, the one
    set object of every vertex with those consumers) and ``targets`` (its own ones). The tree
    and the shared targets are shared by every vertex with the same consumers, so nothing
    that grows with them is copied per vertex (on large networks they hold thousands of
    nodes, and copying them per vertex was quadratic).
    """

    base: frozenset[Link]
    tree: frozenset[Node]
    own_links: frozenset[Link]
    own_nodes: frozenset[Node]
    targets: set[Node]
    path: tuple[Node, ...] = ()
    """The shortest path from the vertex's node to the tree ``base`` (its node alone if on it)."""

    shared_targets: frozenset[Node] = frozenset()
    dist: np.ndarray | None = None
    """Per site: hops to the graph (computed when first asked, dropped when the graph grows)."""

    def destinations(self) -> set[Node]:
        """The nodes of every consumer."""
        return self.targets | self.shared_targets

    @property
    def size(self) -> int:
        """|E_v|: the links of the graph (the own links are never tree links)."""
        return len(self.base) + len(self.own_links)

    @property
    def links(self) -> frozenset[Link]:
        """Every link of the graph."""
        return self.base | self.own_links

    def holds(self, node: Node) -> bool:
        """Whether ``node`` is on the graph."""
        return node in self.tree or node in self.own_nodes


class _Builder(NamedTuple):
    """A vertex before it is written out (``shared``: the inputs every vertex of a multi-node
    projection has, one tuple for all of them)."""

    key: str
    node: Node
    inputs: tuple[int, ...]
    shared: tuple[int, ...]
    rate: float
    partition: str | None


@dataclass
class _Layout:
    """What Alg. 2 decides before the vertices are written out (see :func:`place`)."""

    projections: dict[str, Projection]
    extended: dict[str, tuple[str, ...]]
    outputs: dict[str, tuple[str, ...] | None]
    builders: list[_Builder]
    reaches: list[_Reach]
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
) -> Any:
    """ψ of :func:`place`'s result, without writing the vertices out (for searches); with
    ``with_nodes``, ``(ψ, {single-node projection: its node})``."""
    layout = _layout(network, combination, dict(pinned or {}), keep_matches, fallbacks=False)
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
        outputs[key] = output_selector(p, diss, network, mn.get(key)) if use else None
    extended: dict[str, tuple[str, ...]] = {}
    for key, ins in combination.inputs.items():
        extra: list[str] = []
        for i in ins:
            selected = outputs.get(i)
            if selected is None:
                continue
            for t in sorted(projections[i].types - set(selected)):
                if t not in ins and t not in extra:
                    extra.append(t)
                    if t not in projections:
                        projections[t] = primitive_projection(t, glob[t])
        extended[key] = tuple(ins) + tuple(extra)
    return projections, outputs, extended


def _layout(
    network: Network,
    combination: Combination,
    pinned: dict[str, Node],
    keep_matches: frozenset[str],
    fallbacks: bool = True,
) -> _Layout:
    """Vertices, nodes and forwarding graphs (the work of :func:`place` before writing out);
    without ``fallbacks`` the multi-node projections' fall-back nodes are left out (ψ does not
    depend on them, and searches place hundreds of designs: they took a quarter of the time).

    Projections are handled in topological order. A vertex's forwarding graph starts as the
    Steiner tree over the sources of its multi-node consumers, joined to the vertex's node
    by a shortest path (Successors, lines 9 and 14), and grows by a shortest path from the
    graph to each single-node consumer as that consumer is placed (line 26). A single-node
    projection goes to the node m minimising what it adds (line 17–22, dissemination-aware):
    Σ over its input vertices of rate · hops from m to the vertex's graph so far (events
    already forwarded past a node are used there, as the paper's plan II does), plus its own
    rate · hops from m to the tree over its multi-node consumers' sources.
    """
    projections, outputs, extended = _outputs_and_inputs(network, combination, keep_matches)
    mn = combination.multi_node
    order = inputs_first(projections, extended)
    spread = _multi_node_targets(network, combination, extended)

    index = network.node_index
    where = sites(network, pinned.values())
    caches = _cache(network)
    nodes_list = where.nodes
    builders: list[_Builder] = []
    reaches: list[_Reach] = []
    placed: dict[str, list[int]] = {}
    event_vertex: dict[tuple[str, Node], int] = {}

    def new_vertex(
        key: str,
        node: Node,
        inputs: tuple[int, ...],
        rate: float,
        part: str | None,
        shared: tuple[int, ...] = (),
    ) -> int:
        vid = len(builders)
        builders.append(_Builder(key, node, inputs, shared, rate, part))
        reaches.append(_initial_reach(network, spread.get(key, _NONE), node, caches))
        placed.setdefault(key, []).append(vid)
        return vid

    def distance_to(vids: list[int]) -> np.ndarray:
        """Per node m: Σ_w rate(w) · hops(m, graph of w) (summed in the order of ``vids``:
        numpy reduces a C-ordered matrix over axis 0 row after row, as a loop would)."""
        if not vids:
            return np.zeros(len(nodes_list))
        rows = np.array([_reach_distances(where, reaches[vid]) for vid in vids])
        rates = np.array([builders[vid].rate for vid in vids])
        return (rates[:, None] * rows).sum(axis=0)

    def downstream(key: str, rate: float) -> np.ndarray | float:
        targets = spread.get(key)
        if not targets:
            return 0.0
        return rate * where.to_set(_tree_nodes(network, targets))

    for key in order:
        if projections[key].is_primitive:
            targets = spread.get(key, _NONE)
            vids = placed.setdefault(key, [])
            for n, r in zip(network.sources(key), network.source_rates(key), strict=True):
                vid = event_vertex[(key, n)] = len(builders)
                builders.append(_Builder(key, n, (), (), r, None))
                reaches.append(_initial_reach(network, targets, n, caches))
                vids.append(vid)

    fallback: dict[str, Node] = {}
    for key in order:
        p = projections[key]
        if p.is_primitive:
            continue
        ins = extended[key]
        inputs = [vid for i in ins for vid in placed[i]]
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
        _extend_all(network, where, [reaches[vid] for vid in inputs], m)
    return _Layout(
        projections,
        extended,
        outputs,
        builders,
        reaches,
        placed,
        fallback,
        disseminated_types(combination),
    )


def _multi_node_targets(
    network: Network, combination: Combination, extended: Mapping[str, tuple[str, ...]]
) -> dict[str, frozenset[Node]]:
    """Per input projection: the sources of the partitioning types of its multi-node consumers."""
    out: dict[str, set[Node]] = {}
    for key, part in combination.multi_node.items():
        for i in extended[key]:
            if i != part:
                out.setdefault(i, set()).update(network.sources(part))
    interned = _cache(network).node_sets  # one object per set: cache keys compare by identity
    return {k: interned.setdefault(fs, fs) for k, v in out.items() for fs in (frozenset(v),)}


class _Cache:
    """Per-network caches of the searches' hot paths (trees, joined trees, distance rows)."""

    def __init__(self) -> None:
        self.tree_nodes: dict[frozenset, frozenset] = {}
        self.reach: dict[tuple[frozenset, Node], tuple] = {}
        self.paths: dict[tuple[Node, Node], tuple[frozenset, tuple]] = {}
        self.forests: dict[frozenset, np.ndarray] = {}
        self.nearest: dict[tuple[frozenset, Node], tuple[int, int]] = {}
        self.node_sets: dict[frozenset, frozenset] = {}
        self.partition_rates: dict[tuple, tuple[float, ...]] = {}
        self.selectors: dict[tuple, tuple[str, ...] | None] = {}
        self.alone: dict[Node, tuple[frozenset, tuple]] = {}
        """A node's own one-node set and path (shared by every fresh forwarding graph there)."""


_CACHES: weakref.WeakKeyDictionary[Network, _Cache] = weakref.WeakKeyDictionary()
_MAX_ROWS = 50_000
"""Paths kept per network."""
_MAX_FORESTS = 64
"""Searches from node sets kept per network on large networks (each holds one int per node)."""


def _cache(network: Network) -> _Cache:
    found = _CACHES.get(network)
    if found is None:
        found = _CACHES[network] = _Cache()
    return found


def _tree_nodes(network: Network, terminals: frozenset[Node]) -> frozenset[Node]:
    cache = _cache(network).tree_nodes
    found = cache.get(terminals)
    if found is None:
        found = cache[terminals] = frozenset(
            tree_nodes(steiner_links(network, terminals), terminals)
        )
    return found


def _path(network: Network, source: Node, target: Node) -> tuple[frozenset[Link], tuple[Node, ...]]:
    """The links and nodes of the shortest path from ``source`` to ``target`` (cached)."""
    cache = _cache(network).paths
    found = cache.get((source, target))
    if found is None:
        nodes = tuple(network.shortest_path(source, target))
        links = frozenset(link(u, v) for u, v in itertools.pairwise(nodes))
        if len(cache) >= _MAX_ROWS:
            cache.clear()
        found = cache[(source, target)] = (links, nodes)
    return found


_NONE: frozenset = frozenset()


def _initial_reach(
    network: Network, targets: frozenset[Node], node: Node, caches: _Cache | None = None
) -> _Reach:
    """The Steiner tree over ``targets`` joined to ``node`` (only ``node`` without targets);
    the parts are cached per (targets, node), so a layout's thousands of vertices share them."""
    caches = caches or _cache(network)
    if not targets:
        alone = caches.alone
        found = alone.get(node)
        if found is None:
            found = alone[node] = (frozenset((node,)), (node,))
        return _Reach(_NONE, _NONE, _NONE, found[0], set(), found[1])
    cache = caches.reach
    found = cache.get((targets, node))
    if found is None:
        tree = _tree_nodes(network, targets)
        links: frozenset[Link] = frozenset()
        nodes: frozenset[Node] = frozenset()
        path: tuple[Node, ...] = (node,)
        if node not in tree:
            links, path = _path_to_set(network, tree, node)
            nodes = frozenset(path[:-1])
        found = cache[(targets, node)] = (steiner_links(network, targets), tree, links, nodes, path)
    base, tree, links, nodes, path = found
    return _Reach(base, tree, links, nodes, set(), path, targets)


def _reach_distances(where: Sites, reach: _Reach) -> np.ndarray:
    """Per site: hops to the nearest node of a forwarding graph (tree and own part apart,
    the tree's vector shared by every vertex on it; kept on the reach until it grows)."""
    found = reach.dist
    if found is None:
        if not reach.tree:
            found = where.to_set(reach.own_nodes)
        elif not reach.own_nodes:
            found = where.to_set(reach.tree)
        else:
            found = np.minimum(where.to_set(reach.tree), where.to_set(reach.own_nodes))
        reach.dist = found
    return found


def _hop_row(network: Network, where: Sites, node: Node) -> np.ndarray:
    """Hops from ``node`` to every node."""
    if where.dense:
        return network.hop_matrix[network.node_index[node]]
    if node in where.position:
        return where.table[where.position[node]]
    return network.hops_row(node)


def _nearest_by_row(network: Network, row: np.ndarray, reach: _Reach, node: Node) -> Node:
    """The node of the forwarding graph nearest to ``node`` (ties: network order), from the
    tree's nearest node (cached per tree) and the own part's; ``row``: ``node``'s hops."""
    index = network.node_index
    best: tuple[int, int] | None = None
    if reach.tree:
        cache = _cache(network).nearest
        found = cache.get((reach.tree, node))
        if found is None:
            if len(cache) >= _MAX_ROWS:
                cache.clear()
            found = cache[(reach.tree, node)] = _nearest_in(row, index, reach.tree)
        best = found
    if reach.own_nodes:
        own = _nearest_in(row, index, reach.own_nodes)
        if best is None or own < best:
            best = own
    assert best is not None
    return network.nodes[best[1]]


_LOOP_UP_TO = 12


def _nearest_in(
    row: np.ndarray, index: Mapping[Node, int], nodes: Iterable[Node]
) -> tuple[int, int]:
    """(hops, row index) of the node of ``nodes`` nearest by ``row`` (ties: lowest index;
    a few nodes by a loop, which is faster than numpy below some 16)."""
    if isinstance(nodes, frozenset | set) and len(nodes) <= _LOOP_UP_TO:
        return min((int(row[i]), i) for i in map(index.__getitem__, nodes))
    cols = np.fromiter((index[n] for n in nodes), dtype=np.int64)
    cols.sort()
    at = int(np.argmin(row[cols]))
    return int(row[cols[at]]), int(cols[at])


def _nearest(network: Network, nodes: Iterable[Node], node: Node) -> Node:
    """The node of ``nodes`` nearest to ``node`` (ties: network order)."""
    index = network.node_index
    ordered = sorted(nodes, key=index.__getitem__)
    row = network.hop_matrix[index[node], [index[n] for n in ordered]]
    return ordered[int(np.argmin(row))]


def _path_to_set(
    network: Network, nodes: frozenset[Node], node: Node
) -> tuple[frozenset[Link], tuple[Node, ...]]:
    """A shortest path from ``node`` to the nearest node of ``nodes``.

    On a small network the nearest node by the hop matrix (ties: network order) and the
    path of :meth:`Network.shortest_path`; on a large one a single search from ``nodes``
    (cached per set; ties: the member the search met first) and the path it found.
    """
    if sites(network).dense:
        return _path(network, node, _nearest(network, nodes, node))
    cache = _cache(network).forests
    found = cache.get(nodes)
    if found is None:
        if len(cache) >= _MAX_FORESTS:
            cache.clear()
        found = cache[nodes] = network.nearest_of(nodes)[1]
    index, names = network.node_index, network.nodes
    path = [index[node]]
    while names[path[-1]] not in nodes:
        path.append(int(found[path[-1]]))
    walked = tuple(names[i] for i in path)
    return frozenset(link(u, v) for u, v in itertools.pairwise(walked)), walked


def _extend_all(network: Network, where: Sites, reaches: Iterable[_Reach], node: Node) -> None:
    """Grow each forwarding graph of ``reaches`` by a shortest path from it to ``node`` (a new
    consumer there; its hop row read once)."""
    row = None
    for reach in reaches:
        reach.targets.add(node)
        if reach.holds(node):
            continue
        if row is None:
            row = _hop_row(network, where, node)
        nearest = _nearest_by_row(network, row, reach, node)
        if where.dense:
            path_links, path_nodes = _path(network, node, nearest)
        else:  # the search from ``node`` (a site, few of them) gives every path to it
            path_links, path_nodes = _path(network, nearest, node)
        reach.own_links = reach.own_links | path_links
        reach.own_nodes = reach.own_nodes.union(path_nodes)
        reach.dist = None


_PYTHON_TREE_UP_TO = 200
_MAX_TREE_ROWS = 512
"""Distance rows kept per placement (a row holds one int per node of its tree)."""


class _TreeHops:
    """Hop distances inside the shared Steiner trees of one placement, one search per tree
    and joining node (in C), with destinations looked up as arrays."""

    def __init__(self) -> None:
        self.local: dict[int, dict[Node, int]] = {}
        self.graphs: dict[int, Any] = {}
        self.rows: dict[tuple[int, Node], np.ndarray] = {}
        self.columns: dict[tuple[int, tuple[Node, ...]], np.ndarray] = {}

    def row(self, tree_id: int, links: Iterable[Link], root: Node) -> np.ndarray:
        """Hops from ``root`` to every node of tree ``tree_id`` (in its local order); in C
        for trees of over :data:`_PYTHON_TREE_UP_TO` links (importing scipy costs more than
        searching a small tree)."""
        found = self.rows.get((tree_id, root))
        if found is None:
            if tree_id not in self.local:
                local: dict[Node, int] = {}
                pairs = [
                    (local.setdefault(u, len(local)), local.setdefault(v, len(local)))
                    for u, v in links
                ]
                self.local[tree_id] = local
                self.graphs[tree_id] = pairs
            pairs = self.graphs[tree_id]
            size = len(self.local[tree_id])
            start = self.local[tree_id][root]
            if isinstance(pairs, list) and len(pairs) <= _PYTHON_TREE_UP_TO:
                dist = bfs(pairs, start)
                found = np.array([dist[i] for i in range(size)], dtype=np.int64)
            else:
                from scipy.sparse import coo_array
                from scipy.sparse.csgraph import dijkstra

                if isinstance(pairs, list):
                    a = np.array([p[0] for p in pairs] + [p[1] for p in pairs], dtype=np.int64)
                    b = np.array([p[1] for p in pairs] + [p[0] for p in pairs], dtype=np.int64)
                    matrix = coo_array((np.ones(len(a)), (a, b)), shape=(size, size)).tocsr()
                    self.graphs[tree_id] = pairs = (matrix,)
                found = dijkstra(pairs[0], directed=False, unweighted=True, indices=start)
                found = found.astype(np.int32)
            if len(self.rows) >= _MAX_TREE_ROWS:  # most vertices join their tree at their own
                self.rows.clear()  # node, so few rows are reused: keep memory bounded
            self.rows[(tree_id, root)] = found
        return found

    def columns_of(self, tree_id: int, destinations: tuple[Node, ...]) -> np.ndarray:
        """Local positions of ``destinations`` in tree ``tree_id`` (-1: not on the tree)."""
        key = (tree_id, destinations)
        found = self.columns.get(key)
        if found is None:
            local = self.local[tree_id]
            found = self.columns[key] = np.array(
                [local.get(x, -1) for x in destinations], dtype=np.int64
            )
        return found


def _tree_hops(
    reach: _Reach,
    tree_id: int | None,
    node: Node,
    destinations: tuple[Node, ...],
    trees: _TreeHops,
) -> tuple[int, ...]:
    """Hops from ``node`` to each destination inside the vertex's forwarding graph.

    The graph is a tree: the shared Steiner tree, the path joining the vertex to it, and paths
    to single-node consumers, each joined to the graph at its nearest node. So a search over
    the shared tree from the joining node is done once per tree and joining node (cached),
    the path adds its length, and only the consumers' paths are walked per vertex. Without
    this every vertex searched its own copy of the tree (quadratic on large networks).
    """
    if not reach.size:
        return tuple(0 for _ in destinations)
    path = reach.path or (node,)
    values, row = _shared_tree_hops(reach, tree_id, path, destinations, trees)
    missing = [i for i, v in enumerate(values) if v < 0]
    if not missing:
        return tuple(values)
    local = trees.local.get(tree_id, {}) if tree_id is not None else {}
    known = _known_hops(path, local, row)
    found = _own_link_hops(reach, path, known)
    for i in missing:
        d = known(destinations[i])
        values[i] = d if d is not None else found.get(destinations[i])
    if any(d is None for d in values):  # not a tree after all: search it
        dist = bfs(reach.links, node)
        return tuple(dist[x] for x in destinations)
    return tuple(values)


def _shared_tree_hops(
    reach: _Reach,
    tree_id: int | None,
    path: tuple[Node, ...],
    destinations: tuple[Node, ...],
    trees: _TreeHops,
) -> tuple[list, np.ndarray | None]:
    """Hops to each destination through the joining path and the shared tree (-1: not on
    the tree), and the tree's distance row from the joining node (None: no shared tree)."""
    if tree_id is None:
        return [-1] * len(destinations), None
    offset = len(path) - 1
    row = trees.row(tree_id, reach.base, path[-1])
    cols = trees.columns_of(tree_id, destinations)
    return np.where(cols >= 0, offset + row[cols].astype(np.int64), -1).tolist(), row


def _known_hops(
    path: tuple[Node, ...], local: Mapping[Node, int], row: np.ndarray | None
) -> Callable[[Node], int | None]:
    """A function giving a node's hops on the joining path or the shared tree (None: neither)."""
    position = {x: i for i, x in enumerate(path)}
    offset = len(path) - 1

    def known(x: Node) -> int | None:
        if x in position:
            return position[x]
        if x in local and row is not None:
            return offset + int(row[local[x]])
        return None

    return known


def _own_link_hops(
    reach: _Reach, path: tuple[Node, ...], known: Callable[[Node], int | None]
) -> dict[Node, int]:
    """Hops of the nodes reached only over the vertex's own links (paths to single-node
    consumers), walked from the nodes whose hops ``known`` gives."""
    path_links = {link(u, v) for u, v in itertools.pairwise(path)}
    adjacency: dict[Node, list[Node]] = {}
    for u, v in reach.own_links:
        if (u, v) not in path_links:
            adjacency.setdefault(u, []).append(v)
            adjacency.setdefault(v, []).append(u)
    found: dict[Node, int] = {}
    stack = [(x, d) for x in adjacency if (d := known(x)) is not None]
    while stack:
        x, d = stack.pop()
        for y in adjacency[x]:
            if y not in found and known(y) is None:
                found[y] = d + 1
                stack.append((y, d + 1))
    return found


def _destinations(
    reach: _Reach, index: Mapping[Node, int], shared_order: dict[int, tuple[Node, ...]]
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
    tree_hops = _TreeHops()
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
        hops = _tree_hops(reach, tree_id, b.node, destinations, tree_hops)
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
