"""Drawings that scale: nodes grouped above a size, and filters that keep part of a scene.

**Groups.** Above :data:`GROUP_ABOVE` nodes a drawing shows groups of nodes instead of
nodes: the regions of the plan's first regional placement when it has one with at least two
sites (every node joins the region of its nearest site by hops, as the regions are Voronoi
cells, :mod:`inev.planner.regions`), else communities of the topology
(:func:`~inev.experiments.scene_layout.communities`). A group is drawn at the centre of its
nodes, sized by how many they are, labelled with what its nodes host (``P2/A ×12``: twelve
of its nodes evaluate P2 partitioned by A) and marked with the roles any of them has (sink,
centralized node). An overlay keeps the links between groups, each with the sum of its
links' figures between the two groups and the directions they flow in; what an overlay
sends inside a group is said in the group's details. The text form is never grouped.

**Filters** (``inev draw --query``, ``--input``, ``--around``): :func:`filter_scene` keeps
the overlays one or more queries depend on (and labels only their projections), or the
named inputs, or the part of the topology within some hops of a node.

>>> from inev.experiments.scene import NodeMark, Overlay, Scene
>>> marks = tuple(NodeMark(n, float(n), 0.0, "P1" if n == 0 else "") for n in range(4))
>>> scene = Scene("plan", "p", marks, ((0, 1), (1, 2), (2, 3)),
...               (Overlay("A", "A events", ((0, 1, 2.0), (1, 2, 2.0)), "events / time unit"),))
>>> small = grouped_scene(scene, [[0, 1], [2, 3]], "communities")
>>> [(m.node, m.members, m.label) for m in small.nodes]
[('group 1', (0, 1), 'P1'), ('group 2', (2, 3), '')]
>>> small.overlays[0].links
(('group 1', 'group 2', 2.0),)
>>> [m.node for m in filter_scene(scene, around=3, radius=1).nodes]
[2, 3]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.common.words import listing, plural
from inev.experiments.scene import NodeMark, Overlay, Scene
from inev.topologies.network_entries import link_key

Node = Hashable
GROUP_ABOVE = 300
"""Drawings of more nodes than this show groups of nodes (``inev draw --group-above``)."""
LISTED = 30
"""Nodes of a group named in its details (the text form lists all)."""


# ---------------------------------------------------------------------- groups
def groups_of(scene: Scene, plan: Any | None = None) -> tuple[list[list[Node]], str]:
    """How to group ``scene``'s nodes: the plan's regions, else communities (module
    docstring); returns the groups and what they are (``regions`` or ``communities``)."""
    from inev.experiments.scene_layout import communities

    nodes = [m.node for m in scene.nodes]
    sites = _regional_sites(plan) if plan is not None else []
    if len(sites) >= 2:
        nearest = _nearest_site(nodes, scene.links, sites)
        groups: dict[Node, list[Node]] = {s: [] for s in sites}
        for n in nodes:
            groups[nearest.get(n, sites[0])].append(n)
        return [g for g in groups.values() if g], "regions"
    return communities(nodes, scene.links), "communities"


def _regional_sites(plan: Any) -> list[Node]:
    """The sites of the plan's first regional placement (empty without one)."""
    for key in plan.multi_node:
        sites = [v.node for v in plan.vertices_of(key) if v.region]
        if sites:
            return list(dict.fromkeys(sites))
    return []


def _nearest_site(nodes: list[Node], links: Sequence[tuple], sites: list[Node]) -> dict:
    """Per node, the site it is fewest hops from (ties: the site listed first), by one
    breadth-first search from all sites at once."""
    around: dict[Node, list[Node]] = {}
    for u, v in links:
        around.setdefault(u, []).append(v)
        around.setdefault(v, []).append(u)
    nearest = {s: s for s in sites}
    frontier = list(sites)
    while frontier:
        step = []
        for a in frontier:
            for b in around.get(a, ()):
                if b not in nearest:
                    nearest[b] = nearest[a]
                    step.append(b)
        frontier = step
    return nearest


