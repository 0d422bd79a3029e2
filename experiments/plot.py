"""Plots of sweep results: the median (or mean) per line with its spread (matplotlib).

One line per value of ``lines`` (and per method when the results hold several, and per
metric when ``y`` names several), ``x`` on the horizontal axis, the median of ``y`` over the
seeds. The first two lines get a shaded band from the first to the third quartile; further
lines get the same range as error bars, so that bands never pile up into one blur.

**Statistic.** ``stat = "mean"`` (``inev plot --stat mean``; the INEv paper reports means of
50 runs, §7.1) draws the mean with its 95 % confidence interval (Student's t,
:func:`inev.common.stats.mean_interval`); ``interval = "ci"`` gives the median its 95 %
distribution-free interval instead of the quartiles (:func:`inev.common.stats.
median_interval`). The legend's title says which. **The bound.** ``bound`` (``--bound``)
adds the provable lower bound of the plotted ratio or cost, from every row's
``lower_bound`` (ratio: ``lower_bound / centralized_cost``), as one more line per value of
``lines``, whether or not the sweep ran ``lower_bound`` as a method. Axis
labels, legend entries and method names come from :mod:`inev.experiments.columns` (human
names with units); a subtitle gives the setup (the parameters that are the same in every
row) and n, the seeds per point.

**Log axes.** Ratios and costs use a log vertical axis by default (the paper's Figures 4–10
do). A median or quartile of 0 (or below) has no place on a log axis: instead of dropping it,
it is drawn at the axis floor (a third of the smallest positive value shown) with an open
downward marker, and a note under the plot says so. ``log_x`` draws the horizontal axis on a
log scale; count parameters (``nodes``, ``queries`` …) get integer ticks. A log axis spanning
at most :data:`PLAIN_DECADES` decades is ticked at 1, 2 and 5 times the powers of ten and
labelled in plain numbers (0.2, 0.5, 1, 2), so that it never shows only two labels.

**Lines decades apart.** On a log axis, lines whose medians lie more than
:data:`GAP_DECADES` decades away from the main group (the provable lower bound, 1e-21 against
ratios of 1e-3 to 1 in the README's walk-through) are drawn in a second panel below, with a
scale of its own, instead of squeezing the main lines into a sliver (:func:`panels`).

**Few seeds.** A line whose points rest on fewer than :data:`~inev.experiments.plot_options.SPARSE_SEEDS` seeds each is
dashed, each point is marked with its n, and a note says so: two seeds joined by a straight
line across decades are not a trend.

>>> PlotOptions.from_table({"x": "skew", "y": ["ratio", "sim_ratio"]}).metrics
('ratio', 'sim_ratio')
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.experiments.columns import axis_label, column
from inev.experiments.plot_data import _data, bound_series, scatter_series, series
from inev.experiments.plot_options import REFERENCE_AT_ONE, SPARSE_SEEDS, SVG_SETTINGS, PlotOptions
from inev.experiments.plot_text import infinite_values, notes_text, setup_text, y_label

__all__ = [
    "PlotOptions",
    "bound_series",
    "panels",
    "plot",
    "scatter_series",
    "series",
    "setup_text",
]
FORMATS = (".png", ".svg", ".pdf")
BANDS = 2
"""Lines drawn with a shaded inter-quartile band (per panel); the others get error bars."""
GAP_DECADES = 4.0
"""Decades between groups of lines that put the smaller group into a panel of its own."""
SPARSE_MARKS = 40
"""At most this many points are marked with their n (else the note alone says it)."""
PLAIN_DECADES = 3.0
"""Log axes spanning at most this many decades get 1-2-5 ticks in plain numbers."""
MARKERS = "osD^v<>ph*"


def _draw_points(axis: Any, data: dict[str, list], floor: float | None) -> int:
    """Draw one marker per point (a scatter plot); return how many sat at the floor."""
    markers = MARKERS
    floored = 0
    for i, (label, points) in enumerate(data.items()):
        ys = [p[2] for p in points]
        if floor is not None:
            floored += sum(1 for v in ys if v <= 0)
            ys = [max(v, floor) for v in ys]
        marks = axis.scatter(
            [p[0] for p in points], ys, marker=markers[i % len(markers)], s=22, label=label
        )
        marks.set_gid(f"points-{i}")
    return floored


def plot(
    table: pa.Table,
    out: str | os.PathLike[str],
    options: PlotOptions | None = None,
    **fields_: Any,
) -> Path:
    """Draw the median/IQR plot and write it (PNG, SVG or PDF by suffix).

    ``options`` (or its fields as keywords) say what to plot; see :class:`PlotOptions`.
    """
    options = replace(options, **fields_) if options else PlotOptions(**fields_)
    if isinstance(options.y, list):
        options = replace(options, y=tuple(options.y))
    target = Path(out)
    if target.suffix.lower() not in FORMATS:
        raise InevError(f"{out}: plot file must end in {', '.join(FORMATS)}")
    if not options.x:
        raise InevError("say which column goes on the horizontal axis (x)")
    data = _data(table, options)
    if not data:
        raise InevError(f"no error-free rows with a value of {', '.join(options.metrics)} to plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = options.metrics
    values = [v for points in data.values() for p in points for v in p[1:4]]
    log = column(metrics[0]).log if options.log is None else options.log
    log = bool(log and any(v > 0 for v in values))
    main, far = panels(data) if log and not options.scatter else (data, {})
    order = {label: i for i, label in enumerate(data)}  # one colour and marker per line
    with plt.rc_context(SVG_SETTINGS):
        if far:
            figure, (axis, lower) = plt.subplots(
                2, 1, figsize=(6.8, 6.2), dpi=150, sharex=True, height_ratios=(3, 1.7)
            )
        else:
            figure, axis = plt.subplots(figsize=(6.8, 4.6), dpi=150)
        floor = _floor(main, log)
        if options.scatter:
            drawn = Drawn(_draw_points(axis, main, floor), 0)
        else:
            drawn = _draw_series(axis, main, floor, order)
        if far:
            far_floor = _floor(far, log)
            drawn = drawn + _draw_series(lower, far, far_floor, order)
            _decorate_far(lower, main, far, far_floor)
        notes = Notes(
            drawn.floored, infinite_values(table, options), drawn.sparse, drawn.marked, drawn.counts
        )
        _decorate(figure, axis, table, options, log, floor, notes, lower if far else None)
        with atomic_output(target, "wb") as handle:
            figure.savefig(handle, format=target.suffix[1:].lower(), metadata=_metadata(target))
        plt.close(figure)
    return target


@dataclass(frozen=True)
class Drawn:
    """What drawing the lines of a panel did that the notes report."""

    floored: int
    """Points moved to the floor of the log axis."""
    sparse: int
    """Lines drawn dashed for having fewer than :data:`SPARSE_SEEDS` seeds per point."""
    marked: bool = False
    """Whether their points carry their n."""
    counts: frozenset[int] = frozenset()
    """The seed counts of their points."""

    def __add__(self, other: Drawn) -> Drawn:
        return Drawn(
            self.floored + other.floored,
            self.sparse + other.sparse,
            self.marked or other.marked,
            self.counts | other.counts,
        )


@dataclass(frozen=True)
class Notes:
    """What the note under a plot says."""

    floored: int = 0
    infinite: int = 0
    sparse: int = 0
    marked: bool = False
    counts: frozenset[int] = frozenset()


def _floor(data: Mapping[str, list], log: bool) -> float | None:
    """A third of the smallest positive value of ``data`` on a log axis (else ``None``)."""
    positive = [v for points in data.values() for p in points for v in p[1:4] if v > 0]
    return min(positive) / 3 if log and positive else None


def panels(data: Mapping[str, list]) -> tuple[dict[str, list], dict[str, list]]:
    """The lines of the main panel and those drawn in a panel of their own below it.

    Lines are grouped by the decades their positive medians span: sorted from the top, a
    line more than :data:`GAP_DECADES` decades below the group above it starts a new group.
    The group holding the most lines (the upper one on a tie) is the main panel; all others
    go below. One group: no second panel.

    >>> lines = {"INEv": [(1, 0, 1e-3, 0, 3)], "PPoP": [(1, 0, 0.5, 0, 3)],
    ...          "bound": [(1, 0, 1e-21, 0, 3)]}
    >>> [list(p) for p in panels(lines)]
    [['INEv', 'PPoP'], ['bound']]
    """
    spans = {}
    for label, points in data.items():
        medians = [math.log10(p[2]) for p in points if p[2] > 0]
        if medians:
            spans[label] = (min(medians), max(medians))
    groups: list[list[str]] = []
    low = math.inf
    for label in sorted(spans, key=lambda k: -spans[k][1]):
        if not groups or spans[label][1] < low - GAP_DECADES:
            groups.append([])
            low = spans[label][0]
        groups[-1].append(label)
        low = min(low, spans[label][0])
    if len(groups) < 2:
        return dict(data), {}
    main = set(max(groups, key=len))  # max keeps the first (upper) group of a tie
    return (
        {k: v for k, v in data.items() if k in main or k not in spans},
        {k: v for k, v in data.items() if k in spans and k not in main},
    )


def _draw_series(
    axis: Any, data: dict[str, list], floor: float | None, order: Mapping[str, int]
) -> Drawn:
    """Draw every line (median), its band or error bars, and its floor markers; sparse lines
    dashed with each point's n. ``order`` gives each line's colour and marker (the same in
    both panels). Artists get ids ``line-i``, ``band-i``, ``bars-i``, ``floor-i`` (in SVG
    files), ``i`` from ``order``."""
    floored = sparse = 0
    numeric = all(isinstance(p[0], int | float) for pts in data.values() for p in pts)
    few, counts, marked = _sparse_lines(data)
    for rank, (label, points) in enumerate(data.items()):
        i = order[label]
        xs = [p[0] for p in points]
        positions = xs if numeric else list(range(len(xs)))
        quartiles, at_floor = _line_values(points, floor)
        thin = label in few
        line = _draw_line(axis, i, label, positions, quartiles[1], thin)
        _draw_spread(axis, i, rank, positions, quartiles, line.get_color())
        if thin:
            sparse += 1
            if marked:
                _mark_seeds(
                    axis, i, positions, quartiles[1], [p[4] for p in points], line.get_color()
                )
        if at_floor:
            floored += len(at_floor)
            _draw_floor(axis, i, [positions[j] for j in at_floor], floor, line.get_color())
        if not numeric:
            axis.set_xticks(positions, [str(v) for v in xs])
    return Drawn(floored, sparse, marked and sparse > 0, frozenset(counts))


def _sparse_lines(data: dict[str, list]) -> tuple[list[str], set[int], bool]:
    """The lines with fewer than :data:`SPARSE_SEEDS` seeds at every point, their points'
    seed counts, and whether each point says its own n (counts differ, and the points are
    few enough; one n everywhere: the subtitle says it)."""
    few = [label for label, points in data.items() if max(p[4] for p in points) < SPARSE_SEEDS]
    counts = {p[4] for label in few for p in data[label]}
    marked = len(counts) > 1 and sum(len(data[label]) for label in few) <= SPARSE_MARKS
    return few, counts, marked


def _line_values(
    points: list, floor: float | None
) -> tuple[tuple[list[float], list[float], list[float]], list[int]]:
    """A line's quartiles (raised to ``floor`` on a log axis) and the indices of the
    points whose median is at or below zero (drawn at the floor)."""
    low, mid, high = ([p[k] for p in points] for k in (1, 2, 3))
    at_floor = [j for j, v in enumerate(mid) if floor is not None and v <= 0]
    if floor is not None:
        low, mid, high = ([max(v, floor) for v in seq] for seq in (low, mid, high))
    return (low, mid, high), at_floor


def _draw_line(
    axis: Any, i: int, label: str, positions: Sequence[Any], mid: Sequence[float], thin: bool
) -> Any:
    """Line ``i``'s medians (dashed and thinner when sparse); its id is ``line-i``."""
    line = axis.plot(
        positions,
        mid,
        marker=MARKERS[i % len(MARKERS)],
        label=label,
        color=f"C{i % 10}",
        linewidth=1.2 if thin else 1.6,
        linestyle=(0, (4, 2.5)) if thin else "-",
        markersize=4,
        zorder=3,
    )[0]
    line.set_gid(f"line-{i}")
    return line


