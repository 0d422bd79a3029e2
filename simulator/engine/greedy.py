"""The greedy order-based plan generator (adaptive-CEP paper §4.1, Algorithm 2).

Step i picks, among the units not yet placed, the one minimising
``r_j · Π_{k<i} sel(p_k, j)`` (ties: the lowest unit index, so the algorithm is
deterministic, as Theorem 1 needs). Every comparison between the chosen unit and another
candidate is a *deciding condition* of the block "unit j at position i"; they are returned
for the invariant-based decision function (:mod:`.invariants`).

>>> from inev.simulator.engine.statistics import Stats
>>> plan, conditions = greedy_plan(Stats((3.0, 1.0, 2.0), ((1, 1, 1),) * 3))
>>> plan.order
(1, 2, 0)
>>> len(conditions)
3
"""

from __future__ import annotations

from collections.abc import Callable

from inev.simulator.engine.evaluation_plans import OrderPlan
from inev.simulator.engine.invariant_noise import pair_index
from inev.simulator.engine.invariants import DecidingCondition
from inev.simulator.engine.statistics import Stats


def step_value(j: int, prefix: tuple[int, ...]) -> Callable[[Stats], float]:
    """``stats -> r_j · Π_{k in prefix} sel(k, j)``: the greedy criterion as a function."""

    def value(stats: Stats) -> float:
        v = stats.rates[j]
        row = stats.sel[j]
        for k in prefix:
            v *= row[k]
        return v

    return value


def step_reads(j: int, prefix: tuple[int, ...], n: int) -> set[int]:
    """The value indices (:meth:`Stats.values` order) :func:`step_value` ``(j, prefix)``
    reads: ``r_j`` and every ``sel(k, j)``, ``k`` in ``prefix``.

    >>> sorted(step_reads(2, (0, 1), 3))
    [2, 4, 5]
    """
    return {j} | {pair_index(j, k, n) for k in prefix}


def greedy_plan(stats: Stats) -> tuple[OrderPlan, list[DecidingCondition]]:
    """Algorithm 2: the order and the deciding conditions recorded on the way."""
    n = len(stats.rates)
    remaining = list(range(n))
    order: list[int] = []
    conditions: list[DecidingCondition] = []
    rates, sel = stats.rates, stats.sel
    for position in range(n):
        prefix = tuple(order)
        values = {}
        for j in remaining:  # step_value(j, prefix)(stats), without building the function
            v = rates[j]
            row = sel[j]
            for k in prefix:
                v *= row[k]
            values[j] = v
        best = min(remaining, key=lambda j: (values[j], j))
        for other in remaining:
            if other != best:
                conditions.append(
                    DecidingCondition(
                        block=position,
                        chosen=step_value(best, prefix),
                        alternative=step_value(other, prefix),
                        label=f"pos{position}: unit {best} before {other}",
                        reads=lambda b=best, o=other, p=prefix: (
                            step_reads(b, p, n) | step_reads(o, p, n)
                        ),
                    )
                )
        order.append(best)
        remaining.remove(best)
    return OrderPlan(tuple(order)), conditions
