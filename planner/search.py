"""Planning an INEv graph: the paper's construction, a search around it, and simpler plans.

The paper builds one INEv graph in one pass: Alg. 1 per query in the workload's order
(§6.2, §6.3), then Alg. 2 (§6.4), both steered by *estimated* costs. :func:`inev_plan`
starts there and judges everything by the exact ψ of the placed graph:

1. **Query orders.** Alg. 1 runs over a few canonical orders of the queries (by rate, both
   ways; :func:`inev.planner.paper_designs.query_orders`), each placed by Alg. 2 and with its single-node projections
   pinned at the centralized node. The canonical orders depend on the queries, not on the
   order a file lists them in, so the plan does not either (with ``effort`` 0 the paper's
   single pass in the given order is kept, as Fig. 10b's experiment needs).
2. **Local search.** From the cheapest of those, :func:`inev.planner.improve.improve` tries
   other options per projection (Alg. 1 keeps every placement option it evaluated), drops
   projections, gathers multi-node ones and turns output selectors off, keeping what
   lowers ψ; with several queries it also starts from the queries' own plans placed jointly.
3. **Last passes** (beyond the paper, :func:`~inev.planner.last_passes.beyond_the_paper`): regional placements, the
   *partition* moves on small networks and the *rate kicks*
   (:mod:`inev.planner.last_passes`: the workload
   planned again with one type's rate ten times higher, then ten times lower, one type at a
   time, then searched from under the true rates), each kept only where it lowers ψ.
4. **Simpler plans.** The centralized plan, the sharing-agnostic (isolated) plan and the
   push-pull plan are candidates too, so the result never costs more than any of them.
5. **The exact search** (issue 32, beyond the paper): on instances within the exact method's
   limits and without a latency bound, the branch and bound of :mod:`inev.planner.exact`
   runs below the cheapest candidate's ψ for a budget of work
   (:func:`inev.planner.exact.with_exact_search`): it proves that candidate optimal among
   designs with shared projections, or returns a cheaper design. Only the outermost search
   ends with it: the queries planned alone (the isolated candidate and baseline) do not.

The cheapest candidate wins; ``Plan.kept`` and the notes say which. With a latency bound τ
(:class:`~inev.planner.options.PlanOptions`) Alg. 1 prunes on estimated latencies, as the
paper does, and with ``strict_latency`` (the default) a candidate must also meet ℓ(I) ≤ τ on
the placed graph; when none does, planning fails with the lowest latency found.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.planner import progress
from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import PlanTooLarge, place
from inev.planner.assemble import build_plan, explain_lines
from inev.planner.baselines import (
    centralized_plan,
    push_pull_floor,
    push_pull_plan,
)
from inev.planner.choice_memo import ChoiceMemo
from inev.planner.dominant_pairs import dominance, dominance_lines
from inev.planner.exact import with_exact_search
from inev.planner.improve import Budget, Design, Evaluator, improve
from inev.planner.inev_graph import Plan
from inev.planner.isolated import side_by_side
from inev.planner.last_passes import LastPasses, beyond_the_paper
from inev.planner.options import DEFAULT_METHOD, PlanOptions
from inev.planner.paper_designs import (
    Space,
    Work,
    canonical_key,
    paper_designs,
)
from inev.planner.projections import Projection
from inev.planner.search_budget import WORK_CAP_FROM, WORK_TOTAL, evaluations, vertices
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload


def _realise(
    network: Network,
    space: Space,
    design: Design,
    options: PlanOptions,
    method: str = DEFAULT_METHOD,
) -> Plan:
    combination = design.combination(space.pool)
    placement = place(network, combination, design.pinned, frozenset(design.keep_matches))
    lines = explain_lines(combination, design.choices, placement)
    return build_plan(network, combination, placement, method, options.xi, lines)


class LatencyBoundUnmet(InevError):
    """No candidate plan meets the latency bound τ (with ``strict_latency``)."""


@dataclass
class _Best:
    """The cheapest acceptable candidate so far."""

    tau: float
    strict: bool
    plan: Plan | None = None
    rejected: list[str] = field(default_factory=list)
    lowest: float = math.inf
    """The lowest latency of a rejected candidate."""

    def cost(self) -> float:
        """ψ of the best plan so far (inf before the first)."""
        return math.inf if self.plan is None else self.plan.psi

    def offer(self, plan: Plan, kept: str) -> None:
        """Keep ``plan`` if it meets the bound (when strict) and is the cheapest so far."""
        if self.strict and plan.latency > self.tau * (1 + 1e-9):
            self.rejected.append(f"{kept}: latency {plan.latency:.6g} > tau {self.tau:.6g}")
            self.lowest = min(self.lowest, plan.latency)
            return
        if self.plan is None or plan.psi < self.plan.psi * (1 - 1e-12):
            self.plan = replace(plan, kept=kept)


@dataclass(frozen=True)
class SearchResult:
    """The plan a search returns, and its best INEv design (even when a baseline won)."""

    plan: Plan
    design: Design
    pool: Mapping[str, Projection]


def inev_plan(
    network: Network, wl: Workload, central: Plan, tau: float, options: PlanOptions
) -> Plan:
    """The cheapest INEv graph found for an OR-free workload (see the module docstring)."""
    return search(network, wl, central, tau, options).plan


def search(
    network: Network,
    wl: Workload,
    central: Plan,
    tau: float,
    options: PlanOptions,
    push_pull: bool = True,
    work: Work | None = None,
    memo: ChoiceMemo | None = None,
) -> SearchResult:
    """:func:`inev_plan` with the winning design (for isolated plans placed jointly);
    ``push_pull`` False leaves the push-pull plan out of the candidates; ``work`` is the
    budget shared with an enclosing search (a new one of :data:`WORK_TOTAL` by default), and
    ``memo`` its Alg. 1 options (:mod:`inev.planner.choice_memo`; a new one by default)."""
    start = time.perf_counter()
    if work is None:
        deadline = start + options.time_budget if options.time_budget else math.inf
        total = WORK_TOTAL * options.effort if len(network.nodes) > WORK_CAP_FROM else math.inf
        work = Work(total, deadline)
    if options.effort > 0:
        wl = replace(
            wl, queries=tuple(sorted(wl.queries, key=lambda q: (canonical_key(q, network), q.name)))
        )
    # under a time budget the push-pull baseline, which the search does not change, is made
    # first, so that the budget bounds the whole plan and not the search alone
    timed = push_pull and options.time_budget is not None and options.effort > 0
    ppop = _push_pull(network, wl, central, options) if timed else None
    space = Space(memo=ChoiceMemo() if memo is None else memo)
    best_design, best_cost, parts = _searched(network, wl, central, tau, options, push_pull,
                                              work, space)  # fmt: skip
    best = _Best(tau, options.strict_latency)
    progress.stage("writing out the best plan and the baselines", 0)
    return _chosen(network, wl, central, best, (space, best_design, best_cost), parts, push_pull,
                   options, work, ppop)  # fmt: skip


def _searched(
    network: Network,
    wl: Workload,
    central: Plan,
    tau: float,
    options: PlanOptions,
    push_pull: bool,
    work: Work,
    space: Space,
) -> tuple[Design, float, list[SearchResult]]:
    """The search's best design, its ψ and the queries' own plans (:func:`search`).

    The evaluator and its incremental parts live only here: they are released before the
    plan is written out, where they would add to the peak of the largest networks (at
    100,000 nodes they held some 0.9 GB after the regional pass, and writing the plan
    out is the run's peak)."""
    deadline = work.deadline
    designs = paper_designs(network, wl, tau, options, central.centralized_node, space, deadline)
    evaluate = Evaluator(network, space.pool)
    progress.stage("placing Alg. 1's designs (Alg. 2)", len(designs))
    scored = [(evaluate(d), i, evaluate.variant(d)) for i, d in enumerate(designs)]
    scored.sort(key=lambda t: (t[0], t[1]))
    best_cost, _, best_design = scored[0]
    parts: list[SearchResult] = []
    if options.effort > 0:
        size = vertices(best_design, space, network)
        wanted = evaluations(best_design, space, options, network)
        budget = Budget(work.evaluations(wanted, size), deadline)
        progress.stage("local search", budget.evaluations)
        best_design, best_cost = improve(evaluate, space.options, best_design, budget)
        work.spend(budget.used, size)
        if len(wl.queries) > 1:
            parts = _singles(network, wl, tau, options, work, size, space.memo)
        merged = _merge(parts, space) if parts else None
        if merged is not None:
            size = vertices(merged, space, network)
            wanted = evaluations(merged, space, options, network)
            second = Budget(work.evaluations(wanted, size), deadline)
            progress.stage("local search from the queries' own plans", second.evaluations)
            cand, value = improve(evaluate, space.options, merged, second)
            work.spend(second.used, size)
            if value < best_cost:
                best_design, best_cost = cand, value
        if push_pull:  # the outermost search: not the queries alone
            last = LastPasses(network, wl, tau, central, evaluate, space, options, work)
            best_design, best_cost = beyond_the_paper(last, (best_design, best_cost))
    return best_design, best_cost, parts


def _chosen(
    network: Network,
    wl: Workload,
    central: Plan,
    best: _Best,
    found: tuple[Space, Design, float],
    parts: list[SearchResult],
    push_pull: bool,
    options: PlanOptions,
    work: Work,
    ppop: Plan | None = None,
) -> SearchResult:
    """Write out the search's best design (``found``: its space, design and cost) and offer
    it with the baselines (centralized, push-pull, the queries' own plans side by side) to
    ``best``; the plan kept, with the notes that say what was left out and why. ``ppop``:
    the push-pull plan when it was made before the search (:func:`_push_pull`)."""
    space, best_design, best_cost = found
    tau = best.tau
    if best_cost <= central.psi * (1 + 1e-9):  # else centralized wins: skip writing it out
        try:
            best.offer(_realise(network, space, best_design, options), "inev")
        except PlanTooLarge as exc:
            best.rejected.append(f"inev's best plan (psi {best_cost:.6g}) was not kept: {exc}")
    best.offer(central, "centralized")
    if push_pull and options.effort > 0 and push_pull_floor(network, wl) < best.cost():
        best.offer(ppop or push_pull_plan(network, wl, central, options.xi), "ppop")
    if parts:
        named = [(q.name, r.plan) for q, r in zip(wl.queries, parts, strict=True)]
        best.offer(side_by_side(named, "inev"), "isolated")
    plan = best.plan
    if plan is not None and push_pull and tau == math.inf:  # the exact search (outermost)
        plan = with_exact_search(network, wl, plan, options)
    if plan is None:
        raise LatencyBoundUnmet(
            f"no plan meets the latency bound tau = {tau:.6g}: the lowest latency of the "
            f"candidates is {best.lowest:.6g} (the centralized plan's {central.latency:.6g}); "
            "raise the bound, or keep plans that meet it only on estimates "
            f"({option('strict_latency=False', flag='estimated_latency')})"
        )
    notes = list(best.rejected)
    if push_pull:  # the outermost search reports what the budget left out
        notes += work.skipped
    if plan.kept not in ("inev", "exact"):  # the exact search's plan carries its own note
        notes.append(f"kept the {plan.kept} plan: the cheapest candidate (psi {plan.psi:.6g})")
    if plan.psi >= central.psi * (1 - 1e-9) and push_pull:  # why: the centralized plan's costs
        notes += dominance_lines(dominance(network, wl, central))
    return SearchResult(replace(plan, notes=(*notes, *plan.notes)), best_design, space.pool)


def _push_pull(network: Network, wl: Workload, central: Plan, options: PlanOptions) -> Plan | None:
    """The push-pull plan where it may beat the centralized one (its floor below the
    centralized ψ), else None: what :func:`_chosen` would offer, made before the search."""
    if push_pull_floor(network, wl) >= central.psi:
        return None
    return push_pull_plan(network, wl, central, options.xi)


def _singles(
    network: Network,
    wl: Workload,
    tau: float,
    options: PlanOptions,
    work: Work,
    size: int,
    memo: ChoiceMemo | None = None,
) -> list[SearchResult]:
    """Each query planned alone (for the isolated candidate and the merged start), or none
    when the work left cannot pay for their first designs (each about ``size`` / queries
    vertices, six designs a query) or the deadline passes on the way."""
    need = 6 * size
    if work.left < need:
        work.skipped.append(
            "isolated candidate skipped: planning every query alone would exceed the search's"
            " work budget (a higher effort includes it)"
        )
        return []
    work.spend(need, 1)
    parts = []
    for i, q in enumerate(wl.queries):
        if work.out_of_time():
            work.skipped.append("isolated candidate skipped: time budget spent")
            return []
        progress.stage(f"query {q.name} alone ({i + 1}/{len(wl.queries)})", 0)
        try:
            parts.append(_single(network, wl, q, tau, options, work, memo))
        except LatencyBoundUnmet:  # alone at its own best node it is slower than tau
            work.skipped.append(
                f"isolated candidate skipped: no plan of query {q.name} alone meets the "
                "latency bound"
            )
            return []
    return parts


def _merge(parts: list[SearchResult], space: Space) -> Design | None:
    """The queries' own designs side by side in one combination (shared where keys agree).

    A part's projection is matched to the workload's by key and predicates (another query's
    projection may hold the plain key, this one then has ``"<key> @<query>"``); None when a
    part uses a projection the workload's Alg. 1 runs never evaluated.
    """
    if not parts:
        return None
    choices: dict[str, Choice] = {}
    sinks: dict[str, str] = {}
    for part in parts:
        (query,) = part.design.sinks
        rename: dict[str, str] = {}
        for key in part.design.reached():
            own = part.pool[key]
            for candidate in (key, f"{key} @{query}"):
                known = space.pool.get(candidate)
                if known is not None and known.predicates == own.predicates:
                    rename[key] = candidate
                    break
            else:
                return None
        for key, new in rename.items():
            ch = part.design.choices[key]
            inputs = tuple(rename[i] for i in ch.inputs)
            choices.setdefault(new, replace(ch, key=new, inputs=inputs))
        sinks.update({q: rename[k] for q, k in part.design.sinks.items()})
    for key, found in space.options.items():
        choices.setdefault(key, found[0])
    return Design(choices, sinks)


def _single(
    network: Network,
    wl: Workload,
    query: Query,
    tau: float,
    options: PlanOptions,
    work: Work | None = None,
    memo: ChoiceMemo | None = None,
) -> SearchResult:
    """The INEv plan of one query alone (its own centralized node; no push-pull plan: the
    sharing-agnostic plan of §7.2 is INEv per query); ``memo``: the enclosing search's Alg. 1
    options."""
    alone = Workload.build(wl.window, [query], wl.slide, wl.selectivity_seed)
    central = centralized_plan(network, alone, options.xi)
    return search(network, alone, central, tau, options, push_pull=False, work=work, memo=memo)


def isolated_plan(network: Network, wl: Workload, tau: float, options: PlanOptions) -> Plan:
    """The sharing-agnostic plan: every query planned alone, side by side (§7.2, Fig. 10a)."""
    parts = [(q.name, _single(network, wl, q, tau, options).plan) for q in wl.queries]
    return side_by_side(parts)
