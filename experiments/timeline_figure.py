"""``inev draw sim.json --timeline``: a simulation's time series, changes marked (matplotlib).

Three panels share the time axis: messages per time unit (link crossings by arrival time),
matches per time unit (as the sinks detected them, and by the time of their latest event:
found, and missed against centralized evaluation), and the detection latency of the matches
detected in each bin (mean and 99th percentile). A vertical line marks each change, labelled
with its kind and what it touched (``link-down Houston-Atlanta``), and the shaded part after
the duration is what was still in flight when the sources stopped. The data is the result's
``timeline`` (:mod:`inev.simulator.timeline`); a result without one (written before
timelines, or edited) is refused in one line.

The text form (``--text``) lists the bins that hold something, one line each.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.experiments.plot_options import SVG_SETTINGS

FORMATS = (".png", ".svg", ".pdf")
COLOURS = {
    "link-down": "#d95f02",
    "node-down": "#b2182b",
    "link-up": "#1b9e77",
    "set-rate": "#7570b3",
    "swap-rates": "#7570b3",
}
"""The colour of a change's line, by kind (others: grey)."""


def load_timeline(path: str | os.PathLike[str]) -> tuple[Any, Any]:
    """The result of an ``inev-sim/1`` file and its :class:`~inev.simulator.timeline.Timeline`
    (one-line error if it has none)."""
    from inev.simulator.simulation_result import load_result

    result = load_result(path)
    if result.timeline is None:
        raise InevError(
            f"{os.fspath(path)}: the result has no timeline (written by an older inev?): "
            "simulate again to get one"
        )
    return result, result.timeline


def _title(result: Any, name: str) -> tuple[str, str]:
    """The figure's title and subtitle: what ran, how it went, how it is binned."""
    from inev.common.words import plural

    timeline = result.timeline
    found = sum(result.matches.values())
    expected = sum(result.centralized_matches.values())
    head = (
        f"{name}: {result.method}, {result.messages:,} messages, "
        f"{found:,} of {expected:,} centralized matches found"
    )
    if result.missing:
        head += f" ({result.missing:,} missed)"
    end = len(timeline) * timeline.bin
    sub = (
        f"bins of {timeline.bin:g} time unit{'' if timeline.bin == 1 else 's'}; "
        f"sources stopped at t = {timeline.duration:g}"
        + (f", what was in flight arrived by t = {end:g}" if end > timeline.duration else "")
        + (f"; {plural(len(timeline.changes), 'change')}" if timeline.changes else "")
    )
    return head, sub


def _none_to_nan(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else v for v in values]


def _mark_changes(axes: Sequence[Any], timeline: Any) -> None:
    """A vertical line per change time on every panel, labelled above the top panel (labels
    of changes close in time are stacked, so they never cover the data or each other)."""
    groups: dict[float, list[Any]] = {}
    for mark in timeline.changes:
        groups.setdefault(mark.time, []).append(mark)
    span = max(len(timeline) * timeline.bin, timeline.duration, 1e-12)
    previous = -math.inf
    level = 0
    for when, marks in sorted(groups.items()):
        kinds = {m.kind for m in marks}
        colour = COLOURS.get(marks[0].kind, "0.35") if len(kinds) == 1 else "0.3"
        for axis in axes:
            axis.axvline(when, color=colour, lw=1.6, ls=(0, (5, 2)), zorder=4)
        level = level + 1 if (when - previous) / span < 0.2 else 0
        previous = when
        axes[0].annotate(
            ", ".join(m.label for m in marks) + f" (t = {when:g})",
            xy=(when, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, 4 + 15 * (level % 3)),
            textcoords="offset points",
            ha="center" if 0.1 < when / span < 0.9 else ("left" if when / span <= 0.1 else "right"),
            va="bottom",
            fontsize=8.5,
            color=colour,
            fontweight="bold",
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": colour, "lw": 0.8},
            annotation_clip=False,
            zorder=6,
        )


