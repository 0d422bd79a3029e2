"""Two plans compared on one topology (``inev draw A.json --vs B.json``).

The *difference* is a scene of its own: every link whose forwarded rate (all inputs added
up, events per time unit) differs between the plans is in one of two overlays, ``gains
traffic`` (B sends more over it than A: green, width by the difference) or ``loses
traffic`` (red), drawn in the direction B (gains) or A (losses) sends; each node says which
projections moved to it (``+P3/A``) and away from it (``−P1``), counted per placement, so
a projection that stays but changes its partitioning shows as one moving out and one
moving in. Both plans share one layout and one set of aliases (A's, then B's new
projections continue the numbering), so the side-by-side drawings can be read against each
other. The figures give both plans' ψ and their ratio, the tables every changed link and
every projection's nodes in A and in B.

>>> from inev.planner.inev_graph import Plan, Vertex
>>> def plan(node, cost):
...     return Plan("inev", (Vertex(0, "A", 0, forwarding=((0, 1),) if node else (),
...                                 rate=1.0, cost=cost),
...                          Vertex(1, "SEQ(A, B)", node, inputs=(0,))), {}, {}, {}, {}, {},
...                 psi=cost)
>>> scene = comparison_scene(plan(0, 0.0), plan(1, 1.0))
>>> [(o.name, o.links) for o in scene.overlays]
[('gains traffic', ((0, 1, 1.0),)), ('loses traffic', ())]
>>> [(m.node, m.label) for m in scene.nodes]
[(0, '−P1'), (1, '+P1')]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from inev.common.figures import Figure
from inev.common.words import listing
from inev.experiments.scene import NodeMark, Overlay, Scene, aliases, flow_directions, plan_scene
from inev.experiments.scene_layout import layout
from inev.topologies.network_entries import link_key

GAIN = "#2e9e44"
LOSS = "#d1352b"
RATE = "events / time unit"
SAME = 1e-9
"""Relative difference below which a link's rate counts as unchanged."""


def link_rates(plan: Any) -> dict[tuple, float]:
    """Per topology link, the rate all of the plan's vertices send over it."""
    out: dict[tuple, float] = {}
    for v in plan.vertices:
        for u, w in v.forwarding:
            key = link_key(u, w)
            out[key] = out.get(key, 0.0) + v.rate
    return out


def placements(plan: Any, alias: Mapping[str, str]) -> dict[Any, set[str]]:
    """Per node, the placements it hosts, written ``P1`` or ``P1/A`` (partitioned by A)."""
    out: dict[Any, set[str]] = {}
    for v in plan.vertices:
        if v.inputs:
            name = alias[v.projection] + (f"/{v.partition}" if v.partition else "")
            out.setdefault(v.node, set()).add(name)
    return out


def _union_topology(first: Any, second: Any) -> tuple[tuple, tuple]:
    nodes: dict[Any, None] = {}
    links: dict[tuple, None] = {}
    for plan in (first, second):
        for v in plan.vertices:
            nodes.setdefault(v.node)
            for u, w in v.forwarding:
                nodes.setdefault(u)
                nodes.setdefault(w)
                links[link_key(u, w)] = None
    return tuple(nodes), tuple(links)


def shared_layout(
    first: Any, second: Any, network: Any | None, positions: Mapping[str, Any] | None
) -> tuple[tuple, tuple, dict[str, list[float]]]:
    """The topology both plans are drawn on, and its positions as a network file's."""
    if network is not None:
        nodes = tuple(network.nodes)
        links = tuple(link_key(u, v) for u, v, _ in network.links)
    else:
        nodes, links = _union_topology(first, second)
    where = layout(nodes, links, positions)
    return nodes, links, {str(n): [x, y] for n, (x, y) in where.items()}


def comparison_scenes(
    first: Any,
    second: Any,
    network: Any | None = None,
    positions: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    titles: tuple[str, str] = ("A", "B"),
) -> tuple[Scene, Scene, Scene]:
    """The difference and the two plans' scenes on one layout with one set of aliases."""
    _, _, shared = shared_layout(first, second, network, positions)
    alias = aliases(second, aliases(first))
    alias = {**alias, **aliases(first)}
    a = plan_scene(first, network, shared, titles[0], labels, alias)
    b = plan_scene(second, network, shared, titles[1], labels, alias)
    difference = comparison_scene(first, second, network, shared, labels, titles)
    return difference, a, b


