"""Reoptimizing decision functions (adaptive-CEP paper §2.3, §3): invariants and baselines.

A plan generator returns *deciding conditions* ``f_chosen(stat) <= f_alternative(stat)``
grouped by building block. :class:`InvariantDecision` keeps, per block, the K conditions
that were closest to violation at creation (the K-invariant method, §3.3; K = 1 is the basic
method) and reports a violation when, with the current statistics,
``f_chosen > (1 + d) · f_alternative`` for any of them, checked block by block in plan
order. The distance d (§3.4) is fixed; ``"average"``: the average relative difference
``|f2 - f1| / min(f1, f2)`` of all deciding conditions at creation (the paper's
data-analysis estimate); or ``"auto"`` (the default): per invariant and check, the
statistics' noise (:mod:`.invariant_noise`), which also selects the invariants by their
violation probability (§3.5).

Reading of §3.4: the paper writes the verified invariant as ``(1+d)·f1 < f2`` but defines d
as "the smallest relative difference … required for an invariant to be considered as
violated"; we follow the definition (violation needs ``f1`` to exceed ``f2`` by the factor
``1 + d``), which keeps Theorem 1: a violation implies ``f1 > f2``, so a new run of the
deterministic generator rejects the block.

Baselines: :class:`AlwaysDecision` (re-optimise at every check, the tree-based NFA) and
:class:`ThresholdDecision` (ZStream: re-optimise when any monitored value deviates by more
than a relative ``t`` from its value at the last optimisation).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from inev.simulator.engine.engine_options import BASIC_K, Adaptation
from inev.simulator.engine.invariant_noise import (
    coefficients,
    sigma,
    significant,
    violation_score,
)
from inev.simulator.engine.statistics import Stats


@dataclass(frozen=True)
class DecidingCondition:
    """``chosen(stats) <= alternative(stats)`` held when block ``block`` was built;
    ``reads``: where the generator knows them, a function giving the indices
    (:meth:`Stats.values` order) of every value the two sides read (``None``: any), which
    spares the noise estimate the values they do not depend on
    (:func:`.invariant_noise.coefficients`); a function, so that a plan generation whose
    conditions are never read (every method but the invariant one) does not build the sets."""

    block: int
    chosen: Callable[[Stats], float] = field(compare=False)
    alternative: Callable[[Stats], float] = field(compare=False)
    label: str = ""
    reads: Callable[[], Collection[int]] | None = field(default=None, compare=False)

    def read_set(self) -> Collection[int] | None:
        """The indices of the values the two sides read (``None``: unknown)."""
        return self.reads() if self.reads is not None else None

    def gap(self, stats: Stats) -> float:
        """Relative difference of the two sides (inf when the smaller side is 0)."""
        a, b = self.chosen(stats), self.alternative(stats)
        low = min(a, b)
        if low <= 0:
            return 0.0 if a == b else math.inf
        return abs(b - a) / low

    def violated(self, stats: Stats, distance: float) -> bool:
        """Whether the chosen side now exceeds the alternative by more than ``1 + d``."""
        return self.chosen(stats) > (1.0 + distance) * self.alternative(stats)


def select_invariants(
    conditions: list[DecidingCondition],
    stats: Stats,
    k: int = BASIC_K,
    selection: str = "gap",
) -> list[DecidingCondition]:
    """The ``k`` tightest conditions of every block, blocks in plan order: by the smallest
    relative gap (§3.1, ``selection="gap"``) or, where ``stats`` carries variances, by the
    highest violation probability (§3.5, ``selection="probability"``,
    :func:`.invariant_noise.violation_score`; the gap without variances)."""
    blocks: dict[int, list[DecidingCondition]] = {}
    for c in conditions:
        blocks.setdefault(c.block, []).append(c)
    by_probability = selection == "probability" and stats.variance is not None
    steps: dict[int, Stats] = {}  # perturbed statistics shared by every condition's sigma
    out: list[DecidingCondition] = []
    for block in sorted(blocks):
        if by_probability:
            keyed = [
                (
                    violation_score(
                        c.chosen(stats), c.alternative(stats), _sigma_of(c, stats, steps)
                    ),
                    i,
                )
                for i, c in enumerate(blocks[block])
            ]
            ranked = [blocks[block][i] for _, i in sorted(keyed)]
        else:
            ranked = sorted(blocks[block], key=lambda c: c.gap(stats))
        out.extend(ranked[:k])
    return out


def _sigma_of(c: DecidingCondition, stats: Stats, steps: dict[int, Stats] | None = None) -> float:
    return sigma(
        coefficients(c.chosen, c.alternative, stats, steps=steps, reads=c.read_set()),
        stats.variance,
    )


def average_distance(conditions: list[DecidingCondition], stats: Stats) -> float:
    """§3.4's data-analysis estimate of d: the mean relative gap (finite gaps only)."""
    gaps = [g for g in (c.gap(stats) for c in conditions) if math.isfinite(g)]
    return sum(gaps) / len(gaps) if gaps else 0.0


