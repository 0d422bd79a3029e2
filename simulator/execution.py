"""One INEv plan executing on the simulated network: engines, dispatch, watermarks, outputs.

:class:`PlanExecution` installs a plan on a :class:`~inev.simulator.simpy_network.SimNetwork`:
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
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any

from inev.planner.inev_graph import Plan, Vertex
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.engine_options import DEFAULT_ADAPTATION, DEFAULT_ENGINE_PLAN
from inev.simulator.engine.events import Event
from inev.simulator.losses import LossLog
from inev.simulator.pull import PullRequest, PullStage, pull_stages
from inev.simulator.simpy_network import SimNetwork, forwarding_tree
from inev.simulator.tally import Tally, per_node
from inev.simulator.vertex_runs import (
    EPSILON,
    VertexRun,
    plan_layout,
    tree_latency,
    vertex_runs,
    watermark_delays,
)
from inev.topologies.network import Network
from inev.workloads.workload import Workload


def _time(event: Event) -> float:
    return event.time


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
        engine_plan: str = DEFAULT_ENGINE_PLAN,
        adaptation: str = DEFAULT_ADAPTATION,
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
        self.losses: LossLog | None = None  # what changes drop (inev.simulator.losses)
        self.local_runs: dict[int, list[VertexRun]] = {}  # event vertex -> runs at its node
        layout = plan_layout(network, plan)
        self.by_id = layout.by_id
        self.event_vertex = layout.event_vertex
        self.trees = layout.trees
        self.consumers = layout.consumers
        tally.expect(plan.sinks)
        adapt = Adaptation(adaptation)
        lateness = None if capacity is None else 0.0
        self.runs = vertex_runs(
            layout, plan, workload, engine_plan, adapt, lateness, aggregate_only
        )
        self._install_pulls(engine_plan, adapt)
        delays, self.horizon = watermark_delays(
            self.runs, self.stages, layout.reach, workload.window
        )
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

    def reroute(self, latency: Callable[[dict, Hashable], dict[Hashable, float]]) -> None:
        """Trees now take ``latency(tree, root)`` to each node (detours around down links
        and dead nodes, :meth:`SimNetwork.reach`): widen every D to the slower paths.

        D never shrinks, and a release already scheduled under the old D is postponed
        (:meth:`_release`), so items still on a detour are not late.
        """
        reach = {
            vid: {**tree_latency(self.network, tree, self.by_id[vid].node), **latency(tree, v)}
            for vid, tree in self.trees.items()
            for v in (self.by_id[vid].node,)
        }
        delays, horizon = watermark_delays(self.runs, self.stages, reach, self.workload.window)
        for vid, run in self.runs.items():
            run.delay = max(run.delay, delays[vid] + run.slack)
        self.horizon = max(self.horizon, horizon)

    def node_down(self, nodes: set[Hashable], change: int) -> None:
        """``nodes`` went down (change ``change``): their engines lose what they hold
        (``state-at-down-node``), their pull buffers the events kept there
        (``event-at-down-node``); nothing at them takes, evaluates or sends anything more."""
        self.dead |= nodes
        for run in self.runs.values():
            if run.vertex.node in nodes:
                engine = run.engine
                state = [engine.heap, engine.pending, list(engine.neg_buffers.values())]
                state += [
                    (r.buffers, list(r.growing.values()))
                    for b in engine.branches
                    for r in b.runners
                ]
                self.lose(state, "state-at-down-node", change)
                engine.release()
        for vid, buffer in self.buffers.items():
            if self.by_id[vid].node in nodes:
                self.lose(buffer, "event-at-down-node", change)
                buffer.clear()

    def lose(self, item: Any, cause: str, change: int) -> None:
        """Record that ``item`` (its events) was lost to ``cause`` (see :mod:`.losses`)."""
        if self.losses is not None:
            self.losses.drop(self.index, item, cause, change)

    def dropped(
        self, nodes: list[Hashable], sender: int, item: Any, cause: str, change: int
    ) -> None:
        """The network will not bring ``item`` of vertex ``sender`` to ``nodes``: a loss if a
        vertex there consumes it (a pull request: its answer, the buffered events asked for)."""
        if isinstance(item, PullRequest):
            if item.node in nodes:
                buffer = self.buffers.get(item.vertex, [])
                self.lose([e for e in buffer if item.low <= e.time <= item.high], cause, change)
            return
        consumers = self.consumers.get(sender, {})
        if any(consumers.get(n) for n in nodes):
            self.lose(item, cause, change)

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
            self.runs[vertex.id] = VertexRun(vertex=vertex, engine=engine, stage=stage)
            for u in stage.inputs:
                self.consumers[u][stage.node].append(vertex.id)

    # ------------------------------------------------------------------ dynamics
    def source(self, event: Event) -> None:
        """A new event at its source node (ignored outside the ``feed`` interval)."""
        if not self.feed[0] <= event.time < self.feed[1]:
            return
        if event.node in self.dead:
            self.lose(event, "event-at-down-node", self.sim.down_by.get(event.node, 0))
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
        ready = request.high + EPSILON * (1.0 + abs(request.high))
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
        if self.dead and v.node in self.dead:
            return
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

    def _push(self, run: VertexRun, node: Hashable, item: Any) -> None:
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
            if self.losses is not None:
                self.lose(item, "late", self.losses.current)
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

    def _release(self, run: VertexRun, watermark: float) -> None:
        # ``watermark`` is the released item's own time: recomputing it as now - delay could
        # round below the item's time and leave the item for a later release.
        wait = watermark + run.delay - self.env.now
        if wait > 1e-12 * (1.0 + abs(watermark) + run.delay):  # D grew (``reroute``): later
            self.env.timeout(wait).callbacks.append(
                lambda _e, run=run, t=watermark: self._release(run, t)
            )
            return
        self._emit(run, run.engine.advance(max(watermark, self.env.now - run.delay)))
        if run.engine.pending:
            self._follow(run)

    def _follow(self, run: VertexRun) -> None:
        """An engine holding matches (a negation past their last event, or a negated event
        of equal time under ties 'any') releases them once its watermark passes their end:
        wake it then, when no item will come to do it."""
        due = run.engine.pending[0][0]
        at = due + run.delay + EPSILON * (1.0 + abs(due) + run.delay) / 4
        if run.lag:
            self._arm(run, at)
            return
        if at >= run.hold_at:
            return
        run.hold_at = at
        wait = at - self.env.now
        self.env.timeout(wait if wait > 0.0 else 0.0).callbacks.append(
            lambda _e, run=run, at=at: self._release_held(run, at)
        )

    def _release_held(self, run: VertexRun, at: float) -> None:
        if run.hold_at == at:
            run.hold_at = float("inf")
        engine = run.engine
        self._emit(run, engine.advance(max(engine.watermark, self.env.now - run.delay)))
        if engine.pending:
            self._follow(run)

    def _wake(self, run: VertexRun, at: float) -> None:
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
        if engine.pending:
            self._follow(run)

    def _arm(self, run: VertexRun, deadline: float) -> None:
        """Make sure a batched release of ``run`` fires by ``deadline``."""
        if deadline < run.timer:
            run.timer = deadline
            wait = deadline - self.env.now
            self.env.timeout(wait if wait > 0.0 else 0.0).callbacks.append(
                lambda _e, run=run, at=deadline: self._wake(run, at)
            )

    def _emit(self, run: VertexRun, outputs: list[Any], at: float | None = None) -> None:
        v = run.vertex
        if self.dead and self._at_dead_node(v, outputs):
            return
        now = self.env.now if at is None else at
        tally = self.tally
        low, high = self.record
        if run.stage is not None:
            for match in outputs:
                self._request(run.stage, match)
            return
        for match in outputs:
            recorded = run.queries
            if recorded and low <= min(e.time for e in match) < high:
                tally.record(run.queries, match, now)
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

    def _at_dead_node(self, v: Vertex, outputs: list[Any]) -> bool:
        """Whether ``v`` is at a dead node; then its outputs (what a capacity queue there still
        held) are lost with its state."""
        if v.node not in self.dead:
            return False
        if outputs:
            self.lose(outputs, "state-at-down-node", self.sim.down_by.get(v.node, 0))
        return True

    def flush(self) -> None:
        """End of the run: release whatever an engine still holds (nothing, normally)."""
        for run in self.runs.values():
            self._emit(run, run.engine.flush())

    def partial_matches(self) -> Counter:
        """Partial matches held per node."""
        return per_node(self.runs.values(), "partial_matches")

    def reoptimizations(self) -> Counter:
        """Re-optimisations of the adaptive engines per node."""
        return per_node(self.runs.values(), "reoptimizations")
