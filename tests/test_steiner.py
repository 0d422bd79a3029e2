"""Steiner trees: the exact programme against brute force, heuristics never below it."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner.steiner import _best_heuristic, exact_steiner, steiner_links, tidy
from inev.topologies.network import Network


def _network(seed: int, nodes: int) -> Network:
    rng = np.random.default_rng(seed)
    graph = nx.connected_watts_strogatz_graph(nodes, 4, 0.4, seed=int(rng.integers(1 << 30)))
    return Network.build(range(nodes), [list(e) for e in graph.edges()], {"A": (1.0, [0])})


def _brute_force(network: Network, terminals: list) -> int:
    """Fewest links of a tree spanning the terminals: the smallest connected node set
    holding them has a spanning tree of |set| - 1 links."""
    others = [n for n in network.nodes if n not in terminals]
    for extra in range(len(others) + 1):
        for chosen in itertools.combinations(others, extra):
            if nx.is_connected(network.graph.subgraph([*terminals, *chosen])):
                return len(terminals) + extra - 1
    raise AssertionError("disconnected")


def _spans(links, terminals) -> bool:
    graph = nx.Graph(list(links))
    graph.add_nodes_from(terminals)
    return nx.is_tree(graph) and set(terminals) <= set(graph)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 5))
def test_exact_tree_is_minimal_and_heuristics_never_beat_it(seed, k):
    net = _network(seed, 11)
    terminals = [int(t) for t in np.random.default_rng(seed).choice(11, size=k, replace=False)]
    exact = exact_steiner(net, terminals)
    assert _spans(exact, terminals)
    assert len(exact) == _brute_force(net, terminals)
    heuristic = _best_heuristic(net, frozenset(terminals))
    assert _spans(heuristic, terminals)
    assert len(heuristic) >= len(exact)


def test_tidy_drops_detours_and_dangling_paths():
    # ring 0..5 plus chord 0-3; a "tree" 0-1-2-3 with a dangling 3-4 for terminals {0, 3}
    net = Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)] + [(0, 3)], {"A": (1.0, [0])}
    )
    assert tidy(net, [(0, 1), (1, 2), (2, 3), (3, 4)], [0, 3]) == frozenset({(0, 3)})


def test_cached_trees_are_shared():
    net = _network(1, 30)
    first = steiner_links(net, [0, 5, 9, 17])
    assert steiner_links(net, [17, 9, 5, 0]) is first


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 7))
def test_key_path_exchange_never_grows_a_tree_and_keeps_it_spanning(seed, k):
    from inev.planner.key_paths import key_path_exchange
    from inev.planner.steiner import path_heuristic

    net = _network(seed, 25)
    terminals = [int(t) for t in np.random.default_rng(seed).choice(25, size=k, replace=False)]
    start = path_heuristic(net, terminals, terminals[-1])
    better = key_path_exchange(net, start, terminals)
    assert _spans(better, terminals)
    assert len(better) <= len(start)
    assert len(better) >= len(exact_steiner(net, terminals))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 8))
def test_sparse_kou_is_a_two_approximation(seed, k):
    from inev.planner.steiner import kou

    net = _network(seed, 40)
    terminals = sorted(np.random.default_rng(seed).choice(40, size=k, replace=False).tolist())
    raw = kou(net, terminals)
    ours = tidy(net, raw, terminals)
    assert _spans(ours, terminals)
    assert len(ours) <= len(raw) <= 2 * len(exact_steiner(net, terminals))


def test_trees_are_shared_by_networks_of_one_topology_only():
    from inev.planner import steiner

    net = _network(3, 30)
    terminals = [0, 4, 11, 19, 23, 28, 2, 7, 13, 16, 25]  # 11: the heuristics, not the exact DP
    first = steiner_links(net, terminals)
    assert steiner_links(net.with_rates({"A": 7.0}), terminals) is first  # rates: same trees
    relinked = Network.build(net.nodes, [*net.links, (0, 15)], {"A": (1.0, [0])})
    if not relinked.graph.has_edge(0, 15) or net.graph.has_edge(0, 15):
        raise AssertionError("the test needs a new link")
    assert steiner.trees_of(relinked) is not steiner.trees_of(net)
    reordered = Network.build(net.nodes, list(reversed(net.links)), {"A": (1.0, [0])})
    assert steiner.topology_key(reordered) != steiner.topology_key(net)  # neighbour order
    steiner._BY_TOPOLOGY.clear()  # a fresh computation on a new network gives the same tree
    fresh = Network.build(net.nodes, net.links, {"A": (1.0, [0])})
    assert steiner.trees_of(fresh) is not steiner.trees_of(net)
    assert steiner_links(fresh, terminals) == first
    for seed in range(steiner.TOPOLOGIES_KEPT + 3):  # bounded: the oldest topologies go
        steiner.trees_of(_network(100 + seed, 12))
    assert len(steiner._BY_TOPOLOGY) == steiner.TOPOLOGIES_KEPT


def _exchange_by_copies(network, links, terminals):
    """Key-path exchange as first written: a copy of the tree per key path (the oracle)."""
    from inev.planner.inev_graph import link
    from inev.planner.key_paths import _key_paths, _shortest_between

    keep = set(terminals)
    tree = nx.Graph(list(links))
    tree.add_nodes_from(keep)
    improved = True
    while improved:
        improved = False
        for path in _key_paths(tree, keep):
            trial = tree.copy()
            trial.remove_edges_from(itertools.pairwise(path))
            trial.remove_nodes_from(path[1:-1])
            parts = list(nx.connected_components(trial))
            if len(parts) != 2:
                continue
            bridge = _shortest_between(network, parts[0], parts[1])
            if bridge is not None and len(bridge) < len(path):
                trial.add_edges_from(itertools.pairwise(bridge))
                tree, improved = trial, True
                break
    return frozenset(link(u, v) for u, v in tree.edges())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 14), st.integers(0, 1))
def test_key_path_exchange_gives_the_tree_of_the_copying_exchange(seed, k, kind):
    from inev.planner.key_paths import key_path_exchange
    from inev.planner.steiner import mehlhorn, path_heuristic

    net = _network(seed, 40)
    terminals = [int(t) for t in np.random.default_rng(seed).choice(40, size=k, replace=False)]
    made = path_heuristic(net, terminals, terminals[0]) if kind else mehlhorn(net, terminals)
    for start in (made, tidy(net, made, terminals)):
        got = key_path_exchange(net, start, terminals)
        want = _exchange_by_copies(net, start, terminals)
        assert list(got) == list(want)  # the same links in the same order (plans iterate them)


def test_cached_exchanges_are_the_exchanges_in_order(monkeypatch):
    """``steiner._exchanged`` gives ``key_path_exchange``'s tree (links in the same order),
    once per tree and terminals in order, and drops its cache when full."""
    from inev.planner import steiner
    from inev.planner.key_paths import key_path_exchange
    from inev.planner.steiner import mehlhorn, path_heuristic

    net = _network(5, 40)
    steiner.trees_of(net).exchanged.clear()  # other tests may have used this topology
    calls = []
    monkeypatch.setattr(
        steiner, "key_path_exchange", lambda *a: calls.append(a) or key_path_exchange(*a)
    )
    for seed in range(12):
        rng = np.random.default_rng(seed)
        terminals = [int(t) for t in rng.choice(40, size=int(rng.integers(3, 14)), replace=False)]
        for made in (mehlhorn(net, terminals), path_heuristic(net, terminals, terminals[0])):
            start = tidy(net, made, terminals)
            want = list(key_path_exchange(net, start, terminals))
            assert list(steiner._exchanged(net, start, terminals)) == want
            assert list(steiner._exchanged(net, start, terminals)) == want
    assert len(calls) == len(steiner.trees_of(net).exchanged)  # each computed once
    monkeypatch.setattr(steiner, "EXCHANGES_KEPT", 1)
    steiner._exchanged(net, start, list(reversed(terminals)))  # terminals in another order
    assert len(steiner.trees_of(net).exchanged) == 1
