"""Overload detection and the amount to shed (pSPICE paper §III-E, Algorithm 1).

Before an item is processed the detector estimates its latency: the queueing latency it
already has plus the estimated processing latency ``f(n)``. If ``l_q + f(n) + safety > LB``
the bound may be violated and the shedder must cut the item's processing by
``f(n) - (LB - l_q - safety)`` (eq. 5).

Choice (and why): the paper's ``f`` is a regression of the processing latency on the total
number of partial matches, since in its NFA operator every event is matched against every
partial match. In this tree-based engine an item is only joined with the buffers on its
plan path, and each join's outputs are joined with the next buffer, so ``f`` follows the
path: ``f_k = a_k + h_1`` where ``h_j = n_j (1 + s_j h_{j+1})`` over the path's buffer sizes
``n_j`` and observed join selectivities ``s_j`` (:meth:`.model.PatternModel.path_costs`;
the second join's work grows with the product of two buffer sizes, which a line in the
total count cannot follow). ``a_k`` is an exponential average of the rest of the item's
work (at least its 1 unit), plus ``spread`` (3) standard deviations of the recent errors,
since the number of partial matches a join creates varies and the mean alone is exceeded
too often near the bound. The amount to shed is a number of work units; the partial-match
shedders drop partial matches on the item's paths, each worth its marginal work, until
``f_k`` fits (the paper's ``ρ = n - f⁻¹(budget)`` when every partial match counts, as in
its NFA). The load-shedding latency ``l_s`` is not simulated (shedding costs no simulated
time); the benchmark reports its wall-clock overhead instead.

>>> d = OverloadDetector()
>>> d.observe("A", explained=4.0, cost=5.0)
>>> d.estimate("A", explained=5.0)
6.0
>>> d.observe("A", explained=4.0, cost=25.0)  # error 20: a = 1 + 0.05·20, error² 0.05·400
>>> round(d.estimate("A", 0.0), 6)  # 2 + 3·√20
15.416408
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# one buffer as the detector sees it: (runner, node, state, partial matches, work per one)
BufferCost = tuple[Any, int, int, int, float]


@dataclass
class OverloadDetector:
    """Per-kind intercepts ``a_k`` (exponential average with weight ``smoothing``)."""

    smoothing: float = 0.05
    spread: float = 3.0
    intercepts: dict[Any, float] = field(default_factory=dict)
    errors: dict[Any, float] = field(default_factory=dict)

    def observe(self, kind: Any, explained: float, cost: float) -> None:
        """An item of ``kind`` cost ``cost`` units, of which the state model explained
        ``explained``; the rest updates ``a_k`` and the squared error of the estimate."""
        rest = max(cost - explained, 1.0)
        a = self.intercepts.get(kind)
        if a is None:
            self.intercepts[kind] = rest
            self.errors[kind] = 0.0
            return
        e = self.errors[kind]
        self.errors[kind] = e + self.smoothing * ((rest - a) ** 2 - e)
        self.intercepts[kind] = a + self.smoothing * (rest - a)

    def estimate(self, kind: Any, explained: float) -> float:
        """Estimated work units of the next item of ``kind`` whose joins the state model
        expects to cost ``explained``: plus ``a_k`` and ``spread`` standard deviations of
        the recent estimation errors."""
        margin = self.spread * self.errors.get(kind, 0.0) ** 0.5
        return self.intercepts.get(kind, 1.0) + margin + explained