class InvariantDecision:
    """The invariant-based decision function (K-invariant, distance d).

    ``distance``: a number (the paper's fixed d), ``"average"`` (§3.4's data-analysis
    estimate, the mean relative gap at creation, :func:`average_distance`) or ``"auto"`` (per
    invariant and check, beyond the statistics' noise: :mod:`.invariant_noise`).
    ``selection``: ``"gap"`` (§3.1) or ``"probability"`` (§3.5, where the statistics carry
    variances); ``"auto"`` is ``probability`` with ``distance="auto"``, else ``gap``.

    Why ``auto`` is not the average: on a skewed stream the average over every deciding
    condition is dominated by the loose ones (rate-swap stream: rates 0.2 … 8 give gaps up to
    39 and d = 15.75), while a violation needs the *tightest* conditions to move by more than
    d, so a full reversal of the rates went undetected (0 re-optimisations at 20,000 events,
    ``benchmarks/bench_invariant_paper.py``).
    """

    name = "invariant"

    def __init__(
        self,
        k: int = BASIC_K,
        distance: float | str = 0.0,
        selection: str = Adaptation.selection,
    ) -> None:
        self.k = k
        self.distance_setting = distance
        self.auto = distance == "auto"
        if selection == "auto":
            selection = "probability" if self.auto else "gap"
        self.selection = selection
        self.distance = 0.0
        self.invariants: list[DecidingCondition] = []
        self.coefficients: list[tuple[tuple[int, float], ...] | None] = []

    def reset(self, conditions: list[DecidingCondition], stats: Stats) -> None:
        """Record the invariants of a newly generated plan."""
        self.invariants = select_invariants(conditions, stats, self.k, self.selection)
        self.coefficients = [None] * len(self.invariants)
        if self.distance_setting == "average":
            self.distance = average_distance(conditions, stats)
        elif not self.auto:
            self.distance = float(self.distance_setting)

    def __call__(self, stats: Stats) -> bool:
        if not self.auto:
            d = self.distance
            return any(c.violated(stats, d) for c in self.invariants)
        variance = stats.variance
        for i, c in enumerate(self.invariants):
            f1 = c.chosen(stats)
            f2 = c.alternative(stats)
            if f1 <= f2:
                continue
            coeffs = self.coefficients[i]
            if coeffs is None and variance is not None:
                coeffs = self.coefficients[i] = coefficients(
                    c.chosen, c.alternative, stats, reads=c.read_set()
                )
            if significant(f1, f2, sigma(coeffs or (), variance)):
                return True
        return False


class AlwaysDecision:
    """Re-optimise at every check (unconditional baseline)."""

    name = "always"

    def reset(self, conditions: list[DecidingCondition], stats: Stats) -> None:
        """Nothing to record."""

    def __call__(self, stats: Stats) -> bool:
        return True


class ThresholdDecision:
    """Re-optimise when a monitored value moved by more than ``threshold`` (relative)."""

    name = "threshold"

    def __init__(self, threshold: float = Adaptation.threshold) -> None:
        self.threshold = threshold
        self.baseline: list[float] = []

    def reset(self, conditions: list[DecidingCondition], stats: Stats) -> None:
        """Remember the statistics the plan was built on."""
        self.baseline = stats.values()

    def __call__(self, stats: Stats) -> bool:
        t = self.threshold
        for old, new in zip(self.baseline, stats.values(), strict=True):
            if abs(new - old) > t * max(abs(old), 1e-12):
                return True
        return False


class NeverDecision:
    """A static plan: never re-optimise."""

    name = "off"

    def reset(self, conditions: list[DecidingCondition], stats: Stats) -> None:
        """Nothing to record."""

    def __call__(self, stats: Stats) -> bool:
        return False


def make_decision(
    kind: str,
    k: int = BASIC_K,
    distance: float | str = Adaptation.distance,
    threshold: float = Adaptation.threshold,
    selection: str = Adaptation.selection,
) -> InvariantDecision | AlwaysDecision | ThresholdDecision | NeverDecision:
    """A decision function by name: ``invariant``, ``always``, ``threshold`` or ``off``."""
    if kind == "invariant":
        return InvariantDecision(k, distance, selection)
    if kind == "always":
        return AlwaysDecision()
    if kind == "threshold":
        return ThresholdDecision(threshold)
    if kind == "off":
        return NeverDecision()
    raise ValueError(f"unknown adaptation {kind!r} (invariant, always, threshold, off)")
