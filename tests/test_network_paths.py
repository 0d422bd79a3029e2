"""Shortest paths: one breadth-first rule for small (Python) and large (scipy) networks."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order

import inev.topologies.network as network_module
from inev.topologies.network import Network


def _random_network(seed: int, nodes: int, extra: int) -> Network:
    """A connected random graph: a random tree plus ``extra`` random links."""
    rng = np.random.default_rng(seed)
    order = [int(i) for i in rng.permutation(nodes)]
    links = {tuple(sorted((order[i], order[int(rng.integers(0, i))]))) for i in range(1, nodes)}
    for _ in range(extra):
        u, v = (int(x) for x in rng.integers(0, nodes, 2))
        if u != v:
            links.add(tuple(sorted((u, v))))
    node_ids = [int(i) for i in rng.permutation(nodes)]  # file order differs from id order
    return Network.build(node_ids, sorted(links), {"A": (1.0, [node_ids[0]])})


@given(st.integers(0, 10_000), st.integers(2, 40), st.integers(0, 60))
def test_python_search_equals_scipy_breadth_first_order(seed, nodes, extra):
    net = _random_network(seed, nodes, extra)
    for t in range(len(net.nodes)):
        distance, predecessor = net._search(t)
        _, expected = breadth_first_order(
            net._adjacency, t, directed=False, return_predecessors=True
        )
        assert predecessor == expected.tolist()
        lengths = nx.single_source_shortest_path_length(net.graph, net.nodes[t])
        assert distance == [lengths[n] for n in net.nodes]


def test_large_networks_take_the_same_paths(monkeypatch):
    small = _random_network(7, 60, 40)
    paths = {(s, t): small.shortest_path(s, t) for s in small.nodes for t in small.nodes}
    hops = small.hop_matrix.copy()
    monkeypatch.setattr(network_module, "PYTHON_BFS_UP_TO", 10)  # scipy from here on
    large = _random_network(7, 60, 40)
    assert np.array_equal(large.hop_matrix, hops)
    for (s, t), path in paths.items():
        assert large.shortest_path(s, t) == path
        assert len(path) - 1 == hops[small.node_index[s], small.node_index[t]]


def test_ties_go_to_the_lower_node_in_file_order():
    # a square 0-1-3-2-0 written with node 2 before node 1: from 3 to 0 the path runs
    # through whichever of 1 and 2 comes first in the file
    net = Network.build([0, 2, 1, 3], [(0, 1), (0, 2), (1, 3), (2, 3)], {"A": (1.0, [0])})
    assert net.shortest_path(3, 0) == [3, 2, 0]
    net = Network.build([0, 1, 2, 3], [(0, 1), (0, 2), (1, 3), (2, 3)], {"A": (1.0, [0])})
    assert net.shortest_path(3, 0) == [3, 1, 0]
