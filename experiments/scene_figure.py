"""Drawing a :class:`~inev.experiments.scene.Scene` with matplotlib (PNG, SVG, PDF).

The topology is drawn in light grey; each overlay (a forwarding input, or the messages of
one type in a simulation) is a coloured set of line segments, shifted sideways when several
overlays share a link so that each stays visible, with an arrowhead on each segment pointing
the way the overlay flows (up to :data:`ARROW_LINKS` segments), and labelled with its figure
per link when there are few links (a simulation labels each link with its total). Widths
follow the messages in a simulation, on one scale for all types. Nodes that evaluate
projections are yellow, sinks are stars, the centralized node has a square frame; node ids
are written on the markers with a white halo so that they stay readable on a star. The
legend names every overlay with its total; an input that crosses no link is listed in a light
dotted style with the reason. The aliases and the plan's figures are written under the
picture.

The SVG is structured for machines as well: text is kept as ``<text>`` (not glyph paths),
each overlay is a group (:attr:`~inev.experiments.scene.Overlay.group`: ``forward-<key>``
for a plan's input, ``messages-<key>`` for a simulated type, ``messages`` for a simulation
without the split) with one ``<path>`` per link, each arrowhead ``arrow-<key>-<u>-<v>``,
each node label a group ``id="label-<node>"``, and the file has no date, so the same scene
gives the same bytes.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, NamedTuple

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.words import plural
from inev.experiments.plot_options import SVG_SETTINGS
from inev.experiments.scene import Overlay, Scene, element_id
from inev.experiments.scene_labels import place_labels
from inev.topologies.network_entries import link_key

FORMATS = (".png", ".svg", ".pdf")
LABELLED_LINKS = 60
"""Above this many overlay links the per-link figures are left out (they would overlap)."""
LEGEND_LINES = 14
"""Alias and query lines written under the picture (the text form lists all)."""
ARROW_LINKS = 400
"""Above this many overlay segments no arrowheads are drawn (they would hide the lines)."""
LEGEND_WIDTH = 58
"""Characters per line of a legend entry (a longer one wraps)."""


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def render(scene: Scene) -> Any:
    """The matplotlib figure of ``scene`` (close it with ``plt.close``)."""
    plt = _pyplot()
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    many = len(scene.nodes) > 60
    figure = plt.figure(figsize=(12, 8.5) if many else (10, 7), dpi=110)
    axis = figure.add_axes((0.01, 0.17, 0.63, 0.75))
    axis.set_axis_off()
    axis.set_aspect("equal", adjustable="datalim")
    where = {m.node: (m.x, m.y) for m in scene.nodes}
    xs = [m.x for m in scene.nodes] or [0.0]
    ys = [m.y for m in scene.nodes] or [0.0]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)

    topology = LineCollection(
        [(where[u], where[v]) for u, v in scene.links if u in where and v in where],
        colors="0.82",
        linewidths=0.8 if many else 1.2,
        zorder=1,
    )
    topology.set_gid("topology")
    axis.add_collection(topology)

    if summary_mode(scene):
        handles = _draw_summary(axis, scene, where)
    else:
        handles = _draw_overlays(axis, scene, where, span)
    _draw_nodes(axis, scene, many)
    handles += _role_handles(scene, Line2D)
    _legends(figure, scene, handles)
    place_labels(figure, axis, scene, many)
    return figure


def summary_mode(scene: Scene) -> bool:
    """Whether the drawing shows one line per link, every overlay added up, instead of one
    line per overlay: with several overlays, above 60 nodes, 500 overlay segments, or 7
    overlays on one link (the page's rule, :mod:`inev.experiments.scene_html`)."""
    drawn = [o for o in scene.overlays if o.links]
    if len(drawn) <= 1:
        return False
    sharing: dict[tuple, int] = {}
    for o in drawn:
        for u, v, _ in o.links:
            key = link_key(u, v)
            sharing[key] = sharing.get(key, 0) + 1
    segments = sum(sharing.values())
    return len(scene.nodes) > 60 or segments > 500 or max(sharing.values()) > 7


def log_widths(values: list[float], thin: float, thick: float) -> Any:
    """Line widths for ``values``: linear when they span less than 20x, else logarithmic.

    >>> w = log_widths([1.0, 1000.0], 1.0, 4.0)
    >>> w(1.0), w(1000.0), round(w(31.6227766), 3)
    (1.0, 4.0, 2.5)
    """
    positive = [v for v in values if v > 0]
    if not positive:
        return lambda v: thin
    lo, hi = min(positive), max(positive)
    if hi / lo < 20:
        return lambda v: thin + (thick - thin) * max(v, 0.0) / hi
    span = math.log(hi / lo)
    return lambda v: thin + (thick - thin) * math.log(v / lo) / span if v > 0 else thin


def _draw_summary(axis: Any, scene: Scene, where: dict[Any, tuple[float, float]]) -> list[Any]:
    """One dark line per link, its width by all overlays' values added up (logarithmic
    above a 20x span); the legend names every overlay with its total."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    totals: dict[tuple, float] = {}
    for o in scene.overlays:
        for u, v, value in o.links:
            key = link_key(u, v)
            totals[key] = totals.get(key, 0.0) + value
    width = log_widths(list(totals.values()), 0.8, 6.0)
    drawn = [(key, value) for key, value in totals.items() if key[0] in where and key[1] in where]
    lines = LineCollection(
        [(where[u], where[v]) for (u, v), _ in drawn],
        colors="#3d4b5c",
        linewidths=[width(value) for _, value in drawn],
        alpha=0.55,
        zorder=2,
    )
    lines.set_gid("all-inputs")
    axis.add_collection(lines)
    total = math.fsum(totals.values())
    handles = [
        Line2D([], [], color="#3d4b5c", linewidth=3, label=f"all inputs added up: {total:.4g}")
    ]
    for o in scene.overlays:
        text = f"{o.name}: {o.total:.4g}" if o.links else f"{o.name}: none sent"
        handles.append(Line2D([], [], color="none", label=_wrapped(text)))
    handles.append(
        Line2D([], [], color="none", label="one input at a time: inev draw --input NAME")
    )
    return handles


def _figure_lines(scene: Scene) -> list[str]:
    lines = []
    for f in scene.figures:
        if not f.in_line:
            continue
        unit = f" {f.unit}" if f.unit and f.value is not None else ""
        lines.append(f"{f.label}: {f.text()}{unit}")
    return lines


def _links(overlay: Any) -> str:
    return f"{len(overlay.links)} link" + ("" if len(overlay.links) == 1 else "s")


def _shifted(
    a: tuple[float, float], b: tuple[float, float], index: int, sharing: list[int], span: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment a-b moved sideways by its rank among the overlays sharing the link."""
    if len(sharing) == 1:
        return a, b
    rank = sharing.index(index) - (len(sharing) - 1) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    step = 0.009 * span * rank
    ox, oy = -dy / length * step, dx / length * step
    return (a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy)


def _draw_overlays(
    axis: Any,
    scene: Scene,
    where: dict[Any, tuple[float, float]],
    span: float,
) -> list[Any]:
    """Each overlay's links in its colour, side by side where overlays share a link, widths
    after the values on one scale (simulations), arrowheads along the flow, figures per link
    when few; the legend handles."""
    from matplotlib.lines import Line2D

    drawn = [o for o in scene.overlays if o.links]
    sharing: dict[tuple, list[int]] = {}
    for i, overlay in enumerate(drawn):
        for u, v, _ in overlay.links:
            sharing.setdefault(link_key(u, v), []).append(i)
    colours = _pyplot().get_cmap("tab10" if len(drawn) <= 10 else "tab20")
    segments_in_all = sum(len(o.links) for o in drawn)
    style = _LinkStyle(
        span,
        max((value for o in drawn if o.widths for _, _, value in o.links), default=0.0),
        segments_in_all <= LABELLED_LINKS,
        segments_in_all <= ARROW_LINKS,
    )
    handles = [
        _draw_overlay(
            axis, overlay, i, overlay.colour or colours(i % colours.N), where, sharing, style
        )
        for i, overlay in enumerate(drawn)
    ]
    if style.labelled:
        _label_totals(axis, [o for o in drawn if o.widths], where)
    for overlay in scene.overlays:
        if not overlay.links:
            label = _wrapped(f"{overlay.name}: none sent, {overlay.note}")
            handles.append(Line2D([], [], color="0.6", linewidth=1.5, ls=":", label=label))
    return handles


class _LinkStyle(NamedTuple):
    """How a scene's overlay links are drawn: ``span`` of the layout, ``largest`` value
    (widths scale to it), figures per link (``labelled``) and arrowheads (``arrows``)."""

    span: float
    largest: float
    labelled: bool
    arrows: bool


def _draw_overlay(
    axis: Any,
    overlay: Overlay,
    i: int,
    colour: Any,
    where: dict[Any, tuple[float, float]],
    sharing: dict[tuple, list[int]],
    style: _LinkStyle,
) -> Any:
    """Overlay ``i``'s links (id: its group), arrowheads and figures; its legend handle."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    segments, widths = [], []
    for u, v, value in overlay.links:
        if u not in where or v not in where:
            continue
        a, b = _shifted(where[u], where[v], i, sharing[link_key(u, v)], style.span)
        segments.append((a, b))
        widths.append(0.6 + 7.0 * value / (style.largest or 1.0) if overlay.widths else 2.0)
        if style.arrows:
            grow = 0.0035 if overlay.widths else 0.0013  # wider than a thick line
            head = style.span * (0.011 + grow * widths[-1])
            _draw_arrows(axis, overlay, (u, v), (a, b), colour, head)
        if style.labelled and not overlay.widths:
            _link_value(axis, overlay, (u, v), (a, b), value, colour)
    lines = LineCollection(
        segments, colors=[colour], linewidths=widths, alpha=0.85, zorder=2 + i * 0.01
    )
    lines.set_gid(overlay.group)
    axis.add_collection(lines)
    label = _wrapped(f"{overlay.name}: {overlay.total:.4g} ({_links(overlay)})")
    return Line2D([], [], color=colour, linewidth=2.5, label=label)


def _link_value(
    axis: Any,
    overlay: Overlay,
    link: tuple[Any, Any],
    segment: tuple[tuple[float, float], tuple[float, float]],
    value: float,
    colour: Any,
) -> None:
    """The overlay's figure for ``link`` at the middle of its drawn segment."""
    (a, b), (u, v) = segment, link
    text = axis.text(
        (a[0] + b[0]) / 2,
        (a[1] + b[1]) / 2,
        f"{value:.3g}",
        fontsize=6,
        color=colour,
        ha="center",
        va="center",
        zorder=4,
        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
    )
    text.set_gid(element_id(f"value-{overlay.key}", f"{u}-{v}"))


def _wrapped(text: str) -> str:
    """A legend entry wrapped at :data:`LEGEND_WIDTH` characters.

    >>> _wrapped("A events: none sent, stays at its sources (P2 partitioned by A)").split("\\n")
    ['A events: none sent, stays at its sources (P2 partitioned', 'by A)']
    """
    import textwrap

    return "\n".join(textwrap.wrap(text, LEGEND_WIDTH)) or text


def _draw_arrows(
    axis: Any,
    overlay: Overlay,
    link: tuple[Any, Any],
    segment: tuple[tuple[float, float], tuple[float, float]],
    colour: Any,
    size: float,
) -> None:
    """An arrowhead two thirds along the drawn segment of ``link`` for each way the overlay
    flows over it (from ``link[0]`` to ``link[1]``, the other way, or both): a triangle in
    the overlay's colour outlined in white, ``size`` data units long, so that it shows on
    its own line."""
    from matplotlib.patches import Polygon

    (x1, y1), (x2, y2) = segment
    length = math.hypot(x2 - x1, y2 - y1)
    if length == 0:
        return
    u, v = link
    for ahead, (sx, sy, ex, ey) in (((u, v), (x1, y1, x2, y2)), ((v, u), (x2, y2, x1, y1))):
        if ahead not in overlay.directions:
            continue
        dx, dy = (ex - sx) / length, (ey - sy) / length
        tip = (sx + 0.68 * (ex - sx), sy + 0.68 * (ey - sy))
        long, half = min(size, 0.3 * length), 0.6 * min(size, 0.3 * length)
        base = (tip[0] - long * dx, tip[1] - long * dy)
        corners = [
            tip,
            (base[0] - half * dy, base[1] + half * dx),
            (base[0] + half * dy, base[1] - half * dx),
        ]
        head = Polygon(corners, closed=True, fc=colour, ec="white", lw=0.5, zorder=3)
        head.set_gid(element_id(f"arrow-{overlay.key}", f"{ahead[0]}-{ahead[1]}"))
        axis.add_patch(head)


def _label_totals(
    axis: Any, overlays: list[Overlay], where: dict[Any, tuple[float, float]]
) -> None:
    """Each link's messages, all overlays added, at the middle of the link."""
    totals: dict[tuple, float] = {}
    for overlay in overlays:
        for u, v, value in overlay.links:
            key = link_key(u, v)
            totals[key] = totals.get(key, 0.0) + value
    for (u, v), value in totals.items():
        if u not in where or v not in where:
            continue
        (x1, y1), (x2, y2) = where[u], where[v]
        text = axis.text(
            (x1 + x2) / 2,
            (y1 + y2) / 2,
            f"{value:.3g}",
            fontsize=6,
            color="0.15",
            ha="center",
            va="center",
            zorder=4,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.75},
        )
        text.set_gid(element_id("value-messages", f"{u}-{v}"))


