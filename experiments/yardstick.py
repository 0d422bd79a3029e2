"""The yardstick of the INEv paper's Fig. 5a: what a plan's ψ is measured against.

The paper divides ψ by its §7.2 approximation of the optimum. That approximation is no
bound: on skewed rates it lies below inev's provable lower bound
(:func:`inev.planner.lower_bound.lower_bound`), so no plan can come close to it, and where
it is 0 the quotient is undefined. :func:`yardstick` therefore takes, in this order:

1. the **exact optimum** ψ*, where the planner can compute it (:func:`exact_psi`): the
   closeness the paper means;
2. otherwise the **larger** of the approximation and the provable bound: both lie at or
   below ψ* (the approximation as the paper intends it, the bound by proof), so the larger
   one is the tighter yardstick;
3. ``None`` when both are 0: the row has no yardstick and is counted as dropped, never left
   out silently (:func:`closeness`).

:func:`exact_psi` is written against a small interface: a planner method named ``exact``
(or ``optimal``) in :data:`inev.planner.planning.METHODS` that refuses instances above its
size limit with an :class:`~inev.common.errors.InevError`. Until the planner has one, it
returns ``None`` and the yardstick falls back to step 2.

>>> yardstick(2.0, 0.5, 1.0)
(2.0, 'exact')
>>> yardstick(None, 0.5, 1.0)
(1.0, 'lower bound')
>>> yardstick(None, 3.0, 1.0)
(3.0, 'approximation')
>>> yardstick(None, 0.0, 0.0)
(None, 'none')
"""

from __future__ import annotations

from inev.common.errors import InevError
from inev.planner.options import PlanOptions
from inev.planner.planning import METHODS, plan_workload
from inev.topologies.network import Network
from inev.workloads.workload import Workload

EXACT_METHODS = ("exact", "optimal")
"""Names the planner's exact method may have (the first one it knows is used)."""


def exact_method() -> str | None:
    """The planner's exact method, or ``None`` while it has none."""
    return next((m for m in EXACT_METHODS if m in METHODS), None)


def exact_psi(
    network: Network, workload: Workload, options: PlanOptions | None = None
) -> float | None:
    """ψ of the least-cost INEv graph, or ``None`` when the planner has no exact method or
    refuses the instance as too large."""
    method = exact_method()
    if method is None:
        return None
    try:
        return plan_workload(network, workload, method, options).psi
    except InevError:
        return None


def yardstick(
    exact: float | None, approximation: float | None, bound: float | None
) -> tuple[float | None, str]:
    """The yardstick and its kind (``exact``, ``approximation``, ``lower bound`` or ``none``)
    from the exact ψ (``None``: not computed), the §7.2 approximation and the provable bound
    (module docstring)."""
    if exact is not None:
        return float(exact), "exact"
    approx, lower = approximation or 0.0, bound or 0.0
    if max(approx, lower) <= 0:
        return None, "none"
    return (float(approx), "approximation") if approx > lower else (float(lower), "lower bound")


def closeness(psi: float, measure: float | None) -> float | None:
    """ψ over the yardstick: 1 when both are 0 (a free plan is optimal), ``None`` when there
    is no yardstick or it is 0 under a plan that costs something (the row is dropped).

    >>> closeness(3.0, 2.0), closeness(0.0, 0.0), closeness(1.0, 0.0), closeness(1.0, None)
    (1.5, 1.0, None, None)
    """
    if measure is None:
        return None
    if measure > 0:
        return psi / measure
    return 1.0 if psi <= 0 else None
