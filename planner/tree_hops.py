"""Hop distances inside the forwarding graphs of a placement (``Vertex.hops``, INEv §6.4).

A forwarding graph is a tree: the shared Steiner tree, the path joining the vertex to it, and
paths to single-node consumers. :func:`tree_hops` searches each shared tree once per joining
node (:class:`TreeHops`) and walks only the vertex's own paths.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from inev.planner.forwarding_graphs import Reach
from inev.planner.inev_graph import Link, Node, link
from inev.planner.steiner import bfs

_PYTHON_TREE_UP_TO = 200
_MAX_TREE_ROWS = 512
"""Distance rows kept per placement (a row holds one int per node of its tree)."""


class TreeHops:
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
                # the pairs hold both directions: searched as directed, no transpose added
                found = dijkstra(pairs[0], directed=True, unweighted=True, indices=start)
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


def tree_hops(
    reach: Reach,
    tree_id: int | None,
    node: Node,
    destinations: tuple[Node, ...],
    trees: TreeHops,
) -> tuple[int, ...]:
    """Hops from ``node`` to each destination inside the vertex's forwarding graph.

    The graph is a tree: the shared Steiner tree, the path joining the vertex to it, and paths
    to single-node consumers, each joined to the graph at its nearest node. So a search over
    the shared tree from the joining node is done once per tree and joining node (cached),
    the path adds its length, and the consumers' paths are walked per vertex only when a
    destination lies beyond the path and the tree. A centralized plan's vertices send along
    their path alone: on the 100,000-node scale instance walks that found nothing were 7 %
    of the profile, and skipping them took the plan's user CPU from 98.6 to 95.7 s and from
    111.9 to 107.1 s in two side-by-side runs, for the same plan file. Without the shared
    searches every vertex searched its own copy of the tree (quadratic on large networks).
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
    for i in missing:
        values[i] = known(destinations[i])
    if any(d is None for d in values):  # beyond the path and the tree: the own links
        found = _own_link_hops(reach, path, known)
        for i in missing:
            if values[i] is None:
                values[i] = found.get(destinations[i])
        if any(d is None for d in values):  # not a tree after all: search it
            dist = bfs(reach.links, node)
            return tuple(dist[x] for x in destinations)
    return tuple(values)


def _shared_tree_hops(
    reach: Reach,
    tree_id: int | None,
    path: tuple[Node, ...],
    destinations: tuple[Node, ...],
    trees: TreeHops,
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
    reach: Reach, path: tuple[Node, ...], known: Callable[[Node], int | None]
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
