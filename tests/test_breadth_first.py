"""Breadth-first hop rows (topologies/breadth_first.py) against scipy's Dijkstra and the
all-pairs matrix, on random graphs with several components, and Network.max_degree."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra

from inev.topologies.breadth_first import hop_rows, nearest_rows
from inev.topologies.generate import generate_network
from inev.topologies.network import Network


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    n = draw(st.integers(1, 30))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    links = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=60)) if pairs else []
    return n, links


def _adjacency(n: int, links: list[tuple[int, int]]) -> csr_array:
    rows = [u for u, v in links] + [v for u, v in links]
    cols = [v for u, v in links] + [u for u, v in links]
    return csr_array((np.full(len(rows), 2.5), (rows, cols)), shape=(n, n))


@settings(max_examples=200, deadline=None)
@given(graphs(), st.data())
def test_rows_equal_dijkstra(graph, data):
    n, links = graph
    roots = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))
    adjacency = _adjacency(n, links)
    expected = dijkstra(adjacency, directed=False, unweighted=True, indices=roots)
    assert np.array_equal(hop_rows(adjacency, roots), expected)


def test_hand_checked_star_and_isolated_node():
    # 0 is the centre of 1, 2, 3; 3 - 4; node 5 is alone
    adjacency = _adjacency(6, [(0, 1), (0, 2), (0, 3), (3, 4)])
    assert hop_rows(adjacency, [4, 5]).tolist() == [
        [2.0, 3.0, 3.0, 1.0, 0.0, np.inf],
        [np.inf, np.inf, np.inf, np.inf, np.inf, 0.0],
    ]


def test_network_rows_equal_the_matrix_and_degree():
    net = generate_network(nodes=60, seed=3)
    nodes = list(net.nodes[::7])
    matrix = net.hop_matrix[[net.node_index[x] for x in nodes]].astype(np.float64)
    assert np.array_equal(net.hop_rows(nodes), matrix)  # the dense path
    assert np.array_equal(hop_rows(net._adjacency, [net.node_index[x] for x in nodes]), matrix)
    assert net.max_degree == max(d for _, d in net.graph.degree())
    star = Network.build(range(5), [(0, i) for i in range(1, 5)], {"A": (1.0, [0])})
    assert star.max_degree == 4
    assert nx.diameter(star.graph) == star.diameter == 2


@settings(max_examples=300, deadline=None)
@given(graphs(), st.data())
def test_the_multi_source_search_in_c_equals_the_python_one_visit_for_visit(graph, data):
    # the planner's Python search (Network._breadth_first) is the oracle: distances, and the
    # predecessor that found each node first (ties go to the root met first)
    n, links = graph
    path = [(u, u + 1) for u in range(n - 1) if (u, u + 1) not in links]  # connected
    roots = sorted(set(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6))))
    net = Network.build(range(n), links + path, {"A": (1.0, [0])})
    distance, predecessor = net._breadth_first(roots)
    found = nearest_rows(net._adjacency, roots)
    assert found[0].tolist() == distance
    assert found[1].tolist() == predecessor


def test_nearest_of_hand_checked_on_a_large_ring():
    # a ring of 400 nodes (above the Python search's size), searched from 0 and 200: each
    # level holds 0's upper side, 0's lower side, 200's lower side, 200's upper side in that
    # order (sorted roots, sorted neighbours), so node 100 (100 hops from both) is found from
    # 99 and node 300 from 301, both on 0's side
    ring = Network.build(range(400), [(i, (i + 1) % 400) for i in range(400)], {"A": (1, [0])})
    distance, predecessor = ring.nearest_of([200, 0])
    assert distance[[0, 1, 100, 199, 200, 300, 399]].tolist() == [0, 1, 100, 1, 0, 100, 1]
    assert predecessor[[0, 1, 100, 101, 300, 399]].tolist() == [-9999, 0, 99, 102, 301, 0]


@settings(max_examples=300, deadline=None)
@given(graphs(), st.data())
def test_a_symmetric_adjacency_searched_as_directed_gives_the_same_arrays(graph, data):
    # the premise of every search that passes directed=True on Network._adjacency (module
    # docstring of inev.topologies.breadth_first): distances, predecessors and sources are
    # those of scipy's undirected searches, so trees and paths are unchanged
    from scipy.sparse.csgraph import breadth_first_order

    n, links = graph
    adjacency = _adjacency(n, links)
    adjacency.sort_indices()
    roots = sorted(set(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))))
    for min_only in (True, False):
        both = [
            dijkstra(adjacency, directed=d, unweighted=True, indices=roots, min_only=min_only,
                     return_predecessors=True)
            for d in (False, True)
        ]  # fmt: skip
        assert all(np.array_equal(a, b) for a, b in zip(*both, strict=True))
    for root in roots:
        undirected = breadth_first_order(adjacency, root, directed=False)
        directed = breadth_first_order(adjacency, root, directed=True)
        assert all(np.array_equal(a, b) for a, b in zip(undirected, directed, strict=True))


def test_levels_hand_checked_on_a_tree_searched_from_its_middle():
    # 0 - 1 - 2 - 3 and 1 - 4 - 5, from node 2: level 0 {2}, 1 {1, 3}, 2 {0, 4}, 3 {5}
    adjacency = _adjacency(6, [(0, 1), (1, 2), (2, 3), (1, 4), (4, 5)])
    assert hop_rows(adjacency, [2]).tolist() == [[2.0, 1.0, 0.0, 1.0, 2.0, 3.0]]
    distance, predecessor = nearest_rows(adjacency, [0, 5])
    assert distance.tolist() == [0, 1, 2, 3, 1, 0]
    assert predecessor.tolist() == [-9999, 0, 1, 2, 5, -9999]
