"""The parameters of a sweep task: every configuration key with its default
(:data:`DEFAULTS`), the bounds a value must keep (:data:`LIMITS`, :data:`LOWER`,
:data:`MAX_VALUE`) and the words a text key may take (:data:`CHOICES`).
:mod:`inev.experiments.spec` checks a sweep file's values against them.

>>> DEFAULTS["nodes"], LIMITS["selectivity"], CHOICES["window_type"]
(20, 1.0, ('busiest', 'rarest'))
"""

from __future__ import annotations

from typing import Any

from inev.planner.options import PLAN_DEFAULTS
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.schema import MAX_NODES
from inev.workloads.generator_options import VARIANT_DEFAULTS, WORKLOAD_DEFAULTS

DEFAULTS: dict[str, Any] = {
    # event network (INEv paper §7.1 defaults, written in inev.topologies.generator_options)
    "nodes": NETWORK_DEFAULTS.nodes,
    "out_degree": NETWORK_DEFAULTS.out_degree,
    "event_types": NETWORK_DEFAULTS.event_types,
    "skew": NETWORK_DEFAULTS.skew,
    "node_ratio": NETWORK_DEFAULTS.node_ratio,
    "topology": NETWORK_DEFAULTS.topology,
    # workload
    "queries": WORKLOAD_DEFAULTS.queries,
    "length": WORKLOAD_DEFAULTS.length,
    # > 0: each query's length is drawn uniformly from min_length to length (Fig. 8)
    "min_length": VARIANT_DEFAULTS.min_length,
    "kleene": WORKLOAD_DEFAULTS.kleene,
    "negation": WORKLOAD_DEFAULTS.negation,
    "selectivity": WORKLOAD_DEFAULTS.selectivity,
    "window": WORKLOAD_DEFAULTS.window,
    # > 0: the window is set so that the busiest (``window_type = "busiest"``) or the rarest
    # (``"rarest"``) of the workload's types has this many events per window, R(e)·w (the x
    # axis of the INEv paper's Fig. 4a and 4b); 0: ``window`` as given
    "events_per_window": 0.0,
    "window_type": "busiest",
    # planning: latency bound factor (0 = none), search effort (0 = the paper's single pass of
    # Alg. 1 + Alg. 2), ξ of the latency model (§5.4)
    "latency_factor": 0.0,
    "effort": PLAN_DEFAULTS.effort,
    "xi": PLAN_DEFAULTS.xi,
    # also plan the exact optimum (the planner's ``exact`` method, where it exists and the
    # instance is small enough) as the yardstick of Fig. 5a
    "exact_optimum": False,
    # paper figures (workloads/paper_variants.py): the type the KL child or negated type
    # gets (random, max or min rate; max/min also plan the operator-free counterpart, Fig. 7),
    # the share of queries that carry the KL/NSEQ operators (Fig. 8a: a third), the number of
    # random query orders to plan with (std of the ratio, Fig. 10b; 0 = none)
    "operator_type": VARIANT_DEFAULTS.operator_type,
    "operator_share": VARIANT_DEFAULTS.operator_share,
    "query_orders": 0,
    # dynamics (0 = none): share of types whose rates are swapped (random pairs, or from the
    # middle of the rate order outwards with swap_from = "middle", Fig. 9), relative rate noise,
    # links and nodes removed after planning
    "rate_swap": 0.0,
    "swap_from": "random",
    "rate_variance": 0.0,
    # > 0: the rates vary over the run instead of changing once: that many epochs, each with
    # every type's rate drawn uniformly within ±rate_variance of its estimate (Fig. 9e)
    "variance_epochs": 0,
    "links_removed": 0,
    "nodes_removed": 0,
    # simulation (false = planning metrics only): the plans are also executed by the network
    # simulator for ``duration`` time units, on the network with its rates rescaled (same
    # proportions) so that the workload's types produce ``sim_rate`` events per time unit;
    # ``link_latency`` > 0 gives every link that latency (a per-hop delay, Fig. 12b)
    "simulate": False,
    "duration": 20.0,
    "sim_rate": 20.0,
    "link_latency": 0.0,
    # 1, 2 or 3 (0 = off): simulate not the INEv plan but the one with the fewest (1), the
    # middle (2) or the most (3) hops among INEv plans of the same workload under a ladder of
    # latency bounds (the paper's three latency graphs of Fig. 12b)
    "hop_rank": 0,
    # overload (simulated rows only; 0 = off): every node gets ``capacity`` work units per
    # time unit, or, with ``overload``, the capacity that puts the busiest node of the
    # unlimited run at that share (capacity = auto:1/overload); ``latency_bound`` per node and
    # the ``shed`` strategy (none, pspice, random-pm, random-event, type-utility);
    # ``capacity_from = "centralized"``: ``overload`` is relative to the busiest node of the
    # centralized plan's unlimited run, and every method gets that same capacity
    "capacity": 0.0,
    "overload": 0.0,
    "capacity_from": "self",
    "latency_bound": 0.0,
    "shed": "none",
}
"""Every configuration key with its default; ``latency_factor = 0`` means no latency bound
for planning, ``capacity = overload = 0`` no processing capacity."""


LIMITS: dict[str, float] = {
    "nodes": MAX_NODES,
    "event_types": 1_000,
    "queries": 1_000,
    "length": 1_000,
    "min_length": 1_000,
    "kleene": 1_000,
    "negation": 1_000,
    "links_removed": 1_000_000,
    "nodes_removed": MAX_NODES,
    "out_degree": MAX_NODES,
    "node_ratio": 1.0,
    "selectivity": 1.0,
    "rate_swap": 1.0,
    "skew": 1_000.0,
    "effort": 100.0,
    "operator_share": 1.0,
    "query_orders": 1_000,
    "variance_epochs": 1_000,
    "hop_rank": 3,
}
"""The largest value of a configuration key (others: :data:`MAX_VALUE`). The sizes follow the
file limits (:mod:`inev.topologies.schema`); shares and selectivities are at most 1."""


LOWER: dict[str, tuple[float, bool]] = {
    "nodes": (1, True),
    "event_types": (1, True),
    "queries": (1, True),
    "length": (2, True),
    "out_degree": (0, False),
    "skew": (1, False),
    "node_ratio": (0, False),
    "selectivity": (0, False),
    "window": (0, False),
}
"""``{key: (bound, bound allowed)}``: the smallest values the generators and the planner
accept (a network needs a node and an event type, Zipf rates a skew above 1, a query two
types). Below them every task of the sweep would fail, so the spec is refused before any
runs."""


MAX_VALUE = 1e12
"""The largest value of any other numeric configuration key."""


CHOICES: dict[str, tuple[str, ...]] = {
    "operator_type": ("random", "max", "min"),
    "swap_from": ("random", "middle"),
    "window_type": ("busiest", "rarest"),
}
"""The values a text configuration key may take (``shed`` and ``capacity_from`` are checked
with the overload settings)."""
