"""The engine's re-optimisation loop (adaptive-CEP paper Algorithm 1, papers 000/001).

Per branch: a first plan from the initial statistics, sampling of the monitored pairwise
predicates, a check of the decision function (:mod:`.invariants`) every ``check_every``
items of the engine (every branch at once) and, on a violation, a new plan deployed from
the next item on while the old one finishes the partial matches it holds and retires one
window later.

A :class:`Reoptimizer` holds that loop's state (the latest sampled event per type, the
sampling routes, the next check) beside its engine, as OpenCEP's evaluation mechanism holds
its optimizer and statistics collector: the engine tells it the item, its sequence number
and time (:meth:`Reoptimizer.tick`), and the reoptimizer changes only the branches' plans.

>>> from inev.simulator.engine.engine import Adaptation, Engine
>>> from inev.simulator.engine.events import make_event
>>> always = Adaptation("always", check_every=2, sample_every=2)
>>> engine = Engine("SEQ(A, B)", window=5.0, adaptation=always)
>>> for i in range(4):  # ticks at items 2 and 4, each a check (every 2 items)
...     _ = engine.push(make_event(float(i), "AB"[i % 2], 0, i))
>>> engine.counters["checks"], engine.reoptimizer.next_check
(2, 6)
"""

from __future__ import annotations

from typing import Any

from inev.simulator.engine.branch import Branch, initial_stats
from inev.simulator.engine.engine_options import EngineSettings, invariant_k
from inev.simulator.engine.evaluation_plans import Plan
from inev.simulator.engine.events import Event
from inev.simulator.engine.invariants import make_decision
from inev.simulator.engine.statistics import (
    Stats,
    pass_rate_variance,
    rate_variance,
)

INF = float("inf")


class StatsLayout:
    """Where a branch's monitored pairs sit, computed once for :meth:`Reoptimizer.current_stats`:
    ``n`` units and, per monitored pair in the branch's order, its counter index in the
    statistics, its declared selectivity (1 if none) and the two units it is charged to
    (``j = -1`` when both types are in one unit, whose own plan applies it)."""

    def __init__(self, branch: Branch) -> None:
        statistics = branch.statistics
        declared = {(a, b): s for a, b, s in branch.c.pairs}
        owner = {t: i for i, u in enumerate(branch.units) for t in u.types}
        self.n = len(branch.units)
        self.pairs: list[tuple[int, float, int, int]] = []
        for p, _ in branch.monitored:
            i, j = owner.get(p[0]), owner.get(p[1])
            if i is None or j is None or i == j:
                i = j = -1
            self.pairs.append((statistics.pair_index(p), declared.get(p, 1.0), i, j))


