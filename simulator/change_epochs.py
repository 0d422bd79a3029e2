"""Changes at run time cut a simulation into epochs (INEv §6.6; see :mod:`inev.simulator.run`).

An epoch is ``(start, stop, network, plan, repair figures)``: the plan repaired at each change
time, the changes applied to the network in SimPy, and the report of messages and lost
matches around each change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.planner.repair import apply_changes, repair_plan
from inev.simulator.engine.events import Event
from inev.simulator.execution import PlanExecution
from inev.simulator.simpy_network import SimNetwork
from inev.simulator.tally import Tally
from inev.topologies.network import Network, link_key
from inev.workloads.workload import Workload

Epoch = tuple[float, float, Network, Plan, dict[str, Any]]


def change_epochs(
    network: Network,
    workload: Workload,
    plan: Plan,
    changes: Sequence[Mapping[str, Any]],
    duration: float,
) -> list[Epoch]:
    """``(start, stop, network, plan, repair figures)`` per epoch between change times."""
    timed = []
    for position, change in enumerate(changes):
        when = change.get("time") if isinstance(change, Mapping) else None
        if isinstance(when, bool) or not isinstance(when, int | float) or not 0 < when < duration:
            raise InevError(
                f"change #{position + 1}: time must be inside the run (0, {duration:g})"
            )
        timed.append((float(when), position, change))
    timed.sort()
    epochs: list[Epoch] = [(0.0, duration, network, plan, {})]
    for when, group in groupby(timed, key=lambda x: x[0]):
        batch = [c for _, _, c in group]
        start, _, net_prev, plan_prev, info = epochs[-1]
        repair = repair_plan(plan_prev, net_prev, workload, batch, choose="best")
        net_next = apply_changes(net_prev, batch)
        epochs[-1] = (start, when, net_prev, plan_prev, info)
        figures = {
            "time": when,
            "changes": [dict(c) for c in batch],
            "harmful": list(repair.harmful),
            "invalid_multi_node": list(repair.invalid_multi_node),
            "broken_psi": repair.broken.psi,
            "repaired_psi": repair.repaired.psi,
            "replanned_psi": repair.replanned.psi,
            "used": _used(repair),
        }
        epochs.append((when, duration, net_next, repair.result, figures))
    return epochs


def _used(repair: Any) -> str:
    """The plan that ran after a change: replanned, repaired (§6.6's local repair), old or
    centralized (the repair kept the old plan or chose centralized evaluation)."""
    if repair.written in ("replanned", "incremental"):
        return repair.written
    return {"local": "repaired"}.get(repair.repaired.kept, repair.repaired.kept or "repaired")


def schedule_changes(
    sim: SimNetwork, epochs: list[Epoch], executions: list[PlanExecution]
) -> list[int]:
    """At each epoch's start: links and nodes go down or up, executions reroute. Returns the
    list that will hold the message count at each change."""
    marks: list[int] = []

    def change_at(k: int) -> None:
        marks.append(sim.messages)
        previous, current = epochs[k - 1][2], epochs[k][2]
        old = {link_key(u, v) for u, v, _ in previous.links}
        new = {link_key(u, v) for u, v, _ in current.links}
        sim.down |= old - new
        sim.down -= new
        lost = set(previous.nodes) - set(current.nodes)
        for execution in executions:
            execution.dead |= lost
            if sim.down:
                execution.reroute(sim.link_latency)

    for k in range(1, len(epochs)):
        sim.env.timeout(epochs[k][0]).callbacks.append(lambda _e, k=k: change_at(k))
    return marks


def change_report(
    epochs: list[Epoch],
    events: Sequence[Event],
    marks: list[int],
    total: int,
    workload: Workload,
    tally: Tally,
    central: Mapping[str, Counter],
) -> list[dict[str, Any]]:
    """Messages and ratio before and after each change, repairs, and matches lost near it."""
    counts = []
    bounds = [*marks, total]
    previous = 0
    for mark in bounds:
        counts.append(mark - previous)
        previous = mark
    report = []
    for k in range(1, len(epochs)):
        when = epochs[k][0]
        before_start, after_stop = epochs[k - 1][0], epochs[k][1]
        lost = 0
        for q, expected in central.items():
            found = tally.sink_found.get(q, Counter())
            for ids, count in expected.items():
                if found.get(ids, 0) < count:
                    first = min(e.time for e in events if e.id in set(ids))
                    if when - workload.window <= first < when + workload.window:
                        lost += count - found.get(ids, 0)
        entry = dict(epochs[k][4])
        entry.update(
            messages_before=counts[k - 1],
            messages_after=counts[k],
            rate_before=counts[k - 1] / max(when - before_start, 1e-12),
            rate_after=counts[k] / max(after_stop - when, 1e-12),
            lost=lost,
        )
        report.append(entry)
    return report
