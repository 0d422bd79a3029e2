"""Minimum forwarding trees for Alg. 2's vertices on small networks (beyond the paper).

Alg. 2 (:mod:`inev.planner.alg2_placement`) grows a vertex's forwarding graph from the
Steiner tree over its multi-node consumers' nodes, joined to the vertex's node by a shortest
path, and extended by a shortest path to each single-node consumer (lines 9-26). Each step is
sensible, but the union can hold more links than a minimum Steiner tree spanning the vertex's
node and all its destinations: on an 8-node network a source two hops from a three-node tree
paid 4 links where a tree of 3 joined all four nodes (issue 32, bench_optimality #86: inev
ψ 18 against the optimum 16 with the same combination and placements).

:func:`tightened` replaces such a graph, after Alg. 2 has placed every vertex, by the exact
minimum Steiner tree over the same terminals (:func:`inev.planner.steiner.steiner_links`,
Dreyfus-Wagner, cached per network and terminal set) when that has fewer links and reaches
no destination over more hops than the grown graph does (so the plan's latency ℓ(I) never
rises and a latency bound met before is met after). Placements are not revisited: the
vertices stay where Alg. 2 put them, and only ψ (and the links the events travel) shrink.

The step is bounded: networks of up to :data:`TIGHT_NODES` nodes and vertices with at most
:data:`TIGHT_TERMINALS` terminals (the node and its destinations); a graph already at the
floor of ``terminals - 1`` links is kept without a search. Choice and reason: the exact tree
costs 3^k work per new terminal set, a few milliseconds at k = 8 on these networks, while
larger networks have thousands of distinct sets per plan and keep Alg. 2's graphs.

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
from inev.planner.steiner import bfs, steiner_links, tree_nodes
from inev.topologies.network import Network

TIGHT_NODES = 30
"""Networks up to this many nodes get minimum forwarding trees (module docstring)."""
TIGHT_TERMINALS = 8
"""Vertices with up to this many terminals (their node and destinations) are tightened."""


def tightened(network: Network, nodes: Sequence[Node], reaches: Sequence[Reach]) -> list[Reach]:
    """``reaches`` (vertex ``i`` at ``nodes[i]``) with each graph replaced by a minimum
    Steiner tree over its node and destinations where that is smaller and no slower."""
    if len(network.nodes) > TIGHT_NODES:
        return list(reaches)
    return [_tight(network, node, reach) for node, reach in zip(nodes, reaches, strict=True)]


def _tight(network: Network, node: Node, reach: Reach) -> Reach:
    destinations = reach.destinations()
    terminals = frozenset(destinations | {node})
    if len(terminals) > TIGHT_TERMINALS or reach.size <= len(terminals) - 1:
        return reach
    links = steiner_links(network, terminals)
    if len(links) >= reach.size:
        return reach
    new = bfs(links, node)
    old = bfs(reach.links, node)
    if max(new[x] for x in destinations) > max(old[x] for x in destinations):
        return reach
    return Reach(
        NO_NODES, NO_NODES, links, frozenset(tree_nodes(links, terminals)), set(destinations)
    )
