"""Overload detection and the amount to shed (pSPICE paper §III-E, Algorithm 1).

Before an item is processed the detector estimates its latency: the queueing latency it
already has plus the estimated processing latency ``f(n)``. If ``l_q + f(n) + safety > LB``
the bound may be violated and the shedder must cut the item's processing by
``f(n) - (LB - l_q - safety)`` (eq. 5).

Choice (and why): the paper's ``f`` is a regression of the processing latency on the total
number of partial matches, since in its NFA operator every event is matched against every
partial match. In this tree-based engine an item is only joined with the buffers on its
plan path (with a keyed join, only with its own key's part of them), and each join's
outputs are joined with the next buffer, so the state model predicts the join work from the
path, ``h_1`` with ``h_j = n_j (1 + s_j h_{j+1})`` over the items each step examines and the
observed join selectivities (:meth:`.pspice_model.PatternModel.path_costs`; the second
join's work grows with the product of two buffer sizes, which a line in the total count
cannot follow). The detector calibrates that prediction per item kind ``k``:

    f_k = base + rest_k + h_1 · (ρ_k + spread · σ_k)

``base`` is the item's own work (one unit per engine it enters, exact), ``ρ_k`` and ``σ_k``
the mean and standard deviation of the observed ratio of join work to prediction, each item
weighted by its prediction (a small item's few pairs make its ratio jumpy; weights decay by
``1 - smoothing`` per item), ``rest_k`` the join work of items the model predicted none for
(average plus ``spread`` deviations). The margin is needed because the outputs of
the later joins of a cascade vary far more than their average (a D event of SEQ(A, B, C, D)
evaluated D first costs 0.3 to 3.8 times the prediction, measured on the pSPICE gate's
stream), and the bound must hold for every item. The amount to shed is a number of work
units, converted into predicted units by the calibrated slope; the partial-match shedders
drop partial matches on the item's paths, each worth its marginal work, until ``f_k`` fits
(the paper's ``ρ = n - f⁻¹(budget)`` when every partial match counts, as in its NFA). The
load-shedding latency ``l_s`` is simulated when the processor is given a ``shed_cost``
(:mod:`.node_queue`, :class:`.latency_model.ShedLatency`); by default shedding costs no
simulated time and the benchmark reports its wall-clock overhead instead. The paper's own
detector, a regression on the number of partial matches, is
:class:`.latency_model.PartialMatchDetector`.

>>> d = OverloadDetector()
>>> d.observe("A", explained=4.0, cost=5.0)  # 4 units of joins for 4 predicted: ratio 1
>>> d.estimate("A", explained=5.0)
6.0
>>> d.observe("A", explained=4.0, cost=25.0)  # ratio 6: ρ = (0.95·4 + 24) / 7.8 = 3.56
>>> round(d.estimate("A", 4.0), 3)  # 1 + 4·(ρ + 3σ), σ² = (0.95·4 + 144) / 7.8 - ρ² = 6.25
45.247
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# one buffer as the detector sees it: (runner, node, state, partial matches examined, work
# per examined one, the examined ones when not the whole buffer: a keyed join's part)
BufferCost = tuple[Any, int, int, int, float, Any]


@dataclass
class _Fit:
    """Running sums of one item kind (weights decay by ``1 - smoothing`` per observation)."""

    weight: float = 0.0
    """Σ predicted join work."""
    joins: float = 0.0
    """Σ observed join work."""
    squares: float = 0.0
    """Σ observed² / predicted: the ratio's second moment, weighted by the prediction."""
    rest: float = 0.0
    """Join work of items the model predicted none for (average)."""
    rest2: float = 0.0

    @property
    def ratio(self) -> float:
        """Observed join work per unit predicted."""
        return self.joins / self.weight if self.weight else 1.0

    @property
    def deviation(self) -> float:
        """Standard deviation of that ratio, each item weighted by its prediction."""
        if not self.weight:
            return 0.0
        return max(self.squares / self.weight - self.ratio**2, 0.0) ** 0.5


@dataclass
class OverloadDetector:
    """Per-kind calibration of the state model's estimate (see the module docstring)."""

    smoothing: float = 0.05
    spread: float = 3.0
    fits: dict[Any, _Fit] = field(default_factory=dict)

    def observe(self, kind: Any, explained: float, cost: float, base: float = 1.0) -> None:
        """An item of ``kind`` cost ``cost`` work units, ``base`` of them its own (one per
        engine it entered), where the state model expected ``explained`` join work."""
        fit = self.fits.get(kind)
        if fit is None:
            fit = self.fits[kind] = _Fit()
        joins = max(cost - base, 0.0)
        if explained >= 1.0:
            keep = 1.0 - self.smoothing
            fit.weight = fit.weight * keep + explained
            fit.joins = fit.joins * keep + joins
            fit.squares = fit.squares * keep + joins * joins / explained
        else:
            d = joins - fit.rest
            fit.rest += self.smoothing * d
            fit.rest2 += self.smoothing * (d * d - fit.rest2)

    def slope(self, kind: Any, explained: float | None = None) -> float:
        """Estimated work units per unit of predicted join work (ratio plus margin; the
        same at every ``explained``, which the paper's detector needs)."""
        fit = self.fits.get(kind)
        if fit is None:
            return 1.0
        return fit.ratio + self.spread * fit.deviation

    def estimate(self, kind: Any, explained: float, base: float = 1.0) -> float:
        """Estimated work units of the next item of ``kind`` whose joins the state model
        expects to cost ``explained``: its own ``base`` units, the calibrated joins and
        ``spread`` standard deviations of the calibration."""
        fit = self.fits.get(kind)
        if fit is None:
            return base + explained
        rest = fit.rest + self.spread * fit.rest2**0.5
        return base + rest + explained * self.slope(kind)
