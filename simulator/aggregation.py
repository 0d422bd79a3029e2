"""Trend aggregation at query sinks of a simulated plan (INEv §6.1 with GRETA §2-§7).

A query with a ``return`` clause is aggregated GRETA-style at its sink vertices: each sink
vertex feeds one GRETA runtime (:class:`~inev.simulator.engine.greta.GretaQuery`) with the
distinct events it receives (:func:`sink_cells`), the partial aggregates of the vertices
are combined per window and group, and the result is compared with a centralized GRETA
evaluation of the whole trace (:func:`aggregate_queries`).

**What a sink feeds GRETA, and why it is exact.** GRETA's trends over a set ``S`` of events
are exactly the trends of the global trace whose events all lie in ``S`` (a trend's
validity depends only on its own events, their order, window and group), except that a
negative sub-pattern needs every event of its types. So a sink's aggregate equals the
global one when ``S`` holds every event of every trend and every event of the negated
types. A sink vertex receives:

- for a Kleene sink, the events of the q_nKL matches it unfolds (INEv §6.1), and local
  events of its partitioning type;
- for any other sink, events directly, and matches of sub-projections whose events we take.

Every trend of the query is one of its matches (see the caveat below), so every event of a
trend is in a match of q_nKL (a Kleene trend restricted to one event per Kleene type) or of
the sub-projections the sink combines, and reaches the sink. Negated events, however,
never travel inside matches: when a sink vertex does not take a negated type as a direct
event input (e.g. PPoP sinks combining an ``NSEQ`` sub-projection's matches), its GRETA
would accept trends across matches that a negated event forbids. Such queries are
aggregated **from the sink's materialised matches** instead (mode ``"matches"``): each
match contributes its vector to the windows containing it.

**Multi-node sinks** (one projection on several nodes, each seeing only its local events of
the partitioning type ``P``): when ``P`` is a positive, non-Kleene type of the query, every
trend holds exactly one ``P`` event, so the members' trend sets are disjoint and their
union is all trends: partial vectors add (counts, sums, AVG's count and sum), MIN/MAX
combine (mode ``"sinks"``). The planner never partitions a sink by a Kleene type; should
``P`` be Kleene or negated all the same, a trend could span members, and the members'
events are united into one GRETA run (mode ``"merged"``).

**Caveat: GRETA's trends vs. the simulator's matches.** GRETA knows the query's ``where``
clause only. The simulator realises pairwise selectivities below 1 as predicates on
matches, reads a ``where`` conjunct over a Kleene type universally, and a conjunct over two
types as a predicate on any pair (GRETA: only on adjacent events, and refused when never
adjacent). With selectivities below 1, or ``where`` conjuncts over two types one of which is
Kleene, the plan may filter out events of GRETA trends before they reach the sink, and the
check reports the differing cells (it is a measurement, not an assumption). With
selectivity 1 and local predicates or ``NEXT`` predicates on a Kleene type, the two
semantics agree and the check holds.

**Other choices.** Cells (window, group) without any trend are dropped on both sides (a
sink sees only part of the events, so it cannot know every cell the central run sees).
Queries GRETA refuses (AND, predicates that are no vertex or edge predicate) keep their
matches and get mode ``"refused"`` with GRETA's message. With changes at run time the
aggregates are not evaluated (mode ``"not-evaluated"``): each epoch's plan takes the
matches whose first event lies in its epoch, which GRETA's windows do not follow. OR
queries are aggregated per branch (``q/1``, ``q/2``, as the simulator splits them).
Sinks aggregate after the run, over their received events in time order (the result is
the same as online; the aggregates' detection latency is not measured).

>>> from inev.workloads.workload import Query, Workload
>>> from inev.simulator.engine.events import make_event
>>> wl = Workload.build(10.0, [Query.build("q", "SEQ(KL(A), B)", returns="COUNT(*)")])
>>> events = [make_event(t, x, 0, i) for i, (t, x) in enumerate([(1, "A"), (2, "A"), (3, "B")])]
>>> centralized_cells(wl.queries[0], wl, events)
{(0.0, 10.0, ()): (3,)}
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.events import Event
from inev.simulator.engine.greta import GretaQuery, as_event, compile_query
from inev.simulator.engine.greta.runtime import CompiledQuery
from inev.simulator.engine.greta.windows import window_bounds, windows_of
from inev.workloads.rates import strip_kleene
from inev.workloads.workload import Query, Workload

Cell = tuple[float, float, tuple[Any, ...]]  # window start, window end, group
Vector = tuple[Any, ...]

SINKS, MERGED, MATCHES, REFUSED, NOT_EVALUATED = (
    "sinks",
    "merged",
    "matches",
    "refused",
    "not-evaluated",
)


@dataclass
class QueryAggregation:
    """The aggregates of one query: mode, note, distributed and centralized cells."""

    mode: str
    note: str = ""
    cells: dict[Cell, Vector] = field(default_factory=dict)
    central: dict[Cell, Vector] = field(default_factory=dict)
    compiled: CompiledQuery | None = None

    @property
    def checked(self) -> bool:
        """Whether aggregates were computed and compared."""
        return self.compiled is not None

    def differences(self) -> int:
        """Cells (window, group) whose value differs from the centralized one."""
        if self.compiled is None:
            return 0
        spec = self.compiled.spec
        return sum(
            1
            for cell in set(self.cells) | set(self.central)
            if not _same(
                spec.value(self.cells.get(cell, spec.identity)),
                spec.value(self.central.get(cell, spec.identity)),
            )
        )

    def rows(self, central: bool = False) -> list[dict[str, Any]]:
        """Cells as ``{"window_start", "window_end", "group", "value"}`` in window order."""
        if self.compiled is None:
            return []
        spec = self.compiled.spec
        cells = self.central if central else self.cells
        return [
            {"window_start": s, "window_end": e, "group": list(g), "value": spec.value(v)}
            for (s, e, g), v in sorted(cells.items(), key=lambda kv: (kv[0][0], repr(kv[0][2])))
        ]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def combine_cells(
    compiled: CompiledQuery, parts: Iterable[Mapping[Cell, Vector]]
) -> dict[Cell, Vector]:
    """Combine partial aggregates of disjoint trend sets per window and group."""
    out: dict[Cell, Vector] = {}
    combine = compiled.spec.combine
    for part in parts:
        for cell, vector in part.items():
            old = out.get(cell)
            out[cell] = vector if old is None else combine(old, vector)
    return out


def greta_cells(compiled: CompiledQuery, events: Iterable[Any]) -> dict[Cell, Vector]:
    """GRETA's final vectors per window and group over distinct events (any order).

    Events are de-duplicated by ``(type, id)`` and fed in time order; cells without a
    trend are left out.
    """
    distinct = {(e.type, e.id): e for e in events if e.type in compiled.all_types}
    runner = GretaQuery(compiled, vectors=True)
    out: dict[Cell, Vector] = {}
    results: list[dict[str, Any]] = []
    for e in sorted(distinct.values(), key=lambda e: (e.time, repr(e.id))):
        results.extend(runner.push(as_event(e)))
    results.extend(runner.finish())
    for r in results:
        if r["final"][0]:
            out[(r["window_start"], r["window_end"], tuple(r["group"]))] = r["final"]
    return out


def match_cells(
    compiled: CompiledQuery, matches: Iterable[tuple[Sequence[Event], int]]
) -> dict[Cell, Vector]:
    """Final vectors per window and group from materialised matches (with multiplicities).

    A match counts in every window that contains all its events, in the group its events
    share (a match across groups, or with an event outside every group, counts nowhere);
    a match with an event GRETA would not admit counts nowhere either.
    """
    out: dict[Cell, Vector] = {}
    for match, multiplicity in matches:
        events = [as_event(e) for e in match]
        group = _shared_group(compiled, events)
        if group is None:
            continue
        vector = _match_vector(compiled, events, multiplicity)
        for start, end in _common_windows(compiled, events):
            cell = (start, end, group)
            old = out.get(cell)
            out[cell] = vector if old is None else compiled.spec.combine(old, vector)
    return out


def _shared_group(compiled: CompiledQuery, events: Sequence[Any]) -> Any:
    """The group all ``events`` share, or ``None`` when they are none, are not all admitted,
    span several groups or one lies outside every group."""
    if not events or not all(compiled.admits(e) for e in events):
        return None
    groups = {compiled.group_of(e) for e in events}
    if len(groups) != 1 or None in groups:
        return None
    return next(iter(groups))


def _match_vector(compiled: CompiledQuery, events: Sequence[Any], count: int) -> Vector:
    """The aggregate vector of one match counted ``count`` times: the trend count, then
    the components of the ``return`` aggregate over the match's events of its type."""
    agg = compiled.spec.aggregate
    if agg.type is None:
        return (count,)
    values = [e.attrs[agg.attribute] if agg.attribute else 1 for e in events if e.type == agg.type]
    f = agg.function
    if f == "COUNT":
        return (count, count * len(values))
    if f == "SUM":
        return (count, count * sum(values))
    if f == "AVG":
        return (count, count * len(values), count * sum(values))
    if f == "MIN":
        return (count, min(values, default=math.inf))
    return (count, max(values, default=-math.inf))


