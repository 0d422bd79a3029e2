"""``inev whatif``: what every single failure (or a given change) does to a plan.

A *case* is a list of ``inev-changes/1`` entries. By default the cases are every single link
failure and every single node failure of the network (:func:`failure_cases`); a file can
list them instead (:func:`given_cases`), or rate swaps at given shares (:func:`swap_cases`,
the pairs of :func:`inev.experiments.dynamics.swap_pairs`). Each case is repaired with
:func:`inev.planner.repair.repair_plan` and reported as one row (:data:`SCHEMA`): the old
plan on the changed network (*broken*, or the reasons it cannot run), §6.6's local repair,
the incremental repair, the re-plan, the state a switch migrates, each ψ also as a ratio
over the centralized cost of the changed network; with a simulation, the messages and the
matches the run loses, by cause.

Choices (the paper has no what-if study):

- A failure that disconnects the network, or takes away every source of an event type,
  leaves no network the planner accepts (:meth:`inev.topologies.network.Network.without`
  refuses it): such a case is not repaired; its row says ``disconnects`` (or the type) in
  ``cannot_run`` and ranks above every other case.
- The cost that ranks the cases (column ``cost``) is the ratio of §6.6's local repair: what
  the plan costs right after the failure when the operator reacts at once (the re-plan is
  the price of waiting for a fresh plan; both are in the plot). A case without a local
  repair ranks by its re-plan.
- ``--cap N`` keeps the N cases whose link or node carries the most of the plan's traffic
  (:func:`exposure`, :func:`capped`): a failure of a link the plan does not use leaves the
  plan running.

The cases run as a sweep's tasks do, resumably, on Spark: :mod:`inev.experiments.whatif_run`.

>>> from inev.topologies.network import Network
>>> path = Network.build([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0, 3])})
>>> [c.label for c in failure_cases(path)]
['link 0-1', 'link 1-2', 'link 2-3', 'node 0', 'node 1', 'node 2', 'node 3']
>>> [blocker(path, json.loads(c.changes)) for c in failure_cases(path)][3:]
[None, 'disconnects the network', 'disconnects the network', None]
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx
import pyarrow as pa

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.experiments.sweep_parameters import DEFAULTS

if TYPE_CHECKING:  # imported where the cases run (a Spark worker loads it there)
    from inev.planner.repair import RepairResult

MAX_CASES = 2_000
"""Above this many cases ``inev whatif`` refuses to start (``--max-cases`` raises it)."""

SCHEMA = pa.schema(
    [
        ("task_id", pa.string()),
        ("task_index", pa.int64()),
        ("case", pa.string()),
        ("kind", pa.string()),
        ("target", pa.string()),
        ("changes", pa.string()),
        ("exposure", pa.float64()),
        ("cannot_run", pa.string()),
        ("plan_psi", pa.float64()),
        ("plan_ratio", pa.float64()),
        ("centralized_cost", pa.float64()),
        ("broken_psi", pa.float64()),
        ("local_psi", pa.float64()),
        ("incremental_psi", pa.float64()),
        ("replanned_psi", pa.float64()),
        ("repaired_psi", pa.float64()),
        ("repaired_kept", pa.string()),
        ("broken_ratio", pa.float64()),
        ("local_ratio", pa.float64()),
        ("incremental_ratio", pa.float64()),
        ("replanned_ratio", pa.float64()),
        ("repaired_ratio", pa.float64()),
        ("cost", pa.float64()),
        ("migration", pa.string()),
        ("replan_seconds", pa.float64()),
        ("incremental_seconds", pa.float64()),
        ("case_seconds", pa.float64()),
        ("sim_messages", pa.int64()),
        ("sim_centralized_messages", pa.int64()),
        ("sim_matches", pa.int64()),
        ("sim_centralized_matches", pa.int64()),
        ("sim_missing", pa.int64()),
        ("sim_extra", pa.int64()),
        ("sim_equal", pa.bool_()),
        ("sim_lost_by_cause", pa.string()),
        ("sim_unexplained", pa.int64()),
        ("sim_error", pa.string()),
        ("error", pa.string()),
    ]
)
"""The columns of a what-if study's results (docs/spec-extensions.md describes each)."""


@dataclass(frozen=True)
class Case:
    """One what-if case: its place, a label, its kind and target, and its changes (JSON)."""

    index: int
    label: str
    kind: str
    target: str
    changes: str
    exposure: float = 0.0
    task_id: str = ""


