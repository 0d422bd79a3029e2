"""The two-step baseline: build every trend, then aggregate (GRETA paper §1, §10.1 "SASE").

As SASE does, each window of each group is evaluated on its own: every matched event is
stored with pointers to all its predecessor events (previous events of a predecessor
type that satisfy the edge predicates and whose edge no negative trend interrupts), then
a depth-first search over the pointers from every END event constructs each trend, and
the trends are aggregated one by one. Negative sub-patterns are evaluated the same way:
their trends are constructed and an edge ``u -> v`` of a guarded transition is kept only
if no negative trend starts after ``u`` and ends before ``v``; a trend is dropped when a
trend of a leading (trailing) negation of the outermost SEQ lies in the window before
(after) it.

The number of trends is exponential in the events per window, so :func:`two_step_aggregates`
takes a ``limit`` on the trends constructed (and an optional ``deadline`` in seconds of
``time.perf_counter``); beyond either it raises :class:`TrendLimitExceeded` cleanly.
Results use the same rules as :func:`inev.simulator.engine.greta.runtime.greta_aggregates`.
"""

from __future__ import annotations

import math
import time as clock
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from inev.workloads.workload import Query

from .event_rows import Event, as_event
from .runtime import CompiledQuery, compile_query
from .template import Template
from .trend_predicates import Predicates
from .windows import window_bounds, windows_of


class TrendLimitExceeded(Exception):
    """The two-step baseline stopped: too many trends or past its deadline."""


class _Budget:
    def __init__(self, limit: int | None, deadline: float | None) -> None:
        self.limit = limit
        self.deadline = deadline
        self.trends = 0

    def check(self) -> None:
        if self.deadline is not None and clock.perf_counter() > self.deadline:
            raise TrendLimitExceeded("deadline passed")

    def tick(self) -> None:
        self.trends += 1
        if self.limit is not None and self.trends > self.limit:
            raise TrendLimitExceeded(f"more than {self.limit} trends")
        if (
            self.deadline is not None
            and self.trends % 4096 == 0
            and clock.perf_counter() > self.deadline
        ):
            raise TrendLimitExceeded("deadline passed")


def _trends(
    template: Template,
    predicates: Predicates,
    events: list[Event],
    budget: _Budget,
) -> Iterator[list[Event]]:
    """Every trend of ``template`` among ``events`` (time-ordered), built by DFS.

    The negative sub-patterns' trends first (what a guarded edge must not enclose), then each
    event's pointers to its predecessors (:func:`_pointers`), the leading and trailing
    negations' bounds, and the search over the pointers (:func:`_walk`, one loop: a helper
    per partial trend would add calls to the figure ``benchmarks/bench_greta.py`` compares).
    """
    negative = [
        [(t[0].time, t[-1].time) for t in _trends(n, predicates, events, budget)]
        for n in template.negations
    ]
    kept, pointers = _pointers(template, predicates, events, negative, budget)
    # negation first or last in the outermost SEQ: no such negative trend in the window
    # before the trend's first event (leading) or after its last event (trailing)
    lead = (
        [t[-1].time for t in _trends(template.leading, predicates, events, budget)]
        if (template.leading)
        else []
    )
    trail = (
        [t[0].time for t in _trends(template.trailing, predicates, events, budget)]
        if (template.trailing)
        else []
    )
    yield from _walk(template, kept, pointers, lead, trail, budget)


def _pointers(
    template: Template,
    predicates: Predicates,
    events: list[Event],
    negative: list[list[tuple[float, float]]],
    budget: _Budget,
) -> tuple[list[Event], list[list[int]]]:
    """The events of ``template`` that start a trend or follow a kept one, with each one's
    positions of its predecessors among them (``negative``: per negation, its trends'
    first and last times)."""
    mine = [e for e in events if e.type in template.types]
    pred_types: dict[str, list[tuple[str, int | None]]] = {}
    for x in template.transitions:
        pred_types.setdefault(x.target, []).append((x.source, x.guard))
    pointers: list[list[int]] = []
    kept: list[Event] = []
    for e in mine:
        budget.check()
        links = _links(e, kept, pred_types.get(e.type, ()), predicates, negative)
        if e.type in template.starts or links:
            kept.append(e)
            pointers.append(links)
    return kept, pointers