def _common_windows(compiled: CompiledQuery, events: Sequence[Any]) -> list[tuple[float, float]]:
    """``(start, end)`` of every window that holds all ``events`` (first and last alike)."""
    c = compiled
    low = windows_of(min(e.time for e in events), c.window, c.slide)
    high = windows_of(max(e.time for e in events), c.window, c.slide)
    return [
        window_bounds(w, c.window, c.slide)
        for w in range(max(low.start, high.start), min(low.stop, high.stop))
    ]


def centralized_cells(
    query: Query, workload: Workload, events: Iterable[Any]
) -> dict[Cell, Vector]:
    """GRETA over the whole trace: final vectors per window and group (cells with trends)."""
    return greta_cells(compile_query(query, workload.window, workload.slide), events)


@dataclass(frozen=True)
class SinkInput:
    """What one sink vertex of a query received: its node, partition, direct inputs, items."""

    node: Hashable
    partition: str | None
    direct_types: frozenset[str]
    items: Sequence[Any]


def _events_of(items: Iterable[Any]) -> list[Any]:
    out = []
    for item in items:
        if isinstance(item, Event):
            out.append(item)
        else:
            out.extend(item)
    return out


def aggregate_query(
    query: Query,
    workload: Workload,
    sinks: Sequence[SinkInput],
    matches: Iterable[tuple[Sequence[Event], int]],
    trace: Sequence[Event],
    alone: bool = False,
) -> QueryAggregation:
    """Aggregate one ``return`` query from what its sinks received; compare with the trace.

    ``alone``: the sinks aggregated instead of materialising (:func:`aggregates_alone`).
    """
    try:
        compiled = compile_query(query, workload.window, workload.slide)
    except InevError as exc:
        return QueryAggregation(REFUSED, f"GRETA refuses the query ({exc}); matches only")
    central = greta_cells(compiled, trace)
    negated = query.negated
    kleene = query.kleene
    blind = [s.node for s in sinks if not negated <= s.direct_types]
    if blind:
        cells = match_cells(compiled, matches)
        note = (
            f"sink(s) at {', '.join(map(str, blind))} receive no events of negated type(s) "
            f"{', '.join(sorted(negated))}: aggregated from the sink's matches"
        )
        return QueryAggregation(MATCHES, note, cells, central, compiled)
    disjoint = all(
        s.partition is None
        or (s.partition in compiled.positive_types and s.partition not in kleene)
        for s in sinks
    )
    if len(sinks) <= 1 or disjoint:
        parts = [greta_cells(compiled, _events_of(s.items)) for s in sinks]
        note = "aggregated at the sink alone, no trend built" if alone else ""
        return QueryAggregation(SINKS, note, combine_cells(compiled, parts), central, compiled)
    merged = greta_cells(compiled, [e for s in sinks for e in _events_of(s.items)])
    note = "multi-node sink partitioned by a type a trend may hold twice or not at all: merged"
    if alone:
        note += "; aggregated alone, no trend built"
    return QueryAggregation(MERGED, note, merged, central, compiled)


