"""Why the centralized plan wins: the dominant event types and where they must meet.

On large networks with many sources per type (the node ratio times the network size) inev
often keeps the centralized plan. This module explains such a result from the centralized
plan itself rather than from a guess:

1. **Dominant types.** Each event type's share of the centralized cost ψ_central (the cost
   of its event vertices). With skewed rates a few types carry nearly all of it, and only
   keeping *their* events off the network can save much.
2. **Thinning.** A query's projection that holds a but not b carries a's information at
   R(p) per time unit; adding a type e to a projection multiplies its rate by R(e) · σ · w,
   so it thins a's stream only when e has fewer than 1/σ events per window. With many
   sources per type every R(e) is large, and no projection thins anything.
3. **Keeping a type local.** A dominant type a saves its centralized cost only if its events
   stay at its sources for every query holding it. In a query where no projection thins a,
   that needs every other type of the query at a's sources: at least R(e) · |ST(f(a))| per
   such type e (counted once over the queries). When this exceeds a's whole centralized
   cost, a's events travel raw, and the cheapest place for them is one node.
4. **Meetings.** For a pair of dominant types a, b in one query, every a event must meet every
   b event of its window at some node (thinned or not). Alg. 2 offers three ways, each costed
   here from the network: both sent to one node (at the centralized node, their centralized
   cost); a sent over the Steiner tree spanning b's sources, b's events staying where they
   are (at least R(a) · |ST(f(b))|; the way from a's sources to the tree and the matches
   come on top); or b over a's tree. When neither stream can be thinned, the cheapest way is
   the centralized one and the pair carries most of ψ_central, no INEv graph built from these
   placements can save more than the rest.

These are the costs of the placements INEv graphs are built from (single node, or multi-node
partitioned by one type, §6.3 and §6.4 of the paper), not a proof over every conceivable plan:
:mod:`inev.planner.lower_bound` is the provable bound.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.baselines import centralized_plan
>>> net = Network.build([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)],
...                     {"A": (100.0, [0, 3]), "B": (50.0, [0, 3]), "C": (0.1, [1])})
>>> wl = Workload.build(1.0, [Query.build("q", "AND(A, B, C)")])
>>> found = dominance(net, wl, centralized_plan(net, wl))
>>> [(m.pair, m.at_centre, m.first_over_second, m.second_over_first) for m in found.meetings]
[(('A', 'B'), 450.0, 600.0, 300.0)]
>>> [round(x, 6) for x in found.meetings[0].thinned]  # AND(A, C): 2 · 200 · 0.1 = 40 of 200
[0.2, 0.2]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from inev.planner.inev_graph import Plan
from inev.planner.projections import all_projections
from inev.planner.steiner import steiner_size
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload


@dataclass(frozen=True)
class Meeting:
    """Two dominant types of one query and the three ways their events can meet."""

    pair: tuple[str, str]
    query: str
    at_centre: float
    """Both types sent to the centralized node: their centralized cost."""
    first_over_second: float
    """At least R(first) · |ST(f(second))|: the first type sent over the second's sources' tree."""
    second_over_first: float
    """At least R(second) · |ST(f(first))|."""
    thinned: tuple[float, float] = (1.0, 1.0)
    """Per type of the pair: the smallest R(p) / R(type) over the query's projections p that
    hold the type but not the other one (1 when none is smaller)."""

    @property
    def cheapest(self) -> float:
        """The cheapest of the three ways."""
        return min(self.at_centre, self.first_over_second, self.second_over_first)


@dataclass(frozen=True)
class Keeping:
    """What keeping one dominant type's events at its sources costs at least."""

    name: str
    sources: int
    tree_links: int
    """|ST(f(name))|."""
    queries: tuple[str, ...]
    """The queries holding the type."""
    thinning: tuple[str, ...]
    """Those of them with a projection that thins the type (left out of ``spread``)."""
    spread: float
    """Σ R(e) · |ST(f(name))| over the other types of the queries that cannot thin it."""
    central: float
    """The type's centralized cost (what keeping it local can save at most)."""


@dataclass(frozen=True)
class Dominance:
    """The types carrying most of ψ_central, and the meetings of pairs of them."""

    central_cost: float
    shares: dict[str, float]
    """Each dominant type's share of ψ_central, largest first."""
    meetings: tuple[Meeting, ...]
    """Per pair of dominant types co-occurring in a query (first query only), largest cost first."""
    keeping: tuple[Keeping, ...] = ()
    """Per dominant type, largest share first."""


