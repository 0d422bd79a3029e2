"""Kou, Markowsky and Berman's Steiner tree as networkx builds it, on cached shortest paths.

:func:`~inev.planner.steiner.steiner_links` takes, on networks of up to
:data:`~inev.topologies.network.DENSE_UP_TO` nodes, the best of several heuristic trees, one of
them ``networkx.algorithms.approximation.steiner_tree(G, terminals, weight=None,
method="kou")``. networkx runs a shortest-path search from every terminal for every tree; the
regional site search (:mod:`inev.planner.site_search`) prices hundreds of trees over
overlapping terminal sets on one topology, so the same searches ran again and again (about half
of Kou's time on bench_plan_quality's #9). :func:`kou_edges` follows networkx 3's
``_kou_steiner_tree`` step for step, with the same data structures and therefore the same
iteration orders and ties, and takes each terminal's search from ``paths_from`` (which the
caller caches per topology). ``tests/test_kou_networkx.py`` holds its edges equal to networkx's,
in order, on random graphs.

>>> import networkx as nx
>>> ring = nx.cycle_graph(6)
>>> paths_from = lambda u: nx.single_source_dijkstra(ring, u, weight=None)
>>> len(kou_edges(ring, [0, 2, 4], paths_from))  # three terminals two hops apart: four links
4
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from itertools import chain, pairwise

import networkx as nx

PathsFrom = Callable[[Hashable], tuple[dict, dict]]
"""A node's ``(distances, paths)`` as ``networkx.single_source_dijkstra(G, node,
weight=None)`` returns them."""


def kou_edges(
    graph: nx.Graph, terminals: Iterable[Hashable], paths_from: PathsFrom
) -> list[tuple[Hashable, Hashable]]:
    """The edges of networkx's Kou tree spanning ``terminals`` in ``graph`` (unit weights), in
    the order ``steiner_tree(graph, terminals, weight=None, method="kou").edges()`` lists them.

    Parameters
    ----------
    graph : networkx.Graph
        A connected undirected graph without edge weights.
    terminals : iterable of nodes
        The nodes to span, in the order networkx would be given them.
    paths_from : callable
        A node's ``(distances, paths)`` from ``networkx.single_source_dijkstra`` with
        ``weight=None`` (or the same values from a cache).

    Returns
    -------
    list of tuple
        The tree's edges.

    Examples
    --------
    >>> path = nx.path_graph(5)
    >>> kou_edges(path, [0, 4], lambda u: nx.single_source_dijkstra(path, u, weight=None))
    [(0, 1), (1, 2), (2, 3), (3, 4)]
    """
    metric = nx.Graph()
    unvisited = set(terminals)
    first = unvisited.pop()
    distances, paths = paths_from(first)
    if len(graph) != len(distances):
        raise nx.NetworkXError("G is not a connected graph.")
    for v in unvisited:
        metric.add_edge(first, v, distance=distances[v], path=paths[v])
    for u in unvisited.copy():
        distances, paths = paths_from(u)
        unvisited.remove(u)
        for v in unvisited:
            metric.add_edge(u, v, distance=distances[v], path=paths[v])
    mst = nx.minimum_spanning_edges(metric, weight="distance", data=True)
    union = chain.from_iterable(pairwise(d["path"]) for _, _, d in mst)
    spanning = nx.minimum_spanning_edges(graph.edge_subgraph(union), weight="weight", data=False)
    tree = graph.edge_subgraph(spanning).copy()
    _remove_nonterminal_leaves(tree, set(terminals))
    return list(graph.edge_subgraph(tree.edges()).edges())


def _remove_nonterminal_leaves(tree: nx.Graph, terminals: set[Hashable]) -> None:
    """Remove leaves outside ``terminals`` until there are none, in networkx's rounds."""
    leaves = {n for n in tree if len(set(tree[n]) - {n}) == 1}
    dropped = leaves - terminals
    while dropped:
        candidates = set.union(*(set(tree[n]) for n in dropped)) - (dropped | terminals)
        tree.remove_nodes_from(dropped)
        leaves = {n for n in candidates if len(set(tree[n]) - {n}) == 1}
        dropped = leaves - terminals