def direct_types(plan: Any, by_id: Mapping[int, Any], vertex: Any) -> frozenset[str]:
    """The event types ``vertex`` takes directly from event vertices (not inside matches)."""
    out = set()
    for u_id in vertex.inputs:
        u = by_id[u_id]
        info = plan.projections[u.projection]
        if not u.inputs and len(info.types) == 1:
            out.add(info.types[0])
    return frozenset(out)


def aggregates_alone(
    workload: Workload,
    plan: Any,
    by_id: Mapping[int, Any],
    vertex: Any,
    queries: Sequence[str],
    feeds_others: bool,
) -> bool:
    """Whether a sink vertex can aggregate *instead of* materialising its trends.

    It can when every query it serves has a ``return`` clause GRETA accepts, it feeds no
    other vertex, and it takes every negated type of those queries as a direct event input
    (mode ``"sinks"`` or ``"merged"``: GRETA over the received events is exact). Such a sink
    keeps no engine and no matches, so a Kleene query whose trends would never fit in memory
    is still simulated; the query then has no ``matches`` entry and is checked by its
    aggregates alone.
    """
    if feeds_others or not queries:
        return False
    direct = direct_types(plan, by_id, vertex)
    for name in queries:
        query = workload.query(name)
        if query.returns is None or not query.negated <= direct:
            return False
        try:
            compile_query(query, workload.window, workload.slide)
        except InevError:
            return False
    return True


