"""The centralized reference of a simulation: what one engine per query finds on the same trace.

Every run is checked against it (INEv §5: a distributed plan must find exactly the matches of
centralized evaluation), and its ratio is measured against gathering the trace at the plan's
centralized node. Two forms, one interface (:class:`Reference`), chosen by
:func:`centralized_reference` from whether the events are held in memory:

- :class:`HeldReference`: after the run, one engine per query over the sorted trace
  (:func:`centralized_matches`), compared match by match with the sinks'
  (:func:`~inev.simulator.simulation_result.compare_matches`);
- :class:`StreamedReference`: the engines run in the same pass as the plan, fed each event as
  the sources hand it over, and a :class:`~inev.simulator.simulation_result.MatchBalance` per
  query forgets a match once both sides found it, so memory holds the matches in flight.

Either gives a :class:`ReferenceOutcome`, which :func:`inev.simulator.measurer.measure` reads.
"""

from __future__ import annotations

import operator
import time
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.engine_options import DEFAULT_ENGINE_PLAN
from inev.simulator.engine.events import Event
from inev.simulator.engine.matching import MatchOptions, match_ids
from inev.simulator.epoch_execution import ExecutedRun, RunGuard, RunHooks, Scenario
from inev.simulator.measurement import centralized_gathering, gathering
from inev.simulator.simulation_result import MatchBalance, compare_matches
from inev.simulator.sources import without_variables
from inev.simulator.tally import Tally
from inev.workloads.workload import Workload

_TIME_ID = operator.attrgetter("time", "id")


@dataclass(frozen=True)
class ReferenceOutcome:
    """The run against its reference: matches per query at the sinks (``found``) and
    centrally (``expected``), the ``missing`` and ``extra`` matches, the messages of
    ``gathering`` the trace at the centralized node, the seconds the reference took and,
    for a held reference, its matches themselves (``central``; None when streamed)."""

    found: dict[str, int]
    expected: dict[str, int]
    missing: int
    extra: int
    gathering: int
    check_seconds: float
    central: Mapping[str, Counter] | None = None


class Reference(Protocol):
    """A run's centralized reference (module doc)."""

    events: list[Event] | None
    """The trace held in memory (None: streamed)."""

    def watching(self) -> RunHooks:
        """The hooks of one execution that the reference watches (a fresh tally and size
        guard each time: a capacity run executes more than once)."""
        ...

    def outcome(self, run: ExecutedRun, skip: Iterable[str]) -> ReferenceOutcome:
        """The finished ``run`` against the reference (``skip``: queries checked by their
        aggregates alone, whose sinks kept no match)."""
        ...

    def release(self) -> None:
        """Free the reference's engines (after the run's counters are read)."""
        ...


def centralized_reference(scenario: Scenario, events: list[Event] | None) -> Reference:
    """:class:`HeldReference` over ``events``, or :class:`StreamedReference` when the events
    stream (``None``)."""
    if events is None:
        return StreamedReference(scenario)
    return HeldReference(scenario, events)


def centralized_matches(
    workload: Workload,
    events: Sequence[Event],
    engine_plan: str = DEFAULT_ENGINE_PLAN,
    skip: Iterable[str] = (),
) -> dict[str, Counter]:
    """Matches of every query (but those in ``skip``) by one engine over the sorted trace:
    :func:`inev.simulator.engine.matching.match_ids` with static plans (no re-optimisation:
    the reference must not depend on when an engine re-plans). ``events`` may hold the
    plan's copies of events per variable (:func:`~inev.simulator.sources.with_variables`):
    the reference reads each event once, as the trace had it.

    >>> from inev.simulator.engine.events import make_event
    >>> from inev.workloads.workload import Query
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    >>> trace = [make_event(0.5, "B", 0, 2), make_event(0.2, "A", 0, 0), make_event(0.4, "B", 1, 1)]
    >>> sorted(centralized_matches(wl, trace)["q"])
    [(0, 1), (0, 2)]
    """
    options = MatchOptions(engine_plan, Adaptation("off"), aggregate=False, guard=False)
    originals = without_variables(events, workload)
    return match_ids(workload, sorted(originals, key=_TIME_ID), options, skip=skip)


