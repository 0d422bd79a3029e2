"""One OR-free branch of an engine's pattern: its units, compiled checks, plans and statistics.

An :class:`~inev.simulator.engine.engine.Engine` splits its pattern at OR into branches; each
branch compiles its leaf filters, Kleene rules and negation checks once, runs its current
evaluation plan (and a replaced one until it retires) and keeps the statistics its
re-optimisation reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from inev.common.errors import InevError
from inev.simulator.engine.constraints import (
    Constraints,
    condition_scope,
)
from inev.simulator.engine.engine_options import EngineSettings
from inev.simulator.engine.evaluation_plans import Plan, Tree, check_tree
from inev.simulator.engine.events import Event
from inev.simulator.engine.greedy import greedy_plan
from inev.simulator.engine.kleene import Iterations, KleeneRule, iteration_checks
from inev.simulator.engine.plan_runner import (
    CompiledPlan,
    PlanRunner,
    Unit,
    checks_for,
    compile_plan,
)
from inev.simulator.engine.predicates import CodeGen
from inev.simulator.engine.statistics import Statistics, Stats, unit_selectivities
from inev.simulator.engine.zstream import zstream_plan
from inev.workloads.expressions import (
    Condition,
    Logic,
    condition_attributes,
    conjuncts,
)
from inev.workloads.pattern import (
    Pattern,
    kleene_types,
    leaf_types,
)
from inev.workloads.rates import pair


class SubEngine(Protocol):
    """The engine of a Kleene closure over a composite, which a branch feeds its leaves'
    events and whose matches are the closure's iterations."""

    def push(self, item: Any) -> list[Any]: ...


