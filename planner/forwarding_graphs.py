"""Forwarding graphs as Algorithm 2 grows them (INEv §6.4, lines 9-26; used by
:mod:`inev.planner.alg2_placement`).

A vertex's forwarding graph (:class:`Reach`) starts as the Steiner tree over the nodes of its
multi-node consumers joined to the vertex's node, and grows by a shortest path to each
single-node consumer placed (:func:`extend_all`). The trees, paths and distance rows are
cached per network (:func:`network_cache`): a layout's thousands of vertices share them.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from inev.planner.inev_graph import Link, Node, link
from inev.planner.sites import Sites, sites
from inev.planner.steiner import steiner_links, tree_nodes, trees_of
from inev.topologies.network import Network


@dataclass(slots=True)
class Reach:
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


class _Shared:
    """The caches that depend on a network's topology alone (trees, paths, searches from node
    sets, nearest nodes, interned node sets), shared by every network of one topology."""

    def __init__(self) -> None:
        self.tree_nodes: dict[frozenset, frozenset] = {}
        self.reach: dict[tuple[frozenset, Node], tuple] = {}
        self.paths: dict[tuple[Node, Node], tuple[frozenset, tuple]] = {}
        self.forests: dict[frozenset, np.ndarray] = {}
        self.nearest: dict[tuple[frozenset, Node], tuple[int, int]] = {}
        self.node_sets: dict[frozenset, frozenset] = {}
        self.alone: dict[Node, tuple[frozenset, tuple]] = {}


class _Cache:
    """Per-network caches of the searches' hot paths (trees, joined trees, distance rows).

    The topology's part (:class:`_Shared`) is one object for every network with the same
    :func:`~inev.planner.steiner.trees_of` entry (the same nodes in order with the same
    neighbours in order, and the same tree settings), e.g. the rate-kicked copies the search
    plans on (``Network.with_rates``): what it holds is computed from hops, shortest paths and
    Steiner trees, never from types, rates or latencies, so a shared entry is the entry a
    fresh computation gives. Rates are read only by ``partition_rates`` and ``selectors``,
    kept per network.
    """

    def __init__(self, shared: _Shared) -> None:
        self.tree_nodes = shared.tree_nodes
        self.reach = shared.reach
        self.paths = shared.paths
        self.forests = shared.forests
        self.nearest = shared.nearest
        self.node_sets = shared.node_sets
        """One object per set: cache keys compare by identity."""
        self.alone = shared.alone
        """A node's own one-node set and path (shared by every fresh forwarding graph there)."""
        self.partition_rates: dict[tuple, tuple[float, ...]] = {}
        self.selectors: dict[tuple, tuple[str, ...] | None] = {}


_CACHES: weakref.WeakKeyDictionary[Network, _Cache] = weakref.WeakKeyDictionary()
_SHARED: weakref.WeakKeyDictionary[object, _Shared] = weakref.WeakKeyDictionary()
MAX_CACHED_ROWS = 50_000
"""Paths kept per network."""
_MAX_FORESTS = 64
"""Searches from node sets kept per network on large networks (each holds one int per node)."""


def network_cache(network: Network) -> _Cache:
    found = _CACHES.get(network)
    if found is None:
        trees = trees_of(network)
        shared = _SHARED.get(trees)
        if shared is None:
            shared = _SHARED[trees] = _Shared()
        found = _CACHES[network] = _Cache(shared)
    return found


def steiner_tree_nodes(network: Network, terminals: frozenset[Node]) -> frozenset[Node]:
    cache = network_cache(network).tree_nodes
    found = cache.get(terminals)
    if found is None:
        found = cache[terminals] = frozenset(
            tree_nodes(steiner_links(network, terminals), terminals)
        )
    return found


def _path(network: Network, source: Node, target: Node) -> tuple[frozenset[Link], tuple[Node, ...]]:
    """The links and nodes of the shortest path from ``source`` to ``target`` (cached)."""
    cache = network_cache(network).paths
    found = cache.get((source, target))
    if found is None:
        nodes = tuple(network.shortest_path(source, target))
        links = frozenset(link(u, v) for u, v in itertools.pairwise(nodes))
        if len(cache) >= MAX_CACHED_ROWS:
            cache.clear()
        found = cache[(source, target)] = (links, nodes)
    return found


