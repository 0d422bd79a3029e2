"""The transmission cost model of the INEv paper (§5.3): tc(v), ψ(I) and the ratio.

For a vertex v with forwarding graph (V_v, E_v), tc(v) = |E_v| · rate(v), where rate(v) is
what v sends on each link: the events of its type at its source for an event vertex
(r(e, n)), its matches, or the events its output selector picks from its matches.

**Matches.** A vertex of a projection p on a single node produces R(p) matches per time
unit. The vertices of a multi-node placement partitioned by type c split them: the vertex at
source n of c produces R(p) · r(c, n) / R(c), the paper's R(p) / |V_p| when every source
emits at the same rate.

**Selected events (a physically consistent output selector).** The paper writes the rate of
selected e events as σ(e, p) · R(e) with a single selectivity σ(e, p) drawn at random. A
match holds exactly one e event, so the distinct e events occurring in a vertex's matches can
outnumber neither the events available (R(e), or r(c, n) for the partitioning type at its
own node) nor the matches themselves; a random σ breaks the second bound (an instance drew
σ = 0.74 and sent selected events at 6.5 × the match rate, which no trace can do). We derive
σ from the rate model instead: the matches of a vertex hold on average m / a events of a type
that arrives at rate a, and if that number is Poisson distributed, an event takes part in at
least one match with probability 1 − exp(−m / a). So a vertex with m matches per time unit
sends a · (1 − exp(−m / a)) events of each selected type (:func:`participation`), which is at
most min(a, m), exact for a pattern of two types over Poisson sources without predicates, and
needs no seed. The single selectivity recorded for a projection is σ(e, p) = 1 −
exp(−R(p) / R(e)) (:func:`single_selectivity`).

Each vertex sends its matches or its selected events, whichever costs less
(:func:`vertex_rate`); a selector that would cost more than the matches at some vertex is not
used (:mod:`inev.planner.alg2_placement`).

The paper prints the selected-output line with the partitioning term outside the factor
|E_v|; we multiply it too, since those events cross every link of the forwarding graph like
the others (with the term outside, a vertex with an empty forwarding graph would be charged
for events it never sends).

>>> round(participation(matches=2.0, available=100.0), 4)
1.9801
>>> participation(matches=1e6, available=3.0)
3.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from inev.planner.inev_graph import Plan, Vertex, pulled_types


def participation(matches: float, available: float) -> float:
    """Distinct events, of a type arriving at ``available``, in ``matches`` matches per time unit.

    ``available · (1 − exp(−matches / available))``: at most ``min(available, matches)``.
    """
    if available <= 0.0 or matches <= 0.0:
        return 0.0
    if math.isinf(matches):
        return available
    return available * -math.expm1(-matches / available)


def single_selectivity(projection_rate: float, type_rate: float) -> float:
    """σ(e, p) = 1 − exp(−R(p) / R(e)): the chance that an e event occurs in a match of p.

    >>> single_selectivity(10.0, 10.0) == 1 - math.exp(-1)
    True
    """
    if type_rate <= 0.0:
        return 0.0
    if math.isinf(projection_rate):
        return 1.0
    return -math.expm1(-projection_rate / type_rate)


def vertex_rate(
    matches: float,
    output: Iterable[str] | None,
    available: Callable[[str], float] | None = None,
) -> float:
    """What one vertex sends per link: its ``matches``, or the selected events of ``output``.

    ``available(e)`` is the rate at which e events reach the vertex (R(e), or the local rate
    of the partitioning type at a multi-node vertex's own node).

    >>> vertex_rate(5.0, None)
    5.0
    >>> vertex_rate(5.0, ["A"], {"A": 1.0}.__getitem__) < 1.0
    True
    """
    if output is None:
        return matches
    assert available is not None
    return math.fsum(participation(matches, available(e)) for e in output)


def transmission_cost(links: int, rate: float) -> float:
    """tc(v) = |E_v| · rate."""
    return links * rate


def psi(vertices: Iterable[Vertex]) -> float:
    """ψ(I) = Σ_v tc(v)."""
    return math.fsum(v.cost for v in vertices)


def vertex_cost_from_plan(plan: Plan, vertex: Vertex) -> float:
    """tc(v) recomputed from the plan alone (projection rates, type rates, per-source rates).

    A pulled event vertex of a push-pull plan sends what its requests pull (its ``rate``,
    which rests on its query's prefix rates): that one is taken as recorded.
    """
    info = plan.projections[vertex.projection]
    if not vertex.inputs and any(info.types[0] in ts for ts in pulled_types(plan).values()):
        return transmission_cost(len(vertex.forwarding), vertex.rate)
    glob = {k: v[1] for k, v in plan.type_rates.items()}

    def local(name: str, node: object) -> float:
        per_source: Mapping = plan.source_rates.get(name, {})
        return (
            per_source.get(node, plan.type_rates[name][0])
            if per_source
            else plan.type_rates[name][0]
        )

    if len(info.types) == 1 and info.pattern == info.types[0]:
        return transmission_cost(len(vertex.forwarding), local(info.types[0], vertex.node))
    matches = info.rate
    part = vertex.partition
    if part is not None:
        matches *= local(part, vertex.node) / glob[part]

    def available(e: str) -> float:
        return local(e, vertex.node) if e == part else glob[e]

    return transmission_cost(len(vertex.forwarding), vertex_rate(matches, vertex.output, available))


def ratio(psi_value: float, centralized: float) -> float:
    """The transmission ratio ψ / centralized cost."""
    return psi_value / centralized if centralized > 0 else 1.0
