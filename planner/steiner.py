"""Steiner trees for forwarding graphs (INEv paper §6.1, §6.4, Eq. 1).

``ST(N', G_top)`` on the hop-count topology, cached per network and terminal set:

* **exact** for up to :data:`EXACT_TERMINALS` terminals on networks of up to
  :data:`EXACT_NODES` nodes: the Dreyfus–Wagner dynamic programme (:func:`exact_steiner`),
  vectorised over nodes with numpy (3^k merges and 2^k relaxations of n entries each);
* otherwise the best of three heuristics, each followed by a clean-up: Mehlhorn's and
  Kou–Markowsky–Berman's 2-approximations (the paper cites the latter; networkx's on networks
  of up to :data:`~inev.topologies.network.DENSE_UP_TO` nodes, :func:`mehlhorn` and
  :func:`kou` on sparse arrays above) and our
  Takahashi–Matsuyama shortest-path heuristic (:func:`path_heuristic`, grown from two start
  terminals); the clean-up (:func:`tidy`) replaces the tree by a minimum spanning tree of the
  topology induced by its nodes and prunes leaves that are not terminals, and then
  :func:`key_path_exchange` replaces any key path (a path between terminals or branch nodes
  through nodes of degree 2) by a shorter connection between the two parts its removal leaves.
  Neither step ever adds a link. Kou's heuristic needs shortest paths between all terminal pairs, so it is skipped above
  :data:`KOU_TERMINALS` terminals.

Alg. 2 needs ``ST(Successors[i] ∪ {n})`` for every source n of an input i. Rather than one
Steiner tree per source (hundreds on large networks), :func:`tree_with` builds
``ST(Successors[i])`` once and attaches n along a shortest path to the nearest tree node
(one step of the Takahashi–Matsuyama heuristic); the result is a tree spanning
``Successors[i] ∪ {n}`` with at most |ST(Successors[i])| + d(n, tree) links. This choice is
ours; it keeps Alg. 2 linear in the number of sources.

>>> from inev.topologies.network import DENSE_UP_TO, Network
>>> net = Network.build([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0, 3])})
>>> sorted(steiner_links(net, [0, 3]))
[(0, 1), (1, 2), (2, 3)]
"""

from __future__ import annotations

import functools
import itertools
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator

import networkx as nx
import numpy as np

from inev.planner.inev_graph import Link, Node, link
from inev.planner.key_paths import key_path_exchange
from inev.planner.steiner_networkx import kou_edges, mehlhorn_edges
from inev.topologies.network import DENSE_UP_TO, Network

TOPOLOGIES_KEPT = 8
"""Topologies whose trees stay cached after their networks are gone (see :func:`trees_of`)."""


class _Trees:
    """The trees of one topology: Steiner links and their nodes."""

    def __init__(self) -> None:
        self.links: dict[frozenset, frozenset[Link]] = {}
        self.nodes: dict[frozenset, tuple] = {}
        self.paths: OrderedDict[Node, tuple[dict, dict]] = OrderedDict()
        """networkx's shortest paths from a node (:func:`_paths_from`), the latest last."""
        self.exchanged: dict[tuple, frozenset[Link]] = {}
        """Key-path exchanges per tree and terminals, both in order (:func:`_exchanged`)."""
        self.ends: tuple[np.ndarray, np.ndarray] | None = None
        """Each link once as row indices ``(u, v)``, ``u < v``, in the adjacency's order."""


EXCHANGES_KEPT = 50_000
"""Key-path exchanges a topology keeps (:func:`_exchanged`) before it drops them all."""


def _exchanged(network: Network, links: frozenset[Link], terminals: list[Node]) -> frozenset[Link]:
    """:func:`~inev.planner.key_paths.key_path_exchange`, cached per topology on the links and
    terminals in their orders (everything it reads besides the topology: the same key gives
    the same tree in the same order). The heuristics often reach the same tree: on
    bench_plan_quality's #9, 2,179 distinct exchanges of 5,316."""
    cache = trees_of(network).exchanged
    key = (tuple(links), tuple(terminals))
    found = cache.get(key)
    if found is None:
        if len(cache) >= EXCHANGES_KEPT:
            cache.clear()
        found = cache[key] = key_path_exchange(network, links, terminals)
    return found