def _legends(figure: Any, scene: Scene, handles: list[Any]) -> None:
    """The overlays' legend, the scene's figures and its legend lines."""
    units = {o.unit for o in scene.overlays}
    title = f"sent, {units.pop()}" if len(units) == 1 else scene.kind
    if handles:
        figure.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(0.65, 0.93),
            fontsize=7.5,
            frameon=False,
            title=title,
            title_fontsize=8,
            alignment="left",
        )
    notes = [_wrapped(n) for n in scene.notes]
    figure.text(
        0.66,
        0.17,
        "\n".join(_figure_lines(scene) + notes),
        fontsize=7.5,
        va="bottom",
        ha="left",
        wrap=True,
    )
    legend = list(scene.legend)
    if len(legend) > LEGEND_LINES:
        more = len(scene.legend) - LEGEND_LINES + 1
        legend = [*legend[: LEGEND_LINES - 1], f"… {more} more (inev draw --text)"]
    figure.text(0.02, 0.02, "\n".join(legend), fontsize=7, va="bottom", ha="left", wrap=True)


def _draw_nodes(axis: Any, scene: Scene, many: bool) -> None:
    """Draw the nodes (sinks as stars), a frame around the centralized node, node numbers
    (all of them unless ``many``) and labels. Artists get ids ``nodes``, ``sinks``,
    ``centralized``, ``node-…`` and ``label-…`` (in SVG files)."""
    for group, marker in (("plain", "o"), ("sink", "*")):
        chosen = [m for m in scene.nodes if ("sink" in m.roles) == (group == "sink")]
        if not chosen:
            continue
        base = 140 if group == "sink" else (35 if many else 90)
        points = axis.scatter(
            [m.x for m in chosen],
            [m.y for m in chosen],
            s=[base * m.size * (1.8 if group == "sink" else 1) for m in chosen],
            c=[_node_colour(m.roles) for m in chosen],
            marker=marker,
            edgecolors="0.25",
            linewidths=0.7,
            zorder=5,
        )
        points.set_gid("nodes" if group == "plain" else "sinks")
    _draw_regions(axis, scene, 35 if many else 90)
    _draw_centralized(axis, scene)
    from matplotlib import patheffects

    halo = [patheffects.withStroke(linewidth=2.2, foreground="white")]
    for m in scene.nodes:
        if (not many or m.label) and not m.members:
            name = axis.text(
                m.x,
                m.y,
                str(m.node),
                fontsize=6.5 if not many else 5.5,
                fontweight="bold",
                ha="center",
                va="center",
                zorder=7,
                path_effects=halo,
            )
            name.set_gid(element_id("node", m.node))


