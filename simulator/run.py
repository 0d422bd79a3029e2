"""One simulation: execute an INEv plan node by node in SimPy (INEv §5, Definition 2, §6.6).

The plan runs as a :class:`~inev.simulator.execution.PlanExecution` (engines per vertex,
forwarding over the plan's trees, watermarks; see that module). Every simulation takes one
pipeline, whose parts live in modules of their own:

1. an event source (:mod:`~inev.simulator.event_sources`: generated, a recorded trace held in
   memory, or one streamed; :mod:`~inev.simulator.trace_replay` reads a recorded trace);
2. the epochs between changes, repairs and their report (:mod:`~inev.simulator.change_epochs`),
   which with the network, workload, plan and options make the run's
   :class:`~inev.simulator.epoch_execution.Scenario`;
3. the centralized reference (:mod:`~inev.simulator.reference`: evaluated after the run over
   held events, or in the same pass over streamed ones);
4. the SimPy run of the epochs (:mod:`~inev.simulator.epoch_execution`: plans installed,
   sources), twice or more with a capacity (the unlimited reference first);
5. the measurer (:func:`inev.simulator.measurer.measure`), the one builder of a
   :class:`~inev.simulator.simulation_result.SimulationResult`.

**Changes at run time** (``inev-changes/1``: ``set-rate``, ``swap-rates``, ``link-down``,
``link-up``, ``node-down``). The run is cut into epochs at the change times. Rates change in
the sources from that time on; a lost link drops what crosses it from then on; a lost node
generates and evaluates nothing more. At each change the plan is repaired as §6.6 says
(:func:`inev.planner.repair.repair_plan`: harmful projections forward their inputs instead,
multi-node placements whose Eq. 1 fails fall back to their single node, touched forwarding
graphs are re-routed, or the workload is re-planned when that is cheaper). We assume the
change is detected at once (no monitoring delay). The repaired plan takes the matches whose
first event comes after the change; the old plan keeps running for one more window to finish
the matches that started before it (as an engine retires a replaced plan), so no match is
counted twice and a switch drops no state. Messages detour around lost links and around dead
nodes (to the live nodes below them in a forwarding tree); what a dead node held or was sent
is lost, and every missing match is attributed to a recorded loss
(:mod:`inev.simulator.losses`: ``loss_causes`` and, per change, ``lost_by_cause``).

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.planning import plan_workload
>>> net = Network.build(
...     range(4), [(0, 1), (1, 2), (2, 3)], {"A": (2.0, [0]), "B": (1.0, [3]), "C": (3.0, [1, 2])}
... )
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B, C)", {"A B": 0.5})])
>>> result = simulate(net, wl, plan_workload(net, wl), duration=20.0, seed=1)
>>> result.equal_to_centralized, result.matches
(True, {'q': 65})
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.simulator.aggregation import size_workload
from inev.simulator.capacity import (
    SLACK_RETRIES,
    CapacityModel,
    needed_node_capacity,
    node_work,
    resolve_capacities,
)
from inev.simulator.change_epochs import Epoch, change_epochs
from inev.simulator.engine.events import Event
from inev.simulator.epoch_execution import (
    ExecutedRun,
    Feed,
    RunHooks,
    Scenario,
    execute_epochs,
)
from inev.simulator.event_sources import EventSource, event_source
from inev.simulator.measurement import deviation, with_centralized_node
from inev.simulator.measurer import MeasuredRun, measure
from inev.simulator.options import SimulationOptions
from inev.simulator.reference import Reference, centralized_matches, centralized_reference
from inev.simulator.simulation_result import MatchBalance, SimulationResult
from inev.simulator.trace_replay import TraceStream
from inev.topologies.network import Network
from inev.workloads.instance import prepare_instance
from inev.workloads.workload import Workload

# re-exported: these names were defined here before the module was split
__all__ = [
    "Epoch",
    "MatchBalance",
    "TraceStream",
    "centralized_matches",
    "collector_paused",
    "deviation",
    "simulate",
]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the length of a simulation.

    A simulation holds the trace and the engines' buffers, hundreds of thousands of live
    tuples, and allocates millions more; every collection of the oldest generation walks
    them all. Measured with ``benchmarks/bench_simulator.py`` (20 nodes, 10^5 events): the
    collector took a third of the time. A run makes little cyclic garbage (about 3 % of the
    objects it creates, besides its own state), which the collector takes afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@collector_paused()
def simulate(
    network: Network,
    workload: Workload,
    plan: Plan,
    options: SimulationOptions | None = None,
    *,
    trace: Sequence[Any] | None = None,
    changes: Sequence[Mapping[str, Any]] = (),
    progress: Callable[[float], None] | None = None,
    **fields: Any,
) -> SimulationResult:
    """Run ``plan`` on ``network`` and measure it (module doc); ``options`` says how.

    ``options`` is a :class:`~inev.simulator.options.SimulationOptions`; its fields may also
    be given by name (``simulate(net, wl, plan, duration=5.0, seed=1)``), alone or on top of
    ``options``. ``trace`` replays given events (engine ``Event``
    objects, any order, or a :class:`TraceStream`) instead of Poisson sources drawn with
    ``options.seed``. ``changes`` are ``inev-changes/1`` entries applied at their times.
    ``progress(t)`` is called with the simulation time as the sources advance. With
    ``options.check`` (the default), a run whose estimated size would exhaust memory is
    refused before it starts (:func:`inev.simulator.estimate.check_size`). A
    ``options.capacity`` gives the nodes a processing capacity (and load shedding): the
    trace is run once with unlimited capacity as the reference, then with the capacity; the
    result's ``shedding`` entry compares the two (:mod:`inev.simulator.capacity`).

    Without a capacity and without changes, the sinks of ``return`` queries that GRETA can
    aggregate exactly build no trends (:func:`inev.simulator.aggregation.aggregates_alone`):
    such a query has no ``matches`` entry and is checked by its aggregates.

    ``options.batch`` lets engines and sources work in batches where no one can observe it
    (see :mod:`inev.simulator.execution`, batched releases): every message, match and
    latency is the same as with ``batch=False``, which releases each item by its own SimPy
    event.

    Parameters
    ----------
    network, workload, plan
        The plan and what it was made for.
    options : SimulationOptions, optional
        How to simulate; ``**fields`` name its fields on top of it.
    trace : sequence of Event or TraceStream, optional
        Events to replay instead of Poisson sources.
    changes : sequence of mapping
        ``inev-changes/1`` entries applied at their times.
    progress : callable, optional
        Called with the simulation time as the sources advance.

    Returns
    -------
    SimulationResult

    Examples
    --------
    On 0 - 1 - 2, B is sent one hop to each A source (2 messages); centralized evaluation
    at node 1 would receive the three A events one hop each. The A at time 3 is outside
    the window of the B at 0.5: 2 matches.

    >>> from inev.planner.planning import plan_workload
    >>> from inev.workloads.workload import Query
    >>> from inev.simulator.engine.events import make_event
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(B, A)")])
    >>> trace = [make_event(0.5, "B", 1, 1), make_event(1.0, "A", 0, 2),
    ...          make_event(1.2, "A", 2, 3), make_event(3.0, "A", 0, 4)]
    >>> r = simulate(net, wl, plan_workload(net, wl), trace=trace, duration=5.0)
    >>> r.messages, r.centralized_messages, r.messages_by_link, r.matches, r.missing
    (2, 3, {'0 1': 1, '1 2': 1}, {'q': 2}, 0)
    """
    options = SimulationOptions.of(options, fields)
    started = time.perf_counter()
    instance = prepare_instance(network, workload)
    wl = instance.workload
    wl.check_network(network)
    if wl.streams and changes:
        raise InevError(
            "changes at run time with pattern variables are not simulated (a variable is "
            "a stream of its own in the plan; repairs would treat it apart from its type)"
        )
    # the planner's network: each variable a stream with its type's sources and rates
    network = instance.planning_network
    plan = with_centralized_node(network, wl, plan)
    for name in plan.sinks:
        wl.query(name)
    source = event_source(trace, network, wl, changes, options)
    options = replace(options, duration=source.span(options.duration))
    epochs = change_epochs(network, wl, plan, changes, options.duration)
    scenario = Scenario(network, wl, plan, epochs, options)
    # sinks of return queries aggregate instead of building trends, unless the run needs
    # their matches (capacity: false negatives; changes: matches per epoch)
    aggregate_only = options.capacity is None and not changes
    events = source.events(scenario, size_workload(workload) if aggregate_only else workload)
    if events:  # a recorded trace lasts to its last event (drawn events end before)
        options = replace(options, duration=max(options.duration, events[-1].time))
        scenario = replace(scenario, options=options)
    reference = centralized_reference(scenario, events)
    hooks = RunHooks(aggregate_only=aggregate_only, progress=progress)
    run = _run(scenario, source, events, reference, hooks)
    return measure(scenario, run, source, reference, started)


def _run(
    scenario: Scenario,
    source: EventSource,
    events: list[Event] | None,
    reference: Reference,
    hooks: RunHooks,
) -> MeasuredRun:
    """Execute the epochs (``hooks``: whether sinks may aggregate alone, the progress
    callback); with a capacity, first the unlimited reference, then the capacity run (again
    with a wider stage slack while it is later than the reference)."""

    def execute(how: RunHooks) -> ExecutedRun:
        watched = replace(
            reference.watching(),
            capacity=how.capacity,
            aggregate_only=how.aggregate_only,
            progress=how.progress,
        )
        return execute_epochs(scenario, Feed(source.chunks(events)), watched)

    capacity = scenario.options.capacity
    if capacity is None:
        return MeasuredRun(execute(hooks))
    unlimited = execute(RunHooks())
    work = node_work(unlimited.executions)
    needed = needed_node_capacity(work, scenario.options.duration)
    nodes = {n for _, _, net_k, _, _ in scenario.epochs for n in net_k.nodes}
    capacities = resolve_capacities(capacity, nodes, needed)
    window = scenario.workload.window
    model = CapacityModel(capacity, capacities, window)
    limited = RunHooks(model, hooks.aggregate_only, hooks.progress)
    run = MeasuredRun(execute(limited), model, (unlimited.tally, work))
    for _ in range(SLACK_RETRIES if capacity.stage_slack is None else 0):
        if run.executed.tally.late <= unlimited.tally.late:
            break
        model = CapacityModel(capacity, capacities, window, slack=model.next_slack())
        run = MeasuredRun(execute(RunHooks(model)), model, (unlimited.tally, work))
    return run
