"""Forwarding graph construction and placement: Algorithm 2 of the INEv paper (§6.4).

Given a combination with its multi-node projections, :func:`place` builds the vertices of
the INEv graph:

1. the disseminated event types DissEv: the non-partitioning event-type inputs of
   multi-node projections (line 2);
2. an output selector per projection (:func:`output_selector`, getOS of line 29);
3. λ extended by the types each input no longer sends (line 7);
4. one event vertex per (used type, source); for a multi-node projection one vertex per
   source of its partitioning type (inputs: the local partitioning events and every vertex
   of every other input); for a single-node projection one vertex at the node minimising
   Σ_inputs Σ_vertices hops · rate (line 17–22), unless the node is pinned (repair);
5. forwarding graphs: a vertex whose consumers include multi-node vertices sends over a
   Steiner tree spanning their nodes (Successors, line 9 and 14; see
   :mod:`inev.planner.steiner`), extended by a shortest path to each single-node consumer
   (line 26); tc(v) from :mod:`inev.planner.costs`; the hop distance from the vertex to
   each destination inside its forwarding graph is recorded (``Vertex.hops``);
6. a fall-back single node for every multi-node projection (§6.6), chosen by the same
   rule as single-node placements with all sources of the partitioning type as input.

Choices: output selection needs every negated type of the projection to be disseminated
(the receiver must see the negated events to re-evaluate the projection); query sinks that
feed nothing and event types keep ≡ ("all").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from inev.planner.costs import vertex_rate
from inev.planner.model import Combination
from inev.planner.plan import Link, Node, Vertex, link
from inev.planner.projections import Projection, primitive_projection
from inev.planner.steiner import bfs, steiner_links, tree_distances, tree_with
from inev.topologies.network import Network


@dataclass(frozen=True)
class Placement:
    """Result of Alg. 2: vertices, extended inputs λ', output selectors, nodes and fall-backs."""

    vertices: tuple[Vertex, ...]
    trees: tuple[tuple[Link, ...], ...]
    projections: Mapping[str, Projection]
    inputs: Mapping[str, tuple[str, ...]]
    outputs: Mapping[str, tuple[str, ...] | None]
    nodes: Mapping[str, tuple[Node, ...]]
    fallback: Mapping[str, Node]
    disseminated: frozenset[str]


def disseminated_types(combination: Combination) -> frozenset[str]:
    """DissEv: non-partitioning event-type inputs of multi-node projections (Alg. 2, line 2)."""
    out: set[str] = set()
    for key, part in combination.multi_node.items():
        for i in combination.inputs.get(key, ()):
            if combination.projections[i].is_primitive and i != part:
                out.add(i)
    return frozenset(out)


def output_selector(
    projection: Projection,
    disseminated: frozenset[str],
    network: Network,
    partition: str | None = None,
) -> tuple[str, ...] | None:
    """getOS (Alg. 2, line 29) under the physically consistent model of :mod:`inev.planner.costs`.

    The candidate is E(p) \\ DissEv (the types a consumer does not get anyway). It is used
    when its selected events cost less than the matches in all, and no more at any single
    vertex (a multi-node placement's vertices differ only by their local partitioning rate),
    so no vertex's output costs more than its matches; else ≡ (None).
    """
    if projection.is_primitive or not projection.negated <= disseminated:
        return None
    chosen = tuple(sorted(projection.positive - disseminated))
    glob = network.global_rates()
    selected = matches = 0.0
    for share, local in vertex_shares(network, partition):
        m = projection.rate * share
        s = vertex_rate(m, chosen, lambda e, a=local: a if e == partition else glob[e])
        if s > m:
            return None
        selected += s
        matches += m
    return chosen if selected < matches else None


def send_rate(
    network: Network,
    projection: Projection,
    node: Node,
    partition: str | None,
    output: tuple[str, ...] | None,
) -> float:
    """What the vertex of ``projection`` at ``node`` sends per link (:mod:`inev.planner.costs`)."""
    glob = network.global_rates()
    if partition is None:
        return vertex_rate(projection.rate, output, glob.__getitem__)
    local = network.rate_at(partition, node)
    matches = projection.rate * local / network.global_rate(partition)
    return vertex_rate(matches, output, lambda e: local if e == partition else glob[e])


def vertex_shares(network: Network, partition: str | None) -> list[tuple[float, float]]:
    """``(share of R(p), local rate of the partitioning type)`` per vertex of a placement.

    One entry, ``(1, 0)``, for a single node; for a multi-node placement partitioned by c,
    ``(r(c, n) / R(c), r(c, n))`` per source n of c.
    """
    if partition is None:
        return [(1.0, 0.0)]
    total = network.global_rate(partition)
    return [(r / total, r) for r in network.source_rates(partition)]


