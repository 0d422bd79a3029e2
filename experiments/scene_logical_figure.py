"""Drawing a projection graph (:class:`~inev.experiments.scene_logical.LogicalScene`) with
matplotlib: PNG, SVG or PDF (``inev draw plan.json --logical -o graph.png``).

The same picture as the page's tab, without interaction: layers left to right, boxes with
the alias (or type), pattern, placement and rate; a multi-node projection as a stack of
boxes, a regional one with a dashed frame, a query's sink with a thick one; each arrow in its
input's colour (the topology drawing's), its width by rate (logarithmic when the rates span
more than 20×), dashed when the input crosses no link, labelled with its rate and what
travels. Box sizes follow the length of their text (a fixed-width estimate: matplotlib only
measures text once it is drawn). The SVG keeps text as text and each box as a group
``box-<title>``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.experiments.plot_options import SVG_SETTINGS
from inev.experiments.scene import element_id
from inev.experiments.scene_logical import Box, LogicalScene

CHAR = 0.058
"""Width of one character of the box text at 7.5 pt, in inches (an estimate)."""
LINE = 0.15
"""Height of one line of box text, in inches."""
PAD = 0.1
"""Space inside a box around its text, in inches."""
ROW_GAP = 0.3
"""Space between two boxes of a layer, in inches."""


def _widths(values: list[float]) -> Any:
    positive = [v for v in values if v > 0]
    if not positive:
        return lambda v: 1.2
    lo, hi = min(positive), max(positive)
    if hi / lo < 20:
        return lambda v: 1.0 + 4.0 * max(v, 0.0) / hi
    span = math.log(hi / lo)
    return lambda v: 1.0 + 4.0 * math.log(v / lo) / span if v > 0 else 1.0


def _colours(view: LogicalScene) -> dict[str, str]:
    from inev.experiments.scene_html import PALETTE10, PALETTE20

    sources = list(dict.fromkeys(a.source for a in view.arrows if not a.local))
    palette = PALETTE10 if len(sources) <= 10 else PALETTE20
    return {key: palette[i % len(palette)] for i, key in enumerate(sources)}


def render_logical(view: LogicalScene) -> Any:
    """The matplotlib figure of ``view`` (close it with ``plt.close``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    place = _places(view)
    xs = [x + s * w / 2 for x, _, w, _ in place.values() for s in (-1, 1)]
    ys = [y + s * h / 2 for _, y, _, h in place.values() for s in (-1, 1)]
    left, right = min(xs, default=0) - 0.25, max(xs, default=1) + 0.35
    bottom, top = min(ys, default=0) - 0.3, max(ys, default=1) + 0.35
    right = max(right, left + 6.0)  # a page wide at least, the picture on its left
    bottom = min(bottom, top - 2.3)
    width, height = right - left, top - bottom + 0.7  # inches: one layout unit is one inch
    shrink = min(1.0, 40.0 / max(width, height))  # matplotlib's largest sensible figure
    figure = plt.figure(figsize=(width * shrink, height * shrink), dpi=110)
    axis = figure.add_axes((0.0, 0.35 / height, 1.0, (top - bottom) / height))
    axis.set_axis_off()
    colours = _colours(view)
    scale = _widths([a.rate for a in view.arrows])
    taken = [(x - w / 2, y - h / 2, x + w / 2, y + h / 2) for x, y, w, h in place.values()]
    for a in view.arrows:
        (x1, y1, w1, _), (x2, y2, w2, _) = place[a.source], place[a.target]
        colour = colours.get(a.source, "#9aa3ad")
        span = view.box(a.target).layer - view.box(a.source).layer
        bend = 0.0 if span <= 1 else (0.25 if y1 <= y2 else -0.25)
        start, end = (x1 + w1 / 2, y1), (x2 - w2 / 2, y2)
        arrow = FancyArrowPatch(
            start,
            end,
            connectionstyle=f"arc3,rad={bend}",
            arrowstyle="-|>",
            mutation_scale=10,
            linewidth=scale(a.rate),
            linestyle="--" if a.local else "-",
            color=colour,
            alpha=0.85,
            zorder=1,
        )
        axis.add_patch(arrow)
        what = a.forwarded.split(" of ")[0].replace("whole ", "")
        text = f"{a.rate:.3g}/tu · {what}" + (" · local" if a.local else "")
        where = _label_place(start, end, bend, 0.055 * len(text) + 0.1, 0.17, taken)
        axis.text(
            *where,
            text,
            fontsize=6.5,
            ha="center",
            va="center",
            zorder=3,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": colour, "lw": 0.5},
        )
    for b in view.boxes:
        x, y, w, h = place[b.key]
        for off in (0.08, 0.04) if b.multi else ():
            axis.add_patch(
                FancyBboxPatch(
                    (x - w / 2 + off, y - h / 2 + off), w, h, boxstyle="round,pad=0.02",
                    fc="white", ec="#6c7884", lw=0.7, zorder=2,
                )
            )  # fmt: skip
        frame = FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.02",
            fc="#eef3f8" if b.kind == "input" else "white",
            ec="#39424c",
            lw=2.4 if b.sinks else 1.0,
            ls="--" if b.regional else "-",
            zorder=2,
        )
        frame.set_gid(element_id("box", b.title))
        axis.add_patch(frame)
        axis.text(
            x,
            y,
            "\n".join([b.title, *b.lines]),
            fontsize=7.5,
            ha="center",
            va="center",
            zorder=4,
            linespacing=1.35,
        )
    axis.set_xlim(left, right)
    axis.set_ylim(bottom, top)
    figure.text(0.01, 1 - 0.3 / height, view.title, fontsize=10, fontweight="bold", va="bottom")
    figure.text(
        0.01,
        0.01,
        "boxes: event types (shaded) and projections; a stack: multi-node; dashed frame: "
        "regional; thick frame: a query's sink; arrows: rate (events / time unit) and what "
        "travels, dashed: not sent",
        fontsize=7,
    )
    return figure


