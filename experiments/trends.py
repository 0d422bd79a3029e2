"""Trend checks over every point of a curve: monotone within a tolerance, or a fitted slope.

A claim such as "the ratio rises with the network size" is about the whole curve, not its
two end points. Each function here takes the curve as ``(x, value)`` points (one statistic
per x, in increasing x) and returns a :class:`Trend`: whether the claim's direction holds
and the numbers that decided it, in words.

:func:`monotone`
    Every step goes the claimed way or against it by at most ``tolerance`` (relative to the
    step's first value: ``tolerance = 0.1`` lets a rising curve fall by up to 10 % between
    two neighbouring points), and the last point lies beyond the first in the claimed
    direction. The largest step against the direction is reported with its size.
:func:`slope`
    The least-squares line through the points (of log10 values with ``log_y``, over log10 x
    with ``log_x``): the claim holds when its slope has the claimed sign. A curve that is
    noisy but rising overall passes; one that is flat within noise passes or fails by
    chance, which is why the report prints the slope next to the verdict.

>>> monotone([(10, 1.0), (20, 0.95), (50, 2.0)], "up", 0.1).holds
True
>>> monotone([(10, 1.0), (20, 0.5), (50, 2.0)], "up", 0.1).text
'largest step against the rise: -50 % (10 -> 20), tolerance 10 %'
>>> round(slope([(1, 1.0), (10, 10.0), (100, 100.0)], "up", log_y=True, log_x=True).value, 6)
1.0
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DIRECTIONS = ("up", "down")


@dataclass(frozen=True)
class Trend:
    """A trend check's verdict, its deciding number and the words for it."""

    holds: bool
    value: float
    """:func:`monotone`: the largest relative step against the direction (0 when none);
    :func:`slope`: the fitted slope."""
    text: str


def _check(points: Sequence[tuple[float, float]], direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be up or down, got {direction!r}")
    if len(points) < 2:
        raise ValueError("a trend needs at least two points")


def _num(value: float) -> str:
    return f"{value:.3g}"


def monotone(points: Sequence[tuple[float, float]], direction: str, tolerance: float) -> Trend:
    """Whether the values move ``direction`` at every step, within ``tolerance`` (module doc).

    >>> monotone([(1, 3.0), (2, 2.0), (3, 2.1)], "down", 0.0).holds
    False
    >>> monotone([(1, 3.0), (2, 2.0), (3, 2.1)], "down", 0.1).holds
    True
    >>> monotone([(1, 1.0), (2, 1.0)], "up", 0.5).text
    'last (1) not above first (1)'
    """
    _check(points, direction)
    sign = 1.0 if direction == "up" else -1.0
    worst, where = 0.0, None
    for (x0, a), (x1, b) in itertools.pairwise(points):
        if a == 0:
            against = 0.0 if sign * b >= 0 else math.inf
        else:
            against = max(0.0, -sign * (b - a) / abs(a))  # relative step against the direction
        if against > worst:
            worst, where = against, (x0, x1)
    first, last = points[0][1], points[-1][1]
    beyond = sign * (last - first) > 0
    word = "rise" if direction == "up" else "fall"
    if not beyond:
        side = "above" if direction == "up" else "below"
        return Trend(False, worst, f"last ({_num(last)}) not {side} first ({_num(first)})")
    if where is None:
        return Trend(True, 0.0, f"every step a {word}")
    step = f"{-sign * worst * 100:+.0f} %" if math.isfinite(worst) else "from 0"
    text = (
        f"largest step against the {word}: {step} ({_num(where[0])} -> {_num(where[1])}), "
        f"tolerance {tolerance * 100:.0f} %"
    )
    return Trend(worst <= tolerance, worst, text)


def slope(
    points: Sequence[tuple[float, float]],
    direction: str,
    log_y: bool = False,
    log_x: bool = False,
) -> Trend:
    """Whether the least-squares slope through the points has the sign of ``direction``.

    Values (with ``log_y``) and x (with ``log_x``) must then be positive: a point that is
    not makes the check fail with the reason, never pass.

    >>> slope([(1, 5.0), (2, 4.0), (3, 4.5)], "down").holds
    True
    >>> slope([(1, 5.0), (2, 4.0), (3, 4.5)], "up").text
    'fitted slope -0.25 per unit of x'
    >>> slope([(1, 0.0), (2, 1.0)], "up", log_y=True).text
    'a value is not positive: no log-scale slope'
    """
    _check(points, direction)
    xs = np.array([p[0] for p in points], dtype=float)
    ys = np.array([p[1] for p in points], dtype=float)
    if (log_y and (ys <= 0).any()) or (log_x and (xs <= 0).any()):
        what = "a value" if log_y and (ys <= 0).any() else "an x"
        return Trend(False, math.nan, f"{what} is not positive: no log-scale slope")
    if log_y:
        ys = np.log10(ys)
    if log_x:
        xs = np.log10(xs)
    if np.ptp(xs) == 0:
        return Trend(False, math.nan, "every point has the same x: no slope")
    fitted = float(np.polyfit(xs, ys, 1)[0])
    holds = fitted > 0 if direction == "up" else fitted < 0
    y_unit = "log10 value" if log_y else ""
    x_unit = "log10 x" if log_x else "unit of x"
    unit = f"{y_unit} per {x_unit}".strip()
    return Trend(holds, fitted, f"fitted slope {fitted:+.3g} {unit}".replace("+-", "-"))