def place(
    network: Network,
    combination: Combination,
    pinned: Mapping[str, Node] | None = None,
) -> Placement:
    """Run Alg. 2 on ``combination``; ``pinned`` fixes the node of single-node projections."""
    pinned = dict(pinned or {})
    glob = network.global_rates()
    projections: dict[str, Projection] = dict(combination.projections)
    mn = dict(combination.multi_node)
    consumers = combination.consumers()
    diss = disseminated_types(combination)
    order = combination.topological_order()

    outputs: dict[str, tuple[str, ...] | None] = {}
    for key in order:
        p = projections[key]
        outputs[key] = output_selector(p, diss, network, mn.get(key)) if consumers[key] else None

    extended: dict[str, tuple[str, ...]] = {}
    for key, ins in combination.inputs.items():
        extra: list[str] = []
        for i in ins:
            selected = outputs.get(i)
            if selected is None:
                continue
            for t in sorted(projections[i].types - set(selected)):
                if t not in ins and t not in extra:
                    extra.append(t)
                    if t not in projections:
                        projections[t] = primitive_projection(t, glob[t])
        extended[key] = tuple(ins) + tuple(extra)
    if len(projections) != len(combination.projections):
        position = {k: i for i, k in enumerate(projections)}
        order = sorted(projections, key=lambda k: (len(projections[k].types), position[k]))

    index = network.node_index
    hops = network.hop_matrix
    nodes_list = network.nodes
    builders: list[dict] = []
    placed: dict[str, list[int]] = {}
    event_vertex: dict[tuple[str, Node], int] = {}

    def new_vertex(key: str, node: Node, inputs: list[int], rate: float, part: str | None) -> int:
        vid = len(builders)
        builders.append(
            {"key": key, "node": node, "inputs": inputs, "rate": rate, "partition": part}
        )
        placed.setdefault(key, []).append(vid)
        return vid

    def node_costs(input_keys: tuple[str, ...]) -> np.ndarray:
        rows, rates = [], []
        for i in input_keys:
            for vid in placed[i]:
                rows.append(index[builders[vid]["node"]])
                rates.append(builders[vid]["rate"])
        if not rows:
            return np.zeros(len(nodes_list))
        return np.asarray(rates) @ hops[rows, :].astype(np.float64)

    for key in order:
        if projections[key].is_primitive:
            for n, r in zip(network.sources(key), network.source_rates(key), strict=True):
                event_vertex[(key, n)] = new_vertex(key, n, [], r, None)

    fallback: dict[str, Node] = {}
    for key in order:
        p = projections[key]
        if p.is_primitive:
            continue
        ins = extended[key]
        if key in mn:
            part = mn[key]
            others = [vid for i in ins if i != part for vid in placed[i]]
            for n in network.sources(part):
                rate = send_rate(network, p, n, part, outputs[key])
                new_vertex(key, n, [event_vertex[(part, n)], *others], rate, part)
            fallback[key] = nodes_list[int(np.argmin(node_costs(ins)))]
        else:
            if key in pinned and pinned[key] in index:
                m = pinned[key]
            else:
                m = nodes_list[int(np.argmin(node_costs(ins)))]
            rate = send_rate(network, p, m, None, outputs[key])
            new_vertex(key, m, [vid for i in ins for vid in placed[i]], rate, None)

    # forwarding graphs
    tree_targets: list[set[Node]] = [set() for _ in builders]
    path_targets: list[set[Node]] = [set() for _ in builders]
    for b in builders:
        for w in b["inputs"]:
            if b["partition"] is not None:
                source = builders[w]
                if source["key"] == b["partition"] and source["node"] == b["node"]:
                    path_targets[w].add(b["node"])
                    continue
                tree_targets[w].add(b["node"])
            else:
                path_targets[w].add(b["node"])
    link_position = {
        e: i
        for i, e in enumerate(
            sorted(
                (link(u, v) for u, v, _ in network.links), key=lambda e: (index[e[0]], index[e[1]])
            )
        )
    }
    vertices = []
    trees: list[tuple[Link, ...]] = []
    tree_index: dict[frozenset, int] = {}
    for vid, b in enumerate(builders):
        links: set[Link] = set()
        tree_id = None
        if tree_targets[vid]:
            links |= tree_with(network, tree_targets[vid], b["node"])
            base_key = frozenset(tree_targets[vid])
            if base_key not in tree_index and len(steiner_links(network, base_key)) > 0:
                tree_index[base_key] = len(trees)
                trees.append(
                    tuple(sorted(steiner_links(network, base_key), key=link_position.__getitem__))
                )
            tree_id = tree_index.get(base_key)
        for m in sorted(path_targets[vid] - {b["node"]}, key=index.__getitem__):
            links.update(link(u, v) for u, v in network.path_links(b["node"], m))
        forwarding = tuple(sorted(links, key=link_position.__getitem__))
        destinations = tuple(sorted(tree_targets[vid] | path_targets[vid], key=index.__getitem__))
        if not links:
            dist: Mapping[Node, int] = {b["node"]: 0}
        elif not tree_targets[vid]:  # a union of shortest paths: topology distances
            dist = {m: network.hops(b["node"], m) for m in destinations}
        elif not path_targets[vid] - {b["node"]}:
            dist = tree_distances(network, tree_targets[vid], b["node"])
        else:
            dist = bfs(links, b["node"])
        vertices.append(
            Vertex(
                id=vid,
                projection=b["key"],
                node=b["node"],
                inputs=tuple(b["inputs"]),
                forwarding=forwarding,
                destinations=destinations,
                hops=tuple(dist[m] for m in destinations),
                tree=tree_id,
                output=outputs.get(b["key"]),
                partition=b["partition"],
                rate=b["rate"],
                cost=len(forwarding) * b["rate"],
            )
        )
    return Placement(
        vertices=tuple(vertices),
        trees=tuple(trees),
        projections=projections,
        inputs=extended,
        outputs=outputs,
        nodes={k: tuple(builders[v]["node"] for v in vids) for k, vids in placed.items()},
        fallback=fallback,
        disseminated=diss,
    )
