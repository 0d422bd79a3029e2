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
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import networkx as nx
import simpy

from inev.common.errors import InevError
from inev.planner.broken import bfs_children
from inev.topologies.network import Network
from inev.topologies.network_entries import link_key

Node = Hashable
Tree = Mapping[Node, tuple[Node, ...]]
Handler = Callable[[Node, Any, Hashable], None]
Dropper = Callable[[list[Node], Any, str, int], None]
"""``on_drop(nodes, payload, cause, change)``: ``payload`` will not reach ``nodes``."""


def forwarding_tree(root: Node, links: Iterable[tuple[Node, Node]]) -> dict[Node, tuple[Node, ...]]:
    """``{node: children}`` of a breadth-first tree over ``links`` rooted at ``root``
    (:func:`inev.planner.broken.bfs_children`, the tree the planner prices a changed network
    with: neighbours by type name, then text).

    Nodes of ``links`` that cannot be reached from ``root`` raise :class:`InevError`: a
    forwarding graph must be connected (INEv Definition 1).
    """
    links = list(links)
    children = bfs_children(root, links)
    missing = {n for link in links for n in link} - set(children)
    if missing:
        raise InevError(
            f"forwarding graph from {root!r} does not reach {sorted(map(str, missing))[0]}"
        )
    return children


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
        # nodes that are down, and the change (its index) that took each node or link down
        self.dead: set[Node] = set()
        self.down_by: dict[Any, int] = {}
        self.on_drop: Dropper | None = None
        self.worst: dict[tuple[Node, Node], float] = {}  # the longest latency of each hop
        self._history: dict[tuple[Node, Node], set[tuple[Node, ...]]] = {}  # detours taken

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
        if self.dead and v in self.dead:
            self._around(u, v, tree, payload, kind, sender, behind)
            return
        if key in self.down:
            detour = self._detour(u, v)
            if detour is None:
                self.dropped += 1
                self._drop(self.below(tree, v), payload, "in-flight-on-down-link", key)
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
        if path[0] in self.dead:  # a relay went down while the message was under way
            self._drop(self.below(tree, path[-1]), payload, "in-flight-to-down-node", path[0])
            return
        if len(path) > 2 and (link_key(path[0], path[1]) in self.down or path[1] in self.dead):
            # the detour's next link or relay went down too: route again from here
            if path[-1] in self.dead:
                self._around(path[0], path[-1], tree, payload, kind, sender, behind)
                return
            detour = self._detour(path[0], path[-1])
            if detour is None:
                self.dropped += 1
                self._drop(self.below(tree, path[-1]), payload, "in-flight-on-down-link", path[1])
                return
            path = detour
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

    def _around(
        self,
        u: Node,
        v: Node,
        tree: Tree,
        payload: Any,
        kind: Hashable,
        sender: Hashable,
        behind: float = 0.0,
    ) -> None:
        """``v`` is down: route from ``u`` to the nearest live nodes of ``v``'s subtree, each
        over a hop-shortest path of links that are up (as a network layer would route
        around a dead router; the extra links are counted), and on down their subtrees.
        ``v`` and the dead nodes passed over lose the message (``sent-to-down-node``)."""
        lost = []
        stack = [v]
        while stack:
            node = stack.pop()
            if node in self.dead:
                lost.append(node)
                stack.extend(tree.get(node, ()))
                continue
            path = self._detour(u, node)
            if path is None:
                self.dropped += 1
                self._drop(self.below(tree, node), payload, "in-flight-on-down-link", v)
                continue
            self.detoured += 1
            self._relay(path, tree, payload, kind, sender, behind)
        self._drop(lost, payload, "sent-to-down-node", v)

    def below(self, tree: Tree, node: Node) -> list[Node]:
        """``node`` and every node below it in ``tree``."""
        out, stack = [], [node]
        while stack:
            out.append(stack.pop())
            stack.extend(tree.get(out[-1], ()))
        return out

    def _drop(self, nodes: list[Node], payload: Any, cause: str, by: Any) -> None:
        """Tell ``on_drop`` that ``payload`` will not reach ``nodes``, lost to ``cause`` (the
        change that took node or link ``by`` down is named by its index)."""
        if self.on_drop is not None and nodes:
            self.on_drop(nodes, payload, cause, self.down_by.get(by, 0))

    def reach(self, tree: Tree, root: Node) -> dict[Node, float]:
        """Latency from ``root`` to every live node of ``tree`` as a message sent now takes it:
        detours around down links, routes around dead nodes (:meth:`_around`).

        Each hop counts the longest latency it has had so far (``worst``): a message can
        cross a link before it went down, still slow, and meet a detour at the next hop."""
        out = {root: 0.0}
        stack = [(root, root)]  # (node, the live node the message leaves from)
        while stack:
            node, live = stack.pop()
            for child in tree.get(node, ()):
                if child in self.dead:
                    stack.append((child, live))
                    continue
                key = link_key(live, child)
                worst = max(
                    self.worst.get(key, self.latency.get(key, 0.0)), self._bound(live, child)
                )
                self.worst[key] = worst
                out[child] = out[live] + worst
                stack.append((child, child))
        return out

    def _bound(self, u: Node, v: Node, depth: int = 0) -> float:
        """The longest latency a message for hop ``u`` -> ``v`` can take now: the current
        route, or a detour taken earlier up to any of its relays and routed again from there
        (:meth:`_relay`; three reroutes deep)."""
        best = self.link_latency(u, v)
        for path in self._history.get((u, v), ()):
            done = 0.0
            for a, b in itertools.pairwise(path):
                if a != u and depth < 3:
                    best = max(best, done + self._bound(a, v, depth + 1))
                done += self.latency[link_key(a, b)]
            best = max(best, done)
        return best

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
            if path is not None:
                self._history.setdefault((u, v), set()).add(tuple(path))
        return self._detours[(u, v)]

    def link_latency(self, u: Node, v: Node) -> float:
        """Latency from ``u`` to its neighbour ``v`` now: the link's, or its detour's if it is down.

        ``u`` and ``v`` need not be neighbours when one between them is down (:meth:`reach`).
        A link down without a detour counts as its own latency (its messages are dropped).
        """
        key = link_key(u, v)
        if key not in self.down and key in self.latency:
            return self.latency[key]
        path = self._detour(u, v)
        if path is None:
            return self.latency.get(key, 0.0)
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
        if self.dead and v in self.dead:  # it went down while the message was under way
            self._drop(self.below(tree, v), payload, "in-flight-to-down-node", v)
            return
        handler = self.handlers.get(v)
        if handler is not None:
            handler(v, payload, kind)
        for child in tree.get(v, ()):
            self._hop(v, child, tree, payload, kind, sender)
