"""One INEv plan executing on the simulated network: engines, dispatch, watermarks, outputs.

:class:`PlanExecution` installs a plan on a :class:`~inev.simulator.network.SimNetwork`:
every vertex that evaluates a projection gets its own local CEP engine at its node; event
vertices are the sources. An item (an event, or a match of a projection) produced by vertex
``u`` is delivered to the consumers of ``u`` at ``u``'s node at once and travels over ``u``'s
forwarding tree to the others; a node hands an arriving item to exactly the local vertices
that list ``u`` among their inputs, so a multi-node vertex sees only its own node's events of
the partitioning type, and nodes on a forwarding path use what passes through them.

**Watermarks.** Items reach an engine out of timestamp order (paths differ in length). For
each vertex v a bound D_v says how late an input item can arrive after its timestamp: 0 for
events at their source, the forwarding-tree path latency for items that travel, plus the
upstream vertex's own D for matches (an upstream engine emits a match when its watermark
passes the match's time), plus one window for events that leave inside a match (partial
outputs of an output selector, unfolded matches). Every arriving item is released at its
time + D_v, so no match is emitted before it is final and none is held back longer than D_v.

**Batched releases** (the default where nothing else reads the clock: no changes, no
capacity, no bandwidth). Giving every item its own SimPy event for its release costs as much
as the rest of the simulation. Yet an engine's processing time is observable only through
its outputs: a consumer at the same node sees them at once, any other one link later, and a
sink records them with a time. So an engine without a consumer at its node may trail its
release times by its shortest first link (a pure sink by max(D_v, window)): one SimPy event
releases everything due, each output is stamped with its own release time (its latest
item's time + D_v), and a message leaves with the lag subtracted from its first link, so it
arrives exactly when an immediate send would. Sources hand events over in batches on the
same terms (:meth:`PlanExecution.source_slack`). Every count, match and latency equals the
exact mode's (``simulate(..., batch=False)``; a property test checks it).

When a link goes down, messages detour around it (more links, more
latency): :meth:`PlanExecution.reroute` widens every D to the detoured path latencies and
postpones releases already scheduled, so an item caught on a detour is still on time. An item
that arrives later all the same (bandwidth queueing) is counted in ``late``, never hidden.

**Outputs.** Engines always produce full matches; a vertex with an output selector sends the
distinct events of the selected types that occur in its matches, each once. A sink whose
Kleene trends span several matches of its (Kleene-free, §6.1) input unfolds those matches into
events and builds the trends itself.

**Push-pull plans.** A ppop plan's pulled event vertices keep their events at the source;
a prefix engine at the query's node sends a request per prefix match and the sources answer
with the events of its window (:mod:`inev.simulator.pull`, which also gives the lateness
bound the consuming engines add to their D).

Several executions can share one network (plan changes at run time): each feeds only the
events of its ``feed`` interval and records only matches whose first event lies in its
``record`` interval.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.planner.plan import Plan, Vertex
from inev.simulator.aggregation import aggregates_alone
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event
from inev.simulator.network import SimNetwork, forwarding_tree
from inev.simulator.pull import PullRequest, PullStage, pull_stages
from inev.topologies.network import Network
from inev.workloads.query import kleene_types
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Workload

_EPSILON = 1e-9


@dataclass
class Tally:
    """What every execution of a run adds to: matches at sinks, latencies, counters."""

    sink_found: dict[str, Counter] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    processed: Counter = field(default_factory=Counter)
    unused: Counter = field(default_factory=Counter)
    late: int = 0


@dataclass
class _VertexRun:
    """Run-time state of one projection vertex."""

    vertex: Vertex
    engine: Engine
    delay: float
    queries: tuple[str, ...]
    emitted: dict[tuple[str, Any], float]
    """Selected events sent so far (by type and id, with their time; purged past a window)."""
    seen: dict[tuple[str, Any], float]
    unfold: frozenset[int] = frozenset()
    purge_at: int = 1024
    emitted_at: int = 1024
    stage: PullStage | None = None
    arrivals: tuple[tuple[int, float], ...] = ()
    """Per input vertex, how much older than its emission an item can be (0 or a window)."""
    slack: float = 0.0
    """Extra watermark wait for upstream processing (set by a capacity model)."""
    alone: bool = False
    """A sink that aggregates its queries GRETA-style and builds no trend (aggregation.py)."""
    collect: list[Any] | None = None  # items received, for GRETA at sinks (aggregation.py)
    lag: float = 0.0
    """How long the engine may trail its release times (batched releases; 0: exact)."""
    timer: float = float("inf")
    """When the pending batched release fires."""
    dedup: bool = True
    """Whether an event can reach the vertex twice (see ``PlanExecution._needs_dedup``)."""


def _time(event: Event) -> float:
    return event.time


def tree_latency(
    network: Network,
    tree: dict,
    root: Hashable,
    latency: Callable[[Hashable, Hashable], float] | None = None,
) -> dict[Hashable, float]:
    """Latency from ``root`` to every node of a rooted forwarding tree.

    ``latency(u, v)`` overrides the links' own latencies (a detour around a lost link).
    """
    out = {root: 0.0}
    stack = [root]
    edges = network.graph.edges
    while stack:
        u = stack.pop()
        for v in tree.get(u, ()):
            out[v] = out[u] + (edges[u, v]["latency"] if latency is None else latency(u, v))
            stack.append(v)
    return out


class PlanExecution:
    """A plan installed on a simulated network (see the module docstring)."""

    def __init__(
        self,
        index: int,
        sim: SimNetwork,
        network: Network,
        workload: Workload,
        plan: Plan,
        tally: Tally,
        feed: tuple[float, float] = (float("-inf"), float("inf")),
        record: tuple[float, float] = (float("-inf"), float("inf")),
        engine_plan: str = "greedy",
        adaptation: str = "invariant",
        capacity: Any = None,
        aggregate_only: bool = False,
        batched: bool = False,
    ) -> None:
        self.index = index
        self.capacity = capacity  # a CapacityModel (inev.simulator.capacity) or None
        self.sim = sim
        self.env = sim.env
        self.network = network
        self.workload = workload
        self.plan = plan
        self.tally = tally
        self.feed = feed
        self.record = record
        self.dead: set[Hashable] = set()
        self.local_runs: dict[int, list[_VertexRun]] = {}  # event vertex -> runs at its node
        self.by_id = {v.id: v for v in plan.vertices}
        sinks: dict[str, list[str]] = defaultdict(list)
        for q, key in plan.sinks.items():
            sinks[key].append(q)
            tally.sink_found.setdefault(q, Counter())
            tally.latencies.setdefault(q, [])
        self.event_vertex: dict[tuple[str, Hashable], list[int]] = defaultdict(list)
        event_ids: set[int] = set()
        self.trees: dict[int, dict] = {}
        reach: dict[int, dict[Hashable, float]] = {}
        self.consumers: dict[int, dict[Hashable, list[int]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for v in plan.vertices:
            info = plan.projections.get(v.projection)
            if info is None:
                raise InevError(f"plan vertex {v.id} names unknown projection {v.projection!r}")
            if not v.inputs and len(info.types) == 1:
                self.event_vertex[(info.types[0], v.node)].append(v.id)
                event_ids.add(v.id)
            tree = forwarding_tree(v.node, v.forwarding) if v.forwarding else {v.node: ()}
            self.trees[v.id] = tree
            reach[v.id] = tree_latency(network, tree, v.node)
            for u in v.inputs:
                if u not in self.by_id:
                    raise InevError(f"plan vertex {v.id} has unknown input {u}")
                self.consumers[u][v.node].append(v.id)
        self.runs: dict[int, _VertexRun] = {}
        adapt = Adaptation(adaptation)
        alone: dict[str, bool] = {}
        for v in plan.vertices:  # inputs come first: a topological order
            if v.id in event_ids:
                continue
            arrivals: list[tuple[int, float]] = []
            inputs: list[str] = []
            unfold: set[int] = set()
            kleene = kleene_types(parse_pattern(plan.projections[v.projection].pattern))
            for u_id in v.inputs:
                u = self.by_id[u_id]
                if v.node not in reach[u_id]:
                    raise InevError(
                        f"plan vertex {v.id} at node {v.node!r} is not on the forwarding graph "
                        f"of its input {u_id} (Definition 2)"
                    )
                extra = 0.0
                u_info = plan.projections[u.projection]
                if u_id in event_ids:
                    names = [u_info.types[0]]
                elif u.output is None and not (kleene & set(u_info.types)):
                    names = [u_info.pattern]
                elif u.output is None:
                    # A Kleene trend spans several matches of the input: unfold them into
                    # events, each up to one window older than its match's time.
                    unfold.add(u_id)
                    names = [t for t in u_info.types if t != v.partition]
                    extra = workload.window
                else:
                    # Selected events leave with their match, up to one window after their time.
                    names = list(u.output)
                    extra = workload.window
                arrivals.append((u_id, extra))
                for name in names:
                    if name not in inputs:
                        inputs.append(name)
            info = plan.projections[v.projection]
            query = workload.query(info.queries[0]) if info.queries else workload.queries[0]
            engine = Engine.for_projection(
                query,
                workload,
                info.pattern,
                inputs=inputs,
                output=None,
                plan=engine_plan,
                adaptation=adapt,
                lateness=None if capacity is None else 0.0,
            )
            self.runs[v.id] = _VertexRun(
                v,
                engine,
                0.0,
                tuple(sinks.get(v.projection, ())),
                {},
                {},
                frozenset(unfold),
                arrivals=tuple(arrivals),
            )
            run = self.runs[v.id]
            if any(workload.query(q).returns is not None for q in run.queries):
                run.collect = []
                # the members of a multi-node sink share inputs and consumers: decide once
                if v.projection not in alone:
                    alone[v.projection] = aggregate_only and aggregates_alone(
                        workload, plan, self.by_id, v, run.queries, bool(self.consumers.get(v.id))
                    )
                run.alone = alone[v.projection]
        for run in self.runs.values():
            run.dedup = self._needs_dedup(run, event_ids)
        self._install_pulls(engine_plan, adapt)
        delays, self.horizon = self._delays(reach)
        for vid, run in self.runs.items():
            run.delay = delays[vid]
        self.batched = batched and capacity is None
        if self.batched:
            self._set_lags()
        if capacity is not None:
            capacity.install(self)

    def _set_lags(self) -> None:
        """Batched releases: how long each engine may trail its release times unobserved.

        An engine's outputs are seen by its consumers at its own node at once, by the others
        one link later at the earliest, and its sink records them with their own time. So a
        vertex with a consumer at its node (or a PPoP prefix engine, whose requests the
        sources answer by the clock) releases exactly on time; one without lags by its
        shortest first link; a pure sink by max(D, window), which bounds what it buffers.
        """
        edges = self.network.graph.edges
        for vid, run in self.runs.items():
            node = run.vertex.node
            consumers = self.consumers.get(vid)
            if run.stage is not None:
                run.lag = 0.0
            elif not consumers:
                run.lag = max(run.delay, self.workload.window)
            elif node in consumers:
                run.lag = 0.0
            else:
                run.lag = min(edges[node, child]["latency"] for child in self.trees[vid][node])

    def source_slack(self, event_type: str, node: Hashable) -> float:
        """How long after its time an event of ``event_type`` at ``node`` may be handed over.

        Batched sources hand events over in groups; an event must reach its node's engines
        before they release past its time (their D) and leave before its first link would
        have delivered it. Pulled events are buffered on time (requests read the buffer by
        the clock). At most one window; without batching: 0.
        """
        if not self.batched:
            return 0.0
        edges = self.network.graph.edges
        slack = float("inf")
        for vid in self.event_vertex.get((event_type, node), ()):
            if vid in self.pulled:
                return 0.0
            for child in self.trees[vid][node]:
                slack = min(slack, edges[node, child]["latency"])
            for consumer in self.consumers[vid].get(node, ()):
                slack = min(slack, self.runs[consumer].delay)
        # an event nothing uses is handed over within a window, keeping the clock finite
        return min(slack, self.workload.window)

    def _needs_dedup(self, run: _VertexRun, event_ids: set[int]) -> bool:
        """Whether ``run`` can receive one event twice and must filter duplicates.

        An event vertex's events reach a node once (its forwarding tree reaches each node
        once), and a vertex with an output selector sends each event once. So duplicates
        need two inputs that can carry the same event (two event vertices of one type and
        node, or a selector of a type beside another input of that type), or an input
        whose matches are unfolded into events.
        """
        sources: dict[str, set[Hashable | None]] = defaultdict(set)
        for u, _ in run.arrivals:
            if u in run.unfold:
                return True
            v = self.by_id[u]
            if u in event_ids:
                carried = [(self.plan.projections[v.projection].types[0], v.node)]
            elif v.output is not None:
                carried = [(t, None) for t in v.output]  # selected events of any node
            else:
                continue  # matches, which are not filtered
            for t, node in carried:
                known = sources[t]
                if node in known or (known and (node is None or None in known)):
                    return True
                known.add(node)
        return False

    def _delays(self, reach: dict[int, dict[Hashable, float]]) -> tuple[dict[int, float], float]:
        """D of every engine under the path latencies ``reach``, and the pull buffer horizon.

        See the module docstring (watermarks) and :mod:`inev.simulator.pull` (pulled events).
        """
        window = self.workload.window
        late: dict[int, float] = {}  # pulled vertices: lateness on arrival at the query's node
        delays: dict[int, float] = {}
        horizon = 0.0
        for k, stage in enumerate(self.stages):
            d = max(late.get(u, reach[u][stage.node]) for u in stage.inputs)
            d += _EPSILON * (1.0 + d)
            path = max((reach[u][stage.node] for u in stage.sources), default=0.0)
            bound = max(d + 2.0 * path + window, 2.0 * window + path)
            horizon = max(horizon, d + path + window)
            for u in stage.sources:
                late[u] = bound + 2.0 * _EPSILON * (1.0 + bound)
            delays[-1 - k] = d
        for vid, run in self.runs.items():  # plan order: inputs first
            if run.stage is not None:
                continue
            node = run.vertex.node
            d = 0.0
            for u, extra in run.arrivals:
                d = max(d, late[u] if u in late else delays.get(u, 0.0) + reach[u][node] + extra)
            delays[vid] = d + _EPSILON * (1.0 + d)
        return delays, horizon

    def reroute(self, latency: Callable[[Hashable, Hashable], float]) -> None:
        """Links now take ``latency(u, v)`` (detours): widen every D to the slower paths.

        D never shrinks, and a release already scheduled under the old D is postponed
        (:meth:`_release`), so items still on a detour are not late.
        """
        reach = {
            vid: tree_latency(self.network, tree, self.by_id[vid].node, latency)
            for vid, tree in self.trees.items()
        }
        delays, horizon = self._delays(reach)
        for vid, run in self.runs.items():
            run.delay = max(run.delay, delays[vid] + run.slack)
        self.horizon = max(self.horizon, horizon)

    def _install_pulls(self, engine_plan: str, adapt: Adaptation) -> None:
        """Push-pull plans: prefix engines at m, buffers at the pulled sources (:mod:`.pull`)."""
        self.pulled: dict[int, PullStage] = {}
        self.buffers: dict[int, list[Event]] = {}
        self.received: dict[tuple[int, Any], float] = {}
        self.request_trees: dict[int, dict] = {}
        self.stages = pull_stages(self.plan, self.workload)
        for k, stage in enumerate(self.stages):
            query = self.workload.query(stage.query)
            for u in stage.sources:
                self.pulled[u] = stage
                self.buffers[u] = []
                # requests travel the source's forwarding path backwards, from m
                self.request_trees[u] = forwarding_tree(stage.node, self.by_id[u].forwarding)
            types = [self.plan.projections[self.by_id[u].projection].types[0] for u in stage.inputs]
            engine = Engine.for_projection(
                query,
                self.workload,
                stage.prefix,
                inputs=list(dict.fromkeys(types)),
                output=None,
                plan=engine_plan,
                adaptation=adapt,
                lateness=None if self.capacity is None else 0.0,
            )
            vertex = Vertex(-1 - k, str(stage.prefix), stage.node)
            self.runs[vertex.id] = _VertexRun(vertex, engine, 0.0, (), {}, {}, stage=stage)
            for u in stage.inputs:
                self.consumers[u][stage.node].append(vertex.id)

    # ------------------------------------------------------------------ dynamics
    def source(self, event: Event) -> None:
        """A new event at its source node (ignored outside the ``feed`` interval)."""
        if not self.feed[0] <= event.time < self.feed[1] or event.node in self.dead:
            return
        senders = self.event_vertex.get((event.type, event.node))
        if not senders:
            self.tally.unused[event.type] += 1
            return
        for vid in senders:
            if vid in self.pulled:
                self.buffers[vid].append(event)  # kept until requested (``_answer``)
                continue
            # send(), unrolled for the hot path: the local consumers, then the tree
            local = self.local_runs.get(vid)
            if local is None:
                local = self.local_runs[vid] = [
                    self.runs[c] for c in self.consumers[vid].get(event.node, ())
                ]
            for run in local:
                self._push(run, event.node, event)
            v = self.by_id[vid]
            if v.forwarding:
                self._forward(v, event, event.time)

    def _request(self, stage: PullStage, match: Any) -> None:
        """A prefix match at m asks every source of the pulled type for its window's events."""
        low = max(e.time for e in match) - self.workload.window
        high = min(e.time for e in match) + self.workload.window
        for u in stage.sources:
            vertex = self.by_id[u]
            request = PullRequest(u, vertex.node, low, high)
            tree = self.request_trees[u]
            self.sim.send(
                stage.node, tree, (self.index, u, request), kind=vertex.projection, sender=u
            )

    def _answer(self, request: PullRequest) -> None:
        """At the source: send the buffered events of the request's range once it is complete."""
        now = self.env.now
        ready = request.high + _EPSILON * (1.0 + abs(request.high))
        if now < ready:
            self.env.timeout(ready - now).callbacks.append(lambda _e: self._answer(request))
            return
        if request.node in self.dead:
            return
        buffer = self.buffers[request.vertex]
        horizon = now - self.horizon - self.workload.window
        if buffer and buffer[0].time < horizon:  # no request can ask for these any more
            buffer[:] = buffer[bisect.bisect_left(buffer, horizon, key=_time) :]
        vertex = self.by_id[request.vertex]
        first = bisect.bisect_left(buffer, request.low, key=_time)
        last = bisect.bisect_right(buffer, request.high, key=_time)
        for event in buffer[first:last]:
            self._forward(vertex, event)

    def send(self, v: Vertex, item: Any, at: float | None = None) -> None:
        """Deliver ``item`` of vertex ``v`` at its node and over its forwarding tree.

        ``at`` is when it was sent, if earlier than now (batching; see :meth:`_set_lags`).
        """
        self.deliver(v.node, v.id, item)
        if v.forwarding:
            self._forward(v, item, at)

    def _forward(self, v: Vertex, item: Any, at: float | None = None) -> None:
        """Send ``item`` of vertex ``v`` over its forwarding tree, sent at ``at`` if given."""
        behind = self.env.now - at if self.batched and at is not None else 0.0
        self.sim.send(
            v.node,
            self.trees[v.id],
            (self.index, v.id, item),
            kind=v.projection,
            sender=v.id,
            behind=behind if behind > 0.0 else 0.0,
        )

    def deliver(self, node: Hashable, sender: int, item: Any) -> None:
        """Hand an item of vertex ``sender`` to the vertices at ``node`` that consume it."""
        if node in self.dead:
            return
        if self.pulled and sender in self.pulled:
            if isinstance(item, PullRequest):
                if node == item.node:
                    self._answer(item)
                return
            if node == self.pulled[sender].node:
                # Overlapping requests bring an event more than once; hand it on once.
                key = (sender, item.id)
                if key in self.received:
                    return
                self.received[key] = item.time
                if len(self.received) > 4 * len(self.buffers) * 1024:
                    horizon = self.env.now - 2.0 * self.horizon - 2.0 * self.workload.window
                    self.received = {k: t for k, t in self.received.items() if t >= horizon}
        for vid in self.consumers[sender].get(node, ()):
            run = self.runs[vid]
            if sender in run.unfold:
                partition = run.vertex.partition
                for event in item:
                    if event.type != partition:
                        self._push(run, node, event)
            else:
                self._push(run, node, item)

    def _push(self, run: _VertexRun, node: Hashable, item: Any) -> None:
        if run.collect is not None:
            run.collect.append(item)
            if run.alone:
                self.tally.processed[node] += 1
                return
        if type(item) is Event:
            t = item[0]
            if run.dedup:
                key = (item[1], item[3])
                if key in run.seen:
                    return
                run.seen[key] = t
                if len(run.seen) > run.purge_at:  # forget events the watermark has passed
                    horizon = run.engine.watermark
                    run.seen = {k: t for k, t in run.seen.items() if t >= horizon}
                    run.purge_at = max(1024, 2 * len(run.seen))
        else:
            t = max(e[0] for e in item)
        if self.capacity is not None:  # queued at the node's server (inev.simulator.capacity)
            self.tally.processed[node] += 1
            self.capacity.push(self, run, item, t)
            return
        engine = run.engine
        self.tally.processed[node] += 1
        if t < engine.watermark:  # the engine would refuse it: count it as late
            engine.counters["late"] += 1
            self.tally.late += 1
            return
        engine.enqueue(item, t)
        if run.lag:
            deadline = t + run.delay + run.lag
            if deadline < run.timer:  # checked here too: this is the hot path
                self._arm(run, deadline)
            return
        wait = t + run.delay - self.env.now
        if wait <= 0:
            self._release(run, t)
        else:
            self.env.timeout(wait).callbacks.append(lambda _e, run=run, t=t: self._release(run, t))

    def _release(self, run: _VertexRun, watermark: float) -> None:
        # ``watermark`` is the released item's own time: recomputing it as now - delay could
        # round below the item's time and leave the item for a later release.
        wait = watermark + run.delay - self.env.now
        if wait > 1e-12 * (1.0 + abs(watermark) + run.delay):  # D grew (``reroute``): later
            self.env.timeout(wait).callbacks.append(
                lambda _e, run=run, t=watermark: self._release(run, t)
            )
            return
        self._emit(run, run.engine.advance(max(watermark, self.env.now - run.delay)))

    def _wake(self, run: _VertexRun, at: float) -> None:
        """A batched release (set for ``at``): process what is final, outputs at their times."""
        now = self.env.now
        if run.timer == at:  # the pending timer (not one superseded by an earlier one)
            run.timer = float("inf")
        engine = run.engine
        heap = engine.heap
        delay = run.delay
        watermark = now - delay
        if heap and heap[0][0] + delay + run.lag <= max(now, at) and heap[0][0] > watermark:
            watermark = heap[0][0]  # rounding: the head is due, release it
        for t, outputs in engine.advance_timed(watermark):
            self._emit(run, outputs, t + delay)
        if heap:
            self._arm(run, heap[0][0] + delay + run.lag)

    def _arm(self, run: _VertexRun, deadline: float) -> None:
        """Make sure a batched release of ``run`` fires by ``deadline``."""
        if deadline < run.timer:
            run.timer = deadline
            wait = deadline - self.env.now
            self.env.timeout(wait if wait > 0.0 else 0.0).callbacks.append(
                lambda _e, run=run, at=deadline: self._wake(run, at)
            )

    def _emit(self, run: _VertexRun, outputs: list[Any], at: float | None = None) -> None:
        v = run.vertex
        now = self.env.now if at is None else at
        tally = self.tally
        low, high = self.record
        if run.stage is not None:
            for match in outputs:
                self._request(run.stage, match)
            return
        for match in outputs:
            if run.queries and run.vertex.node not in self.dead:
                first = min(e.time for e in match)
                if low <= first < high:
                    ids = tuple(e.id for e in match)
                    last = max(e.time for e in match)
                    for q in run.queries:
                        tally.sink_found[q][ids] += 1
                        tally.latencies[q].append(now - last)
            if not self.consumers.get(v.id):
                continue
            if v.output is None:
                self.send(v, match, at)
            else:
                emitted = run.emitted
                for e in match:
                    if e.type in v.output and (e.type, e.id) not in emitted:
                        emitted[(e.type, e.id)] = e.time
                        self.send(v, e, at)
                if len(emitted) > run.emitted_at:
                    # matches come in time order: a later one holds no event more than a
                    # window older than this one's latest
                    horizon = max(e.time for e in match) - self.workload.window
                    run.emitted = {k: t for k, t in emitted.items() if t >= horizon}
                    run.emitted_at = max(1024, 2 * len(run.emitted))

    def flush(self) -> None:
        """End of the run: release whatever an engine still holds (nothing, normally)."""
        for run in self.runs.values():
            self._emit(run, run.engine.flush())

    def partial_matches(self) -> Counter:
        """Partial matches held per node."""
        out: Counter = Counter()
        for run in self.runs.values():
            out[str(run.vertex.node)] += run.engine.partial_match_count()
        return out

    def reoptimizations(self) -> Counter:
        """Re-optimisations of the adaptive engines per node."""
        out: Counter = Counter()
        for run in self.runs.values():
            out[str(run.vertex.node)] += run.engine.counters["reoptimizations"]
        return out