PATHS_KEPT = 500_000
"""Nodes' shortest paths a topology keeps for Kou's trees, counted in path entries (a node's
paths hold one per node; about 170 bytes each, measured on 2,000 nodes): 250 sources on 2,000
nodes, 10,000 on 50, about 85 MB at most."""


def _paths_from(network: Network, source: Node) -> tuple[dict, dict]:
    """``networkx.single_source_dijkstra(network.graph, source, weight=None)``, cached per
    topology (:func:`trees_of`; at most :data:`PATHS_KEPT` entries, the oldest dropped)."""
    cache = trees_of(network).paths
    found = cache.get(source)
    if found is None:
        found = cache[source] = nx.single_source_dijkstra(network.graph, source, weight=None)
        while len(cache) * len(network.nodes) > PATHS_KEPT:
            cache.popitem(last=False)
    return found


_BY_NETWORK: weakref.WeakKeyDictionary[Network, _Trees] = weakref.WeakKeyDictionary()
_BY_TOPOLOGY: OrderedDict[tuple, _Trees] = OrderedDict()


def topology_key(network: Network) -> tuple:
    """Every node in order with its neighbours in adjacency order: all this module reads of a
    network (trees depend on the topology and its orders, never on types, rates or latencies).

    >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0])})
    >>> topology_key(net)
    ((0, (1,)), (1, (0, 2)), (2, (1,)))
    >>> topology_key(net.with_rates({"A": 5.0})) == topology_key(net)
    True
    """
    adjacency = network.graph.adj
    return tuple((v, tuple(adjacency[v])) for v in network.nodes)


def trees_of(network: Network) -> _Trees:
    """The tree caches of ``network``'s topology, shared by every network with the same
    :func:`topology_key`.

    Choice: the planner plans on networks derived from one another (pattern variables as
    streams, changed rates: :meth:`~inev.topologies.network.Network.with_rates`), and a
    sweep's tasks plan the same topology again (Fig. 8's workload sizes on one network,
    Fig. 9's re-planning after rate swaps, Fig. 10b's 50 query orders); each used to
    compute every tree anew. The key holds everything the trees are computed from, so a
    shared tree is the tree a fresh computation gives. The last :data:`TOPOLOGIES_KEPT`
    topologies stay cached after their networks are gone, apart per :func:`_settings`.
    """
    found = _BY_NETWORK.get(network)
    if found is None:
        key = (_settings(), topology_key(network))
        found = _BY_TOPOLOGY.pop(key, None) or _Trees()
        _BY_TOPOLOGY[key] = found  # the most recent last
        while len(_BY_TOPOLOGY) > TOPOLOGIES_KEPT:
            _BY_TOPOLOGY.popitem(last=False)
        _BY_NETWORK[network] = found
    return found


def _settings() -> tuple[int, ...]:
    """The limits that choose how a tree is computed (tests lower them to reach other paths:
    their trees must not be shared with the defaults')."""
    from inev.topologies import network as topology

    return (
        EXACT_TERMINALS,
        EXACT_NODES,
        KOU_TERMINALS,
        KEY_PATH_LINKS,
        DENSE_UP_TO,
        topology.DENSE_UP_TO,
        topology.PYTHON_BFS_UP_TO,
    )


def steiner_links(network: Network, terminals: Iterable[Node]) -> frozenset[Link]:
    """The links of an approximate minimum Steiner tree spanning ``terminals`` (cached per
    topology: :func:`trees_of`)."""
    key = frozenset(terminals)
    cache = trees_of(network).links
    found = cache.get(key)
    if found is not None:
        return found
    if len(key) <= 1:
        result: frozenset[Link] = frozenset()
    elif len(key) == 2:
        a, b = sorted(key, key=network.node_index.__getitem__)
        result = frozenset(link(u, v) for u, v in network.path_links(a, b))
    elif len(key) <= EXACT_TERMINALS and len(network.nodes) <= EXACT_NODES:
        result = exact_steiner(network, key)
    else:
        result = _best_heuristic(network, key)
    cache[key] = result
    return result