def _case(index: int, label: str, kind: str, target: str, changes: list[dict[str, Any]]) -> Case:
    return Case(index, label, kind, target, json.dumps(changes, sort_keys=True))


def failure_cases(network: Any) -> list[Case]:
    """Every single link failure (links in the network's order), then every single node
    failure (nodes in the network's order)."""
    cases = []
    for u, v, *_ in network.links:
        change = {"time": 0.0, "kind": "link-down", "link": [u, v]}
        cases.append(_case(len(cases), f"link {u}-{v}", "link-down", f"{u}-{v}", [change]))
    for node in network.nodes:
        change = {"time": 0.0, "kind": "node-down", "node": node}
        cases.append(_case(len(cases), f"node {node}", "node-down", str(node), [change]))
    return cases


def swap_cases(network: Any, shares: Sequence[float], start: str = "middle") -> list[Case]:
    """One case per share: that share of the types swapping rates in pairs (seed 0 of
    :func:`~inev.experiments.dynamics.swap_pairs`; ``middle`` is the paper's Fig. 9)."""
    from inev.experiments.dynamics import swap_pairs

    cases = []
    for value in shares:
        if not 0 < value <= 1:
            raise InevError(f"{option('shares', 'swap_shares')}: {value} is not a share in (0, 1]")
        pairs = swap_pairs(network, value, 0, start)
        if not pairs:
            raise InevError(
                f"{option('shares', 'swap_shares')}: {value} of {len(network.types)} types "
                "is no pair"
            )
        changes = [{"time": 0.0, "kind": "swap-rates", "types": list(p)} for p in pairs]
        label = f"swap {value:g}"
        cases.append(_case(len(cases), label, "swap-rates", f"{value:g}", changes))
    return cases


def given_cases(document: Any, origin: str, network: Any) -> list[Case]:
    """The cases of a ``--cases`` file: a JSON list whose items are lists of change entries
    or ``inev-changes/1`` documents; each is checked against the network."""
    from inev.planner.changes import apply_changes

    if isinstance(document, dict) and isinstance(document.get("cases"), list):
        document = document["cases"]
    if not isinstance(document, list) or not document:
        raise InevError(f"{origin}: must be a non-empty list of change lists")
    cases = []
    for position, item in enumerate(document):
        changes = item.get("changes") if isinstance(item, dict) else item
        where = f"{origin}: case #{position + 1}"
        if not isinstance(changes, list) or not changes:
            raise InevError(f"{where}: must be a non-empty list of inev-changes/1 entries")
        changes = [{"time": 0.0, **c} if isinstance(c, dict) else c for c in changes]
        try:
            apply_changes(network, changes, where)
        except InevError as exc:
            if "disconnected" not in str(exc) and "source" not in str(exc):
                raise
        label = (item.get("label") if isinstance(item, dict) else None) or _label(changes)
        kinds = sorted({str(c.get("kind")) for c in changes})
        cases.append(_case(position, str(label), "+".join(kinds), _target(changes), changes))
    return cases


def _label(changes: list[dict[str, Any]]) -> str:
    words = []
    for c in changes:
        kind = c.get("kind")
        if kind in ("link-down", "link-up"):
            words.append(f"{'link' if kind == 'link-down' else 'up'} {c['link'][0]}-{c['link'][1]}")
        elif kind == "node-down":
            words.append(f"node {c.get('node')}")
        elif kind == "swap-rates":
            words.append(f"swap {'/'.join(map(str, c.get('types', [])))}")
        else:
            words.append(f"{kind} {c.get('type')}")
    return ", ".join(words)


def _target(changes: list[dict[str, Any]]) -> str:
    if len(changes) != 1:
        return ""
    c = changes[0]
    if "link" in c:
        return f"{c['link'][0]}-{c['link'][1]}"
    return str(c.get("node", c.get("type", "")))


def exposure(plan: Any) -> tuple[dict[frozenset, float], dict[Any, float]]:
    """The plan's traffic per link (events per time unit forwarded over it) and per node
    (the rate of every vertex it hosts or whose forwarding graph touches it, once each)."""
    links: dict[frozenset, float] = {}
    nodes: dict[Any, float] = {}
    for v in plan.vertices:
        touched = {v.node}
        for a, b in v.forwarding:
            links[frozenset((a, b))] = links.get(frozenset((a, b)), 0.0) + v.rate
            touched |= {a, b}
        for n in touched:
            nodes[n] = nodes.get(n, 0.0) + v.rate
    return links, nodes


