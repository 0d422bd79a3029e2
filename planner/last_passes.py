"""The outermost search's last passes, beyond the paper: regional placements, rate-ordered
chains, the *partition* moves and rate kicks (issue 32).

:func:`inev.planner.search.search` runs them (:func:`beyond_the_paper`) after the paper's
designs and the local search from them, each from the best design so far; none raises ψ,
and a design whose plan cannot be written out never replaces one that can. Only the
outermost search runs them: the queries planned alone (the isolated candidate, the paper's
sharing-agnostic baseline) keep the paper's placements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from inev.planner import progress, regional
from inev.planner.alg1_combination import Choice
from inev.planner.exact import exact_steps
from inev.planner.improve import Budget, Design, Evaluator, improve
from inev.planner.inev_graph import Plan
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import Space, Work, paper_designs
from inev.planner.rate_chains import chain_design, chain_orders
from inev.planner.search_budget import WORK_CAP_FROM, evaluations, vertices
from inev.topologies.network import Network
from inev.workloads.workload import Workload

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


@dataclass(frozen=True)
class LastPasses:
    """What the outermost search's last passes (:func:`beyond_the_paper`) share: the
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
        size = vertices(design, self.space, self.network)
        wanted = evaluations(design, self.space, self.options, self.network)
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


def beyond_the_paper(last: LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
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


def _regional(last: LastPasses, design: Design, cost: float) -> tuple[Design, float]:
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
    size = vertices(design, last.space, network)
    wanted = regional.PLACED * len(types)
    placed = regional.PLACED if work.evaluations(wanted, size) >= wanted else 1
    searched = placed + 1  # and the searched sites (inev.planner.site_search)
    budget = Budget(math.ceil(last.options.effort * searched * len(types)), work.deadline)
    progress.stage("regional placements", budget.evaluations)
    found, value = regional.regionalise(network, last.evaluate, design, cost, types, budget,
                                        placed, effort=last.options.effort)  # fmt: skip
    if found is design:  # nothing cheaper, nor a plan that can be written out where it cannot
        return design, cost
    better, lower = last.improve(found, "local search from the regional placements")
    result = (better, lower) if last.keeps(better, found) else (found, value)
    # where the searched sites won the pass, the local search also runs from the ladder's
    # best design (the pass without them; its designs are placed already): from the searched
    # one it ended 2.7 % higher on bench_plan_quality's #177
    again = Budget(budget.evaluations, work.deadline)
    plain, plain_value = regional.regionalise(network, last.evaluate, design, cost, types,
                                              again, placed, searched=False,
                                              effort=last.options.effort)  # fmt: skip
    if plain is design or plain.signature() == found.signature():
        return result
    other, other_value = last.improve(plain, "local search from the ladder's regions")
    if not last.keeps(other, plain):
        other, other_value = plain, plain_value
    if other_value < result[1] * (1 - 1e-9) and last.keeps(other, result[0]):
        return other, other_value
    return result


def _repartition(last: LastPasses, design: Design, cost: float) -> tuple[Design, float]:
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


def _chains(last: LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
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
    size = vertices(design, space, network)
    if orders and (work.out_of_time() or work.evaluations(len(orders), size) < len(orders)):
        work.skipped.append(
            "rate-ordered chains skipped: the search's budget was spent (a higher effort or "
            "time budget includes them)"
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
        size = vertices(seed, space, network)
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


def _kicks(last: LastPasses, found: tuple[Design, float]) -> tuple[Design, float]:
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
        size = vertices(design, last.space, network)
        late = work.out_of_time()
        if late or work.evaluations(KICK_STARTS, size) < KICK_STARTS:
            why = "time budget" if late else "work budget"
            work.skipped.append(
                f"{len(kicks) - i} of {len(kicks)} rate kicks ({len(types)} event types, each "
                f"up and down) skipped: the search's {why} was spent (a higher effort or time "
                "budget includes them)"
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


def _kicked_design(last: LastPasses, kicked: Network) -> Design | None:
    """The design Alg. 1 and the local search reach on the ``kicked`` network, in the
    search's projections (None when it uses one that the true-rate runs never evaluated).
    Its Alg. 1 runs share the search's memo of placement options (exact keys: a projection
    without the kicked type is priced as under the true rates, :mod:`~inev.planner.choice_memo`)."""
    other = Space(memo=last.space.memo)
    options, work = last.options, last.work
    starts = paper_designs(kicked, last.wl, last.tau, options, last.central.centralized_node,
                            other)  # fmt: skip
    judge = Evaluator(kicked, other.pool)
    scored = sorted((judge(d), i, judge.variant(d)) for i, d in enumerate(starts))
    start = scored[0][2]
    size = vertices(start, other, kicked)
    wanted = max(1, int(KICK_SHARE * evaluations(start, other, options, kicked)))
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
