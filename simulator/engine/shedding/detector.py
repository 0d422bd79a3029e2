"""Overload detection and the amount to shed (pSPICE paper §III-E, Algorithm 1).

Before an item is processed the detector estimates its latency: the queueing latency it
already has plus the estimated processing latency ``f(n)``. If ``l_q + f(n) + safety > LB``
the bound may be violated and the shedder must cut the item's processing by
``f(n) - (LB - l_q - safety)`` (eq. 5).

Choice (and why): the paper's ``f`` is a regression of the processing latency on the total
number of partial matches, since in its NFA operator every event is matched against every
partial match. In this tree-based engine an item is only joined with the buffers on its
plan path, so ``f`` is kept per item kind and per partial-match state:
``f_k(n) = a_k + Σ_s c_{k,s} · n_s`` with ``c_{k,s}`` the observed pairs an item of kind ``k``
examined per partial match of state ``s`` (:meth:`.model.PatternModel.coefficients`) and
``a_k`` an exponential average of the rest of its work (at least the 1 unit of the item).
The amount to shed is therefore a number of work units; the partial-match shedders drop
partial matches of states the item is joined with until ``f_k`` fits (the paper's
``ρ = n - f⁻¹(budget)`` when every partial match counts, as in its NFA). The
load-shedding latency ``l_s`` is not simulated (shedding costs no simulated time); the
benchmark reports its wall-clock overhead instead.

>>> d = OverloadDetector()
>>> d.observe("A", explained=4.0, cost=5.0)
>>> d.estimate("A", [(None, 0, 0, 10, 0.5)])
6.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# one buffer as the detector sees it: (runner, node, state, partial matches, work per one)
BufferCost = tuple[Any, int, int, int, float]


@dataclass
class OverloadDetector:
    """Per-kind intercepts ``a_k`` (exponential average with weight ``smoothing``)."""

    smoothing: float = 0.05
    intercepts: dict[Any, float] = field(default_factory=dict)

    def observe(self, kind: Any, explained: float, cost: float) -> None:
        """An item of ``kind`` cost ``cost`` units, of which the state model explained
        ``explained``; the rest updates ``a_k``."""
        rest = max(cost - explained, 1.0)
        a = self.intercepts.get(kind)
        self.intercepts[kind] = rest if a is None else a + self.smoothing * (rest - a)

    def estimate(self, kind: Any, buffers: Sequence[BufferCost]) -> float:
        """Estimated work units of the next item of ``kind`` given its ``buffers``."""
        return self.intercepts.get(kind, 1.0) + sum(n * c for _, _, _, n, c in buffers)
