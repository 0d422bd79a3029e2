"""Local search over a regional placement's sites, priced by what the projections cost.

The ladder of :mod:`inev.planner.regions` picks the sites of a type e for e's own events
alone (a greedy weighted k-median), and :mod:`inev.planner.regional` tries k on that ladder
only. The sites that are cheapest for the *projections* also weigh the other inputs, which
must reach every site over the tree spanning them, and the projections' outputs (issue 45).
This module searches site sets for that whole cost.

**Price of a site set S** (:meth:`SitePricer.price`; the model of :mod:`inev.planner.regional`
for arbitrary sites): each source n of e belongs to its nearest site (ties: the site listed
first; a site nearest to no source is dropped, as :func:`inev.planner.regions.cells` drops it),
and

    Σ_n r(e, n) · hops(n, S) + Σ_{i ∈ partners} [ R(i) · |ST(S)| + Σ_{v of i} rate(v) · hops(v, ST(S)) ]
        + Σ_{p not a sink} R(p) · Σ_s share(s) · hops(s, consumer of p)

where share(s) is the share of e's rate in s's region. With ``exact`` the tree is the
planner's own (:func:`inev.planner.steiner.steiner_links`, the tree Alg. 2 lays out for the
partners); in the search it is Mehlhorn's construction tidied (:func:`inev.planner.steiner.tidy`)
on networks above :data:`inev.planner.steiner.EXACT_NODES` nodes, where the planner's tree takes
20-150 ms per site set (1,000 nodes), and the planner's own tree below.

**Moves** (:func:`search_sites`), a first-improvement hill-climb in rounds: for each site in
turn, *shift* it to the cheapest of its neighbours (if that lowers the price); then *split*:
add a site at one of the :data:`SPLITS` sources whose events travel farthest (rate · hops);
then *merge*: drop one of the :data:`MERGES` sites of lightest regions (its sources go to
their next nearest site). A round without a cheaper set ends the search; so does the budget
of :func:`site_budget` prices (at most :data:`SITE_PRICES`, and :data:`SITE_WORK` / nodes on
large networks: each price is a tree and a breadth-first search over the network), times the
planner's ``effort`` (before 2026-12-08 the site search ignored it, so ``--effort 10`` gave
it no more prices than the default plan; ``bench_best_known.py``'s yardstick was then ten
times the budget of every local search but this one). No move
is taken unless it lowers the price, so the result never costs more than the start.

**Counts** (:func:`best_sites`): the search starts from the ladder's sites of the counts
k · :data:`GROWTH` around the best estimated count k (k/√2 … 4k, each below |f(e)|; merges and
splits move between counts from there), smallest first, each climb getting an equal share of
what the budget has left (a climb that stops early leaves its share to the larger counts,
whose climbs are longer); the budget shrinks with the projections' share of the design's ψ
(:data:`STAKE`). It returns the cheapest set reached, re-priced with the planner's own tree
(one exact price per start, beyond the budget, and one price of the start for the stake). The
regional pass (:func:`inev.planner.regional.regionalise`) places it with Alg. 2 as one more
design per type and keeps it only if the plan's ψ is lower. All the projections of one
type's target share the sites, so the queries' regional placements of that type share them
(and the partners' trees).

Measured (issue 45; ``python benchmarks/bench_planner_scale.py --sizes 1000:0.5 --seeds 10``):
the median ratio 0.891 -> 0.848 (seeds 2, 5, 9: 0.871 / 0.890 / 0.891 -> 0.805 / 0.864 /
0.832; no seed higher); at 10,000 x 0.05 (``--sizes 10000:0.05 --seeds 10``) 0.910 -> 0.877
(seeds 1, 2, 6, 8 lower, none higher; the slowest plan 28 s wall under load, 0.63 GB).
bench_plan_quality's 200 instances: 33 lower (best 0.866), none higher.

>>> from inev.topologies.network import Network
>>> from inev.planner.site_search import Target
>>> net = Network.build(range(7), [(i, i + 1) for i in range(6)],
...                     {"A": (1.0, [0, 1, 5, 6]), "B": (3.0, [3])})
>>> pricer = SitePricer(net, Target("A", {}, (("B", 3.0),), ()), {})
>>> pricer.price((1, 5))  # A: 1 + 1 hops; B: 3 x (4 links + 0 hops to the tree)
14.0
>>> search_sites(pricer, (0, 6), 50)  # two sites cost more than one at node 3: 1 site
((3,), 10.0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from inev.planner.alg1_combination import Choice
from inev.planner.inev_graph import Node
from inev.planner.regions import Regions, cells, most_sites, regions
from inev.planner.steiner import EXACT_NODES, mehlhorn, steiner_links, tidy, tree_nodes
from inev.topologies.network import DENSE_UP_TO, Network

Partner = tuple[str, float]
"""An input that must reach the sites: its key and its rate per time unit."""


@dataclass(frozen=True)
class Target:
    """What partitioning type ``partition`` regionally changes in a design."""

    partition: str
    choices: Mapping[str, Choice]
    """The new choices of the projections partitioned by it."""
    partners: tuple[Partner, ...]
    """Their other inputs (each once)."""
    outputs: tuple[tuple[float, Node | None], ...]
    """Per partitioned projection that is not a sink: its rate and its consumer's node (None:
    not a single node)."""


SITE_PRICES = 4000
"""The most site sets priced by one :func:`best_sites` call (all its starts together)."""
SITE_WORK = 24_000_000
"""…and at most this many divided by the network's nodes (a price searches the network once):
2,400 prices at 10,000 nodes, where 400 had left 10,000 x 0.05 seed 1 at 0.890 and 1,200 at
0.876 (2,400: 0.863, the plan 20 s of CPU against main's 7); every network up to 6,000 nodes
gets :data:`SITE_PRICES`."""
SPLITS = 2
"""Split moves per round: new sites at this many of the farthest-travelling sources."""
MERGES = 3
"""Merge moves per round: the sites of this many lightest regions, each dropped in turn."""
GROWTH = (math.sqrt(0.5), 1.0, math.sqrt(2.0), 2.0, math.sqrt(8.0), 4.0)
"""The counts the search starts from, as factors of the best estimated count."""
STAKE = 4.0
"""The whole budget where the projections cost at least 1 / STAKE of the design's ψ."""


def site_budget(network: Network) -> int:
    """How many site sets one :func:`best_sites` call may price (module docstring).

    >>> from inev.topologies.network import Network
    >>> site_budget(Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0])}))
    4000
    """
    return max(1, min(SITE_PRICES, SITE_WORK // max(1, len(network.nodes))))


class SitePricer:
    """The price of site sets of ``found.partition`` for the projections of ``found``
    (module docstring); ``nodes`` holds the nodes of single-node partners and consumers."""

    def __init__(self, network: Network, found: Target, nodes: Mapping[str, Node]) -> None:
        self.network = network
        self.found = found
        self.nodes = nodes
        self.sources = network.sources(found.partition)
        self.weights = np.asarray(network.source_rates(found.partition), dtype=np.float64)
        index = network.node_index
        self._columns = np.array([index[n] for n in self.sources], dtype=np.int64)
        self._rows: dict[Node, np.ndarray] = {}
        # the partners as in regional._partners_cost: Σ R(i) per tree link, and per node the
        # rate of the partners' vertices there (plus a constant for those of unknown node)
        self._per_link = sum(rate for _, rate in found.partners)
        self._at = np.zeros(len(network.nodes))
        self._fixed = 0.0
        for key, rate in found.partners:
            if key in network.event_types:
                rows = [index[n] for n in network.sources(key)]
                np.add.at(self._at, rows, network.source_rates(key))
            elif key in nodes:
                self._at[index[nodes[key]]] += rate
            else:
                self._fixed += rate * float(network.mean_hops)
        self._consumers: dict[Node, np.ndarray] = {}
        self.priced = 0
        """Site sets priced so far (the budget of :func:`search_sites` counts these)."""

    def row(self, site: Node) -> np.ndarray:
        """Hops from ``site`` to each source of the partitioning type (cached)."""
        found = self._rows.get(site)
        if found is None:
            net = self.network
            if len(net.nodes) <= DENSE_UP_TO:
                full = net.hop_matrix[net.node_index[site]]
            else:
                full = net.hop_rows([site])[0]
            found = self._rows[site] = full[self._columns].astype(np.float64)
        return found

    def assign(self, sites: Sequence[Node]) -> tuple[np.ndarray, np.ndarray]:
        """Per source: the position of its site in ``sites`` and the hops to it."""
        table = np.stack([self.row(s) for s in sites])
        nearest = np.argmin(table, axis=0)  # ties: the site listed first
        return nearest, table[nearest, np.arange(len(self.sources))]

    def kept(self, sites: Sequence[Node]) -> tuple[Node, ...]:
        """``sites`` without those nearest to no source (in order)."""
        nearest, _ = self.assign(sites)
        used = np.bincount(nearest, minlength=len(sites))
        return tuple(s for s, c in zip(sites, used.tolist(), strict=True) if c)

    def price(self, sites: Sequence[Node], exact: bool = False) -> float:
        """The price of the site set ``sites`` (module docstring; ``exact``: with the
        planner's own tree at every size)."""
        self.priced += 1
        nearest, hops = self.assign(sites)
        shares = np.bincount(nearest, weights=self.weights, minlength=len(sites))
        used = np.bincount(nearest, minlength=len(sites)) > 0
        kept = [s for s, u in zip(sites, used.tolist(), strict=True) if u]
        total = float(self.weights @ hops)
        tree = self.tree(kept, exact)
        near = self.network.hops_from(tree_nodes(tree, kept))
        total += self._per_link * len(tree) + float(self._at @ near) + self._fixed
        if self.found.outputs:
            shares = shares[used] / shares.sum()
            index = self.network.node_index
            for rate, node in self.found.outputs:
                if node is None:
                    total += rate * float(self.network.mean_hops)
                    continue
                row = self._consumers.get(node)
                if row is None:
                    row = self._consumers[node] = self.network.hops_row(node)
                total += rate * float(np.dot(shares, row[[index[s] for s in kept]]))
        return total

    def tree(self, sites: Sequence[Node], exact: bool) -> frozenset:
        """The tree spanning ``sites`` the price counts (module docstring)."""
        if exact or len(self.network.nodes) <= EXACT_NODES or len(sites) <= 2:
            return steiner_links(self.network, sites)
        return tidy(self.network, mehlhorn(self.network, sites), sites)


def _moves(pricer: SitePricer, sites: tuple[Node, ...]) -> list[list[tuple[Node, ...]]]:
    """One round's moves from ``sites``, in groups of which the cheapest is taken: per site
    its shifts to a neighbour; the splits; the merges (module docstring)."""
    net = pricer.network
    index = net.node_index
    taken = set(sites)
    groups: list[list[tuple[Node, ...]]] = []
    for j, s in enumerate(sites):
        near = sorted((m for m in net.graph.adj[s] if m not in taken), key=index.__getitem__)
        groups.append([(*sites[:j], m, *sites[j + 1 :]) for m in near])
    nearest, hops = pricer.assign(sites)
    far = np.argsort(-(pricer.weights * hops), kind="stable")[:SPLITS]
    groups += [[(*sites, pricer.sources[int(i)])] for i in far if hops[int(i)] > 0]
    if len(sites) > 1:
        loads = np.bincount(nearest, weights=pricer.weights, minlength=len(sites))
        for j in np.argsort(loads, kind="stable")[:MERGES].tolist():
            groups.append([sites[:j] + sites[j + 1 :]])
    return groups


def search_sites(
    pricer: SitePricer, start: Sequence[Node], budget: int, deadline: float = math.inf
) -> tuple[tuple[Node, ...], float]:
    """The cheapest site set the hill-climb of the module docstring reaches from ``start``
    within ``budget`` prices (and before ``deadline``), and its price; never costlier than
    ``start``.

    Parameters
    ----------
    pricer
        Prices site sets (:class:`SitePricer`).
    start
        The first site set (distinct nodes).
    budget
        The most site sets priced, ``start`` included.
    deadline
        A ``time.perf_counter()`` value after which no more sets are priced (a plan's
        ``--time-budget``).

    Returns
    -------
    tuple
        ``(sites, price)`` of the cheapest set reached (sites nearest to no source dropped).
    """
    current = pricer.kept(tuple(start))
    value = pricer.price(current)
    used = 1
    seen = {frozenset(current)}
    changed = True
    while changed and used < budget:
        changed = False
        for group in _moves(pricer, current):
            best, best_value = None, value * (1 - 1e-12)
            for cand in group:
                if used >= budget or time.perf_counter() >= deadline:
                    used = budget  # out of time counts as out of prices: every loop ends
                    break
                if frozenset(cand) in seen:
                    continue
                seen.add(frozenset(cand))
                v = pricer.price(cand)
                used += 1
                if v < best_value:
                    best, best_value = cand, v
            if best is not None:
                current, value, changed = pricer.kept(best), best_value, True
                break  # the moves of the new set
            if used >= budget:
                break
    return current, value


def best_sites(
    network: Network,
    found: Target,
    nodes: Mapping[str, Node],
    count: int,
    psi: float = math.inf,
    *,
    effort: float,
    deadline: float = math.inf,
) -> Regions | None:
    """The regions of the cheapest site set of ``found`` the search reaches from the ladder's
    sites of the counts around ``count`` (module docstring), or None when no count below
    |f(e)| is left to search from or ``count`` is |f(e)| (the estimate prefers INEv's
    placement at every source; climbs from the ladder's last sites, hundreds of them, took
    10 s per type at 1,000 nodes and found nothing cheaper).

    Parameters
    ----------
    network, found, nodes
        As for :class:`SitePricer`.
    count
        The best count of the ladder's estimate (:func:`inev.planner.regional.best_counts`).
    psi
        The design's ψ: the search gets :func:`site_budget` prices where the projections'
        price at ``count`` is at least 1 / :data:`STAKE` of it, proportionally less below
        (at least two per start); unbounded ``psi``: the whole budget.
    effort
        Scales that budget, as ``inev plan --effort`` scales every local search's (the
        planner passes its own).
    deadline
        As for :func:`search_sites`.

    Returns
    -------
    Regions or None
        The cheapest set reached, by the price with the planner's own tree.

    Examples
    --------
    >>> from inev.topologies.network import Network
    >>> from inev.planner.site_search import Target
    >>> net = Network.build(range(7), [(i, i + 1) for i in range(6)],
    ...                     {"A": (1.0, [0, 1, 5, 6]), "B": (3.0, [3])})
    >>> best_sites(net, Target("A", {}, (("B", 3.0),), ()), {}, 2, effort=1.0).sites
    (3,)
    """
    part = found.partition
    top = min(most_sites(network, part), len(network.sources(part)) - 1)
    if top < 1 or count >= len(network.sources(part)):
        return None  # the estimate's best is INEv's placement at every source
    counts = sorted({max(1, min(top, round(count * f))) for f in GROWTH})
    pricer = SitePricer(network, found, nodes)
    stake = 1.0
    if psi < math.inf:
        stake = pricer.price(regions(network, part, min(count, top)).sites) / psi
    total = max(2 * len(counts), int(site_budget(network) * effort * min(1.0, STAKE * stake)))
    reached: dict[tuple[Node, ...], None] = {}
    for i, k in enumerate(counts):  # what a climb leaves goes to the next (larger k)
        share = max(2, (total - pricer.priced) // (len(counts) - i))
        start = regions(network, part, k).sites
        reached.setdefault(search_sites(pricer, start, share, deadline)[0])
    priced = [(pricer.price(s, exact=True), i, s) for i, s in enumerate(reached)]
    _, _, best = min(priced)
    return cells(network, part, best)