def _headroom(axis: Any, values: Sequence[float | None]) -> None:
    """Start the value axis at 0 and leave a tenth above the largest value."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    axis.set_ylim(0, top * 1.1 if top > 0 else 1.0)


def _shade_tail(axes: Sequence[Any], timeline: Any) -> None:
    """Grey after the duration: the sources had stopped, this was in flight."""
    end = len(timeline) * timeline.bin
    if end <= timeline.duration:
        return
    for k, axis in enumerate(axes):
        axis.axvspan(
            timeline.duration,
            end,
            color="0.92",
            zorder=0,
            label="after the sources\nstopped (in flight)" if k == 0 else None,
        )
        axis.axvline(timeline.duration, color="0.5", lw=0.9, ls=":", zorder=1)


def _messages_panel(axis: Any, timeline: Any, times: list[float]) -> None:
    rates = [n / timeline.bin for n in timeline.messages]
    axis.fill_between(times, rates, step="post", color="#4c72b0", alpha=0.25, lw=0)
    axis.step(
        times, rates, where="post", color="#4c72b0", lw=1.3, label="messages\n(link crossings)"
    )
    axis.set_ylabel("messages\nper time unit")
    _headroom(axis, rates)


FOUND = "found, by the time\nof their latest event"
MISSED = "missed (centralized\nevaluation found them),\nby their latest event"


def _matches_panel(axis: Any, timeline: Any, times: list[float]) -> None:
    width = timeline.bin
    zeros = [0] * len(times)
    found = [n / width for n in timeline.matches_by_event_time or zeros]
    missed = [n / width for n in timeline.missing or zeros]
    if timeline.matches_by_event_time is not None:
        axis.bar(times, found, width=width, align="edge", color="#55a868", alpha=0.8, lw=0,
                 label=FOUND)  # fmt: skip
    if any(missed):
        axis.bar(times, missed, width=width, align="edge", bottom=found, color="#c44e52",
                 alpha=0.85, lw=0, hatch="///", edgecolor="white", label=MISSED)  # fmt: skip
    detected = [n / width for n in timeline.matches]
    axis.step(times, detected, where="post", color="black", lw=1.2, label="detected at the sinks")
    axis.set_ylabel("matches\nper time unit")
    _headroom(axis, [f + m for f, m in zip(found, missed, strict=True)] + detected)


def _latency_panel(axis: Any, timeline: Any, times: list[float]) -> None:
    middles = [t + timeline.bin / 2 for t in times]
    axis.plot(middles, _none_to_nan(timeline.latency_p99), color="#8172b2", lw=1.0, ls="--",
              marker="^", ms=4, label="p99 of the matches\ndetected in the bin")  # fmt: skip
    axis.plot(middles, _none_to_nan(timeline.latency_mean), color="#dd8452", lw=1.2,
              marker="o", ms=3.5, label="mean")  # fmt: skip
    axis.set_ylabel("detection latency\n(time units)")
    if not any(v is not None for v in timeline.latency_mean):
        axis.text(0.5, 0.5, "no match detected", transform=axis.transAxes, ha="center",
                  va="center", color="0.4")  # fmt: skip
    _headroom(axis, list(timeline.latency_p99) + list(timeline.latency_mean))


def render_timeline(result: Any, name: str = "simulation") -> Any:
    """The matplotlib figure of ``result``'s timeline (close it with ``plt.close``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timeline = result.timeline
    times = timeline.times()
    figure, axes = plt.subplots(
        3, 1, figsize=(12.0, 8.2), dpi=130, sharex=True, height_ratios=(1.0, 1.0, 0.9)
    )
    _messages_panel(axes[0], timeline, times)
    _matches_panel(axes[1], timeline, times)
    _latency_panel(axes[2], timeline, times)
    _shade_tail(axes, timeline)
    _mark_changes(axes, timeline)
    for axis in axes:
        axis.grid(axis="y", color="0.88", lw=0.6)
        axis.spines[["top", "right"]].set_visible(False)
        axis.margins(x=0)
        axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    axes[-1].set_xlabel("simulated time (time units)")
    axes[-1].set_xlim(0, max(len(timeline) * timeline.bin, timeline.duration))
    head, sub = _title(result, name)
    figure.suptitle(head, fontsize=11.5, x=0.01, ha="left", y=0.99)
    figure.text(0.01, 0.957, sub, fontsize=9, color="0.35", ha="left")
    figure.tight_layout(rect=(0, 0, 1, 0.965))  # the change labels above the top panel count
    return figure


def save_timeline(result: Any, out: str | os.PathLike[str], name: str = "simulation") -> Path:
    """Draw ``result``'s timeline into ``out`` (PNG, SVG or PDF by its suffix), atomically."""
    import matplotlib.pyplot as plt

    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise InevError(f"{out}: a timeline is drawn as {', '.join(FORMATS)} or .html")
    with plt.rc_context(SVG_SETTINGS):
        figure = render_timeline(result, name)
        try:
            with atomic_output(target, "wb") as handle:
                figure.savefig(handle, format=suffix[1:], metadata=_metadata(suffix))
        finally:
            plt.close(figure)
    return target


def timeline_page(result: Any, name: str = "simulation") -> str:
    """A self-contained HTML page showing the timeline (the figure as inline SVG)."""
    import matplotlib.pyplot as plt

    from inev.common.display import escape

    with plt.rc_context(SVG_SETTINGS):
        figure = render_timeline(result, name)
        try:
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata=_metadata(".svg"))
        finally:
            plt.close(figure)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>timeline of {escape(name)}</title></head>"
        f"<body style='margin:0;font-family:sans-serif'>{svg}</body></html>\n"
    )


def timeline_text(result: Any) -> str:
    """The timeline as text: the changes, then one line per bin that holds something."""
    timeline = result.timeline
    lines = [
        f"timeline: bins of {timeline.bin:g} time unit{'' if timeline.bin == 1 else 's'}, "
        f"sources stopped at {timeline.duration:g}"
    ]
    lines += [f"change at {m.time:g}: {m.label}" for m in timeline.changes]
    lines.append("start  messages  detected  mean_latency  p99_latency  by_event_time  missed")

    def shown(value: Any) -> str:
        return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)

    for row in timeline.rows():
        if not (
            row["messages"] or row["matches"] or row["missing"] or row["matches_by_event_time"]
        ):
            continue
        cells = (
            row["start"], row["messages"], row["matches"], row["latency_mean"],
            row["latency_p99"], row["matches_by_event_time"], row["missing"],
        )  # fmt: skip
        lines.append("  ".join(shown(c) for c in cells))
    return "\n".join(lines)


def _metadata(suffix: str) -> dict[str, Any]:
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}
