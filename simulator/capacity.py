"""Processing capacity of simulated nodes: a FIFO server per node in front of its engines
(pSPICE: Partial Match Shedding for Complex Event Processing, §III-A, §III-E; INEv:
In-Network Evaluation for Event Stream Processing, §7.2 "Application performance").

Without a capacity the simulator's engines work in zero time. With one, every node owns a
:class:`NodeServer`: one FIFO server shared by the local engines of all plan vertices at the
node. Every vertex keeps the reordering of :mod:`inev.simulator.execution` (an item waits until
its time + D_v, the watermark bound), and then, in time order, the item enters the node's
queue: its service time is ``work units × cost_per_unit / capacity``, the work being what the
vertex's engine reports for it (:class:`inev.simulator.engine.shedding.node_queue.Processor`, one per vertex,
all of a node sharing the server's clock), and its outputs (matches, forwarded events) leave
when the service completes. Detection latency therefore includes queueing and processing, in
simulated time (deterministic).

**Watermarks under capacity.** Upstream processing delays the items a vertex receives beyond
the network latencies D_v accounts for, so every vertex waits an extra ``stage_slack`` per
processing stage on its longest input chain (a sink fed by events only waits nothing more).
The default ``stage_slack`` is twice the latency bound when there is one (with shedding each
node keeps its items within the bound, up to one service time), otherwise one window. An item
that still comes after its vertex has processed a later one is *late*: counted (``late``)
and lost, as with any fixed watermark; it shows up among the false negatives. Unless the
slack is given, a run with more late items than the unlimited run is repeated (at most
:data:`SLACK_RETRIES` times) with a larger slack (:meth:`CapacityModel.next_slack`), so
overloaded multi-stage plans wait longer instead of losing matches; the slack finally
used is reported (``stage_slack``).

**Capacity values.** A number is work units per time unit. ``auto:F`` is F times the
*needed capacity*: the work units per time unit of the busiest node in an unshedded run with
unlimited capacity of the same trace (total engine work at the node / run duration), so
``auto:0.5`` runs the busiest node at 200 % of its capacity. Entries ``NODE=C`` or
``NODE=auto:F`` set single nodes; a bare value sets every other node (default: unlimited).

**Load shedding.** With a latency bound and a strategy (``pspice``, ``random-pm``,
``random-event``, ``type-utility``; :mod:`inev.simulator.engine.shedding`) every vertex's
processor runs the overload detector and the shedder on its own engine before each item; the
queueing it sees is that of the shared node queue.

>>> parse_node_capacities(["auto:0.5", "3=12"])
{'*': ('auto', 0.5), '3': ('fixed', 12.0)}
>>> stage_counts({1: (), 2: (), 3: (1, 2), 4: (3, 1)}, {1, 2})
{3: 0, 4: 1}
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.stats import latency_summary
from inev.simulator.engine.api import SAFETY_SHARE
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.node_queue import (
    Completion,
    Processor,
    check_shedding,
    parse_capacity,
)
from inev.simulator.engine.shedding.shedders import STRATEGIES

SLACK_RETRIES = 3
"""Runs repeated with a larger stage slack at most, when items came late."""


@dataclass(frozen=True)
class CapacityOptions:
    """What ``inev simulate --capacity …`` asks for (see the module docstring).

    Parameters
    ----------
    capacity : mapping of str to (str, float)
        ``{"*": default, str(node): value}`` with values ``("fixed", C)`` or ``("auto", F)``
        (F times what the node needed in the unlimited reference run).
    latency_bound : float or None
        None: no bound.
    shed : str
        The shedding strategy (:data:`~inev.simulator.engine.shedding.shedders.STRATEGIES`).
    cost_per_unit : float
        Time units one work unit takes at capacity 1.
    stage_slack : float or None
        None: the default of the module docstring.
    safety : float
        The detector's safety margin as a share of the bound (pSPICE §III-E).
    seed : int
        Seed of the random shedders.

    Examples
    --------
    >>> CapacityOptions(parse_node_capacities(["auto:0.5", "3=12"])).capacity
    {'*': ('auto', 0.5), '3': ('fixed', 12.0)}
    >>> CapacityOptions({"*": ("fixed", 4.0)}, shed="pspice")
    Traceback (most recent call last):
    inev.common.errors.InevError: shedding strategy pspice needs a latency bound
    """

    capacity: Mapping[str, tuple[str, float]]
    latency_bound: float | None = None
    shed: str = "none"
    cost_per_unit: float = DEFAULT_COST_PER_UNIT
    stage_slack: float | None = None
    safety: float = SAFETY_SHARE
    seed: int = 0

    def __post_init__(self) -> None:
        if self.shed not in STRATEGIES:
            raise InevError(f"unknown shedding strategy {self.shed!r} ({', '.join(STRATEGIES)})")
        if self.shed != "none" and self.latency_bound is None:
            raise InevError(f"shedding strategy {self.shed} needs a latency bound")
        check_shedding(self.latency_bound, self.cost_per_unit)
        if not 0 <= self.safety < 1:
            raise InevError(f"safety share must be in [0, 1), got {self.safety}")
        if self.stage_slack is not None and not self.stage_slack >= 0:
            raise InevError(f"stage slack must not be negative, got {self.stage_slack}")

    @property
    def auto(self) -> bool:
        """Whether some capacity is relative to the needed capacity (a reference run)."""
        return any(kind == "auto" for kind, _ in self.capacity.values())


def parse_node_capacities(entries: Iterable[str | float]) -> dict[str, tuple[str, float]]:
    """``["auto:0.5", "3=12"]`` -> ``{"*": ("auto", 0.5), "3": ("fixed", 12.0)}``."""
    out: dict[str, tuple[str, float]] = {}
    for entry in entries:
        if isinstance(entry, str) and "=" in entry:
            node, _, value = entry.partition("=")
            key = node.strip()
            if not key:
                raise InevError(f"capacity {entry!r}: node missing before '='")
        else:
            key, value = "*", entry
        if key in out:
            raise InevError(f"capacity given twice for {'all nodes' if key == '*' else key}")
        out[key] = parse_capacity(value)
    if not out:
        raise InevError("no capacity given")
    return out


def resolve_capacities(
    options: CapacityOptions, nodes: Iterable[Hashable], needed: float
) -> dict[Hashable, float]:
    """Capacity per node: fixed values as given, ``auto:F`` as F × ``needed``."""
    names = {str(n): n for n in nodes}
    unknown = sorted(set(options.capacity) - set(names) - {"*"})
    if unknown:
        raise InevError(f"capacity names node {unknown[0]!r}, which is not in the network")
    out: dict[Hashable, float] = {}
    for name, node in names.items():
        entry = options.capacity.get(name, options.capacity.get("*"))
        if entry is None:
            out[node] = math.inf
            continue
        kind, value = entry
        out[node] = value * max(needed, 1e-12) if kind == "auto" else value
    return out


def stage_counts(inputs: Mapping[int, Sequence[int]], sources: Iterable[int]) -> dict[int, int]:
    """Processing stages on the longest input chain before each projection vertex.

    ``inputs`` maps every vertex to its inputs in topological order; ``sources`` are the
    event vertices (no processing). A vertex fed by events only has 0 stages before it.
    """
    source = set(sources)
    depth: dict[int, int] = {}
    for v, ins in inputs.items():
        if v in source:
            continue
        depth[v] = max((0 if u in source else depth[u] + 1 for u in ins), default=0)
    return depth


@dataclass
class NodeServer:
    """The FIFO server of one node, shared by the processors of its vertices."""

    node: Hashable
    capacity: float
    busy_until: float = -math.inf
    processors: list[Processor] = field(default_factory=list)
    max_queueing: float = 0.0
    max_latency: float = 0.0
    last_finish: float = 0.0
    last_arrival: float = -math.inf
    drained: float = -math.inf

    def arrive(self, processor: Processor, item: Any, time: float) -> Completion:
        """Queue ``item`` at ``time`` for ``processor``'s engine; process it, return when done."""
        processor.busy_until = self.busy_until
        done = processor.arrive(item, time)
        if processor.busy_until > self.busy_until:
            self.busy_until = processor.busy_until
        self.last_arrival = max(self.last_arrival, done.arrival)
        self.drained = max(self.drained, done.finish)
        if done.start > done.arrival or done.finish > done.arrival:
            self.max_queueing = max(self.max_queueing, done.start - done.arrival)
            self.max_latency = max(self.max_latency, done.finish - done.arrival)
            self.last_finish = max(self.last_finish, done.finish)
        return done

    def figures(self, duration: float) -> dict[str, Any]:
        """Utilisation, queueing and shedding figures of the node."""
        busy = sum(p.stats.busy for p in self.processors)
        span = max(duration, self.last_finish)
        return {
            "capacity": self.capacity,
            "work": sum(p.stats.work for p in self.processors),
            "items": sum(p.stats.items for p in self.processors),
            "utilisation": busy / span if span > 0 else 0.0,
            "max_queue_latency": self.max_queueing,
            "max_latency": self.max_latency,
            "last_finish": self.last_finish,
            "backlog": max(0.0, self.drained - self.last_arrival),
            "max_service": max((p.stats.max_service for p in self.processors), default=0.0),
            "bound_violations": sum(p.stats.violations for p in self.processors),
            "bound_forced": sum(p.stats.forced for p in self.processors),
            "shed_partial_matches": sum(p.shedder.shed_partial_matches for p in self.processors),
            "shed_events": sum(p.shedder.shed_events for p in self.processors),
        }


