"""The per-node adaptive CEP engine (adaptive-CEP paper Algorithm 1; INEv §3.2, §5.1, §7.1).

One :class:`Engine` evaluates one pattern (a query or a projection) over a stream of
inputs: primitive events and, for a projection with sub-projection inputs, matches of
those sub-projections (tuples of events). It

* reorders out-of-order input with a watermark: an item is processed once the watermark
  reaches its time (its latest event's time for a match); items are processed in time order,
  so the matches equal those of a sorted run, each emitted once, when it becomes final.
  ``lateness`` derives the watermark from the largest time seen; an item older than the
  watermark is late, counted and dropped;
* evaluates each OR branch with a plan (greedy order-based or ZStream tree-based) built
  from statistics, and re-optimises it when the decision function says so; a replaced plan
  finishes the partial matches holding an older item and retires one window later, the new
  plan sees only new items, so no match is lost or duplicated;
* emits full matches (tuples of events in pattern order; a Kleene trend contributes its
  events in time order) or, for an output selector, each event of the selected types that
  occurs in some match, once.

API for the simulator (one engine per projection placed on a node)::

    engine = Engine.for_projection(query, workload, "SEQ(A, C)",
                                   inputs=["A", "SEQ(B, C)"],  # types and sub-projections
                                   output=["C"],               # output selector, or None
                                   plan="greedy", adaptation=Adaptation("invariant"),
                                   lateness=None)              # watermarks from the caller
    engine.push(make_event(t, "A", node, id, attrs))  # -> outputs that became final
    engine.push((b_event, c_event))                   # a match of the input SEQ(B, C)
    engine.advance(watermark)                         # -> outputs final up to watermark
    engine.flush()                                    # end of input
    engine.counters, engine.last_work, engine.partial_match_count(), engine.evaluation_plans

Outputs are tuples of events (full matches, to push into a downstream engine as a
sub-projection match) or single events (output selector: push them downstream as primitive
events). Hook points for later issues: ``last_work`` is the number of partial matches the
last item created, ``last_cost`` its work units (1 for the item plus one per pair of a new
and a buffered item or partial match the joins examined; ``counters["work"]`` sums them:
the cost of load shedding's processing model), ``partial_match_count()`` the
memory held, and each :class:`.evaluation.PlanRunner` exposes its node ``buffers``.

>>> from inev.simulator.engine.events import make_event
>>> engine = Engine("SEQ(A, B)", window=5.0)
>>> engine.push(make_event(1.0, "A", 0, 1))
[]
>>> [tuple(e.id for e in m) for m in engine.push(make_event(2.0, "B", 0, 2))]
[(1, 2)]
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.simulator.engine.branch import Branch
from inev.simulator.engine.branch_units import Routes
from inev.simulator.engine.constraints import TIES, projection_where
from inev.simulator.engine.engine_options import (
    DEFAULT_ENGINE_PLAN,
    Adaptation,
    EngineSettings,
    input_patterns,
    output_selector,
    plan_choice,
    selectivity_pairs,
)
from inev.simulator.engine.evaluation_plans import OrderPlan, Plan, TreePlan
from inev.simulator.engine.events import DEFAULT_SELECTIVITY_SEED, Event
from inev.simulator.engine.invariants import make_decision
from inev.simulator.engine.kleene import iteration
from inev.simulator.engine.outputs import Outputs
from inev.simulator.engine.reoptimization import Reoptimizer
from inev.simulator.engine.selection import Selection, Selector, next_match_check
from inev.simulator.engine.statistics import Stats
from inev.simulator.engine.zstream import cardinality
from inev.workloads.expressions import (
    Condition,
    parse_condition,
)
from inev.workloads.pattern import (
    Pattern,
    event_types,
    split_or,
)
from inev.workloads.pattern import streams as pattern_streams
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import DEFAULT_TIES

INF = math.inf


COUNTERS = (
    "events",
    "matches_in",
    "late",
    "filtered",
    "matches",
    "outputs",
    "partial_matches",
    "work",
    "checks",
    "violations",
    "reoptimizations",
    "plan_changes",
)
"""The engine's counters (``Engine.counters``), in the order they are reported."""


