"""The parameters of a sweep task: every configuration key, typed, with its default
(:class:`TaskConfig`, and as a table :data:`DEFAULTS`), the bounds a value must keep
(:data:`LIMITS`, :data:`LOWER`, :data:`MAX_VALUE`) and the words a text key may take
(:data:`CHOICES`).
:mod:`inev.experiments.spec` checks a sweep file's values against them.

>>> DEFAULTS["nodes"], LIMITS["selectivity"], CHOICES["window_type"]
(20, 1.0, ('busiest', 'rarest'))
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from inev.common.errors import InevError
from inev.planner.options import PLAN_DEFAULTS
from inev.topologies.generator_options import NETWORK_DEFAULTS, NetworkSettings
from inev.topologies.schema import MAX_NODES
from inev.workloads.generator_options import (
    VARIANT_DEFAULTS,
    WORKLOAD_DEFAULTS,
    VariantSettings,
    WorkloadSettings,
)


@dataclass(frozen=True)
class TaskConfig:
    """The configuration of one sweep task: every parameter a sweep file may set, typed, with
    its default (the network's, the workload's and the planner's are those of their
    generators and options, written once there). A sweep task's
    :meth:`~inev.experiments.spec.Task.config` is one, and
    :func:`inev.experiments.measure.measure` reads it.

    ``latency_factor = 0`` means no latency bound for planning, ``capacity = overload = 0`` no
    processing capacity; every other 0 switches its feature off.

    Examples
    --------
    >>> config = TaskConfig(nodes=7, rate_swap=0.5)
    >>> config.nodes, config.skew, config.network_settings().nodes
    (7, 1.3, 7)
    >>> TaskConfig.from_mapping({"nodse": 7})
    Traceback (most recent call last):
    inev.common.errors.InevError: unknown task parameter 'nodse' (did you mean 'nodes'?)
    """

    # event network (INEv paper §7.1 defaults, written in inev.topologies.generator_options)
    nodes: int = NETWORK_DEFAULTS.nodes
    out_degree: float = NETWORK_DEFAULTS.out_degree
    event_types: int = NETWORK_DEFAULTS.event_types
    skew: float = NETWORK_DEFAULTS.skew
    node_ratio: float = NETWORK_DEFAULTS.node_ratio
    topology: str = NETWORK_DEFAULTS.topology
    # workload
    queries: int = WORKLOAD_DEFAULTS.queries
    length: int = WORKLOAD_DEFAULTS.length
    min_length: int = VARIANT_DEFAULTS.min_length
    """> 0: each query's length is drawn uniformly from min_length to length (Fig. 8)."""
    kleene: int = WORKLOAD_DEFAULTS.kleene
    negation: int = WORKLOAD_DEFAULTS.negation
    selectivity: float = WORKLOAD_DEFAULTS.selectivity
    window: float = WORKLOAD_DEFAULTS.window
    events_per_window: float = 0.0
    """> 0: the window is set so that the busiest (``window_type = "busiest"``) or the rarest
    (``"rarest"``) of the workload's types has this many events per window, R(e)·w (the x
    axis of the INEv paper's Fig. 4a and 4b); 0: ``window`` as given."""
    window_type: str = "busiest"
    latency_factor: float = 0.0
    """Planning: the latency bound factor (0: none)."""
    effort: float = PLAN_DEFAULTS.effort
    """The search effort (0: the paper's single pass of Alg. 1 + Alg. 2)."""
    xi: float = PLAN_DEFAULTS.xi
    """ξ of the latency model (§5.4)."""
    exact_optimum: bool = False
    """Also plan the exact optimum (the planner's ``exact`` method, where it exists and the
    instance is small enough) as the yardstick of Fig. 5a."""
    operator_type: str = VARIANT_DEFAULTS.operator_type
    """Paper figures (:mod:`inev.workloads.paper_variants`): the type the KL child or negated
    type gets (random, max or min rate; max/min also plan the operator-free counterpart,
    Fig. 7)."""
    operator_share: float = VARIANT_DEFAULTS.operator_share
    """The share of queries that carry the KL/NSEQ operators (Fig. 8a: a third)."""
    query_orders: int = 0
    """The number of random query orders to plan with (std of the ratio, Fig. 10b; 0: none)."""
    rate_swap: float = 0.0
    """Dynamics (0: none): the share of types whose rates are swapped, in random pairs, or from
    the middle of the rate order outwards with ``swap_from = "middle"`` (Fig. 9)."""
    swap_from: str = "random"
    rate_variance: float = 0.0
    """Relative rate noise."""
    variance_epochs: int = 0
    """> 0: the rates vary over the run instead of changing once: that many epochs, each with
    every type's rate drawn uniformly within ±rate_variance of its estimate (Fig. 9e)."""
    links_removed: int = 0
    """Links removed after planning."""
    nodes_removed: int = 0
    """Nodes removed after planning."""
    simulate: bool = False
    """Simulation (false: planning metrics only): the plans are also executed by the network
    simulator for ``duration`` time units, on the network with its rates rescaled (same
    proportions) so that the workload's types produce ``sim_rate`` events per time unit."""
    duration: float = 20.0
    sim_rate: float = 20.0
    link_latency: float = 0.0
    """> 0: every link gets that latency (a per-hop delay, Fig. 12b)."""
    hop_rank: int = 0
    """1, 2 or 3 (0: off): simulate not the INEv plan but the one with the fewest (1), the
    middle (2) or the most (3) hops among INEv plans of the same workload under a ladder of
    latency bounds (the paper's three latency graphs of Fig. 12b)."""
    capacity: float = 0.0
    """Overload (simulated rows only; 0: off): every node gets ``capacity`` work units per
    time unit."""
    overload: float = 0.0
    """> 0: the capacity that puts the busiest node of the unlimited run at that share
    (capacity = auto:1/overload)."""
    capacity_from: str = "self"
    """``"centralized"``: ``overload`` is relative to the busiest node of the centralized
    plan's unlimited run, and every method gets that same capacity."""
    latency_bound: float = 0.0
    """The latency bound per node (0: none)."""
    shed: str = "none"
    """The shedding strategy (none, pspice, random-pm, random-event, type-utility)."""

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> TaskConfig:
        """The configuration with ``values`` over the defaults (an unknown key: one-line
        :class:`~inev.common.errors.InevError`); the values are taken as given (a sweep
        file's are checked by :func:`inev.experiments.spec.parse_spec`)."""
        known = {f.name for f in fields(cls)}
        for key in values:
            if key not in known:
                close = difflib.get_close_matches(str(key), sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InevError(f"unknown task parameter {key!r}{hint}")
        return cls(**values)

    def network_settings(self) -> NetworkSettings:
        """The synthetic network's settings of this task."""
        return NetworkSettings(**self._picked(NetworkSettings))

    def workload_settings(self) -> WorkloadSettings:
        """The synthetic workload's settings of this task."""
        return WorkloadSettings(**self._picked(WorkloadSettings))

    def variant_settings(self) -> VariantSettings:
        """The paper figures' workload variant of this task."""
        return VariantSettings(**self._picked(VariantSettings))

    def _picked(self, settings: type) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(settings)}


DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(TaskConfig)}
"""Every configuration key with its default (:class:`TaskConfig`'s, in its order)."""


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
