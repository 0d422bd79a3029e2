"""What a sweep plot shows and how (:class:`PlotOptions`: the ``[plot]`` table of a sweep
spec, whose keys are :data:`PLOT_KEYS`, or ``inev plot``'s flags), and the settings shared by
drawing and text: which metrics are ratios to the centralized cost (:data:`REFERENCE_AT_ONE`),
when a line is sparse (:data:`SPARSE_SEEDS`), the default metric (:data:`DEFAULT_Y`) and the
SVG settings (:data:`SVG_SETTINGS`). :mod:`inev.experiments.plot` draws them.

>>> PlotOptions.from_table({"x": "skew", "y": ["ratio", "sim_ratio"]}).metrics
('ratio', 'sim_ratio')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

SPARSE_SEEDS = 5
"""Fewer seeds than this behind every point of a line make it a sparse (dashed) line."""


REFERENCE_AT_ONE = (
    "ratio",
    "sim_ratio",
    "repaired_ratio",
    "broken_ratio",
    "replanned_ratio",
    "counterpart_ratio",
)
"""Metrics that are ψ over the centralized cost: one line at 1 marks centralized."""


PLOT_KEYS = {
    "x": "a parameter",
    "y": "a metric or a list of metrics",
    "lines": "a parameter",
    "methods": "a list of the sweep's methods",
    "log": "true or false",
    "log_x": "true or false",
    "integer_x": "true or false",
    "scatter": "true or false",
    "title": "text",
    "y_label": "text",
    "stat": "median or mean",
    "interval": "iqr or ci",
    "bound": "true or false",
}
"""The keys of the ``[plot]`` table and what each takes."""
MAX_PLOT_TEXT = 200
"""The longest text (a name, a title, a label) of the ``[plot]`` table."""

DEFAULT_Y = "ratio"
"""The metric a plot shows when the sweep and the command name none."""

SVG_SETTINGS = {"svg.fonttype": "none", "svg.hashsalt": "inev"}
"""matplotlib's settings of every SVG inev writes: text stays text (searchable, smaller), and
a fixed hash salt makes the same figure the same bytes."""


@dataclass(frozen=True)
class PlotOptions:
    """What to plot and how (the ``[plot]`` table of a sweep spec, or ``inev plot``'s flags)."""

    x: str | None = None
    y: str | tuple[str, ...] = DEFAULT_Y
    lines: str | None = None
    methods: tuple[str, ...] | None = None
    log: bool | None = None
    """Log vertical axis (``None``: by the first metric's column, see the module docstring)."""
    log_x: bool = False
    integer_x: bool | None = None
    """Integer ticks on the horizontal axis (``None``: for count parameters)."""
    scatter: bool = False
    """One marker per row (x may be a metric) instead of the median and quartiles per x."""
    title: str | None = None
    y_label: str | None = None
    stat: str = "median"
    """``median`` or ``mean`` (see the module docstring)."""
    interval: str | None = None
    """``iqr`` (quartiles) or ``ci`` (95 % confidence interval); ``None``: ``iqr`` for the
    median, ``ci`` for the mean."""
    bound: bool = False
    """Add the provable lower bound of the plotted ratio or cost as a line."""

    @property
    def spread(self) -> str:
        """``iqr`` or ``ci``: what the bands and bars show."""
        return self.interval or ("ci" if self.stat == "mean" else "iqr")

    @property
    def legend_title(self) -> str:
        """What the lines and bands are, for the legend.

        >>> PlotOptions(stat="mean").legend_title
        'mean, 95 % confidence interval'
        """
        if self.scatter:
            return "one point per run"
        spread = "95 % confidence interval" if self.spread == "ci" else "inter-quartile range"
        return f"{self.stat}, {spread}"

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics to plot, as a tuple."""
        return (self.y,) if isinstance(self.y, str) else tuple(self.y)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], **overrides: Any) -> PlotOptions:
        """Options from a ``[plot]`` table, with the non-``None`` ``overrides`` on top."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in table.items() if k in known}
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values.get("y"), list):
            values["y"] = tuple(values["y"])
        if values.get("methods") is not None:
            values["methods"] = tuple(values["methods"]) or None
        return cls(**values)
