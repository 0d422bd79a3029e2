"""A workload's matches over a trace, by one engine per query on one node (``inev match``).

:func:`match_workload` is the library behind ``inev match`` and the simulator's centralized
check (the reference every distributed run is compared with): it builds one
:class:`~.engine.Engine` per query, and a GRETA aggregator (:mod:`.greta`) per ``return``
query GRETA can evaluate exactly, and streams the events through them in one pass
(:func:`.replay.replay`). :class:`MatchOptions` holds the knobs; the flags of the command
line map onto it one to one.

>>> from inev.workloads.workload import Query, Workload
>>> from inev.simulator.engine.events import make_event
>>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)")])
>>> events = [make_event(0.0, "A", 0, 1), make_event(1.0, "B", 0, 2), make_event(2.0, "B", 0, 3)]
>>> found = []
>>> run = match_workload(wl, [events], write=lambda q, ms: found.extend(ms))
>>> run.counts.matches, [tuple(e.id for e in m) for m in found]
({'q': 2}, [(1, 2), (1, 3)])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.engine_options import DEFAULT_ADAPTATION, DEFAULT_ENGINE_PLAN
from inev.simulator.engine.events import Event
from inev.simulator.engine.replay import ReplayCounts, replay
from inev.simulator.engine.selection import Selection
from inev.simulator.engine.size import SizeGuard
from inev.workloads.workload import Query, Workload

ENGINE_PLANS = ("greedy", "zstream")
ADAPTIVE = ("invariant", "always", "threshold", "off")


@dataclass(frozen=True)
class MatchOptions:
    """How one node's engines evaluate: plan generation, re-optimisation, GRETA, size guard.

    Parameters
    ----------
    plan : str
        ``greedy`` or ``zstream`` (:data:`ENGINE_PLANS`).
    adaptation : Adaptation
        The re-optimisation policy (:func:`adaptation_of`).
    aggregate : bool
        Let ``return`` queries that GRETA evaluates exactly aggregate without building
        trends (their results go to ``write_result``).
    guard : bool
        Watch the partial matches the engines hold and refuse a run that would exhaust memory.
    selection : Selection or None
        Chooses among the matches (a query with one aggregates from its kept matches).

    Examples
    --------
    Both plan generators find the same matches:

    >>> from inev.simulator.engine.api import compile_workload
    >>> from inev.simulator.engine.events import make_event
    >>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B, C)")])
    >>> events = [make_event(t, "ABC"[t], 0, t) for t in range(3)]
    >>> [compile_workload(wl, MatchOptions(plan=p)).run(events).matches for p in ENGINE_PLANS]
    [{'q': [(0, 1, 2)]}, {'q': [(0, 1, 2)]}]
    """

    plan: str = DEFAULT_ENGINE_PLAN
    adaptation: Adaptation = field(default_factory=lambda: Adaptation(DEFAULT_ADAPTATION))
    aggregate: bool = True
    guard: bool = True
    selection: Selection | None = None
    """Selection strategy and consumption policies (:mod:`.selection`); None: skip-till-
    any-match, the default (and the only strategy the planner's rate model counts)."""


def adaptation_of(
    kind: str,
    k: int | None = Adaptation.k,
    distance: str = Adaptation.distance,
    check_every: int = Adaptation.check_every,
) -> Adaptation:
    """The :class:`Adaptation` of the command line's ``--adaptive``, ``--invariants``,
    ``--distance`` and ``--check-every`` (checked: bad values raise one-line errors).

    >>> adaptation_of("invariant", distance="0.5").distance
    0.5
    >>> adaptation_of("invariant", distance="far")
    Traceback (most recent call last):
    inev.common.errors.InevError: distance must be a number, 'auto' or 'average', got 'far'
    """
    d: float | str = distance
    if distance not in ("auto", "average"):
        try:
            d = float(distance)
        except ValueError:
            raise InevError(
                f"{option('distance')} must be a number, 'auto' or 'average', got {distance!r}"
            ) from None
        if d < 0:
            raise InevError(f"{option('distance')} must not be negative, got {distance}")
    if (k is not None and k < 1) or check_every < 1:
        raise InevError(
            f"{option('k', flag='invariants')} and {option('check_every')} must be at least 1"
        )
    return Adaptation(kind, k=k, distance=d, check_every=check_every)


@dataclass
class Matching:
    """One run of :func:`match_workload`: its counts, engines, aggregators and notes."""

    counts: ReplayCounts
    engines: dict[str, Engine]
    aggregated: dict[str, Any]
    notes: list[str]


def _engine(query: Query, workload: Workload, options: MatchOptions) -> Engine:
    """The engine :func:`match_workload` runs for ``query``."""
    return Engine.from_query(
        query,
        workload,
        plan=options.plan,
        adaptation=options.adaptation,
        selection=_selection_for(query, options.selection),
    )


def check_engines(
    workload: Workload,
    options: MatchOptions | None = None,
    skip: Iterable[str] = (),
    origin: str = "workload",
) -> None:
    """Build the engine of every query of ``workload`` (but those in ``skip``, which GRETA
    evaluates) and discard it, so that what the engine does not support is refused in one
    line naming ``origin`` and the query, before a trace is read.

    >>> from inev.workloads.workload import Query
    >>> wl = Workload.build(1.0, [Query.build("k", "SEQ(A, KL(KL(E){2,3}){2,3})", where="NEXT(E).v > 2")])
    >>> check_engines(wl, origin="wl.json")
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: wl.json: query k: where conjunct NEXT(E).v > 2: NEXT or a position of a Kleene leaf nested in a Kleene closure over a composite (not supported)
    """
    options = options or MatchOptions()
    skipped = set(skip)
    for q in workload.queries:
        if q.name in skipped:
            continue
        try:
            _engine(q, workload, options)
        except InevError as exc:
            raise InevError(f"{origin}: query {q.name}: {exc}") from None


def match_workload(
    workload: Workload,
    chunks: Iterable[Sequence[Event]],
    options: MatchOptions | None = None,
    *,
    write: Callable[[str, list], None] | None = None,
    write_result: Callable[[dict[str, Any]], None] | None = None,
    skip: Iterable[str] = (),
    progress: Callable[[float], None] | None = None,
) -> Matching:
    """Evaluate every query of ``workload`` (but those in ``skip``) over time-ordered chunks.

    ``write(query, matches)`` receives matches as they become final, ``write_result`` each
    GRETA result after all matches. A ``return`` query that GRETA cannot evaluate exactly
    builds matches instead; the reason is kept in ``notes``.
    """
    options = options or MatchOptions()
    skipped = set(skip)
    queries = [q for q in workload.queries if q.name not in skipped]
    aggregated: dict[str, Any] = {}
    notes: list[str] = []
    if _aggregates(options):
        from inev.simulator.engine.greta import GretaQuery

        compiled, notes = _greta_compiled(workload, queries)
        aggregated = {name: GretaQuery(c) for name, c in compiled.items()}
    engines = {q.name: _engine(q, workload, options) for q in queries if q.name not in aggregated}
    guard = SizeGuard(engines, workload.window) if options.guard else None
    counts = replay(
        workload,
        iter(chunks),
        engines,
        aggregated,
        write or (lambda _name, _matches: None),
        write_result or (lambda _result: None),
        progress=progress,
        guard=guard,
    )
    return Matching(counts, engines, aggregated, notes)


def _selection_for(query: Any, selection: Selection | None) -> Selection | None:
    """``selection`` for one query: the consumed and freezing leaves it has (the options
    name leaves of every query of the workload at once)."""
    if selection is None or selection.default:
        return None
    leaves = set(query.types) | {"*"}
    return replace(selection, consume=selection.consume & leaves, freeze=selection.freeze & leaves)


def _aggregates(options: MatchOptions) -> bool:
    """Whether ``return`` queries aggregate with GRETA: asked for, and every match counts
    (a selection strategy keeps some of them: those queries aggregate nothing, they are
    written as matches)."""
    return options.aggregate and (options.selection is None or options.selection.default)


def greta_queries(workload: Workload, options: MatchOptions | None = None) -> frozenset[str]:
    """The queries :func:`match_workload` aggregates with GRETA (no trend built): the
    ``return`` queries GRETA evaluates exactly, when ``options`` aggregate.

    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, KL(B), C)", returns="COUNT(*)"),
    ...                           Query.build("r", "SEQ(A, B)")])
    >>> sorted(greta_queries(wl))
    ['q']
    """
    if not _aggregates(options or MatchOptions()):
        return frozenset()
    return frozenset(_greta_compiled(workload, workload.queries)[0])


def _greta_compiled(workload: Workload, queries: Iterable[Any]) -> tuple[dict[str, Any], list]:
    """GRETA's compiled form of every ``return`` query it accepts; why the others are not."""
    from inev.simulator.engine.greta import compile_query

    compiled: dict[str, Any] = {}
    notes: list[str] = []
    for q in queries:
        if q.returns is None:
            continue
        try:
            compiled[q.name] = compile_query(q, workload.window, workload.slide)
        except InevError as exc:
            notes.append(f"{exc}; its matches are written instead")
    return compiled, notes


def match_ids(
    workload: Workload,
    events: Sequence[Event],
    options: MatchOptions | None = None,
    skip: Iterable[str] = (),
) -> dict[str, Counter]:
    """How often each match (the tuple of its events' ids) is found, per query: the
    centralized reference of the simulator. ``events`` must be in time order; every query
    builds its matches (no GRETA aggregation) unless ``options`` says otherwise."""
    found: dict[str, Counter] = {q.name: Counter() for q in workload.queries}

    def count(name: str, matches: list) -> None:
        tally = found[name]
        for match in matches:
            tally[tuple(e.id for e in match)] += 1

    options = options or MatchOptions(aggregate=False, guard=False)
    run = match_workload(workload, [events], options, write=count, skip=skip)
    return {name: found[name] for name in run.engines}