def _links(
    e: Event,
    kept: list[Event],
    sources: Iterable[tuple[str, int | None]],
    predicates: Predicates,
    negative: list[list[tuple[float, float]]],
) -> list[int]:
    """The positions in ``kept`` of ``e``'s predecessors: earlier events of a ``sources``
    type whose edge predicates hold and whose edge no negative trend of its guard encloses."""
    links = []
    for i, p in enumerate(kept):
        if p.time >= e.time:
            continue
        for source, guard in sources:
            if p.type != source:
                continue
            edge = predicates.edges.get((p.type, e.type))
            if edge is not None and not edge.holds(p.attrs, e.attrs):
                continue
            if guard is not None and any(p.time < s and end < e.time for s, end in negative[guard]):
                continue
            links.append(i)
    return links


def _walk(
    template: Template,
    kept: list[Event],
    pointers: list[list[int]],
    lead: list[float],
    trail: list[float],
    budget: _Budget,
) -> Iterator[list[Event]]:
    """The trends along the pointers, from each END event back to a START event (none with
    a trailing negative trend after its end or a leading one before its start)."""
    for i, e in enumerate(kept):
        if e.type not in template.ends or any(s > e.time for s in trail):
            continue
        stack: list[tuple[int, list[Event]]] = [(i, [e])]
        while stack:
            j, path = stack.pop()
            if kept[j].type in template.starts and not any(end < kept[j].time for end in lead):
                budget.tick()
                yield path[::-1]
            for p in pointers[j]:
                stack.append((p, [*path, kept[p]]))


def _aggregate(compiled: CompiledQuery, trends: Iterable[list[Event]]) -> Any:
    agg = compiled.query.returns
    assert agg is not None
    count = count_e = 0
    total: Any = 0
    best: Any = None
    for trend in trends:
        count += 1
        for e in trend:
            if e.type != agg.type:
                continue
            count_e += 1
            if agg.attribute is not None:
                v = e.attrs[agg.attribute]
                total += v
                if best is None or (v < best if agg.function == "MIN" else v > best):
                    best = v
    if agg.function == "COUNT":
        return count if agg.type is None else count_e
    if agg.function == "SUM":
        return total
    if agg.function == "AVG":
        return total / count_e if count_e else None
    return best


def two_step_aggregates(
    query: Query,
    events: Iterable[Event | Mapping[str, Any]],
    window: float,
    slide: float | None = None,
    limit: int | None = 10**7,
    deadline: float | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the same results as GRETA by constructing every trend (SASE-style two-step)."""
    compiled = compile_query(query, window, slide)
    budget = _Budget(limit, deadline)
    per_window: dict[int, dict[tuple[Any, ...], list[Event]]] = {}
    for item in events:
        e = as_event(item)
        if not compiled.admits(e):
            continue
        group = compiled.group_of(e)
        if group is None:
            continue
        for w in windows_of(e.time, compiled.window, compiled.slide):
            per_window.setdefault(w, {}).setdefault(group, []).append(e)
    for w in sorted(per_window):
        start, end = window_bounds(w, compiled.window, compiled.slide)
        groups = per_window[w]
        for group in sorted(groups, key=repr):
            evs = groups[group]
            if not any(e.type in compiled.positive_types for e in evs):
                continue
            trends = _trends(compiled.pattern.template, compiled.pattern.predicates, evs, budget)
            value = _aggregate(compiled, trends)
            if isinstance(value, float) and math.isnan(value):
                value = None
            yield {
                "query": query.name,
                "window_start": start,
                "window_end": end,
                "group": list(group),
                "value": value,
            }