class Reoptimizer:
    """The re-optimisation of an engine's ``branches`` (module doc): ``settings`` are the
    engine's, ``counters`` its counters (``checks``, ``violations``, ``reoptimizations``
    and ``plan_changes`` counted here)."""

    def __init__(
        self, settings: EngineSettings, branches: list[Branch], counters: dict[str, int]
    ) -> None:
        self.settings = settings
        self.adaptation = settings.adaptation
        self.branches = branches
        self.counters = counters
        self.last_event: dict[str, Event] = {}
        self.next_check = self.adaptation.check_every
        self.sample_routes: dict[str, list[tuple[list[int], list[int], int, str, Any, bool]]] = {}
        self.layouts: dict[int, StatsLayout] = {}

    def start(self, explicit: Plan | None) -> None:
        """Every branch's first plan (``explicit``, or generated from the initial
        statistics), its runner and its re-optimisation decision; then the sampling routes."""
        settings, adaptation = self.settings, self.adaptation
        for branch in self.branches:
            stats = initial_stats(branch, settings.initial_rates, settings.estimated)
            plan_now, conditions = branch.generate(stats)
            if explicit is not None:
                plan_now = explicit
            branch.plan = plan_now
            branch.runners = [branch.runner(plan_now, 0)]
            branch.decision = make_decision(
                adaptation.kind,
                invariant_k(adaptation.k, settings.plan_kind),
                adaptation.distance,
                adaptation.threshold,
                adaptation.selection,
            )
            branch.decision.reset(conditions, stats)
        self.sample_routes = self._sample_routes()

    def _sample_routes(self) -> dict[str, list[tuple[list[int], list[int], int, str, Any, bool]]]:
        """For each event type, the sampled predicates it takes part in: the pass counters
        of the branch's statistics, the pair's index, the other type, the check and whether
        the type is the check's first argument (built once, so that :meth:`tick`'s sampling
        only looks up)."""
        out: dict[str, list[tuple[list[int], list[int], int, str, Any, bool]]] = {}
        for branch in self.branches:
            statistics = branch.statistics
            for (a, b), check in branch.monitored:
                i = statistics.pair_index((a, b))
                out.setdefault(a, []).append(
                    (statistics.sampled, statistics.passed, i, b, check, True)
                )
                out.setdefault(b, []).append(
                    (statistics.sampled, statistics.passed, i, a, check, False)
                )
        return out

    def current_stats(self, branch: Branch, now: float) -> Stats:
        """The branch's statistics at ``now``, at unit level, with the relative variance of
        every value (:mod:`.statistics`).

        The same values, in the same order of floating-point operations, as
        :func:`.branch.unit_stats` with :func:`.statistics.unit_variances` over the monitored
        pairs' estimates, but from the branch's :class:`StatsLayout` (built once): a check
        then builds no dictionaries (it was 2.9 % of the instructions of the stocks-like
        stream under the invariant method, ``benchmarks/bench_invariant_paper.py``)."""
        layout = self.layouts.get(id(branch))
        if layout is None:
            layout = self.layouts[id(branch)] = StatsLayout(branch)
        statistics = branch.statistics
        rates = statistics.rates(now)
        ref = statistics.reference
        n = layout.n
        sel = [[1.0] * n for _ in range(n)]
        pair_var = [[0.0] * n for _ in range(n)]
        sampled, passed = statistics.sampled, statistics.passed
        ref_sampled = ref[2] if ref is not None else ()
        ref_passed = ref[3] if ref is not None else ()
        for index, declared, i, j in layout.pairs:
            m, k = sampled[index], passed[index]
            if index < len(ref_sampled):
                m -= ref_sampled[index]
                k -= ref_passed[index]
            if j < 0:
                continue
            value = declared if m <= 0 else k / m
            row_i, row_j = sel[i], sel[j]
            row_i[j] *= value
            row_j[i] *= value
            pair_var[i if i < j else j][j if i < j else i] += pass_rate_variance(m, k)
        old = (ref[1] if ref else ()) or (0,) * len(statistics.counts)
        rate_var = [rate_variance(c - o) for c, o in zip(statistics.counts, old, strict=False)]
        variance = tuple(rate_var) + tuple(
            pair_var[i][j] for i in range(n) for j in range(i + 1, n)
        )
        return Stats(tuple(rates), tuple(tuple(row) for row in sel), variance)

    def tick(self, item: Any, seq: int, now: float) -> int:
        """The adaptation's work every ``sample_every`` items of the engine (one comparison
        per item in the engine's path): sample the predicates on an event, and check every
        branch's decision function once ``check_every`` items have passed since the last
        check. ``seq`` and ``now`` are the engine's item number and time; returns the item
        number of the next tick."""
        adaptation = self.adaptation
        if type(item) is Event:
            # the monitored predicates sampled against the latest sampled event of each
            # pair's other type (hash predicates pair any two events alike, so the latest
            # sampled one serves as well as the latest); inline: a call per sample was a
            # fifth of its cost
            typ = item[1]
            last_event = self.last_event
            last_event[typ] = item
            for sampled, passed, i, other_type, test, first in self.sample_routes.get(typ, ()):
                other = last_event.get(other_type)
                if other is not None:
                    sampled[i] += 1
                    if test(item, other) if first else test(other, item):
                        passed[i] += 1
        if seq >= self.next_check:
            self.next_check = seq + adaptation.check_every
            for branch in self.branches:
                self.check(branch, seq, now)
        return seq + adaptation.sample_every

    def check(self, branch: Branch, seq: int, now: float) -> None:
        """Ask the branch's decision function; on a violation, generate a plan and deploy it
        when it differs from the current one."""
        counters = self.counters
        counters["checks"] += 1
        stats = self.current_stats(branch, now)
        if not branch.decision(stats):
            return
        counters["violations"] += 1
        counters["reoptimizations"] += 1
        new_plan, conditions = branch.generate(stats)
        branch.decision.reset(conditions, stats)
        if new_plan.tree != branch.plan.tree:
            self.replace_plan(branch, new_plan, seq, now)

    def replace_plan(self, branch: Branch, new_plan: Plan, seq: int, now: float) -> None:
        """Deploy ``new_plan`` from the item after ``seq`` on; the old plan retires one
        window after ``now``."""
        self.counters["plan_changes"] += 1
        start = seq + 1
        for r in branch.runners:
            if r.end_seq == INF:
                r.end_seq = start
                r.retire_after = now + self.settings.window
        branch.runners.append(branch.runner(new_plan, start))
        branch.plan = new_plan

    def clear(self) -> None:
        """Forget the sampled events (the run is over)."""
        self.last_event = {}
