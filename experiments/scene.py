"""What a drawing of a plan, a simulation or a network shows, before anything is drawn.

A :class:`Scene` is the topology with marks: per node a short label and its roles, per
*overlay* a set of links with a figure each (a forwarding tree's rate, or the messages a
simulation counted), and a legend. :mod:`inev.experiments.scene_figure` draws it with
matplotlib (PNG, SVG), :mod:`inev.experiments.scene_html` wraps that SVG into one HTML file,
:mod:`inev.experiments.scene_text` lists it in full. Building the scene is pure and fast, so
every renderer shows the same content.

**Plans.** Each composite projection gets a short alias ``P1``, ``P2``, … in the plan's
topological order (inputs first); the legend spells each alias out. A node's label lists
the projections it hosts; a vertex of a multi-node placement is written ``P1/A`` (P1,
partitioned by type A: it uses the A events of its own node). Overlays are the forwarding
trees, one per *input* of the INEv graph: ``A`` (the events of type A, from all its sources)
or ``P1`` (the matches of P1 from all its vertices), each link with the rate that input sends
over it (events per time unit, summed over the input's vertices). Sink nodes (where a
query's matches are produced) and the centralized node are marked. A regional placement
(beyond the paper, :mod:`inev.planner.regional`) colours its regions: every source of a
region and the region's site carry the region's number (drawn as a ring of its colour), and
the ``regions`` table lists each region's site and sources.

Every forwarding overlay knows the direction of its flow on each link (from the sending
vertex's node outwards along its tree), which the figure draws as arrows. An input that is
used but never sent (a type whose events stay at their sources because every projection
using it is partitioned by it or placed there, the output of a projection used where it is
made) gets an overlay without links and a note saying so, so that the legend names every
input of the plan.

**Simulations** (:mod:`inev.experiments.scene_simulation`). One overlay per type or
projection sent (``messages_by_link_and_type``): the messages counted per link (both
directions), drawn as widths on one scale, in the directions the plan's trees send them when
the plan is given; node labels give the events each node's engines processed; with the plan,
the sink nodes are labelled with their queries' matches and projections are named by their
aliases. A result without the split (written before it existed) gives one overlay,
``messages``.

Layout: the network file's optional ``positions`` (``{node: [x, y]}``), else networkx's
spring layout with a fixed seed, so the same files give the same picture.

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (2.0, [0]), "B": (1.0, [2])})
>>> scene = network_scene(net)
>>> [m.label for m in scene.nodes]
['A', '', 'B']
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.common.figures import Figure
from inev.common.words import plural
from inev.experiments.scene_layout import layout
from inev.planner.tables import aliases
from inev.topologies.network_entries import link_key

Node = Hashable
Link = tuple[Node, Node]


@dataclass(frozen=True)
class NodeMark:
    """One topology node as drawn: position, short label, roles and full detail lines."""

    node: Node
    x: float
    y: float
    label: str = ""
    roles: frozenset[str] = frozenset()
    """Any of ``host`` (evaluates a projection), ``sink``, ``centralized``, ``source``."""
    size: float = 1.0
    """Relative marker area (1 = the default)."""
    detail: tuple[str, ...] = ()
    region: int | None = None
    """The region (0, 1, …) of the plan's first regional placement that the node's sources
    or site belong to (drawn as a ring of the region's colour); None: none."""
    name: str = ""
    """The node's name where the network file gives one (a city of a GraphML topology)."""
    hosts: tuple[str, ...] = ()
    """The aliases of the projections the node evaluates (``P1``, without the partition)."""
    members: tuple[Node, ...] = ()
    """For a node standing for a group of nodes (:mod:`inev.experiments.scene_scale`): them."""


@dataclass(frozen=True)
class Overlay:
    """Links highlighted together: one forwarding input, or a simulation's messages."""

    key: str
    """A short identifier (a type name, an alias like ``P1``, or ``messages``)."""
    name: str
    """What the overlay shows, e.g. ``A events`` or ``P1 matches``."""
    links: tuple[tuple[Node, Node, float], ...]
    """``(u, v, value)`` per link: the rate sent over it, or the messages counted."""
    unit: str = ""
    widths: bool = False
    """Whether the drawing scales line widths with the values (simulations)."""
    senders: tuple[tuple[Node, tuple[Node, ...], tuple[Link, ...]], ...] = ()
    """Per sending vertex: its node, its destinations and its links (the text form)."""
    directions: frozenset[tuple[Node, Node]] = frozenset()
    """``(a, b)``: the overlay flows from ``a`` to ``b`` over the link a-b (arrows)."""
    note: str = ""
    """Why the overlay has no links: an input used where it is made (module docstring)."""
    forwarded: str = ""
    """What travels: ``A events``, ``whole P1 matches`` or the types an output selector
    sends (``A, C events of P1 matches``)."""
    colour: str = ""
    """A fixed colour (``#rrggbb``); empty: the renderers' palette, in overlay order."""

    @property
    def total(self) -> float:
        """The sum of the values (a forwarding input's cost, or all messages)."""
        return math.fsum(value for _, _, value in self.links)

    @property
    def group(self) -> str:
        """The id of the overlay's group in an SVG drawing.

        >>> Overlay("P1", "P1 matches", ()).group, Overlay("A", "A", (), widths=True).group
        ('forward-P1', 'messages-A')
        """
        if self.key == "messages":
            return "messages"
        return element_id("messages" if self.widths else "forward", self.key)


def element_id(prefix: str, name: Hashable) -> str:
    """An SVG/XML id for ``name``: characters outside ``[A-Za-z0-9_.-]`` become ``_``.

    >>> element_id("label", "node 7"), element_id("forward", "P1")
    ('label-node_7', 'forward-P1')
    """
    return f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]', '_', str(name))}"