class Engine:
    """A local CEP engine for one pattern; see the module docstring.

    Parameters: ``pattern`` (text or tree), ``window``, pairwise ``selectivities``
    (``{("A", "B"): σ}`` or ``{"A B": σ}``), ``where`` condition, ``inputs`` (event types
    and sub-projection patterns; default: every type of the pattern), ``output`` (``None``
    or ``"all"`` for full matches, else the selected event types), ``plan`` (``"greedy"``,
    ``"zstream"``, or an explicit :class:`OrderPlan`/:class:`TreePlan` over the input
    units for an OR-free pattern), ``adaptation`` (an :class:`Adaptation` or its kind),
    ``rates`` (initial rates per type for the first plan), ``estimated`` (pairwise
    selectivities for the first plan only, not realised as predicates: those of ``where``
    conjuncts measured on a trace), ``lateness`` (``None``: only :meth:`advance` moves the
    watermark), ``ties`` (the workload's tie rule, ``strict`` or ``any``) and ``streams``
    (``{variable: event type}``: which leaves read one stream, and so bind distinct events).

    Events reach the engine under their leaf's name: a variable's events are its type's
    events relabelled (:func:`inev.simulator.engine.streams.relabel`).
    """

    def __init__(
        self,
        pattern: str | Pattern,
        window: float,
        *,
        selectivities: Mapping[Any, float] | None = None,
        where: str | Condition | None = None,
        inputs: Sequence[str | Pattern] | None = None,
        output: str | Iterable[str] | None = None,
        plan: str | Plan = DEFAULT_ENGINE_PLAN,
        adaptation: Adaptation | str = "off",
        selectivity_seed: int = DEFAULT_SELECTIVITY_SEED,
        rates: Mapping[str, float] | None = None,
        estimated: Mapping[Any, float] | None = None,
        lateness: float | None = 0.0,
        ties: str = DEFAULT_TIES,
        streams: Mapping[str, str] | None = None,
        selection: Selection | None = None,
    ) -> None:
        tree = parse_pattern(pattern) if isinstance(pattern, str) else pattern
        if ties not in TIES:
            raise InevError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
        self.ties = ties
        self.streams = {**pattern_streams(tree), **(streams or {})}
        if not (isinstance(window, int | float) and window > 0 and math.isfinite(window)):
            raise InevError(f"engine window must be a positive number, got {window!r}")
        self.pattern = tree
        self.window = float(window)
        self.selectivity_seed = selectivity_seed
        self.selectivities = selectivity_pairs(selectivities)
        self.where = parse_condition(where) if isinstance(where, str) else where
        self.adaptation = Adaptation(adaptation) if isinstance(adaptation, str) else adaptation
        self._adaptive = self.adaptation.kind != "off"
        try:
            make_decision(self.adaptation.kind)  # validates the name
        except ValueError as exc:
            raise InevError(str(exc)) from None
        self.lateness = lateness
        self.initial_rates = dict(rates or {})
        self.estimated = selectivity_pairs(estimated)
        self.plan_kind, explicit = plan_choice(plan)
        all_types = event_types(tree)
        self.output = output_selector(output, tree)
        self.input_patterns = input_patterns(tree, inputs, all_types)
        self.settings = EngineSettings(
            tree,
            self.window,
            self.selectivities,
            self.where,
            ties,
            self.streams,
            selectivity_seed,
            self.plan_kind,
            tuple(self.input_patterns),
            self.adaptation,
            self.initial_rates,
            self.estimated,
        )
        # the collaborators (module doc): routing tables, outputs, re-optimisation
        routing = Routes(self.settings, type(self))  # a branch's sub-engines: this class
        self.routes = routing.types
        self.match_routes = routing.matches
        self.neg_buffers = routing.negations
        variants = split_or(tree)
        if explicit is not None and len(variants) != 1:
            raise InevError("an explicit plan needs an OR-free pattern")
        self.branches: list[Branch] = [routing.add_branch(variant) for variant in variants]
        self.seq = 0
        self.watermark = -INF
        self.max_time = -INF
        self.now = -INF
        self.heap: list[tuple[float, int, Any]] = []
        self.arrivals = 0
        self.next_purge = -INF
        self.selector = self._selector(selection)
        self.deferred = any(b.deferred for b in self.branches)
        self.next_tick = self.adaptation.sample_every
        self.counters: dict[str, int] = dict.fromkeys(COUNTERS, 0)
        self.last_work = 0
        self.last_cost = 0
        self.outputs = Outputs(self.window, self.output, self.selector, self.counters)
        self.pending = self.outputs.pending  # read on every item: one lookup, not two
        self._final = self.outputs.final
        self.reoptimizer = Reoptimizer(self.settings, self.branches, self.counters)
        self.reoptimizer.start(explicit)

    def _selector(self, selection: Selection | None) -> Selector | None:
        """The selection state (None for skip-till-any-match): see :mod:`.selection`."""
        if selection is None or selection.default:
            return None
        leaves = set(event_types(self.pattern))
        for leaf in (selection.consume - {"*"}) | selection.freeze:
            if leaf not in leaves:
                raise InevError(
                    f"{option('consume')}/{option('freeze')} names {leaf}, "
                    f"no leaf of {self.pattern}"
                )
        order: dict[str, frozenset[str]] = {}
        for branch in self.branches:
            for f in selection.freeze:
                before = {a for a, b in branch.c.order if b == f}
                order[f] = order.get(f, frozenset()) | before | {f}
            if selection.strategy == "next":
                if branch.c.kleene:
                    raise InevError(
                        f"skip-till-next-match over a Kleene closure ({self.pattern}) is not "
                        "supported: a trend would take every relevant event"
                    )
                branch.next_check = next_match_check(
                    branch.c.conditions, branch.c.pairs, self.window, self.selectivity_seed
                )
        return Selector(selection, self.window, self.streams, order)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_query(cls, query: Any, workload: Any, **options: Any) -> Engine:
        """An engine for a :class:`inev.workloads.workload.Query` of a workload.

        Declared selectivities become hash predicates; those measured from the ``where``
        clause only guide the first plan (the clause itself decides).
        """
        return cls(
            query.pattern,
            workload.window,
            selectivities=query.realised_selectivity,
            where=query.where,
            selectivity_seed=workload.selectivity_seed,
            estimated=query.where_selectivity or None,
            ties=getattr(workload, "ties", DEFAULT_TIES),
            streams=query.streams,
            **options,
        )

    @classmethod
    def for_projection(
        cls,
        query: Any,
        workload: Any,
        projection: str | Pattern,
        inputs: Sequence[str | Pattern] | None = None,
        output: str | Iterable[str] | None = None,
        **options: Any,
    ) -> Engine:
        """An engine for a projection of ``query`` (its predicates restricted to the
        projection's types, and to what a projection without the query's Kleene closures can
        read: :func:`~inev.simulator.engine.constraints.projection_where`) with the given
        inputs and output selector."""
        tree = parse_pattern(projection) if isinstance(projection, str) else projection
        return cls(
            tree,
            workload.window,
            selectivities=query.realised_selectivity,
            where=projection_where(query.where, tree),
            selectivity_seed=workload.selectivity_seed,
            estimated=query.where_selectivity or None,
            inputs=inputs,
            output=output,
            ties=getattr(workload, "ties", DEFAULT_TIES),
            streams=query.streams,
            **options,
        )

    # ---------------------------------------------------------------- input
    def push(self, item: Event | Sequence[Event]) -> list[Any]:
        """Accept an event or a sub-projection match; return the outputs that became final."""
        if isinstance(item, Event):
            t = item[0]
        else:
            if not item:
                raise InevError("an empty match was pushed")
            t = max(e[0] for e in item)
        if t < self.watermark:
            self.counters["late"] += 1
            return []
        self.arrivals += 1
        if self.lateness == 0.0 and not self.heap:
            if t > self.max_time:
                self.max_time = t
            self.watermark = t
            return self._process(item, t)
        heapq.heappush(self.heap, (t, self.arrivals, item))
        if t > self.max_time:
            self.max_time = t
        if self.lateness is not None:
            return self.advance(self.max_time - self.lateness)
        return []

    def enqueue(self, item: Event | Sequence[Event], t: float) -> None:
        """Buffer ``item`` of time ``t`` for :meth:`advance` (``push`` without its checks).

        For a caller that already knows ``t`` (the item's latest event time) is not behind
        the watermark and that no lateness bound is set (the simulator's releases).
        """
        self.arrivals += 1
        heapq.heappush(self.heap, (t, self.arrivals, item))
        if t > self.max_time:
            self.max_time = t

    def advance(self, watermark: float) -> list[Any]:
        """Promise that no later item is older than ``watermark``; process what is final."""
        out: list[Any] = []
        for _, found in self.advance_timed(watermark):
            out.extend(found)
        return out

    def advance_timed(self, watermark: float) -> list[tuple[float, list[Any]]]:
        """Like :meth:`advance`, but the outputs grouped by the time of the item that made them.

        A caller that releases items later than their release time (a simulator batching its
        watermarks) stamps each group with its own time: a match is final from the moment
        its latest item is, whenever the engine gets to process it.
        """
        if watermark > self.watermark:
            self.watermark = watermark
        out: list[tuple[float, list[Any]]] = []
        heap = self.heap
        while heap and heap[0][0] <= self.watermark:
            t, _, item = heapq.heappop(heap)
            found = self._process(item, t)
            if found:
                out.append((t, found))
        if self.pending and self.pending[0][0] < self.watermark:
            # held matches are final once the watermark passes their window's end
            while self.pending and self.pending[0][0] < self.watermark:
                end = self.pending[0][0]
                released = self.outputs.release_held(math.nextafter(end, INF))
                if released:
                    out.append((end, released))
        return out

    def flush(self) -> list[Any]:
        """Process every buffered item (end of input); later items must not be older."""
        out = self.advance(max(self.max_time, self.watermark)) if self.heap else []
        if self.pending:
            out.extend(self.outputs.release_held(INF))
        return out

    # ---------------------------------------------------------------- processing
    def _process(self, item: Any, t: float) -> list[Any]:
        """Evaluate one released item against every branch; return the new matches.

        The engine's per-item path, whose throughput ``benchmarks/bench_engine.py`` prints
        (radon complexity 20): a primitive event's routing stays inline (a call per event
        costs about 1 % there), a match's routing and the feeding of one unit are helpers.
        """
        self.seq += 1
        seq = self.seq
        self.now = t
        out: list[Any] = []
        if self.pending and self.pending[0][0] < t:
            self.outputs.release_held(t, out)
        if t >= self.next_purge:
            self._purge(t)
        work = 0
        checked = 0
        adaptive = self._adaptive
        if type(item) is Event:
            self.counters["events"] += 1
            typ = item[1]
            if self.selector is not None and not self._selected(item):
                return out
            nb = self.neg_buffers.get(typ)
            if nb is not None:
                nb[0].append(t)
                nb[1].append(item)
            routes = self.routes.get(typ, ())
        else:
            routes = self._match_routes(item)
        for branch, unit in routes:
            runners = branch.runners
            if len(runners) > 1 and t > runners[0].retire_after:
                branch.runners = [r for r in runners if t <= r.retire_after]
            kind = branch.units[unit].kind
            if kind == "kleene":
                fed = self._kleene(branch, unit, item, seq, out)
            elif kind == "composite":
                fed = self._composite(branch, unit, item, seq, out)
            else:
                fed = self._feed(branch, unit, item, seq, out)
            if fed is None:  # the unit's filter dropped the item
                self.counters["filtered"] += 1
                continue
            work += fed[0]
            checked += fed[1]
            if adaptive:
                branch.counts[unit] += 1
        if adaptive and seq >= self.next_tick:
            self.next_tick = self.reoptimizer.tick(item, seq, t)
        self.last_work = work
        self.last_cost = 1 + checked
        self.counters["partial_matches"] += work
        self.counters["work"] += 1 + checked
        return out

    def _selected(self, item: Event) -> bool:
        """Show the event to the selection strategy; whether it keeps it (counted if not)."""
        selector = self.selector
        assert selector is not None
        selector.see(item)
        if selector.drop(item):
            self.counters["filtered"] += 1
            return False
        return True

    def _match_routes(self, item: Sequence[Event]) -> Sequence[tuple[Branch, int]]:
        """Count a sub-projection match; return the units of its set of types."""
        self.counters["matches_in"] += 1
        kinds = frozenset(e[1] for e in item)
        routes = self.match_routes.get(kinds, ())
        if not routes:
            raise InevError(f"no sub-projection input has the types {sorted(kinds)}")
        return routes

    def _kleene(
        self, branch: Branch, unit: int, item: Event, seq: int, out: list
    ) -> tuple[int, int] | None:
        """Feed an event of a Kleene type to each running plan. Returns the work done
        (partial matches created, pairs checked), or None when the leaf filter drops it."""
        f = branch.leaf_filter[unit]
        if f is not None and not f((item,)):
            return None
        work = checked = 0
        slot = branch.slots[item[1]]
        b = list(branch.none)
        b[slot] = (item,)
        single = tuple(b)
        rule = branch.rules[unit]
        follows = branch.follows[unit]
        window = self.window
        for r in branch.runners:
            before = r.created
            seen = r.checked
            found = r.feed_kleene(unit, slot, item, seq, single, follows, window, rule)
            work += r.created - before
            checked += r.checked - seen
            if found:
                out.extend(self._final(branch, found))
        return work, checked

    def _feed(
        self, branch: Branch, unit: int, item: Any, seq: int, out: list
    ) -> tuple[int, int] | None:
        """Feed an event or a sub-projection match to each running plan. Returns the work
        done, or None when the unit's filters drop it."""
        items = branch.items_for(unit, item, seq)
        if items is None:
            return None
        work = checked = 0
        for r in branch.runners:
            before = r.created
            seen = r.checked
            found = r.feed(unit, items)
            work += r.created - before
            checked += r.checked - seen
            if found:
                out.extend(self._final(branch, found))
        return work, checked

    def _composite(
        self, branch: Branch, unit: int, item: Any, seq: int, out: list
    ) -> tuple[int, int]:
        """Feed an event to a Kleene over a composite: its sub-pattern's engine, then each
        new iteration to the plan. Returns the work done."""
        child = branch.children[unit]
        assert child is not None
        matches = child.push(item)
        work = checked = 0
        if not matches:
            return work, checked
        rule = branch.rules[unit]
        slot = branch.slots[branch.units[unit].types[0]]
        for m in matches:
            element = iteration(m)
            b = list(branch.none)
            b[slot] = (element,)
            single = tuple(b)
            for r in branch.runners:
                before = r.created
                seen = r.checked
                found = r.feed_kleene(unit, slot, element, seq, single, None, self.window, rule)
                work += r.created - before
                checked += r.checked - seen
                if found:
                    out.extend(self._final(branch, found))
        return work, checked

    def _purge(self, t: float) -> None:
        cutoff = t - self.window
        for branch in self.branches:
            for r in branch.runners:
                r.purge(cutoff)
            if self._adaptive:
                branch.statistics.mark(t)
        # a held match (a negation past its last event) checks negated events back to its
        # latest event minus the window when it is released, up to a window after its start
        negation_cutoff = cutoff - self.window if self.deferred else cutoff
        for times, events in self.neg_buffers.values():
            i = bisect.bisect_left(times, negation_cutoff)
            if i:
                del times[:i]
                del events[:i]
        self.outputs.purge(cutoff)
        self.next_purge = t + self.window / 2

    # ---------------------------------------------------------------- re-optimisation
    def current_stats(self, branch: Branch) -> Stats:
        """The branch's statistics now, at unit level (:meth:`.Reoptimizer.current_stats`)."""
        return self.reoptimizer.current_stats(branch, self.now)

    def replace_plan(self, branch: Branch, new_plan: Plan) -> None:
        """Deploy ``new_plan`` from the next item on; the old plan retires after one window."""
        self.reoptimizer.replace_plan(branch, new_plan, self.seq, self.now)

    # ---------------------------------------------------------------- views
    @property
    def plans(self) -> list[Plan]:
        """The current plan of every branch."""
        return [b.plan for b in self.branches]

    def release(self) -> None:
        """Forget every buffered item and partial match (the run is over).

        An engine's structures are cyclic, so its buffers would wait for the cyclic garbage
        collector, which then walks millions of partial matches (seconds at trace scale);
        emptied here, they are freed at once.
        """
        for branch in self.branches:
            for runner in branch.runners:
                runner.buffers = [[] for _ in runner.buffers]
                runner.indexes.clear()
                runner.indexed.clear()
        for times, events in self.neg_buffers.values():
            times.clear()
            events.clear()
        self.heap = []
        self.outputs.clear()
        self.reoptimizer.clear()

    def partial_match_count(self) -> int:
        """Buffered items and partial matches over all running plans (memory, for shedding)."""
        return sum(r.size() for b in self.branches for r in b.runners)


__all__ = ["Adaptation", "Engine", "OrderPlan", "TreePlan", "cardinality"]
