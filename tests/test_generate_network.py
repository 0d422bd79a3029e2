"""The synthetic network generators: connectivity, degree, node ratio, skew, determinism."""

from __future__ import annotations

import statistics

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.topologies.generate import TOPOLOGIES, generate_network, type_names
from inev.topologies.io import save_network


@given(
    nodes=st.integers(1, 60),
    degree=st.floats(1.0, 6.0),
    types=st.integers(1, 8),
    ratio=st.floats(0.05, 1.0),
    seed=st.integers(0, 10_000),
    topology=st.sampled_from(TOPOLOGIES),
)
def test_every_generated_network_is_connected_and_every_type_has_a_source(
    nodes, degree, types, ratio, seed, topology
):
    net = generate_network(nodes, degree, types, 1.5, ratio, seed, topology)
    assert net.graph.number_of_nodes() == nodes
    assert nx.is_connected(net.graph)
    assert len(net.types) == types
    for t in net.event_types.values():
        assert t.sources
        assert t.rate >= 1 and t.rate == int(t.rate)


@pytest.mark.parametrize("degree", [2, 2.5, 3, 4, 5, 6])
@pytest.mark.parametrize("nodes", [20, 50, 200])
def test_default_topology_honours_the_mean_degree(nodes, degree):
    for seed in range(5):
        net = generate_network(nodes=nodes, out_degree=degree, seed=seed)
        mean = 2 * net.graph.number_of_edges() / nodes
        assert abs(mean - degree) <= 0.1 * degree


def test_paper_ws_topology_has_mean_degree_two_for_three():
    # networkx links k // 2 = 1 neighbour per side: the paper's construction, kept as "ws".
    net = generate_network(nodes=100, out_degree=3, topology="ws", seed=2)
    assert 2 * net.graph.number_of_edges() / 100 == pytest.approx(2.0)


def test_node_ratio_is_close_to_the_request():
    for ratio in (0.2, 0.5, 0.8):
        shares = []
        for seed in range(20):
            net = generate_network(nodes=50, event_types=10, node_ratio=ratio, seed=seed)
            shares.append(sum(len(t.sources) for t in net.event_types.values()) / (50 * 10))
        assert statistics.mean(shares) == pytest.approx(ratio, abs=0.03)


def test_smaller_skew_gives_a_heavier_tail():
    def median_spread(skew):
        spreads = []
        for seed in range(50):
            rates = sorted(generate_network(skew=skew, seed=seed).local_rates().values())
            spreads.append(rates[-1] / rates[0])
        return statistics.median(spreads)

    spreads = [median_spread(s) for s in (1.1, 1.3, 1.5, 1.7, 1.9)]
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[0] > 100 * spreads[-1]


@pytest.mark.parametrize("skew", [1.0, 0.5, -2])
def test_skew_at_most_one_is_refused(skew):
    with pytest.raises(InevError, match="skew must be > 1"):
        generate_network(skew=skew)


def test_bad_parameters_are_refused():
    with pytest.raises(InevError, match="node ratio"):
        generate_network(node_ratio=0)
    with pytest.raises(InevError, match="at least one node"):
        generate_network(nodes=0)
    with pytest.raises(InevError, match="unknown topology"):
        generate_network(topology="torus")
    with pytest.raises(InevError, match="event type"):
        generate_network(event_types=0)
    with pytest.raises(InevError, match="seed must be a non-negative integer"):
        generate_network(seed=-1)


def test_same_seed_same_bytes(tmp_path):
    for topology in TOPOLOGIES:
        a, b = tmp_path / "a.json", tmp_path / "b.json"
        save_network(generate_network(seed=7, topology=topology), a)
        save_network(generate_network(seed=7, topology=topology), b)
        assert a.read_bytes() == b.read_bytes()
        save_network(generate_network(seed=8, topology=topology), b)
        assert a.read_bytes() != b.read_bytes()


def test_type_names_are_spreadsheet_columns():
    names = type_names(30)
    assert names[:3] == ["A", "B", "C"]
    assert names[25:28] == ["Z", "AA", "AB"]
    assert len(set(type_names(800))) == 800


def _redraw_only(nodes, types, ratio, rng):
    """The source assignment as it was before issue 30: redraw an empty column until it fills."""
    matrix = rng.random((nodes, types)) < ratio
    for t in range(types):
        while not matrix[:, t].any():
            matrix[:, t] = rng.random(nodes) < ratio
    return matrix


@pytest.mark.parametrize(("nodes", "ratio"), [(20, 0.05), (5, 0.2), (200, 0.001), (1, 0.5)])
def test_source_assignment_keeps_its_random_stream_for_reasonable_ratios(nodes, ratio):
    import numpy as np

    from inev.topologies.generate import assign_sources

    for seed in range(20):
        old = _redraw_only(nodes, 6, ratio, np.random.default_rng(seed))
        new = assign_sources(nodes, 6, ratio, np.random.default_rng(seed))
        assert (old == new).all()


def test_a_tiny_node_ratio_draws_sources_from_the_conditioned_binomial_at_once():
    import math

    import numpy as np

    from inev.topologies.generate import _at_least_one, assign_sources

    matrix = assign_sources(20, 6, 1e-9, np.random.default_rng(1))  # was minutes of redraws
    assert matrix.sum(axis=0).tolist() == [1] * 6
    rng = np.random.default_rng(2)
    n, p, draws = 4, 0.3, 20_000
    counts = [int(_at_least_one(n, p, rng).sum()) for _ in range(draws)]
    for k in range(1, n + 1):  # P(k | k >= 1) of Binomial(4, 0.3)
        expected = math.comb(n, k) * p**k * (1 - p) ** (n - k) / (1 - (1 - p) ** n)
        assert abs(counts.count(k) / draws - expected) < 0.012
