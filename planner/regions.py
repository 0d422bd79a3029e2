"""Regions of a partitioning type: k sites, each responsible for the events of nearby sources.

A *regional placement* (beyond the INEv paper; see :mod:`inev.planner.regional`) evaluates a
projection partitioned by type e at k sites instead of at every source of e. This module
chooses the sites and the regions for each k, from the network and e's rates alone:

* **Sites** are picked by the greedy rule for the weighted k-median: the first site is the
  candidate of least Σ_n r(e, n) · hops(n, site) over the sources n of e; each next one is
  the candidate that lowers that sum the most, given the sites already picked. So the sites
  of k are the first k of one *ladder* (each k's sites contain the smaller k's), and one
  pass gives every k up to :data:`MAX_SITES`. Candidates: on a network with an all-pairs
  table (:data:`~inev.topologies.network.DENSE_UP_TO` nodes) every node, as long as nodes ×
  sources stay below :data:`CANDIDATE_CELLS`; otherwise the sources (every m-th one in
  network order above :data:`MAX_CANDIDATES`: a site at a source costs its own events
  nothing), plus the central nodes and medians of :mod:`inev.planner.sites` on a large one.
* **Regions** are the sites' Voronoi cells among the sources: each source belongs to the
  site nearest by hops (ties: the site picked first), and a site whose cell is empty (later
  sites took all its sources) is left out, so k sites can make fewer regions. A source
  reaches its site over a shortest path whose nodes are no nearer to another site, which is
  what keeps a region connected (our choice: the issue asks for connected groups, e.g. by
  hop distance).

k = 1 is one node near e's sources; k = |f(e)| puts a site at every source (INEv's multi-node
placement, which :mod:`inev.planner.alg2_placement` places without this module).

>>> from inev.topologies.network import Network
>>> net = Network.build(range(7), [(i, i + 1) for i in range(6)], {"A": (1.0, [0, 1, 5, 6])})
>>> two = regions(net, "A", 2)
>>> two.sites, two.members
((1, 5), ((0, 1), (5, 6)))
>>> ladder(net, "A").cost[:3].tolist()  # Σ r · hops to the nearest site, for k = 1, 2, 3
[10.0, 2.0, 1.0]
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from inev.common.errors import InevError
from inev.planner.inev_graph import Node, Plan
from inev.planner.sites import sites
from inev.topologies.network import DENSE_UP_TO, Network

MAX_SITES = 256
"""The most sites of a regional placement (above it the choice is INEv's multi-node one)."""
MAX_CANDIDATES = 512
"""The most sources that are candidate sites (distance rows kept: candidates × sources)."""
CANDIDATE_CELLS = 1 << 20
"""Every node is a candidate while nodes × sources stay below this (small networks)."""


@dataclass(frozen=True)
class Regions:
    """k sites of partitioning type ``partition`` and the sources each is responsible for."""

    partition: str
    sites: tuple[Node, ...]
    members: tuple[tuple[Node, ...], ...]
    """Per site, the sources of ``partition`` in its region (network order)."""
    rates: tuple[float, ...]
    """Per site, Σ r(partition, n) over its region."""

    @property
    def count(self) -> int:
        """k, the number of sites."""
        return len(self.sites)

    def site_of(self) -> dict[Node, Node]:
        """``{source: its region's site}``."""
        return {n: s for s, group in zip(self.sites, self.members, strict=True) for n in group}


@dataclass(frozen=True, eq=False)
class Ladder:
    """The greedy order of candidate sites of one type and what each prefix costs."""

    partition: str
    sites: tuple[Node, ...]
    """Sites in the order picked; the sites of k are the first k."""
    cost: np.ndarray
    """``cost[k - 1]``: Σ_n r(e, n) · hops(n, nearest of the first k sites)."""
    rows: np.ndarray
    """``rows[j, i]``: hops between site j and the i-th source (``network.sources`` order)."""


_LADDERS: weakref.WeakKeyDictionary[Network, dict[str, Ladder]] = weakref.WeakKeyDictionary()
_REGIONS: weakref.WeakKeyDictionary[Network, dict[tuple[str, int], Regions]] = (
    weakref.WeakKeyDictionary()
)


def ladder(network: Network, partition: str) -> Ladder:
    """The site ladder of ``partition`` (see the module docstring; cached per network)."""
    cache = _LADDERS.setdefault(network, {})
    found = cache.get(partition)
    if found is None:
        found = cache[partition] = _build_ladder(network, partition)
    return found


def most_sites(network: Network, partition: str) -> int:
    """The largest k a regional placement of ``partition`` may have (the ladder's length)."""
    return len(ladder(network, partition).sites)


def regions(network: Network, partition: str, k: int) -> Regions:
    """The regions of ``partition`` with ``k`` sites (cached per network)."""
    if not 1 <= k <= most_sites(network, partition):
        raise InevError(
            f"a regional placement of {partition} has 1 to "
            f"{most_sites(network, partition)} sites, not {k}"
        )
    cache = _REGIONS.setdefault(network, {})
    found = cache.get((partition, k))
    if found is None:
        found = cache[(partition, k)] = _cells(network, ladder(network, partition), k)
    return found


def from_assignment(network: Network, partition: str, assignment: Mapping[Node, Node]) -> Regions:
    """The :class:`Regions` of an explicit ``{source: site}`` map (sites in order of first
    appearance over the sources; used to read a plan's regions back)."""
    index = network.node_index
    groups: dict[Node, list[Node]] = {}
    for n in network.sources(partition):
        if n not in assignment:
            raise InevError(f"source {n!r} of {partition} belongs to no region")
        groups.setdefault(assignment[n], []).append(n)
    sites = tuple(groups)
    members = tuple(tuple(sorted(groups[s], key=index.__getitem__)) for s in sites)
    rates = tuple(sum(network.rate_at(partition, n) for n in group) for group in members)
    return Regions(partition, sites, members, rates)


def cells(network: Network, partition: str, sites: Sequence[Node]) -> Regions:
    """The :class:`Regions` of explicit ``sites``: each source of ``partition`` in the cell of
    its nearest site by hops (ties: the site listed first); sites whose cells are empty are
    left out (as for the ladder's sites; used by :mod:`inev.planner.site_search`).

    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(7), [(i, i + 1) for i in range(6)], {"A": (1.0, [0, 1, 5, 6])})
    >>> found = cells(net, "A", (4, 3, 0))
    >>> found.sites, found.members, found.rates
    ((4, 0), ((5, 6), (0, 1)), (2.0, 2.0))
    """
    sources = network.sources(partition)
    table = _distances(network, list(sites), sources)
    nearest = np.argmin(table, axis=0)  # ties: the site listed first
    rates = network.source_rates(partition)
    groups: list[list[Node]] = [[] for _ in sites]
    totals = [0.0] * len(sites)
    for n, j, r in zip(sources, nearest.tolist(), rates, strict=True):
        groups[j].append(n)
        totals[j] += r
    kept = [j for j in range(len(sites)) if groups[j]]
    index = network.node_index
    return Regions(
        partition,
        tuple(sites[j] for j in kept),
        tuple(tuple(sorted(groups[j], key=index.__getitem__)) for j in kept),
        tuple(totals[j] for j in kept),
    )


def _build_ladder(network: Network, partition: str) -> Ladder:
    """The greedy weighted k-median order over the candidates (module docstring)."""
    sources = network.sources(partition)
    weights = np.asarray(network.source_rates(partition), dtype=np.float64)
    candidates = _candidates(network, sources)
    table = _distances(network, candidates, sources)  # candidates × sources
    best = np.full(len(sources), np.inf)
    picked: list[int] = []
    costs: list[float] = []
    free = np.ones(len(candidates), dtype=bool)
    for _ in range(min(MAX_SITES, len(candidates), len(sources))):
        totals = np.minimum(table, best) @ weights
        totals[~free] = np.inf
        j = int(np.argmin(totals))  # ties: the candidate first in network order
        picked.append(j)
        free[j] = False
        best = np.minimum(best, table[j])
        costs.append(float(totals[j]))
    rows = table[picked]
    rows.setflags(write=False)
    return Ladder(partition, tuple(candidates[j] for j in picked), np.array(costs), rows)


def _candidates(network: Network, sources: tuple[Node, ...]) -> list[Node]:
    """The candidate sites of a type with ``sources`` (module docstring), in network order."""
    dense = len(network.nodes) <= DENSE_UP_TO
    if dense and len(network.nodes) * len(sources) <= CANDIDATE_CELLS:
        return list(network.nodes)
    step = max(1, -(-len(sources) // MAX_CANDIDATES))
    chosen = set(sources[::step])
    if not dense:
        chosen.update(sites(network).nodes)
    index = network.node_index
    return sorted(chosen, key=index.__getitem__)


def _distances(network: Network, origins: list[Node], targets: tuple[Node, ...]) -> np.ndarray:
    """Hops from each of ``origins`` to each of ``targets`` (``float64``; one search per
    origin on a large network, in blocks, :meth:`~inev.topologies.network.Network.hop_rows`)."""
    index = network.node_index
    cols = np.array([index[n] for n in targets], dtype=np.int64)
    rows = [index[n] for n in origins]
    if len(network.nodes) <= DENSE_UP_TO:
        return network.hop_matrix[np.ix_(rows, cols)].astype(np.float64)
    out = np.empty((len(rows), len(cols)))
    for start in range(0, len(rows), 16):  # blocks keep the full rows' memory small
        out[start : start + 16] = network.hop_rows(origins[start : start + 16])[:, cols]
    return out


def _cells(network: Network, found: Ladder, k: int) -> Regions:
    """The Voronoi cells of the ladder's first ``k`` sites among the sources."""
    sources = network.sources(found.partition)
    nearest = np.argmin(found.rows[:k], axis=0)  # ties: the site picked first
    rates = network.source_rates(found.partition)
    groups: list[list[Node]] = [[] for _ in range(k)]
    totals = [0.0] * k
    for n, j, r in zip(sources, nearest.tolist(), rates, strict=True):
        groups[j].append(n)
        totals[j] += r
    index = network.node_index
    kept = [j for j in range(k) if groups[j]]
    members = tuple(tuple(sorted(groups[j], key=index.__getitem__)) for j in kept)
    sites_ = tuple(found.sites[j] for j in kept)
    return Regions(found.partition, sites_, members, tuple(totals[j] for j in kept))


def plan_regions(plan: Plan, network: Network) -> dict[str, Regions]:
    """The regional placements of ``plan`` on ``network`` (``{projection: Regions}``), read
    from its vertices' regions, with the rates of ``network``; where the regions no longer
    partition the type's sources (a node went down), the same number of sites chosen anew.
    """
    out: dict[str, Regions] = {}
    for key, part in plan.multi_node.items():
        placed = [v for v in plan.vertices_of(key) if v.region]
        if not placed or part not in network.event_types:
            continue
        assignment = {n: v.node for v in placed for n in v.region}
        index = network.node_index
        if set(assignment) == set(network.sources(part)) and all(v.node in index for v in placed):
            out[key] = from_assignment(network, part, assignment)
        else:
            out[key] = regions(network, part, min(len(placed), most_sites(network, part)))
    return out
