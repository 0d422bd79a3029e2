"""Plots of sweep results: median with an inter-quartile band per line (matplotlib).

One line per value of ``lines`` (and per method when the results hold several methods),
``x`` on the horizontal axis, the median of ``y`` over seeds with a shaded band from the
first to the third quartile, and a log-scale vertical axis by default for ratios and costs
(the paper's Figures 4–10 use the transmission ratio on a log axis).

>>> LABELS["ratio"]
'transmission ratio (vs. centralized)'
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from inev.common.errors import InevError
from inev.common.files import atomic_output

LABELS = {
    "ratio": "transmission ratio (vs. centralized)",
    "cost": "transmission cost ψ (events / time unit)",
    "skew": "event skew (Zipf exponent)",
    "nodes": "network size (nodes)",
    "node_ratio": "event node ratio",
    "out_degree": "average out-degree",
    "selectivity": "selectivity scale",
    "queries": "queries in the workload",
    "length": "query length (event types)",
    "kleene": "KL operators per query",
    "negation": "NSEQ operators per query",
    "rate_swap": "share of types with swapped rates",
    "planning_seconds": "planning time (s)",
    "ratio_to_lower_bound": "cost / lower bound",
    "broken_ratio": "ratio after the change, not repaired",
    "repaired_ratio": "ratio after repair",
    "replanned_ratio": "ratio after re-planning",
    "sim_ratio": "simulated transmission ratio",
    "sim_latency_p99": "detection latency p99",
    "sim_latency_mean": "mean detection latency",
    "sim_rate": "input rate (events / time unit)",
    "overload": "input as a share of capacity",
    "latency_bound": "latency bound",
    "capacity": "node capacity (work units / time unit)",
    "sim_false_negative_share": "false negatives (weighted share)",
    "sim_bound_violations": "latency-bound violations",
    "sim_bound_forced": "negated events forced past the bound",
    "sim_utilisation": "utilisation of the busiest node",
    "sim_load": "load of the busiest node",
}
FORMATS = (".png", ".svg", ".pdf")


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    n = len(ordered)

    def at(q: float) -> float:
        position = q * (n - 1)
        low = math.floor(position)
        high = min(low + 1, n - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    return at(0.25), at(0.5), at(0.75)


def series(
    table: pa.Table,
    x: str,
    y: str | Sequence[str],
    lines: str | None = None,
    methods: Sequence[str] | None = None,
) -> dict[str, list[tuple[Any, float, float, float]]]:
    """``{line label: [(x, q1, median, q3), …]}`` over the error-free rows with a value of ``y``.

    ``y`` may name several metrics; each then gets its own lines.
    """
    metrics = [y] if isinstance(y, str) else list(y)
    for column in (x, *metrics, *([lines] if lines else [])):
        if column not in table.column_names:
            raise InevError(f"results have no column {column!r}")
    groups: dict[tuple[str, str, tuple], dict[Any, list[float]]] = {}
    for row in table.to_pylist():
        if row.get("error") is not None or (methods and row["method"] not in methods):
            continue
        for metric in metrics:
            if row.get(metric) is None:
                continue
            value = float(row[metric])
            if not math.isfinite(value):
                continue
            label = (row[lines],) if lines else ()
            key = (metric, row["method"], label)
            groups.setdefault(key, {}).setdefault(row[x], []).append(value)
    several_methods = len({k[1] for k in groups}) > 1
    out: dict[str, list[tuple[Any, float, float, float]]] = {}
    for (metric, method, label), by_x in sorted(
        groups.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])
    ):
        text = f"{lines} = {label[0]}" if label else ""
        parts = [
            LABELS.get(metric, metric) if len(metrics) > 1 else "",
            method if several_methods or not (text or len(metrics) > 1) else "",
            text,
        ]
        points = []
        for xv in sorted(by_x):
            q1, median, q3 = _quartiles(by_x[xv])
            points.append((xv, q1, median, q3))
        out[", ".join(p for p in parts if p)] = points
    return out


def plot(
    table: pa.Table,
    out: str | os.PathLike[str],
    x: str,
    y: str | Sequence[str] = "ratio",
    lines: str | None = None,
    log: bool | None = None,
    methods: Sequence[str] | None = None,
    title: str | None = None,
) -> Path:
    """Draw the median/IQR plot of ``y`` over ``x`` and write it (PNG, SVG or PDF by suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    target = Path(out)
    if target.suffix.lower() not in FORMATS:
        raise InevError(f"{out}: plot file must end in {', '.join(FORMATS)}")
    data = series(table, x, y, lines, methods)
    if not data:
        raise InevError(f"no error-free rows with a value of {y!r} to plot")
    metrics = [y] if isinstance(y, str) else list(y)
    if log is None:
        log = metrics[0] in (
            "ratio",
            "cost",
            "sim_ratio",
            "broken_ratio",
            "repaired_ratio",
            "replanned_ratio",
            "planning_seconds",
            "ratio_to_lower_bound",
        )
    figure, axis = plt.subplots(figsize=(6.4, 4.2), dpi=150)
    markers = "osD^v<>ph*"
    for i, (label, points) in enumerate(data.items()):
        xs = [p[0] for p in points]
        numeric = all(isinstance(v, int | float) for v in xs)
        positions = xs if numeric else list(range(len(xs)))
        line = axis.plot(
            positions,
            [p[2] for p in points],
            marker=markers[i % len(markers)],
            label=label,
            linewidth=1.6,
            markersize=4,
        )[0]
        axis.fill_between(
            positions,
            [p[1] for p in points],
            [p[3] for p in points],
            color=line.get_color(),
            alpha=0.18,
            linewidth=0,
        )
        if not numeric:
            axis.set_xticks(positions, [str(v) for v in xs])
    if log:
        values = [v for pts in data.values() for p in pts for v in p[1:] if v > 0]
        if values:
            axis.set_yscale("log")
    if metrics[0] in ("ratio", "sim_ratio", "repaired_ratio", "broken_ratio", "replanned_ratio"):
        axis.axhline(1.0, color="0.5", linestyle=":", linewidth=1)
    axis.set_xlabel(LABELS.get(x, x))
    axis.set_ylabel(LABELS.get(metrics[0], metrics[0]) if len(metrics) == 1 else "ratio")
    if title:
        axis.set_title(title)
    axis.grid(True, which="major", alpha=0.3)
    axis.legend(fontsize=8, frameon=False)
    figure.text(
        0.99,
        0.01,
        "median, band: inter-quartile range",
        ha="right",
        va="bottom",
        fontsize=7,
        color="0.4",
    )
    figure.tight_layout()
    with atomic_output(target, "wb") as handle:
        figure.savefig(handle, format=target.suffix[1:].lower())
    plt.close(figure)
    return target
