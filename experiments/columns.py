"""The one table of sweep columns: human names, units and kinds, for tables and plots.

Every metric column of the results (:data:`METRICS`) and every parameter a sweep can vary
has an entry; the Parquet schema (:mod:`inev.experiments.results`), the summary table, the
plots' axis labels and ``inev plot --help`` all read it. Two latencies are kept apart: the
planner's **model latency** ℓ(I) (§5.4, hops plus ξ times a partial-match rate: a model
score) and the simulator's **detection latency** (time units).

``kind`` is the Parquet type (``float``, ``int``, ``bool``, ``str``); ``count`` marks
integer quantities (integer axis ticks); ``log`` a quantity drawn on a log axis by default.

>>> axis_label("sim_latency_p99")
'detection latency p99 (time units)'
>>> axis_label("cost"), method_name("lower_bound")
('transmission cost ψ (events / time unit)', 'provable lower bound')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """A column's human name, unit and kind."""

    label: str
    unit: str = ""
    kind: str = "float"
    count: bool = False
    log: bool = False


RATE = "events / time unit"
TIME = "time units"
MODEL = "hops + ξ·pm, §5.4"

METRICS: dict[str, Column] = {
    "cost": Column("transmission cost ψ", RATE, log=True),
    "centralized_cost": Column("centralized cost", RATE, log=True),
    "ratio": Column("transmission ratio (ψ / centralized)", log=True),
    "lower_bound": Column("provable lower bound of ψ", RATE, log=True),
    "ratio_to_lower_bound": Column("ψ / lower bound", log=True),
    "below_lower_bound": Column("ψ below the lower bound", kind="bool"),
    "approximate_bound": Column("§7.2 approximation (not a bound)", RATE, log=True),
    "kept": Column("plan kept", kind="str"),
    "latency": Column("model latency ℓ(I)", MODEL),
    "centralized_latency": Column("centralized model latency", MODEL),
    "planning_seconds": Column("planning time", "s", log=True),
    "projections": Column("projections placed", kind="int", count=True),
    "multi_node": Column("multi-node placements", kind="int", count=True),
    "broken_ratio": Column("ratio after the change, not repaired", log=True),
    "local_repair_ratio": Column("ratio after §6.6's local repair alone", log=True),
    "repaired_ratio": Column(
        "ratio after repair with fallback (old or centralized plan)", log=True
    ),
    "replanned_ratio": Column("ratio after re-planning", log=True),
    "incremental_ratio": Column("ratio after the incremental repair (issue 44)", log=True),
    "incremental_gain": Column("incremental repair's ψ / broken ψ", log=True),
    "incremental_over_replanned": Column("incremental repair's ψ / re-planned ψ", log=True),
    "projections_moved": Column("projections the incremental repair moved", count=True),
    "partial_matches_shipped": Column(
        "partial matches the incremental repair ships (model estimate)", log=True
    ),
    "broken_cannot_run": Column("the old plan cannot run on the changed network (0/1)"),
    "repair_kept": Column("plan the repair kept (local, old, centralized)", kind="str"),
    "repair_fallback": Column("repair fell back to the old or centralized plan (0/1)"),
    "hops": Column("hops of the forwarding graphs", kind="int", count=True),
    "latency_ratio": Column("model latency ratio ℓ(I) / centralized"),
    "ratio_to_approximate_bound": Column("ψ / §7.2 approximation", log=True),
    "repair_gain": Column("repaired ψ (with fallback) / broken ψ", log=True),
    "local_repair_gain": Column("ψ after §6.6's local repair / broken ψ", log=True),
    "replan_gain": Column("re-planned ψ / broken ψ", log=True),
    "rate_change_increase": Column("ratio after the change / ratio before", log=True),
    "rate_change_worst": Column("worst epoch's ratio / ratio before", log=True),
    "invalid_projection_share": Column("share of projections invalid (harmful)"),
    "invalid_multi_node_share": Column("share of multi-node placements invalid (Eq. 1)"),
    "max_events_per_window": Column("most events of one type per window, max R(e)·w", log=True),
    "min_events_per_window": Column("fewest events of one type per window, min R(e)·w", log=True),
    "ppop_over_inev": Column("ψ push-pull / ψ INEv", log=True),
    "flouris_over_inev": Column("ψ push-pull (Flouris et al.) / ψ INEv", log=True),
    "yardstick": Column("yardstick: exact ψ, else max(§7.2 approximation, bound)", RATE, log=True),
    "yardstick_kind": Column("yardstick used", kind="str"),
    "yardstick_exact": Column("yardstick is the exact optimum (0/1)"),
    "ratio_to_yardstick": Column("ψ / yardstick", log=True),
    "yardstick_missing": Column("no yardstick (approximation and bound 0)", kind="bool"),
    "exact_psi": Column("exact optimum ψ*", RATE, log=True),
    "approximation_below_bound": Column("§7.2 approximation below the bound", kind="bool"),
    "possible_projections": Column("possible projections", kind="int", count=True),
    "mean_hops": Column("mean hop distance δ of the network", "hops"),
    "kept_centralized": Column("INEv plan is centralized evaluation (0/1)"),
    "sources_per_type": Column("sources per event type (workload's types)"),
    "sharing_ratio": Column("ψ sharing-aware / ψ each query alone"),
    "counterpart_ratio": Column("ratio of the query without the operator", log=True),
    "operator_effect": Column("ratio with operator / without", log=True),
    "operator_partitions": Column("operator's type partitions a multi-node placement (0/1)"),
    "counterpart_partitions": Column("... in the plan without the operator (0/1)"),
    "order_std": Column("std of the ratio over query orders"),
    "sim_latency_ratio": Column("simulated latency ratio INEv / centralized", log=True),
    "sim_throughput_ratio": Column("measured throughput INEv / centralized", log=True),
    "sim_load_ratio": Column("busiest node's load, centralized / INEv", log=True),
    "sim_throughput": Column("measured throughput", RATE),
    "sim_backlog": Column("backlog worked off after the input stopped", TIME),
    "sim_plan_ratio": Column("model ratio of the simulated plan", log=True),
    "sim_messages": Column("simulated messages", kind="int", count=True, log=True),
    "sim_ratio": Column("simulated transmission ratio", log=True),
    "sim_deviation": Column("simulated messages vs. model (relative)"),
    "sim_equal": Column("simulated matches equal centralized", kind="bool"),
    "sim_latency_p50": Column("detection latency p50", TIME),
    "sim_latency_p99": Column("detection latency p99", TIME),
    "sim_matches": Column("simulated matches", kind="int", count=True),
    "sim_latency_mean": Column("mean detection latency", TIME),
    "sim_hops": Column("hops of the simulated plan", kind="int", count=True),
    "sim_late": Column("items refused as late", kind="int", count=True),
    "sim_load": Column("load of the busiest node (needed / capacity)"),
    "sim_utilisation": Column("utilisation of the busiest node"),
    "sim_queue_latency": Column("longest queueing delay", TIME),
    "sim_false_negatives": Column("false negatives", kind="int", count=True),
    "sim_false_negative_share": Column("false negatives (weighted share)"),
    "sim_false_positives": Column("false positives", kind="int", count=True),
    "sim_bound_violations": Column("latency-bound violations", kind="int", count=True),
    "sim_bound_forced": Column("negated events forced past the bound", kind="int", count=True),
    "sim_shed_partial_matches": Column("partial matches shed", kind="int", count=True),
    "sim_shed_events": Column("events shed", kind="int", count=True),
}
"""Metric columns of the sweep results, in schema order."""

