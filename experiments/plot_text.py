"""The words of a sweep plot: the subtitle naming the setup and the seeds per point
(:func:`setup_text`), the note under the plot (:func:`notes_text`) and the vertical axis's
label (:func:`y_label`), for :mod:`inev.experiments.plot`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from inev.experiments.columns import axis_label, column
from inev.experiments.plot_data import _kept
from inev.experiments.plot_options import REFERENCE_AT_ONE, SPARSE_SEEDS, PlotOptions

SETUP = {
    "nodes": "{} nodes",
    "out_degree": "out-degree {}",
    "event_types": "{} event types",
    "skew": "skew {}",
    "node_ratio": "node ratio {}",
    "topology": "{} topology",
    "queries": "{} queries",
    "length": "query length {}",
    "kleene": "{} KL",
    "negation": "{} NSEQ",
    "selectivity": "selectivity {}",
    "duration": "{} time units simulated",
    "sim_rate": "input {} events / time unit",
    "latency_bound": "latency bound {}",
    "shed": "shedding {}",
}
"""Parameters the subtitle names when they are the same in every row, and how."""


def setup_text(table: pa.Table, options: PlotOptions) -> str:
    """The subtitle: the parameters equal in every row (other than x and lines), and n.

    n is the number of seeds behind each point (a range when it varies); KL and NSEQ counts
    of 0 are left out, and the simulation's parameters unless rows were simulated.
    """
    rows = [r for r in table.to_pylist() if r.get("error") is None]
    simulated = any(r.get("simulate") for r in rows)
    shown = []
    for name in SETUP:
        if name in (options.x, options.lines) or name not in table.column_names:
            continue
        if name in ("duration", "sim_rate", "latency_bound", "shed") and not simulated:
            continue
        item = _setup_item(name, {r[name] for r in rows})
        if item:
            shown.append(item)
    seeds = _seeds_item(rows, options)
    if seeds:
        shown.append(seeds)
    return _wrapped(shown, 110)


def _setup_item(name: str, values: set[Any]) -> str | None:
    """The subtitle's words for parameter ``name`` taking ``values`` (``None``: say nothing,
    as when it varies, or is a count of 0, or an unset bound)."""
    if len(values) != 1:
        return None
    value = next(iter(values))
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if name in ("kleene", "negation") and value == 0:
        return None
    if name in ("latency_bound", "duration", "sim_rate") and not value:
        return None
    if name == "queries" and value == 1:
        return "1 query"
    return SETUP[name].format(value)


def _seeds_item(rows: list[dict[str, Any]], options: PlotOptions) -> str | None:
    """``n = k seeds per point`` (a range when points differ), or ``None`` without seeds."""
    seeds: dict[tuple, set] = {}
    for r in rows:
        if r.get("seed") is None:  # results written by hand may lack the column
            continue
        key = (r.get(options.x), r.get(options.lines) if options.lines else None, r["method"])
        seeds.setdefault(key, set()).add(r["seed"])
    counts = sorted({len(s) for s in seeds.values()})
    if not counts:
        return None
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    return f"n = {n} seeds per point"


def _wrapped(items: Sequence[str], width: int) -> str:
    """``items`` joined by commas into lines of about ``width`` characters, wrapped between
    items and never inside one.

    >>> print(_wrapped(["a b", "c", "d e f"], 6))
    a b, c,
    d e f
    """
    lines = [""]
    for item in items:
        if lines[-1] and len(lines[-1]) + len(item) + 2 > width:
            lines[-1] += ","
            lines.append("")
        lines[-1] += (", " if lines[-1] else "") + item
    return "\n".join(lines)


def notes_text(
    floored: int,
    infinite: int,
    sparse: int = 0,
    marked: bool = False,
    counts: frozenset[int] = frozenset(),
) -> str:
    """The note under the plot: points drawn at the floor, infinite values left out, sparse
    lines (``marked``: their points carry their n; ``counts``: their seed counts).

    >>> notes_text(2, 1)
    '▽ 2 points with median ≤ 0, drawn at the floor of the log axis; 1 infinite value left out'
    >>> notes_text(0, 0, 3, marked=True)
    'dashed: 3 lines with fewer than 5 seeds per point (n at each point)'
    >>> notes_text(0, 0, 2, counts=frozenset({2}))
    'dashed: 2 lines with only 2 seeds per point (fewer than 5)'
    >>> notes_text(0, 0)
    ''
    """
    notes = []
    if floored:
        notes.append(
            f"▽ {floored} point{'s' if floored > 1 else ''} with median ≤ 0, drawn at the floor "
            "of the log axis"
        )
    if infinite:
        notes.append(f"{infinite} infinite value{'s' if infinite > 1 else ''} left out")
    if sparse:
        lines = f"{sparse} line{'s' if sparse > 1 else ''}"
        if len(counts) == 1 and not marked:
            n = next(iter(counts))
            notes.append(
                f"dashed: {lines} with only {n} seed{'s' if n > 1 else ''} per point "
                f"(fewer than {SPARSE_SEEDS})"
            )
        else:
            notes.append(
                f"dashed: {lines} with fewer than {SPARSE_SEEDS} seeds per point"
                + (" (n at each point)" if marked else "")
            )
    return "; ".join(notes)


def infinite_values(table: pa.Table, options: PlotOptions) -> int:
    """How many values of the plotted metrics are infinite (or NaN) in error-free rows."""
    count = 0
    for row in table.to_pylist():
        if not _kept(row, options.methods):
            continue
        for metric in options.metrics:
            value = row.get(metric)
            if value is not None and not math.isfinite(float(value)):
                count += 1
    return count


def y_label(metrics: Sequence[str]) -> str:
    """One metric: its label with unit; several: their shared unit, else 'value'."""
    if len(metrics) == 1:
        return axis_label(metrics[0])
    units = {column(m).unit for m in metrics}
    if all(m in REFERENCE_AT_ONE for m in metrics):
        return "transmission ratio (ψ / centralized)"
    return units.pop() if len(units) == 1 and "" not in units else "value"
