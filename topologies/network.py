"""The event network Γ = (G_top, f, r) of the INEv paper (§3.1).

A :class:`Network` couples an undirected, connected topology graph (a ``networkx.Graph``
whose links carry a ``latency``) with event types, each having a local rate r(e) and a
set of source nodes f(e). The global rate is R(e) = |f(e)| · r(e).

**Per-source rates.** The paper assumes every source of a type emits at the same local rate.
Recorded traces do not (one station emits 3 events of a type per month, another 800), so a
type may carry one rate per source, r(e, n) for n ∈ f(e). Then R(e) = Σ_n r(e, n) and r(e)
is their mean R(e) / |f(e)|, so every formula of the paper that uses R(e) is unchanged and
every formula that sums r(e) over sources sums the sources' own rates instead
(:meth:`Network.rate_at`, :meth:`Network.source_rates`). A type without them has
r(e, n) = r(e) at every source, exactly as before.

Hop distances and shortest paths are computed once, on demand, by breadth-first search and
cached on the instance: in pure Python up to :data:`PYTHON_BFS_UP_TO` nodes (importing
``scipy.sparse.csgraph`` costs 0.15 s, more than a small plan), with
``scipy.sparse.csgraph`` in C above; on 10,000 nodes the full hop matrix takes a few seconds
and 200 MB as ``uint16`` (see ``benchmarks/bench_topologies.py``). Both walks follow one
rule, so a path never depends on the network's size or on the scipy version: search from the
target, scan each node's neighbours in node order (:attr:`Network.nodes`), and a node's
predecessor is the node that reached it first. (Dijkstra's predecessors, used before, break
ties by its priority queue, which changed between scipy releases.)

The summary of a large network (:meth:`Network.summary`) does not compute all pairs: above
:data:`EXACT_SUMMARY_UP_TO` nodes its diameter and mean hop count are estimated from a few
breadth-first searches (see :meth:`Network.summary`).

>>> net = Network.build(nodes=[0, 1, 2], links=[(0, 1), (1, 2)],
...                     event_types={"A": (2.0, [0]), "B": (5.0, [1, 2])})
>>> net.global_rate("B")
10.0
>>> net.hops(0, 2)
2
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

import networkx as nx
import numpy as np

from inev.common.errors import InevError
from inev.topologies.network_entries import (
    EventType,
    Node,
    check_node_id,
    check_rate,
    checked_link,
    checked_type,
    type_spec,
)

_ROW_CHUNK = 512
_NO_PREDECESSOR = -9999
PYTHON_BFS_UP_TO = 200
"""Networks up to this many nodes are searched in Python, larger ones with scipy. All pairs
of 200 nodes take about 0.02 s in Python, less than importing ``scipy.sparse.csgraph``
(0.15 s and more); ``benchmarks/bench_topologies.py`` prints both."""
EXACT_SUMMARY_UP_TO = 2000
"""Networks up to this many nodes get an exact diameter and mean hop count (summary and
:attr:`Network.mean_hops`); larger ones an estimate from a few searches."""
DENSE_UP_TO = 2000
"""Networks up to this many nodes may use the all-pairs :attr:`Network.hop_matrix` (8 MB as
``uint16`` at 2,000 nodes); the planner never asks a larger network for all pairs, only for
searches from the nodes that matter (:meth:`Network.hops_from`, :meth:`Network.hops_row`)."""
SUMMARY_SAMPLES = 32
"""Breadth-first searches behind the mean hop count of a larger network's summary."""


TOPOLOGY_DERIVED = (
    "nodes",
    "node_index",
    "_neighbours",
    "_adjacency",
    "hop_matrix",
    "latency_matrix",
    "mean_hops",
    "diameter",
    "max_degree",
)
"""Cached properties of a :class:`Network` that depend only on its nodes in order and its
links with their latencies (shared by :meth:`Network.with_rates` copies)."""