def _node_colour(roles: Any) -> str:
    """Yellow for a host, white for a source, light grey for the rest.

    >>> _node_colour(("source", "host")), _node_colour(("source",)), _node_colour(())
    ('#f6c445', 'white', '0.9')
    """
    if "host" in roles:
        return "#f6c445"
    return "white" if "source" in roles else "0.9"


def _draw_regions(axis: Any, scene: Scene, base: float) -> None:
    """A ring in its region's colour around each node of a regional placement's regions
    (group ``regions`` in SVG files; colours repeat after 20 regions)."""
    ringed = [m for m in scene.nodes if m.region is not None]
    if not ringed:
        return
    colours = _pyplot().get_cmap("tab20")
    rings = axis.scatter(
        [m.x for m in ringed],
        [m.y for m in ringed],
        s=base * 2.6,
        marker="o",
        facecolors="none",
        edgecolors=[colours(m.region % colours.N) for m in ringed],
        linewidths=2.0,
        zorder=4.5,
    )
    rings.set_gid("regions")


def _draw_centralized(axis: Any, scene: Scene) -> None:
    """A square frame around the centralized node (if the scene marks one)."""
    central = [m for m in scene.nodes if "centralized" in m.roles]
    if not central:
        return
    frame = axis.scatter(
        [m.x for m in central],
        [m.y for m in central],
        s=260,
        marker="s",
        facecolors="none",
        edgecolors="0.2",
        linewidths=1.0,
        zorder=6,
    )
    frame.set_gid("centralized")


