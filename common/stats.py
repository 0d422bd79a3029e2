"""Summary statistics shared by every layer: quantiles and the latency summary.

**Empty input.** A summary of no values says so: :func:`latency_summary` gives ``count`` 0
and ``None`` (JSON ``null``) for every figure, never 0.0, which would read as "no delay".
Printers show ``None`` as "n/a".

>>> quantiles([1.0, 2.0, 3.0, 4.0], (0.25, 0.5, 0.75))
(1.75, 2.5, 3.25)
>>> latency_summary([1.0, 3.0])
{'count': 2, 'mean': 2.0, 'p50': 2.0, 'p99': 2.98, 'max': 3.0}
>>> latency_summary([])["p99"] is None
True

**Confidence intervals** for the plots' ``--stat``: :func:`mean_interval` is Student's t
interval of the mean, mean ± t(1 − (1 − level)/2; n − 1) · s / √n with the sample standard
deviation s (exact for normal data, approximate otherwise); :func:`median_interval` is the
distribution-free interval of the median between two order statistics x_(j) ≤ x_(k), the
pair nearest the middle whose coverage P(x_(j) ≤ median < x_(k)) = Σ_{i=j}^{k−1} C(n, i) / 2^n
is at least ``level`` (for n < 6 at the 95 % level no pair covers enough, and the interval
is the whole range, said by its coverage).

>>> [round(v, 4) for v in mean_interval([1.0, 2.0, 3.0, 4.0])]
[0.4457, 2.5, 4.5543]
>>> median_interval([float(i) for i in range(1, 11)])
(2.0, 5.5, 9.0, 0.9785)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def quantiles(values: Sequence[float], qs: Sequence[float]) -> tuple[float, ...]:
    """The ``qs`` quantiles (each in [0, 1]) of ``values``, linearly interpolated between
    the two nearest ranks (numpy's default, the one most plotting tools use)."""
    if len(values) == 0:
        raise ValueError("quantiles of no values")
    return tuple(float(x) for x in np.quantile(np.asarray(values, dtype=float), list(qs)))


def latency_summary(values: Sequence[float]) -> dict[str, float | None]:
    """Count, mean, median, 99th percentile and maximum (``None`` for no values)."""
    if len(values) == 0:
        return {"count": 0, "mean": None, "p50": None, "p99": None, "max": None}
    array = np.asarray(values, dtype=float)
    p50, p99 = quantiles(array, (0.5, 0.99))
    return {
        "count": len(values),
        "mean": float(array.mean()),
        "p50": p50,
        "p99": p99,
        "max": float(array.max()),
    }


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(low, mean, high): Student's t interval of the mean (module docstring); one value
    gives a point (no spread is known)."""
    from scipy import stats

    array = np.asarray(values, dtype=float)
    if len(array) == 0:
        raise ValueError("an interval of no values")
    mean = float(array.mean())
    if len(array) == 1:
        return mean, mean, mean
    half = (
        float(stats.t.ppf(0.5 + level / 2, len(array) - 1))
        * float(array.std(ddof=1))
        / np.sqrt(len(array))
    )
    return float(mean - half), mean, float(mean + half)


def median_interval(
    values: Sequence[float], level: float = 0.95
) -> tuple[float, float, float, float]:
    """(low, median, high, coverage): the order-statistic interval of the median (module
    docstring); ``coverage`` is its exact probability under any continuous distribution."""
    from scipy import stats

    ordered = np.sort(np.asarray(values, dtype=float))
    n = len(ordered)
    if n == 0:
        raise ValueError("an interval of no values")
    median = float(np.median(ordered))
    best = (0, n - 1, 1.0 - 2 * 0.5**n if n > 1 else 0.0)
    for j in range(n // 2, 0, -1):  # ranks j..n+1-j (1-based), widest last
        k = n + 1 - j
        coverage = float(stats.binom.cdf(k - 1, n, 0.5) - stats.binom.cdf(j - 1, n, 0.5))
        if coverage >= level:
            best = (j - 1, k - 1, coverage)
            break
    low, high, coverage = best
    return float(ordered[low]), median, float(ordered[high]), round(coverage, 4)
