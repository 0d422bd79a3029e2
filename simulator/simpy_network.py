"""The topology in SimPy: links that delay and count messages, trees that carry them hop by hop.

A message is sent by a vertex of the plan from its node over the vertex's forwarding graph.
The graph is turned into a tree rooted at the sending node (breadth-first, ties by node
order), and the message crosses it link by link: each link adds its latency (and, when a
bandwidth is set, waits for the link and occupies it for ``1 / bandwidth``), every crossing
is counted once, and every node of the tree receives the message, so nodes on a forwarding
path can use what passes through them (INEv §5.1).

Hops are scheduled as SimPy timeouts with callbacks rather than as one process per hop: the
same event ordering, without a generator per message (measured in
``benchmarks/bench_simulator.py``).

>>> import networkx as nx
>>> import simpy
>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1, 2, 3, 4], [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (1.0, [0])})
>>> env = simpy.Environment()
>>> sim = SimNetwork(env, net)
>>> tree = forwarding_tree(0, [(0, 1), (1, 2), (2, 3), (3, 4)])
>>> for i in range(3):
...     sim.send(0, tree, payload=i, kind="A")
>>> env.run()
>>> sim.messages
12
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import networkx as nx
import simpy

from inev.common.errors import InevError
from inev.topologies.network import Network, link_key

Node = Hashable
Tree = Mapping[Node, tuple[Node, ...]]
Handler = Callable[[Node, Any, Hashable], None]


def forwarding_tree(root: Node, links: Iterable[tuple[Node, Node]]) -> dict[Node, tuple[Node, ...]]:
    """``{node: children}`` of a breadth-first tree over ``links`` rooted at ``root``.

    Nodes of ``links`` that cannot be reached from ``root`` raise :class:`InevError`: a
    forwarding graph must be connected (INEv Definition 1).
    """
    adjacency: dict[Node, list[Node]] = {root: []}
    for u, v in links:
        adjacency.setdefault(u, []).append(v)
        adjacency.setdefault(v, []).append(u)
    children: dict[Node, list[Node]] = {root: []}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for nxt in sorted(adjacency[node], key=lambda n: (type(n).__name__, str(n))):
            if nxt not in children:
                children[nxt] = []
                children[node].append(nxt)
                queue.append(nxt)
    missing = set(adjacency) - set(children)
    if missing:
        raise InevError(
            f"forwarding graph from {root!r} does not reach {sorted(map(str, missing))[0]}"
        )
    return {node: tuple(kids) for node, kids in children.items()}


class SimNetwork:
    """Links with latency (and optional bandwidth) that carry and count messages."""

    def __init__(
        self, env: simpy.Environment, network: Network, bandwidth: float | None = None
    ) -> None:
        if bandwidth is not None and not bandwidth > 0:
            raise InevError(f"bandwidth must be positive, got {bandwidth}")
        self.env = env
        self.network = network
        self.latency = {link_key(u, v): lat for u, v, lat in network.links}
        self.bandwidth = bandwidth
        self._busy: dict[tuple[Node, Node], simpy.Resource] = {}
        self.handlers: dict[Node, Handler] = {}
        self.by_link: Counter[tuple[Node, Node]] = Counter()
        self.by_kind: Counter[Hashable] = Counter()
        self.by_sender: Counter[Hashable] = Counter()
        self.by_link_kind: Counter[tuple[tuple[Node, Node], Hashable]] = Counter()
        # messages per bin of width ``bin`` by arrival time (inev.simulator.timeline)
        self.bin = 1.0
        self.by_bin: Counter[int] = Counter()
        self.down: set[tuple[Node, Node]] = set()
        self.dropped = 0
        self.detoured = 0
        self._detours_for: frozenset[tuple[Node, Node]] = frozenset()
        self._detours: dict[tuple[Node, Node], list[Node] | None] = {}

    @property
    def messages(self) -> int:
        """Messages counted so far, once per link crossed."""
        return sum(self.by_link.values())

    def on_receive(self, node: Node, handler: Handler) -> None:
        """Call ``handler(node, payload, kind)`` whenever a message reaches ``node``."""
        self.handlers[node] = handler

    def send(
        self,
        root: Node,
        tree: Tree,
        payload: Any,
        kind: Hashable,
        sender: Hashable = None,
        behind: float = 0.0,
    ) -> None:
        """Send ``payload`` from ``root`` down ``tree``; every node below the root receives it.

        ``behind`` says the message logically left ``behind`` time units ago (a sender that
        batches its work, :mod:`inev.simulator.execution`): its first hops arrive that much
        sooner, so every arrival time is the one of an immediate send. It must not exceed
        the latency of the root's links; links with a bandwidth ignore it (their queue
        order is their real send order).
        """
        for child in tree.get(root, ()):
            self._hop(root, child, tree, payload, kind, sender, behind)

    def _hop(
        self,
        u: Node,
        v: Node,
        tree: Tree,
        payload: Any,
        kind: Hashable,
        sender: Hashable,
        behind: float = 0.0,
    ) -> None:
        key = link_key(u, v)
        latency = self.latency.get(key)
        if latency is None:
            raise InevError(f"forwarding uses {list(key)!r}, which is not a link of the topology")
        if key in self.down:
            detour = self._detour(u, v)
            if detour is None:
                self.dropped += 1
                return
            self.detoured += 1
            self._relay(detour, tree, payload, kind, sender, behind)
            return
        if self.bandwidth is None:
            timeout = self.env.timeout(max(latency - behind, 0.0) if behind else latency)
            timeout.callbacks.append(
                lambda _e: self._arrive(u, v, tree, payload, kind, sender, key)
            )
        else:
            self.env.process(self._queued(key, u, v, tree, payload, kind, sender, latency))

    def _relay(
        self,
        path: list[Node],
        tree: Tree,
        payload: Any,
        kind: Hashable,
        sender: Hashable,
        behind: float = 0.0,
    ) -> None:
        """Carry a message along ``path`` (a detour): intermediate nodes only relay it."""
        if len(path) == 2:
            self._hop(path[0], path[1], tree, payload, kind, sender, behind)
            return
        u, w = path[0], path[1]
        key = link_key(u, w)

        def onward(_event: Any) -> None:
            self.by_link[key] += 1
            self.by_kind[kind] += 1
            self.by_sender[sender] += 1
            self.by_link_kind[key, kind] += 1
            self.by_bin[int(self.env.now / self.bin)] += 1
            self._relay(path[1:], tree, payload, kind, sender)

        self.env.timeout(max(self.latency[key] - behind, 0.0)).callbacks.append(onward)

    def _detour(self, u: Node, v: Node) -> list[Node] | None:
        """A hop-shortest path from ``u`` to ``v`` over links that are up (None if there is none).

        A lost link is routed around link by link, as a network layer would: the message
        reaches the same nodes, over more links (each counted), and later. Paths are cached
        for the current set of lost links.
        """
        down = frozenset(self.down)
        if down != self._detours_for:
            self._detours_for = down
            self._detours = {}
        if (u, v) not in self._detours:
            graph = nx.Graph()
            graph.add_edges_from(k for k in self.latency if k not in down)
            path = None
            if u in graph and v in graph:
                with contextlib.suppress(nx.NetworkXNoPath):
                    path = nx.shortest_path(graph, u, v)
            self._detours[(u, v)] = path
        return self._detours[(u, v)]

    def link_latency(self, u: Node, v: Node) -> float:
        """Latency from ``u`` to its neighbour ``v`` now: the link's, or its detour's if it is down.

        A link down without a detour counts as its own latency (its messages are dropped).
        """
        key = link_key(u, v)
        if key not in self.down:
            return self.latency[key]
        path = self._detour(u, v)
        if path is None:
            return self.latency[key]
        return sum(self.latency[link_key(a, b)] for a, b in itertools.pairwise(path))

    def _queued(self, key, u, v, tree, payload, kind, sender, latency):  # type: ignore[no-untyped-def]
        resource = self._busy.get(key)
        if resource is None:
            resource = self._busy[key] = simpy.Resource(self.env, capacity=1)
        with resource.request() as request:
            yield request
            yield self.env.timeout(1.0 / self.bandwidth)
        yield self.env.timeout(latency)
        self._arrive(u, v, tree, payload, kind, sender)

    def _arrive(
        self,
        u: Node,
        v: Node,
        tree: Tree,
        payload: Any,
        kind: Hashable,
        sender: Hashable,
        key: tuple[Node, Node] | None = None,
    ) -> None:
        crossed = link_key(u, v) if key is None else key
        self.by_link[crossed] += 1
        self.by_kind[kind] += 1
        self.by_sender[sender] += 1
        self.by_link_kind[crossed, kind] += 1
        self.by_bin[int(self.env.now / self.bin)] += 1
        handler = self.handlers.get(v)
        if handler is not None:
            handler(v, payload, kind)
        for child in tree.get(v, ()):
            self._hop(v, child, tree, payload, kind, sender)
