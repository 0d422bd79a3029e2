"""The old plan on the changed network: what its messages cost there, or why it cannot run.

After a topology change a plan's forwarding graphs may cross links that are gone. The
simulator (``simulator/simpy_network.py``, ``SimNetwork._detour``) does what a network layer
would: a message sent over a lost link takes a hop-shortest path between the link's two
ends over the links that are up, link by link, and every link of the detour is counted; a
message to a node that is gone is routed around it, over hop-shortest paths, to the nearest
nodes below it in the tree that are up (``SimNetwork._around``), and goes on from there. :func:`priced_on` prices the old plan
the same way, without the simulator (the planner does not import it):

* a vertex whose forwarding graph is untouched (every link still up, no node lost) costs
  |E_v| · rate as before;
* a touched one is walked as the simulator sends it: the breadth-first tree of its
  forwarding graph from its node (the same tree as the simulator's ``forwarding_tree``:
  neighbours in the order of their type name and text), each link up counting 1, each lost
  link the hop distance of its two ends in the changed network (its detour), and a lost
  node the hop distances from its parent to the nearest live nodes below it.

The plan **cannot run** when matches would be lost that the change itself does not lose
(reasons in :func:`cannot_run`, one line each, naming vertices, projections, links and
nodes):

* a vertex that evaluates a projection on a single node (or a regional vertex, whose region
  holds other sources) sits at a lost node;
* a destination that still needs a vertex's output (a node that is up) is no longer reached
  by its forwarding graph (none today: a changed network is connected, so routing around
  lost nodes reaches every node that is up; kept as a check).

Not a reason (choice: the centralized reference loses the same, as a node that is down
generates nothing): an event vertex at a lost node (its events are no longer generated) and
a vertex of a multi-node placement at a lost node (it matched only the partitioning events
generated at its own node).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import replace

from inev.common.words import listing
from inev.planner.inev_graph import Link, Node, Plan, Vertex
from inev.topologies.network import Network

SHOWN_REASONS = 3
"""The summary line names this many reasons, then how many more there are."""


def bfs_children(root: Node, links: Iterable[Link]) -> dict[Node, tuple[Node, ...]]:
    """``{node: children}`` of the breadth-first tree over ``links`` from ``root``, with
    neighbours in the order the simulator's ``forwarding_tree`` visits them (by type name,
    then text); nodes the links do not connect to ``root`` are left out.

    >>> bfs_children(0, [(0, 1), (1, 2), (0, 3)])
    {0: (1, 3), 1: (2,), 3: (), 2: ()}
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
    return {node: tuple(kids) for node, kids in children.items()}


def detour_walk(vertex: Vertex, after: Network) -> tuple[int, frozenset[Node], list[str]]:
    """The links one message of ``vertex`` crosses on the changed network ``after``, the
    nodes it reaches and the lost links and nodes on its way (see the module docstring).

    >>> ring = Network.build(range(4), [(0, 1), (1, 2), (2, 3), (3, 0)], {"A": (1.0, [0])})
    >>> cut = ring.without(links=[(1, 2)])
    >>> v = Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,))
    >>> crossed, reached, lost = detour_walk(v, cut)
    >>> crossed, sorted(reached), lost  # 0-1, then 1-0-3-2 around the lost link
    (4, [0, 1, 2], ['link 1-2 (detour of 3 links)'])
    """
    lost: list[str] = []
    legs = _legs(vertex, after, lost)
    up = after.graph
    crossed = sum(1 if up.has_edge(u, c) else after.hops(u, c) for u, c in legs)
    return crossed, frozenset({vertex.node, *(c for _, c in legs)}), lost


def _legs(vertex: Vertex, after: Network, lost: list[str]) -> list[Link]:
    """The ``(from, to)`` legs a message of ``vertex`` is sent over on ``after`` (the
    simulator's walk, :func:`detour_walk`): a link that is up, or the two ends of a lost
    link or of the way around a lost node (a hop-shortest path each); lost links and nodes
    are added to ``lost``."""
    children = bfs_children(vertex.node, vertex.forwarding)
    up = after.graph
    legs: list[Link] = []
    stack = [vertex.node]
    while stack:
        u = stack.pop()
        for c in _live_below(u, children, after, lost):
            if not up.has_edge(u, c) and c in children.get(u, ()):
                lost.append(f"link {u}-{c} (detour of {after.hops(u, c)} links)")
            legs.append((u, c))
            stack.append(c)
    return legs


