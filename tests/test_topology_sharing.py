"""Topology-derived caches shared by ``Network.with_rates`` copies: a shared value is the
value a fresh computation on the copy gives (issue 46: the search plans on rate-kicked copies)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner.alg1_combination import multi_node_hops
from inev.planner.forwarding_graphs import initial_reach, network_cache
from inev.topologies.network import Network


def _random_network(seed: int, nodes: int, extra: int) -> Network:
    """A connected random graph (a random tree plus ``extra`` links, inserted in random
    order, so a copy rebuilt from ``links`` may list neighbours in another order)."""
    rng = np.random.default_rng(seed)
    order = [int(i) for i in rng.permutation(nodes)]
    links = [(order[i], order[int(rng.integers(0, i))]) for i in range(1, nodes)]
    for _ in range(extra):
        u, v = (int(x) for x in rng.integers(0, nodes, 2))
        if u != v and (u, v) not in links and (v, u) not in links:
            links.append((u, v))
    rng.shuffle(links)
    node_ids = [int(i) for i in rng.permutation(nodes)]
    sources = [node_ids[0], node_ids[-1]]
    return Network.build(node_ids, links, {"A": (1.0, sources), "B": (2.0, node_ids[:2])})


def _fresh(net: Network, rates: dict[str, float]) -> Network:
    """What ``with_rates`` built before it shared anything: a new network, nothing cached."""
    spec = {name: (rates.get(name, t.rate), list(t.sources)) for name, t in net.event_types.items()}
    return Network.build(net.nodes, [list(link) for link in net.links], spec)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 30), st.integers(0, 40))
def test_with_rates_copy_has_the_distances_and_paths_of_a_fresh_build(seed, nodes, extra):
    net = _random_network(seed, nodes, extra)
    _ = net.hop_matrix, net.mean_hops, net.diameter  # computed before the copy: shared
    for target in net.nodes[::3]:
        net.predecessors(target)
    copy = net.with_rates({"A": 7.0})
    fresh = _fresh(net, {"A": 7.0})
    assert copy.rate("A") == fresh.rate("A") == 7.0
    assert np.array_equal(copy.hop_matrix, fresh.hop_matrix)
    assert copy.mean_hops == fresh.mean_hops and copy.diameter == fresh.diameter
    for source in net.nodes:
        for target in net.nodes:
            assert copy.shortest_path(source, target) == fresh.shortest_path(source, target)


def test_with_rates_shares_the_computed_matrix_and_rows_object():
    net = Network.build(range(4), [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0]), "B": (1.0, [3])})
    matrix = net.hop_matrix
    copy = net.with_rates({"B": 4.0})
    assert copy.hop_matrix is matrix
    assert copy.shortest_path(0, 3) == [0, 1, 2, 3]
    assert net._path_rows is copy._path_rows  # a row either computes serves both
    assert copy.global_rate("B") == 4.0 and net.global_rate("B") == 1.0


def test_planner_caches_share_the_topology_part_only():
    net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (1.0, [0, 4])})
    copy = net.with_rates({"A": 3.0})
    mine, theirs = network_cache(net), network_cache(copy)
    assert mine is not theirs
    assert mine.reach is theirs.reach and mine.paths is theirs.paths
    assert mine.partition_rates is not theirs.partition_rates  # rates: per network
    assert mine.selectors is not theirs.selectors
    # the path 0-1-2-3-4 spans both sources: |ST| = 4 links, a node's mean distance to {0, 4}
    # is (0 + 1 + 2 + 1 + 0) / 5 = 0.8
    assert multi_node_hops(net, "A") == multi_node_hops(copy, "A") == 4.8
    reach = initial_reach(copy, frozenset({0, 4}), 2)
    assert reach.tree == frozenset(range(5)) and reach.path == (2,)


def test_other_topologies_do_not_share():
    line = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0, 2])})
    ring = Network.build(range(3), [(0, 1), (1, 2), (2, 0)], {"A": (1.0, [0, 2])})
    assert network_cache(line).paths is not network_cache(ring).paths
    assert multi_node_hops(line, "A") == 2 + 1 / 3  # tree 0-1-2; node 1 is 1 hop away
    assert multi_node_hops(ring, "A") == 1 + 1 / 3  # tree 0-2 (one link)