def _mark_seeds(
    axis: Any,
    i: int,
    positions: Sequence[Any],
    values: Sequence[float],
    counts: Sequence[int],
    colour: Any,
) -> None:
    """``n=k`` beside each point of sparse line ``i`` (ids ``seeds-i-j`` in SVG files)."""
    for j, (x, y, n) in enumerate(zip(positions, values, counts, strict=True)):
        text = axis.annotate(
            f"n={n}",
            (x, y),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=6,
            color=colour,
            zorder=5,
        )
        text.set_gid(f"seeds-{i}-{j}")


def _draw_spread(
    axis: Any,
    i: int,
    rank: int,
    positions: Sequence[Any],
    quartiles: tuple[list[float], list[float], list[float]],
    colour: Any,
) -> None:
    """Line ``i``'s inter-quartile range: a shaded band for the first :data:`BANDS` lines of
    a panel (``rank``: the line's place in it), error bars for the others."""
    low, mid, high = quartiles
    if rank < BANDS:
        band = axis.fill_between(positions, low, high, color=colour, alpha=0.16, linewidth=0)
        band.set_gid(f"band-{i}")
        return
    bars = axis.errorbar(
        positions,
        mid,
        yerr=[
            [m - lo for m, lo in zip(mid, low, strict=True)],
            [hi - m for m, hi in zip(mid, high, strict=True)],
        ],
        fmt="none",
        ecolor=colour,
        elinewidth=1,
        capsize=2.5,
        zorder=2,
    )
    bars.lines[2][0].set_gid(f"bars-{i}")


