"""Key-path exchange: the clean-up that shortens a Steiner tree's key paths (INEv paper §6.1's
``ST`` heuristics, :mod:`inev.planner.steiner`).

Key nodes are a tree's terminals and its nodes of degree 3 or more; a key path joins two key
nodes through nodes of degree 2 only. :func:`key_path_exchange` replaces a key path by a
shorter connection between the two parts its removal leaves, while there is one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import networkx as nx

from inev.planner.inev_graph import Link, Node, link
from inev.topologies.network import Network


def key_path_exchange(
    network: Network, links: Iterable[Link], terminals: Iterable[Node]
) -> frozenset[Link]:
    """Key-path improvement of a Steiner tree: while some key path is longer than the
    shortest path between the two components its removal leaves, swap them.

    Key nodes are the terminals and the tree's nodes of degree 3 or more; a key path joins two
    key nodes through nodes of degree 2 only. The result spans the same terminals with at most
    as many links.

    >>> ring = Network.build(range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0])})
    >>> sorted(key_path_exchange(ring, [(0, 1), (1, 2), (2, 3), (3, 4)], [0, 4]))
    [(0, 5), (4, 5)]
    """
    keep = set(terminals)
    tree = nx.Graph(list(links))
    tree.add_nodes_from(keep)
    improved = True
    while improved:
        improved = False
        neighbours = {v: tuple(tree.adj[v]) for v in tree}  # plain lists: read per key path
        for path in _key_paths(tree, keep):
            if len(path) == 2:  # longest first: only one-link paths are left, and no bridge
                break  # between two disjoint parts has fewer than one link
            parts = _parts_without(neighbours, path)
            if len(parts) != 2:
                continue
            # only a bridge of fewer links than the path's helps: the search stops there
            bridge = _shortest_between(network, parts[0], parts[1], len(path) - 2)
            if bridge is not None:
                trial = tree.copy()  # the exchange: only now is the tree copied
                trial.remove_edges_from(itertools.pairwise(path))
                trial.remove_nodes_from(path[1:-1])
                trial.add_edges_from(itertools.pairwise(bridge))
                tree = trial
                improved = True
                break
    return frozenset(link(u, v) for u, v in tree.edges())


def _parts_without(neighbours: dict[Node, tuple[Node, ...]], path: list[Node]) -> list[set[Node]]:
    """The connected components of a tree (``neighbours``: each node's, in the tree's orders)
    without ``path``'s links and inner nodes, in the order ``nx.connected_components`` lists
    them on such a copy of the tree (by the tree's node order), at most three: read on the tree
    itself, so that no copy is made per key path (the copies were a quarter of Fig. 8c's
    planning time). ``path`` has at least two links (the exchange never asks for a one-link
    path), so each of its links touches an inner node and dropping those drops the links."""
    inner = set(path[1:-1])
    parts: list[set[Node]] = []
    seen: set[Node] = set()
    for start in neighbours:
        if start in seen or start in inner:
            continue
        part = {start}
        frontier = [start]
        while frontier:
            u = frontier.pop()
            for w in neighbours[u]:
                if w not in part and w not in inner:
                    part.add(w)
                    frontier.append(w)
        parts.append(part)
        seen |= part
        if len(parts) > 2:
            break
    return parts


def _key_paths(tree: nx.Graph, terminals: set[Node]) -> list[list[Node]]:
    """The tree's key paths, longest first."""
    key = {v for v in tree if v in terminals or tree.degree(v) >= 3}
    paths, seen = [], set()
    for start in key:
        for first in tree.neighbors(start):
            path = [start, first]
            while path[-1] not in key:
                nxt = next(w for w in tree.neighbors(path[-1]) if w != path[-2])
                path.append(nxt)
            edge_set = frozenset(frozenset(e) for e in itertools.pairwise(path))
            if edge_set not in seen:
                seen.add(edge_set)
                paths.append(path)
    paths.sort(key=lambda p: (-len(p), [str(v) for v in p]))
    return paths


def _shortest_between(
    network: Network, one: set[Node], other: set[Node], within: float = math.inf
) -> list[Node] | None:
    """A fewest-hop path from a node of ``one`` to a node of ``other`` (multi-source BFS),
    None when there is none of at most ``within`` links.

    The bound only stops the search early: a path it returns is the one the unbounded search
    returns (the same levels in the same order), so the exchange, which wants only bridges
    shorter than the key path, asks for no more (a quarter of the site search's trees'
    time on bench_plan_quality's #9 went to searches past that length)."""
    parent: dict[Node, Node | None] = dict.fromkeys(one)
    frontier = sorted(one, key=network.node_index.__getitem__)
    graph = network.graph
    depth = 0
    while frontier and depth < within:
        depth += 1
        nxt = []
        for u in frontier:
            for w in graph.neighbors(u):
                if w in parent:
                    continue
                parent[w] = u
                if w in other:
                    path = [w]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])
                    return path
                nxt.append(w)
        frontier = nxt
    return None