NO_NODES: frozenset = frozenset()


def initial_reach(
    network: Network, targets: frozenset[Node], node: Node, caches: _Cache | None = None
) -> Reach:
    """The Steiner tree over ``targets`` joined to ``node`` (only ``node`` without targets);
    the parts are cached per (targets, node), so a layout's thousands of vertices share them."""
    caches = caches or network_cache(network)
    if not targets:
        alone = caches.alone
        found = alone.get(node)
        if found is None:
            found = alone[node] = (frozenset((node,)), (node,))
        return Reach(NO_NODES, NO_NODES, NO_NODES, found[0], set(), found[1])
    cache = caches.reach
    found = cache.get((targets, node))
    if found is None:
        tree = steiner_tree_nodes(network, targets)
        links: frozenset[Link] = frozenset()
        nodes: frozenset[Node] = frozenset()
        path: tuple[Node, ...] = (node,)
        if node not in tree:
            links, path = _path_to_set(network, tree, node)
            nodes = frozenset(path[:-1])
        found = cache[(targets, node)] = (steiner_links(network, targets), tree, links, nodes, path)
    base, tree, links, nodes, path = found
    return Reach(base, tree, links, nodes, set(), path, targets)


def reach_distances(where: Sites, reach: Reach) -> np.ndarray:
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


def _nearest_by_row(network: Network, row: np.ndarray, reach: Reach, node: Node) -> Node:
    """The node of the forwarding graph nearest to ``node`` (ties: network order), from the
    tree's nearest node (cached per tree) and the own part's; ``row``: ``node``'s hops."""
    index = network.node_index
    best: tuple[int, int] | None = None
    if reach.tree:
        cache = network_cache(network).nearest
        found = cache.get((reach.tree, node))
        if found is None:
            if len(cache) >= MAX_CACHED_ROWS:
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
    cache = network_cache(network).forests
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


def extend_all(network: Network, where: Sites, reaches: Iterable[Reach], node: Node) -> None:
    """Grow each forwarding graph of ``reaches`` by a shortest path from it to ``node`` (a new
    consumer there; its hop row read once)."""
    row = None
    for reach in reaches:
        reach.targets.add(node)
        if reach.holds(node):
            continue
        if row is None:
            row = _hop_row(network, where, node)
        path_links, path_nodes = _path_from(network, where, row, reach, node)
        reach.own_links = reach.own_links | path_links
        reach.own_nodes = reach.own_nodes.union(path_nodes)
        reach.dist = None


def _path_from(
    network: Network, where: Sites, row: np.ndarray, reach: Reach, node: Node
) -> tuple[frozenset[Link], tuple[Node, ...]]:
    """The shortest path joining ``node`` (hops ``row``) to the forwarding graph ``reach``."""
    nearest = _nearest_by_row(network, row, reach, node)
    if where.dense:
        return _path(network, node, nearest)
    return _path(network, nearest, node)  # the search from ``node`` (a site) gives every path


def grown(
    network: Network,
    where: Sites,
    reaches: tuple[Reach, ...],
    node: Node,
    only: frozenset[int] | None = None,
) -> tuple[Reach, ...] | None:
    """What :func:`extend_all` makes of ``reaches`` (with ``only``, of those at these
    positions) for a consumer at ``node``, as new graphs, leaving ``reaches`` as they are;
    None if no graph grows. The graphs' consumer nodes (``targets``) are not kept: a
    placement's ψ does not depend on them (:mod:`inev.planner.incremental`)."""
    row = None
    out = list(reaches)
    for i, reach in enumerate(reaches):
        if (only is not None and i not in only) or reach.holds(node):
            continue
        if row is None:
            row = _hop_row(network, where, node)
        path_links, path_nodes = _path_from(network, where, row, reach, node)
        out[i] = Reach(
            reach.base,
            reach.tree,
            reach.own_links | path_links,
            reach.own_nodes.union(path_nodes),
            set(),
            reach.path,
            reach.shared_targets,
        )
    return None if row is None else tuple(out)
