"""The pSPICE paper's own overload detector: latency regressed on the number of partial matches.

The paper (§III-E) estimates an event's processing latency ``l_p = f(n)`` and the load
shedder's latency ``l_s = g(n)`` from ``n``, the number of partial matches in the operator,
by regressions fitted on statistics gathered at run time ("we apply several regression
models on these statistics ... where we use a regression model that results in lower
error"). An event may violate the bound when ``l_q + f(n) + l_s + δ > LB`` (eq. 4/6); the
shedder then drops ``ρ = n - f⁻¹(LB - l_q - l_s - δ)`` partial matches (eq. 5).

:class:`PartialMatchDetector` is that ``f``, selectable beside the calibrated path-cost
detector of :mod:`.detector` (``Processor(..., detector="paper")``); :class:`ShedLatency`
is ``g``, used by both detectors when the load shedder's work is simulated
(``Processor(..., shed_cost=c)``: ``c`` work units per partial match the shedder scores).

Choices where the paper is vague (and why):

* one ``f`` per item kind (event type): the paper notes that "events in a pattern might
  have different processing latencies"; a single ``f`` over all types would mix an A event
  (no join) with a D event (joined with every ABC partial match) at the same ``n``;
* the candidate models are polynomials of degree 1 and 2 in ``n``, fitted by least squares
  on the last ``keep`` observations of the kind; the one with the lower error on held-out
  observations (every other one) is refitted on all and used. ``f`` is refitted every
  ``refit_every`` observations of its kind (the paper fits "during run-time");
* the bound must hold for every event, and the work of an event at a given ``n`` varies
  (it depends on which buffers it is joined with, not on their sum), so the estimate is
  ``f(n) · r`` where ``r`` is the largest ratio ``y / f(n)`` of an observation to the
  ``f`` in use when it was made, over all observations since the first fit, or the
  ``quantile`` of the kept observations' ratios to the current ``f`` if that is larger (a margin in the role of the paper's safety
  buffer δ, but scaled with the estimate, since the deviations grow with ``n``; measured on
  Q3 of ``benchmarks/bench_pspice_paper.py``, a mean plus three standard deviations of the
  ratio still let a D event that cost 2.5 times its estimate break the bound, and so did
  the largest ratio of the last 2,000 observations);
* until a kind has ``MIN_SAMPLES`` observations its estimate is ``base + n`` (every partial
  match examined once, the paper's operator), and the slope 1.

>>> d = PartialMatchDetector()
>>> for n in range(0, 120):
...     d.observe("B", float(n), 1.0 + 2.0 * n)  # every partial match costs 2 work units
>>> round(d.estimate("B", 10.0), 6), round(d.slope("B"), 6)
(21.0, 2.0)
>>> g = ShedLatency()
>>> g.observe(100.0, 10.0); g.observe(300.0, 30.0)
>>> round(g.estimate(200.0), 6)
20.0
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIN_SAMPLES = 100


@dataclass
class _Regression:
    """Observations ``(n, work)`` of one item kind and the fitted polynomial."""

    keep: int
    quantile: float = 1.0
    xs: deque = field(default_factory=deque)
    ys: deque = field(default_factory=deque)
    coef: np.ndarray | None = None
    margin: float = 1.0
    worst: float = 1.0
    since: int = 0

    def add(self, x: float, y: float) -> None:
        self.xs.append(x)
        self.ys.append(y)
        if len(self.xs) > self.keep:
            self.xs.popleft()
            self.ys.popleft()
        self.since += 1

    def fit(self) -> None:
        """Choose degree 1 or 2 by the error on every other observation, refit on all."""
        x = np.fromiter(self.xs, dtype=float)
        y = np.fromiter(self.ys, dtype=float)
        self.since = 0
        if np.ptp(x) <= 0:  # one n only: a constant
            self.coef = np.array([float(y.mean())])
        else:
            best, best_err = 1, np.inf
            for degree in (1, 2):
                if len(np.unique(x[::2])) <= degree:
                    continue
                c = np.polyfit(x[::2], y[::2], degree)
                err = float(np.mean((np.polyval(c, x[1::2]) - y[1::2]) ** 2))
                if err < best_err:
                    best, best_err = degree, err
            self.coef = np.polyfit(x, y, best)
        fitted = np.maximum(np.polyval(self.coef, x), 1.0)
        self.margin = max(float(np.quantile(y / fitted, self.quantile)), 1.0)
        self.worst = max(self.worst, self.margin)

    def value(self, n: float) -> float:
        assert self.coef is not None
        return max(float(np.polyval(self.coef, n)), 1.0)

    def derivative(self, n: float) -> float:
        assert self.coef is not None
        return float(np.polyval(np.polyder(self.coef), n)) if len(self.coef) > 1 else 0.0


@dataclass
class PartialMatchDetector:
    """Per-kind regression ``f_k(n)`` of an item's work on the operator's partial matches.

    Same interface as :class:`.detector.OverloadDetector`; ``explained`` is ``n`` here (the
    :class:`.node_queue.Processor` passes the number of partial matches in its engines).
    """

    quantile: float = 1.0
    keep: int = 2000
    refit_every: int = 100
    fits: dict[Any, _Regression] = field(default_factory=dict)

    def observe(self, kind: Any, explained: float, cost: float, base: float = 1.0) -> None:
        """An item of ``kind`` cost ``cost`` work units with ``explained`` partial matches held."""
        fit = self.fits.get(kind)
        if fit is None:
            fit = self.fits[kind] = _Regression(self.keep, self.quantile)
        if fit.coef is not None:
            fit.worst = max(fit.worst, cost / fit.value(explained))
        fit.add(explained, cost)
        if len(fit.xs) >= MIN_SAMPLES and (fit.coef is None or fit.since >= self.refit_every):
            fit.fit()

    def _ready(self, kind: Any) -> _Regression | None:
        fit = self.fits.get(kind)
        return fit if fit is not None and fit.coef is not None else None

    def estimate(self, kind: Any, explained: float, base: float = 1.0) -> float:
        """``f_k(n)`` with its margin (``base + n`` before the first fit)."""
        fit = self._ready(kind)
        if fit is None:
            return base + explained
        return fit.value(explained) * fit.worst

    def slope(self, kind: Any, explained: float | None = None) -> float:
        """Work units one more partial match adds at ``n`` (with the margin; at least a
        small positive figure so that the amount to shed stays finite)."""
        fit = self._ready(kind)
        if fit is None:
            return 1.0
        n = float(np.mean(fit.xs)) if explained is None else explained
        return max(fit.derivative(n), 1e-3) * fit.worst


@dataclass
class ShedLatency:
    """``g(n)``: the load shedder's work against the partial matches held (least squares line)."""

    sums: list[float] = field(default_factory=lambda: [0.0] * 5)

    def observe(self, n: float, work: float) -> None:
        """One shedding call with ``n`` partial matches held cost ``work`` units."""
        s = self.sums
        s[0] += 1.0
        s[1] += n
        s[2] += work
        s[3] += n * n
        s[4] += n * work

    def estimate(self, n: float) -> float:
        """Expected work of a shedding call at ``n`` (0 before any observation)."""
        count, sx, sy, sxx, sxy = self.sums
        if not count:
            return 0.0
        var = count * sxx - sx * sx
        if var <= 1e-12:
            return sy / count * (n / (sx / count) if sx > 0 else 1.0)
        b = (count * sxy - sx * sy) / var
        a = (sy - b * sx) / count
        return max(a + b * n, 0.0)