@dataclass(frozen=True, eq=False)
class Network:
    """An event network: a connected topology with event types, rates and sources.

    Build one with :meth:`Network.build` (which validates) rather than the constructor.
    Instances are treated as immutable; derived data (hop matrix, paths) is cached.

    Parameters
    ----------
    graph : networkx.Graph
        The topology; each link has a ``latency``.
    event_types : mapping of str to EventType
        Per type its rate r(e) and source nodes f(e).

    Examples
    --------
    A path 0 - 1 - 2 with ``A`` at both ends (2 events per time unit each) and ``B`` in the
    middle: r(A) counts both sources, and ``A`` reaches ``B``'s node in one hop.

    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (2.0, [0, 2]), "B": (1.0, [1])})
    >>> net.global_rate("A"), net.sources("A"), net.hops(0, 2), net.types_at(1)
    (4.0, (0, 2), 2, ('B',))
    """

    graph: nx.Graph
    event_types: Mapping[str, EventType]
    _path_rows: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(
        cls,
        nodes: Iterable[Node],
        links: Iterable[Sequence[Any]],
        event_types: Mapping[str, tuple[Any, ...]],
    ) -> Network:
        """Validate and build a network from nodes, links and ``{type: (rate, sources)}``.

        A type may also be ``(rate, sources, rates)`` with one positive rate per source
        (per-source rates; ``rate`` is then ignored, and may be ``None``, as r(e) becomes
        their mean). A link is ``(u, v)`` or ``(u, v, latency)``. Raises
        :class:`InevError` naming the offending entry when a rule is broken (unknown node,
        duplicate link, self-loop, non-positive rate or latency, a type without sources, a
        disconnected topology).
        """
        graph = nx.Graph()
        for node in nodes:
            check_node_id(node)
            if node in graph:
                raise InevError(f"network: node {node!r} is listed twice")
            graph.add_node(node)
        if graph.number_of_nodes() == 0:
            raise InevError("network: no nodes")
        for link in links:
            u, v, latency = checked_link(graph, link)
            graph.add_edge(u, v, latency=latency)
        if not nx.is_connected(graph):
            parts = nx.number_connected_components(graph)
            raise InevError(f"network: topology is disconnected ({parts} components)")
        types = {name: checked_type(graph, name, spec) for name, spec in event_types.items()}
        if not types:
            raise InevError("network: no event types")
        return cls(graph=graph, event_types=types)

    # ------------------------------------------------------------------ basic views
    @cached_property
    def nodes(self) -> tuple[Node, ...]:
        """The node ids in file order."""
        return tuple(self.graph.nodes)

    @cached_property
    def node_index(self) -> dict[Node, int]:
        """Position of each node in :attr:`nodes` (the row of the hop matrix)."""
        return {node: i for i, node in enumerate(self.nodes)}

    @property
    def links(self) -> list[tuple[Node, Node, float]]:
        """The links as ``(u, v, latency)`` in insertion order."""
        return [(u, v, d["latency"]) for u, v, d in self.graph.edges(data=True)]

    @property
    def types(self) -> tuple[str, ...]:
        """Event type names in file order."""
        return tuple(self.event_types)

    def event_type(self, name: str) -> EventType:
        """The :class:`EventType` called ``name``; raises :class:`InevError` if unknown."""
        try:
            return self.event_types[name]
        except KeyError:
            raise InevError(f"unknown event type {name!r} for this network") from None

    def rate(self, name: str) -> float:
        """Local rate r(e) of one source of the type (their mean with per-source rates)."""
        return self.event_type(name).rate

    def rate_at(self, name: str, node: Node) -> float:
        """r(e, n): the rate of the type's source ``node`` (0 where it is no source)."""
        t = self.event_type(name)
        if t.source_rates is None:
            return t.rate if node in self._source_sets[name] else 0.0
        return self._source_rates[name].get(node, 0.0)

    def source_rates(self, name: str) -> tuple[float, ...]:
        """r(e, n) for every source n of the type, in the order of :meth:`sources`."""
        return self.event_type(name).rates()

    @cached_property
    def _source_sets(self) -> dict[str, frozenset[Node]]:
        return {name: frozenset(t.sources) for name, t in self.event_types.items()}

    @cached_property
    def _source_rates(self) -> dict[str, dict[Node, float]]:
        return {
            name: dict(zip(t.sources, t.rates(), strict=True))
            for name, t in self.event_types.items()
        }

    @property
    def uniform_rates(self) -> bool:
        """Whether no type has per-source rates (the paper's model)."""
        return all(t.uniform for t in self.event_types.values())

    def global_rate(self, name: str) -> float:
        """Global rate R(e) = |f(e)| · r(e) (= Σ_n r(e, n); computed once per type)."""
        found = self._global_rates.get(name)
        return self.event_type(name).global_rate if found is None else found

    def sources(self, name: str) -> tuple[Node, ...]:
        """Source nodes f(e) of the type."""
        return self.event_type(name).sources

    def local_rates(self) -> dict[str, float]:
        """``{type: r(e)}`` for every type."""
        return {name: t.rate for name, t in self.event_types.items()}

    def global_rates(self) -> Mapping[str, float]:
        """``{type: R(e)}`` for every type (computed once; read-only)."""
        return self._global_rates

    @cached_property
    def _global_rates(self) -> Mapping[str, float]:
        return MappingProxyType({name: t.global_rate for name, t in self.event_types.items()})

    def types_at(self, node: Node) -> tuple[str, ...]:
        """Event types generated at ``node``."""
        return tuple(name for name, t in self.event_types.items() if node in t.sources)

    # ------------------------------------------------------------------ distances
    @cached_property
    def _neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Each node's neighbours as sorted row indices (the order of every search)."""
        index = self.node_index
        return tuple(tuple(sorted(index[m] for m in self.graph.adj[node])) for node in self.nodes)

    @cached_property
    def _adjacency(self) -> Any:
        """The latency-weighted adjacency as a ``scipy.sparse.csr_array`` with sorted rows."""
        from scipy.sparse import csr_array

        index = self.node_index
        n = len(index)
        rows, cols, weights = [], [], []
        for u, v, latency in self.links:
            i, j = index[u], index[v]
            rows += [i, j]
            cols += [j, i]
            weights += [latency, latency]
        matrix = csr_array((np.array(weights, dtype=float), (rows, cols)), shape=(n, n))
        matrix.sort_indices()
        return matrix

    def _search(self, root: int) -> tuple[list[int], list[int]]:
        """Hop distances and predecessors of a breadth-first search from row ``root``."""
        return self._breadth_first([root])

    def _breadth_first(self, roots: list[int]) -> tuple[list[int], list[int]]:
        """Hop distances to the nearest of rows ``roots`` and predecessors towards it, by one
        breadth-first search from all of them (ties go to the root met first)."""
        neighbours = self._neighbours
        distance = [-1] * len(neighbours)
        predecessor = [_NO_PREDECESSOR] * len(neighbours)
        for r in roots:
            distance[r] = 0
        queue = list(roots)
        for u in queue:  # the list grows while it is walked: a FIFO queue
            step = distance[u] + 1
            for v in neighbours[u]:
                if distance[v] < 0:
                    distance[v] = step
                    predecessor[v] = u
                    queue.append(v)
        return distance, predecessor

    @cached_property
    def hop_matrix(self) -> np.ndarray:
        """All-pairs hop distances as a ``uint16`` matrix indexed by :attr:`node_index`.

        Computed by breadth-first search from every node (in blocks of rows with scipy, so
        the temporary ``float64`` output never exceeds a block).
        """
        n = len(self.nodes)
        dtype = np.uint16 if n < np.iinfo(np.uint16).max else np.uint32
        if n <= PYTHON_BFS_UP_TO:
            out = np.array([self._search(i)[0] for i in range(n)], dtype=dtype).reshape(n, n)
        else:
            from scipy.sparse.csgraph import shortest_path

            out = np.empty((n, n), dtype=dtype)
            adjacency = self._adjacency
            for start in range(0, n, _ROW_CHUNK):
                rows = np.arange(start, min(start + _ROW_CHUNK, n))
                block = shortest_path(  # symmetric: see inev.topologies.breadth_first
                    adjacency, method="D", directed=True, unweighted=True, indices=rows
                )
                out[start : start + len(rows)] = block.astype(dtype)
        out.setflags(write=False)
        return out

    @cached_property
    def latency_matrix(self) -> np.ndarray:
        """All-pairs shortest-path latencies (sum of link latencies) as ``float64``."""
        from scipy.sparse.csgraph import shortest_path

        matrix = shortest_path(self._adjacency, method="D", directed=True)  # symmetric
        matrix.setflags(write=False)
        return matrix

    def hops(self, u: Node, v: Node) -> int:
        """Hop distance (number of links on a shortest path) between two nodes."""
        index = self.node_index
        return int(self.hop_matrix[index[u], index[v]])

    def latency(self, u: Node, v: Node) -> float:
        """Latency of the fastest path between two nodes."""
        index = self.node_index
        return float(self.latency_matrix[index[u], index[v]])

    @cached_property
    def mean_hops(self) -> float:
        """Mean shortest-path length δ over all ordered pairs of distinct nodes.

        Exact up to :data:`EXACT_SUMMARY_UP_TO` nodes (or once the hop matrix is known);
        above, the mean over breadth-first searches from :data:`SUMMARY_SAMPLES` nodes spread
        over the file order (deterministic; see :meth:`summary`), so that no planner run on a
        large network computes all pairs for δ.
        """
        n = len(self.nodes)
        if n < 2:
            return 0.0
        if n > EXACT_SUMMARY_UP_TO and "hop_matrix" not in self.__dict__:
            return self._estimated_distances()[1]
        return float(self.hop_matrix.sum(dtype=np.float64) / (n * (n - 1)))

    @cached_property
    def max_degree(self) -> int:
        """The largest number of links at one node (0 without links).

        >>> Network.build(range(4), [(0, 1), (0, 2), (0, 3)], {"A": (1.0, [0])}).max_degree
        3
        """
        return max((d for _, d in self.graph.degree()), default=0)

    @cached_property
    def diameter(self) -> int:
        """The largest hop distance between two nodes."""
        return int(self.hop_matrix.max())

    def hops_from(self, nodes: Iterable[Node]) -> np.ndarray:
        """Per node (in :attr:`nodes` order): hops to the nearest of ``nodes`` (``int64``).

        One breadth-first search from all of ``nodes`` at once, linear in nodes and links.

        >>> net = Network.build(range(5), [(i, i + 1) for i in range(4)], {"A": (1, [0])})
        >>> net.hops_from([0, 4]).tolist()
        [0, 1, 2, 1, 0]
        """
        return self.nearest_of(nodes)[0]

    def nearest_of(self, nodes: Iterable[Node]) -> tuple[np.ndarray, np.ndarray]:
        """Multi-source search from ``nodes``: per node its hops to the nearest of them and its
        next hop towards that one (row indices; ``-9999`` at the members themselves)."""
        index = self.node_index
        rows = sorted({index[n] for n in nodes})
        if not rows:
            raise InevError("a search needs at least one start node")
        if len(index) > PYTHON_BFS_UP_TO:  # the same arrays, in C (topologies.breadth_first)
            from inev.topologies.breadth_first import nearest_rows

            return nearest_rows(self._adjacency, rows)
        distance, predecessor = self._breadth_first(rows)
        return np.array(distance, dtype=np.int64), np.array(predecessor, dtype=np.int64)

    def hops_row(self, node: Node) -> np.ndarray:
        """Hops from ``node`` to every node (a row of :attr:`hop_matrix`, without the matrix
        on large networks)."""
        if "hop_matrix" in self.__dict__ or len(self.nodes) <= DENSE_UP_TO:
            return self.hop_matrix[self.node_index[node]].astype(np.int64)
        return self.hops_from([node])

    def hop_rows(self, nodes: Sequence[Node]) -> np.ndarray:
        """Hops from each of ``nodes`` to every node (``float64``; rows in the order of
        ``nodes``, columns in :attr:`nodes` order), without the all-pairs matrix on large
        networks (there ``inf`` where a node is unreachable).

        One breadth-first search per node in C (``scipy.sparse.csgraph.breadth_first_order``),
        its depths read off the predecessor tree by pointer doubling (log₂ of the depth numpy
        passes). Measured on 100,000 nodes: 9-12 ms a row against 23 ms for scipy's
        ``dijkstra(unweighted=True)``, which gives the same values (tested).

        >>> net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (1, 4)], {"A": (1, [0])})
        >>> net.hop_rows([0, 3]).tolist()
        [[0.0, 1.0, 2.0, 3.0, 2.0], [3.0, 2.0, 1.0, 0.0, 3.0]]
        """
        if "hop_matrix" in self.__dict__ or len(self.nodes) <= DENSE_UP_TO:
            return self.hop_matrix[[self.node_index[n] for n in nodes]].astype(np.float64)
        from inev.topologies.breadth_first import hop_rows

        return hop_rows(self._adjacency, [self.node_index[n] for n in nodes])

    def predecessors(self, target: Node) -> np.ndarray:
        """Row indices of each node's next hop towards ``target`` (``-9999`` at ``target``).

        The breadth-first rule of the module docstring; cached per target node.

        >>> net = Network.build([0, 1, 2, 3], [(0, 1), (0, 2), (1, 3), (2, 3)], {"A": (1, [0])})
        >>> net.predecessors(0).tolist()  # node 3 is reached through 1, the lower of 1 and 2
        [-9999, 0, 0, 1]
        """
        t = self.node_index[target]
        row = self._path_rows.get(t)
        if row is None:
            if len(self.nodes) <= PYTHON_BFS_UP_TO:
                row = np.array(self._search(t)[1], dtype=np.int32)
            else:
                from scipy.sparse.csgraph import breadth_first_order

                _, row = breadth_first_order(  # symmetric: the same predecessors
                    self._adjacency, t, directed=True, return_predecessors=True
                )
            self._path_rows[t] = row
        return row

    def shortest_path(self, source: Node, target: Node) -> list[Node]:
        """One hop-shortest path from ``source`` to ``target`` (both included).

        Deterministic: breadth-first search from ``target`` with ties broken by node order
        (see :meth:`predecessors`).
        """
        index = self.node_index
        t = index[target]
        row = self.predecessors(target)
        nodes = self.nodes
        path = [source]
        i = index[source]
        while i != t:
            i = int(row[i])
            path.append(nodes[i])
        return path

    def path_links(self, source: Node, target: Node) -> list[tuple[Node, Node]]:
        """The links of :meth:`shortest_path` as ``(u, v)`` pairs in travel order."""
        path = self.shortest_path(source, target)
        return list(itertools.pairwise(path))

    # ------------------------------------------------------------------ derived networks
    def with_rates(self, rates: Mapping[str, float]) -> Network:
        """A copy with some local rates r(e) replaced (``{type: new rate}``), validated.

        Per-source rates are scaled so that their mean is the new rate (their proportions,
        which the trace measured, are kept).
        """
        for name, value in rates.items():
            self.event_type(name)
            check_rate(name, value)
        spec = {
            name: type_spec(t.scaled(float(rates[name])) if name in rates else t)
            for name, t in self.event_types.items()
        }
        return self._same_topology(
            Network.build(self.nodes, [list(link) for link in self.links], spec)
        )

    def _same_topology(self, copy: Network) -> Network:
        """``copy`` (built from this network's nodes and links in their order, other types or
        rates) given this network's distances and paths computed so far, instead of computing
        them again.

        Exact: every value in :data:`TOPOLOGY_DERIVED` and the predecessor rows are computed
        from the node order and the links with their latencies alone (searches scan
        neighbours by sorted row index), which the copy has the same; the predecessor rows are
        one dict shared from then on (a row either computes is the row the other would).
        The search plans on many rate-kicked copies of one network (``with_rates``).
        """
        for name in TOPOLOGY_DERIVED:
            if name in self.__dict__:
                copy.__dict__[name] = self.__dict__[name]
        object.__setattr__(copy, "_path_rows", self._path_rows)
        return copy

    def with_streams(self, variables: Mapping[str, str]) -> Network:
        """A copy in which every pattern variable (``{variable: event type}``) is an event
        type of its own, with its type's sources and rates: a variable is a stream of its
        type (the planner plans, and the simulator forwards, each variable's events apart).
        ``self`` when there are no variables.

        >>> net = Network.build([0, 1], [(0, 1)], {"GOOG": (2.0, [1])})
        >>> net.with_streams({"a": "GOOG"}).sources("a")
        (1,)
        """
        if not variables:
            return self
        spec = {name: type_spec(t) for name, t in self.event_types.items()}
        for variable, stream in variables.items():
            if variable in spec:
                raise InevError(
                    f"network: variable {variable} has the name of an event type; rename it"
                )
            spec[variable] = type_spec(self.event_type(stream))
        return Network.build(self.nodes, [list(link) for link in self.links], spec)

    def without(
        self, links: Iterable[tuple[Node, Node]] = (), nodes: Iterable[Node] = ()
    ) -> Network:
        """A copy without some links or nodes (sources on removed nodes are dropped).

        Raises :class:`InevError` when the result is disconnected or a type loses every
        source.
        """
        dropped_nodes = set(nodes)
        dropped_links = {frozenset(link) for link in links}
        for node in dropped_nodes:
            if node not in self.graph:
                raise InevError(f"network: cannot remove unknown node {node!r}")
        for link in dropped_links:
            if len(link) != 2:
                raise InevError(f"network: cannot remove the self-loop {[*link, *link]!r}")
            u, v = tuple(link)
            if not self.graph.has_edge(u, v):
                raise InevError(f"network: cannot remove unknown link {[u, v]!r}")
        kept_links = [
            list(link)
            for link in self.links
            if frozenset(link[:2]) not in dropped_links and not (set(link[:2]) & dropped_nodes)
        ]
        spec = {}
        for name, t in self.event_types.items():
            kept = [
                (s, r) for s, r in zip(t.sources, t.rates(), strict=True) if s not in dropped_nodes
            ]
            sources = [s for s, _ in kept]
            spec[name] = (t.rate, sources) if t.uniform else (None, sources, [r for _, r in kept])
        return Network.build([n for n in self.nodes if n not in dropped_nodes], kept_links, spec)

    def summary(self) -> dict[str, Any]:
        """A small dictionary of figures describing the network (for ``inev network show``).

        Up to :data:`EXACT_SUMMARY_UP_TO` nodes (or once the hop matrix is known) the
        ``diameter`` and ``mean_hops`` are exact and ``exact`` is true. Above, they are
        estimated without all pairs, which take seconds and hundreds of MB on 10,000 nodes:
        the diameter is the longest distance found by repeated double sweeps (a lower bound,
        usually the diameter itself on these topologies), the mean hop count is the mean over
        breadth-first searches from :data:`SUMMARY_SAMPLES` nodes spread evenly over the
        file order (deterministic).

        >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (2.0, [0])})
        >>> s = net.summary()
        >>> s["diameter"], round(s["mean_hops"], 3), s["exact"]
        (2, 1.333, True)
        """
        degrees = [d for _, d in self.graph.degree()]
        n = self.graph.number_of_nodes()
        exact = n <= EXACT_SUMMARY_UP_TO or "hop_matrix" in self.__dict__
        diameter, mean_hops = (
            (self.diameter, self.mean_hops) if exact else self._estimated_distances()
        )
        return {
            "nodes": n,
            "links": self.graph.number_of_edges(),
            "mean_degree": sum(degrees) / len(degrees),
            "diameter": diameter,
            "mean_hops": mean_hops,
            "exact": exact,
            "event_types": {
                name: {"rate": t.rate, "sources": len(t.sources), "global_rate": t.global_rate}
                for name, t in self.event_types.items()
            },
        }

    def _estimated_distances(self) -> tuple[int, float]:
        """(diameter lower bound, sampled mean hops) from a few breadth-first searches."""
        n = len(self.nodes)
        longest, root = 0, 0
        for _ in range(4):  # double sweeps: jump to the farthest node until it stops growing
            distance = self._search(root)[0]
            far = max(range(n), key=distance.__getitem__)
            if distance[far] <= longest:
                break
            longest, root = distance[far], far
        roots = sorted({round(i * (n - 1) / (SUMMARY_SAMPLES - 1)) for i in range(SUMMARY_SAMPLES)})
        total = 0
        for r in roots:
            distance = self._search(r)[0]
            total += sum(distance)
            longest = max(longest, max(distance))
        return longest, total / (len(roots) * (n - 1))
