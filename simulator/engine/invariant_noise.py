"""How far an invariant's two sides can move by the noise of the statistics (papers 000/001, §3.4-§3.5).

The statistics the engine measures are estimates (:mod:`.statistics`): a rate counted ``n``
times has relative variance ``1 / n``, a pass rate ``p`` of ``m`` samples ``(1 - p)/(p·m)``.
A deciding condition compares ``f1 = chosen(stats)`` with ``f2 = alternative(stats)``; to first
order (the delta method on logarithms),

    Var(ln f1 - ln f2) = Σ_k (e1_k - e2_k)² · v_k,   e_k = ∂ ln f / ∂ ln x_k,

over the monitored values ``x_k`` (:meth:`Stats.values` order) of relative variance ``v_k``.
The elasticities ``e`` are taken numerically (one relative step of ``1e-3`` per value), so the
same code serves the greedy products and ZStream's sums of products.

Two uses:

* the distance ``d = "auto"`` (:class:`~inev.simulator.engine.invariants.InvariantDecision`):
  an invariant is violated when ``ln(f1 / f2)`` exceeds ``max(ln(1 + d_min), z·σ)``: the
  chosen side must exceed the alternative by more than the statistics' noise can explain
  (``z`` standard deviations) and by at least ``d_min``. This is §3.4's "smallest relative
  difference … required for an invariant to be considered as violated", set per invariant
  and per check from the data (the paper's "fine-grained per-invariant distances");
* §3.5's selection: of a block's deciding conditions, the invariant is the one most likely
  to be violated, the smallest ``ln(f2 / f1) / σ`` (a normal violation probability
  ``Φ(-gap/σ)`` ranks the same way); a condition whose sides carry no noise ranks by its gap
  after all noisy ones. What it changes: with rates alone under Poisson counting noise,
  nothing (a competitor with a higher rate is both farther away and less noisy, so
  ``gap / σ`` orders a block's conditions as the gap does; tested as a property); it picks
  another invariant only where a variance is not monotone in its value, e.g. a selectivity
  sampled far less than its competitors' (tested by hand). On the four drift streams
  (:mod:`.drift_streams`, 20,000 events, greedy and ZStream) it chose the gap's invariants
  at every reset, so the work and plan changes are the same.

Choices, and why: ``z = 3`` (a one-sided false alarm of 0.13 % per invariant and check when
both sides are truly equal, so a stationary stream re-optimises about never); ``d_min = 0.1``
(the smallest optimal distance of the paper's Table 1: below it, a new plan is not worth its
deployment, however certain). The variance is the *estimator's* (counting noise), not the
variance of the data property over time that §3.5 also allows: the engine keeps no history of
its statistics beyond one span.

>>> from inev.simulator.engine.statistics import Stats
>>> s = Stats((8.0, 2.0), ((1.0, 1.0), (1.0, 1.0)), (1 / 160, 1 / 40, 0.0))
>>> coefficients(lambda x: x.rates[0], lambda x: x.rates[1], s)
((0, 1.0), (1, -1.0))
>>> round(sigma(((0, 1.0), (1, -1.0)), s.variance), 3)
0.177
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence

from inev.simulator.engine.statistics import Stats

Z = 3.0
"""Standard deviations of noise an automatic-distance violation must exceed."""

D_MIN = 0.1
"""The smallest relative excess an automatic-distance violation needs."""

STEP = 1e-3


def perturbed(stats: Stats, k: int, factor: float) -> Stats:
    """``stats`` with value ``k`` (:meth:`Stats.values` order) multiplied by ``factor``.

    >>> s = Stats((1.0, 2.0), ((1.0, 0.5), (0.5, 1.0)))
    >>> perturbed(s, 2, 2.0).sel
    ((1.0, 1.0), (1.0, 1.0))
    """
    n = len(stats.rates)
    if k < n:
        rates = list(stats.rates)
        rates[k] *= factor
        return Stats(tuple(rates), stats.sel)
    i, j = pair_of(k, n)
    sel = [list(row) for row in stats.sel]
    sel[i][j] *= factor
    sel[j][i] *= factor
    return Stats(stats.rates, tuple(tuple(row) for row in sel))


def pair_of(k: int, n: int) -> tuple[int, int]:
    """The unit pair ``(i, j)``, ``i < j``, of value index ``k >= n``.

    >>> pair_of(3, 3), pair_of(5, 3)
    ((0, 1), (1, 2))
    """
    k -= n
    for i in range(n):
        row = n - 1 - i
        if k < row:
            return i, i + 1 + k
        k -= row
    raise IndexError("value index out of range")


def pair_index(i: int, j: int, n: int) -> int:
    """The value index (:meth:`Stats.values` order) of the unit pair ``(i, j)``, ``i != j``:
    the inverse of :func:`pair_of`.

    >>> pair_index(0, 1, 3), pair_index(2, 1, 3), pair_of(pair_index(1, 3, 5), 5)
    (3, 5, (1, 3))
    """
    if i > j:
        i, j = j, i
    return n + i * (2 * n - i - 1) // 2 + (j - i - 1)


def coefficients(
    chosen: Callable[[Stats], float],
    alternative: Callable[[Stats], float],
    stats: Stats,
    indices: Sequence[int] | None = None,
    steps: dict[int, Stats] | None = None,
    reads: Collection[int] | None = None,
) -> tuple[tuple[int, float], ...]:
    """``(k, e1_k - e2_k)`` for every value ``k`` (of ``indices``, default: those with a
    variance) on which the log-difference of the two sides depends.

    ``reads``: the value indices the two sides read, where known
    (:attr:`~inev.simulator.engine.invariants.DecidingCondition.reads`); the others are
    skipped. Same result: a side that reads no perturbed value returns the same float, so
    such a ``k``'s difference is exactly 0 and dropped anyway (a greedy condition reads 2-15
    of the 36 values at 8 units; the step was most of the cost of a reset).

    ``steps``: the perturbed statistics by value index, filled and reused across calls on
    the same ``stats`` (the conditions of one plan share them: a reset then builds one
    perturbed copy per value instead of one per value and condition; same results).

    >>> s = Stats((8.0, 2.0), ((1.0, 1.0), (1.0, 1.0)), (0.1, 0.1, 0.0))
    >>> cache = {}
    >>> coefficients(lambda x: x.rates[0], lambda x: x.rates[1], s, steps=cache)
    ((0, 1.0), (1, -1.0))
    >>> sorted(cache)
    [0, 1]
    """
    if indices is None:
        variance = stats.variance or ()
        indices = [k for k, v in enumerate(variance) if v > 0]
    if reads is not None:
        indices = [k for k in indices if k in reads]
    f1, f2 = chosen(stats), alternative(stats)
    if f1 <= 0 or f2 <= 0:
        return ()
    base = math.log(f1) - math.log(f2)
    step = math.log1p(STEP)
    out = []
    for k in indices:
        s = steps.get(k) if steps is not None else None
        if s is None:
            s = perturbed(stats, k, 1.0 + STEP)
            if steps is not None:
                steps[k] = s
        g1, g2 = chosen(s), alternative(s)
        if g1 <= 0 or g2 <= 0:
            continue
        c = (math.log(g1) - math.log(g2) - base) / step
        if abs(c) > 1e-9:
            out.append((k, round(c, 9)))
    return tuple(out)


def sigma(coeffs: Sequence[tuple[int, float]], variance: Sequence[float] | None) -> float:
    """The standard deviation of ``ln f1 - ln f2`` from the coefficients and the relative
    variances (0 without variances)."""
    if not variance:
        return 0.0
    return math.sqrt(sum(c * c * variance[k] for k, c in coeffs))


def significant(f1: float, f2: float, s: float) -> bool:
    """Whether ``f1`` exceeds ``f2`` beyond noise of log-deviation ``s`` and by ``D_MIN``.

    >>> significant(4.0, 1.0, 0.18), significant(1.5, 1.0, 0.18), significant(1.05, 1.0, 0.0)
    (True, False, False)
    """
    if f1 <= f2:
        return False
    if f2 <= 0:
        return True
    return math.log(f1 / f2) > max(math.log1p(D_MIN), Z * s)


def violation_score(f1: float, f2: float, s: float) -> tuple[int, float]:
    """Sort key of §3.5's selection: lower is more likely violated (noisy conditions by
    ``gap / σ``, then noiseless ones by their gap).

    >>> violation_score(1.0, 2.0, 0.5) < violation_score(1.0, 1.5, 0.0)
    True
    """
    gap = abs(math.log(f2 / f1)) if f1 > 0 and f2 > 0 else math.inf
    if s > 0:
        return 0, gap / s
    return 1, gap
