"""The scene of a simulation result (:func:`simulation_scene`): one overlay per type or
projection sent, the messages counted per link (both directions), drawn in the directions the
plan's trees send them when the plan is given; node labels give the events each node's
engines processed and, with the plan, the sinks' matches (see
:mod:`inev.experiments.scene`, which builds the scenes of plans and networks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inev.common.words import plural
from inev.experiments.scene import Link, Node, NodeMark, Overlay, Scene, flow_directions, link_order
from inev.experiments.scene_layout import layout
from inev.planner.tables import aliases
from inev.topologies.network_entries import link_key


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
            for (u, v), c in sorted(counted.items(), key=lambda i: link_order(i[0]))
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
            for (u, v), c in sorted(per_kind[kind].items(), key=lambda i: link_order(i[0]))
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
