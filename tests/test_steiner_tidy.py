"""planner/steiner.py's tidy against the networkx construction it replaces (the induced
subgraph's minimum spanning edges with unit weights, non-terminal leaves pruned), on random
graphs and link sets touching under and over half of the graph's nodes: the same links in
the same iteration order (a frozenset's order follows its insertion order, and plans follow
it; equal sets in another order changed a 10,000-node plan)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner.inev_graph import link
from inev.planner.steiner import tidy, tree_nodes
from inev.topologies.generate import generate_network
from inev.topologies.network import Network


def _networkx_tidy(network: Network, links, terminals) -> frozenset:
    keep = set(terminals)
    nodes = tree_nodes(links, keep)
    sub = network.graph.subgraph(nodes)
    tree = nx.Graph(nx.minimum_spanning_edges(sub, weight=None, data=False))
    tree.add_nodes_from(keep)
    leaves = [v for v in tree if tree.degree(v) <= 1 and v not in keep]
    while leaves:
        v = leaves.pop()
        for u in list(tree.neighbors(v)):
            tree.remove_edge(u, v)
            if tree.degree(u) <= 1 and u not in keep:
                leaves.append(u)
        tree.remove_node(v)
    return frozenset(link(u, v) for u, v in tree.edges())


@settings(max_examples=150, deadline=None)
@given(
    st.integers(8, 60),
    st.integers(0, 10_000),
    st.sampled_from(["degree", "ws", "ba", "grid"]),
    st.data(),
)
def test_equal_to_networkx(nodes, seed, topology, data):
    """As the planner calls it: links that connect the terminals (a breadth-first tree over
    some of the nodes, with more of the links between them), under or over half the nodes."""
    net = generate_network(nodes=nodes, seed=seed, topology=topology)
    root = data.draw(st.sampled_from(list(net.nodes)))
    size = data.draw(st.integers(1, len(net.nodes)))
    order = list(nx.bfs_tree(net.graph, root))[:size]
    inside = set(order)
    links = [link(u, v) for u, v in nx.bfs_tree(net.graph.subgraph(inside), root).edges()]
    among = sorted({link(u, v) for u, v in net.graph.subgraph(inside).edges()} - set(links))
    links += data.draw(st.lists(st.sampled_from(among), unique=True)) if among else []
    terminals = data.draw(st.lists(st.sampled_from(order), min_size=1, max_size=8))
    found, expected = tidy(net, links, terminals), _networkx_tidy(net, links, terminals)
    assert list(found) == list(expected)  # the same set, listed in the same order


def test_hand_checked_cycle_with_a_tail():
    # the square 0-1-2-3-0 with 3-4: spanning the square's nodes drops one square link,
    # and the tail 3-4 is pruned (4 is no terminal)
    net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4)], {"A": (1.0, [0])})
    found = tidy(net, [(0, 1), (1, 2), (2, 3), (0, 3), (3, 4)], [0, 1, 2, 3])
    assert len(found) == 3 and all(4 not in e for e in found)
    assert found == _networkx_tidy(net, [(0, 1), (1, 2), (2, 3), (0, 3), (3, 4)], [0, 1, 2, 3])
    assert tidy(net, [(3, 4)], [4]) == frozenset()  # one terminal: no links
