"""The SimPy execution of a run's epochs: plans installed, events handed over by the sources.

What is simulated is a :class:`Scenario` (network, workload, plan, epochs, options), how it
runs a :class:`RunHooks` (capacity, callbacks); both are passed whole. The trace reaches the
plan executions (:class:`~inev.simulator.execution.PlanExecution`) as a :class:`Feed` of
time-ordered chunks; the sources are a chain of timeout callbacks; a :class:`RunGuard` stops a
run whose engines outgrow the size check (see :mod:`inev.simulator.run`). The result is an
:class:`ExecutedRun`, which :func:`inev.simulator.measurer.measure` turns into the
simulation's result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import simpy

from inev.planner.inev_graph import Plan
from inev.simulator.capacity import CapacityModel
from inev.simulator.change_epochs import Epoch, schedule_changes
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event
from inev.simulator.engine.size import SizeGuard
from inev.simulator.execution import PlanExecution
from inev.simulator.losses import LossLog
from inev.simulator.options import SimulationOptions
from inev.simulator.simpy_network import SimNetwork
from inev.simulator.tally import Tally
from inev.simulator.timeline import bin_width
from inev.topologies.network import Network
from inev.topologies.network_entries import link_key
from inev.workloads.workload import Workload


@dataclass(frozen=True)
class Scenario:
    """What a simulation runs: the network (with the workload's variables as streams), the
    OR-split workload, the plan (with its centralized node), the epochs between changes
    (:func:`~inev.simulator.change_epochs.change_epochs`) and the options."""

    network: Network
    workload: Workload
    plan: Plan
    epochs: list[Epoch]
    options: SimulationOptions

    @property
    def changed(self) -> bool:
        """Whether changes cut the run into epochs (every change time is inside the run)."""
        return len(self.epochs) > 1


@dataclass(frozen=True)
class RunHooks:
    """How one execution runs: the nodes' ``capacity`` model (None: unlimited), whether sinks
    of ``return`` queries may aggregate alone, ``progress(t)`` as the sources advance,
    ``on_event(e)`` after the sources hand ``e`` over, the ``tally`` to count into (None: a
    fresh one) and ``installed(executions)`` once the plans are installed."""

    capacity: CapacityModel | None = None
    aggregate_only: bool = False
    progress: Callable[[float], None] | None = None
    on_event: Callable[[Event], None] | None = None
    tally: Tally | None = None
    installed: Callable[[list[PlanExecution]], None] | None = None


@dataclass
class ExecutedRun:
    """One finished execution: the network's counters, the tally, the plan executions (one
    per epoch), the message count at each change and the events handed over."""

    sim: SimNetwork
    tally: Tally
    executions: list[PlanExecution]
    marks: list[int] = field(default_factory=list)
    events: int = 0


class Feed:
    """Events in time order, one chunk at a time, with the times each must be handed over.

    ``wake[i]``: the latest time at which the chunk's events from ``i`` on can be handed
    over (their times plus the sources' slacks, see :meth:`PlanExecution.source_slack`).
    Across chunks it is bounded by the next chunk's first time, which no later event's
    deadline precedes: handing over earlier than needed is always exact.
    """

    def __init__(self, chunks: Iterable[Sequence[Event]]) -> None:
        self.chunks = iter(chunks)
        self.chunk: Sequence[Event] = ()
        self.wake: list[float] = []
        self.i = 0
        self.ahead: Sequence[Event] | None = None
        self.slack: Callable[[Event], float] | None = None
        self.count = 0

    def _next_chunk(self) -> Sequence[Event] | None:
        for chunk in self.chunks:
            if chunk:
                return chunk
        return None

    def start(self, slack: Callable[[Event], float] | None) -> bool:
        """Begin handing over (``slack``: the batched sources' slack of an event, or None)."""
        self.slack = slack
        self.ahead = self._next_chunk()
        return self.next()

    def next(self) -> bool:
        """Move to the next chunk; False at the end of the trace."""
        chunk = self.ahead
        if chunk is None:
            return False
        self.ahead = self._next_chunk()
        self.chunk, self.i = chunk, 0
        self.count += len(chunk)
        if self.slack is None:
            self.wake = [e.time for e in chunk]
            return True
        due = [e.time + self.slack(e) for e in chunk]
        if self.ahead is not None:
            due.append(self.ahead[0].time)
        wake = list(accumulate(reversed(due), min))[::-1]
        self.wake = wake[: len(chunk)]
        return True


def execute_epochs(scenario: Scenario, feed: Feed, hooks: RunHooks) -> ExecutedRun:
    """Install the epochs' plans on a fresh SimPy network, hand over the ``feed``'s events
    (and each to ``hooks.on_event``, after the sources), run to the options' duration."""
    options, epochs = scenario.options, scenario.epochs
    env = simpy.Environment()
    sim = SimNetwork(env, scenario.network, bandwidth=options.bandwidth)
    tally = Tally() if hooks.tally is None else hooks.tally
    sim.bin = tally.bin = bin_width(options.duration, options.timeline_bin)
    # Batched releases and sources (execution._set_lags): exact in every observable time, but
    # only where nothing else reads the clock: no changes, no capacity queues, no bandwidth.
    batched = (
        options.batch and len(epochs) == 1 and hooks.capacity is None and options.bandwidth is None
    )
    executions = [_install(sim, k, scenario, tally, hooks, batched) for k in range(len(epochs))]
    for node in {n for _, _, net_k, _, _ in epochs for n in net_k.nodes}:
        sim.on_receive(
            node, lambda n, payload, kind: executions[payload[0]].deliver(n, payload[1], payload[2])
        )
    if len(epochs) > 1:  # changes: every loss is recorded (inev.simulator.losses)
        losses = LossLog()
        for execution in executions:
            execution.losses = losses
        sim.on_drop = lambda nodes, payload, cause, change: executions[payload[0]].dropped(
            nodes, payload[1], payload[2], cause, change
        )
    if hooks.installed is not None:
        hooks.installed(executions)
    marks = schedule_changes(sim, epochs, executions)
    _start_sources(sim.env, feed, executions, batched, hooks, options.duration)
    env.run()
    for execution in executions:
        execution.flush()
    return ExecutedRun(sim, tally, executions, marks, feed.count)


def _install(
    sim: SimNetwork, k: int, scenario: Scenario, tally: Tally, hooks: RunHooks, batched: bool
) -> PlanExecution:
    """Epoch ``k``'s plan on ``sim``: it takes the events of its epoch (and one window more,
    to finish the matches begun in it) and records the matches that begin in it."""
    epochs, wl, options = scenario.epochs, scenario.workload, scenario.options
    start, stop, net_k, plan_k, _ = epochs[k]
    for u, v, latency in net_k.links:
        sim.latency.setdefault(link_key(u, v), latency)
    last = k == len(epochs) - 1
    return PlanExecution(
        k,
        sim,
        net_k,
        wl,
        plan_k,
        tally,
        feed=(start, math.inf if last else stop + wl.window),
        record=(start, math.inf if last else stop),
        engine_plan=options.engine_plan,
        adaptation=options.adaptation,
        capacity=hooks.capacity,
        aggregate_only=hooks.aggregate_only,
        batched=batched,
    )


def _start_sources(
    env: simpy.Environment,
    feed: Feed,
    executions: list[PlanExecution],
    batched: bool,
    hooks: RunHooks,
    duration: float,
) -> None:
    """The sources as a chain of timeout callbacks: hand every event whose time has come to
    the executions, then wait until the next one must be handed over (a plain callback is
    cheaper than resuming a SimPy process per event; batched, one callback serves every
    event up to the smallest slack). ``hooks.progress`` hears the time every 1 % of
    ``duration``."""
    on_event, progress = hooks.on_event, hooks.progress
    step = max(duration / 100.0, 1e-9)
    report = {"next": step}
    # the latest time at which each event can be handed over (times plus slacks)
    if batched:
        slack: dict[tuple[str, Any], float] = {}

        def slack_of(e: Event) -> float:
            key = (e.type, e.node)
            value = slack.get(key)
            if value is None:
                value = slack[key] = min(x.source_slack(e.type, e.node) for x in executions)
            return value

        more = feed.start(slack_of)
    else:
        more = feed.start(None)

    def sources(_event: Any = None) -> None:
        now = env.now
        while True:
            chunk, i, count = feed.chunk, feed.i, len(feed.chunk)
            while i < count and chunk[i].time <= now:
                event = chunk[i]
                for execution in executions:
                    execution.source(event)
                if on_event is not None:
                    on_event(event)
                i += 1
            feed.i = i
            if i < count:
                env.timeout(feed.wake[i] - now).callbacks.append(sources)
                break
            if not feed.next():
                break
        if progress is not None and now >= report["next"]:
            progress(now)
            report["next"] = now + step

    if more:
        sources()


class RunGuard:
    """A :class:`SizeGuard` over every engine of a run, grouped by the query they serve."""

    def __init__(self, plan: Plan, window: float) -> None:
        self.plan = plan
        self.engines: dict[str, list[Engine]] = {}
        self.guard = SizeGuard(self.engines, window)

    def install(self, executions: list[PlanExecution]) -> None:
        """Watch the engines of the run's plan executions."""
        for execution in executions:
            for run in execution.runs.values():
                info = self.plan.projections.get(run.vertex.projection)
                owner = info.queries[0] if info is not None and info.queries else "plan"
                self.engines.setdefault(owner, []).append(run.engine)

    def tick(self, event: Event) -> None:
        """One more event handed over."""
        self.guard.tick(event.time)