def with_exposure(cases: Sequence[Case], plan: Any) -> list[Case]:
    """``cases`` with the plan's traffic over their link or at their node (0 otherwise)."""
    links, nodes = exposure(plan)
    by_node = {str(n): r for n, r in nodes.items()}
    out = []
    for case in cases:
        changes = json.loads(case.changes)
        value = 0.0
        for c in changes:
            if c.get("kind") == "link-down":
                value += links.get(frozenset(c["link"]), 0.0)
            elif c.get("kind") == "node-down":
                value += by_node.get(str(c.get("node")), 0.0)
        out.append(Case(case.index, case.label, case.kind, case.target, case.changes, value))
    return out


def capped(cases: Sequence[Case], cap: int) -> list[Case]:
    """``cap`` cases, the most exposed of each kind in turn (the link failure of the most
    loaded link, the node failure of the most loaded node, the second of each …; ties: first
    listed), renumbered in case order: a node's traffic counts every tree through it, so one
    ranking of both kinds would choose nodes alone."""
    place: dict[int, int] = {}
    for kind in {c.kind for c in cases}:
        same = sorted((c for c in cases if c.kind == kind), key=lambda c: (-c.exposure, c.index))
        place.update({c.index: rank for rank, c in enumerate(same)})
    chosen = sorted(cases, key=lambda c: (place[c.index], c.index))[:cap]
    chosen.sort(key=lambda c: c.index)
    return [Case(i, c.label, c.kind, c.target, c.changes, c.exposure) for i, c in enumerate(chosen)]


def blocker(network: Any, changes: Sequence[Mapping[str, Any]]) -> str | None:
    """Why no plan can run after ``changes`` (the network falls apart, a type loses every
    source), or ``None``."""
    graph = network.graph.copy()
    lost: set[Any] = set()
    for c in changes:
        if c.get("kind") == "link-down" and graph.has_edge(*c["link"]):
            graph.remove_edge(*c["link"])
        elif c.get("kind") == "node-down" and c.get("node") in graph:
            graph.remove_node(c["node"])
            lost.add(c["node"])
        elif c.get("kind") == "link-up":
            graph.add_edge(*c["link"])
    if graph.number_of_nodes() == 0 or not nx.is_connected(graph):
        return "disconnects the network"
    for name in network.types:
        if set(network.sources(name)) <= lost:
            return f"type {name} loses every source"
    return None


@dataclass(frozen=True)
class SimSettings:
    """``--simulate``: run length (a sweep task's by default), seed, and the time the case's
    changes happen."""

    duration: float = DEFAULTS["duration"]
    seed: int = 0
    at: float | None = None

    @property
    def change_time(self) -> float:
        """When the changes happen (half-way through the run unless given)."""
        return self.duration / 2 if self.at is None else self.at


@dataclass(frozen=True)
class Study:
    """A what-if study: the plan, network and workload documents, the cases, the simulation."""

    plan: Mapping[str, Any]
    network: Mapping[str, Any]
    workload: Mapping[str, Any]
    cases: tuple[Case, ...]
    simulation: SimSettings | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    """The planner's knobs for the repairs and re-plans (:class:`~inev.planner.options.
    PlanOptions` keyword arguments; ``inev whatif --effort 0`` plans as the paper does)."""

    @functools.cached_property
    def inputs_digest(self) -> str:
        """A digest of the plan, network and workload documents."""
        return _digest([self.plan, self.network, self.workload])

    def identity(self) -> dict[str, Any]:
        """What decides which rows exist and what they hold (a folder resumes only this)."""
        return {
            "inputs": self.inputs_digest,
            "cases": _digest([c.changes for c in self.cases]),
            "simulation": None if self.simulation is None else vars(self.simulation),
            "options": dict(sorted(self.options.items())),
        }

    def tasks(self) -> list[Case]:
        """The cases with their task ids (inputs, changes and simulation settings)."""
        inputs = self.identity()
        out = []
        for c in self.cases:
            key = _digest([inputs["inputs"], c.changes, inputs["simulation"], inputs["options"]])
            key = key[:16]
            out.append(Case(c.index, c.label, c.kind, c.target, c.changes, c.exposure, key))
        return out


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


_PARSED: dict[str, tuple[Any, Any, Any]] = {}
"""The parsed inputs of the studies this process ran cases of (by the studies' digests)."""


