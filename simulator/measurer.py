"""The measurer: the one place a simulation's :class:`SimulationResult` is built.

Whatever the events' source (:mod:`inev.simulator.event_sources`), a run is measured the
same way: the sinks' matches against the centralized reference
(:mod:`inev.simulator.reference`), the network's counters (:func:`run_counters`), the cost
model's messages (ψ of each epoch's plan times the epoch's length, up to the source's
:meth:`~inev.simulator.event_sources.EventSource.horizon`), the aggregates of ``return``
queries, the changes' report and losses, the shedding figures of a capacity run and the
timeline. ``tests/test_layers.py`` checks that no other function constructs a
``SimulationResult`` (but the file reader, ``result_from_dict``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from inev.simulator.aggregation import aggregate_run, result_fields
from inev.simulator.capacity import CapacityModel, shedding_report
from inev.simulator.change_epochs import change_report
from inev.simulator.engine.events import Event
from inev.simulator.epoch_execution import ExecutedRun, Scenario
from inev.simulator.event_sources import EventSource
from inev.simulator.losses import attribute
from inev.simulator.measurement import run_counters
from inev.simulator.reference import Reference, ReferenceOutcome
from inev.simulator.simulation_result import SimulationResult
from inev.simulator.tally import Tally
from inev.simulator.timeline import run_timeline


@dataclass(frozen=True)
class MeasuredRun:
    """The execution to measure and, with a capacity, its model and the unlimited run's
    tally and work per node (the reference of the shedding figures)."""

    executed: ExecutedRun
    capacity: CapacityModel | None = None
    unlimited: tuple[Tally, Counter] | None = None


def measure(
    scenario: Scenario,
    run: MeasuredRun,
    source: EventSource,
    reference: Reference,
    started: float,
) -> SimulationResult:
    """The run against the centralized reference and the model (module doc); ``started``
    is the ``time.perf_counter()`` at which the simulation began."""
    executed, options = run.executed, scenario.options
    sim, tally, executions, duration = (
        executed.sim,
        executed.tally,
        executed.executions,
        options.duration,
    )
    # queries whose sinks aggregated alone have no matches: they are checked by aggregates
    alone = {q for x in executions for r in x.runs.values() if r.alone for q in r.queries}
    for q in alone:
        tally.sink_found.pop(q, None)
        tally.latencies.pop(q, None)
    outcome = reference.outcome(executed, alone)
    counted = run_counters(sim, tally, executions)  # partial matches: before the release
    reference.release()
    events = reference.events
    checking = time.perf_counter()
    aggregations = aggregate_run(
        scenario.workload, executions, tally.sink_found, events or (), scenario.changed
    )
    check_seconds = outcome.check_seconds + time.perf_counter() - checking
    loss_causes, by_change = _loss_causes(scenario, run, outcome, events)
    report = change_report(scenario.epochs, executed.marks, sim.messages, by_change)
    horizon = source.horizon(duration)
    model = sum(
        plan_k.psi * (min(stop, horizon) - start) for start, stop, _, plan_k, _ in scenario.epochs
    )
    return SimulationResult(
        method=scenario.plan.method,
        duration=duration,
        events=executed.events,
        **counted,
        centralized_messages=outcome.gathering,
        model_messages=model,
        matches=outcome.found,
        centralized_matches=outcome.expected,
        missing=outcome.missing,
        extra=outcome.extra,
        wall_seconds=time.perf_counter() - started,
        check_seconds=check_seconds,
        changes=report,
        loss_causes=loss_causes,
        timeline=run_timeline(sim, tally, duration, report, events, outcome.central),
        trace_ignored=source.ignored,
        trace_skipped=source.skipped,
        shedding=_shedding(scenario, run, outcome),
        **result_fields(aggregations),
    )


def _loss_causes(
    scenario: Scenario,
    run: MeasuredRun,
    outcome: ReferenceOutcome,
    events: list[Event] | None,
) -> tuple[dict[str, int], list[dict[str, int]]]:
    """The run's missing matches by cause, and per change (:mod:`inev.simulator.losses`);
    without changes, none. With a capacity, what no change explains is ``shedding``."""
    executions = run.executed.executions
    log = executions[0].losses if executions else None
    if log is None or outcome.central is None:
        return {}, []
    times = {e.id: e.time for e in events or ()}
    fallback = "unexplained" if run.capacity is None else "shedding"
    starts = [start for start, *_ in scenario.epochs]
    return attribute(run.executed.tally.sink_found, outcome.central, times, starts, log, fallback)


def _shedding(
    scenario: Scenario, run: MeasuredRun, outcome: ReferenceOutcome
) -> dict[str, object] | None:
    """The shedding figures of a capacity run (:func:`inev.simulator.capacity.shedding_report`)."""
    if run.capacity is None or run.unlimited is None:
        return None
    tally = run.executed.tally
    unlimited, work = run.unlimited
    central: Mapping[str, Counter] = outcome.central or {}
    return shedding_report(
        run.capacity,
        tally.sink_found,
        unlimited.sink_found,
        {q.name: q.weight for q in scenario.workload.queries},
        tally.latencies,
        work,
        scenario.options.duration,
        tally.late,
        central,
    )
