"""The engine's re-optimisation loop (adaptive-CEP paper Algorithm 1, papers 000/001).

Per branch: a first plan from the initial statistics, sampling of the monitored pairwise
predicates, a check of the decision function (:mod:`.invariants`) every ``check_every``
items and, on a violation, a new plan deployed from the next item on while the old one
finishes the partial matches it holds and retires one window later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inev.simulator.engine.branch import Branch, initial_stats, unit_stats
from inev.simulator.engine.evaluation_plans import Plan
from inev.simulator.engine.events import Event
from inev.simulator.engine.invariants import make_decision
from inev.simulator.engine.statistics import Stats

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
        adaptation.kind, adaptation.k, adaptation.distance, adaptation.threshold
    )
    branch.decision.reset(conditions, stats)
    branch.since_check = 0


def sample(engine: Engine, event: Event, typ: str, t: float) -> None:
    """Sample the monitored predicates on ``event`` (every ``sample_every``-th of a type)
    against the latest event of the other type of each pair."""
    last_event = engine.last_event
    for branch in engine.branches:
        for (a, b), check in branch.monitored:
            if typ == a:
                other = last_event.get(b)
                if other is not None:
                    branch.statistics.sample((a, b), t, bool(check(event, other)))
            elif typ == b:
                other = last_event.get(a)
                if other is not None:
                    branch.statistics.sample((a, b), t, bool(check(other, event)))


def current_stats(engine: Engine, branch: Branch) -> Stats:
    """The branch's statistics at ``engine.now``, at unit level."""
    rates = branch.statistics.rates(engine.now)
    declared = {(a, b): s for a, b, s in branch.c.pairs}
    sel = {p: branch.statistics.selectivity(p, declared.get(p, 1.0)) for p, _ in branch.monitored}
    return unit_stats(branch, rates, sel)


def observe(engine: Engine, branch: Branch, unit: int, t: float) -> None:
    """Count an item of ``unit`` arriving at ``t`` in the branch's statistics; check the
    decision function every ``check_every`` items."""
    branch.statistics.arrival(unit, t)
    branch.since_check += 1
    if branch.since_check >= engine.adaptation.check_every:
        branch.since_check = 0
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