EXACT_TERMINALS = 10
"""Terminal sets up to this size get an exact Steiner tree (on small enough networks)."""
EXACT_NODES = 300
"""Networks up to this many nodes get exact Steiner trees for small terminal sets."""
KOU_TERMINALS = 60
"""Kou's heuristic (all-pairs paths between terminals) is tried up to this many terminals."""
KEY_PATH_LINKS = 400
"""Trees of up to this many links get key-path exchange (each round searches the tree once per
key path, quadratic in its size). Takahashi–Matsuyama (:func:`path_heuristic`, quadratic in
the terminals through the hop matrix) runs on networks of up to
:data:`~inev.topologies.network.DENSE_UP_TO` nodes; larger ones keep Mehlhorn's construction
(linear in links and terminals) and Kou's for few terminals."""


def exact_steiner(network: Network, terminals: Iterable[Node]) -> frozenset[Link]:
    """A minimum Steiner tree (fewest links) by the Dreyfus–Wagner programme.

    dp[S][v] is the fewest links of a tree spanning the terminals S and node v: for a single
    terminal t it is hops(t, v); otherwise the cheapest split of S at some node u (two trees
    meeting at u) joined to v by a shortest path. The tree is rebuilt by following the
    recorded splits and paths; the union of those links is reduced to a tree by :func:`tidy`,
    which cannot make it larger than the optimum.

    >>> net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (1, 4)], {"A": (1.0, [0])})
    >>> sorted(exact_steiner(net, [0, 3, 4]))
    [(0, 1), (1, 2), (1, 4), (2, 3)]
    """
    index = network.node_index
    terms = sorted(set(terminals), key=index.__getitem__)
    k = len(terms)
    hops = network.hop_matrix.astype(np.float64)
    n = hops.shape[0]
    full = (1 << k) - 1
    dp = np.empty((1 << k, n))
    merge_at = np.zeros((1 << k, n), dtype=np.int64)  # the S1 of the best split at u
    via = np.zeros((1 << k, n), dtype=np.int64)  # the u that v is joined to
    for i, t in enumerate(terms):
        dp[1 << i] = hops[index[t]]
        via[1 << i] = index[t]
    columns = np.arange(n)
    for mask in range(1, full + 1):
        if mask & (mask - 1) == 0:
            continue
        subs = _splits(mask)
        merged = dp[subs] + dp[mask ^ subs]  # one row per split, one column per node
        pick = np.argmin(merged, axis=0)
        best = merged[pick, columns]
        joined = best[:, None] + hops
        via[mask] = np.argmin(joined, axis=0)
        dp[mask] = joined[via[mask], columns]
        merge_at[mask] = subs[pick]
    nodes = network.nodes
    links: set[Link] = set()

    def build(mask: int, v: int) -> None:
        u = int(via[mask, v])
        if u != v:
            links.update(link(a, b) for a, b in network.path_links(nodes[u], nodes[v]))
        if mask & (mask - 1) == 0:
            return
        part = int(merge_at[mask, u])
        build(part, u)
        build(mask ^ part, u)

    build(full, index[terms[0]])
    return tidy(network, links, terms)


@functools.lru_cache(maxsize=1 << 12)
def _splits(mask: int) -> np.ndarray:
    """The proper sub-masks of ``mask`` holding its lowest bit (each split counted once)."""
    low = mask & -mask
    out = []
    sub = (mask - 1) & mask
    while sub:
        if sub & low:
            out.append(sub)
        sub = (sub - 1) & mask
    return np.array(out, dtype=np.int64)


