"""Node labels of a drawn scene: what each says (:func:`label_text`) and where it goes
beside its marker (:func:`place_labels`: the first of :data:`LABEL_PLACES` that overlaps no
marker and no label placed before), for :mod:`inev.experiments.scene_figure`."""

from __future__ import annotations

import math
from typing import Any

from inev.experiments.scene import NodeMark, Scene, element_id


def label_text(m: NodeMark) -> str:
    """What a node's label says: its name (a city), then what it hosts.

    >>> label_text(NodeMark(3, 0, 0, "P1, P2/A", name="Denver")), label_text(NodeMark(3, 0, 0))
    ('Denver: P1, P2/A', '')
    """
    return ": ".join(part for part in (m.name, m.label) if part)


LABEL_PLACES = (
    ((0, 9), "center", "bottom"),
    ((9, 0), "left", "center"),
    ((-9, 0), "right", "center"),
    ((0, -9), "center", "top"),
    ((7, 7), "left", "bottom"),
    ((-7, 7), "right", "bottom"),
    ((7, -7), "left", "top"),
    ((-7, -7), "right", "top"),
)
"""Where a label may go: offset from its node (points) and alignment; the first that
overlaps no marker and no label placed before wins."""


def place_labels(figure: Any, axis: Any, scene: Scene, many: bool) -> None:
    """Each node's label beside its marker where it overlaps no marker (the centralized
    node's frame included) and no label placed before: centralized node, sinks and hosts
    first. With up to 60 nodes every label is drawn (where it overlaps least, never over
    the centralized frame); above, a label with no free place is left out (``--text`` and
    the page's hover have every one)."""
    marked = [m for m in scene.nodes if label_text(m)]
    if not marked:
        return
    axis.autoscale_view()
    axis.apply_aspect()
    to_pixels = axis.transData.transform
    scale = figure.dpi / 72.0
    obstacles = []
    for m in scene.nodes:
        x, y = to_pixels((m.x, m.y))
        half = (9.0 if "centralized" in m.roles else 5.5) * scale  # the frame: 16 pt wide
        obstacles.append((x - half, y - half, x + half, y + half, "centralized" in m.roles))
    placed: list[tuple[float, float, float, float, bool]] = []
    order = sorted(marked, key=lambda m: (_rank(m), scene.nodes.index(m)))
    for m in order:
        text = label_text(m)
        box_w, box_h = (0.56 * 6.5 * len(text) + 4) * scale, 10.5 * scale
        x, y = to_pixels((m.x, m.y))
        best, best_cost = None, math.inf
        away = 1.4 if "centralized" in m.roles else 1.0  # clear of the frame
        for (ox, oy), ha, va in LABEL_PLACES:
            dx, dy = round(ox * away), round(oy * away)
            left = x + dx * scale - {"left": 0, "center": box_w / 2, "right": box_w}[ha]
            bottom = y + dy * scale - {"bottom": 0, "center": box_h / 2, "top": box_h}[va]
            box = (left, bottom, left + box_w, bottom + box_h)
            cost = sum((100 if o[4] else 1) * _overlap(box, o) for o in [*obstacles, *placed])
            if cost < best_cost:
                best, best_cost = ((dx, dy), ha, va, box), cost
            if cost == 0:
                break
        assert best is not None
        frame_hit = any(o[4] and _overlap(best[3], o) for o in obstacles)
        if (many and best_cost > 0) or frame_hit:
            continue
        placed.append((*best[3], False))
        _draw_label(axis, m, text, *best[:3])


def _rank(m: NodeMark) -> int:
    if "centralized" in m.roles:
        return 0
    if "sink" in m.roles:
        return 1
    return 2 if m.label else 3


def _overlap(a: tuple, b: tuple) -> float:
    """The area two boxes ``(x0, y0, x1, y1, …)`` share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _draw_label(
    axis: Any, m: NodeMark, text: str, offset: tuple[int, int], ha: str, va: str
) -> None:
    """Node ``m``'s label in a small box at ``offset`` points from it."""
    label = axis.annotate(
        text,
        (m.x, m.y),
        xytext=offset,
        textcoords="offset points",
        fontsize=6.5,
        ha=ha,
        va=va,
        zorder=8,
        bbox={
            "boxstyle": "round,pad=0.15",
            "fc": "white",
            "ec": "0.6",
            "lw": 0.4,
            "alpha": 0.85,
        },
    )
    label.set_gid(element_id("label", m.node))
