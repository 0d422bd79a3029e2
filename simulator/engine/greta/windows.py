"""Sliding and tumbling windows of aggregation queries (GRETA paper §6; the workload file's ``window`` and ``slide``).

Window ``k`` is ``[k*slide, k*slide + window)`` for ``k = 0, 1, …`` (time starts at 0, so
no window starts before it); without a slide the windows tumble (``slide = window``). An
event at time ``t`` falls into every window that contains ``t``.

>>> list(windows_of(7.0, 10.0, 3.0))
[0, 1, 2]
>>> window_bounds(2, 10.0, 3.0)
(6.0, 16.0)
"""

from __future__ import annotations

import math


def windows_of(time: float, window: float, slide: float) -> range:
    """Ids ``k >= 0`` of the windows ``[k*slide, k*slide + window)`` that contain ``time``."""
    high = math.floor(time / slide)
    while high * slide > time:
        high -= 1
    while (high + 1) * slide <= time:
        high += 1
    low = math.floor((time - window) / slide)
    while low * slide + window > time:
        low -= 1
    while low * slide + window <= time:
        low += 1
    return range(max(low, 0), high + 1)


def window_bounds(k: int, window: float, slide: float) -> tuple[float, float]:
    """Start and end of window ``k``."""
    return (float(k * slide), float(k * slide + window))


def first_open_window(time: float, window: float, slide: float) -> int:
    """The smallest window id that an event at ``time`` or later can still fall into."""
    return windows_of(time, window, slide).start