def path_heuristic(network: Network, terminals: Iterable[Node], start: Node) -> frozenset[Link]:
    """Takahashi–Matsuyama: grow a tree from ``start`` by the path to the nearest terminal."""
    index = network.node_index
    left = set(terminals) - {start}
    tree_nodes_: list[Node] = [start]
    links: set[Link] = set()
    hops = network.hop_matrix
    while left:
        rows = [index[n] for n in tree_nodes_]
        ordered = sorted(left, key=index.__getitem__)
        dist = hops[np.ix_(rows, [index[t] for t in ordered])]
        r, c = np.unravel_index(int(np.argmin(dist)), dist.shape)
        near, target = network.nodes[rows[r]], ordered[c]
        path = network.shortest_path(target, near)
        links.update(link(a, b) for a, b in itertools.pairwise(path))
        tree_nodes_.extend(n for n in path if n not in tree_nodes_)
        left -= set(path)
    return frozenset(links)


def tidy(network: Network, links: Iterable[Link], terminals: Iterable[Node]) -> frozenset[Link]:
    """A minimum spanning tree of the topology induced by the links' nodes, non-terminal
    leaves pruned: a tree over the same terminals with at most as many links.

    The tree is the one ``networkx.minimum_spanning_edges(G.subgraph(nodes), weight=None)``
    finds (Kruskal over the induced edges in the view's order, networkx 3's:
    :func:`_induced_edges`) without the view, whose filtered iteration took 0.77 s a tree on
    100,000 nodes; ``tests/test_steiner_tidy.py`` holds both equal, links listed in order.

    >>> ring = Network.build(range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0])})
    >>> sorted(tidy(ring, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], [0, 2]))
    [(0, 1), (1, 2)]
    """
    keep = set(terminals)
    nodes = tree_nodes(links, keep)
    parent: dict[Node, Node] = {}

    def root(v: Node) -> Node:
        while parent.get(v, v) != v:
            parent[v] = parent.get(parent[v], parent[v])  # path halving
            v = parent[v]
        return v

    adjacent: dict[Node, dict[Node, None]] = {}  # ordered as networkx's Graph of the tree
    for u, v in _induced_edges(network, nodes):
        ru, rv = root(u), root(v)
        if ru != rv:
            parent[rv] = ru
            adjacent.setdefault(u, {})[v] = None
            adjacent.setdefault(v, {})[u] = None
    for v in keep:
        adjacent.setdefault(v, {})
    return _pruned(adjacent, keep)


def _induced_edges(network: Network, nodes: set[Node]) -> Iterator[tuple[Node, Node]]:
    """The edges of ``network.graph.subgraph(nodes)`` in the order networkx 3 lists them: the
    view keeps ``set(n for n in nodes if n in G)`` and walks it (when it holds under half of
    the graph's nodes) or the graph's nodes, each node's neighbours in the graph's order, an
    edge once, from the end met first."""
    adj = network.graph._adj
    shown = set(n for n in nodes if n in adj)  # the view's set, built the same way
    walk = (
        (n for n in shown if n in adj)
        if 2 * len(shown) < len(adj)
        else (n for n in adj if n in shown)
    )
    seen: set[Node] = set()
    for n in walk:
        for nbr in adj[n]:
            if nbr in shown and nbr not in seen:
                yield n, nbr
        seen.add(n)


def _pruned(adjacent: dict[Node, dict[Node, None]], keep: set[Node]) -> frozenset[Link]:
    """The links of the forest ``adjacent`` left after removing leaves outside ``keep``
    until there are none (``adjacent`` is changed), built in the order networkx's
    ``Graph.edges()`` lists them: a frozenset's iteration order follows its insertion order,
    and the placements iterate the links, so the same set in another order would change
    plans."""
    leaves = [v for v, ns in adjacent.items() if len(ns) <= 1 and v not in keep]
    while leaves:
        v = leaves.pop()
        for u in adjacent.pop(v, ()):
            del adjacent[u][v]
            if len(adjacent[u]) <= 1 and u not in keep:
                leaves.append(u)
    seen: set[Node] = set()
    out = []
    for u, ns in adjacent.items():
        out.extend(link(u, v) for v in ns if v not in seen)
        seen.add(u)
    return frozenset(out)