def grouped_scene(scene: Scene, groups: list[list[Node]], how: str) -> Scene:
    """``scene`` with one node per group (see the module docstring)."""
    names = _group_names(scene, len(groups))
    group_of = {n: names[g] for g, members in enumerate(groups) for n in members}
    marks_of = {m.node: m for m in scene.nodes}
    inside: dict[Node, list[str]] = {}
    overlays = []
    for o in scene.overlays:
        overlay, within = _grouped_overlay(o, group_of)
        overlays.append(overlay)
        for g, (value, count) in within.items():
            inside.setdefault(g, []).append(
                f"inside: {o.name} {value:.4g} {o.unit} over {plural(count, 'link')}"
            )
    marks = [
        _group_mark(names[g], [marks_of[n] for n in members], inside.get(names[g], []))
        for g, members in enumerate(groups)
    ]
    links = sorted(
        {link_key(group_of[u], group_of[v]) for u, v in scene.links if group_of[u] != group_of[v]},
        key=lambda link: (names.index(link[0]), names.index(link[1])),
    )
    queries = {
        q: replace(view, sinks=tuple(dict.fromkeys(group_of[s] for s in view.sinks)))
        for q, view in scene.queries.items()
    }
    note = (
        f"{plural(len(scene.nodes), 'node')} drawn as {plural(len(groups), 'group')} "
        f"({'the regions of the first regional placement' if how == 'regions' else 'communities of the topology'}); "
        "a group's details list its nodes; inev draw --around NODE draws the nodes themselves"
    )
    return replace(
        scene,
        nodes=tuple(marks),
        links=tuple(links),
        overlays=tuple(overlays),
        queries=queries,
        notes=(*scene.notes, note),
    )


def _group_names(scene: Scene, count: int) -> list[str]:
    """``group 1`` … ``group N``, primed until no node of the scene has such a name."""
    taken = {str(m.node) for m in scene.nodes}
    prefix = "group"
    while any(f"{prefix} {k + 1}" in taken for k in range(count)):
        prefix += "'"
    return [f"{prefix} {k + 1}" for k in range(count)]


def _grouped_overlay(
    o: Overlay, group_of: Mapping[Node, str]
) -> tuple[Overlay, dict[str, tuple[float, int]]]:
    """The overlay between groups, and per group what it sends inside (value, links)."""
    between: dict[tuple, float] = {}
    within: dict[str, tuple[float, int]] = {}
    for u, v, value in o.links:
        a, b = group_of[u], group_of[v]
        if a == b:
            total, count = within.get(a, (0.0, 0))
            within[a] = (total + value, count + 1)
        else:
            key = link_key(a, b)
            between[key] = between.get(key, 0.0) + value
    directions = frozenset(
        (group_of[a], group_of[b]) for a, b in o.directions if group_of[a] != group_of[b]
    )
    links = tuple((u, v, value) for (u, v), value in sorted(between.items(), key=str))
    return replace(o, links=links, senders=(), directions=directions), within


def _group_mark(name: str, members: list[NodeMark], inside: list[str]) -> NodeMark:
    """One group's mark: centre, what its nodes host (counted), roles, details."""
    hosted: Counter[str] = Counter()
    for m in members:
        hosted.update(part for part in m.label.split(", ") if part)
    label = ", ".join(f"{h} ×{c}" if c > 1 else h for h, c in hosted.items())
    return NodeMark(
        name,
        math.fsum(m.x for m in members) / len(members),
        math.fsum(m.y for m in members) / len(members),
        label,
        frozenset(r for m in members for r in m.roles),
        detail=tuple(_group_detail(members, hosted, inside)),
        name=f"{name} ({plural(len(members), 'node')})",
        hosts=tuple(dict.fromkeys(h for m in members for h in m.hosts)),
        members=tuple(m.node for m in members),
    )


def _group_detail(members: list[NodeMark], hosted: Counter[str], inside: list[str]) -> list[str]:
    """A group's details: its nodes, what they host, its sinks, the centralized node, and
    what each overlay sends inside it."""
    shown = [m.name or str(m.node) for m in members]
    detail = [f"{plural(len(members), 'node')}: {listing(shown, limit=LISTED)}"]
    detail += [f"{h} at {plural(c, 'node')}" for h, c in hosted.items()]
    sinks = [m.node for m in members if "sink" in m.roles]
    if sinks:
        detail.append(f"sinks at {listing(sinks, limit=LISTED)}")
    detail += [f"centralized node {m.node}" for m in members if "centralized" in m.roles]
    return detail + inside