@dataclass(frozen=True)
class QueryView:
    """What one query's matches depend on: the overlays (inputs) that carry its projections'
    inputs, its projections' aliases and the nodes of its sink vertices."""

    inputs: tuple[str, ...]
    projections: tuple[str, ...]
    sinks: tuple[Node, ...]


@dataclass(frozen=True)
class Scene:
    """Everything a drawing shows (see the module docstring)."""

    kind: str
    """``plan``, ``simulation`` or ``network``."""
    title: str
    nodes: tuple[NodeMark, ...]
    links: tuple[Link, ...]
    overlays: tuple[Overlay, ...] = ()
    legend: tuple[str, ...] = ()
    """Lines that explain the labels (aliases, queries)."""
    figures: tuple[Figure, ...] = ()
    tables: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    """Further named tables for the text and HTML forms: a header row, then rows."""
    queries: Mapping[str, QueryView] = field(default_factory=dict)
    """Per query of a plan, what its matches depend on (highlighting, ``--query``)."""
    notes: tuple[str, ...] = ()
    """How the drawing was reduced: grouped nodes, filters (said under the picture)."""

    def mark(self, node: Node) -> NodeMark:
        """The mark of ``node``."""
        for m in self.nodes:
            if m.node == node:
                return m
        raise KeyError(node)


# ---------------------------------------------------------------------- networks
def network_scene(
    network: Any,
    positions: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
) -> Scene:
    """The topology alone: each node labelled with the event types it generates (and named
    by ``labels``, a network file's)."""
    links = tuple(link_key(u, v) for u, v, _ in network.links)
    where = layout(network.nodes, links, positions)
    marks = []
    for n in network.nodes:
        types = network.types_at(n)
        marks.append(
            NodeMark(
                n,
                *where[n],
                label=",".join(types),
                roles=frozenset({"source"} if types else ()),
                detail=tuple(f"generates {t} at {network.rate(t):g} / time unit" for t in types),
                name=(labels or {}).get(str(n), ""),
            )
        )
    s = network.summary()
    figures = (
        Figure("nodes", "nodes", s["nodes"]),
        Figure("links", "links", s["links"]),
        Figure("diameter", "diameter" if s["exact"] else "diameter (at least)", s["diameter"]),
    )
    rows = (("link", "latency"), *((f"{u}-{v}", f"{lat:g}") for u, v, lat in network.links))
    return Scene(
        "network", "event network", tuple(marks), links, figures=figures, tables={"links": rows}
    )


