"""What the terminal shows of plans and changes: aliases, placements, ``--explain``, changes.

``inev plan --explain`` lists each placement as a line, ``inev show plan.json`` as a table
row; both read the one :class:`Placement` of a projection (:func:`placement`), so the two
say the same. ``inev show changes.json`` is :func:`changes_view`. Like every layer's
``tables.py`` this is library code (any layer above may use it without importing a command).

>>> from inev.planner.planning import plan_workload
>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (3, 4)],
...                     {"A": (5.0, [0, 4]), "B": (0.2, [2])})
>>> plan = plan_workload(net, Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]))
>>> placement(plan, "SEQ(B, A)")
Placement(key='SEQ(B, A)', nodes=(0, 4), partition='A', regional=False, cost=0.0)
>>> aliases(plan)
{'SEQ(B, A)': 'P1'}
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from inev.common.display import rich_table
from inev.common.words import listing, plural


@dataclass(frozen=True)
class Placement:
    """Where a projection is evaluated and what its vertices cost.

    Attributes
    ----------
    key : str
        The projection.
    nodes : tuple
        The nodes of its vertices, in the plan's order.
    partition : str or None
        The type a multi-node (or regional) placement is partitioned by.
    regional : bool
        Whether the vertices are regional sites (beyond the paper).
    cost : float
        The transmission cost of its vertices, events per time unit.
    """

    key: str
    nodes: tuple[Hashable, ...]
    partition: str | None
    regional: bool
    cost: float


def placement(plan: Any, key: str) -> Placement:
    """The :class:`Placement` of projection ``key`` in ``plan``."""
    vertices = plan.vertices_of(key)
    return Placement(
        key,
        tuple(v.node for v in vertices),
        plan.multi_node.get(key),
        any(v.region for v in vertices),
        sum(v.cost for v in vertices),
    )


def aliases(plan: Any, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{projection key: "P1", …}`` for the composite projections that have vertices, in
    the order of their first vertex (inputs first); with ``given``, its aliases are kept
    and new ones continue after the largest of them."""
    out: dict[str, str] = {}
    given = given or {}
    number = max((int(a[1:]) for a in given.values() if a[1:].isdigit()), default=0)
    for v in plan.vertices:
        if v.inputs and v.projection not in out:
            if v.projection in given:
                out[v.projection] = given[v.projection]
            else:
                number += 1
                out[v.projection] = f"P{number}"
    return out


def explain_lines(plan: Any) -> list[str]:
    """``inev plan --explain``: the planner's notes, each placement and each type's cost, in full."""
    lines = list(plan.notes) or ["(no split: every query is evaluated at one node)"]
    for key in plan.projections:
        vertices = plan.vertices_of(key)
        if not vertices or not vertices[0].inputs:
            continue
        p = placement(plan, key)
        how = f"partitioned by {p.partition} at" if p.partition else "at"
        where = plural(len(p.nodes), "node")
        if p.regional:
            how = f"partitioned by {p.partition} regionally at"
            where = plural(len(p.nodes), "site")
        lines.append(f"place {key} {how} {where} ({listing(list(p.nodes))}); cost {p.cost:.6g}")
    events: dict[str, float] = {}
    for v in plan.vertices:
        if not v.inputs:
            events[v.projection] = events.get(v.projection, 0.0) + v.cost
    for name, cost in events.items():
        lines.append(f"forward {name} events: cost {cost:.6g}")
    return lines


def placements_table(plan: Any) -> Any:
    """A rich table of the composite projections (``inev show plan.json``): alias, nodes,
    partitioning type and cost, in the order of :func:`aliases`."""
    table = rich_table(
        "alias",
        "projection",
        "nodes",
        "partitioned by",
        "cost",
        title="placements",
        caption="cost: the transmission cost of the projection's vertices, events per time unit",
    )
    for key, alias in aliases(plan).items():
        p = placement(plan, key)
        table.add_row(
            alias,
            key,
            f"{len(p.nodes)}: {listing(list(p.nodes))}",
            p.partition or "",
            f"{p.cost:.6g}",
        )
    return table


def changes_view(path: str) -> list[Any]:
    """``inev show changes.json``: one row per change (time, kind and what it changes)."""
    from inev.planner.changes import load_changes

    changes = load_changes(path)
    table = rich_table("time", "kind", "what", title=f"{path}: {plural(len(changes), 'change')}")
    for change in changes:
        what = {k: v for k, v in change.items() if k not in ("time", "kind")}
        table.add_row(
            str(change.get("time", "")),
            str(change.get("kind", "")),
            ", ".join(f"{k} {json.dumps(v)}" for k, v in what.items()),
        )
    return [table]
