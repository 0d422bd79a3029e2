"""The event network model: validation, rates, distances, paths, file round trips."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from inev.common.errors import InevError
from inev.topologies.io import load_network, network_from_dict, network_to_dict, save_network
from inev.topologies.network import Network

PATH4 = {
    "format": "inev-network/1",
    "nodes": [0, 1, 2, 3],
    "links": [[0, 1], [1, 2], [2, 3, 2.5]],
    "event_types": {"A": {"rate": 0.2, "sources": [0]}, "B": {"rate": 40.0, "sources": [1, 3]}},
}


def test_spec_example_loads_with_rates_and_distances():
    net = network_from_dict(PATH4)
    assert net.nodes == (0, 1, 2, 3)
    assert net.rate("B") == 40.0
    assert net.global_rate("B") == 80.0
    assert net.global_rate("A") == pytest.approx(0.2)
    assert net.sources("B") == (1, 3)
    assert net.hops(0, 3) == 3
    assert net.latency(0, 3) == pytest.approx(4.5)
    assert net.diameter == 3
    # ordered pairs: distances 1,2,3,1,2,1 each twice -> 20 / 12
    assert net.mean_hops == pytest.approx(20 / 12)
    assert net.shortest_path(3, 0) == [3, 2, 1, 0]
    assert net.path_links(0, 2) == [(0, 1), (1, 2)]
    assert net.types_at(3) == ("B",)


def test_round_trip_is_exact(tmp_path):
    net = network_from_dict(PATH4)
    assert network_to_dict(net) == PATH4
    save_network(net, tmp_path / "n.json")
    again = load_network(tmp_path / "n.json")
    assert network_to_dict(again) == PATH4


def test_string_node_ids():
    net = Network.build(["a", "b", "c"], [("a", "b"), ("b", "c")], {"X": (1.0, ["a", "c"])})
    assert net.hops("a", "c") == 2
    assert net.global_rate("X") == 2.0


def test_hop_matrix_matches_networkx_on_a_grid():
    import networkx as nx

    graph = nx.convert_node_labels_to_integers(nx.grid_2d_graph(7, 9))
    net = Network.build(graph.nodes, list(graph.edges), {"A": (1.0, [0])})
    expected = dict(nx.all_pairs_shortest_path_length(graph))
    for u in graph.nodes:
        for v in graph.nodes:
            assert net.hops(u, v) == expected[u][v]
    assert net.hop_matrix.dtype == np.uint16
    path = net.shortest_path(0, 62)
    assert len(path) - 1 == expected[0][62]
    assert all(graph.has_edge(a, b) for a, b in itertools.pairwise(path))


def broken(**changes):
    document = json.loads(json.dumps(PATH4))
    for key, value in changes.items():
        document[key] = value
    return document


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (broken(links=[[0, 1], [1, 2]]), "disconnected"),
        (broken(links=[[0, 1], [1, 2], [2, 9]]), "unknown node 9"),
        (broken(links=[[0, 1], [1, 2], [2, 3], [3, 2]]), "listed twice"),
        (broken(links=[[0, 1], [1, 1], [2, 3]]), "self-loop"),
        (broken(links=[[0, 1], [1, 2], [2, 3, -1]]), "latency"),
        (broken(links=[[0, 1], [1, 2], [2]]), "must be [u, v]"),
        (broken(nodes=[0, 1, 2, 3, 3]), "listed twice"),
        (broken(nodes=[0, 1, 2, 3.5]), "integer or a string"),
        (broken(event_types={"A": {"rate": -1, "sources": [0]}}), "rate"),
        (broken(event_types={"A": {"rate": 0, "sources": [0]}}), "rate"),
        (broken(event_types={"A": {"rate": float("inf"), "sources": [0]}}), "rate"),
        (broken(event_types={"A": {"rate": 1, "sources": []}}), "no source"),
        (broken(event_types={"A": {"rate": 1, "sources": [7]}}), "unknown source 7"),
        (broken(event_types={"A": {"rate": 1, "sources": [0, 0]}}), "source twice"),
        (broken(event_types={"A": {"rate": 1}}), "needs 'rate' and 'sources'"),
        (broken(event_types={"SEQ": {"rate": 1, "sources": [0]}}), "reserved"),
        (broken(event_types={"1A": {"rate": 1, "sources": [0]}}), "name"),
        (broken(event_types={}), "no event types"),
        (broken(nodes=[]), "no nodes"),
    ],
)
def test_invalid_networks_are_refused_with_a_named_reason(document, message):
    with pytest.raises(InevError, match=None) as info:
        network_from_dict(document, origin="net.json")
    text = str(info.value)
    assert message in text
    assert text.startswith("net.json: ")
    assert "\n" not in text


def test_missing_keys_and_wrong_format(write_json):
    document = dict(PATH4)
    del document["links"]
    with pytest.raises(InevError, match="missing key 'links'"):
        load_network(write_json("a.json", document))
    with pytest.raises(InevError, match="format is 'inev-workload/1'"):
        load_network(write_json("b.json", {**PATH4, "format": "inev-workload/1"}))
    with pytest.raises(InevError, match="invalid JSON"):
        path = write_json("c.json", {})
        path.write_text("{not json", encoding="utf-8")
        load_network(path)
    with pytest.raises(InevError, match="no such file"):
        load_network(path.parent / "missing.json")


def test_with_rates_and_without():
    net = network_from_dict(PATH4)
    faster = net.with_rates({"A": 3.0})
    assert faster.rate("A") == 3.0 and net.rate("A") == 0.2
    with pytest.raises(InevError):
        net.with_rates({"Z": 1.0})
    cycle = Network.build([0, 1, 2], [(0, 1), (1, 2), (2, 0)], {"A": (1.0, [0, 2])})
    assert cycle.without(links=[(0, 2)]).hops(0, 2) == 2
    assert cycle.without(nodes=[2]).sources("A") == (0,)
    with pytest.raises(InevError, match="disconnected"):
        net.without(links=[(1, 2)])