def comparison_scene(
    first: Any,
    second: Any,
    network: Any | None = None,
    positions: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    titles: tuple[str, str] = ("A", "B"),
) -> Scene:
    """What changes from plan ``first`` to plan ``second`` (see the module docstring)."""
    nodes, links, shared = shared_layout(first, second, network, positions)
    alias = {**aliases(second, aliases(first)), **aliases(first)}
    before, after = link_rates(first), link_rates(second)
    gains, losses, rows = [], [], [("link", titles[0], titles[1], "change")]
    for key in sorted(set(before) | set(after), key=str):
        x, y = before.get(key, 0.0), after.get(key, 0.0)
        if abs(y - x) <= SAME * max(abs(x), abs(y)):
            continue
        (gains if y > x else losses).append((*key, abs(y - x)))
        rows.append((f"{key[0]}-{key[1]}", f"{x:.6g}", f"{y:.6g}", f"{y - x:+.6g}"))
    overlays = (
        _change("gains", "gains traffic", gains, second, GAIN, f"{titles[1]} sends more"),
        _change("loses", "loses traffic", losses, first, LOSS, f"{titles[1]} sends less"),
    )
    hosted_a, hosted_b = placements(first, alias), placements(second, alias)
    marks = []
    for n in nodes:
        x, y = shared[str(n)]
        mark = _mark(n, x, y, hosted_a.get(n, set()), hosted_b.get(n, set()), second, titles)
        marks.append(replace(mark, name=(labels or {}).get(str(n), "")))
    moved = sum(len(a ^ b) for a, b in _pairs(hosted_a, hosted_b))
    figures = (
        Figure("psi_a", f"ψ of {titles[0]}", first.psi, RATE),
        Figure("psi_b", f"ψ of {titles[1]}", second.psi, RATE),
        Figure("psi_ratio", f"ψ {titles[1]} / ψ {titles[0]}", _ratio(second.psi, first.psi)),
        Figure("gaining", "links gaining traffic", len(gains)),
        Figure("losing", "links losing traffic", len(losses)),
        Figure("moved", "placements moved (in or out, per node)", moved),
    )
    legend = [
        f"{a} = {key} ({titles[0]}: {_where(first, key)}; {titles[1]}: {_where(second, key)})"
        for key, a in sorted(alias.items(), key=lambda i: _number(i[1]))
    ]
    tables = {"changed links": tuple(rows), "placements": _placement_rows(first, second, alias)}
    title = f"{titles[0]} vs {titles[1]}"
    return Scene("diff", title, tuple(marks), links, overlays, tuple(legend), figures, tables)


def _number(a: str) -> int:
    return int(a[1:]) if a[1:].isdigit() else 0


def _ratio(x: float, y: float) -> float | None:
    return x / y if y > 0 else None


def _pairs(a: Mapping[Any, set[str]], b: Mapping[Any, set[str]]):
    for n in set(a) | set(b):
        yield a.get(n, set()), b.get(n, set())


def _change(key: str, name: str, links: list, plan: Any, colour: str, why: str) -> Overlay:
    directions = flow_directions([v for v in plan.vertices if v.forwarding])
    return Overlay(
        key,
        name,
        tuple(links),
        RATE,
        widths=False,
        directions=frozenset(
            d for d in directions if link_key(*d) in {(u, v) for u, v, _ in links}
        ),
        note=f"no link where {why}",
        forwarded=f"the change in the rate all inputs send ({why})",
        colour=colour,
    )


def _mark(
    n: Any, x: float, y: float, a: set[str], b: set[str], second: Any, titles: tuple[str, str]
) -> NodeMark:
    came, went = sorted(b - a), sorted(a - b)
    label = ", ".join([*(f"+{p}" for p in came), *(f"−{p}" for p in went)])
    detail = []
    if a or b:
        detail.append(f"{titles[0]}: {', '.join(sorted(a)) or 'nothing'}")
        detail.append(f"{titles[1]}: {', '.join(sorted(b)) or 'nothing'}")
    roles = {"host"} if b else set()
    if any(v.node == n and not v.inputs for v in second.vertices):
        roles.add("source")
    if n == second.centralized_node:
        roles.add("centralized")
        detail.append(f"centralized node of {titles[1]}")
    sinks = {v.node for q, key in second.sinks.items() for v in second.vertices_of(key)}
    if n in sinks:
        roles.add("sink")
    hosts = tuple(sorted({p.split("/")[0] for p in a | b}))
    return NodeMark(n, x, y, label, frozenset(roles), detail=tuple(detail), hosts=hosts)


def _where(plan: Any, key: str) -> str:
    vertices = plan.vertices_of(key)
    if not vertices:
        return "not used"
    part = plan.multi_node.get(key)
    if part:
        return f"partitioned by {part} at {len(vertices)} nodes"
    return "at node " + listing([v.node for v in vertices], limit=6)


def _placement_rows(first: Any, second: Any, alias: Mapping[str, str]) -> tuple:
    rows = [("projection", "pattern", "A's nodes", "B's nodes")]
    for key, a in sorted(alias.items(), key=lambda i: _number(i[1])):
        nodes_a = [v.node for v in first.vertices_of(key)]
        nodes_b = [v.node for v in second.vertices_of(key)]
        rows.append((a, key, listing(nodes_a, limit=1000), listing(nodes_b, limit=1000)))
    return tuple(rows)


def titles_of(first: str, second: str) -> tuple[str, str]:
    """Short names of two plan files (their base names, the folders when those are equal)."""
    a, b = os.path.basename(first), os.path.basename(second)
    return (first, second) if a == b else (a, b)