def _live_below(
    u: Node, children: dict[Node, tuple[Node, ...]], after: Network, lost: list[str]
) -> list[Node]:
    """The nodes a message at ``u`` goes to next: its children in the tree, and in place of
    a child that is lost, the nearest nodes below it that are up (the simulator routes
    around a dead node to them, ``SimNetwork._around``); lost nodes are added to ``lost``."""
    out: list[Node] = []
    stack = list(reversed(children.get(u, ())))
    while stack:
        c = stack.pop()
        if c in after.node_index:
            out.append(c)
            continue
        lost.append(f"node {c} (routed around)")
        stack.extend(reversed(children.get(c, ())))
    return out


def touched(vertex: Vertex, after: Network) -> bool:
    """Whether ``vertex``'s forwarding graph uses a link or node that ``after`` lacks."""
    index, graph = after.node_index, after.graph
    return any(
        u not in index or v not in index or not graph.has_edge(u, v) for u, v in vertex.forwarding
    )


def priced_on(plan: Plan, after: Network) -> tuple[Plan, tuple[str, ...]]:
    """``plan`` (its rates already those of ``after``) with each vertex priced on the changed
    network as the simulator sends it, and the reasons it cannot run (empty when it runs).

    Vertices at lost nodes are dropped from the returned plan; its ψ is what the vertices
    that still run cost (a plan that cannot run loses matches besides).

    >>> ring = Network.build(range(4), [(0, 1), (1, 2), (2, 3), (3, 0)], {"A": (1.0, [0])})
    >>> a = Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,), rate=2.0, cost=4.0)
    >>> sink = Vertex(1, "SEQ(A, A)", 2, inputs=(0,))
    >>> plan = Plan("inev", (a, sink), {}, {}, {}, {}, {}, psi=4.0)
    >>> priced, reasons = priced_on(plan, ring.without(links=[(1, 2)]))
    >>> priced.psi, reasons  # 4 links at rate 2: 0-1, then 1-0-3-2
    (8.0, ())
    >>> priced, reasons = priced_on(plan, ring.without(nodes=[1]))
    >>> priced.psi, reasons  # around lost node 1: 0-3-2, 2 links at rate 2
    (4.0, ())
    """
    index = after.node_index
    alive = {v.id: v for v in plan.vertices if v.node in index}
    needed: dict[int, set[Node]] = {}  # per vertex, the nodes of consumers still running
    for v in alive.values():
        for i in v.inputs:
            needed.setdefault(i, set()).add(v.node)
    reasons = lost_vertices(plan, after)
    vertices = []
    for v in plan.vertices:
        if v.id not in alive:
            continue
        if not touched(v, after):
            vertices.append(v)
            continue
        crossed, reached, lost = detour_walk(v, after)
        missing = sorted((needed.get(v.id, set()) - reached), key=str)
        if missing:
            nodes = [x for x in lost if x.startswith("node ")]
            reasons.append(
                f"vertex {v.id} {v.projection} at {v.node}: "
                f"{listing(missing, limit=3)} no longer reached (via lost {listing(nodes, 2)})"
            )
        vertices.append(replace(v, cost=crossed * v.rate, tree=None))
    priced = replace(plan, vertices=tuple(vertices), psi=sum(v.cost for v in vertices))
    return priced, tuple(reasons)


