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
3. **Last passes** (beyond the paper, :func:`_beyond_the_paper`): regional placements, the
   *partition* moves on small networks and the *rate kicks* (:func:`_kicks`: the workload
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
from inev.planner import progress, regional
from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import PlanTooLarge, place
from inev.planner.assemble import build_plan, explain_lines
from inev.planner.baselines import (
    centralized_plan,
    push_pull_floor,
    push_pull_plan,
)
from inev.planner.dominant_pairs import dominance, dominance_lines
from inev.planner.exact import exact_steps, with_exact_search
from inev.planner.improve import Budget, Design, Evaluator, improve
from inev.planner.inev_graph import Plan
from inev.planner.isolated import side_by_side
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import (
    Space,
    Work,
    canonical_key,
    paper_designs,
)
from inev.planner.projections import Projection
from inev.planner.rate_chains import chain_design, chain_orders
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload

PIN_TRIAL_VERTICES = 5000
"""Above this many vertices the pinned placements are not tried (they triple Alg. 2's time)."""
EVALUATIONS = 60
"""Designs the local search may place at effort 1, plus :data:`PER_PROJECTION` per composite
projection of the starting design (a count, not seconds, so that plans are reproducible)."""
PER_PROJECTION = 12
WORK = 400_000
"""At effort 1 one local search places at most this many vertices in all (evaluations times
the vertices of a plan), so that searches on large networks stay bounded."""
WORK_TOTAL = 200_000
"""At effort 1 the whole search (every local search, and the queries planned alone for the
isolated candidate) on a network of more than :data:`WORK_CAP_FROM` nodes places at most this
many vertices beyond the paper's designs (about 80 µs each on 10,000 nodes), so that time
grows with the network, not faster: on 10,000 nodes at node ratio 0.05 (18,000 vertices a
plan) that is some fifteen placed designs. Smaller networks keep the search of issue 13 (each
local search bounded by :data:`WORK` alone), whose plan quality is measured."""
WORK_CAP_FROM = 100
"""Networks above this many nodes get the whole-search budget :data:`WORK_TOTAL`."""
KICK_FACTORS = (10.0, 0.1)
"""A rate kick multiplies one event type's rate by one of these, up and then down
(:func:`_kicks`)."""
KICK_SHARE = 0.5
"""The local search under kicked rates gets this share of a local search's budget."""
KICK_STARTS = 6
"""Placed designs charged to the work budget for a kick's Alg. 1 runs (two query orders,
each with two pinned variants)."""
REPARTITION_NODES = 16
"""The outermost search ends with the *partition* moves (:func:`_repartition`) on networks
up to this many nodes, or at effort 2 and above: their placements need Steiner trees over
new source sets, which on 20 nodes made the search half again as slow. Like the regional
pass it is beyond the paper: ``PlanOptions(regional=False)`` leaves both out."""


def _realise(
    network: Network, space: Space, design: Design, options: PlanOptions, method: str = "inev"
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
) -> SearchResult:
    """:func:`inev_plan` with the winning design (for isolated plans placed jointly);
    ``push_pull`` False leaves the push-pull plan out of the candidates; ``work`` is the
    budget shared with an enclosing search (a new one of :data:`WORK_TOTAL` by default)."""
    start = time.perf_counter()
    if work is None:
        deadline = start + options.time_budget if options.time_budget else math.inf
        total = WORK_TOTAL * options.effort if len(network.nodes) > WORK_CAP_FROM else math.inf
        work = Work(total, deadline)
    deadline = work.deadline
    if options.effort > 0:
        wl = replace(
            wl, queries=tuple(sorted(wl.queries, key=lambda q: (canonical_key(q, network), q.name)))
        )
    # under a time budget the push-pull baseline, which the search does not change, is made
    # first, so that the budget bounds the whole plan and not the search alone
    timed = push_pull and options.time_budget is not None and options.effort > 0
    ppop = _push_pull(network, wl, central, options) if timed else None
    space = Space()
    designs = paper_designs(network, wl, tau, options, central.centralized_node, space, deadline)
    evaluate = Evaluator(network, space.pool)
    progress.stage("placing Alg. 1's designs (Alg. 2)", len(designs))
    scored = [(evaluate(d), i, evaluate.variant(d)) for i, d in enumerate(designs)]
    scored.sort(key=lambda t: (t[0], t[1]))
    best_cost, _, best_design = scored[0]
    parts: list[SearchResult] = []
    if options.effort > 0:
        size = _vertices(best_design, space, network)
        wanted = _evaluations(best_design, space, options, network)
        budget = Budget(work.evaluations(wanted, size), deadline)
        progress.stage("local search", budget.evaluations)
        best_design, best_cost = improve(evaluate, space.options, best_design, budget)
        work.spend(budget.used, size)
        if len(wl.queries) > 1:
            parts = _singles(network, wl, tau, options, work, size)
        merged = _merge(parts, space) if parts else None
        if merged is not None:
            size = _vertices(merged, space, network)
            wanted = _evaluations(merged, space, options, network)
            second = Budget(work.evaluations(wanted, size), deadline)
            progress.stage("local search from the queries' own plans", second.evaluations)
            cand, value = improve(evaluate, space.options, merged, second)
            work.spend(second.used, size)
            if value < best_cost:
                best_design, best_cost = cand, value
        if push_pull:  # the outermost search: not the queries alone
            last = _LastPasses(network, wl, tau, central, evaluate, space, options, work)
            best_design, best_cost = _beyond_the_paper(last, (best_design, best_cost))
    best = _Best(tau, options.strict_latency)
    progress.stage("writing out the best plan and the baselines", 0)
    return _chosen(network, wl, central, best, (space, best_design, best_cost), parts, push_pull,
                   options, work, ppop)  # fmt: skip


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
            "(--estimated-latency)"
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


@dataclass(frozen=True)
class _LastPasses:
    """What the outermost search's last passes (:func:`_beyond_the_paper`) share: the
    instance, the search's projections and evaluator, its options and its work budget."""

    network: Network
    wl: Workload
    tau: float
    central: Plan
    evaluate: Evaluator
    space: Space
    options: PlanOptions
    work: Work

    def budget(self, design: Design) -> tuple[Budget, int]:
        """A local search's budget from ``design`` (and the vertices it places, to charge)."""
        size = _vertices(design, self.space, self.network)
        wanted = _evaluations(design, self.space, self.options, self.network)
        return Budget(self.work.evaluations(wanted, size), self.work.deadline), size

    def improve(self, design: Design, stage: str = "") -> tuple[Design, float]:
        """The local search from ``design`` under the true rates, charged to the budget
        (``stage``, if given, names it on the progress bar)."""
        budget, size = self.budget(design)
        if stage:
            progress.stage(stage, budget.evaluations)
        found = improve(self.evaluate, self.space.options, design, budget)
        self.work.spend(budget.used, size)
        return found

    def keeps(self, found: Design, design: Design) -> bool:
        """Whether a cheaper ``found`` may replace ``design``: unless its plan cannot be
        written out where ``design``'s can (it would fall back to the centralized plan)."""
        pool = self.space.pool
        return regional.written_out(self.network, found, pool) or not regional.written_out(
            self.network, design, pool
        )


def _beyond_the_paper(last: _LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
    """The outermost search's last passes, each from the best design so far and never
    raising its ψ: regional placements, the *partition* moves on small networks, rate kicks."""
    design, cost = found
    options = last.options
    if options.regional:
        design, cost = _regional(last, design, cost)
    if _chains_pay(last.network, last.tau, options):
        design, cost = _chains(last, (design, cost))
    small = len(last.network.nodes) <= REPARTITION_NODES or options.effort >= 2
    if options.regional and small:
        design, cost = _repartition(last, design, cost)
    if _kicks_pay(last.network, last.wl, last.tau, options):
        design, cost = _kicks(last, (design, cost))
    return design, cost


def _regional(last: _LastPasses, design: Design, cost: float) -> tuple[Design, float]:
    """Beyond the paper: regional placements (:func:`inev.planner.regional.regionalise`)
    of the heaviest types and of the types partitioning multi-node projections at more
    sources than a regional one may have sites, after the search above; then the local
    search from the result with the work left. The pass has its own budget (one or two
    placed designs per type, within the deadline), so the search before it is unchanged and
    the result is never costlier than the search's, except that a design that can be written
    out replaces one that cannot (whose plan would leave the centralized one). Only the outermost search runs it: the
    queries planned alone (the isolated candidate, the paper's sharing-agnostic baseline)
    keep the paper's placements."""
    network, work = last.network, last.work
    types = regional.types_to_try(network, design, last.central)
    size = _vertices(design, last.space, network)
    wanted = regional.PLACED * len(types)
    placed = regional.PLACED if work.evaluations(wanted, size) >= wanted else 1
    budget = Budget(math.ceil(last.options.effort * placed * len(types)), work.deadline)
    progress.stage("regional placements", budget.evaluations)
    found, value = regional.regionalise(network, last.evaluate, design, cost, types, budget,
                                        placed)  # fmt: skip
    if found is design:  # nothing cheaper, nor a plan that can be written out where it cannot
        return design, cost
    better, lower = last.improve(found, "local search from the regional placements")
    return (better, lower) if last.keeps(better, found) else (found, value)


def _repartition(last: _LastPasses, design: Design, cost: float) -> tuple[Design, float]:
    """The local search once more from the best design with the *partition* moves
    (:mod:`inev.planner.improve`), which Eq. 1 hides from Alg. 1, then with the others from
    what they reach; last, so every pass before it is unchanged and the result never costs
    more than the design it starts from. As in :func:`_regional`, a design whose plan cannot
    be written out never replaces one that can."""
    budget, size = last.budget(design)  # one budget for both searches
    progress.stage("local search with re-partitioning", budget.evaluations)
    options = last.space.options
    found, value = improve(last.evaluate, options, design, budget, repartition=True)
    if value < cost:  # the other moves again from there
        found, value = improve(last.evaluate, options, found, budget)
    last.work.spend(budget.used, size)
    return (found, value) if value < cost and last.keeps(found, design) else (design, cost)


def _chains(last: _LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
    """Beyond the paper: the search from the cheapest *rate-ordered chain design*
    (:mod:`inev.planner.rate_chains`; issue 32), kept where it lowers ψ.

    Every chain order is placed (one design each, two per event type at most), and the
    local search runs from the cheapest; what it reaches replaces ``found`` if it costs less
    and can be written out (as in :func:`_regional`). The chains' new projections join the
    search's pool, so the passes after this one may keep them. On bench_plan_quality's #115
    neither the local search nor any rate kick left inev below the INEv authors'
    combination (ψ 274.88 against 265.87 in inev's model): the chains gather B, C, D and F
    and partition by A, then E, for all ten queries at once: 221.89.

    Variants measured on bench_plan_quality's 200 instances (prototypes, against this pass):
    the chains before the regional pass instead of after it lowered ψ on 3 and raised it on
    3 (once by 29 %); a local search from each of the two cheapest chain designs lowered it
    on one, by 0.1 %, for 7 % more time. ``python benchmarks/bench_plan_quality.py
    --chain-gain``: ψ lower on 13 of 200 (best 0.622, geometric mean 0.993), never higher,
    planning 1.09 times as long in all (median +0.28 s per instance).
    """
    design, cost = found
    network, space, work = last.network, last.space, last.work
    orders = chain_orders(network, last.wl)
    size = _vertices(design, space, network)
    if orders and (work.out_of_time() or work.evaluations(len(orders), size) < len(orders)):
        work.skipped.append(
            "rate-ordered chains skipped: the search's budget was spent (raise --effort or "
            "--time-budget to include them)"
        )
        return design, cost
    seeds: dict[tuple, Design] = {}
    for order in orders:
        seed, new = chain_design(network, last.wl, order, space.pool, design)
        for key, p in new.items():
            space.pool.setdefault(key, p)
        seeds.setdefault(seed.signature(), seed)
    if not seeds:
        return design, cost
    progress.stage("rate-ordered chains", len(seeds))
    scored = []
    for i, seed in enumerate(seeds.values()):
        size = _vertices(seed, space, network)
        scored.append((last.evaluate(seed), i, seed))
        work.spend(1, size)
    _, _, start = min(scored, key=lambda t: t[:2])
    cand, value = last.improve(last.evaluate.variant(start), "local search from the chains")
    if value < cost * (1 - 1e-9) and last.keeps(cand, design):
        return cand, value
    return design, cost


def _chains_pay(network: Network, tau: float, options: PlanOptions) -> bool:
    """Whether the search tries the rate-ordered chains: as the rate kicks
    (:func:`_kicks_pay`), without a latency bound on networks of up to
    :data:`WORK_CAP_FROM` nodes (any size at effort 2 and above), but also where the exact
    search ends the search (a cheaper start for its bound)."""
    return options.chains and _whole_design_passes_pay(network, tau, options)


def _whole_design_passes_pay(network: Network, tau: float, options: PlanOptions) -> bool:
    """The condition the chains and the kicks share: no latency bound (a design is judged
    by ψ alone), and at most :data:`WORK_CAP_FROM` nodes unless the effort is 2 or more."""
    if tau != math.inf:
        return False
    return len(network.nodes) <= WORK_CAP_FROM or options.effort >= 2


def _kicks(last: _LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
    """Beyond the paper: iterated local search with *rate kicks* (issue 32).

    The local search changes one projection at a time and keeps only what lowers ψ, so a
    design that differs in several projections, each change alone uphill, stays out of
    reach. A kick multiplies one event type's rate by a factor of :data:`KICK_FACTORS`; Alg. 1
    and the local search (with :data:`KICK_SHARE` of its budget) then plan the workload on
    that network, which re-orders whole chains at once (the type's events become worth
    partitioning by, or worth avoiding). The design they reach is searched from again under
    the true rates and kept if it is cheaper (and can be written out, as in
    :func:`_regional`). On bench_plan_quality's #35 the search stopped at ψ 384.69, above the
    INEv authors' combination (367.75 in inev's model); the kick of A's rate re-orders q1's
    chain (its sink partitioned by D, four projections new) and q2's with it: 352.12. On #184
    only a kick *down* reaches the authors' chain order (F's rate / 10: q2's chain starts
    with C instead of D). Each type is kicked up and then down, the most frequent type
    first, from the same best design, as long as the work and time budgets last; a type no
    query reads is not kicked (its rate changes nothing), and a kicked design already
    searched from is not searched again. ``PlanOptions(kicks=False)`` leaves the pass out.

    Measured on bench_plan_quality's 200 instances (20-50 nodes; prototypes of the variants
    planning all 200 each, ψ against the up-only pass): up (×10) only lowered ψ against no
    kicks on 41 (geometric mean 0.9905, 5.8 times the planning time in all); down (×0.1)
    only was lower than up only on 18 and higher on 25; up and down at full budget lower on
    18, higher on none (geometric mean 0.9962, 2.2 times up only's time); up and down with
    half the kicked search's budget, the choice, lower on 17 and higher on one by 0.1 %
    (0.9966, 1.8 times); down for the frequent half of the types and up for the rest was
    worse than up only. Kicking only the three most frequent types up found 25 of the 41.
    With the choice, ``python benchmarks/bench_plan_quality.py --kick-gain`` (each instance
    also planned without kicks): ψ lower on 52 of 200 (geometric mean 0.9872, best 0.769),
    never higher; planning 9.5 times as long in all, median +1.9 s per instance. With the
    rate-ordered chains (:func:`_chains`) before them: lower on 39 (geometric mean 0.993),
    never higher, 8.0 times as long.
    """
    design, cost = found
    network, work = last.network, last.work
    used = {q.streams.get(leaf, leaf) for q in last.wl.queries for leaf in q.types}
    glob = network.global_rates()
    types = sorted((t for t in network.types if t in used), key=lambda t: (-glob[t], t))
    kicks = [(t, f) for t in types for f in KICK_FACTORS]
    seen = {design.signature()}  # starts searched from already (the same search again)
    for i, (t, factor) in enumerate(kicks):
        size = _vertices(design, last.space, network)
        late = work.out_of_time()
        if late or work.evaluations(KICK_STARTS, size) < KICK_STARTS:
            why = "time budget" if late else "work budget"
            work.skipped.append(
                f"{len(kicks) - i} of {len(kicks)} rate kicks ({len(types)} event types, each "
                f"up and down) skipped: the search's {why} was spent (raise --effort or "
                f"--time-budget to include them)"
            )
            break
        rate = network.rate(t) * factor
        if not 0 < rate < math.inf:  # a rate near the float limits: nothing to kick
            continue
        progress.stage(f"rate kick {i + 1}/{len(kicks)}: {t} x{factor:g}", 0)
        work.spend(KICK_STARTS, size)
        moved = _kicked_design(last, network.with_rates({t: rate}))
        signature = None if moved is None else moved.signature()
        if moved is None or signature in seen:
            continue
        seen.add(signature)
        cand, value = last.improve(moved)
        if value < cost * (1 - 1e-9) and last.keeps(cand, design):
            design, cost = cand, value
    return design, cost


def _kicks_pay(network: Network, wl: Workload, tau: float, options: PlanOptions) -> bool:
    """Whether the search ends with rate kicks: without a latency bound (a kick's design is
    judged by ψ alone, and a bound is checked only on the plan the search returns, so a
    cheaper design that breaks it would cost the plan), on networks of up to
    :data:`WORK_CAP_FROM` nodes (any size at effort 2 and above), and not where the exact
    search ends the search instead (within :mod:`inev.planner.exact`'s limits: it reaches
    designs at any distance and left inev within 2 % of the optimum on bench_optimality's
    201 solved instances, where kicks would multiply the planning time)."""
    if not options.kicks or not _whole_design_passes_pay(network, tau, options):
        return False
    return exact_steps(network, wl, options) == 0


def _kicked_design(last: _LastPasses, kicked: Network) -> Design | None:
    """The design Alg. 1 and the local search reach on the ``kicked`` network, in the
    search's projections (None when it uses one that the true-rate runs never evaluated)."""
    other = Space()
    options, work = last.options, last.work
    starts = paper_designs(kicked, last.wl, last.tau, options, last.central.centralized_node,
                            other)  # fmt: skip
    judge = Evaluator(kicked, other.pool)
    scored = sorted((judge(d), i, judge.variant(d)) for i, d in enumerate(starts))
    start = scored[0][2]
    size = _vertices(start, other, kicked)
    wanted = max(1, int(KICK_SHARE * _evaluations(start, other, options, kicked)))
    budget = Budget(work.evaluations(wanted, size), work.deadline)
    start, _ = improve(judge, other.options, start, budget)
    work.spend(budget.used, size)
    return _translate(start, other, last.space)


def _translate(design: Design, other: Space, space: Space) -> Design | None:
    """``design`` of ``other`` (the same workload under other rates) in ``space``'s
    projections: a key means the same pattern and predicates in both (as in :func:`_merge`);
    a choice Alg. 1 never made under the true rates has no estimate (``cost`` NaN)."""
    choices: dict[str, Choice] = {k: found[0] for k, found in space.options.items()}
    choices.update({k: Choice(k, (), None, {}, 0.0) for k, p in space.pool.items()
                    if p.is_primitive})  # fmt: skip
    for key in design.reached():
        known = space.pool.get(key)
        if known is None or known.predicates != other.pool[key].predicates:
            return None
        ch = design.choices[key]
        same = [c for c in space.options.get(key, ()) if (c.inputs, c.partition) ==
                (ch.inputs, ch.partition)]  # fmt: skip
        choices[key] = same[0] if same else replace(ch, items={}, cost=math.nan, eq1=None)
    return Design(choices, dict(design.sinks), dict(design.pinned), design.keep_matches)


def _vertices(design: Design, space: Space, network: Network) -> int:
    """The number of vertices Alg. 2 places for ``design``."""
    reached = design.reached()
    combination = design.combination(space.pool)
    vertices = sum(len(network.sources(k)) for k in reached if space.pool[k].is_primitive)
    vertices += sum(
        combination.regional[k].count
        if k in combination.regional
        else len(network.sources(combination.multi_node[k]))
        if k in combination.multi_node
        else 1
        for k in reached
        if not space.pool[k].is_primitive
    )
    return vertices


def _evaluations(design: Design, space: Space, options: PlanOptions, network: Network) -> int:
    """The search's budget: a count of placed designs, smaller for larger plans."""
    composite = sum(1 for k in design.reached() if not space.pool[k].is_primitive)
    vertices = _vertices(design, space, network)
    count = min(EVALUATIONS + PER_PROJECTION * composite, WORK // max(vertices, 1))
    return int(options.effort * max(count, 10))


def _singles(
    network: Network, wl: Workload, tau: float, options: PlanOptions, work: Work, size: int
) -> list[SearchResult]:
    """Each query planned alone (for the isolated candidate and the merged start), or none
    when the work left cannot pay for their first designs (each about ``size`` / queries
    vertices, six designs a query) or the deadline passes on the way."""
    need = 6 * size
    if work.left < need:
        work.skipped.append(
            "isolated candidate skipped: planning every query alone would exceed the search's"
            " work budget (raise --effort to include it)"
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
            parts.append(_single(network, wl, q, tau, options, work))
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
) -> SearchResult:
    """The INEv plan of one query alone (its own centralized node; no push-pull plan: the
    sharing-agnostic plan of §7.2 is INEv per query)."""
    alone = Workload.build(wl.window, [query], wl.slide, wl.selectivity_seed)
    central = centralized_plan(network, alone, options.xi)
    return search(network, alone, central, tau, options, push_pull=False, work=work)


def isolated_plan(network: Network, wl: Workload, tau: float, options: PlanOptions) -> Plan:
    """The sharing-agnostic plan: every query planned alone, side by side (§7.2, Fig. 10a)."""
    parts = [(q.name, _single(network, wl, q, tau, options).plan) for q in wl.queries]
    return side_by_side(parts)
