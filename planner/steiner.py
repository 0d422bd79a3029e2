"""Steiner trees for forwarding graphs (INEv paper §6.1, §6.4, Eq. 1).

``ST(N', G_top)`` is approximated with networkx's Mehlhorn heuristic
(``networkx.algorithms.approximation.steiner_tree(method="mehlhorn")``, a 2-approximation
based on minimum spanning trees, like the Kou et al. heuristic the paper cites), computed on
the hop-count topology and cached per network and terminal set.

Alg. 2 needs ``ST(Successors[i] ∪ {n})`` for every source n of an input i. Rather than one
Steiner tree per source (hundreds on large networks), :func:`tree_with` builds
``ST(Successors[i])`` once and attaches n along a shortest path to the nearest tree node
(one step of the Takahashi–Matsuyama heuristic); the result is a tree spanning
``Successors[i] ∪ {n}`` with at most |ST(Successors[i])| + d(n, tree) links. This choice is
ours; it keeps Alg. 2 linear in the number of sources.

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0, 3])})
>>> sorted(steiner_links(net, [0, 3]))
[(0, 1), (1, 2), (2, 3)]
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterable

import numpy as np
from networkx.algorithms.approximation import steiner_tree

from inev.planner.plan import Link, Node, link
from inev.topologies.network import Network

_CACHE: weakref.WeakKeyDictionary[Network, dict[frozenset, frozenset[Link]]] = (
    weakref.WeakKeyDictionary()
)


def steiner_links(network: Network, terminals: Iterable[Node]) -> frozenset[Link]:
    """The links of an approximate minimum Steiner tree spanning ``terminals`` (cached)."""
    key = frozenset(terminals)
    cache = _CACHE.setdefault(network, {})
    found = cache.get(key)
    if found is not None:
        return found
    if len(key) <= 1:
        result: frozenset[Link] = frozenset()
    elif len(key) == 2:
        a, b = sorted(key, key=network.node_index.__getitem__)
        result = frozenset(link(u, v) for u, v in network.path_links(a, b))
    else:
        tree = steiner_tree(network.graph, list(key), weight=None, method="mehlhorn")
        result = frozenset(link(u, v) for u, v in tree.edges())
    cache[key] = result
    return result


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
    cache = _NODES.setdefault(network, {})
    found = cache.get(terms)
    if found is None:
        index = network.node_index
        order = sorted(tree_nodes(base, terms), key=index.__getitem__)
        found = (frozenset(order), order, np.array([index[n] for n in order], dtype=np.intp))
        cache[terms] = found
    nodes, order, cols = found
    if not nodes or node in nodes:
        return base, node, [node]
    row = network.hop_matrix[network.node_index[node], cols]
    nearest = order[int(np.argmin(row))]
    return base, nearest, network.shortest_path(node, nearest)


def tree_with(network: Network, terminals: Iterable[Node], node: Node) -> frozenset[Link]:
    """A tree spanning ``terminals`` and ``node``: ST(terminals) plus a shortest path to ``node``."""
    base, _, path = attach(network, terminals, node)
    return base | frozenset(link(u, v) for u, v in itertools.pairwise(path))


_NODES: weakref.WeakKeyDictionary[Network, dict[frozenset, tuple]] = weakref.WeakKeyDictionary()
_BFS: weakref.WeakKeyDictionary[Network, dict[tuple[frozenset, Node], dict[Node, int]]] = (
    weakref.WeakKeyDictionary()
)


def tree_distances(network: Network, terminals: Iterable[Node], node: Node) -> dict[Node, int]:
    """Hop distances from ``node`` inside :func:`tree_with` to every node of the tree.

    The breadth-first search runs once per Steiner tree and attachment node (cached), so the
    many sources of one type that share a tree cost one search each at most.
    """
    terms = frozenset(terminals)
    base, nearest, path = attach(network, terms, node)
    cache = _BFS.setdefault(network, {})
    key = (terms, nearest)
    found = cache.get(key)
    if found is None:
        found = bfs(base, nearest)
        cache[key] = found
    offset = len(path) - 1
    out = {n: d + offset for n, d in found.items()}
    for i, n in enumerate(path):
        out[n] = min(out.get(n, i), i)
    return out


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
