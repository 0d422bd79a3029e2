"""The transmission cost model of the INEv paper (§5.3): tc(v), ψ(I) and the ratio.

For a vertex v with forwarding graph (V_v, E_v) of a projection p placed on |V_p| nodes::

    tc(v) = |E_v| · R(p) / |V_p|                                       if v_os = ≡
    tc(v) = |E_v| · (Σ_{e ∈ v_os \\ part(p)} σ(e, p) · R(e) + [part(p) ∈ v_os] · r(part(p)) · σ(part(p), p))

The paper prints the second line with the partitioning term outside the factor |E_v|; we
multiply it too, since those events cross every link of the forwarding graph like the
others (with the term outside, a vertex with an empty forwarding graph would be charged for
events it never sends). An event vertex (a single type at one source) sends r(e) per link.

>>> link_rate(1000.0, None, 4)
250.0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from inev.planner.plan import Plan, Vertex


def link_rate(
    total_rate: float,
    output: Iterable[str] | None,
    placements: int,
    *,
    partition: str | None = None,
    global_rates: Mapping[str, float] | None = None,
    local_rates: Mapping[str, float] | None = None,
    single: Callable[[str], float] | None = None,
) -> float:
    """Rate sent per link by one vertex of a projection (the factor of |E_v| in tc(v))."""
    if output is None:
        return total_rate / max(placements, 1)
    assert global_rates is not None and single is not None
    out = 0.0
    for e in output:
        if e == partition:
            assert local_rates is not None
            out += local_rates[e] * single(e)
        else:
            out += global_rates[e] * single(e)
    return out


def transmission_cost(links: int, rate: float) -> float:
    """tc(v) = |E_v| · rate."""
    return links * rate


def psi(vertices: Iterable[Vertex]) -> float:
    """ψ(I) = Σ_v tc(v)."""
    return float(sum(v.cost for v in vertices))


def vertex_cost_from_plan(plan: Plan, vertex: Vertex) -> float:
    """tc(v) recomputed from the plan alone (projection rates, single selectivities, type rates)."""
    info = plan.projections[vertex.projection]
    local = {k: v[0] for k, v in plan.type_rates.items()}
    glob = {k: v[1] for k, v in plan.type_rates.items()}
    if len(info.types) == 1 and info.pattern == info.types[0]:
        rate = local[info.types[0]]
    else:
        count = len(plan.vertices_of(vertex.projection))
        rate = link_rate(
            info.rate,
            vertex.output,
            count,
            partition=vertex.partition,
            global_rates=glob,
            local_rates=local,
            single=info.single_selectivity,
        )
    return transmission_cost(len(vertex.forwarding), rate)


def ratio(psi_value: float, centralized: float) -> float:
    """The transmission ratio ψ / centralized cost."""
    return psi_value / centralized if centralized > 0 else 1.0