def dominance(network: Network, workload: Workload, central: Plan, cover: float = 0.9) -> Dominance:
    """The dominant types of ``central`` (the fewest covering ``cover`` of ψ_central) and the
    meetings of every pair of them that shares a query (see the module docstring)."""
    costs: dict[str, float] = {}
    for v in central.vertices:
        if not v.inputs:
            costs[v.projection] = costs.get(v.projection, 0.0) + v.cost
    total = sum(costs.values())
    shares: dict[str, float] = {}
    for name, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        if total <= 0 or sum(shares.values()) >= cover:
            break
        shares[name] = cost / total
    meetings: dict[tuple[str, str], Meeting] = {}
    for q in workload.queries:
        present = sorted((t for t in set(q.types) if t in shares), key=lambda t: (-shares[t], t))
        for a, b in itertools.combinations(present, 2):
            if (a, b) not in meetings:
                thinned = _thinned(q, a, b, network, workload.window)
                meetings[(a, b)] = _meeting(network, q.name, a, b, costs, thinned)
    ordered = sorted(meetings.values(), key=lambda m: -m.at_centre)
    keeping = tuple(_keeping(network, workload, a, costs[a]) for a in shares)
    return Dominance(total, shares, tuple(ordered), keeping)


def _keeping(network: Network, workload: Workload, a: str, central: float) -> Keeping:
    glob = network.global_rates()
    tree = steiner_size(network, network.sources(a))
    holding = [q for q in workload.queries if a in q.types]
    thinning = [
        q.name
        for q in holding
        if any(a in p.types and p.rate < glob[a] for p in all_projections(q, glob, workload.window))
    ]
    others = {e for q in holding if q.name not in thinning for e in q.types if e != a}
    spread = sum(glob[e] for e in sorted(others)) * tree
    return Keeping(
        a,
        len(network.sources(a)),
        tree,
        tuple(q.name for q in holding),
        tuple(thinning),
        spread,
        central,
    )


def _thinned(query: Query, a: str, b: str, network: Network, window: float) -> tuple[float, float]:
    """(thinnest a stream without b, thinnest b stream without a), relative to R(a) and R(b)."""
    glob = network.global_rates()
    found = {a: 1.0, b: 1.0}
    for p in all_projections(query, glob, window):
        for mine, other in ((a, b), (b, a)):
            if mine in p.types and other not in p.types:
                found[mine] = min(found[mine], p.rate / glob[mine])
    return found[a], found[b]


def _meeting(
    network: Network,
    query: str,
    a: str,
    b: str,
    costs: dict[str, float],
    thinned: tuple[float, float],
) -> Meeting:
    tree_a = steiner_size(network, network.sources(a))
    tree_b = steiner_size(network, network.sources(b))
    return Meeting(
        (a, b),
        query,
        costs[a] + costs[b],
        network.global_rate(a) * tree_b,
        network.global_rate(b) * tree_a,
        thinned,
    )


def _keeping_line(k: Keeping) -> str:
    raw = len(k.queries) - len(k.thinning)
    text = (
        f"keeping {k.name} at its {k.sources} sources: in {raw} of its {len(k.queries)} "
        f"queries no projection thins it, so their other types must reach its sources' "
        f"Steiner tree ({k.tree_links} links): >= {k.spread:.3g}, against {k.name}'s whole "
        f"centralized cost {k.central:.3g}"
    )
    if k.thinning:
        text += f" (thinned in {', '.join(k.thinning)})"
    return text


def _verdict(m: Meeting) -> str:
    a, b = m.pair
    if min(m.thinned) < 1:
        return (
            f"; the query's projections thin {a} to {m.thinned[0]:.3g} and {b} to "
            f"{m.thinned[1]:.3g} of their rates"
        )
    if m.cheapest == m.at_centre:
        return "; no projection thins either, so the centralized way is the cheapest"
    return "; no projection thins either"


def dominance_lines(found: Dominance, limit: int = 3) -> list[str]:
    """The explanation in words (at most ``limit`` meetings)."""
    if found.central_cost <= 0:
        return []
    total = found.central_cost
    share = ", ".join(f"{t} {s:.1%}" for t, s in found.shares.items())
    lines = [f"share of the centralized cost by type: {share}"]
    for k in found.keeping[:limit]:
        lines.append(_keeping_line(k))
    for m in found.meetings[:limit]:
        a, b = m.pair
        lines.append(
            f"{a} and {b} meet in query {m.query}: at the centralized node {m.at_centre:.3g} "
            f"({m.at_centre / total:.1%} of it), {a} over {b}'s sources' Steiner tree "
            f">= {m.first_over_second:.3g}, {b} over {a}'s >= {m.second_over_first:.3g}"
            + _verdict(m)
        )
    if not found.meetings:
        lines.append("no two of these types share a query")
    return lines
