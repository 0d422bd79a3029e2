"""Changes at run time cut a simulation into epochs (INEv §6.6; see :mod:`inev.simulator.run`).

An epoch is ``(start, stop, network, plan, repair figures)``: the plan repaired at each change
time, the changes applied to the network in SimPy, and the report of messages and lost
matches around each change.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from inev.common.errors import InevError
from inev.planner.changes import apply_changes
from inev.planner.inev_graph import Plan
from inev.planner.repair import repair_plan
from inev.simulator.engine.events import Event
from inev.simulator.execution import PlanExecution
from inev.simulator.simpy_network import SimNetwork
from inev.topologies.network import Network
from inev.topologies.network_entries import link_key
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
    """At each epoch's start: links and nodes go down or up, executions reroute (around
    lost links and dead nodes) and lose what dead nodes held (:meth:`PlanExecution.node_down`).
    Returns the list that will hold the message count at each change."""
    marks: list[int] = []

    def change_at(k: int) -> None:
        marks.append(sim.messages)
        previous, current = epochs[k - 1][2], epochs[k][2]
        old = {link_key(u, v) for u, v, _ in previous.links}
        new = {link_key(u, v) for u, v, _ in current.links}
        for key in old - new - sim.down:
            sim.down_by[key] = k - 1
        sim.down |= old - new
        sim.down -= new
        lost = set(previous.nodes) - set(current.nodes)
        for node in lost:
            sim.down_by[node] = k - 1
        sim.dead |= lost
        for execution in executions:
            if execution.losses is not None:
                execution.losses.current = k - 1
            if lost:
                execution.node_down(lost, k - 1)
            if sim.down:
                execution.reroute(sim.reach)

    for k in range(1, len(epochs)):
        sim.env.timeout(epochs[k][0]).callbacks.append(lambda _e, k=k: change_at(k))
    return marks


def alive_events(epochs: list[Epoch], events: Sequence[Event]) -> list[Event]:
    """The events of nodes that are up at their time (a node that is down generates nothing,
    for the centralized reference as for the run; a replayed trace may hold such events).

    >>> from inev.simulator.engine.events import make_event
    >>> a = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0, 1])})
    >>> epochs = [(0.0, 5.0, a, None, {}), (5.0, 9.0, a.without(nodes=[1]), None, {})]
    >>> [e.id for e in alive_events(epochs, [make_event(t, "A", 1, t) for t in (4.0, 6.0)])]
    [4.0]
    """
    if len(epochs) == 1:
        return list(events)
    starts = [start for start, *_ in epochs]
    nodes = [set(net.nodes) for _, _, net, _, _ in epochs]
    return [e for e in events if e.node in nodes[max(bisect_right(starts, e.time) - 1, 0)]]


def change_report(
    epochs: list[Epoch],
    marks: list[int],
    total: int,
    lost_by_cause: Sequence[Mapping[str, int]],
) -> list[dict[str, Any]]:
    """Messages and ratio before and after each change, repairs, and the matches lost to it
    by cause (:func:`inev.simulator.losses.attribute`; ``lost`` is their sum)."""
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
        causes = dict(sorted(lost_by_cause[k - 1].items())) if lost_by_cause else {}
        entry = dict(epochs[k][4])
        entry.update(
            messages_before=counts[k - 1],
            messages_after=counts[k],
            rate_before=counts[k - 1] / max(when - before_start, 1e-12),
            rate_after=counts[k] / max(after_stop - when, 1e-12),
            lost=sum(causes.values()),
            lost_by_cause=causes,
        )
        report.append(entry)
    return report