def rerouted(plan: Plan, after: Network) -> Plan:
    """The old plan as it runs on ``after``, written as a plan of ``after``: ``plan`` is
    :func:`~inev.planner.repair.broken_plan`'s (vertices at lost nodes dropped, rates those
    of ``after``); each touched vertex's forwarding graph becomes the links its messages
    take there (:func:`detour_walk`'s walk, a lost link or node replaced by a hop-shortest
    path of :meth:`~inev.topologies.network.Network.path_links`), cut to the breadth-first
    tree from its node that reaches its destinations that are up; inputs from dropped
    vertices and lost destinations are left out. So every link is up and the simulator
    sends the plan as written (no detour left to take); a vertex costs |tree| · rate, at
    most what :func:`priced_on` prices (a detour may cross links the tree already has).
    Meant for a plan that can run (:func:`priced_on`'s reasons empty); a destination no
    longer reached is left out.

    >>> ring = Network.build(range(4), [(0, 1), (1, 2), (2, 3), (3, 0)], {"A": (1.0, [0])})
    >>> a = Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,), rate=2.0, cost=4.0)
    >>> sink = Vertex(1, "SEQ(A, A)", 2, inputs=(0,))
    >>> plan = Plan("inev", (a, sink), {}, {}, {}, {}, {}, psi=4.0)
    >>> again = rerouted(plan, ring.without(links=[(1, 2)]))
    >>> again.vertices[0].forwarding, again.vertices[0].hops, again.psi  # 0-3-2, not 0-1-0-3-2
    (((0, 3), (3, 2)), (2,), 4.0)
    """
    index = after.node_index
    alive = {v.id for v in plan.vertices if v.node in index}
    vertices = []
    for v in plan.vertices:
        if v.id not in alive:
            continue
        destinations = tuple(d for d in v.destinations if d in index)
        inputs = tuple(i for i in v.inputs if i in alive)
        if not touched(v, after) and destinations == v.destinations:
            vertices.append(replace(v, inputs=inputs))
            continue
        links = set()
        for u, c in _legs(v, after, []):
            links.update([(u, c)] if after.graph.has_edge(u, c) else after.path_links(u, c))
        forwarding, hops = _tree_to(v.node, links, destinations)
        reached = tuple(d for d in destinations if d in hops)
        vertices.append(
            replace(v, inputs=inputs, forwarding=forwarding, destinations=reached,
                    hops=tuple(hops[d] for d in reached), tree=None,
                    cost=len(forwarding) * v.rate)
        )  # fmt: skip
    return replace(plan, vertices=tuple(vertices), psi=sum(v.cost for v in vertices))


def _tree_to(
    root: Node, links: Iterable[Link], destinations: Iterable[Node]
) -> tuple[tuple[Link, ...], dict[Node, int]]:
    """The links of the breadth-first tree over ``links`` from ``root`` that lead to
    ``destinations`` (in the tree's order), and each reached destination's depth."""
    children = bfs_children(root, links)
    parent = {c: u for u, kids in children.items() for c in kids}
    depth = {root: 0}
    for u, kids in children.items():  # breadth-first: a parent comes before its children
        for c in kids:
            depth[c] = depth[u] + 1
    keep: set[Node] = set()
    for d in destinations:
        node = d
        while node in parent and node not in keep:
            keep.add(node)
            node = parent[node]
    tree = tuple((u, c) for u, kids in children.items() for c in kids if c in keep)
    return tree, {d: depth[d] for d in destinations if d in depth}


def lost_vertices(plan: Plan, after: Network) -> list[str]:
    """Why the vertices of ``plan`` at nodes ``after`` lacks stop it (module docstring)."""
    index = after.node_index
    return [why for v in plan.vertices if v.node not in index and (why := _lost_vertex(v))]


def _lost_vertex(v: Vertex) -> str:
    """Why a vertex at a lost node stops the plan ('' when its loss loses nothing more)."""
    if not v.inputs:
        return ""  # events no longer generated
    if v.partition is not None and not v.region:
        return ""  # its partitioning events came from its own node alone
    what = "regional vertex" if v.region else "vertex"
    return f"{what} {v.id} {v.projection} at lost node {v.node}"


def why_not(reasons: tuple[str, ...]) -> str:
    """The text ``inev repair`` prints for a plan that cannot run.

    >>> why_not(("vertex 3 AND(B, D) at lost node Denver",))
    'cannot run (vertex 3 AND(B, D) at lost node Denver)'
    """
    shown = list(reasons[:SHOWN_REASONS])
    if len(reasons) > SHOWN_REASONS:
        shown.append(f"and {len(reasons) - SHOWN_REASONS} more")
    return f"cannot run ({', '.join(shown)})"