class HeldReference:
    """The reference over a trace held in memory, evaluated after the run; the gathering
    cost is summed over the epochs (each epoch's events at its network and plan)."""

    def __init__(self, scenario: Scenario, events: list[Event]) -> None:
        self.scenario = scenario
        self.events: list[Event] | None = events

    def watching(self) -> RunHooks:
        scenario = self.scenario
        if not scenario.options.check:
            return RunHooks()
        guard = RunGuard(scenario.plan, scenario.workload.window)
        return RunHooks(on_event=guard.tick, installed=guard.install)

    def outcome(self, run: ExecutedRun, skip: Iterable[str]) -> ReferenceOutcome:
        wl, events = self.scenario.workload, self.events or []
        checking = time.perf_counter()
        central = centralized_matches(wl, events, self.scenario.options.engine_plan, skip=skip)
        check_seconds = time.perf_counter() - checking
        found = run.tally.sink_found
        missing, extra = compare_matches(found, central)
        gathered = sum(
            centralized_gathering(net_k, wl, plan_k, [e for e in events if start <= e.time < stop])
            for start, stop, net_k, plan_k, _ in self.scenario.epochs
        )
        return ReferenceOutcome(
            found={q: sum(c.values()) for q, c in found.items()},
            expected={q: sum(c.values()) for q, c in central.items()},
            missing=missing,
            extra=extra,
            gathering=gathered,
            check_seconds=check_seconds,
            central=central,
        )

    def release(self) -> None:
        return None


class StreamedReference:
    """The reference evaluated in the same pass as a streamed run (one epoch: no changes).
    Its engines count in the run's size guard, which watches every streamed run."""

    events: list[Event] | None = None

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        wl, options = scenario.workload, scenario.options
        self.balances = {q.name: MatchBalance() for q in wl.queries}
        self.central = {
            q.name: Engine.from_query(q, wl, plan=options.engine_plan) for q in wl.queries
        }
        self.per_node: Counter = Counter()
        self.guard: RunGuard | None = None  # the run's, once watching

    def watching(self) -> RunHooks:
        plan, balances = self.scenario.plan, self.balances
        tally = Tally()
        for name in plan.sinks:
            tally.sink_found[name] = balances[name]
            tally.latencies[name] = array("d")
        routes: dict[str, list[tuple[MatchBalance, Engine]]] = {}
        for q in self.scenario.workload.queries:
            for t in dict.fromkeys(q.types):
                routes.setdefault(t, []).append((balances[q.name], self.central[q.name]))
        self.guard = guard = RunGuard(plan, self.scenario.workload.window)
        for q, engine in self.central.items():
            guard.engines[q] = [engine]
        per_node, tick = self.per_node, guard.tick

        def on_event(event: Event) -> None:
            per_node[event.node] += 1
            for balance, engine in routes.get(event.type, ()):
                for match in engine.push(event):
                    balance.expect(tuple(e.id for e in match))
            tick(event)

        return RunHooks(on_event=on_event, tally=tally, installed=guard.install)

    def outcome(self, run: ExecutedRun, skip: Iterable[str]) -> ReferenceOutcome:
        plan, balances = self.scenario.plan, self.balances
        checking = time.perf_counter()
        for name, engine in self.central.items():
            for match in engine.flush():
                balances[name].expect(tuple(e.id for e in match))
        check_seconds = time.perf_counter() - checking
        missing = extra = 0
        for name in plan.sinks:
            m, x = balances[name].missing_extra()
            missing += m
            extra += x
        return ReferenceOutcome(
            found={q: balances[q].found for q in plan.sinks},
            expected={q: b.expected for q, b in balances.items()},
            missing=missing,
            extra=extra,
            gathering=gathering(self.scenario.network, plan, self.per_node),
            check_seconds=check_seconds,
        )

    def release(self) -> None:
        if self.guard is None:
            return
        for group in self.guard.engines.values():
            for engine in group:
                engine.release()