def _role_handles(scene: Scene, line: Any) -> list[Any]:
    roles = {r for m in scene.nodes for r in m.roles}
    out = []
    if "host" in roles:
        what = (
            "evaluates projections"
            if scene.kind in ("plan", "diff")
            else "engines processed events"
        )
        out.append(line([], [], marker="o", ls="", mfc="#f6c445", mec="0.25", label=what))
    if "sink" in roles:
        out.append(
            line([], [], marker="*", ls="", ms=10, mfc="0.9", mec="0.25", label="sink of a query")
        )
    if "centralized" in roles:
        out.append(
            line([], [], marker="s", ls="", ms=9, mfc="none", mec="0.2", label="centralized node")
        )
    regions = {m.region for m in scene.nodes if m.region is not None}
    if regions:
        label = f"{plural(len(regions), 'region')} (ring colour: its site's)"
        out.append(line([], [], marker="o", ls="", ms=10, mfc="none", mec="0.35", mew=2.0,
                        label=label))  # fmt: skip
    return out


def save_scene(scene: Scene, out: str | os.PathLike[str]) -> Path:
    """Draw ``scene`` into ``out`` (PNG, SVG or PDF by its suffix), atomically."""
    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise InevError(f"{out}: a drawing must end in {', '.join(FORMATS)} or .html")
    plt = _pyplot()
    with plt.rc_context(SVG_SETTINGS):
        figure = render(scene)
        try:
            with atomic_output(target, "wb") as handle:
                figure.savefig(handle, format=suffix[1:], metadata=_metadata(suffix))
        finally:
            plt.close(figure)
    return target


def scene_svg(scene: Scene) -> str:
    """The SVG text of ``scene`` (for the HTML page)."""
    import io

    plt = _pyplot()
    with plt.rc_context(SVG_SETTINGS):
        figure = render(scene)
        try:
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata=_metadata(".svg"))
        finally:
            plt.close(figure)
    return buffer.getvalue()


def _metadata(suffix: str) -> dict[str, Any]:
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}
