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
outputs of an output selector, unfolded matches). Every arriving item schedules the advance
that releases it at its time + D_v, so no match is emitted before it is final and none is held
back longer than D_v. An item that arrives later all the same (bandwidth queueing, a detour)
is counted in ``late``, never hidden.

**Outputs.** Engines always produce full matches; a vertex with an output selector sends the
distinct events of the selected types that occur in its matches, each once. A sink whose
Kleene trends span several matches of its (Kleene-free, §6.1) input unfolds those matches into
events and builds the trends itself.

Several executions can share one network (plan changes at run time): each feeds only the
events of its ``feed`` interval and records only matches whose first event lies in its
``record`` interval.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.planner.plan import Plan, Vertex
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event
from inev.simulator.network import SimNetwork, forwarding_tree
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
    emitted: set[tuple[str, Any]]
    seen: dict[tuple[str, Any], float]
    unfold: frozenset[int] = frozenset()
    purge_at: int = 1024
    collect: list[Any] | None = None  # items received, for GRETA at sinks (aggregation.py)


def tree_latency(network: Network, tree: dict, root: Hashable) -> dict[Hashable, float]:
    """Latency from ``root`` to every node of a rooted forwarding tree."""
    out = {root: 0.0}
    stack = [root]
    while stack:
        u = stack.pop()
        for v in tree.get(u, ()):
            out[v] = out[u] + network.graph.edges[u, v]["latency"]
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
    ) -> None:
        self.index = index
        self.sim = sim
        self.env = sim.env
        self.network = network
        self.workload = workload
        self.plan = plan
        self.tally = tally
        self.feed = feed
        self.record = record
        self.dead: set[Hashable] = set()
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
        emission: dict[int, float] = {}
        adapt = Adaptation(adaptation)
        for v in plan.vertices:  # inputs come first: a topological order
            if v.id in event_ids:
                emission[v.id] = 0.0
                continue
            delay = 0.0
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
                arrival = emission[u_id] + reach[u_id][v.node]
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
                    arrival += workload.window
                else:
                    # Selected events leave with their match, up to one window after their time.
                    names = list(u.output)
                    arrival += workload.window
                delay = max(delay, arrival)
                for name in names:
                    if name not in inputs:
                        inputs.append(name)
            delay += _EPSILON * (1.0 + delay)
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
                lateness=None,
            )
            self.runs[v.id] = _VertexRun(
                v, engine, delay, tuple(sinks.get(v.projection, ())), set(), {}, frozenset(unfold)
            )
            if any(workload.query(q).returns is not None for q in self.runs[v.id].queries):
                self.runs[v.id].collect = []
            emission[v.id] = delay

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
            self.send(self.by_id[vid], event)

    def send(self, v: Vertex, item: Any) -> None:
        """Deliver ``item`` of vertex ``v`` at its node and over its forwarding tree."""
        self.deliver(v.node, v.id, item)
        if v.forwarding:
            self.sim.send(
                v.node, self.trees[v.id], (self.index, v.id, item), kind=v.projection, sender=v.id
            )

    def deliver(self, node: Hashable, sender: int, item: Any) -> None:
        """Hand an item of vertex ``sender`` to the vertices at ``node`` that consume it."""
        if node in self.dead:
            return
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
        if isinstance(item, Event):
            key = (item.type, item.id)
            if key in run.seen:
                return
            run.seen[key] = item.time
            if len(run.seen) > run.purge_at:  # forget events the watermark has passed
                horizon = run.engine.watermark
                run.seen = {k: t for k, t in run.seen.items() if t >= horizon}
                run.purge_at = max(1024, 2 * len(run.seen))
            t = item.time
        else:
            t = max(e.time for e in item)
        before = run.engine.counters["late"]
        run.engine.push(item)
        self.tally.processed[node] += 1
        if run.engine.counters["late"] != before:
            self.tally.late += 1
            return
        wait = t + run.delay - self.env.now
        if wait <= 0:
            self._release(run, t)
        else:
            self.env.timeout(wait).callbacks.append(lambda _e, run=run, t=t: self._release(run, t))

    def _release(self, run: _VertexRun, watermark: float) -> None:
        # ``watermark`` is the released item's own time: recomputing it as now - delay could
        # round below the item's time and leave the item for a later release.
        self._emit(run, run.engine.advance(max(watermark, self.env.now - run.delay)))

    def _emit(self, run: _VertexRun, outputs: list[Any]) -> None:
        v = run.vertex
        now = self.env.now
        tally = self.tally
        low, high = self.record
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
                self.send(v, match)
            else:
                for e in match:
                    if e.type in v.output and (e.type, e.id) not in run.emitted:
                        run.emitted.add((e.type, e.id))
                        self.send(v, e)

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