class Branch:
    """One OR-free branch of the pattern with its units, plans and statistics.

    ``settings`` are its engine's (:class:`~inev.simulator.engine.engine_options.EngineSettings`),
    ``make_child(pattern, window, **options)`` builds the engine of a Kleene closure over a
    composite (the holding engine's class: a branch does not know it)."""

    def __init__(
        self,
        settings: EngineSettings,
        make_child: Callable[..., SubEngine],
        pattern: Pattern,
        constraints: Constraints,
        units: list[Unit],
        negation_buffers: dict[int, tuple[list, list]],
    ) -> None:
        self.settings = settings
        self.make_child = make_child
        self.pattern = pattern
        self.c = constraints
        self.units = units
        self.negation_buffers = negation_buffers
        self.slots = {t: i for i, t in enumerate(constraints.types)}
        self.kleene_slots = frozenset(self.slots[t] for t in constraints.kleene)
        self.composite_slots = frozenset(self.slots[t] for t in constraints.composites)
        self.rules: list[KleeneRule | None] = [None] * len(units)
        self.children: list[SubEngine | None] = [None] * len(units)
        self.hold = constraints.hold
        self.deferred = self.hold is not None
        self.next_check: Any = None
        self.late_check: Any = None
        self.none = (None,) * len(constraints.types)
        self.gen = CodeGen(constraints, settings.selectivity_seed)
        self.compiled: dict[Tree, CompiledPlan] = {}
        self.joins: dict[Any, tuple] = {}  # inner nodes' join code, shared by the plans
        self.runners: list[PlanRunner] = []
        self.plan: Plan | None = None
        # set by the engine once the branch is registered
        self.statistics: Statistics | None = None
        self.monitored: list[tuple[tuple[str, str], Any]] = []
        self.decision: Any = None
        self.counts: list[int] = []  # the statistics' arrival counters (engine increments)
        try:
            checks_for(
                self.gen,
                frozenset(constraints.types),
                (),
                {t: f"v_{t}" for t in constraints.types},
                negation_buffers,
                trusted=tuple(u.covers for u in units if u.kind == "match"),
            )
        except ValueError as exc:
            raise InevError(f"pattern {pattern}: {exc}") from None
        self._prepare_leaves()
        self._prepare_late()

    def _prepare_late(self) -> None:
        """The check of the negations that reach past a match's last event, run again when
        the window has passed (the engine holds such matches until then)."""
        late = [
            (i, n)
            for i, n in enumerate(self.c.negations)
            if (n.deferred or self.hold == "latest") and i in self.negation_buffers
        ]
        if not late:
            return
        var = {t: f"v_{t}" for t in self.c.types}
        calls = [self.gen.negation_expr(i, n, var, self.negation_buffers[i]) for i, n in late]
        name = self.gen.fresh("_late")
        lines = [f"def {name}(b):"]
        lines += [f"    v_{t} = b[{self.slots[t]}]" for t in self.c.types]
        lines.append(f"    return {' and '.join(calls)}")
        self.gen.define("\n".join(lines) + "\n")
        self.late_check = self.gen.namespace[name]

    # ---------------------------------------------------------------- leaf preparation
    def _prepare_leaves(self) -> None:
        gen = self.gen
        self.leaf_filter: list[Any] = []
        self.follows: list[Any] = []
        self.match_check: list[Any] = []
        for index, unit in enumerate(self.units):
            types = frozenset(unit.types)
            if unit.kind == "composite":
                self._prepare_composite(index, unit.types[0])
                self.leaf_filter.append(None)
                self.follows.append(None)
                self.match_check.append(None)
            elif unit.kind in ("event", "kleene"):
                t = unit.types[0]
                own = [c for c in self.c.conditions if condition_scope(c) == {t}]
                single = [c for c in own if not _reads(c, "next") and not _reads(c, "position")]
                nexts = [c for c in own if _reads(c, "next")]
                fixed = [c for c in own if _reads(c, "position")]
                self.leaf_filter.append(self._function([t], single) if single else None)
                self.follows.append(self._function([t], nexts) if nexts else None)
                self.match_check.append(None)
                if unit.kind == "kleene":
                    self._prepare_rule(index, t, fixed)
            else:
                var = {t: f"v_{t}" for t in unit.types}
                checks = checks_for(
                    gen, types, (), var, self.negation_buffers, trusted=(unit.covers,)
                )
                name = gen.fresh("_unit")
                args = ", ".join(var[t] for t in unit.types)
                body = " and ".join(checks) if checks else "True"
                gen.define(f"def {name}({args}):\n    return {body}\n")
                self.leaf_filter.append(None)
                self.follows.append(None)
                self.match_check.append(gen.namespace[name])

    def _prepare_rule(self, index: int, t: str, fixed: list[Condition]) -> None:
        """The :class:`KleeneRule` of a Kleene unit, if it needs one (ties, bounds,
        positions); the default has none and runs the plan's fast loop."""
        low, high = self.c.bounds.get(t, (1, None))
        accept = self._function([t], fixed) if fixed else None
        if self.c.ties == "strict" and (low, high) == (1, None) and accept is None:
            return
        self.rules[index] = KleeneRule(
            strict=self.c.ties == "strict",
            low=low,
            high=high,
            follows=self.follows[index],
            accept=accept,
        )

    def _prepare_composite(self, index: int, slot: str) -> None:
        """A KL over a composite: its sub-pattern's engine and its iteration rule."""
        composite = self.c.composites[slot]
        engine = self.settings  # the holding engine's
        leaves = frozenset(leaf_types(composite.pattern))
        own = [
            c
            for c in (conjuncts(engine.where) if engine.where is not None else ())
            if condition_scope(c) <= leaves
        ]
        inner = [c for c in own if not _reads(c, "next") and not _reads(c, "position")]
        across = [c for c in own if c not in inner]
        nested = kleene_types(composite.pattern)
        for c in across:
            if condition_scope(c) & nested:
                raise InevError(
                    f"where conjunct {c}: NEXT or a position of a Kleene leaf nested in a "
                    "Kleene closure over a composite (not supported)"
                )
        where = None if not inner else inner[0] if len(inner) == 1 else Logic("AND", tuple(inner))
        self.children[index] = self.make_child(  # an Engine, as the one holding the branch
            composite.pattern,
            engine.window,
            selectivities=engine.selectivities,
            where=where,
            plan=engine.plan_kind,
            selectivity_seed=engine.selectivity_seed,
            ties=self.c.ties,
            streams=engine.streams,
        )
        follows, accept = iteration_checks(composite, across)
        low, high = composite.bounds
        self.rules[index] = KleeneRule(
            strict=self.c.ties == "strict",
            low=low,
            high=high,
            follows=follows,
            accept=accept,
            iterations=Iterations(composite, dict(engine.streams)),
        )

    def _function(self, types: list[str], conditions: list[Condition]) -> Any:
        name = self.gen.fresh("_leaf")
        var = {t: f"v_{t}" for t in types}
        body = " and ".join(self.gen.condition_expr(c, var) for c in conditions)
        self.gen.define(f"def {name}({', '.join(var[t] for t in types)}):\n    return {body}\n")
        return self.gen.namespace[name]

    # ---------------------------------------------------------------- plans
    def runner(self, plan: Plan, start_seq: int) -> PlanRunner:
        """A fresh runner of ``plan`` whose items start at ``start_seq``."""
        tree = plan.tree
        compiled = self.compiled.get(tree)
        if compiled is None:
            try:
                check_tree(tree, len(self.units))
            except ValueError as exc:
                raise InevError(str(exc)) from None
            compiled = compile_plan(
                self.c,
                self.units,
                tree,
                self.negation_buffers,
                self.settings.selectivity_seed,
                self.joins,
            )
            self.compiled[tree] = compiled
        return PlanRunner(compiled, start_seq)

    def generate(self, stats: Stats) -> tuple[Plan, list]:
        """Run the plan generator on ``stats``."""
        if self.settings.plan_kind == "zstream":
            return zstream_plan(stats)
        return greedy_plan(stats)

    # ---------------------------------------------------------------- items
    def items_for(self, unit: int, item: Any, seq: int) -> list | None:
        """Leaf items of an event (``event`` units) or a sub-projection match."""
        u = self.units[unit]
        if u.kind == "event":
            f = self.leaf_filter[unit]
            if f is not None and not f(item):
                return None
            b = list(self.none)
            b[self.slots[u.types[0]]] = item
            t = item[0]
            return [(t, t, seq, tuple(b))]
        # a match of a sub-projection
        groups: dict[str, list[Event]] = {}
        for e in item:
            if e[1] not in u.types:
                raise InevError(f"match for input {u.label} holds an event of type {e[1]}")
            groups.setdefault(e[1], []).append(e)
        b = list(self.none)
        args = []
        for t in u.types:
            if t not in groups:
                raise InevError(f"match for input {u.label} has no event of type {t}")
            evs = groups[t]
            if t in self.c.kleene:
                value: Any = tuple(sorted(evs, key=lambda e: e[0]))
            elif len(evs) == 1:
                value = evs[0]
            else:
                raise InevError(f"match for input {u.label} holds two events of type {t}")
            b[self.slots[t]] = value
            args.append(value)
        times = [e[0] for e in item]
        lo, hi = min(times), max(times)
        if hi - lo > self.c.window or not self.match_check[unit](*args):
            return None
        return [(lo, hi, seq, tuple(b))]

    def flatten(self, binding: tuple) -> tuple[Event, ...]:
        """The match's events in pattern order (a trend's events in time order)."""
        ks = self.kleene_slots
        if not ks:  # a full binding of single events is the match itself
            return binding
        out: list[Event] = []
        composite = self.composite_slots
        for i, v in enumerate(binding):
            if i in composite:
                for it in v:
                    out.extend(it[2])
            elif i in ks:
                out.extend(v)
            else:
                out.append(v)
        return tuple(out)