# ---------------------------------------------------------------------- plans
def _input_name(plan: Any, key: str, alias: Mapping[str, str]) -> tuple[str, str]:
    """(overlay key, overlay name) of the output of projection ``key``."""
    if key in alias:
        return alias[key], f"{alias[key]} matches"
    return key, f"{key} events"


def plan_scene(
    plan: Any,
    network: Any | None = None,
    positions: Mapping[str, Any] | None = None,
    title: str = "plan",
    labels: Mapping[str, str] | None = None,
    alias: Mapping[str, str] | None = None,
) -> Scene:
    """The INEv graph on its topology (see the module docstring).

    Without ``network`` the topology is what the plan uses: its forwarding links and the
    nodes of its vertices. ``labels`` (``{str(node): name}``, a network file's ``labels``)
    name the nodes; ``alias`` fixes projections' aliases (two plans drawn side by side),
    the others continue its numbering.
    """
    from inev.planner.figures import plan_figures

    alias = aliases(plan, alias)
    nodes, links = _topology(plan, network)
    where = layout(nodes, links, positions)
    hosted, hosts, detail = _hosted(plan, alias)
    sink_of: dict[Node, list[str]] = {}
    for query, key in plan.sinks.items():
        for v in plan.vertices_of(key):
            sink_of.setdefault(v.node, []).append(query)
    sources = {v.node for v in plan.vertices if not v.inputs}
    region_of, region_rows = _regions(plan, alias)
    for n, lines in _region_details(plan, alias).items():
        detail.setdefault(n, []).extend(lines)
    marks = []
    for n in nodes:
        roles = {
            role
            for role, has in (
                ("host", n in hosted),
                ("sink", n in sink_of),
                ("centralized", n == plan.centralized_node),
                ("source", n in sources),
            )
            if has
        }
        lines = list(detail.get(n, []))
        if n in sink_of:
            lines.append("sink of " + ", ".join(sorted(set(sink_of[n]))))
        if n == plan.centralized_node:
            lines.append("centralized node")
        marks.append(
            NodeMark(
                n,
                *where[n],
                ", ".join(hosted.get(n, [])),
                frozenset(roles),
                detail=tuple(lines),
                region=region_of.get(n),
                name=(labels or {}).get(str(n), ""),
                hosts=tuple(hosts.get(n, ())),
            )
        )
    overlays = _forwarding_overlays(plan, alias)
    legend = [_alias_line(plan, key, a) for key, a in alias.items()]
    legend += [
        f"{query}: matches from {alias.get(key, key)}" for query, key in sorted(plan.sinks.items())
    ]
    tables = {"placements": _placement_rows(plan, alias)}
    if region_rows:
        tables["regions"] = region_rows
    return Scene(
        "plan",
        title,
        tuple(marks),
        links,
        tuple(overlays),
        tuple(legend),
        tuple(plan_figures(plan)),
        tables,
        queries=query_views(plan, alias),
    )


def _hosted(plan: Any, alias: Mapping[str, str]) -> tuple[dict, dict, dict]:
    """Per node: the placements it hosts (``P1``, ``P2/A``), their aliases, and a detail
    line each (``P2/A = AND(…)``)."""
    hosted: dict[Node, list[str]] = {}
    hosts: dict[Node, list[str]] = {}
    detail: dict[Node, list[str]] = {}
    for v in plan.vertices:
        if not v.inputs:
            continue
        name = alias[v.projection] + (f"/{v.partition}" if v.partition else "")
        if name not in hosted.setdefault(v.node, []):
            hosted[v.node].append(name)
            hosts.setdefault(v.node, []).append(alias[v.projection])
            detail.setdefault(v.node, []).append(f"{name} = {v.projection}")
    return hosted, hosts, detail


