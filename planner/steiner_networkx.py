"""networkx's Steiner trees (Kou et al., Mehlhorn), link for link, on plain dicts.

:func:`~inev.planner.steiner.steiner_links` takes, on networks of up to
:data:`~inev.topologies.network.DENSE_UP_TO` nodes, the best of several heuristic trees, two of
them ``networkx.algorithms.approximation.steiner_tree(G, terminals, weight=None, method=...)``
with ``"kou"`` and ``"mehlhorn"``. The regional site search (:mod:`inev.planner.site_search`)
prices hundreds of trees over overlapping terminal sets on one topology, and networkx spent
most of that time building graphs and filtered views (``Graph.add_edge``, ``edge_subgraph``,
``copy``) and, for Kou, repeating a shortest-path search from every terminal for every tree.

:func:`kou_edges` and :func:`mehlhorn_edges` follow networkx 3's constructions step for step,
with dicts in place of graphs and views. Every iteration order networkx depends on is kept:
a graph's nodes and neighbours in insertion order, a filtered view's nodes in the order of the
set networkx builds (made here by the same operations, so Python iterates it the same way),
Kruskal's stable sort. The links come out in the order ``steiner_tree(...).edges()`` lists
them, which matters: the planner's clean-up reads them in that order, and a tree with the same
links in another order can change a plan. Kou's search from a terminal comes from
``paths_from`` (the caller caches it per topology); the other searches are networkx's own
calls. ``tests/test_steiner_networkx.py`` holds both equal to networkx, in order, on random
graphs with int and str nodes. Measured on bench_plan_quality's #9 (50 nodes, where the site
search prices 1,701 site sets), CPU of the whole plan: 9.5 s with networkx, 6.5 s with Kou's
searches cached, 4.2 s with the dicts.

>>> import networkx as nx
>>> ring = nx.cycle_graph(6)
>>> paths_from = lambda u: nx.single_source_dijkstra(ring, u, weight=None)
>>> len(kou_edges(ring, [0, 2, 4], paths_from))  # three terminals two hops apart: four links
4
>>> len(mehlhorn_edges(ring, [0, 2, 4]))
4
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from itertools import chain, pairwise

import networkx as nx

Node = Hashable
Adjacency = dict[Node, dict[Node, object]]
"""A graph as networkx keeps it: each node's neighbours (with a value) in insertion order."""
PathsFrom = Callable[[Node], tuple[dict, dict]]
"""A node's ``(distances, paths)`` as ``networkx.single_source_dijkstra(G, node,
weight=None)`` returns them."""


def kou_edges(graph: nx.Graph, terminals: Iterable[Node], paths_from: PathsFrom) -> list:
    """The links of ``steiner_tree(graph, terminals, weight=None, method="kou")``, in the
    order its ``edges()`` lists them.

    Parameters
    ----------
    graph : networkx.Graph
        A connected undirected graph (its ``"weight"`` attributes, if any, count as networkx
        counts them: in the last spanning tree only).
    terminals : iterable of nodes
        The nodes to span, in the order networkx would be given them.
    paths_from : callable
        A node's ``(distances, paths)`` from ``networkx.single_source_dijkstra`` with
        ``weight=None`` (or the same values from a cache).

    Returns
    -------
    list of tuple
        The tree's links.

    Examples
    --------
    >>> path = nx.path_graph(5)
    >>> kou_edges(path, [0, 4], lambda u: nx.single_source_dijkstra(path, u, weight=None))
    [(0, 1), (1, 2), (2, 3), (3, 4)]
    """
    terminals = list(terminals)
    metric: Adjacency = {}
    unvisited = set(terminals)
    first = unvisited.pop()
    distances, paths = paths_from(first)
    if len(graph) != len(distances):
        raise nx.NetworkXError("G is not a connected graph.")
    for v in unvisited:
        _add(metric, first, v, (distances[v], paths[v]))
    for u in unvisited.copy():
        distances, paths = paths_from(u)
        unvisited.remove(u)
        for v in unvisited:
            _add(metric, u, v, (distances[v], paths[v]))
    metric_tree = _kruskal(_edges(metric), lambda u, v: metric[u][v][0])
    union = chain.from_iterable(pairwise(metric[u][v][1]) for u, v in metric_tree)
    adj = graph._adj
    spanning = _kruskal(_view_edges(adj, union), lambda u, v: adj[u][v].get("weight", 1))
    return _finished(adj, spanning, terminals)


