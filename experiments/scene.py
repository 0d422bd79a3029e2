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

**Simulations.** One overlay per type or projection sent (``messages_by_link_and_type``):
the messages counted per link (both directions), drawn as widths on one scale, in the
directions the plan's trees send them when the plan is given; node labels give the events
each node's engines processed; with the plan, the sink nodes are labelled with their queries'
matches and projections are named by their aliases. A result without the split (written
before it existed) gives one overlay, ``messages``.

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
        ordered = tuple(sorted((link_key(u, w) for u, w in v.forwarding), key=_link_order))
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
            for (u, w), rate in sorted(rates[key].items(), key=lambda i: _link_order(i[0]))
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


def _link_order(link: Link) -> tuple:
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


# ---------------------------------------------------------------------- simulations
def simulation_scene(
    result: Any,
    network: Any,
    plan: Any | None = None,
    positions: Mapping[str, Any] | None = None,
    title: str = "simulation",
) -> Scene:
    """A :class:`~inev.simulator.simulation_result.SimulationResult` on its topology.

    ``messages_by_link`` becomes one overlay whose widths follow the counts (both directions
    of a link added up); node labels carry ``events_processed``; with ``plan``, the sink
    nodes carry their queries' matches, and ``messages_by_vertex`` is resolved to
    projection and node.
    """
    from inev.simulator.figures import simulation_figures

    nodes = tuple(network.nodes)
    links = tuple(link_key(u, v) for u, v, _ in network.links)
    by_name = {str(n): n for n in nodes}
    where = layout(nodes, links, positions)
    marks = _simulated_marks(result, nodes, by_name, where, plan)
    split = getattr(result, "messages_by_link_and_type", None) or {}
    if split:
        overlays = _simulated_overlays(split, by_name, network, plan)
    else:
        overlays = [_messages_overlay(result, by_name)]
    legend = [f"{q}: {m} matches" for q, m in sorted(result.matches.items())]
    tables: dict[str, tuple[tuple[str, ...], ...]] = {
        "messages by type": (
            ("type", "messages"),
            *((t, str(c)) for t, c in sorted(result.messages_by_type.items())),
        ),
    }
    if plan is not None:
        tables["messages by vertex"] = _vertex_rows(plan, result.messages_by_vertex)
    figures = tuple(f for f in simulation_figures(result) if f.in_line)
    return Scene(
        "simulation", title, tuple(marks), links, tuple(overlays), tuple(legend), figures, tables
    )


def _simulated_marks(
    result: Any,
    nodes: tuple[Node, ...],
    by_name: Mapping[str, Node],
    where: Mapping[Node, tuple[float, float]],
    plan: Any | None,
) -> list[NodeMark]:
    """The nodes of a simulation: events processed (their size follows it), partial
    matches, and with ``plan`` the sinks' matches and the centralized node."""
    processed = {by_name.get(str(k), k): c for k, c in result.events_processed.items()}
    partial = {by_name.get(str(k), k): c for k, c in result.partial_matches.items()}
    sinks: dict[Node, list[str]] = {}
    if plan is not None:
        for query, key in plan.sinks.items():
            for v in plan.vertices_of(key):
                sinks.setdefault(v.node, []).append(query)
    matches = result.matches
    largest = max(processed.values(), default=0) or 1
    centralized = plan.centralized_node if plan is not None else None
    marks = []
    for n in nodes:
        label, roles, lines = _simulated_node(n, processed, partial, sinks, matches, centralized)
        size = 1.0 + 3.0 * processed.get(n, 0) / largest
        marks.append(NodeMark(n, *where[n], label, frozenset(roles), size, tuple(lines)))
    return marks


def _messages_overlay(result: Any, by_name: Mapping[str, Node]) -> Overlay:
    """One overlay of the messages per link (both directions of a link added up)."""
    counted: dict[Link, float] = {}
    for key, count in result.messages_by_link.items():
        link = _parse_link(key, by_name)
        if link is not None:
            counted[link] = counted.get(link, 0) + count
    return Overlay(
        "messages",
        "messages per link",
        tuple(
            (u, v, float(c))
            for (u, v), c in sorted(counted.items(), key=lambda i: _link_order(i[0]))
        ),
        "messages",
        widths=True,
    )


def _simulated_overlays(
    split: Mapping[str, Mapping[str, int]],
    by_name: Mapping[str, Node],
    network: Any,
    plan: Any | None,
) -> list[Overlay]:
    """One overlay per type or projection sent: its messages per link, named as in the
    plan's drawing (``A events``, ``P1 matches``), with the plan's directions if given."""
    per_kind: dict[str, dict[Link, float]] = {}
    for key, kinds in split.items():
        link = _parse_link(key, by_name)
        if link is None:
            continue
        for kind, count in kinds.items():
            per_kind.setdefault(kind, {})
            per_kind[kind][link] = per_kind[kind].get(link, 0.0) + float(count)
    alias = aliases(plan) if plan is not None else {}
    types = list(network.types)
    order = [t for t in types if t in per_kind] + [k for k in alias if k in per_kind]
    order += sorted(k for k in per_kind if k not in order)
    overlays = []
    for kind in order:
        if kind in alias:
            short, name = alias[kind], f"{alias[kind]} matches"
        else:
            short, name = kind, f"{kind} events" if kind in types else f"{kind} matches"
        directions = flow_directions(plan.vertices_of(kind)) if plan is not None else frozenset()
        links = tuple(
            (u, v, c)
            for (u, v), c in sorted(per_kind[kind].items(), key=lambda i: _link_order(i[0]))
        )
        overlays.append(Overlay(short, name, links, "messages", widths=True, directions=directions))
    return overlays


def _simulated_node(
    n: Node,
    processed: Mapping[Node, int],
    partial: Mapping[Node, int],
    sinks: Mapping[Node, list[str]],
    matches: Mapping[str, int],
    centralized: Node | None,
) -> tuple[str, set[str], list[str]]:
    """A node's label, roles and detail lines in a simulation scene."""
    lines = []
    label = ""
    roles = set()
    if n in processed:
        roles.add("host")
        label = plural(processed[n], "event")
        lines.append(f"events processed {processed[n]}")
    if n in partial:
        lines.append(f"partial matches {partial[n]}")
    if n in sinks:
        roles.add("sink")
        shown = sorted(set(sinks[n]))
        label = ", ".join([label, *shown]) if label else ", ".join(shown)
        lines += [f"sink of {q}: {matches.get(q, 'n/a')} matches (all sinks)" for q in shown]
    if centralized is not None and n == centralized:
        roles.add("centralized")
        lines.append("centralized node")
    return label, roles, lines


def _vertex_rows(plan: Any, by_vertex: Mapping[Any, int]) -> tuple[tuple[str, ...], ...]:
    """The messages each plan vertex sent, with its projection and node (``?``: unknown id)."""
    rows = [("vertex", "projection", "node", "messages")]
    for vid, count in sorted(by_vertex.items()):
        try:
            v = plan.vertex(int(vid))
        except KeyError:
            rows.append((str(vid), "?", "?", str(count)))
            continue
        rows.append((str(vid), v.projection, str(v.node), str(count)))
    return tuple(rows)


def _parse_link(key: str, by_name: Mapping[str, Node]) -> Link | None:
    """The link of a ``messages_by_link`` key ``"u v"`` (node names may hold spaces)."""
    parts = key.split(" ")
    for cut in range(1, len(parts)):
        u, v = " ".join(parts[:cut]), " ".join(parts[cut:])
        if u in by_name and v in by_name:
            return link_key(by_name[u], by_name[v])
    return None