@dataclass
class _Queued:
    """A vertex's items waiting for their watermark, its processor and its server."""

    processor: Processor
    server: NodeServer
    pending: list[tuple[float, int, Any]] = field(default_factory=list)


class CapacityModel:
    """The node servers of one simulation, and the hook :class:`PlanExecution` calls.

    ``capacities`` maps nodes to work units per time unit (``math.inf``: that node works in
    zero time); ``window`` gives the default stage slack without a latency bound; ``slack``
    overrides the stage slack (a retry, see :meth:`next_slack`).
    """

    def __init__(
        self,
        options: CapacityOptions,
        capacities: Mapping[Hashable, float],
        window: float,
        slack: float | None = None,
    ) -> None:
        self.options = options
        self.capacities = dict(capacities)
        if slack is not None:
            self.slack = slack
        elif options.stage_slack is not None:
            self.slack = options.stage_slack
        elif options.latency_bound is not None:
            self.slack = 2.0 * options.latency_bound
        else:
            self.slack = window
        self.servers: dict[Hashable, NodeServer] = {}
        self.queued: dict[int, _Queued] = {}
        self.query_violations: Counter = Counter()
        self._order = itertools.count()

    def next_slack(self) -> float:
        """The stage slack of a retry after items came late: twice this one, and at least
        1.5 times the largest queueing + processing latency any node saw."""
        worst = max((s.max_latency for s in self.servers.values()), default=0.0)
        return max(2.0 * self.slack, 1.5 * worst)

    def server(self, node: Hashable) -> NodeServer:
        """The server of ``node`` (created on first use)."""
        server = self.servers.get(node)
        if server is None:
            server = NodeServer(node, self.capacities.get(node, math.inf))
            self.servers[node] = server
        return server

    def install(self, execution: Any) -> None:
        """Give every projection vertex of ``execution`` a processor on its node's server
        and its extra watermark slack (``stage_slack`` per upstream processing stage)."""
        plan = execution.plan
        inputs = {v.id: tuple(v.inputs) for v in plan.vertices}
        sources = set(inputs) - set(execution.runs)
        stages = stage_counts(inputs, sources)
        options = self.options
        for vid, run in execution.runs.items():
            run.slack = self.slack * stages.get(vid, 0)
            run.delay += run.slack
            server = self.server(run.vertex.node)
            if run.stage is not None:  # a PPoP prefix engine works for its query's sink
                info = plan.projections[plan.sinks[run.stage.query]]
            else:
                info = plan.projections[run.vertex.projection]
            weight = max(
                (execution.workload.query(q).weight for q in info.queries if _known(execution, q)),
                default=1.0,
            )
            processor = Processor(
                {str(vid): run.engine},
                server.capacity,
                cost_per_unit=options.cost_per_unit,
                latency_bound=options.latency_bound,
                safety=options.safety * (options.latency_bound or 0.0),
                shedder=options.shed,
                weights={str(vid): weight},
                seed=options.seed + 7919 * (vid if vid >= 0 else len(plan.vertices) - vid),
            )
            server.processors.append(processor)
            self.queued[id(run)] = _Queued(processor, server)

    def push(self, execution: Any, run: Any, item: Any, time: float) -> None:
        """An item reached ``run``'s vertex: hold it until its watermark, then queue it."""
        queued = self.queued[id(run)]
        heapq.heappush(queued.pending, (time, next(self._order), item))
        env = execution.env
        wait = time + run.delay - env.now
        if wait <= 0:
            self._release(execution, run, time)
        else:
            env.timeout(wait).callbacks.append(
                lambda _e, run=run, t=time: self._release(execution, run, t)
            )

    def _release(self, execution: Any, run: Any, watermark: float) -> None:
        queued = self.queued[id(run)]
        env = execution.env
        now = env.now
        wait = watermark + run.delay - now
        if wait > 1e-12 * (1.0 + abs(watermark) + run.delay):  # D grew (a detour): later
            env.timeout(wait).callbacks.append(
                lambda _e, run=run, t=watermark: self._release(execution, run, t)
            )
            return
        mark = max(watermark, now - run.delay)
        pending = queued.pending
        engine = run.engine
        while pending and pending[0][0] <= mark:
            _, _, item = heapq.heappop(pending)
            late = engine.counters["late"]
            done = queued.server.arrive(queued.processor, item, now)
            if engine.counters["late"] != late:
                execution.tally.late += 1
            if not done.outputs:
                continue
            outputs = [out for _, out in done.outputs]
            bound = self.options.latency_bound
            if bound is not None and run.queries and done.finish - done.arrival > bound:
                for q in run.queries:
                    self.query_violations[q] += len(outputs)
            if done.finish <= now:
                execution._emit(run, outputs)
            else:
                env.timeout(done.finish - now).callbacks.append(
                    lambda _e, run=run, outputs=outputs: execution._emit(run, outputs)
                )

    def node_figures(self, duration: float) -> dict[str, dict[str, Any]]:
        """Per node (by ``str(node)``): the figures of :meth:`NodeServer.figures`."""
        return {
            str(node): server.figures(duration)
            for node, server in sorted(self.servers.items(), key=lambda kv: str(kv[0]))
            if server.processors
        }


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _known(execution: Any, name: str) -> bool:
    return any(q.name == name for q in execution.workload.queries)


