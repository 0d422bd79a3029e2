"""What a simulation measures besides matches: message counters and centralized gathering.

The run's ratio is measured against gathering the trace's events at the plan's centralized
node (see :mod:`inev.simulator.run`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from inev.common.stats import latency_summary
from inev.planner import centralized_node
from inev.planner.inev_graph import Plan
from inev.simulator.engine.events import Event
from inev.simulator.execution import PlanExecution
from inev.simulator.simpy_network import SimNetwork
from inev.simulator.tally import Tally
from inev.topologies.network import Network
from inev.workloads.workload import Workload


def _by_link_and_type(sim: SimNetwork) -> dict[str, dict[str, int]]:
    """Messages per link (keyed as ``messages_by_link``) and per type or projection sent."""
    out: dict[str, dict[str, int]] = {}
    for ((u, v), kind), count in sorted(sim.by_link_kind.items(), key=lambda kv: str(kv[0])):
        out.setdefault(f"{u} {v}", {})[str(kind)] = count
    return out


def run_counters(sim: SimNetwork, tally: Tally, executions: list[PlanExecution]) -> dict[str, Any]:
    """The result's counters: messages (by type, link and sending vertex; links keyed as
    plan files write them), latencies, items processed per node, partial matches and
    re-optimisations per node, late items and unused events."""
    partial: Counter = Counter()
    reopt: Counter = Counter()
    for execution in executions:
        partial += execution.partial_matches()
        reopt += execution.reoptimizations()
    return {
        "messages": sim.messages,
        "messages_by_type": dict(sim.by_kind),
        "messages_by_link": {
            f"{u} {v}": c for (u, v), c in sorted(sim.by_link.items(), key=lambda kv: str(kv[0]))
        },
        "messages_by_vertex": {int(k): c for k, c in sim.by_sender.items()},
        "messages_by_link_and_type": _by_link_and_type(sim),
        "latency": {q: latency_summary(values) for q, values in tally.latencies.items()},
        "events_processed": {str(n): c for n, c in tally.processed.items()},
        "partial_matches": dict(partial),
        "reoptimizations": dict(reopt),
        "late": tally.late,
        "unused_events": dict(tally.unused),
    }


def with_centralized_node(network: Network, workload: Workload, plan: Plan) -> Plan:
    """``plan``, with the centralized node (and its cost) derived where the file lacks them (a
    plan built from another planner's combination with ``build_plan``): the run's ratio is
    measured against gathering at that node."""
    if plan.centralized_node is not None and plan.centralized_node in network.node_index:
        return plan
    node, cost = centralized_node(network, workload.types)
    return replace(plan, centralized_node=node, centralized_cost=cost)


def centralized_gathering(
    network: Network, workload: Workload, plan: Plan, events: Sequence[Event]
) -> int:
    """Messages of gathering the trace's events of the workload's types at the centralized node."""
    used = set(workload.types)
    return gathering(network, plan, Counter(e.node for e in events if e.type in used))


def gathering(network: Network, plan: Plan, per_node: Mapping[Any, int]) -> int:
    """Messages of sending ``per_node[n]`` events from each node n to the centralized node."""
    node = plan.centralized_node
    if node is None or node not in network.node_index:
        return 0
    index = network.node_index
    row = network.hops_row(node)
    return sum(int(row[index[n]]) * count for n, count in per_node.items())


def deviation(measured: float, model: float) -> float:
    """Relative deviation of a measured count from the model's (0 when both are 0)."""
    if model == 0:
        return 0.0 if measured == 0 else math.inf
    return (measured - model) / model
