"""Checks every produced INEv graph must pass: well-formed forwarding (INEv paper §5.2, Definition 2).

:func:`forwarding_problems` lists the violations of Definition 2:

(i) for every edge (u, v), v_node lies in u's forwarding graph (or u sits at v_node);
(ii) if u has an output selector, every source vertex of each type of E(u_proj) that u no
     longer sends reaches v_node. For a multi-node vertex v partitioned by type c, only the
     c events of v's own node are needed, so for c only the event vertex at v_node counts
     (our reading of §5.3: a multi-node vertex uses its local partitioning events only).
     Source vertices are looked up in v's weakly connected component of the INEv graph, so
     plans placed side by side (the isolated baseline) are checked each on its own.

:func:`structure_problems` adds what the model needs besides: forwarding graphs are
connected sub-graphs of the topology containing the vertex and its destinations; the
vertices of a multi-node projection sit exactly at the sources of its partitioning type,
each with the local event vertex of that type as input (a regional placement's regions
partition those sources instead, each vertex taking its region's event vertices first); ψ is
the sum of the vertex costs.
"""

from __future__ import annotations

import networkx as nx

from inev.common.errors import InevError
from inev.planner.inev_graph import Plan
from inev.topologies.network import Network


def forwarding_problems(plan: Plan) -> list[str]:
    """Violations of Definition 2 (empty when the plan is well-formed)."""
    problems = []
    component = _components(plan)
    by_type: dict[tuple[str, int], list] = {}
    for v in plan.vertices:
        info = plan.projections[v.projection]
        if len(info.types) == 1 and info.pattern == info.types[0]:
            by_type.setdefault((info.types[0], component[v.id]), []).append(v)
    for v in plan.vertices:
        for wid in v.inputs:
            u = plan.vertex(wid)
            if v.node not in u.graph_nodes:
                problems.append(
                    f"vertex {v.id} at node {v.node} is outside the graph of input {u.id}"
                )
            if u.output is None:
                continue
            missing = set(plan.projections[u.projection].types) - set(u.output)
            for e in sorted(missing):
                sources = by_type.get((e, component[v.id]), [])
                if e == v.partition:
                    own = set(v.local_sources)
                    sources = [w for w in sources if w.node in own]
                for w in sources:
                    if v.node not in w.graph_nodes:
                        problems.append(
                            f"vertex {v.id}: {e} events of node {w.node} do not reach node {v.node}"
                            f" (input {u.id} selects {list(u.output)})"
                        )
    return problems


def _components(plan: Plan) -> dict[int, int]:
    """Weakly connected components of the INEv graph (separate plans side by side, e.g. isolated)."""
    g = nx.Graph()
    g.add_nodes_from(v.id for v in plan.vertices)
    g.add_edges_from(plan.edges)
    out = {}
    for number, part in enumerate(nx.connected_components(g)):
        for vid in part:
            out[vid] = number
    return out


def structure_problems(plan: Plan, network: Network) -> list[str]:
    """Violations of the structural rules listed in the module docstring."""
    problems = []
    graph = network.graph
    for v in plan.vertices:
        g = nx.Graph()
        g.add_node(v.node)
        for a, b in v.forwarding:
            if not graph.has_edge(a, b):
                problems.append(f"vertex {v.id}: link {[a, b]} is not a topology link")
            g.add_edge(a, b)
        if not nx.is_connected(g):
            problems.append(f"vertex {v.id}: forwarding graph is not connected")
        for d in v.destinations:
            if d not in g:
                problems.append(f"vertex {v.id}: destination {d} outside its forwarding graph")
    for key, part in plan.multi_node.items():
        placed = plan.vertices_of(key)
        expected = sorted(network.sources(part), key=network.node_index.get)
        if any(v.region for v in placed):
            problems += _region_problems(plan, key, part, placed, expected)
            continue
        nodes = sorted((v.node for v in placed), key=network.node_index.get)
        if nodes != expected:
            problems.append(
                f"{key}: multi-node vertices at {nodes}, sources of {part} are {expected}"
            )
        for v in placed:
            local = [plan.vertex(w) for w in v.inputs]
            if not any(w.projection == part and w.node == v.node for w in local):
                problems.append(f"vertex {v.id}: misses the local {part} events of node {v.node}")
    total = sum(v.cost for v in plan.vertices)
    if abs(total - plan.psi) > 1e-9 * max(1.0, abs(plan.psi)):
        problems.append(f"psi {plan.psi} differs from the sum of vertex costs {total}")
    return problems


def _region_problems(plan: Plan, key: str, part: str, placed: list, expected: list) -> list[str]:
    """A regional placement's rules: its regions partition the sources of ``part``, and each
    vertex's first inputs are the event vertices of its region's sources, in order, and no
    other input is an event vertex of ``part``."""
    problems = []
    members = [n for v in placed for n in v.region]
    if len(members) != len(set(members)) or set(members) != set(expected):
        problems.append(f"{key}: the regions of its {len(placed)} sites do not partition f({part})")
    for v in placed:
        inputs = [plan.vertex(w) for w in v.inputs]
        own = [(w.projection, w.node) for w in inputs[: len(v.region)] if not w.inputs]
        rest = [w for w in inputs[len(v.region) :] if w.projection == part and not w.inputs]
        if own != [(part, n) for n in v.region] or rest:
            problems.append(
                f"vertex {v.id}: its {part} inputs are not the events of its region's sources"
            )
    return problems


def check_plan(plan: Plan, network: Network) -> list[str]:
    """All problems of a plan (Definition 2 and structure).

    Parameters
    ----------
    plan : Plan
    network : Network
        The network the plan was made for.

    Returns
    -------
    list of str
        One line per problem; empty when the plan is well formed.

    Examples
    --------
    B's event vertex must reach both A sources; cut its forwarding graph to the link 0 - 1
    and node 2 is no longer reached:

    >>> from dataclasses import replace
    >>> from inev.planner.planning import plan_workload
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> plan = plan_workload(net, Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]))
    >>> check_plan(plan, net)
    []
    >>> cut = replace(plan.vertex(0), forwarding=((0, 1),))
    >>> check_plan(replace(plan, vertices=(cut, *plan.vertices[1:])), net)
    ['vertex 4 at node 2 is outside the graph of input 0', 'vertex 0: destination 2 outside its forwarding graph']
    """
    return forwarding_problems(plan) + structure_problems(plan, network)


def check_fits(plan: Plan, network: Network) -> None:
    """Raise :class:`InevError` unless ``plan`` was made for ``network`` (rates, sources, links)."""
    for name, (local, _) in plan.type_rates.items():
        if name not in network.event_types:
            raise InevError(f"plan does not fit the network: unknown event type {name}")
        if abs(network.rate(name) - local) > 1e-9 * max(1.0, abs(local)):
            raise InevError(
                f"plan does not fit the network: rate of {name} is {network.rate(name)}, plan says {local}"
            )
    sources: dict[str, set] = {}
    for v in plan.vertices:
        if v.node not in network.node_index:
            raise InevError(
                f"plan does not fit the network: vertex {v.id} at unknown node {v.node!r}"
            )
        for a, b in v.forwarding:
            if not network.graph.has_edge(a, b):
                raise InevError(
                    f"plan does not fit the network: vertex {v.id} uses no link {[a, b]}"
                )
        info = plan.projections[v.projection]
        if not v.inputs and len(info.types) == 1 and info.pattern == info.types[0]:
            sources.setdefault(info.types[0], set()).add(v.node)
    for name, nodes in sources.items():
        if name in network.event_types and nodes != set(network.sources(name)):
            raise InevError(f"plan does not fit the network: sources of {name} differ")