# ---------------------------------------------------------------------- filters
def filter_scene(
    scene: Scene,
    queries: Sequence[str] = (),
    inputs: Sequence[str] = (),
    around: Any = None,
    radius: int = 2,
) -> Scene:
    """The part of ``scene`` the filters keep (see the module docstring); a name the scene
    does not know is an :class:`InevError` listing the ones it knows."""
    notes = list(scene.notes)
    if queries:
        scene, note = _by_queries(scene, queries)
        notes.append(note)
    if inputs:
        known = {o.key: o for o in scene.overlays}
        missing = [i for i in inputs if i not in known]
        if missing:
            raise InevError(
                f"{option('inputs', 'input')} {missing[0]}: the drawing has no such input "
                "(its inputs: "
                f"{listing(list(known), limit=40)})"
            )
        scene = replace(scene, overlays=tuple(known[i] for i in inputs))
        notes.append("inputs " + ", ".join(inputs))
    if around is not None:
        scene, note = _around(scene, around, radius)
        notes.append(note)
    return replace(scene, notes=tuple(notes))


def _by_queries(scene: Scene, queries: Sequence[str]) -> tuple[Scene, str]:
    missing = [q for q in queries if q not in scene.queries]
    if missing:
        raise InevError(
            f"{option('queries', 'query')} {missing[0]}: the drawing has no such query "
            "(its queries: "
            f"{listing(list(scene.queries), limit=40)})"
        )
    views = [scene.queries[q] for q in queries]
    keep = {k for view in views for k in view.inputs}
    projections = {p for view in views for p in view.projections}
    kept = replace(
        scene,
        nodes=tuple(_only(m, projections) for m in scene.nodes),
        overlays=tuple(o for o in scene.overlays if o.key in keep),
        legend=tuple(line for line in scene.legend if _names(line, projections, queries)),
        queries={q: scene.queries[q] for q in queries},
    )
    return kept, "queries " + ", ".join(queries)


def _only(m: NodeMark, projections: set[str]) -> NodeMark:
    """Node ``m`` labelled with the placements of ``projections`` alone."""
    parts = [p for p in m.label.split(", ") if p and p.split("/")[0] in projections]
    return replace(m, label=", ".join(parts), hosts=tuple(h for h in m.hosts if h in projections))


def _names(line: str, projections: set[str], queries: Sequence[str]) -> bool:
    """Whether a legend line is about one of ``projections`` or ``queries``."""
    return line.split(" ", 1)[0] in projections or line.split(":", 1)[0] in queries


def _around(scene: Scene, around: Any, radius: int) -> tuple[Scene, str]:
    centre = _node_named(scene, around)
    keep = set(_within(scene.links, centre, radius))
    kept = replace(
        scene,
        nodes=tuple(m for m in scene.nodes if m.node in keep),
        links=tuple((u, v) for u, v in scene.links if u in keep and v in keep),
        overlays=tuple(_restricted(o, keep) for o in scene.overlays),
        queries={
            q: replace(view, sinks=tuple(s for s in view.sinks if s in keep))
            for q, view in scene.queries.items()
        },
    )
    note = (
        f"around node {centre}: {plural(radius, 'hop')}, {len(keep)} of "
        f"{plural(len(scene.nodes), 'node')}"
    )
    return kept, note


def _node_named(scene: Scene, name: Any) -> Node:
    """The node whose id (as text) or name is ``name``; else a one-line error."""
    by_name = {str(m.node): m.node for m in scene.nodes}
    by_name.update({m.name: m.node for m in scene.nodes if m.name})
    if str(name) not in by_name:
        raise InevError(
            f"{option('around')} {name}: the drawing has no such node (nodes: "
            f"{listing([m.node for m in scene.nodes], limit=20)})"
        )
    return by_name[str(name)]


def _within(links: Sequence[tuple], centre: Node, radius: int) -> dict[Node, int]:
    """The nodes at most ``radius`` hops from ``centre``, with their hops."""
    near: dict[Node, list[Node]] = {}
    for u, v in links:
        near.setdefault(u, []).append(v)
        near.setdefault(v, []).append(u)
    hops = {centre: 0}
    frontier = [centre]
    for step in range(radius):
        frontier = [b for a in frontier for b in near.get(a, ()) if b not in hops]
        for b in frontier:
            hops.setdefault(b, step + 1)
    return hops


def _restricted(o: Overlay, keep: set) -> Overlay:
    """``o`` with only the links between nodes of ``keep`` (and their senders)."""
    return replace(
        o,
        links=tuple((u, v, x) for u, v, x in o.links if u in keep and v in keep),
        senders=tuple(s for s in o.senders if s[0] in keep),
    )