def node_work(executions: Iterable[Any]) -> Counter:
    """Engine work units per node over the executions of a run (the unlimited reference)."""
    out: Counter = Counter()
    for execution in executions:
        for run in execution.runs.values():
            out[run.vertex.node] += run.engine.counters["work"]
    return out


def needed_node_capacity(work: Mapping[Hashable, float], duration: float) -> float:
    """The busiest node's work units per time unit (at least one unit per run)."""
    busiest = max(work.values(), default=0.0)
    if duration <= 0:
        return max(busiest, 1.0)
    return max(busiest, 1.0) / duration


def quality(
    found: Mapping[str, Counter],
    reference: Mapping[str, Counter],
    weights: Mapping[str, float],
    truth: Mapping[str, Counter] | None = None,
) -> tuple[dict[str, dict[str, Any]], float]:
    """Per query: reference and found matches, false negatives (and weighted) and false
    positives against the reference; and the weighted false-negative share
    ``Σ w_q·FN_q / Σ w_q·|ref_q|`` (0 when the reference has no match).

    With ``truth`` (the centralized evaluation of the trace) a found match counts as a false
    positive only if neither the reference nor the truth has it: the unlimited run itself
    loses matches when items come late (bandwidth queueing, changes at run time), and the
    capacity run, whose watermarks wait longer, may find some of those.
    """
    per_query: dict[str, dict[str, Any]] = {}
    fn_weighted = total_weighted = 0.0
    truth = truth or {}
    for q in sorted(set(found) | set(reference)):
        have = found.get(q, Counter())
        want = reference.get(q, Counter())
        true = truth.get(q, Counter())
        fn = sum(max(0, c - have.get(m, 0)) for m, c in want.items())
        fp = sum(max(0, c - max(want.get(m, 0), true.get(m, 0))) for m, c in have.items())
        w = float(weights.get(q, 1.0))
        per_query[q] = {
            "reference": sum(want.values()),
            "matches": sum(have.values()),
            "false_negatives": fn,
            "weighted_false_negatives": w * fn,
            "false_positives": fp,
        }
        fn_weighted += w * fn
        total_weighted += w * sum(want.values())
    return per_query, (fn_weighted / total_weighted if total_weighted else 0.0)


