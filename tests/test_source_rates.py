"""Per-source rates r(e, n): the network model, its file, and the sums over sources."""

from __future__ import annotations

import pytest

from inev.common.errors import InevError
from inev.planner.baselines import centralized_node, gather_costs
from inev.simulator.sources import poisson_trace
from inev.topologies.io import network_from_dict, network_to_dict
from inev.topologies.network import Network

LINE = {
    "format": "inev-network/1",
    "nodes": [0, 1, 2, 3],
    "links": [[0, 1], [1, 2], [2, 3]],
    "event_types": {
        "A": {"sources": [0, 3], "rates": [1.0, 9.0]},
        "B": {"rate": 2.0, "sources": [1, 2]},
    },
}


def test_rates_sum_to_the_global_rate_and_r_is_their_mean():
    net = network_from_dict(LINE)
    assert net.global_rate("A") == 10.0
    assert net.rate("A") == 5.0
    assert net.rate_at("A", 3) == 9.0
    assert net.rate_at("A", 1) == 0.0
    assert net.source_rates("B") == (2.0, 2.0)
    assert not net.uniform_rates


def test_file_round_trip_writes_the_mean_for_spec_readers():
    net = network_from_dict(LINE)
    doc = network_to_dict(net)
    assert doc["event_types"]["A"] == {"rate": 5.0, "sources": [0, 3], "rates": [1.0, 9.0]}
    assert "rates" not in doc["event_types"]["B"]
    again = network_from_dict(doc)
    assert again.source_rates("A") == (1.0, 9.0)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"sources": [0, 3], "rates": [1.0]}, "one rate per source"),
        ({"sources": [0, 3], "rates": [1.0, -2.0]}, "must be positive"),
        ({"rate": 4.0, "sources": [0, 3], "rates": [1.0, 9.0]}, "not the mean"),
        ({"sources": [0, 3]}, "needs 'rate'"),
    ],
)
def test_bad_per_source_rates_are_refused(entry, message):
    doc = {**LINE, "event_types": {"A": entry}}
    with pytest.raises(InevError, match=message):
        network_from_dict(doc)


def test_set_rate_keeps_the_measured_proportions():
    net = network_from_dict(LINE).with_rates({"A": 10.0})
    assert net.source_rates("A") == (2.0, 18.0)
    assert net.global_rate("A") == 20.0


def test_removing_a_node_drops_its_rate():
    net = network_from_dict(LINE).without(links=[(2, 3)], nodes=[3])
    assert net.source_rates("A") == (1.0,)


def test_centralized_cost_sums_each_source_rate_times_its_hops():
    net = network_from_dict(LINE)
    # at node 3: A 1.0 * 3 hops + 9.0 * 0, B 2.0 * 2 + 2.0 * 1
    assert gather_costs(net, ["A", "B"])[3] == pytest.approx(3.0 + 6.0)
    # at node 2: A 1.0 * 2 + 9.0 * 1, B 2.0 * 1 + 0 -> 13; node 3 costs 9 and wins
    assert gather_costs(net, ["A", "B"])[2] == pytest.approx(13.0)
    assert centralized_node(net, ["A", "B"]) == (3, pytest.approx(9.0))


def test_simulated_sources_emit_at_their_own_rates():
    net = Network.build([0, 1], [(0, 1)], {"A": (None, [0, 1], [1.0, 20.0])})
    trace = poisson_trace(net, 200.0, seed=3)
    counts = {n: sum(1 for e in trace if e.node == n) for n in (0, 1)}
    # Poisson means 200 and 4000: four standard deviations either way
    assert abs(counts[0] - 200) < 4 * 200**0.5
    assert abs(counts[1] - 4000) < 4 * 4000**0.5
