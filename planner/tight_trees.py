"""Minimum forwarding trees for Alg. 2's vertices on small networks (beyond the paper).

Alg. 2 (:mod:`inev.planner.alg2_placement`) grows a vertex's forwarding graph from the
Steiner tree over its multi-node consumers' nodes, joined to the vertex's node by a shortest
path, and extended by a shortest path to each single-node consumer (lines 9-26). Each step is
sensible, but the union can hold more links than a minimum Steiner tree spanning the vertex's
node and all its destinations: on an 8-node network a source two hops from a three-node tree
paid 4 links where a tree of 3 joined all four nodes (issue 32, bench_optimality #86: inev
ψ 18 against the optimum 16 with the same combination and placements).

:func:`tightened` replaces such a graph, after Alg. 2 has placed every vertex, by the exact
minimum Steiner tree over the same terminals (:class:`inev.planner.steiner_table.SteinerTable`,
every node subset's tree in one table per network) when that has fewer links and reaches
no destination over more hops than the grown graph does (so the plan's latency ℓ(I) never
rises and a latency bound met before is met after). Placements are not revisited: the
vertices stay where Alg. 2 put them, and only ψ (and the links the events travel) shrink.

The step is bounded to networks of up to :data:`TIGHT_NODES` nodes, where the table takes
at most some 0.05 s to build once and each vertex costs one lookup (a graph already at the
floor of ``terminals - 1`` links is kept without one). Choice and reason: exact trees per
terminal set (Dreyfus-Wagner) cost milliseconds each, and the search places a plan's
vertices hundreds of times; it doubled the planner's time on 20-node networks, so larger
networks keep Alg. 2's graphs.

>>> from inev.topologies.network import Network
>>> from inev.planner.forwarding_graphs import Reach
>>> links = [(0, 1), (1, 2), (1, 3), (0, 4), (3, 4)]
>>> net = Network.build(range(5), links, {"A": (1.0, [0])})
>>> grown = Reach(frozenset(), frozenset(), frozenset({(0, 1), (1, 2), (0, 4), (3, 4)}),
...               frozenset({0, 1, 2, 3, 4}), {2, 3})  # a path to 2, then one to 3
>>> sorted(tightened(net, [0], [grown])[0].links)  # one tree of 3 links joins 0, 2 and 3
[(0, 1), (1, 2), (1, 3)]
"""

from __future__ import annotations

from collections.abc import Sequence

from inev.planner.forwarding_graphs import NO_NODES, Reach
from inev.planner.inev_graph import Node
from inev.planner.steiner import bfs, tree_nodes
from inev.planner.steiner_table import SteinerTable
from inev.topologies.network import Network

TIGHT_NODES = 16
"""Networks up to this many nodes get minimum forwarding trees (module docstring)."""


def tightened(network: Network, nodes: Sequence[Node], reaches: Sequence[Reach]) -> list[Reach]:
    """``reaches`` (vertex ``i`` at ``nodes[i]``) with each graph replaced by a minimum
    Steiner tree over its node and destinations where that is smaller and no slower."""
    if len(network.nodes) > TIGHT_NODES:
        return list(reaches)
    table = SteinerTable.of(network)
    return [_tight(table, node, reach) for node, reach in zip(nodes, reaches, strict=True)]


def _tight(table: SteinerTable, node: Node, reach: Reach) -> Reach:
    destinations = reach.destinations()
    if reach.size <= len(destinations):  # at the floor: |terminals| - 1 links
        return reach
    terminals = frozenset(destinations | {node})
    mask = table.mask(terminals)
    if table.size(mask) >= reach.size:
        return reach
    links = table.links(mask)
    new = bfs(links, node)
    old = bfs(reach.links, node)
    if any(new[x] > old[x] for x in destinations):
        return reach
    return Reach(
        NO_NODES, NO_NODES, links, frozenset(tree_nodes(links, terminals)), set(destinations)
    )
