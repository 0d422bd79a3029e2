"""Regional placements: between one node and every source (beyond the INEv paper).

INEv places a projection p either on one node or, partitioned by an input type e, at
*every* source of e (§5.3, §6.4): then e's events stay where they are, but every other
input of p must reach the Steiner tree spanning all of e's sources. On large networks with
hundreds of sources per type that tree has hundreds of links, and the plan keeps the
centralized one. A **regional placement** evaluates p at k *sites*, each responsible for
the e events of the sources in its region (:mod:`inev.planner.regions`: k = 1 is one node
near e's sources, k = |f(e)| INEv's multi-node placement):

* each source sends its e events to its region's site (a shortest path, shared by every
  projection regional at the same regions);
* every other input reaches the k sites over a Steiner tree spanning them, as it reaches
  the sources of a multi-node placement;
* the vertex at site s evaluates p over its region's e events and all the other inputs, so
  it finds exactly the matches whose e event comes from its region: each e event belongs
  to one region, so every match is found exactly once (as for a multi-node placement).

**Cost model for the choice of k.** With the sites of k fixed by the ladder of
:mod:`inev.planner.regions`, a design in which the projections T take e regionally at k
sites costs, besides what does not change,

    E(k) + Σ_{i ∈ partners(T)} [ R(i) · |ST(sites_k)| + Σ_{v of i} rate(v) · hops(v, tree_k) ]
         + Σ_{p ∈ T, not a sink} R(p) · hops(sites_k, its consumer)

where E(k) = Σ_n r(e, n) · hops(n, site(n)) (the ladder's prefix cost). Each term is a few
array operations once the tree over the sites is known (Mehlhorn's construction,
:func:`inev.planner.steiner.mehlhorn`, for the estimate), so :func:`best_counts` scores k on
a log scale 1, 2, 4, … up to :data:`inev.planner.regions.MAX_SITES`, adds |f(e)| (INEv's
placement), refines around the best by factors of √2, and returns the best few. Those are
then placed by Alg. 2 and judged by their exact ψ (:func:`regionalise`), like every other
design of the search.

**In the search** (:func:`regionalise`, called by :func:`inev.planner.search.search`): for each
of the types carrying most of the centralized cost, the projections of the current design
that take the type directly as an input (and nothing else holding it) are partitioned by it
at the regions of the best counts, then at the sites searched for their whole cost
(:func:`inev.planner.site_search.best_sites`, one more design per type); a design is kept
only if its exact ψ is lower. A query's
sink is never partitioned by one of its Kleene types and no projection by a negated type
(as for multi-node placements, :mod:`inev.planner.alg1_combination`); a projection already
partitioned by another type keeps its placement.

Two stars of five A sources each (hubs 0 and 6, joined over 12 and 13), B at node 12:

>>> from inev.topologies.network import Network
>>> links = [(0, leaf) for leaf in range(1, 6)] + [(6, leaf) for leaf in range(7, 12)]
>>> net = Network.build(range(14), links + [(0, 12), (12, 13), (13, 6)],
...                     {"A": (1.0, list(range(1, 6)) + list(range(7, 12))), "B": (2.0, [12])})
>>> dict(estimates(net, "A", [("B", 2.0)], [], [1, 2, 10]))  # k = 2: at the hubs
{1: 27.0, 2: 16.0, 10: 26.0}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import MAX_DESTINATIONS
from inev.planner.combination_model import Combination
from inev.planner.improve import Budget, Design, Evaluator
from inev.planner.inev_graph import Node, Plan
from inev.planner.projections import Projection
from inev.planner.regions import MAX_SITES, Regions, ladder, most_sites, regions
from inev.planner.site_search import Partner, Target, best_sites
from inev.planner.steiner import EXACT_NODES, mehlhorn, steiner_links, tree_nodes
from inev.topologies.network import Network
from inev.workloads.pattern import kleene_types

TYPES = 3
"""The types tried, those carrying most of the centralized cost first."""
COVER = 0.99
"""…as long as the types tried so far carry less than this share of it."""
PLACED = 2
"""Counts k placed by Alg. 2 per type (the best by the estimate) where the search's work
allows; one where it does not (on large networks each placed design takes seconds)."""


def heavy_types(central: Plan, most: int = TYPES, cover: float = COVER) -> list[str]:
    """The event types carrying most of the centralized plan's ψ, largest first (at most
    ``most``, and none once those listed carry ``cover`` of it)."""
    costs: dict[str, float] = {}
    for v in central.vertices:
        if not v.inputs:
            costs[v.projection] = costs.get(v.projection, 0.0) + v.cost
    total = math.fsum(costs.values())
    out: list[str] = []
    carried = 0.0
    for name, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(out) >= most or total <= 0 or carried >= cover * total or cost <= 0:
            break
        out.append(name)
        carried += cost
    return out


def types_to_try(network: Network, design: Design, central: Plan) -> list[tuple[str, bool]]:
    """What :func:`regionalise` tries, as ``(type, narrow)``: :func:`heavy_types` (every
    projection that can take the type), then the partitioning types of the design's
    multi-node projections with more sources than a regional placement may have sites,
    most sources first, for those projections alone (``narrow``: a multi-node placement at
    thousands of sources makes every other input list thousands of destinations, more than
    a plan can write out)."""
    out = [(name, False) for name in heavy_types(central)]
    reached = design.reached()
    wide = {
        c.partition
        for k in reached
        if (c := design.choices[k]).partition is not None
        and k not in design.regional
        and len(network.sources(c.partition)) > MAX_SITES
    }
    out += [(t, True) for t in sorted(wide, key=lambda t: (-len(network.sources(t)), t))]
    return out


def target(
    design: Design,
    pool: Mapping[str, Projection],
    partition: str,
    nodes: Mapping[str, Node],
    narrow: bool = False,
) -> Target | None:
    """The projections of ``design`` that can take ``partition`` regionally (module
    docstring), with their partners; None when there is none. ``narrow``: only those
    partitioned by it already."""
    sinks = set(design.sinks.values())
    reached = design.reached()
    consumers: dict[str, list[str]] = {}
    for key in reached:
        for i in design.choices[key].inputs:
            consumers.setdefault(i, []).append(key)
    choices: dict[str, Choice] = {}
    partners: dict[str, float] = {}
    outputs: list[tuple[float, Node | None]] = []
    for key in reached:
        p, choice = pool[key], design.choices[key]
        if not _admits(p, choice, pool, partition, key in sinks):
            continue
        if narrow and choice.partition != partition:
            continue
        choices[key] = replace(choice, partition=partition, items={})
        for i in choice.inputs:
            if i != partition:
                partners[i] = pool[i].rate
        if key not in sinks:
            after = consumers.get(key, [])
            outputs.append((p.rate, nodes.get(after[0]) if len(after) == 1 else None))
    if not choices:
        return None
    return Target(partition, choices, tuple(sorted(partners.items())), tuple(outputs))


def _admits(
    p: Projection, choice: Choice, pool: Mapping[str, Projection], partition: str, sink: bool
) -> bool:
    """Whether projection ``p`` with ``choice`` may be partitioned by ``partition`` regionally:
    a direct input, held by no other input, neither negated nor (at a sink) Kleene, and the
    projection not partitioned by another type."""
    if partition not in choice.inputs or partition in p.negated:
        return False
    if choice.partition not in (None, partition):
        return False
    if sink and partition in kleene_types(p.pattern):
        return False
    return not any(partition in pool[i].types for i in choice.inputs if i != partition)


def estimates(
    network: Network,
    partition: str,
    partners: Sequence[Partner],
    outputs: Sequence[tuple[float, Node | None]],
    counts: Iterable[int],
    nodes: Mapping[str, Node] | None = None,
) -> list[tuple[int, float]]:
    """``(k, estimated cost)`` per count k (the module docstring's model); k = |f(e)| is
    INEv's multi-node placement. ``nodes`` holds the nodes of single-node partners."""
    found = ladder(network, partition)
    sources = network.sources(partition)
    out = []
    for k in counts:
        if k >= len(sources):
            sites: Sequence[Node] = sources
            spread = 0.0
        else:
            sites = regions(network, partition, k).sites  # sites of empty cells left out
            spread = float(found.cost[k - 1])
        # Mehlhorn's construction (scipy.sparse) only where the planner's own trees would cost
        # too much per k; on small networks the planner's tree (cached for Alg. 2, and a plain
        # `inev plan` there starts without scipy)
        small = k >= len(sources) or len(network.nodes) <= EXACT_NODES
        tree = steiner_links(network, sites) if small else mehlhorn(network, sites)
        near = network.hops_from(tree_nodes(tree, sites))
        cost = spread + _partners_cost(network, partners, len(tree), near, nodes or {})
        cost += _outputs_cost(network, outputs, sites, partition, k)
        out.append((k, cost))
    return out


def _partners_cost(
    network: Network,
    partners: Sequence[Partner],
    links: int,
    near: np.ndarray,
    nodes: Mapping[str, Node],
) -> float:
    """Σ over partners: rate · |tree| + what its vertices send to reach the tree."""
    index = network.node_index
    total = 0.0
    for key, rate in partners:
        total += rate * links
        if key in network.event_types:
            rows = [index[n] for n in network.sources(key)]
            total += float(np.dot(network.source_rates(key), near[rows]))
        elif key in nodes:
            total += rate * float(near[index[nodes[key]]])
        else:
            total += rate * float(network.mean_hops)
    return total


def _outputs_cost(
    network: Network,
    outputs: Sequence[tuple[float, Node | None]],
    sites: Sequence[Node],
    partition: str,
    k: int,
) -> float:
    """What the partitioned projections' matches cost to reach their consumers: each site's
    share of R(p) times its hops to the consumer (the mean hops when that is unknown)."""
    if not outputs:
        return 0.0
    index = network.node_index
    if k >= len(network.sources(partition)):
        shares = np.asarray(network.source_rates(partition))
    else:
        shares = np.asarray(regions(network, partition, k).rates)
    shares = shares / shares.sum()
    total = 0.0
    for rate, node in outputs:
        if node is None:
            total += rate * float(network.mean_hops)
            continue
        row = network.hops_row(node)
        total += rate * float(np.dot(shares, row[[index[s] for s in sites]]))
    return total


def count_ladder(network: Network, partition: str) -> list[int]:
    """The counts scored first: 1, 2, 4, … up to the most sites, and |f(e)|."""
    top = most_sites(network, partition)
    counts = [1 << j for j in range(top.bit_length()) if 1 << j <= top]
    if counts[-1] != top:
        counts.append(top)
    everywhere = len(network.sources(partition))
    if everywhere not in counts:
        counts.append(everywhere)
    return counts


def best_counts(
    network: Network, found: Target, nodes: Mapping[str, Node], keep: int = PLACED
) -> list[int]:
    """The ``keep`` counts of least estimated cost: the log-scale ladder, then its best
    refined by factors of √2 (module docstring)."""
    scored = dict(estimates(network, found.partition, found.partners, found.outputs,
                            count_ladder(network, found.partition), nodes))  # fmt: skip
    top = most_sites(network, found.partition)
    best = min(scored, key=lambda k: (scored[k], k))
    if best <= top:
        near = {max(1, min(top, round(best * f))) for f in (math.sqrt(0.5), math.sqrt(2.0))}
        near -= set(scored)
        scored.update(estimates(network, found.partition, found.partners, found.outputs,
                                sorted(near), nodes))  # fmt: skip
    return sorted(scored, key=lambda k: (scored[k], k))[:keep]


def with_regions(
    network: Network, design: Design, found: Target, k: int, shared: Regions | None = None
) -> Design:
    """``design`` with the projections of ``found`` partitioned by its type at ``k`` sites
    (k = |f(e)|: at every source, INEv's multi-node placement), the ladder's, or the
    ``shared`` regions where given (``k`` is then ignored)."""
    choices = {**design.choices, **found.choices}
    regional = {key: r for key, r in design.regional.items() if key not in found.choices}
    if shared is None and k < len(network.sources(found.partition)):
        shared = regions(network, found.partition, k)
    if shared is not None:
        regional.update(dict.fromkeys(found.choices, shared))
    pinned = {key: n for key, n in design.pinned.items() if key not in found.choices}
    return replace(design, choices=choices, regional=regional, pinned=pinned)


def regionalise(
    network: Network,
    evaluate: Evaluator,
    design: Design,
    cost: float,
    types: Sequence[tuple[str, bool]],
    budget: Budget,
    placed: int = PLACED,
    searched: bool = True,
    *,
    effort: float,
) -> tuple[Design, float]:
    """The best design reached by partitioning each of ``types`` regionally in turn (module
    docstring; pairs of :func:`types_to_try`), and its ψ; ``design`` itself when nothing is
    cheaper. ``placed``: the counts placed per type; ``searched``: also place, per type, the
    sites of :func:`inev.planner.site_search.best_sites` (one more design each), whose
    search ``effort`` scales and ``budget``'s deadline ends."""
    fits = listed_destinations(network, design.combination(evaluate.pool)) <= MAX_DESTINATIONS
    for name, narrow in types:
        if budget.spent():
            break
        nodes = evaluate.nodes.get(design.signature(), {})
        found = target(design, evaluate.pool, name, nodes, narrow)
        if found is None:
            continue
        tried: set[int] = set()
        counts = best_counts(network, found, nodes, placed)
        for best in counts:
            if budget.spent():
                break
            k = written_count(network, design, found, best, evaluate.pool)
            if k in tried:
                continue
            tried.add(k)
            candidate = with_regions(network, design, found, k)
            value = evaluate(candidate, budget)
            listed = listed_destinations(network, candidate.combination(evaluate.pool))
            if (listed > MAX_DESTINATIONS, value) < (not fits, cost * (1 - 1e-9)):
                design, cost, fits = candidate, value, listed <= MAX_DESTINATIONS
        if searched and not budget.spent():  # the sites searched for the whole cost
            shared = best_sites(
                network, found, nodes, counts[0], cost, effort=effort, deadline=budget.deadline
            )
            if shared is None or any(shared == regions(network, name, k) for k in tried
                                     if k < len(network.sources(name))):  # fmt: skip
                continue
            candidate = with_regions(network, design, found, 0, shared)
            listed = listed_destinations(network, candidate.combination(evaluate.pool))
            if listed > MAX_DESTINATIONS:
                continue
            value = evaluate(candidate, budget)
            if (False, value) < (not fits, cost * (1 - 1e-9)):
                design, cost, fits = candidate, value, True
    return design, cost


def written_count(
    network: Network, design: Design, found: Target, k: int, pool: Mapping[str, Projection]
) -> int:
    """``k``, or, when the design with ``k`` sites lists more destinations than a plan can
    write out (:func:`listed_destinations`), the largest count of the ladder below it
    (:func:`count_ladder`) whose design can be written out; ``k`` when none can.

    Where a few thousand sources make the estimate's best count INEv's multi-node placement,
    its plan cannot be written out and the search would otherwise keep the centralized one.
    The largest count that fits is taken, not the one of least estimate among those that
    fit: the estimate is lowest at ``k``, and on the instances met it falls steadily up to
    it, so the largest count below it is also the cheapest by the estimate (our choice: one
    listing per count, no new estimates)."""
    if _listed(network, design, found, k, pool) <= MAX_DESTINATIONS:
        return k
    for smaller in sorted(
        (c for c in count_ladder(network, found.partition) if c < k), reverse=True
    ):
        if _listed(network, design, found, smaller, pool) <= MAX_DESTINATIONS:
            return smaller
    return k


def _listed(
    network: Network, design: Design, found: Target, k: int, pool: Mapping[str, Projection]
) -> int:
    """What the design with the projections of ``found`` at ``k`` sites lists."""
    return listed_destinations(network, with_regions(network, design, found, k).combination(pool))


def written_out(network: Network, design: Design, pool: Mapping[str, Projection]) -> bool:
    """Whether ``design``'s plan lists few enough destinations to be written out
    (:func:`listed_destinations`)."""
    return listed_destinations(network, design.combination(pool)) <= MAX_DESTINATIONS


def listed_destinations(network: Network, combination: Combination) -> int:
    """About how many (vertex, destination) pairs Alg. 2's placement of ``combination``
    lists: every vertex of an input of a partitioned projection lists the nodes of all its
    partitioned consumers (single-node consumers add one each and are left out). A design
    above :data:`~inev.planner.alg2_placement.MAX_DESTINATIONS` cannot be written out, so
    :func:`regionalise` prefers any design that can be."""
    spread: dict[str, set[Node]] = {}
    for key, part in combination.multi_node.items():
        found = combination.regional.get(key)
        nodes = network.sources(part) if found is None else found.sites
        for i in combination.inputs.get(key, ()):
            if i != part:
                spread.setdefault(i, set()).update(nodes)
    total = 0
    for key, nodes in spread.items():
        if key in combination.regional:
            count = combination.regional[key].count
        elif key in combination.multi_node:
            count = len(network.sources(combination.multi_node[key]))
        elif key in network.event_types and combination.projections[key].is_primitive:
            count = len(network.sources(key))
        else:
            count = 1
        total += count * len(nodes)
    return total