def _draw_floor(
    axis: Any, i: int, positions: Sequence[Any], floor: float | None, colour: Any
) -> None:
    """Open downward markers at the log axis' floor for line ``i``'s points at ``positions``."""
    marks = axis.scatter(
        positions,
        [floor] * len(positions),
        marker="v",
        s=46,
        facecolors="white",
        edgecolors=colour,
        linewidths=1.3,
        zorder=4,
    )
    marks.set_gid(f"floor-{i}")


def _decorate(
    figure: Any,
    axis: Any,
    table: pa.Table,
    options: PlotOptions,
    log: bool,
    floor: float | None,
    notes: Notes,
    lower: Any | None = None,
) -> None:
    """Scales, ticks, labels, title with the setup, legend and the notes (points at the floor,
    values left out because they are infinite, sparse lines); with a ``lower`` panel, the
    horizontal axis is labelled there."""
    _scales(axis, table, options, log, floor)
    metrics = options.metrics
    if metrics[0] in REFERENCE_AT_ONE:
        axis.axhline(1.0, color="0.5", linestyle=":", linewidth=1, label="centralized (= 1)")
        if axis.get_ylim()[1] < 1.2:
            axis.set_ylim(top=1.5 if log else 1.05)
    if log:
        _log_ticks(axis)
    (lower if lower is not None else axis).set_xlabel(axis_label(options.x))
    axis.set_ylabel(options.y_label or y_label(metrics))
    title = options.title
    subtitle = setup_text(table, options)
    if title:
        axis.set_title(title + "\n" * (1 + subtitle.count("\n")), fontsize=10.5, loc="left")
    axis.text(0, 1.015, subtitle, transform=axis.transAxes, fontsize=7, color="0.35", va="bottom")
    axis.grid(True, which="major", alpha=0.3)
    legend_title = options.legend_title
    axis.legend(  # a light box: on crowded axes the text stays readable over lines and bands
        fontsize=7.5,
        frameon=True,
        framealpha=0.85,
        edgecolor="none",
        title=legend_title,
        title_fontsize=7,
    )
    text = notes_text(notes.floored, notes.infinite, notes.sparse, notes.marked, notes.counts)
    if text:
        figure.text(0.01, 0.01, text, ha="left", va="bottom", fontsize=6.5, color="0.35")
    figure.tight_layout(rect=(0, 0.03 if text else 0, 1, 1))


