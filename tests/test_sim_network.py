"""The SimPy link layer and the Poisson event sources."""

from __future__ import annotations

import itertools
import statistics

import pytest
import simpy
from hypothesis import given
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.simulator.simpy_network import SimNetwork, forwarding_tree
from inev.simulator.sources import expected_events, poisson_trace, workload_attributes
from inev.topologies.network import Network
from inev.topologies.network_entries import link_key
from inev.workloads.workload import Query, Workload

PATH = Network.build([0, 1, 2, 3, 4], [(0, 1), (1, 2), (2, 3, 2.0), (3, 4)], {"A": (1.0, [0])})


def test_three_events_over_four_links_are_twelve_messages_with_path_latency():
    env = simpy.Environment()
    sim = SimNetwork(env, PATH)
    arrivals = []
    for node in PATH.nodes:
        sim.on_receive(node, lambda n, payload, kind: arrivals.append((env.now, n, payload)))
    tree = forwarding_tree(0, [(0, 1), (1, 2), (2, 3), (3, 4)])
    for i in range(3):
        sim.send(0, tree, payload=f"a{i}", kind="A", sender=7)
    env.run()
    assert sim.messages == 12
    assert sim.by_kind == {"A": 12} and sim.by_sender == {7: 12}
    assert sim.by_link == {(0, 1): 3, (1, 2): 3, (2, 3): 3, (3, 4): 3}
    # latencies 1 + 1 + 2 + 1: node 4 hears each event at time 5
    assert sorted(t for t, n, _ in arrivals if n == 4) == [5.0, 5.0, 5.0]
    assert sorted(t for t, n, _ in arrivals if n == 2) == [2.0, 2.0, 2.0]


def test_a_cyclic_forwarding_graph_reaches_every_node_once():
    ring = Network.build([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3), (3, 0)], {"A": (1.0, [0])})
    tree = forwarding_tree(0, [(0, 1), (1, 2), (2, 3), (3, 0)])
    assert tree == {0: (1, 3), 1: (2,), 3: (), 2: ()}
    env = simpy.Environment()
    sim = SimNetwork(env, ring)
    seen = []
    for node in ring.nodes:
        sim.on_receive(node, lambda n, p, k: seen.append(n))
    sim.send(0, tree, payload=1, kind="A")
    env.run()
    assert sorted(seen) == [1, 2, 3] and sim.messages == 3


def test_bandwidth_queues_messages_on_a_link():
    line = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0])})
    env = simpy.Environment()
    sim = SimNetwork(env, line, bandwidth=1.0)
    times = []
    sim.on_receive(1, lambda n, p, k: times.append(env.now))
    for i in range(3):
        sim.send(0, {0: (1,), 1: ()}, payload=i, kind="A")
    env.run()
    assert times == [2.0, 3.0, 4.0]


def test_bad_forwarding_graphs_are_refused():
    with pytest.raises(InevError, match="does not reach"):
        forwarding_tree(0, [(0, 1), (2, 3)])
    env = simpy.Environment()
    sim = SimNetwork(env, PATH)
    with pytest.raises(InevError, match="not a link"):
        sim.send(0, {0: (4,)}, payload=1, kind="A")
    assert link_key(3, 1) == (1, 3)


def test_poisson_sources_have_the_rate_and_are_reproducible():
    net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (2.0, [0, 2]), "B": (0.5, [1])})
    counts = {"A": [], "B": []}
    for seed in range(40):
        trace = poisson_trace(net, duration=50.0, seed=seed)
        assert [e.id for e in trace] == list(range(len(trace)))
        assert all(a.time <= b.time for a, b in itertools.pairwise(trace))
        assert all(0 <= e.time < 50 and e.node in net.sources(e.type) for e in trace)
        for t in counts:
            counts[t].append(sum(1 for e in trace if e.type == t))
    assert statistics.mean(counts["A"]) == pytest.approx(2.0 * 2 * 50, rel=0.05)
    assert statistics.mean(counts["B"]) == pytest.approx(0.5 * 50, rel=0.1)
    assert poisson_trace(net, 10.0, seed=3) == poisson_trace(net, 10.0, seed=3)
    only_a = [e for e in poisson_trace(net, 10.0, seed=3) if e.type == "A"]
    assert [(e.time, e.node) for e in poisson_trace(net, 10.0, seed=3, types=["A"])] == [
        (e.time, e.node) for e in only_a
    ]
    assert expected_events(net, 10.0) == pytest.approx(45.0)


def test_attributes_are_drawn_for_what_the_workload_reads():
    wl = Workload.build(
        1.0,
        [
            Query.build(
                "q",
                "SEQ(A, KL(B))",
                where="A.v > B.w AND NEXT(B).w > B.w AND A.id == 3",
                returns="SUM(B.x)",
            )
        ],
    )
    assert workload_attributes(wl) == {"A": ("v",), "B": ("w", "x")}
    net = Network.build([0, 1], [(0, 1)], {"A": (5.0, [0]), "B": (5.0, [1])})
    trace = poisson_trace(net, 5.0, seed=1, attributes=workload_attributes(wl))
    assert all(set(e.attrs) == ({"v"} if e.type == "A" else {"w", "x"}) for e in trace)
    assert all(0 <= value < 100 for e in trace for value in e.attrs.values())


@pytest.mark.parametrize(("duration", "seed"), [(0, 1), (-1, 1), (float("inf"), 1), (1.0, -2)])
def test_bad_source_parameters(duration, seed):
    with pytest.raises(InevError):
        poisson_trace(PATH, duration, seed)


def test_message_counts_key_links_as_plan_files_write_them():
    # nodes 9 and 10: the plan file writes [9, 10]; the result file says "9 10", not "10 9"
    line = Network.build(list(range(12)), [(i, i + 1) for i in range(11)], {"A": (1.0, [11])})
    env = simpy.Environment()
    sim = SimNetwork(env, line)
    sim.send(11, forwarding_tree(11, [(11, 10), (10, 9)]), payload="a", kind="A")
    env.run()
    assert sim.by_link == {(10, 11): 1, (9, 10): 1}


@given(
    st.one_of(st.integers(-5, 20), st.sampled_from(["a", "b", "10", "n9"])),
    st.one_of(st.integers(-5, 20), st.sampled_from(["a", "b", "10", "n9"])),
)
def test_the_link_key_is_the_plan_files_link(u, v):
    from inev.planner.inev_graph import link

    assert link_key(u, v) == link(u, v) == link_key(v, u)
