"""The local CEP engine's public API: compile a workload, feed it events, read what it found.

This module is the one door into :mod:`inev.simulator.engine` for code outside it (the README,
notebooks, other layers); the modules behind it are the engine's parts and may change. It is
deliberately small:

:func:`compile_workload`
    A :class:`~inev.workloads.workload.Workload` checked and prepared for one node: which
    ``return`` queries GRETA aggregates without building trends, and why the others cannot be.
:meth:`CompiledWorkload.run`
    Feed events (one iterable, or time-ordered chunks of them) through one adaptive engine per
    query (invariant-based re-optimisation) and GRETA per aggregated query, in one streaming
    pass; the result is a :class:`Matches` with the matches, aggregates and counters.
:meth:`CompiledWorkload.shed`
    The same events through one node of limited capacity that sheds load (pSPICE or a
    baseline) to keep a latency bound; the result is a :class:`SheddingReport` comparing the
    shed run with the exact one.

Examples
--------
>>> from inev.simulator.engine.api import compile_workload, make_event
>>> from inev.workloads.workload import Query, Workload
>>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)"),
...                           Query.build("n", "SEQ(A, KL(B))", returns="COUNT(*)")])
>>> events = [make_event(0.0, "A", 0, 1), make_event(1.0, "B", 0, 2), make_event(2.0, "B", 0, 3)]
>>> found = compile_workload(wl).run(events)
>>> found.matches["q"]
[(1, 2), (1, 3)]
>>> [cell["value"] for cell in found.aggregates["n"]]
[3]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.matching import MatchOptions, greta_queries, match_workload
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.workloads.workload import Workload

__all__ = [
    "SAFETY_SHARE",
    "CompiledWorkload",
    "Event",
    "MatchOptions",
    "Matches",
    "SheddingOptions",
    "SheddingReport",
    "compile_workload",
    "make_event",
]

_CHUNK = 4096  # events handed to the replay at a time when given one flat iterable

SAFETY_SHARE = 0.1
"""The safety margin of shedding when none is given, as a share of the latency bound (the
pSPICE paper leaves it to the operator; ``inev match --capacity`` uses the same share)."""


@dataclass(frozen=True)
class Matches:
    """What one :meth:`CompiledWorkload.run` found.

    Parameters
    ----------
    matches : dict of str to list of tuple
        Per query that builds matches, each match as the tuple of its events' ids, in the
        order the engine made them final.
    aggregates : dict of str to list of dict
        Per query GRETA aggregates, its result cells (``window_start``, ``window_end``,
        ``group`` and ``value``).
    events : int
        Events read; ``ignored`` of them had a type no query uses.
    ignored : int
        Events of types no query uses.
    reoptimizations : dict of str to int
        Per matching query, how often its invariants asked for a new evaluation plan.
    notes : list of str
        Why a ``return`` query builds matches instead of aggregating.

    Examples
    --------
    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)")])
    >>> events = [make_event(0.0, "A", 0, 1), make_event(1.0, "C", 0, 2), make_event(2.0, "B", 0, 3)]
    >>> found = compile_workload(wl).run(events)
    >>> found.matches, found.events, found.ignored
    ({'q': [(1, 3)]}, 3, 1)
    """

    matches: dict[str, list[tuple]]
    aggregates: dict[str, list[dict[str, Any]]]
    events: int
    ignored: int
    reoptimizations: dict[str, int]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SheddingOptions:
    """How one overloaded node sheds (pSPICE paper §3-§4).

    Parameters
    ----------
    capacity : str or float
        Work units per time unit, or ``"auto:F"``: F times what the exact run needed.
    latency_bound : float or None
        The latency bound the shedder keeps (None: queue without shedding).
    strategy : str
        ``pspice`` or a baseline (:data:`inev.simulator.engine.shedding.shedders.STRATEGIES`).
    cost_per_unit : float
        Time units one work unit takes at capacity 1.
    safety : float or None
        Margin under the bound; None is :data:`SAFETY_SHARE` of the bound.
    seed : int
        Seed of the random shedders.

    Examples
    --------
    >>> SheddingOptions(latency_bound=20.0).margin()    # SAFETY_SHARE of the bound
    2.0
    """

    capacity: str | float = "auto:0.5"
    latency_bound: float | None = None
    strategy: str = "pspice"
    cost_per_unit: float = DEFAULT_COST_PER_UNIT
    safety: float | None = None
    seed: int = 0

    def margin(self) -> float:
        """The safety margin in time units.

        >>> SheddingOptions(latency_bound=20.0).margin(), SheddingOptions().margin()
        (2.0, 0.0)
        """
        if self.safety is not None:
            return self.safety
        return SAFETY_SHARE * self.latency_bound if self.latency_bound is not None else 0.0


@dataclass(frozen=True)
class SheddingReport:
    """The figures of a shed run against the exact one, and what the shed run emitted.

    Parameters
    ----------
    figures : dict
        ``load``, ``capacity``, ``false_negatives``, ``false_positives``,
        ``false_negative_share`` (weighted by the queries' weights), ``bound_violations``,
        ``shed_events``, ``shed_partial_matches``, ``latency`` and per query ``queries``:
        the ``shedding`` record ``inev match --capacity`` writes.
    matches : dict of str to list of tuple
        Per query, the ids of each match the shed run emitted.

    Examples
    --------
    With all the capacity it needs, the node sheds nothing and emits the exact matches:

    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(4.0, [Query.build("q", "SEQ(A, B)")])
    >>> events = [make_event(i, "AB"[i % 2], 0, i) for i in range(4)]   # A0 B1 A2 B3
    >>> report = compile_workload(wl).shed(events, SheddingOptions("auto:1", 5.0))
    >>> sorted(report.matches["q"]), report.figures["false_negatives"]
    ([(0, 1), (0, 3), (2, 3)], 0)
    """

    figures: dict[str, Any]
    matches: dict[str, list[tuple]]


@dataclass(frozen=True)
class CompiledWorkload:
    """A workload prepared for one node; build it with :func:`compile_workload`.

    Parameters
    ----------
    workload : Workload
        The queries, window and slide.
    options : MatchOptions
        Plan generation, re-optimisation policy, GRETA on or off, size guard.
    aggregated : frozenset of str
        The ``return`` queries GRETA aggregates without building trends.

    Examples
    --------
    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)"),
    ...                           Query.build("n", "SEQ(A, KL(B))", returns="COUNT(*)")])
    >>> compiled = compile_workload(wl)
    >>> compiled.aggregated, compiled.options.plan
    (frozenset({'n'}), 'greedy')
    """

    workload: Workload
    options: MatchOptions
    aggregated: frozenset[str]

    def run(self, events: Iterable[Event] | Iterable[Sequence[Event]]) -> Matches:
        """Feed ``events`` (time-ordered; one iterable or chunks of it) in one streaming pass.

        Examples
        --------
        >>> from inev.workloads.workload import Query, Workload
        >>> wl = Workload.build(2.0, [Query.build("q", "AND(A, B)")])
        >>> chunks = [[make_event(0.0, "A", 0, 1)], [make_event(5.0, "B", 0, 2)]]
        >>> compile_workload(wl).run(chunks).matches   # 5 time units apart: outside the window
        {'q': []}
        """
        found: dict[str, list[tuple]] = {
            q.name: [] for q in self.workload.queries if q.name not in self.aggregated
        }
        cells: dict[str, list[dict[str, Any]]] = {name: [] for name in self.aggregated}

        def write(name: str, matches: list) -> None:
            found[name].extend(tuple(e.id for e in m) for m in matches)

        def write_result(result: dict[str, Any]) -> None:
            cells[result["query"]].append(result)

        run = match_workload(
            self.workload,
            _chunks(events),
            self.options,
            write=write,
            write_result=write_result,
        )
        return Matches(
            matches=found,
            aggregates=cells,
            events=run.counts.events,
            ignored=run.counts.ignored,
            reoptimizations={n: e.counters["reoptimizations"] for n, e in run.engines.items()},
            notes=list(run.notes),
        )

    def shed(self, events: Sequence[Event], shedding: SheddingOptions) -> SheddingReport:
        """Run time-ordered ``events`` through one node of limited capacity that sheds load.

        Every query builds matches here (GRETA does not shed); the exact run is the reference.

        Examples
        --------
        >>> from inev.workloads.workload import Query, Workload
        >>> wl = Workload.build(4.0, [Query.build("q", "SEQ(A, B, C)")])
        >>> events = [make_event(i * 0.5, "ABC"[i % 3], 0, i) for i in range(60)]
        >>> report = compile_workload(wl).shed(events, SheddingOptions("auto:0.5", 2.0))
        >>> report.figures["load"], report.figures["queries"]["q"]["reference"]
        (2.0, 112)
        >>> 0 < report.figures["false_negatives"] < 112
        True

        (20 A's 1.5 apart; each but the last two sees 6 (B, C) pairs within the window of 4
        time units, those two 3 and 1: 18 * 6 + 3 + 1 = 112 exact matches; at half the
        capacity it needs, the node must shed some of them.)
        """
        from inev.simulator.engine.shedding.quality import run_overload

        options = self.options

        def make_engines() -> dict[str, Engine]:
            return {
                q.name: Engine.from_query(
                    q, self.workload, plan=options.plan, adaptation=options.adaptation
                )
                for q in self.workload.queries
            }

        figures, outputs = run_overload(
            make_engines,
            list(events),
            shedding.capacity,
            shedding.latency_bound,
            shedding.strategy,
            weights={q.name: q.weight for q in self.workload.queries},
            cost_per_unit=shedding.cost_per_unit,
            safety=shedding.margin(),
            seed=shedding.seed,
        )
        matches = {
            name: [(m.id,) if isinstance(m, Event) else tuple(e.id for e in m) for m in ms]
            for name, ms in outputs.items()
        }
        return SheddingReport(figures=figures, matches=matches)


def compile_workload(workload: Workload, options: MatchOptions | None = None) -> CompiledWorkload:
    """Prepare ``workload`` for one node's engine.

    Parameters
    ----------
    workload : Workload
        The queries to evaluate.
    options : MatchOptions, optional
        Plan generation (``greedy`` or ``zstream``), the re-optimisation policy
        (:func:`inev.simulator.engine.matching.adaptation_of`), GRETA aggregation on or off,
        the size guard. The default is the one of ``inev match``.

    Returns
    -------
    CompiledWorkload
        Run it with :meth:`~CompiledWorkload.run` or :meth:`~CompiledWorkload.shed`.

    Examples
    --------
    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(5.0, [Query.build("n", "SEQ(A, KL(B))", returns="COUNT(*)")])
    >>> sorted(compile_workload(wl).aggregated)
    ['n']
    >>> sorted(compile_workload(wl, MatchOptions(aggregate=False)).aggregated)
    []
    """
    options = options or MatchOptions()
    return CompiledWorkload(workload, options, greta_queries(workload, options))


def _chunks(events: Iterable[Event] | Iterable[Sequence[Event]]) -> Iterable[list[Event]]:
    """Time-ordered chunks from either a flat iterable of events or one of chunks."""
    items = iter(events)
    first = next(items, None)
    if first is None:
        return iter(())
    if isinstance(first, Event):
        flat = chain([first], items)
        return iter(lambda: list(islice(flat, _CHUNK)), [])
    return (list(c) for c in chain([first], items))