def shedding_report(
    model: CapacityModel,
    found: Mapping[str, Counter],
    reference: Mapping[str, Counter],
    weights: Mapping[str, float],
    latencies: Mapping[str, Sequence[float]],
    reference_work: Mapping[Hashable, float],
    duration: float,
    late: int,
    truth: Mapping[str, Counter] | None = None,
) -> dict[str, Any]:
    """The ``shedding`` entry of an ``inev-sim/1`` result (see docs/spec-extensions.md).

    Per query, ``bound_violations`` counts the query's matches whose item at the sink
    waited and was processed longer than the latency bound (queueing + service at the
    sink's node; network and watermark delays are not part of the bound).

    ``needed_capacity`` is the busiest node's work per time unit in the unlimited run,
    ``capacity`` that node's capacity, ``load`` the largest need / capacity over the nodes.
    ``completion`` is when the last item finished processing at any node, at least the
    duration (it includes the watermark waits of multi-stage plans). ``backlog`` is the
    longest time a node kept working after its last item arrived: the queue a node that
    cannot keep up still holds when its input stops (the simulator drains every queue), so
    input events / (duration + ``backlog``) is the input rate the plan got through, its
    measured throughput, apart from network and watermark delays.
    """
    per_query, share = quality(found, reference, weights, truth)
    for q, figures in per_query.items():
        figures["bound_violations"] = model.query_violations.get(q, 0)
    nodes = model.node_figures(duration)
    span = max(duration, 1e-12)
    loads = {n: w / span / model.capacities.get(n, math.inf) for n, w in reference_work.items()}
    busiest = max(reference_work, key=lambda n: (reference_work[n], str(n)), default=None)
    for figures in nodes.values():
        figures["needed_capacity"] = 0.0
        figures["load"] = 0.0
    for node, work in reference_work.items():
        if str(node) in nodes:
            nodes[str(node)]["needed_capacity"] = work / span
            nodes[str(node)]["load"] = loads[node]
    values = [x for v in latencies.values() for x in v]
    return {
        "strategy": model.options.shed,
        "latency_bound": model.options.latency_bound,
        "cost_per_unit": model.options.cost_per_unit,
        "stage_slack": model.slack,
        "capacity": None if busiest is None else _finite(model.capacities.get(busiest)),
        "needed_capacity": needed_node_capacity(reference_work, duration),
        "load": max(loads.values(), default=0.0),
        "false_negatives": sum(q["false_negatives"] for q in per_query.values()),
        "false_positives": sum(q["false_positives"] for q in per_query.values()),
        "false_negative_share": share,
        "bound_violations": sum(n["bound_violations"] for n in nodes.values()),
        "bound_forced": sum(n["bound_forced"] for n in nodes.values()),
        "shed_partial_matches": sum(n["shed_partial_matches"] for n in nodes.values()),
        "shed_events": sum(n["shed_events"] for n in nodes.values()),
        "late": late,
        "max_utilisation": max((n["utilisation"] for n in nodes.values()), default=0.0),
        "max_queue_latency": max((n["max_queue_latency"] for n in nodes.values()), default=0.0),
        "completion": max([duration, *(n["last_finish"] for n in nodes.values())]),
        "backlog": max((n["backlog"] for n in nodes.values()), default=0.0),
        "latency": latency_summary(values),
        "queries": per_query,
        "nodes": nodes,
    }