def _objects(study: Study) -> tuple[Any, Any, Any]:
    """The plan, network and workload of ``study`` (parsed once per worker process)."""
    from inev.planner.inev_graph import plan_from_dict
    from inev.topologies.io import network_from_dict
    from inev.workloads.io import workload_from_dict

    key = study.inputs_digest
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = (
            plan_from_dict(study.plan),
            network_from_dict(dict(study.network)),
            workload_from_dict(dict(study.workload)),
        )
    return _PARSED[key]


def _ratio(psi: float | None, central: float) -> float | None:
    return psi / central if psi is not None and central > 0 else None


def repair_row(repair: RepairResult) -> dict[str, Any]:
    """The repair figures of one case (ψ and ratios, migration, CPU seconds).

    A plan that cannot run on the changed network has no broken ψ (its reasons are in
    ``cannot_run``); baselines have no incremental repair.
    """
    central = repair.replanned.centralized_cost
    local = repair.local if repair.local is not None else repair.repaired
    incremental = repair.incremental
    seconds = repair.seconds
    row = {
        "cannot_run": "; ".join(repair.cannot_run) or None,
        "centralized_cost": central,
        "broken_psi": None if repair.cannot_run else repair.broken.psi,
        "local_psi": local.psi,
        "incremental_psi": incremental.psi if incremental is not None else None,
        "replanned_psi": repair.replanned.psi,
        "repaired_psi": repair.repaired.psi,
        "repaired_kept": repair.repaired.kept or "local",
        "migration": json.dumps(repair.migration, sort_keys=True) if repair.migration else None,
        "replan_seconds": seconds.get("replanned", repair.replanned.planning_seconds),
        "incremental_seconds": seconds.get("incremental") if incremental is not None else None,
    }
    for name in ("broken", "local", "incremental", "replanned", "repaired"):
        row[f"{name}_ratio"] = _ratio(row[f"{name}_psi"], central)
    row["cost"] = row["local_ratio"] if row["local_ratio"] is not None else row["replanned_ratio"]
    return row


def simulation_row(
    network: Any, workload: Any, plan: Any, changes: list[dict[str, Any]], settings: SimSettings
) -> dict[str, Any]:
    """The simulator's figures of one case: the plan run with the changes at
    ``settings.change_time``."""
    from inev.simulator import simulate

    timed = [{**c, "time": settings.change_time} for c in changes]
    result = simulate(
        network, workload, plan, duration=settings.duration, seed=settings.seed, changes=timed
    )
    causes = result.loss_causes
    return {
        "sim_messages": result.messages,
        "sim_centralized_messages": result.centralized_messages,
        "sim_matches": sum(result.matches.values()),
        "sim_centralized_matches": sum(result.centralized_matches.values()),
        "sim_missing": result.missing,
        "sim_extra": result.extra,
        "sim_equal": result.missing == 0 and result.extra == 0,
        "sim_lost_by_cause": json.dumps(causes, sort_keys=True),
        "sim_unexplained": causes.get("unexplained", 0),
    }


def _message(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = "" if isinstance(exc, InevError) or last is None else f" ({Path(last.filename).name}"
    where += f":{last.lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{where}"


def evaluate_case(case: Case, study: Study) -> dict[str, Any]:
    """One row of :data:`SCHEMA` for ``case``; a failure is the row's ``error``, never a
    crash."""
    from inev.planner.options import PlanOptions
    from inev.planner.repair import repair_plan

    started = time.perf_counter()
    plan, network, workload = _objects(study)
    changes = json.loads(case.changes)
    row: dict[str, Any] = {
        "task_id": case.task_id,
        "task_index": case.index,
        "case": case.label,
        "kind": case.kind,
        "target": case.target,
        "changes": case.changes,
        "exposure": case.exposure,
        "plan_psi": plan.psi,
        "plan_ratio": plan.ratio,
    }
    reason = blocker(network, changes)
    if reason is not None:
        row.update(cannot_run=reason, cost=math.inf)
        if study.simulation is not None:
            row["sim_error"] = f"not simulated: {reason}"
    else:
        try:
            options = PlanOptions(**study.options)
            row.update(repair_row(repair_plan(plan, network, workload, changes, options)))
        except Exception as exc:
            row["error"] = _message(exc)
        if study.simulation is not None:
            try:
                row.update(simulation_row(network, workload, plan, changes, study.simulation))
            except Exception as exc:
                row["sim_error"] = _message(exc)
    row["case_seconds"] = time.perf_counter() - started
    return row


def run_cases(cases: list[Case], study: Study) -> list[dict[str, Any]]:
    """Rows of several cases, in order (the batch function the Spark executors run)."""
    return [evaluate_case(c, study) for c in cases]
