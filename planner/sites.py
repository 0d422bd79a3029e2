"""Where single-node vertices may go, and hop distances to those places, without all pairs.

Alg. 2 places a single-node projection at the node m minimising a weighted sum of hop
distances, and the centralized and push-pull baselines do the same for gathering event types.
On a network of up to :data:`~inev.topologies.network.DENSE_UP_TO` nodes every node is a
candidate and the distances come from the all-pairs hop matrix, exactly as in the paper.

On a larger network (issue 17: 10,000 to 100,000 nodes) that matrix alone takes 200 MB to
20 GB, and any rule that looks at every node for every input vertex is quadratic. There the
candidates (*sites*) are a small set of central nodes, and every placement rule takes its
minimum over them only (our choice; the paper does not plan at this scale):

* the :data:`CENTRAL` nodes of least summed distance from :data:`SAMPLES` nodes spread over
  the file order (an estimate of closeness centrality from as many searches);
* per event type, the weighted 1-median of its sources (weights r(e, n)), and the same for
  all types together (weights R-scaled), each found by a descent from the best central node
  to a neighbour of lower cost while one exists; each cost is exact (one search from the node);
* for the centralized node, the same descent under the centralized cost's own weights
  (Σ_e r(e, n)) from each of the :data:`STARTS` sites above (central nodes and medians)
  cheapest under them.

A site's distances to every node come from one search, so the distance table is
|sites| x nodes (about 70 x 100,000 as ``uint16``: 14 MB). The centralized node is the best
site; its cost is exact for that node but may exceed the best node's
(``benchmarks/bench_centralized_node.py`` measures by how much).

>>> from inev.topologies.network import Network
>>> net = Network.build(range(4), [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0, 3])})
>>> s = sites(net)
>>> s.nodes, s.dense
((0, 1, 2, 3), True)
>>> s.weighted("A", [1.0, 2.0]).tolist()
[6.0, 5.0, 4.0, 3.0]
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from inev.planner.inev_graph import Node
from inev.topologies.network import DENSE_UP_TO, Network

SAMPLES = 16
"""Searches behind the closeness estimate of a large network's central nodes."""
CENTRAL = 24
"""Central nodes among a large network's sites."""
STARTS = 4
"""Descents for the centralized node, from the sites above cheapest for it."""
_MAX_SETS = 20_000
"""Distance vectors to node sets kept per network."""