def _decorate_far(
    axis: Any, main: Mapping[str, list], far: Mapping[str, list], floor: float | None
) -> None:
    """The lower panel: its own log scale and floor, a legend, and how far below it is."""
    axis.set_yscale("log")
    if floor is not None:
        axis.set_ylim(bottom=floor / 1.5)
    _log_ticks(axis)
    axis.grid(True, which="major", alpha=0.3)

    def top(lines: Mapping[str, list]) -> float:
        return max((p[2] for pts in lines.values() for p in pts if p[2] > 0), default=1.0)

    def bottom(lines: Mapping[str, list]) -> float:
        return min((p[2] for pts in lines.values() for p in pts if p[2] > 0), default=1.0)

    below = top(far) < bottom(main)
    gap = math.log10(bottom(main) / top(far)) if below else math.log10(bottom(far) / top(main))
    where = "below" if below else "above"
    axis.set_ylabel(f"{gap:.0f}+ decades {where}", fontsize=8)
    axis.legend(fontsize=7.5, frameon=True, framealpha=0.85, edgecolor="none")


def _log_ticks(axis: Any) -> None:
    """Plain 1-2-5 ticks on a log axis spanning at most :data:`PLAIN_DECADES` decades."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    bottom, top = axis.get_ylim()
    if bottom <= 0 or math.log10(top / bottom) > PLAIN_DECADES:
        return
    axis.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.yaxis.set_minor_formatter(NullFormatter())


def _scales(
    axis: Any, table: pa.Table, options: PlotOptions, log: bool, floor: float | None
) -> None:
    """Log scales (vertical from ``floor / 1.5``; horizontal when asked and x is numeric)
    and integer ticks for count parameters on a linear numeric x axis."""
    from matplotlib.ticker import MaxNLocator

    numeric = all(
        isinstance(v, int | float) for v in table.column(options.x).to_pylist() if v is not None
    )
    if log:
        axis.set_yscale("log")
        axis.set_ylim(bottom=floor / 1.5)
    if options.log_x and numeric:
        axis.set_xscale("log")
    integer = column(options.x).count if options.integer_x is None else options.integer_x
    if integer and numeric and not options.log_x:
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))


def _metadata(target: Path) -> dict[str, Any]:
    suffix = target.suffix.lower()
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}