def query_views(plan: Any, alias: Mapping[str, str]) -> dict[str, QueryView]:
    """Per query: the overlays its matches depend on (the inputs of its sink projection and
    of every projection upstream), those projections' aliases and its sinks' nodes."""
    out = {}
    for query, key in sorted(plan.sinks.items()):
        upstream, stack = [], [key]
        while stack:
            k = stack.pop()
            if k not in upstream:
                upstream.append(k)
                stack.extend(plan.combination.get(k, ()))
        out[query] = QueryView(
            tuple(alias.get(k, k) for k in upstream if k != key),
            tuple(alias[k] for k in upstream if k in alias),
            tuple(dict.fromkeys(v.node for v in plan.vertices_of(key))),
        )
    return out


def _topology(plan: Any, network: Any | None) -> tuple[tuple[Node, ...], tuple[Link, ...]]:
    if network is not None:
        return tuple(network.nodes), tuple(link_key(u, v) for u, v, _ in network.links)
    nodes: dict[Node, None] = {}
    links: dict[Link, None] = {}
    for v in plan.vertices:
        nodes[v.node] = None
        for u, w in v.forwarding:
            nodes.setdefault(u)
            nodes.setdefault(w)
            links[link_key(u, w)] = None
    return tuple(nodes), tuple(links)


def _forwarding_overlays(plan: Any, alias: Mapping[str, str]) -> list[Overlay]:
    """One overlay per input of the plan: union of links, rates summed, the flow's
    directions; an input used where it is made gets no links and a note."""
    rates: dict[str, dict[Link, float]] = {}
    senders: dict[str, list[tuple[Node, tuple[Node, ...], tuple[Link, ...]]]] = {}
    for v in plan.vertices:
        if not v.forwarding:
            continue
        per_link = rates.setdefault(v.projection, {})
        for u, w in v.forwarding:
            link = link_key(u, w)
            per_link[link] = per_link.get(link, 0.0) + v.rate
        ordered = tuple(sorted((link_key(u, w) for u, w in v.forwarding), key=link_order))
        senders.setdefault(v.projection, []).append((v.node, tuple(v.destinations), ordered))
    used = {plan.vertex(i).projection for v in plan.vertices for i in v.inputs}
    overlays = []
    order = list(plan.type_rates) + [k for k in alias if k not in plan.type_rates]
    order += [k for k in rates if k not in order]
    for key in order:
        short, name = _input_name(plan, key, alias)
        if key not in rates:
            if key in used:
                note = _local_note(plan, key, alias)
                forwarded = forwarded_text(plan, key, alias, plan.vertices_of(key))
                overlays.append(
                    Overlay(short, name, (), "events / time unit", note=note, forwarded=forwarded)
                )
            continue
        links = tuple(
            (u, w, rate)
            for (u, w), rate in sorted(rates[key].items(), key=lambda i: link_order(i[0]))
        )
        vertices = plan.vertices_of(key)
        overlays.append(
            Overlay(
                short,
                name,
                links,
                "events / time unit",
                senders=tuple(senders[key]),
                directions=flow_directions(vertices),
                forwarded=forwarded_text(plan, key, alias, vertices),
            )
        )
    return overlays


def flow_directions(vertices: Sequence[Any]) -> frozenset[tuple[Node, Node]]:
    """``(a, b)`` for every link a-b that a vertex's forwarding tree crosses from ``a`` to
    ``b``: outwards from the vertex's node.

    >>> from types import SimpleNamespace as V
    >>> sorted(flow_directions([V(node=1, forwarding=[(0, 1), (1, 2), (2, 3)])]))
    [(1, 0), (1, 2), (2, 3)]
    """
    out: set[tuple[Node, Node]] = set()
    for v in vertices:
        around: dict[Node, list[Node]] = {}
        for a, b in v.forwarding:
            around.setdefault(a, []).append(b)
            around.setdefault(b, []).append(a)
        seen, frontier = {v.node}, [v.node]
        while frontier:
            step = []
            for a in frontier:
                for b in around.get(a, ()):
                    if b not in seen:
                        seen.add(b)
                        out.add((a, b))
                        step.append(b)
            frontier = step
    return frozenset(out)


def forwarded_text(plan: Any, key: str, alias: Mapping[str, str], vertices: list[Any]) -> str:
    """What the vertices of ``key`` send: ``A events``, ``whole P1 matches`` or the types an
    output selector lets through (``A, C events of P1 matches``)."""
    if key not in alias:
        return f"{key} events"
    selected = next((v.output for v in vertices if v.output), None)
    if selected:
        return f"{', '.join(selected)} events of {alias[key]} matches"
    return f"whole {alias[key]} matches"