def _best_heuristic(network: Network, terminals: frozenset[Node]) -> frozenset[Link]:
    """The fewest-link tree of the heuristics in the module docstring."""
    index = network.node_index
    ordered = sorted(terminals, key=index.__getitem__)
    methods = ["mehlhorn"] + (["kou"] if len(ordered) <= KOU_TERMINALS else [])
    found = []
    if len(network.nodes) > DENSE_UP_TO:  # networkx's versions cost seconds per tree there
        found.append(tidy(network, mehlhorn(network, ordered), ordered))
        if "kou" in methods:
            found.append(tidy(network, kou(network, ordered), ordered))
        methods = []
    for method in methods:
        if method == "kou":
            edges = kou_edges(network.graph, ordered, functools.partial(_paths_from, network))
        else:
            edges = mehlhorn_edges(network.graph, ordered)
        found.append(tidy(network, (link(u, v) for u, v in edges), ordered))
    if len(network.nodes) <= DENSE_UP_TO:
        for start in (ordered[0], ordered[len(ordered) // 2]):
            found.append(tidy(network, path_heuristic(network, ordered, start), ordered))
    found = [t if len(t) > KEY_PATH_LINKS else _exchanged(network, t, ordered) for t in found]
    return min(found, key=lambda t: (len(t), sorted(t, key=lambda e: (index[e[0]], index[e[1]]))))


def mehlhorn(network: Network, terminals: Iterable[Node]) -> frozenset[Link]:
    """Mehlhorn's 2-approximation on the sparse graph, in time linear in links (plus sorting).

    One search from all terminals at once splits the nodes into Voronoi regions (each node
    joins its nearest terminal); every link between two regions offers a path between their
    terminals of length d(u) + 1 + d(v); a minimum spanning tree over those offers (the
    shortest per pair of terminals, ties: the first link in network order) is expanded into
    the paths. Written with ``scipy.sparse.csgraph`` because networkx's version (the same
    construction) takes 0.65 s per tree on 10,000 nodes, this one a few milliseconds.

    >>> ring = Network.build(range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0])})
    >>> len(mehlhorn(ring, [0, 2, 4]))  # three terminals on a ring of six: four links
    4
    """
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import dijkstra, minimum_spanning_tree

    index, names = network.node_index, network.nodes
    rows = sorted({index[t] for t in terminals})
    if len(rows) < 2:
        return frozenset()
    dist, pred, src = dijkstra(  # the adjacency is symmetric: inev.topologies.breadth_first
        network._adjacency,
        directed=True,
        unweighted=True,
        indices=rows,
        min_only=True,
        return_predecessors=True,
    )
    found = trees_of(network)
    if found.ends is None:  # the same topology key: the same adjacency entries in order
        upper = network._adjacency.tocoo()
        keep = upper.row < upper.col
        found.ends = upper.row[keep].astype(np.int64), upper.col[keep].astype(np.int64)
    u, v = found.ends
    cross = src[u] != src[v]
    u, v = u[cross], v[cross]
    position = np.full(len(names), -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    a, b = position[src[u]], position[src[v]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    weight = dist[u] + dist[v] + 1.0
    order = np.lexsort((np.arange(len(u)), weight, hi, lo))
    first = np.ones(len(order), dtype=bool)
    first[1:] = (lo[order][1:] != lo[order][:-1]) | (hi[order][1:] != hi[order][:-1])
    pick = order[first]
    k = len(rows)
    offers = coo_array((weight[pick], (lo[pick], hi[pick])), shape=(k, k)).tocsr()
    tree = minimum_spanning_tree(offers).tocoo()
    bridge = {(int(x), int(y)): int(e) for x, y, e in zip(lo[pick], hi[pick], pick, strict=True)}
    links: set[Link] = set()
    for x, y in zip(tree.row, tree.col, strict=True):
        e = bridge[(min(int(x), int(y)), max(int(x), int(y)))]
        links.add(link(names[int(u[e])], names[int(v[e])]))
        for end in (int(u[e]), int(v[e])):
            while pred[end] >= 0:
                links.add(link(names[end], names[int(pred[end])]))
                end = int(pred[end])
    return frozenset(links)


def kou(network: Network, terminals: Iterable[Node]) -> frozenset[Link]:
    """Kou, Markowsky and Berman's 2-approximation (the one the INEv paper cites), on the sparse
    graph: a minimum spanning tree of the terminals' distance graph, each of its edges
    expanded into a shortest path (:func:`tidy` does the rest: the spanning tree of the union,
    leaves pruned).

    One breadth-first search per terminal with ``scipy.sparse.csgraph``: networkx's version
    keeps every shortest path from every terminal, which on a path of 20,000 nodes is 3 GB and
    45 s for 36 terminals; this one keeps a distance and a predecessor per node and terminal.

    >>> ring = Network.build(range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0])})
    >>> len(kou(ring, [0, 2, 4]))  # two of the ring's three two-hop paths
    4
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import dijkstra, minimum_spanning_tree

    index, names = network.node_index, network.nodes
    rows = sorted({index[t] for t in terminals})
    if len(rows) < 2:
        return frozenset()
    dist, pred = dijkstra(  # the adjacency is symmetric: inev.topologies.breadth_first
        network._adjacency,
        directed=True,
        unweighted=True,
        indices=rows,
        return_predecessors=True,
    )
    tree = minimum_spanning_tree(csr_array(dist[:, rows])).tocoo()
    links: set[Link] = set()
    for i, j in zip(tree.row, tree.col, strict=True):
        end = rows[int(j)]
        while end != rows[int(i)]:
            step = int(pred[int(i), end])
            links.add(link(names[end], names[step]))
            end = step
    return frozenset(links)


def steiner_size(network: Network, terminals: Iterable[Node]) -> int:
    """|ST(terminals, G_top)|: the number of links of the Steiner tree."""
    return len(steiner_links(network, terminals))


def tree_nodes(links: Iterable[Link], extra: Iterable[Node] = ()) -> set[Node]:
    """The nodes touched by ``links`` plus ``extra``."""
    nodes = set(extra)
    for u, v in links:
        nodes.add(u)
        nodes.add(v)
    return nodes


def attach(
    network: Network, terminals: Iterable[Node], node: Node
) -> tuple[frozenset[Link], Node, list[Node]]:
    """ST(terminals), the tree node nearest to ``node`` and the shortest path from ``node`` to it."""
    terms = frozenset(terminals)
    base = steiner_links(network, terms)
    cache = trees_of(network).nodes
    found = cache.get(terms)
    if found is None:
        index = network.node_index
        order = sorted(tree_nodes(base, terms), key=index.__getitem__)
        found = (frozenset(order), order, np.array([index[n] for n in order], dtype=np.intp))
        cache[terms] = found
    nodes, order, cols = found
    if not nodes or node in nodes:
        return base, node, [node]
    row = network.hops_row(node)[cols]
    nearest = order[int(np.argmin(row))]
    return base, nearest, network.shortest_path(node, nearest)


def tree_with(network: Network, terminals: Iterable[Node], node: Node) -> frozenset[Link]:
    """A tree spanning ``terminals`` and ``node``: ST(terminals) plus a shortest path to ``node``."""
    base, _, path = attach(network, terminals, node)
    return base | frozenset(link(u, v) for u, v in itertools.pairwise(path))


def bfs(links: Iterable[Link], source: Node) -> dict[Node, int]:
    """Hop distances from ``source`` within the graph made of ``links`` (plain BFS)."""
    adjacency: dict[Node, list[Node]] = {}
    for u, v in links:
        adjacency.setdefault(u, []).append(v)
        adjacency.setdefault(v, []).append(u)
    dist = {source: 0}
    frontier = [source]
    while frontier:
        nxt = []
        for u in frontier:
            du = dist[u] + 1
            for w in adjacency.get(u, ()):
                if w not in dist:
                    dist[w] = du
                    nxt.append(w)
        frontier = nxt
    return dist
