"""Where a drawing puts the nodes: the network file's positions, else a seeded layout.

Up to :data:`SPRING_UP_TO` nodes the layout is networkx's spring layout (Fruchterman-
Reingold) with a fixed seed, as before. Above it that layout takes most of a large drawing's
time (7.7 of the 10.5 s of ``inev draw`` on a 2,000-node plan, profiled) and still tangles,
so the nodes are first grouped into communities (:func:`communities`, Louvain with a fixed
seed); the graph of the communities (one node each, links weighted by the links between
them) is laid out by the spring layout, and each community's own nodes by a spring layout
of their own, scaled by the square root of its size and placed at its community's position.
Each part is small, so the whole is a few hundred milliseconds at 2,000 nodes
(``benchmarks/bench_drawing.py`` prints the times), and the communities come out as
clusters, which is also what the grouped drawing (:mod:`inev.experiments.scene_scale`)
shows.

>>> where = layout([0, 1, 2], [(0, 1), (1, 2)], {"0": [0, 0], "1": [1, 0], "2": [2, 1]})
>>> where[2]
(2.0, 1.0)
>>> sorted(len(c) for c in communities(range(8), [(i, i + 1) for i in range(7)] + [(7, 0)]))
[2, 3, 3]
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

Node = Hashable
Link = tuple[Node, Node]

SPRING_UP_TO = 500
"""Largest network laid out in one spring layout."""


def layout(
    nodes: Sequence[Node], links: Sequence[Link], positions: Mapping[str, Any] | None = None
) -> dict[Node, tuple[float, float]]:
    """Deterministic node positions: the given ones (keyed by ``str(node)``) when every node
    has one, else a seeded layout (module docstring); spring layouts are scaled into
    [-1, 1]."""
    if positions:
        out = {}
        for n in nodes:
            xy = positions.get(str(n))
            if xy is None:
                break
            out[n] = (float(xy[0]), float(xy[1]))
        else:
            return out
    if len(nodes) <= SPRING_UP_TO:
        return _spring(nodes, links, iterations=100)
    return _grouped(nodes, links, communities(nodes, links))


def _spring(
    nodes: Sequence[Node],
    links: Sequence[Link],
    iterations: int,
    weights: Mapping[Link, float] | None = None,
) -> dict[Node, tuple[float, float]]:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for u, v in links:
        graph.add_edge(u, v, weight=(weights or {}).get((u, v), 1.0))
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    spring = nx.spring_layout(graph, seed=1, iterations=iterations, weight="weight")
    return {n: (float(spring[n][0]), float(spring[n][1])) for n in nodes}


def communities(nodes: Sequence[Node], links: Sequence[Link]) -> list[list[Node]]:
    """The nodes in communities (Louvain, seed 1), each in node order, the communities in
    the order of their first node; deterministic."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(links)
    found = nx.community.louvain_communities(graph, seed=1)
    rank = {n: i for i, n in enumerate(nodes)}
    groups = [sorted(c, key=rank.__getitem__) for c in found]
    return sorted(groups, key=lambda g: rank[g[0]])


def _grouped(
    nodes: Sequence[Node], links: Sequence[Link], groups: list[list[Node]]
) -> dict[Node, tuple[float, float]]:
    """The communities' graph laid out, then each community inside a disc at its place."""
    group_of = {n: g for g, members in enumerate(groups) for n in members}
    between: dict[Link, float] = {}
    inside: dict[int, list[Link]] = {}
    for u, v in links:
        a, b = group_of[u], group_of[v]
        if a == b:
            inside.setdefault(a, []).append((u, v))
        else:
            key = (min(a, b), max(a, b))
            between[key] = between.get(key, 0.0) + 1.0
    centres = _spring(list(range(len(groups))), list(between), 200, between)
    largest = max(len(g) for g in groups)
    out: dict[Node, tuple[float, float]] = {}
    for g, members in enumerate(groups):
        own = _spring(members, inside.get(g, []), iterations=60)
        scale = 0.9 * math.sqrt(len(members) / largest) / math.sqrt(len(groups))
        cx, cy = centres[g]
        for n in members:
            x, y = own[n]
            out[n] = (cx + scale * x, cy + scale * y)
    return out