def _label_place(
    start: tuple[float, float],
    end: tuple[float, float],
    bend: float,
    width: float,
    height: float,
    taken: list[tuple[float, float, float, float]],
) -> tuple[float, float]:
    """Where an arrow's label goes: the first point along the arrow (its middle first, then
    outwards) where a label of this size overlaps no box and no label already placed (else
    the middle); the place is added to ``taken``. The arrow is matplotlib's ``arc3``
    curve: a quadratic Bézier whose control point is the chord's middle moved sideways by
    ``bend`` times the chord."""
    (x1, y1), (x2, y2) = start, end
    cx, cy = (x1 + x2) / 2 + bend * (y2 - y1), (y1 + y2) / 2 - bend * (x2 - x1)
    chosen = None
    for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85):
        px = (1 - t) ** 2 * x1 + 2 * (1 - t) * t * cx + t**2 * x2
        py = (1 - t) ** 2 * y1 + 2 * (1 - t) * t * cy + t**2 * y2
        box = (px - width / 2, py - height / 2, px + width / 2, py + height / 2)
        if not any(
            box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in taken
        ):
            chosen = (px, py)
            break
    if chosen is None:
        t = 0.5
        chosen = ((1 - t) ** 2 * x1 + 2 * (1 - t) * t * cx + t**2 * x2,
                  (1 - t) ** 2 * y1 + 2 * (1 - t) * t * cy + t**2 * y2)  # fmt: skip
    taken.append((chosen[0] - width / 2, chosen[1] - height / 2,
                  chosen[0] + width / 2, chosen[1] + height / 2))  # fmt: skip
    return chosen


def _places(view: LogicalScene) -> dict[str, tuple[float, float, float, float]]:
    """Per box: centre x, y, width and height in inches; a layer's column is as wide as its
    widest box, and the gap to the next leaves room for the widest arrow label between."""
    out = {}
    left = 0.0
    labels: dict[int, int] = {}
    for a in view.arrows:
        d = view.box(a.source).layer
        if view.box(a.target).layer == d + 1:
            labels[d] = max(labels.get(d, 0), len(a.forwarded) + 14)
    for d in sorted({b.layer for b in view.boxes}):
        column = sorted((b for b in view.boxes if b.layer == d), key=lambda b: b.order)
        widest = max(_width(b) for b in column)
        tallest = max(_height(b) for b in column)
        for k, b in enumerate(column):
            y = -(k - (len(column) - 1) / 2) * (tallest + ROW_GAP)
            out[b.key] = (left + widest / 2, y, _width(b), _height(b))
        left += widest + max(1.1, 0.87 * CHAR * labels.get(d, 0) + 0.35)
    return out


def _width(b: Box) -> float:
    return CHAR * max(len(t) for t in (b.title, *b.lines)) + 2 * PAD


def _height(b: Box) -> float:
    return LINE * (len(b.lines) + 1) + 2 * PAD


def save_logical(view: LogicalScene, out: str | os.PathLike[str]) -> Path:
    """Draw ``view`` into ``out`` (PNG, SVG or PDF by its suffix), atomically."""
    import matplotlib.pyplot as plt

    from inev.experiments.scene_figure import FORMATS, _metadata

    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise InevError(f"{out}: a drawing must end in {', '.join(FORMATS)} or .html")
    with plt.rc_context(SVG_SETTINGS):
        figure = render_logical(view)
        try:
            with atomic_output(target, "wb") as handle:
                figure.savefig(handle, format=suffix[1:], metadata=_metadata(suffix))
        finally:
            plt.close(figure)
    return target