PARAMETERS: dict[str, Column] = {
    "nodes": Column("network size", "nodes", kind="int", count=True),
    "out_degree": Column("average out-degree"),
    "event_types": Column("event types", kind="int", count=True),
    "skew": Column("event skew (Zipf exponent)"),
    "node_ratio": Column("event node ratio"),
    "topology": Column("topology", kind="str"),
    "queries": Column("queries in the workload", kind="int", count=True),
    "length": Column("query length", "event types", kind="int", count=True),
    "min_length": Column("shortest query length (0: all of length)", kind="int", count=True),
    "kleene": Column("KL operators per query", kind="int", count=True),
    "negation": Column("NSEQ operators per query", kind="int", count=True),
    "selectivity": Column("selectivity scale", log=True),
    "window": Column("time window", TIME),
    "events_per_window": Column("events per window (of the busiest or rarest type)", log=True),
    "window_type": Column("type whose events per window are set", kind="str"),
    "latency_factor": Column("latency bound factor (× centralized)"),
    "effort": Column("planner search effort"),
    "xi": Column("latency ratio ξ (§5.4)"),
    "exact_optimum": Column("exact optimum planned", kind="bool"),
    "operator_type": Column("type of the KL child / negated type", kind="str"),
    "operator_share": Column("share of queries with KL and NSEQ"),
    "query_orders": Column("query orders planned", kind="int", count=True),
    "swap_from": Column("rate swaps chosen", kind="str"),
    "rate_swap": Column("share of types with swapped rates"),
    "rate_variance": Column("rate variance (share of the estimate)"),
    "variance_epochs": Column("epochs the rates vary over", kind="int", count=True),
    "links_removed": Column("links removed", kind="int", count=True),
    "nodes_removed": Column("nodes removed", kind="int", count=True),
    "simulate": Column("simulated", kind="bool"),
    "duration": Column("simulated duration", TIME),
    "sim_rate": Column("input rate", RATE),
    "link_latency": Column("per-hop latency", TIME),
    "hop_rank": Column("latency graph (1 fewest hops, 3 most)", kind="int", count=True),
    "capacity": Column("node capacity", "work units / time unit"),
    "overload": Column("input as a share of capacity"),
    "capacity_from": Column("capacity measured on", kind="str"),
    "latency_bound": Column("latency bound", TIME),
    "shed": Column("shedding strategy", kind="str"),
    "seed": Column("seed", kind="int", count=True),
    "method": Column("method", kind="str"),
}
"""Sweep parameters (and the ``seed`` and ``method`` columns)."""

METHOD_NAMES = {
    "inev": "INEv",
    "centralized": "centralized",
    "ppop": "push-pull (PPoP)",
    "ppop-flouris": "push-pull after Flouris et al.",
    "isolated": "INEv, each query alone",
    "lower_bound": "provable lower bound",
}
"""How legends and tables name the methods."""


def column(name: str) -> Column:
    """The entry of a metric or parameter (a bare entry named after unknown columns)."""
    return METRICS.get(name) or PARAMETERS.get(name) or Column(name.replace("_", " "))


def axis_label(name: str) -> str:
    """The human name of a column with its unit in parentheses."""
    c = column(name)
    return f"{c.label} ({c.unit})" if c.unit else c.label


def method_name(method: str) -> str:
    """The human name of a method."""
    return METHOD_NAMES.get(method, method)
