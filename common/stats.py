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
