"""``inev draw``: a plan, a simulation result or a network on its topology.

The file's ``format`` key says what it is. A plan is drawn with its projections per node
and its forwarding trees (``--network`` adds the links the plan does not use, and the
network file's ``positions`` and ``labels`` place and name the nodes); a simulation result
needs ``--network`` and takes ``--plan`` for its sinks and vertices. The output's suffix
picks the form: ``.png``, ``.svg``, ``.pdf`` (matplotlib) or ``.html`` (one self-contained,
interactive page, :mod:`inev.experiments.scene_html`); ``--text`` prints everything in full
instead.

Modes: ``--logical`` draws a plan's projection graph (:mod:`inev.experiments.scene_logical`;
the page adds the topology as a second tab), ``--vs B.json`` compares two plans
(:mod:`inev.experiments.scene_diff`), ``--timeline`` a simulation result's messages, matches
and latency over time (:mod:`inev.experiments.timeline_figure`). Filters (``--query``,
``--input``, ``--around NODE --hops K``) keep part of a drawing, and above ``--group-above``
nodes the picture shows groups of nodes (:mod:`inev.experiments.scene_scale`; the text form
is never grouped).

Each mode is a function from :class:`DrawOptions` to a :class:`Drawn` (its text, page and
figure, each made only when asked for), so another mode is one more function in
:data:`MODES`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.common.files import file_format, read_json_document
from inev.common.option_names import option

KINDS = {
    "inev-plan/1": "plan",
    "inev-sim/1": "simulation",
    "inev-network/1": "network",
}
FORMS = (".png", ".svg", ".pdf", ".html")


def positions_of(network_file: str | None) -> dict[str, Any] | None:
    """The optional ``positions`` (``{node: [x, y]}``) of a network file."""
    return drawing_keys_of(network_file)[0]


def drawing_keys_of(
    network_file: str | None,
) -> tuple[dict[str, Any] | None, dict[str, str] | None]:
    """The optional ``positions`` (``{node: [x, y]}``) and ``labels`` (``{node: name}``) of
    a network file, checked (one-line error naming the key)."""
    if not network_file:
        return None, None
    document = read_json_document(network_file, "inev-network/1")
    positions = document.get("positions")
    if positions is not None and (
        not isinstance(positions, dict)
        or not all(
            isinstance(xy, list)
            and len(xy) == 2
            and all(isinstance(c, int | float) and not isinstance(c, bool) for c in xy)
            for xy in positions.values()
        )
    ):
        raise InevError(f"{network_file}: positions must map nodes to [x, y]")
    labels = document.get("labels")
    if labels is not None and (
        not isinstance(labels, dict) or not all(isinstance(n, str) for n in labels.values())
    ):
        raise InevError(f"{network_file}: labels must map nodes to names")
    return positions, labels


@dataclass(frozen=True)
class DrawOptions:
    """What ``inev draw`` was asked to draw (one object passed whole to every mode)."""

    file: str
    network: str | None = None
    plan: str | None = None
    logical: bool = False
    vs: str | None = None
    queries: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    around: str | None = None
    hops: int = 2
    group_above: int | None = None
    """Group the picture's nodes above this many (None: :data:`~inev.experiments.
    scene_scale.GROUP_ABOVE`; 0: never)."""
    timeline: bool = False
    """Draw a simulation result's time series (:mod:`inev.experiments.timeline_figure`)."""


@dataclass(frozen=True)
class Drawn:
    """A drawing in its three forms, each made when asked for."""

    kind: str
    text: Callable[[], str]
    page: Callable[[], str]
    save: Callable[[str], Any]
    """Write a ``.png``, ``.svg`` or ``.pdf`` file."""


def build_scene(path: str, network_file: str | None, plan_file: str | None) -> Any:
    """The :class:`~inev.experiments.scene.Scene` of any drawable inev file."""
    return _scene(DrawOptions(path, network_file, plan_file))[0]


def _scene(options: DrawOptions) -> tuple[Any, Any]:
    """The scene of ``options.file`` and, for a plan, the plan."""
    from inev.experiments.scene import network_scene, plan_scene
    from inev.experiments.scene_simulation import simulation_scene
    from inev.planner.inev_graph import load_plan
    from inev.topologies.io import load_network

    path = options.file
    kind = KINDS.get(file_format(path))
    if kind is None:
        raise InevError(
            f"{path}: cannot draw {file_format(path)} files (plans, simulation "
            "results and networks can be drawn)"
        )
    network = load_network(options.network) if options.network else None
    positions, labels = drawing_keys_of(options.network)
    if kind == "network":
        own_positions, own_labels = drawing_keys_of(path)
        return network_scene(load_network(path), own_positions, own_labels), None
    if kind == "plan":
        plan = load_plan(path)
        title = os.path.basename(path)
        return plan_scene(plan, network, positions, title=title, labels=labels), plan
    if network is None:
        raise InevError(
            f"drawing a simulation result needs {option('network')} (the simulated network)"
        )
    from inev.simulator.simulation_result import load_result

    plan = load_plan(options.plan) if options.plan else None
    scene = simulation_scene(
        load_result(path), network, plan, positions, title=os.path.basename(path)
    )
    return scene, None


def _pictured(scene: Any, plan: Any, options: DrawOptions) -> Any:
    """The scene as pictures show it: filtered, and grouped above the size limit."""
    from inev.experiments.scene_scale import GROUP_ABOVE, grouped_scene, groups_of

    limit = GROUP_ABOVE if options.group_above is None else options.group_above
    if limit and len(scene.nodes) > limit:
        groups, how = groups_of(scene, plan)
        return grouped_scene(scene, groups, how)
    return scene


def _filtered(scene: Any, options: DrawOptions) -> Any:
    from inev.experiments.scene_scale import filter_scene

    if not (options.queries or options.inputs or options.around is not None):
        return scene
    return filter_scene(scene, options.queries, options.inputs, options.around, options.hops)


def draw_topology(options: DrawOptions) -> Drawn:
    """A plan, a simulation or a network on its topology."""
    from inev.experiments.scene_html import scene_html
    from inev.experiments.scene_text import scene_text

    scene, plan = _scene(options)
    scene = _filtered(scene, options)
    picture = _pictured(scene, plan, options)

    def page() -> str:
        if plan is None:
            return scene_html(picture)
        from inev.experiments.scene_logical import logical_scene

        return scene_html(picture, logical_scene(plan, f"projection graph of {scene.title}"))

    def save(out: str) -> Any:
        from inev.experiments.scene_figure import save_scene

        return save_scene(picture, out)

    return Drawn(scene.kind, lambda: scene_text(scene), page, save)


def draw_logical(options: DrawOptions) -> Drawn:
    """A plan's projection graph."""
    from inev.experiments.scene_html import logical_html
    from inev.experiments.scene_logical import logical_scene, logical_text

    if KINDS.get(file_format(options.file)) != "plan":
        raise InevError(f"{options.file}: {option('logical')} draws plans (inev-plan/1 files)")
    scene, plan = _scene(options)
    view = logical_scene(plan, f"projection graph of {os.path.basename(options.file)}")

    def save(out: str) -> Any:
        from inev.experiments.scene_logical_figure import save_logical

        return save_logical(view, out)

    picture = _pictured(_filtered(scene, options), plan, options)
    return Drawn(
        "projection graph", lambda: logical_text(view), lambda: logical_html(view, picture), save
    )


def draw_comparison(options: DrawOptions) -> Drawn:
    """Two plans: the difference, and side by side on the page."""
    from inev.experiments.scene_diff import comparison_scenes, titles_of
    from inev.experiments.scene_html import comparison_html
    from inev.experiments.scene_text import scene_text
    from inev.planner.inev_graph import load_plan
    from inev.topologies.io import load_network

    assert options.vs is not None
    for path in (options.file, options.vs):
        if KINDS.get(file_format(path)) != "plan":
            raise InevError(f"{path}: {option('vs')} compares two plans (inev-plan/1 files)")
    network = load_network(options.network) if options.network else None
    positions, labels = drawing_keys_of(options.network)
    difference, first, second = comparison_scenes(
        load_plan(options.file),
        load_plan(options.vs),
        network,
        positions,
        labels,
        titles_of(options.file, options.vs),
    )
    pictures = [_filtered(s, options) for s in (difference, first, second)]

    def save(out: str) -> Any:
        from inev.experiments.scene_figure import save_scene

        return save_scene(pictures[0], out)

    return Drawn(
        "comparison", lambda: scene_text(difference), lambda: comparison_html(*pictures), save
    )


def draw_timeline(options: DrawOptions) -> Drawn:
    """A simulation result's messages, matches and latency over time, changes marked."""
    from inev.experiments.timeline_figure import (
        load_timeline,
        save_timeline,
        timeline_page,
        timeline_text,
    )

    if KINDS.get(file_format(options.file)) != "simulation":
        raise InevError(
            f"{options.file}: {option('timeline')} draws simulation results (inev-sim/1 files)"
        )
    result, _ = load_timeline(options.file)
    name = os.path.basename(options.file)
    return Drawn(
        "timeline",
        lambda: timeline_text(result),
        lambda: timeline_page(result, name),
        lambda out: save_timeline(result, out, name),
    )


MODES: dict[str, Callable[[DrawOptions], Drawn]] = {
    "topology": draw_topology,
    "logical": draw_logical,
    "vs": draw_comparison,
    "timeline": draw_timeline,
}
"""The drawing modes, by the option that picks them (``topology``: none)."""
