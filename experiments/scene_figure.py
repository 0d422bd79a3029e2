"""Drawing a :class:`~inev.experiments.scene.Scene` with matplotlib (PNG, SVG, PDF).

The topology is drawn in light grey; each overlay (a forwarding input, or a simulation's
messages) is a coloured set of line segments, shifted sideways when several overlays share
a link so that each stays visible, and labelled with its figure per link when there are few
links. Nodes that evaluate projections are yellow, sinks are stars, the centralized node
has a square frame. The legend names every overlay with its total; the aliases and the
plan's figures are written under the picture.

The SVG is structured for machines as well: text is kept as ``<text>`` (not glyph paths),
each overlay is a group ``id="forward-<key>"`` (``id="messages"`` for a simulation) with
one ``<path>`` per link, each node label a group ``id="label-<node>"``, and the file has
no date, so the same scene gives the same bytes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.experiments.scene import Scene
from inev.topologies.network import link_key

FORMATS = (".png", ".svg", ".pdf")
LABELLED_LINKS = 60
"""Above this many overlay links the per-link figures are left out (they would overlap)."""
LEGEND_LINES = 14
"""Alias and query lines written under the picture (the text form lists all)."""


def element_id(prefix: str, name: Hashable) -> str:
    """An SVG/XML id for ``name``: characters outside ``[A-Za-z0-9_.-]`` become ``_``.

    >>> element_id("label", "node 7"), element_id("forward", "P1")
    ('label-node_7', 'forward-P1')
    """
    return f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]', '_', str(name))}"


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

    handles = _draw_overlays(axis, scene, where, span)
    _draw_nodes(axis, scene, many)
    handles += _role_handles(scene, Line2D)
    _legends(figure, scene, handles)
    return figure


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
    after the values (labelled when few); the legend handles."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    sharing: dict[tuple, list[int]] = {}
    for i, overlay in enumerate(scene.overlays):
        for u, v, _ in overlay.links:
            sharing.setdefault(link_key(u, v), []).append(i)
    colours = _pyplot().get_cmap("tab10" if len(scene.overlays) <= 10 else "tab20")
    labelled = sum(len(o.links) for o in scene.overlays) <= LABELLED_LINKS
    handles = []
    for i, overlay in enumerate(scene.overlays):
        colour = colours(i % colours.N)
        segments, widths = [], []
        largest = max((value for _, _, value in overlay.links), default=0.0) or 1.0
        for u, v, value in overlay.links:
            if u not in where or v not in where:
                continue
            (x1, y1), (x2, y2) = _shifted(where[u], where[v], i, sharing[link_key(u, v)], span)
            segments.append(((x1, y1), (x2, y2)))
            widths.append(0.6 + 7.0 * value / largest if overlay.widths else 2.0)
            if labelled:
                text = axis.text(
                    (x1 + x2) / 2,
                    (y1 + y2) / 2,
                    f"{value:.3g}",
                    fontsize=6,
                    color=colour,
                    ha="center",
                    va="center",
                    zorder=4,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
                )
                text.set_gid(element_id(f"value-{overlay.key}", f"{u}-{v}"))
        lines = LineCollection(
            segments, colors=[colour], linewidths=widths, alpha=0.85, zorder=2 + i * 0.01
        )
        lines.set_gid(
            "messages" if overlay.key == "messages" else element_id("forward", overlay.key)
        )
        axis.add_collection(lines)
        label = f"{overlay.name}: {overlay.total:.4g} ({_links(overlay)})"
        handles.append(Line2D([], [], color=colour, linewidth=2.5, label=label))
    return handles


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
    figure.text(
        0.66, 0.17, "\n".join(_figure_lines(scene)), fontsize=7.5, va="bottom", ha="left", wrap=True
    )
    legend = list(scene.legend)
    if len(legend) > LEGEND_LINES:
        more = len(scene.legend) - LEGEND_LINES + 1
        legend = [*legend[: LEGEND_LINES - 1], f"… {more} more (inev draw --text)"]
    figure.text(0.02, 0.02, "\n".join(legend), fontsize=7, va="bottom", ha="left", wrap=True)


def _draw_nodes(axis: Any, scene: Scene, many: bool) -> None:
    colour = {"host": "#f6c445", "source": "white"}
    for group, marker in (("plain", "o"), ("sink", "*")):
        chosen = [m for m in scene.nodes if ("sink" in m.roles) == (group == "sink")]
        if not chosen:
            continue
        base = 140 if group == "sink" else (35 if many else 90)
        points = axis.scatter(
            [m.x for m in chosen],
            [m.y for m in chosen],
            s=[base * m.size * (1.8 if group == "sink" else 1) for m in chosen],
            c=[
                colour["host"]
                if "host" in m.roles
                else colour.get("source" if "source" in m.roles else "", "0.9")
                for m in chosen
            ],
            marker=marker,
            edgecolors="0.25",
            linewidths=0.7,
            zorder=5,
        )
        points.set_gid("nodes" if group == "plain" else "sinks")
    central = [m for m in scene.nodes if "centralized" in m.roles]
    if central:
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
    for m in scene.nodes:
        if not many or m.label:
            name = axis.text(
                m.x, m.y, str(m.node), fontsize=5.5, ha="center", va="center", zorder=7
            )
            name.set_gid(element_id("node", m.node))
        if m.label:
            text = axis.annotate(
                m.label,
                (m.x, m.y),
                xytext=(0, 7),
                textcoords="offset points",
                fontsize=6.5,
                ha="center",
                va="bottom",
                zorder=8,
                bbox={
                    "boxstyle": "round,pad=0.15",
                    "fc": "white",
                    "ec": "0.6",
                    "lw": 0.4,
                    "alpha": 0.85,
                },
            )
            text.set_gid(element_id("label", m.node))


def _role_handles(scene: Scene, line: Any) -> list[Any]:
    roles = {r for m in scene.nodes for r in m.roles}
    out = []
    if "host" in roles:
        what = "evaluates projections" if scene.kind == "plan" else "engines processed events"
        out.append(line([], [], marker="o", ls="", mfc="#f6c445", mec="0.25", label=what))
    if "sink" in roles:
        out.append(
            line([], [], marker="*", ls="", ms=10, mfc="0.9", mec="0.25", label="sink of a query")
        )
    if "centralized" in roles:
        out.append(
            line([], [], marker="s", ls="", ms=9, mfc="none", mec="0.2", label="centralized node")
        )
    return out


def save_scene(scene: Scene, out: str | os.PathLike[str]) -> Path:
    """Draw ``scene`` into ``out`` (PNG, SVG or PDF by its suffix), atomically."""
    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise InevError(f"{out}: a drawing must end in {', '.join(FORMATS)} or .html")
    plt = _pyplot()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "inev"}):
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
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "inev"}):
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
