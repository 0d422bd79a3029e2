"""The numbers a sweep plot draws: per line and x, a centre and a spread over the seeds.

:func:`series` (median or mean, quartiles or a 95 % confidence interval), :func:`bound_series`
(the provable lower bound of a ratio or cost) and :func:`scatter_series` (one point per row);
:mod:`inev.experiments.plot` draws them (its module docstring says how).

>>> from inev.experiments.results import rows_to_table
>>> from inev.experiments.spec import DEFAULTS
>>> rows = [{**DEFAULTS, "task_id": str(s), "task_index": s, "seed": s, "method": "inev",
...          "skew": 1.1, "ratio": r} for s, r in enumerate([0.1, 0.2, 0.6])]
>>> series(rows_to_table(rows), "skew", "ratio", stat="mean", spread="iqr")
{'INEv': [(1.1, 0.15000000000000002, 0.3, 0.4, 3)]}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.common.stats import quantiles
from inev.experiments.columns import column, method_name
from inev.experiments.plot_options import PlotOptions


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """First quartile, median and third quartile (:func:`inev.common.stats.quantiles`)."""
    q1, median, q3 = quantiles(values, (0.25, 0.5, 0.75))
    return q1, median, q3


def series(
    table: pa.Table,
    x: str,
    y: str | Sequence[str],
    lines: str | None = None,
    methods: Sequence[str] | None = None,
    stat: str = "median",
    spread: str = "iqr",
) -> dict[str, list[tuple[Any, float, float, float, int]]]:
    """``{line label: [(x, low, centre, high, n), …]}`` over the error-free rows with a value
    of ``y``; ``n`` is the number of values behind the point. The centre is the ``stat``
    (median or mean), low and high the quartiles (``spread`` ``iqr``) or the 95 % interval
    (``ci``).

    ``y`` may name several metrics; each then gets its own lines. Labels are human names:
    the metric (when there are several), the method (when there are several) and
    ``<lines column> = <value>``.
    """
    metrics = [y] if isinstance(y, str) else list(y)
    _check_columns(table, (x, *metrics, *([lines] if lines else [])))
    groups = _groups(table, x, metrics, lines, methods)
    several_methods = len({k[1] for k in groups}) > 1
    out: dict[str, list[tuple[Any, float, float, float, int]]] = {}
    for (metric, method, label), by_x in sorted(
        groups.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])
    ):
        text = f"{column(lines).label} = {label[0]}" if label else ""
        parts = [
            column(metric).label if len(metrics) > 1 else "",
            method_name(method) if several_methods or not (text or len(metrics) > 1) else "",
            text,
        ]
        out[", ".join(p for p in parts if p)] = _summarised(by_x, stat, spread)
    return out


def _data(table: pa.Table, options: PlotOptions) -> dict[str, list]:
    """The lines ``options`` ask for: one point per row, or the statistic per x (and the
    bound's lines)."""
    o = options
    if o.scatter:
        return scatter_series(table, o.x, o.metrics, o.lines, o.methods)
    data = series(table, o.x, o.metrics, o.lines, o.methods, o.stat, o.spread)
    if o.bound:
        data.update(bound_series(table, o.x, o.metrics[0], o.lines, o.stat, o.spread))
    return data


def bound_series(
    table: pa.Table,
    x: str,
    metric: str,
    lines: str | None = None,
    stat: str = "median",
    spread: str = "iqr",
) -> dict[str, list[tuple[Any, float, float, float, int]]]:
    """The provable lower bound of ``metric`` (``ratio`` or ``cost``) per x and line, one
    value per task (from its first error-free row with a ``lower_bound``)."""
    if metric not in ("ratio", "cost", "sim_ratio"):
        raise InevError(
            f"{option('bound')} draws the lower bound of ratio or cost, not of {metric}"
        )
    _check_columns(table, (x, "lower_bound", "centralized_cost", "task_id"))
    seen: set[Any] = set()
    groups: dict[tuple, dict[Any, list[float]]] = {}
    for row in table.to_pylist():
        if row.get("error") is not None or row["task_id"] in seen or row["lower_bound"] is None:
            continue
        seen.add(row["task_id"])
        value = float(row["lower_bound"])
        if metric != "cost":
            central = row.get("centralized_cost")
            if not central:
                continue
            value /= float(central)
        label = (row[lines],) if lines else ()
        groups.setdefault(label, {}).setdefault(row[x], []).append(value)
    out = {}
    for label, by_x in sorted(groups.items()):
        text = f", {column(lines).label} = {label[0]}" if label else ""
        out[f"provable lower bound{text}"] = _summarised(by_x, stat, spread)
    return out


def _check_columns(table: pa.Table, names: Sequence[str]) -> None:
    """Refuse results lacking one of the columns ``names``."""
    for name in names:
        if name not in table.column_names:
            raise InevError(f"results have no column {name!r}")


def _kept(row: Mapping[str, Any], methods: Sequence[str] | None) -> bool:
    """Whether a results row is plotted: error-free and of one of ``methods`` (if given)."""
    return row.get("error") is None and not (methods and row["method"] not in methods)


def _groups(
    table: pa.Table,
    x: str,
    metrics: Sequence[str],
    lines: str | None,
    methods: Sequence[str] | None,
) -> dict[tuple[str, str, tuple], dict[Any, list[float]]]:
    """The finite values of each metric per (metric, method, line value) and x."""
    groups: dict[tuple[str, str, tuple], dict[Any, list[float]]] = {}
    for row in table.to_pylist():
        if not _kept(row, methods):
            continue
        label = (row[lines],) if lines else ()
        for metric in metrics:
            if row.get(metric) is None:
                continue
            value = float(row[metric])
            if math.isfinite(value):
                by_x = groups.setdefault((metric, row["method"], label), {})
                by_x.setdefault(row[x], []).append(value)
    return groups


def _summarised(
    by_x: dict[Any, list[float]], stat: str = "median", spread: str = "iqr"
) -> list[tuple[Any, float, float, float, int]]:
    """``(x, low, centre, high, n)`` per x, in order of x (see :func:`series`)."""
    from inev.common.stats import mean_interval, median_interval

    points = []
    for xv in sorted(by_x):
        values = by_x[xv]
        if stat == "mean":
            low, centre, high = mean_interval(values)
            if spread == "iqr":
                low, _, high = _quartiles(values)
        elif spread == "ci":
            low, centre, high, _ = median_interval(values)
        else:
            low, centre, high = _quartiles(values)
        points.append((xv, low, centre, high, len(values)))
    return points


def scatter_series(
    table: pa.Table,
    x: str,
    y: str | Sequence[str],
    lines: str | None = None,
    methods: Sequence[str] | None = None,
) -> dict[str, list[tuple[Any, float, float, float, int]]]:
    """Like :func:`series`, but one point per error-free row (``q1 = median = q3`` = the value),
    for plots whose horizontal axis is itself a measured quantity."""
    metrics = [y] if isinstance(y, str) else list(y)
    _check_columns(table, (x, *metrics, *([lines] if lines else [])))
    out: dict[str, list[tuple[Any, float, float, float, int]]] = {}
    for row in table.to_pylist():
        if not _kept(row, methods) or row.get(x) is None:
            continue
        for metric in metrics:
            value = row.get(metric)
            if value is None or not math.isfinite(float(value)):
                continue
            parts = [column(metric).label if len(metrics) > 1 else ""]
            if lines:
                parts.append(f"{column(lines).label} = {row[lines]}")
            label = ", ".join(p for p in parts if p) or column(metric).label
            v = float(value)
            out.setdefault(label, []).append((row[x], v, v, v, 1))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in sorted(out.items())}