def _local_note(plan: Any, key: str, alias: Mapping[str, str]) -> str:
    """Why input ``key`` crosses no link."""
    if key in plan.type_rates:
        partitioned = [
            alias[k] for k, part in plan.multi_node.items() if part == key and k in alias
        ]
        if partitioned:
            return (
                f"stays at its sources ({', '.join(partitioned)} partitioned by {key}: each "
                f"vertex uses its own node's {key} events)"
            )
        return "stays at its sources (used where it is generated)"
    return "used at the nodes that make it"


def link_order(link: Link) -> tuple:
    """The sort key of a link: integer ends by value first, then text ends."""
    return tuple((0, n, "") if isinstance(n, int) else (1, 0, str(n)) for n in link)


def _alias_line(plan: Any, key: str, short: str) -> str:
    vertices = plan.vertices_of(key)
    part = plan.multi_node.get(key)
    where = (
        f"partitioned by {part} at {plural(len(vertices), 'node')}"
        if part
        else "at node " + ", ".join(str(v.node) for v in vertices)
    )
    if any(v.region for v in vertices):
        where = f"partitioned by {part} regionally at {plural(len(vertices), 'site')}"
    return f"{short} = {key} ({where})"


def _regional_vertices(plan: Any) -> dict[tuple, list[Any]]:
    """The vertices of regional placements, grouped by (partitioning type, sites): the
    projections sharing regions share one group, in plan order."""
    by_key: dict[str, list[Any]] = {}
    for v in plan.vertices:
        if v.region:
            by_key.setdefault(v.projection, []).append(v)
    groups: dict[tuple, list[Any]] = {}
    for vertices in by_key.values():
        sites = tuple(v.node for v in vertices)
        groups.setdefault((vertices[0].partition, sites), vertices)
    return groups


def _regions(plan: Any, alias: Mapping[str, str]) -> tuple[dict[Node, int], tuple]:
    """Per node, its region in the plan's first regional placement (sources and site), and
    the ``regions`` table: one row per region of every regional placement."""
    groups = _regional_vertices(plan)
    region_of: dict[Node, int] = {}
    rows: list[tuple[str, ...]] = []
    for number, ((part, _), vertices) in enumerate(groups.items()):
        users = sorted(
            {alias[v.projection] for v in plan.vertices if v.region and v.partition == part}
        )
        for j, v in enumerate(vertices):
            if number == 0:
                region_of[v.node] = j
                for n in v.region:
                    region_of.setdefault(n, j)
            rows.append(
                (
                    ", ".join(users),
                    part,
                    str(j),
                    str(v.node),
                    str(len(v.region)),
                    ", ".join(map(str, v.region)),
                )
            )
    if not rows:
        return region_of, ()
    header = ("projections", "partitioned by", "region", "site", "sources", "source nodes")
    return region_of, (header, *rows)


def _region_details(plan: Any, alias: Mapping[str, str]) -> dict[Node, list[str]]:
    """Per source of a regional placement, where its events of the partitioning type go."""
    out: dict[Node, list[str]] = {}
    for (part, _), vertices in _regional_vertices(plan).items():
        name = alias[vertices[0].projection]
        for j, v in enumerate(vertices):
            for n in v.region:
                out.setdefault(n, []).append(f"{part} events to site {v.node} ({name} region {j})")
    return out


def _placement_rows(plan: Any, alias: Mapping[str, str]) -> tuple[tuple[str, ...], ...]:
    rows: list[tuple[str, ...]] = [("projection", "pattern", "node", "partitioned by", "inputs")]
    for v in plan.vertices:
        if not v.inputs:
            continue
        inputs = sorted({plan.vertex(i).projection for i in v.inputs})
        rows.append(
            (
                alias[v.projection],
                v.projection,
                str(v.node),
                v.partition or "",
                ", ".join(alias.get(i, i) for i in inputs),
            )
        )
    return tuple(rows)
