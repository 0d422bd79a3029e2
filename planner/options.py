"""The planner's knobs in one immutable object, passed whole from the CLI to the library.

**Latency bound.** Problem 1 of the INEv paper bounds the plan's latency by τ, the latency of
centralized evaluation. The paper's own experiments plan without it, and a default τ = 1 ×
the centralized latency forbids in-network evaluation exactly where it pays most: at rates
far below one event per time unit the latency estimate is all hops, so every split costs
latency. So there is no bound unless the user sets one: ``latency_factor`` F gives
τ = F × the centralized latency, ``latency_bound`` T gives τ = T (model latency units).

A bound the user sets holds on the plan returned (``strict_latency``, the default): Alg. 1
prunes on estimated latencies as the paper does (§6.2), and every candidate plan must also
meet ℓ(I) ≤ τ once placed. The paper states Problem 1 with ℓ(I) ≤ τ as a constraint and
prunes on estimates only; inev's local search moves beyond Alg. 1's single pass, where the
estimates alone let placed plans exceed τ several times (3.5 × the centralized latency on a
Fig. 12a instance at ξ = 0). ``strict_latency=False`` keeps the paper's estimate-only
pruning. When no candidate meets τ (a factor below 1 can rule out even the centralized
plan), planning fails with an :class:`~inev.common.errors.InevError` saying the lowest
latency found.

**Effort.** ``effort`` scales the search beyond one pass of Alg. 1 and Alg. 2
(:mod:`inev.planner.search`): 0 is the paper's single pass, 1 (the default) keeps the
20-node default instance well under a second, larger values search longer.
``time_budget`` (seconds) bounds the whole plan: the push-pull baseline is made first, the
search stops at the deadline and returns the best plan found so far (writing it out takes one
placement more). Below the time of the baselines and one pass of Alg. 1, which every plan
needs, the plan takes that time (1.3 s for a budget of 0.5 s on 200 nodes and 8 queries of 6
types; 3.1 s for 3 s). With ``--method exact`` the incumbent search takes half the budget and
the exact search the rest (:func:`inev.planner.exact.exact_plan`).
On instances within the exact method's limits (:mod:`inev.planner.exact`) the search ends
with the exact branch and bound for ``exact_steps`` units of work (None: 2,000 per unit of
effort, 0: none), which either proves the plan optimal or finds a cheaper one (issue 32,
item 6; :func:`inev.planner.exact.with_exact_search`).

**Regional placements** (beyond the paper, :mod:`inev.planner.regional`): with ``regional``
(the default) the search also tries evaluating partitioned projections at k sites between
one node and every source, and ends with a pass of *partition* moves on small networks
(issue 32, :func:`inev.planner.search.search`); ``regional=False`` keeps the paper's
placements only and leaves both passes out (the search is then what it was before them).

**Rate kicks** (beyond the paper, :func:`inev.planner.last_passes._kicks`): with ``kicks`` (the
default) the search without a latency bound on networks of up to 100 nodes (any size at
effort 2 and above), where the exact search does not end it instead, ends by planning the
workload again with each event type's rate in turn ten times higher, then ten times lower,
and searching on from what that reaches under the true rates: designs where a whole chain of
projections changes at once, which one move at a time cannot reach. It never raises ψ;
``kicks=False`` leaves it out (planning then takes about a tenth of the time on 20 to 50
nodes).

**Rate-ordered chains** (beyond the paper, :mod:`inev.planner.rate_chains`): with ``chains``
(the default) the search without a latency bound on networks of up to 100 nodes (any size
at effort 2 and above) also places designs in which every query gathers the rarest event
types at one node and is then partitioned by the others, one at a time in one order common
to all queries, and searches on from the cheapest; ``chains=False`` leaves them out.

>>> PlanOptions().tau(163.0)
inf
>>> PlanOptions(latency_factor=2.0).tau(10.0)
20.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inev.common.errors import InevError


@dataclass(frozen=True)
class PlanOptions:
    """How to plan: latency bound, ξ, query order, search effort, time budget, regional
    placements, the exact search's steps, rate kicks, rate-ordered chains."""

    latency_factor: float | None = None
    latency_bound: float | None = None
    xi: float = 1.0
    order: tuple[str, ...] | None = None
    strict_latency: bool = True
    effort: float = 1.0
    time_budget: float | None = None
    regional: bool = True
    exact_steps: int | None = None
    kicks: bool = True
    chains: bool = True

    def __post_init__(self) -> None:
        if self.latency_factor is not None and self.latency_bound is not None:
            raise InevError("give a latency factor or a latency bound, not both")
        for name in ("latency_factor", "latency_bound", "time_budget"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int | float) and value > 0):
                raise InevError(f"{name.replace('_', ' ')} must be a positive number, got {value}")
        if not (isinstance(self.xi, int | float) and math.isfinite(self.xi) and self.xi >= 0):
            raise InevError(f"xi must be a non-negative number, got {self.xi}")
        if not (isinstance(self.effort, int | float) and 0 <= self.effort <= 100):
            raise InevError(f"effort must be a number from 0 to 100, got {self.effort}")
        steps = self.exact_steps
        if steps is not None and (
            isinstance(steps, bool) or not (isinstance(steps, int) and steps >= 0)
        ):
            raise InevError(f"exact steps must be a whole number >= 0, got {steps}")

    def tau(self, centralized_latency: float) -> float:
        """τ for a workload whose centralized plan has ``centralized_latency`` (inf: no bound)."""
        if self.latency_bound is not None:
            return float(self.latency_bound)
        if self.latency_factor is not None:
            return float(self.latency_factor) * centralized_latency
        return math.inf

    @property
    def bounded(self) -> bool:
        """Whether the user set a latency bound."""
        return self.latency_factor is not None or self.latency_bound is not None


PLAN_DEFAULTS = PlanOptions()
"""The planner's defaults, written once: the command line's flags and a sweep task's
parameters (:data:`inev.experiments.sweep_parameters.DEFAULTS`) take them from here
(``tests/test_defaults.py`` fails on a second definition). This module itself imports nothing
heavy, but importing it loads the planner's eager facade (``inev.planner``)."""

DEFAULT_METHOD = "inev"
"""The planner a caller not naming one gets (:data:`inev.planner.planning.METHODS`)."""

DEFAULT_XI = PLAN_DEFAULTS.xi
"""ξ of the latency model (§5.4): the weight of partial matches against hops
(:mod:`inev.planner.latency_model`)."""
