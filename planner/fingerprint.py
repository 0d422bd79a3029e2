"""Which network and workload a plan was made for, and refusing a plan used with others.

A plan is only right for the network and workload it was planned on: with other rates its
figures are wrong, with fewer sources or another topology it cannot run, with other queries it
answers the wrong questions. Before this check, ``inev simulate`` ran such a plan and merely
reported ``equal_to_centralized: false``, a silent wrong answer.

``inev plan`` and ``inev repair`` therefore write ``made_for`` into the plan file (an inev
extension of ``inev-plan/1``): the fingerprints of the network and of the workload, the first
32 hex digits of the SHA-256 of their canonical documents (:func:`network_fingerprint`,
:func:`workload_fingerprint`; key order and whitespace of the input files do not matter, every
value does). :func:`check_plan_for` refuses a plan whose fingerprints differ from the files at
hand in one line. A plan without ``made_for`` (older files, plans written by other tools) is
checked by what it records instead: every type's rate and sources
(:func:`inev.planner.checks.check_fits`) and every query's pattern at its sink.

``force=True`` (``inev simulate --force``) skips that comparison, for users who mean to run a
plan on drifted rates, but never the structural checks that keep the run from failing midway:
every vertex, link, destination and type of the plan exists in the network, and the plan has a
sink for exactly the workload's queries (:func:`fit_problems`).

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0])})
>>> len(network_fingerprint(net))
32
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from inev.common.errors import InevError
from inev.planner.checks import check_fits
from inev.planner.inev_graph import Plan
from inev.topologies.io import network_to_dict
from inev.topologies.network import Network
from inev.workloads.instance import prepare_instance
from inev.workloads.io import workload_to_dict
from inev.workloads.workload import Workload

DIGITS = 32
"""Hex digits of a fingerprint (128 bits)."""


def _digest(document: dict[str, Any]) -> str:
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGITS]


def network_fingerprint(network: Network) -> str:
    """The fingerprint of a network's canonical ``inev-network/1`` document."""
    return _digest(network_to_dict(network))


def workload_fingerprint(workload: Workload) -> str:
    """The fingerprint of a workload's canonical ``inev-workload/1`` document."""
    return _digest(workload_to_dict(workload))


def stamp(plan: Plan, network: Network, workload: Workload) -> Plan:
    """``plan`` recording that it was made for ``network`` and ``workload``."""
    made_for = {
        "network": network_fingerprint(network),
        "workload": workload_fingerprint(workload),
    }
    return replace(plan, made_for=made_for)


def fit_problems(plan: Plan, network: Network, workload: Workload) -> list[str]:
    """What keeps ``plan`` from running on ``network`` and ``workload`` at all (the first
    problem of each kind): unknown nodes, links or types, and sinks that do not match the
    workload's queries (after OR is split, as the planner does). A plan names each pattern
    variable (``SEQ(C a, D)``) as a stream of its own, so its types are checked against the
    network the planner planned on (the prepared instance's ``planning_network``)."""
    instance = prepare_instance(network, workload)
    return [
        *_network_problems(plan, instance.planning_network),
        *_workload_problems(plan, instance.workload),
    ]


def _network_problems(plan: Plan, network: Network) -> list[str]:
    """Nodes, links and types of ``plan`` that ``network`` lacks (the first of each kind)."""
    problems: list[str] = []
    index = network.node_index
    for v in plan.vertices:
        unknown = [n for n in (v.node, *v.destinations) if n not in index]
        if unknown:
            problems.append(f"vertex {v.id} is at or sends to node {unknown[0]!r}, not a node of")
            break
        missing = [(a, b) for a, b in v.forwarding if not network.graph.has_edge(a, b)]
        if missing:
            problems.append(f"vertex {v.id} forwards over link {list(missing[0])}, not a link of")
            break
    nodes = (*plan.fallback.values(), plan.centralized_node)
    strangers = [n for n in nodes if n is not None and n not in index]
    if strangers:
        problems.append(f"its fall-back or centralized node {strangers[0]!r} is not a node of")
    types = [t for t in plan.type_rates if t not in network.event_types]
    if types:
        problems.append(f"its event type {types[0]} is not a type of")
    return problems


def _workload_problems(plan: Plan, workload: Workload) -> list[str]:
    """Queries of ``plan`` and of the OR-free ``workload`` that do not match up."""
    problems: list[str] = []
    names = {q.name for q in workload.queries}
    extra = sorted(set(plan.sinks) - names)
    if extra:
        problems.append(f"its query {extra[0]} is not a query of")
    lacking = sorted(names - set(plan.sinks))
    if lacking:
        problems.append(f"it has no sink for query {lacking[0]} of")
    serving = ((k, q) for k, info in plan.projections.items() for q in info.queries)
    stranger = next(((k, q) for k, q in serving if q not in names), None)
    if stranger is not None:
        problems.append(f"projection {stranger[0]!r} serves query {stranger[1]}, not a query of")
    return problems


def difference(plan: Plan, network: Network, workload: Workload) -> str | None:
    """Why ``plan`` was not made for ``network`` and ``workload`` (``None`` when it was)."""
    if plan.made_for:
        if plan.made_for.get("network") != network_fingerprint(network):
            return "network"
        if plan.made_for.get("workload") != workload_fingerprint(workload):
            return "workload"
        return None
    instance = prepare_instance(network, workload)
    try:
        check_fits(plan, instance.planning_network)
    except InevError:
        return "network"
    for query in instance.workload.queries:
        key = plan.sinks.get(query.name)
        info = plan.projections.get(key) if key is not None else None
        if info is None or set(info.types) != set(query.types):
            return "workload"
        if key == info.pattern and info.pattern != str(query.pattern):
            return "workload"
    return None


def check_plan_for(
    plan: Plan,
    network: Network,
    workload: Workload,
    *,
    names: tuple[str, str, str] = ("the plan", "the network", "the workload"),
    force: bool = False,
    force_option: str | None = None,
) -> None:
    """Refuse ``plan`` in one line unless it was made for ``network`` and ``workload``
    (module docstring); ``names`` are the plan's, network's and workload's file names for the
    message, ``force_option`` the command's option that skips the comparison (named in the
    message). With ``force`` only :func:`fit_problems` is checked."""
    plan_name, network_name, workload_name = names
    problems = fit_problems(plan, network, workload)
    if problems:
        problem = problems[0]
        other = workload_name if "quer" in problem else network_name
        raise InevError(f"{plan_name} does not fit {other}: {problem} {other}")
    if force:
        return
    which = difference(plan, network, workload)
    if which is not None:
        other = network_name if which == "network" else workload_name
        raise InevError(
            f"{plan_name} was made for another {which} than {other}; plan again with inev plan"
            + (f", or pass {force_option} to run it anyway" if force_option else "")
        )