def monitored_pairs(branch: Branch, selectivity_seed: int) -> list[tuple[tuple[str, str], Any]]:
    """Type pairs across units with a predicate, and a sampling check for each."""
    c = branch.c
    owner = {t: i for i, u in enumerate(branch.units) for t in u.types}
    flat = replace(c, kleene=frozenset())
    gen = CodeGen(flat, selectivity_seed)
    out = []
    pairs = {pair(a, b) for a, b, _ in c.pairs}
    for cond in c.conditions:
        scope = condition_scope(cond)
        if len(scope) == 2 and not any(a.next for a in condition_attributes(cond)):
            pairs.add(pair(*sorted(scope)))
    for a, b in sorted(pairs):
        if owner.get(a) is None or owner.get(b) is None or owner[a] == owner[b]:
            continue
        var = {a: "x", b: "y"}
        checks = [gen.pair_expr(x, y, s, var) for x, y, s in c.pairs if {x, y} == {a, b}]
        checks += [gen.condition_expr(k, var) for k in c.conditions if condition_scope(k) == {a, b}]
        name = gen.fresh("_sample")
        gen.define(f"def {name}(x, y):\n    return {' and '.join(checks)}\n")
        out.append(((a, b), gen.namespace[name]))
    return out


def initial_stats(
    branch: Branch, initial_rates: Mapping[str, float], estimated: Mapping[tuple[str, str], float]
) -> Stats:
    """A branch's statistics for its first plan: rates per unit from ``initial_rates``
    (1 per type by default), declared selectivities times the ``estimated`` ones."""
    rates = []
    for u in branch.units:
        r = 1.0
        for t in u.types:
            r *= initial_rates.get(t, 1.0)
        rates.append(r)
    declared = {(a, b): s for a, b, s in branch.c.pairs}
    for p, s in estimated.items():
        declared[p] = declared.get(p, 1.0) * s
    return unit_stats(branch, rates, declared)


def unit_stats(branch: Branch, rates: list[float], sel: Mapping[tuple[str, str], float]) -> Stats:
    """Statistics over a branch's units from per-unit rates and pairwise selectivities."""
    return Stats(tuple(rates), unit_selectivities([u.types for u in branch.units], sel))


def _reads(condition: Condition, what: str) -> bool:
    """Whether a conjunct reads ``NEXT`` (``what`` = "next") or a trend position."""
    if what == "next":
        return any(a.next for a in condition_attributes(condition))
    return any(a.position is not None for a in condition_attributes(condition))
