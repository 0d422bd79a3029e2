"""One point of a GRETA figure: GRETA against the two-step baseline on one window of events,
as ``greta-events`` measures it (:mod:`.greta`), for ``greta-negation``, ``greta-selectivity``
and ``greta-groups``.

GRETA's time is CPU time (``time.process_time``) of one process, best of repeated runs
(:func:`.greta.best`); the baseline's the same, best of up to 3 runs under 2 s, stopped at a
deadline of ``timeout`` wall seconds (:func:`.greta.baseline`). Peak memory is
``tracemalloc``'s peak of a separate run of each. Where the baseline stops, its CPU time to
the stop is kept (a lower bound of its time) and the speed-up is stored as minus that CPU
time over GRETA's (a lower bound, shown with ``>``; ``greta-events`` divides the wall
deadline instead, which overstates the bound on a loaded machine); where it finishes, both
methods' results are asserted equal.

>>> from inev.simulator.engine.greta import greta_event
>>> from inev.workloads.workload import Query
>>> q = Query.build("q", "KL(A)", where="A.v < NEXT(A).v", returns="COUNT(*)")
>>> evs = [greta_event(float(i), "A", i, None, {"v": v}) for i, v in enumerate([1, 3, 2, 4])]
>>> row = compare(q, evs, 10.0, 5.0, skip=False)
>>> row["two-step"], row["speed-up"] > 0, row["trends"]
('finished', True, 11.0)
>>> compare(q, evs, 10.0, 5.0, skip=True)["two-step"]
'not run'
"""

from __future__ import annotations

import time
from typing import Any

from inev.common.errors import InevError
from inev.experiments.engine_figures.greta import baseline, best, run
from inev.experiments.engine_figures.model import Measured, fmt
from inev.simulator.engine.greta import Event, greta_aggregates, two_step_aggregates
from inev.workloads.workload import Query

COLUMNS = (
    "trends",
    "GRETA CPU s",
    "GRETA peak MB",
    "two-step",
    "two-step CPU s",
    "two-step peak MB",
    "speed-up",
    "memory ratio",
)
"""The columns :func:`compare` fills, after a figure's own (its x-axis)."""


def compare(
    query: Query, events: list[Event], window: float, timeout: float, skip: bool
) -> dict[str, Any]:
    """GRETA and (unless ``skip``: the baseline already stopped at an easier point) the
    two-step baseline on ``events`` in one tumbling window of ``window`` time units.

    Parameters
    ----------
    query : Query
        The query (a ``COUNT(*)`` return clause: its values summed over the groups are
        the ``trends`` column, as a float, capped at 1e300).
    events : list of Event
        The stream, in time order.
    window : float
        Window length (one window holds the whole stream in every GRETA figure).
    timeout : float
        The baseline's deadline in wall seconds.
    skip : bool
        Do not run the baseline (``"not run"``).

    Returns
    -------
    dict
        The :data:`COLUMNS` of one row (module docstring).
    """
    cpu = time.process_time
    n = len(events)

    def greta() -> list:
        return list(greta_aggregates(query, events, window))

    g_time, _, g_results = best(greta, n, cpu)
    _, g_peak, _ = run(greta, memory=True)
    row: dict[str, Any] = {
        "trends": float(min(sum(r["value"] or 0 for r in g_results), 10**300)),
        "GRETA CPU s": g_time,
        "GRETA peak MB": g_peak / 1e6,
        "two-step": "not run",
        "two-step CPU s": None,
        "two-step peak MB": None,
        "speed-up": None,
        "memory ratio": None,
    }
    if skip:
        return row
    b_time, _, status = baseline(query, events, window, timeout, cpu)
    if status != "ok":
        row.update(
            {
                "two-step": f"stopped > {timeout:.0f} s",
                "two-step CPU s": b_time,
                "speed-up": -b_time / g_time,
            }
        )
        return row
    _, b_peak, b_results = run(
        lambda: list(two_step_aggregates(query, events, window, limit=None)), memory=True
    )
    if b_results != g_results:
        raise InevError(f"two-step and GRETA disagree on {query.name} at {n} events")
    row.update(
        {
            "two-step": "finished",
            "two-step CPU s": b_time,
            "two-step peak MB": b_peak / 1e6,
            "speed-up": b_time / g_time,
            "memory ratio": b_peak / g_peak,
        }
    )
    return row


def finished(m: Measured, column: str, label: str, **where: Any) -> dict[str, float]:
    """``column`` at the rows where the baseline finished (and ``where`` holds), by ``label``
    (a format string of the row's columns).

    >>> m = Measured(("x", "two-step", "speed-up"), ({"x": 1, "two-step": "finished",
    ...     "speed-up": 3.0}, {"x": 2, "two-step": "stopped > 5 s", "speed-up": -9.0}), "")
    >>> finished(m, "speed-up", "x={x}")
    {'x=1': 3.0}
    """
    return {
        label.format(**r): r[column]
        for r in m.rows
        if r["two-step"] == "finished" and all(r.get(k) == v for k, v in where.items())
    }


def bounds(m: Measured, label: str, **where: Any) -> dict[str, float]:
    """The speed-up where the baseline ran, a stopped one's lower bound as a positive number.

    >>> m = Measured(("x", "two-step", "speed-up"), ({"x": 1, "two-step": "finished",
    ...     "speed-up": 3.0}, {"x": 2, "two-step": "stopped > 5 s", "speed-up": -9.0}), "")
    >>> bounds(m, "x={x}")
    {'x=1': 3.0, 'x=2': 9.0}
    """
    return {
        label.format(**r): abs(r["speed-up"])
        for r in m.rows
        if r["speed-up"] is not None and all(r.get(k) == v for k, v in where.items())
    }


def shown(row: dict[str, Any]) -> str:
    """A row's baseline outcome in words: status, speed-up and memory ratio.

    >>> shown({"two-step": "stopped > 5 s", "speed-up": -900.0, "memory ratio": None})
    'two-step stopped > 5 s, speed-up > 900, memory ratio –'
    """
    speed = row["speed-up"]
    speed_text = "–" if speed is None else (f"> {fmt(-speed)}" if speed < 0 else fmt(speed))
    ratio = "–" if row["memory ratio"] is None else fmt(row["memory ratio"])
    return f"two-step {row['two-step']}, speed-up {speed_text}, memory ratio {ratio}"