def size_workload(workload: Workload) -> Workload:
    """The workload whose size the simulator checks when return queries aggregate alone.

    A query GRETA accepts is sized by its q_nKL (its sinks build no trends; the projections
    feeding them are q_nKL projections at most), every other query as it is (``workload``
    itself when no query changes).
    """
    queries = []
    for q in workload.queries:
        if q.returns is not None:
            try:
                compile_query(q, workload.window, workload.slide)
            except InevError:
                queries.append(q)
                continue
            q = replace(q, pattern=strip_kleene(q.pattern))
        queries.append(q)
    if all(a is b for a, b in zip(queries, workload.queries, strict=True)):
        return workload  # the same value: its prepared split (Workload.or_free) is reused
    return replace(workload, queries=tuple(queries))


def aggregate_run(
    workload: Workload,
    executions: Sequence[Any],
    sink_found: Mapping[str, Mapping[tuple[Any, ...], int]],
    trace: Sequence[Event],
    changed: bool = False,
) -> dict[str, QueryAggregation]:
    """Aggregates of every ``return`` query of a finished run (``executions`` of run.py)."""
    out: dict[str, QueryAggregation] = {}
    queries = [q for q in workload.queries if q.returns is not None]
    if not queries:
        return out
    if changed:
        for q in queries:
            out[q.name] = QueryAggregation(
                NOT_EVALUATED, "changes at run time: aggregates are not evaluated"
            )
        return out
    by_id = {e.id: e for e in trace}
    for q in queries:
        sinks: list[SinkInput] = []
        alone = False
        for execution in executions:
            plan = execution.plan
            for run in execution.runs.values():
                if q.name not in run.queries:
                    continue
                v = run.vertex
                direct = direct_types(plan, execution.by_id, v)
                sinks.append(SinkInput(v.node, v.partition, direct, run.collect or ()))
                alone = alone or run.alone
        matches = (([by_id[i] for i in ids], n) for ids, n in sink_found.get(q.name, {}).items())
        out[q.name] = aggregate_query(q, workload, sinks, matches, trace, alone)
    return out


def result_fields(aggregations: Mapping[str, QueryAggregation]) -> dict[str, Any]:
    """The :class:`~inev.simulator.simulation_result.SimulationResult` fields of a run's aggregates."""
    return {
        "aggregates": {q: a.rows() for q, a in aggregations.items() if a.checked},
        "centralized_aggregates": {
            q: a.rows(central=True) for q, a in aggregations.items() if a.checked
        },
        "aggregate_differences": {q: a.differences() for q, a in aggregations.items() if a.checked},
        "aggregation": {q: {"mode": a.mode, "note": a.note} for q, a in aggregations.items()},
    }
