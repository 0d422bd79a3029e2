"""Minimum Steiner trees of every node subset of a small network, as one lookup table.

The exact planner (:mod:`inev.planner.exact_search`) prices a vertex by the fewest links of
a tree joining its node and its consumers' nodes, for thousands of terminal sets. On a
network of up to :data:`TABLE_NODES` nodes one table answers all of them in O(1):

* a tree with k links spans k + 1 nodes, so the fewest links spanning a terminal set S is
  ``min |U| − 1`` over the node sets U ⊇ S that induce a *connected* sub-graph (a spanning
  tree of such a U has |U| − 1 links; conversely the nodes of any tree spanning S are such a
  U);
* which of the 2^n node sets are connected follows size by size: U (|U| ≥ 2) is connected
  iff some v ∈ U has U \\ {v} connected and a neighbour in it (every connected graph has a
  node whose removal leaves it connected: a leaf of a spanning tree);
* ``min`` over supersets is a superset-minimum transform, one pass per node over the
  2^n table (numpy), keeping the minimising U for rebuilding the tree.

Time and memory are O(n · 2^n): about 0.1 s for 16 nodes. The tree itself (:meth:`SteinerTable.links`)
is a breadth-first spanning tree of the minimising U (from its first node in network order).

>>> from inev.topologies.network import Network
>>> net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (1, 4)], {"A": (1.0, [0])})
>>> table = SteinerTable.of(net)
>>> table.size(table.mask([0, 3, 4]))
4
>>> sorted(table.links(table.mask([0, 3, 4])))
[(0, 1), (1, 2), (1, 4), (2, 3)]
>>> table.size(table.mask([2]))
0
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable

import numpy as np

from inev.planner.inev_graph import Link, Node, link
from inev.topologies.network import Network

TABLE_NODES = 18
"""The largest network the table is built for (2^18 entries of 5 bytes: 1.3 MB)."""

_TABLES: weakref.WeakKeyDictionary[Network, SteinerTable] = weakref.WeakKeyDictionary()


class SteinerTable:
    """Fewest links of a tree spanning each node subset of one network (see module docstring).

    Node sets are bit masks over the network's node order (:meth:`mask`).
    """

    def __init__(self, network: Network) -> None:
        n = len(network.nodes)
        if n > TABLE_NODES:
            raise ValueError(f"a Steiner table needs at most {TABLE_NODES} nodes, got {n}")
        self.network = network
        self.bit = {node: 1 << i for i, node in enumerate(network.nodes)}
        self._sizes, self._spans = _superset_minimum(_neighbour_masks(network), n)
        self.sizes: bytes = self._sizes.tobytes()
        """``sizes[mask]``: the fewest links spanning ``mask`` (fast scalar lookup)."""

    @classmethod
    def of(cls, network: Network) -> SteinerTable:
        """The table of ``network`` (built once per network object)."""
        found = _TABLES.get(network)
        if found is None:
            found = _TABLES[network] = cls(network)
        return found

    def mask(self, nodes: Iterable[Node]) -> int:
        """The bit mask of a node set."""
        out = 0
        for node in nodes:
            out |= self.bit[node]
        return out

    def size(self, mask: int) -> int:
        """|ST(mask)|: the fewest links of a tree spanning the nodes of ``mask``."""
        return self.sizes[mask]

    def links(self, mask: int) -> frozenset[Link]:
        """The links of a minimum tree spanning ``mask`` (a breadth-first tree of the smallest
        connected node set holding it)."""
        span = int(self._spans[mask])
        nodes = self.network.nodes
        members = [i for i in range(len(nodes)) if span >> i & 1]
        if len(members) <= 1:
            return frozenset()
        neighbours = self.network.graph
        inside = {nodes[i] for i in members}
        start = nodes[members[0]]
        seen, frontier, out = {start}, [start], set()
        while frontier:
            nxt = []
            for u in frontier:
                for v in sorted(neighbours[u], key=self.network.node_index.__getitem__):
                    if v in inside and v not in seen:
                        seen.add(v)
                        out.add(link(u, v))
                        nxt.append(v)
            frontier = nxt
        return frozenset(out)


def _neighbour_masks(network: Network) -> list[int]:
    index = network.node_index
    out = [0] * len(network.nodes)
    for u, v, _ in network.links:
        out[index[u]] |= 1 << index[v]
        out[index[v]] |= 1 << index[u]
    return out


def _superset_minimum(adjacent: list[int], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sizes, spans)``: per mask S the least |U| − 1 over connected U ⊇ S, and that U."""
    total = 1 << n
    masks = np.arange(total, dtype=np.int64)
    count = np.zeros(total, dtype=np.int64)
    for i in range(n):
        count += (masks >> i) & 1
    connected = np.zeros(total, dtype=bool)
    connected[count == 1] = True
    adj = np.asarray(adjacent, dtype=np.int64)
    for size in range(2, n + 1):
        layer = masks[count == size]
        ok = np.zeros(len(layer), dtype=bool)
        for v in range(n):
            rest = layer & ~np.int64(1 << v)
            ok |= (((layer >> v) & 1) == 1) & connected[rest] & ((adj[v] & rest) != 0)
        connected[layer] = ok
    big = 255
    sizes = np.where(connected, count - 1, big).astype(np.int64)
    sizes[0] = 0
    spans = np.where(connected, masks, 0).astype(np.int64)
    spans[0] = 0
    for v in range(n):
        low = 1 << v
        shaped = sizes.reshape(-1, 2, low)
        shaped_spans = spans.reshape(-1, 2, low)
        better = shaped[:, 1, :] < shaped[:, 0, :]
        shaped[:, 0, :] = np.where(better, shaped[:, 1, :], shaped[:, 0, :])
        shaped_spans[:, 0, :] = np.where(better, shaped_spans[:, 1, :], shaped_spans[:, 0, :])
    return sizes.astype(np.uint8), spans.astype(np.int32)