def mehlhorn_edges(graph: nx.Graph, terminals: Iterable[Node]) -> list:
    """The links of ``steiner_tree(graph, terminals, weight=None, method="mehlhorn")``, in
    the order its ``edges()`` lists them.

    Parameters
    ----------
    graph : networkx.Graph
        A connected undirected graph (unit weights).
    terminals : iterable of nodes
        The nodes to span, in the order networkx would be given them.

    Returns
    -------
    list of tuple
        The tree's links.

    Examples
    --------
    >>> mehlhorn_edges(nx.path_graph(5), [0, 4])
    [(0, 1), (1, 2), (2, 3), (3, 4)]
    """
    terminals = list(terminals)
    distances, paths = nx.multi_source_dijkstra(graph, terminals, weight=None)
    nearest = {v: paths[v][0] for v in graph}
    offers: Adjacency = {}
    for u, v in _edges(graph._adj):
        su, sv = nearest[u], nearest[v]
        here = distances[u] + 1 + distances[v]
        old = offers.get(su, {}).get(sv)
        _add(offers, su, sv, here if old is None else min(here, old))
    joined: Adjacency = {}
    for u, v in _kruskal(_edges(offers), lambda u, v: offers[u][v]):
        for a, b in pairwise(nx.shortest_path(graph, u, v, weight=None)):
            _add(joined, a, b, None)
    spanning = _kruskal(_edges(joined), lambda u, v: 1)
    return _finished(graph._adj, spanning, terminals)


def _add(adj: Adjacency, u: Node, v: Node, value: object) -> None:
    """``Graph.add_edge(u, v)`` with ``value`` as the edge's data (replaced if present)."""
    adj.setdefault(u, {})
    adj.setdefault(v, {})
    adj[u][v] = value
    adj[v][u] = value


def _edges(adj: Adjacency) -> Iterator[tuple[Node, Node]]:
    """``Graph.edges()``: each edge once, from the end met first."""
    seen: set[Node] = set()
    for n, nbrs in adj.items():
        for m in nbrs:
            if m not in seen:
                yield n, m
        seen.add(n)


def _kruskal(
    edges: Iterable[tuple[Node, Node]], weight: Callable[[Node, Node], float]
) -> list[tuple[Node, Node]]:
    """``nx.minimum_spanning_edges(..., algorithm="kruskal", data=False)``: the edges stably
    sorted by weight, each kept when it joins two components."""
    ordered = sorted(((weight(u, v), u, v) for u, v in edges), key=lambda e: e[0])
    parent: dict[Node, Node] = {}

    def root(v: Node) -> Node:
        while parent.get(v, v) != v:
            parent[v] = parent.get(parent[v], parent[v])
            v = parent[v]
        return v

    out = []
    for _, u, v in ordered:
        ru, rv = root(u), root(v)
        if ru != rv:
            parent[rv] = ru
            out.append((u, v))
    return out


def _view(adj: Adjacency, edges: Iterable[tuple[Node, Node]]) -> tuple[list, dict]:
    """``nx.edge_subgraph(G, edges)`` as networkx 3 iterates it: its nodes in order and each
    node's neighbours in order (the sets built as networkx builds them)."""
    edges = set(edges)
    nodes: set[Node] = set()
    for e in edges:
        nodes.update(e[:2])
    shown = set(nodes)  # show_nodes keeps a copy
    both = set(edges) | {(v, u) for (u, v) in edges}
    if 2 * len(shown) < len(adj):
        order = [n for n in shown if n in adj]
    else:
        order = [n for n in adj if n in shown]
    nbrs = {n: [m for m in adj[n] if m in shown and (n, m) in both] for n in order}
    return order, nbrs


def _view_edges(adj: Adjacency, edges: Iterable[tuple[Node, Node]]) -> list:
    """``nx.edge_subgraph(G, edges).edges()``."""
    order, nbrs = _view(adj, edges)
    return list(_edges({n: dict.fromkeys(nbrs[n]) for n in order}))


def _finished(adj: Adjacency, spanning: list, terminals: list) -> list:
    """networkx's last steps: ``G.edge_subgraph(spanning).copy()``, non-terminal leaves
    removed, and ``G.edge_subgraph`` of the remaining edges (what ``steiner_tree`` returns)."""
    order, nbrs = _view(adj, spanning)
    tree: Adjacency = {n: {} for n in order}
    for u in order:
        for v in nbrs[u]:
            tree[u][v] = None
            tree[v][u] = None
    keep = set(terminals)
    leaves = [n for n, ns in tree.items() if len(ns) == 1 and n not in keep]
    while leaves:
        n = leaves.pop()
        for m in tree.pop(n):
            del tree[m][n]
            if len(tree[m]) == 1 and m not in keep:
                leaves.append(m)
    return _view_edges(adj, _edges(tree))
