"""The engine's re-optimisation loop (adaptive-CEP paper Algorithm 1, papers 000/001).

Per branch: a first plan from the initial statistics, sampling of the monitored pairwise
predicates, a check of the decision function (:mod:`.invariants`) every ``check_every``
items of the engine (every branch at once) and, on a violation, a new plan deployed from
the next item on while the old one finishes the partial matches it holds and retires one
window later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inev.simulator.engine.branch import Branch, initial_stats, unit_stats
from inev.simulator.engine.evaluation_plans import Plan
from inev.simulator.engine.events import Event
from inev.simulator.engine.invariants import make_decision
from inev.simulator.engine.statistics import (
    Stats,
    pass_rate_variance,
    rate_variance,
    unit_variances,
)

if TYPE_CHECKING:
    from inev.simulator.engine.engine import Engine

INF = float("inf")


def start_plan(engine: Engine, branch: Branch, explicit: Plan | None) -> None:
    """A branch's first plan (``explicit``, or generated from the initial statistics), its
    runner and its re-optimisation decision."""
    stats = initial_stats(branch, engine.initial_rates, engine.estimated)
    plan_now, conditions = branch.generate(stats)
    if explicit is not None:
        plan_now = explicit
    branch.plan = plan_now
    branch.runners = [branch.runner(plan_now, 0)]
    adaptation = engine.adaptation
    branch.decision = make_decision(
        adaptation.kind,
        adaptation.k,
        adaptation.distance,
        adaptation.threshold,
        adaptation.selection,
    )
    branch.decision.reset(conditions, stats)


def sample_routes(
    engine: Engine,
) -> dict[str, list[tuple[list[int], list[int], int, str, Any, bool]]]:
    """For each event type, the sampled predicates it takes part in: the pass counters of the
    branch's statistics, the pair's index, the other type, the check and whether the type is
    the check's first argument (built once, so that :func:`tick`'s sampling only looks up)."""
    out: dict[str, list[tuple[list[int], list[int], int, str, Any, bool]]] = {}
    for branch in engine.branches:
        statistics = branch.statistics
        for (a, b), check in branch.monitored:
            i = statistics.pair_index((a, b))
            out.setdefault(a, []).append((statistics.sampled, statistics.passed, i, b, check, True))
            out.setdefault(b, []).append(
                (statistics.sampled, statistics.passed, i, a, check, False)
            )
    return out


def current_stats(engine: Engine, branch: Branch) -> Stats:
    """The branch's statistics at ``engine.now``, at unit level, with the relative variance
    of every value (:mod:`.statistics`)."""
    statistics = branch.statistics
    rates = statistics.rates(engine.now)
    declared = {(a, b): s for a, b, s in branch.c.pairs}
    sel = {}
    sel_var = {}
    for p, _ in branch.monitored:
        m, k = statistics.samples_since(p)
        sel[p] = declared.get(p, 1.0) if m <= 0 else k / m
        sel_var[p] = pass_rate_variance(m, k)
    stats = unit_stats(branch, rates, sel)
    rate_var = [rate_variance(n) for n in statistics.arrivals_since()]
    types = [u.types for u in branch.units]
    return Stats(stats.rates, stats.sel, unit_variances(types, rate_var, sel_var))


def tick(engine: Engine, item: Any, t: float) -> None:
    """The adaptation's work every ``sample_every`` items of the engine (one comparison per
    item in the engine's path): sample the predicates on an event, and check every branch's
    decision function once ``check_every`` items have passed since the last check."""
    adaptation = engine.adaptation
    engine.next_tick = engine.seq + adaptation.sample_every
    if type(item) is Event:
        # the monitored predicates sampled against the latest sampled event of each pair's
        # other type (hash predicates pair any two events alike, so the latest sampled one
        # serves as well as the latest); inline: a call per sample was a fifth of its cost
        typ = item[1]
        last_event = engine.last_event
        last_event[typ] = item
        for sampled, passed, i, other_type, test, first in engine.sample_routes.get(typ, ()):
            other = last_event.get(other_type)
            if other is not None:
                sampled[i] += 1
                if test(item, other) if first else test(other, item):
                    passed[i] += 1
    if engine.seq >= engine.next_check:
        engine.next_check = engine.seq + adaptation.check_every
        for branch in engine.branches:
            check(engine, branch)


def check(engine: Engine, branch: Branch) -> None:
    """Ask the branch's decision function; on a violation, generate a plan and deploy it
    when it differs from the current one."""
    counters = engine.counters
    counters["checks"] += 1
    stats = current_stats(engine, branch)
    if not branch.decision(stats):
        return
    counters["violations"] += 1
    counters["reoptimizations"] += 1
    new_plan, conditions = branch.generate(stats)
    branch.decision.reset(conditions, stats)
    if new_plan.tree != branch.plan.tree:
        replace_plan(engine, branch, new_plan)


def replace_plan(engine: Engine, branch: Branch, new_plan: Plan) -> None:
    """Deploy ``new_plan`` from the engine's next item on; the old plan retires after one
    window."""
    engine.counters["plan_changes"] += 1
    start = engine.seq + 1
    for r in branch.runners:
        if r.end_seq == INF:
            r.end_seq = start
            r.retire_after = engine.now + engine.window
    branch.runners.append(branch.runner(new_plan, start))
    branch.plan = new_plan
