"""How big evaluating a workload over a recorded trace will be, before and while running it.

Skip-till-any-match semantics make partial matches explode (a SEQ of k types over windows
holding c events of each has about c^k candidates, a Kleene type 2^c trends), and a trace
gives no rates to reason about, only counts. So the check reads the trace once
(:func:`inev.common.traces.scan_trace`) and counts, per type, the events of its **busiest
window** c(e) (an upper bound: the most events in two adjacent window-sized bins).

**Per key.** Equality conjuncts partition the engines' buffers (:mod:`.keys`): partial
matches over types that share a key exist only within one key. For a class of equal
attributes the scan counts events per key value, n_k(e), and scales them to the busiest
window, c_k(e) = n_k(e) · c(e) / N(e) (N(e): all events of e). Then a set S of types holds

    σ(S) · Π over the key classes K that S meets: Σ_k Π_{e ∈ S ∩ K} c_k(e)
         · Π over the other types of S: c(e)      (2^c(e) trends for a Kleene type)

partial matches in the busiest window (σ(S): the declared pairwise selectivities, which the
engines realise; the ``where`` clause beyond its keys is left out, so the figure is an upper
bound). The estimate of a query is the largest over the subsets S of its positive types (a
partial match is a match of some part of the pattern; the engine may hold any of them), its
matches per window that of all its positive types. A match binds distinct events, so the
leaves of S over one stream with c events take at most c!/(c - m)! bindings, C(c, m) where the
pattern orders them all (:mod:`.subsets`, which also finds the largest subset without trying
every one).

**While running**, :class:`SizeGuard` sums the partial matches the engines hold every few
thousand events and stops the run with the same kind of message if they pass a limit the
estimate should have kept them under.

**GRETA queries.** A ``return`` query that GRETA aggregates (:mod:`.greta`) builds no trend:
its state is one graph vertex per event of its types in each window holding the event, so
it is priced at Σ_e c(e) · ⌈window / slide⌉ vertices, whatever the number of trends (a
window with 80 events of a Kleene type holds 2^80 - 1 trends and 80 vertices).

**The limit is memory, not a count.** The engines of a query hold up to one buffer per node
of their plan (2k - 1 for k types), each at most the estimate, and a partial match of k types
takes about :func:`bytes_per_partial_match` bytes (measured by
``benchmarks/bench_partial_match_bytes.py``). A run is refused when that exceeds the size
budget, :func:`inev.common.watchdog.size_budget`: half of the memory limit
(``INEV_MAX_MEMORY``, else what the machine has available), so a refusal means "this would
not fit here", on this machine.

>>> from collections import Counter
>>> from inev.common.traces import TraceScan
>>> from inev.workloads.workload import Query, Workload
>>> wl = Workload.build(10.0, [Query.build("q", "SEQ(A, B)", where="A.k == B.k")])
>>> scan = TraceScan(rows=40, counts=Counter({"A": 20, "B": 20}),
...     busiest={"A": 10, "B": 10},
...     keys={("A", "k"): Counter({1: 10, 2: 10}), ("B", "k"): Counter({1: 10, 2: 10})})
>>> round(estimate_from_scan(wl, scan).partial_matches["q"])  # 2 keys x 5 x 5, not 10 x 10
50
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.common.traces import TraceScan, scan_trace
from inev.common.watchdog import show_bytes, size_budget
from inev.simulator.engine.keys import equality_classes
from inev.simulator.engine.subsets import (
    Bindings,
    kleene_leaf_bounds,
    largest_subset_bound,
    log2_trends,
    subset_bound,
)
from inev.workloads.expressions import Attr, conjuncts
from inev.workloads.pattern import event_types, leaf_order
from inev.workloads.workload import Query, Workload

MAX_PARTIAL_MATCHES: float | None = None
"""Estimated partial matches per busiest window above which a run is refused (``None``: from
the size budget, :func:`partial_match_limit`)."""
MAX_HELD: int | None = None
"""Partial matches held at once above which a running replay is stopped (``None``: what the
size budget holds of partial matches of the workload's longest query)."""
CHECK_EVERY = 16_384
"""Events between two checks of a running replay."""


@dataclass(frozen=True)
class TraceSize:
    """Estimated partial matches and matches per busiest window, per (OR-free) query."""

    partial_matches: dict[str, float]
    matches_per_window: dict[str, float]
    keyed: dict[str, tuple[str, ...]]
    """Per query, the key attributes its estimate partitioned by (``A.bid``, …)."""


def _classes(query: Query) -> list[tuple[Attr, ...]]:
    if query.where is None:
        return []
    kleene = query.kleene
    negated = query.negated
    items = [c for c in conjuncts(query.where) if not any(a.type in negated for a in _attrs(c))]
    return equality_classes(items, kleene | negated)


def _attrs(condition: Any) -> Any:
    from inev.workloads.expressions import condition_attributes

    return condition_attributes(condition)


def key_columns(workload: Workload) -> dict[str, list[str]]:
    """``{type: [attribute, …]}`` whose values the estimate counts (the scan's ``keys``)."""
    out: dict[str, set[str]] = {}
    for q in workload.or_free.queries:
        for members in _classes(q):
            for a in members:
                out.setdefault(q.stream_of(a.type), set()).add(a.name)
    return {t: sorted(names) for t, names in out.items()}


def bytes_per_partial_match(types: int) -> float:
    """Bytes one buffered partial match of ``types`` types takes: its tuple, binding, list
    slot and a key index entry (``benchmarks/bench_partial_match_bytes.py`` measured 144 to
    190 bytes for 3 to 8 types with tracemalloc; this line lies above every figure).

    >>> bytes_per_partial_match(4)
    172.0
    """
    return 140.0 + 8.0 * types


def partial_match_limit(types: int, budget: float | None = None) -> float:
    """Estimated partial matches per busiest window that a query of ``types`` types may
    reach: the size budget over the bytes of its plan's buffers (module docstring).

    >>> round(partial_match_limit(4, budget=2**30))
    891812
    """
    budget = size_budget() if budget is None else budget
    return budget / (bytes_per_partial_match(types) * (2 * types - 1))


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else -math.inf


def estimate_from_scan(
    workload: Workload, scan: TraceScan, aggregated: Collection[str] = ()
) -> TraceSize:
    """The size estimate of ``workload`` over a scanned trace (module docstring); the queries
    named in ``aggregated`` are evaluated by GRETA and priced by their graph's vertices."""
    partial: dict[str, float] = {}
    matches: dict[str, float] = {}
    keyed: dict[str, tuple[str, ...]] = {}
    windows = math.ceil(workload.window / (workload.slide or workload.window) - 1e-9)
    for q in workload.queries:
        if q.name in aggregated:
            vertices = sum(
                float(scan.busiest.get(q.stream_of(t), 0)) for t in dict.fromkeys(q.types)
            )
            partial[q.name] = vertices * windows
            matches[q.name] = 0.0
            keyed[q.name] = ()
    for q in workload.or_free.queries:
        if q.name.split("/")[0] in aggregated:
            continue
        kleene = q.kleene
        types = [t for t in q.types if t not in q.negated]
        # a variable's events are its type's (a leaf reads its stream)
        busiest = {t: float(scan.busiest.get(q.stream_of(t), 0)) for t in types}
        classes = _key_classes(q, scan, busiest)
        used: set[str] = set()
        # 2^c trends of a Kleene type in a window holding c of its events
        log2_counts = {t: c if t in kleene else _log2(c) for t, c in busiest.items()}
        for t, (low, high) in kleene_leaf_bounds(q.pattern).items():  # at most high of them
            if t in log2_counts:
                log2_counts[t] = log2_trends(int(busiest[t]), low, high)
        selectivity = q.realised_selectivity
        bindings = _bindings(q, types, scan, workload.ties == "strict")
        best = largest_subset_bound(types, selectivity, log2_counts, classes, bindings)
        partial[q.name] = exp2(best)
        whole = subset_bound(types, selectivity, log2_counts, classes, used, bindings)
        matches[q.name] = exp2(whole)
        keyed[q.name] = tuple(sorted(used))
    return TraceSize(partial, matches, keyed)


def _key_classes(q: Query, scan: TraceScan, busiest: Mapping[str, float]) -> list[tuple]:
    """The equality classes of ``q`` that join two or more of its types, each with its
    types' key counts scaled to their busiest window (from the scanned key histograms)."""
    classes = []
    for members in _classes(q):
        per_type: dict[str, Mapping[Any, float]] = {}
        for a in members:
            if a.type in per_type or a.type not in busiest:
                continue
            counts = scan.keys.get((q.stream_of(a.type), a.name))
            total = scan.counts.get(q.stream_of(a.type), 0)
            if counts is None or not total:
                continue
            scale = busiest[a.type] / total
            per_type[a.type] = {k: n * scale for k, n in counts.items()}
        if len(per_type) > 1:
            classes.append((members, per_type))
    return classes


def _bindings(q: Query, types: Sequence[str], scan: TraceScan, strict: bool) -> Bindings:
    """What distinct events allow the leaves of ``q`` over the scanned trace: each leaf's
    stream, each stream's events in its busiest window, the leaf pairs the pattern orders."""
    streams = {t: q.stream_of(t) for t in types}
    events = {s: int(scan.busiest.get(s, 0)) for s in streams.values()}
    kept = set(types)
    ordered = frozenset(
        frozenset(pair) for pair in leaf_order(q.pattern) if pair[0] in kept and pair[1] in kept
    )
    return Bindings(streams, events, ordered, strict, q.kleene)


def exp2(value: float) -> float:
    """2 to the ``value`` (a log2 size), infinite where a float would overflow.

    >>> exp2(3.0), exp2(2000.0)
    (8.0, inf)
    """
    return math.inf if value > 1023 else 2.0**value


def show_count(value: float) -> str:
    """A size for a message: three digits, or "more than 1e308" when infinite.

    >>> show_count(1234567.0), show_count(math.inf)
    ('1.23e+06', 'more than 1e308')
    """
    return "more than 1e308" if math.isinf(value) else f"{value:.3g}"


def check_trace_size(
    workload: Workload,
    scan: TraceScan,
    trace_name: str,
    max_partial_matches: float | None = None,
    aggregated: Collection[str] = (),
) -> TraceSize:
    """Raise :class:`InevError` naming the query, the knob and the estimate when evaluating
    ``workload`` over the scanned trace would hold more partial matches than fit in memory
    (:func:`partial_match_limit`; ``max_partial_matches``, or :data:`MAX_PARTIAL_MATCHES`
    when set, replaces that limit); ``aggregated`` as in :func:`estimate_from_scan`."""
    if max_partial_matches is None:
        max_partial_matches = MAX_PARTIAL_MATCHES
    size = estimate_from_scan(workload, scan, aggregated)
    split = workload.or_free
    for name, value in size.partial_matches.items():
        q = workload.query(name) if name in aggregated else split.query(name)
        types = len(q.types)
        limit = max_partial_matches
        if limit is None:
            limit = partial_match_limit(types)
        if value <= limit:
            continue
        raise InevError(_refusal(workload, q, value, limit, trace_name, size.keyed[name]))
    return size


def _refusal(
    workload: Workload,
    q: Query,
    value: float,
    limit: float,
    trace_name: str,
    keys: tuple[str, ...],
) -> str:
    """The one line refusing ``q``: estimate, memory, the knob."""
    hint = (
        f"already partitioned by {', '.join(keys)}: shorten the window"
        if keys
        else "shorten the window, or join on a key (an equality such as A.id == B.id "
        "partitions partial matches by its value)"
    )
    kleene = " (a Kleene type's trends double with every event in a window)" if q.kleene else ""
    types = len(q.types)
    memory = value * bytes_per_partial_match(types) * (2 * types - 1)
    allowed = limit * bytes_per_partial_match(types) * (2 * types - 1)
    return (
        f"query {q.name}: about {show_count(value)} partial matches in the busiest window "
        f"({workload.window:g}) of {trace_name} would take about {_show_bytes(memory)}, over "
        f"the {_show_bytes(allowed)} the size check allows (half the memory limit; "
        f"INEV_MAX_MEMORY sets it){kleene}: {hint}, or pass "
        f"{option('guard=False', flag='no_size_check')}"
    )


def _show_bytes(value: float) -> str:
    return "more than 1e308 bytes" if math.isinf(value) else show_bytes(value)


def scan_for(workload: Workload, trace: Any, check_ids: bool = True) -> TraceScan:
    """Scan ``trace`` with what the size check of ``workload`` needs (windows and keys)."""
    return scan_trace(
        trace, window=workload.window, keys=key_columns(workload), check_ids=check_ids
    )


class SizeGuard:
    """Stops a running replay whose engines hold more partial matches than ``limit``.

    Call :meth:`tick` once per event; every ``every`` events (default
    :data:`CHECK_EVERY`) it sums the partial matches of ``engines`` (``{query: engine or
    engines}``) and raises :class:`InevError` naming the biggest query, the time reached and
    the knob when they pass ``limit`` (default :data:`MAX_HELD`, else what the size budget
    holds of partial matches of the longest pattern).
    """

    def __init__(
        self,
        engines: Mapping[str, Any],
        window: float,
        limit: int | None = None,
        every: int | None = None,
    ) -> None:
        self.engines = engines
        self.window = window
        if limit is None:
            limit = MAX_HELD
        if limit is None:
            longest = max((_engine_types(e) for e in engines.values()), default=1)
            limit = int(size_budget() / bytes_per_partial_match(longest))
        self.limit = limit
        self.every = CHECK_EVERY if every is None else every
        self.count = 0

    def tick(self, time: float) -> None:
        """Count one event; check the engines' memory every ``every`` events."""
        self.count += 1
        if self.count % self.every:
            return
        self.check(time)

    def check(self, time: float) -> None:
        """Sum the partial matches held and stop the run if they pass the limit."""
        held: dict[str, int] = {}
        for name, engines in self.engines.items():
            group = engines if isinstance(engines, list | tuple) else [engines]
            held[name] = sum(e.partial_match_count() for e in group)
        total = sum(held.values())
        if total > self.limit:
            worst = max(held, key=held.__getitem__)
            raise InevError(
                f"query {worst}: {held[worst]:,} partial matches held at time {time:g} "
                f"({total:,} in all) passed the limit of {self.limit:,} during the run: "
                f"shorten the window ({self.window:g}) or join on a key"
            )


def _engine_types(engines: Any) -> int:
    """The most types of a pattern among ``engines`` (one engine or several)."""
    group = engines if isinstance(engines, list | tuple) else [engines]
    return max((len(event_types(e.pattern)) for e in group), default=1)