@dataclass(eq=False)
class Sites:
    """The candidate nodes of single-node placements and their hop distances (see module)."""

    network: Network
    nodes: tuple[Node, ...]
    table: np.ndarray
    """``table[i, x]``: hops between site i and the node of row x."""
    dense: bool
    position: dict[Node, int] = field(default_factory=dict)
    _sets: dict[frozenset, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.position = {n: i for i, n in enumerate(self.nodes)}

    def to_set(self, nodes: frozenset[Node]) -> np.ndarray:
        """Per site: hops to the nearest node of ``nodes`` (``float64``, cached)."""
        found = self._sets.get(nodes)
        if found is None:
            index = self.network.node_index
            cols = [index[n] for n in nodes]
            near = self.table[:, cols].min(axis=1) if len(cols) > 1 else self.table[:, cols[0]]
            found = near.astype(np.float64)
            if len(self._sets) >= _MAX_SETS:
                self._sets.clear()
            self._sets[nodes] = found
        return found

    def weighted(self, name: str, weights: Sequence[float]) -> np.ndarray:
        """Per site m: Σ_{n ∈ f(e)} w(n) · hops(n, m), one weight per source of ``name``."""
        index = self.network.node_index
        cols = [index[n] for n in self.network.sources(name)]
        w = np.asarray(weights, dtype=np.float64)
        return self.table[:, cols].astype(np.float64) @ w

    def nearest(self, site: Node, nodes: Iterable[Node]) -> Node:
        """The node of ``nodes`` nearest to the site ``site`` (ties: network order)."""
        index = self.network.node_index
        ordered = sorted(nodes, key=index.__getitem__)
        row = self.table[self.position[site], [index[n] for n in ordered]]
        return ordered[int(np.argmin(row))]


_SITES: weakref.WeakKeyDictionary[Network, Sites] = weakref.WeakKeyDictionary()


def sites(network: Network, extra: Iterable[Node] = ()) -> Sites:
    """The network's :class:`Sites` (cached), with ``extra`` nodes added as sites if missing."""
    found = _SITES.get(network)
    if found is None:
        if len(network.nodes) <= DENSE_UP_TO:
            found = Sites(network, network.nodes, network.hop_matrix, True)
        else:
            found = _sparse_sites(network, _choose(network))
        _SITES[network] = found
    missing = [n for n in extra if n not in found.position]
    if missing:
        found = _SITES[network] = _sparse_sites(network, [*found.nodes, *missing])
    return found


def _sparse_sites(network: Network, chosen: Sequence[Node]) -> Sites:
    nodes = tuple(dict.fromkeys(chosen))
    table = np.empty((len(nodes), len(network.nodes)), dtype=np.uint16)
    for start in range(0, len(nodes), 16):  # blocks keep the float64 output small
        block = network.hop_rows(nodes[start : start + 16])
        table[start : start + 16] = np.minimum(block, np.iinfo(np.uint16).max)
    table.setflags(write=False)
    return Sites(network, nodes, table, False)


def _row(network: Network, node: Node) -> np.ndarray:
    """Hops from ``node`` to every node (one search in C)."""
    return network.hop_rows([node])[0]


def _choose(network: Network) -> list[Node]:
    """The sites of a large network (see the module docstring)."""
    nodes = network.nodes
    n = len(nodes)
    samples = sorted({round(i * (n - 1) / (SAMPLES - 1)) for i in range(SAMPLES)})
    closeness = np.zeros(n)
    for r in samples:
        closeness += _row(network, nodes[r])
    central = [nodes[int(i)] for i in np.argsort(closeness, kind="stable")[:CENTRAL]]
    index = network.node_index
    columns = []
    total = np.zeros(n)
    for name in network.types:
        w = np.zeros(n)
        for s, r in zip(network.sources(name), network.source_rates(name), strict=True):
            w[index[s]] += r
        columns.append(w)
        total += w / max(w.sum(), 1e-300)
    columns.append(total)
    columns.append(np.sum(columns[:-1], axis=0))  # the centralized cost's own weights
    weights = np.stack(columns, axis=1)  # nodes x (types + 2)
    costs: dict[Node, np.ndarray] = {}

    def cost(node: Node) -> np.ndarray:
        """Σ_x weight(x) · hops(x, node) for every weight column (one search per node)."""
        if node not in costs:
            costs[node] = _row(network, node) @ weights
        return costs[node]

    chosen = list(central)
    for j in range(weights.shape[1]):
        chosen.append(_descend(network, central[0], lambda m, j=j: float(cost(m)[j])))
    gather = weights.shape[1] - 1  # descents from the best starts, as one may end in a dip
    pool = list(dict.fromkeys(chosen))  # the central nodes and every median found above
    starts = sorted(pool, key=lambda m: (float(cost(m)[gather]), index[m]))[:STARTS]
    for m in starts:
        chosen.append(_descend(network, m, lambda x: float(cost(x)[gather])))
    return chosen


def _descend(network: Network, start: Node, cost) -> Node:
    """A local minimum of ``cost`` over nodes, reached by steps to a cheaper neighbour."""
    index = network.node_index
    graph = network.graph
    current, value = start, cost(start)
    while True:
        best, best_value = current, value
        for m in sorted(graph.adj[current], key=index.__getitem__):
            v = cost(m)
            if v < best_value:
                best, best_value = m, v
        if best == current:
            return current
        current, value = best, best_value
