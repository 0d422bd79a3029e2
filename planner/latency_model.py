"""The latency model of the INEv paper (§5.4): processing, transmission and overall latency.

* Processing latency ℓ_p(v) = pm(v_proj) / |V_p|. The paper leaves pm(p), the rate of partial
  matches created while evaluating p, open; we take a left-deep evaluation of p's inputs in
  ascending order of their rates and charge the rate of every prefix:
  pm(p) = Σ_{k=1..|λ(p)|} R(p restricted to the types of the first k inputs). The last term
  is R(p) itself, the first the rate of the rarest input.
* Transmission latency ℓ_t(v) = max over predecessors w of the hop distance from w_node to
  v_node inside w's forwarding graph.
* ℓ_v(v) = ξ · ℓ_p(v) + ℓ_t(v) + max_w ℓ_v(w) (0 without predecessors); ℓ(I) is the maximum
  over the sink vertices of the queries.

>>> from inev.planner.projections import primitive_projection
>>> prefix_rates([primitive_projection("A", 5.0), primitive_projection("B", 1.0)])
[1.0, 5.0]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from inev.planner.inev_graph import Vertex
from inev.planner.options import DEFAULT_XI
from inev.planner.projections import Projection, projection_rate
from inev.planner.steiner import bfs


def prefix_rates(inputs: Sequence[Projection]) -> list[float]:
    """The input rates in ascending order (the evaluation order pm assumes)."""
    return sorted(p.rate for p in inputs)


def partial_match_rate(
    projection: Projection, inputs: Iterable[Projection], global_rates: Mapping[str, float]
) -> float:
    """pm(p) for ``projection`` evaluated over ``inputs`` (see the module docstring)."""
    ordered = sorted(inputs, key=lambda p: (p.rate, p.key))
    covered: set[str] = set()
    total = 0.0
    for i in ordered:
        covered |= i.types
        if covered >= projection.types:
            total += projection.rate
            break
        total += projection_rate(projection, covered, global_rates)
    return total


def vertex_latencies(
    vertices: Sequence[Vertex],
    projections: Mapping[str, Projection],
    inputs: Mapping[str, tuple[str, ...]],
    global_rates: Mapping[str, float],
    xi: float = DEFAULT_XI,
) -> dict[int, float]:
    """ℓ_v(v) for every vertex (vertices must be in topological order)."""
    counts: dict[str, int] = {}
    for v in vertices:
        counts[v.projection] = counts.get(v.projection, 0) + 1
    pm_cache: dict[str, float] = {}
    by_id = {v.id: v for v in vertices}
    reach: dict[int, dict] = {}
    out: dict[int, float] = {}
    group_max: dict[tuple[int, ...], float] = {}
    for v in vertices:
        if not v.inputs:
            out[v.id] = 0.0
            continue
        key = v.projection
        if key not in pm_cache:
            ins = [projections[i] for i in inputs.get(key, ())]
            pm_cache[key] = partial_match_rate(projections[key], ins, global_rates) if ins else 0.0
        processing = pm_cache[key] / counts[key]
        transmission = 0.0
        for w in v.inputs:
            if w not in reach:
                u = by_id[w]
                if u.hops and len(u.hops) == len(u.destinations):
                    reach[w] = dict(zip(u.destinations, u.hops, strict=True))
                else:
                    reach[w] = bfs(u.forwarding, u.node)
                reach[w][u.node] = 0
            hop = reach[w].get(v.node, math.inf)
            if hop > transmission:
                transmission = hop
        # the vertices of a multi-node projection share every input but their local one(s)
        own = len(v.local_sources)
        group = v.inputs[own:]
        if group not in group_max:
            group_max[group] = max((out[w] for w in group), default=0.0)
        upstream = max([group_max[group], *(out[w] for w in v.inputs[:own])])
        out[v.id] = xi * processing + transmission + upstream
    return out


def plan_latency(
    vertices: Sequence[Vertex],
    projections: Mapping[str, Projection],
    inputs: Mapping[str, tuple[str, ...]],
    sinks: Iterable[str],
    global_rates: Mapping[str, float],
    xi: float = DEFAULT_XI,
) -> float:
    """ℓ(I): the largest overall latency of a sink vertex."""
    lat = vertex_latencies(vertices, projections, inputs, global_rates, xi)
    sink_keys = set(sinks)
    values = [lat[v.id] for v in vertices if v.projection in sink_keys]
    return max(values) if values else 0.0
