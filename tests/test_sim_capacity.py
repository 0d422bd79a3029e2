"""Node processing capacity in the network simulator: queueing, shedding, quality, CLI."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.experiments.measure import task_inputs
from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.planning import plan_workload
from inev.simulator.capacity import (
    CapacityOptions,
    parse_node_capacities,
    quality,
    resolve_capacities,
    stage_counts,
)
from inev.simulator.engine.events import make_event
from inev.simulator.run import simulate
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload

PATH = Network.build(
    [0, 1, 2, 3, 4], [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (1.0, [0]), "B": (100.0, [4])}
)
STAR = Network.build(
    [0, 1, 2, 3],
    [(0, 1), (0, 2), (0, 3)],
    {"A": (1.0, [1, 2, 3]), "B": (20.0, [1, 2, 3])},
)


def options(*capacity: str, **kwargs) -> CapacityOptions:
    return CapacityOptions(parse_node_capacities(capacity), **kwargs)


def test_capacity_entries_parse():
    assert parse_node_capacities(["12.5"]) == {"*": ("fixed", 12.5)}
    assert parse_node_capacities(["auto:0.5", "3=7", "x=auto:2"]) == {
        "*": ("auto", 0.5),
        "3": ("fixed", 7.0),
        "x": ("auto", 2.0),
    }
    for bad in (["0"], ["-1"], ["abc"], ["=3"], ["1", "2"], ["3=1", "3=2"], []):
        with pytest.raises(InevError):
            parse_node_capacities(bad)


def test_capacities_resolve_per_node_and_auto_against_the_needed_capacity():
    opts = options("auto:0.5", "1=8")
    assert resolve_capacities(opts, [0, 1, 2], 10.0) == {0: 5.0, 1: 8.0, 2: 5.0}
    only = options("1=8")
    assert resolve_capacities(only, [0, 1], 10.0) == {0: math.inf, 1: 8.0}
    with pytest.raises(InevError, match="'9'"):
        resolve_capacities(options("9=1"), [0, 1], 1.0)


def test_options_are_checked():
    with pytest.raises(InevError, match="needs a latency bound"):
        options("1", shed="pspice")
    with pytest.raises(InevError, match="unknown shedding"):
        options("1", shed="magic", latency_bound=1.0)
    with pytest.raises(InevError, match="latency bound"):
        options("1", latency_bound=0.0)


def test_stage_counts_follow_the_longest_chain_of_projections():
    # events 1, 2; projection 3 over events; 4 over 3; 5 over 4 and an event
    inputs = {1: (), 2: (), 3: (1, 2), 4: (3,), 5: (4, 1)}
    assert stage_counts(inputs, {1, 2}) == {3: 0, 4: 1, 5: 2}


def test_quality_counts_false_negatives_weighted_and_false_positives():
    from collections import Counter

    found = {"a": Counter({(1, 2): 1, (5, 6): 1}), "b": Counter()}
    ref = {"a": Counter({(1, 2): 1, (3, 4): 1}), "b": Counter({(7,): 2})}
    per_query, share = quality(found, ref, {"a": 1.0, "b": 3.0})
    assert per_query["a"]["false_negatives"] == 1 and per_query["a"]["false_positives"] == 1
    assert per_query["b"]["false_negatives"] == 2
    assert per_query["b"]["weighted_false_negatives"] == 6.0
    # (1·1 + 3·2) / (1·2 + 3·2)
    assert share == pytest.approx(7 / 8)
    # a match the lossy reference lacks but the centralized truth has is no false positive
    truth = {"a": Counter({(1, 2): 1, (3, 4): 1, (5, 6): 1})}
    per_query, _ = quality(found, ref, {}, truth)
    assert per_query["a"]["false_positives"] == 0 and per_query["a"]["false_negatives"] == 1
    twice = {"a": Counter({(5, 6): 2})}
    assert quality(twice, ref, {}, truth)[0]["a"]["false_positives"] == 1


def test_queueing_at_the_central_node_by_hand():
    wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(PATH, wl, "centralized")
    assert plan.centralized_node == 4
    trace = [
        make_event(0.1, "A", 0, 0),
        make_event(0.2, "A", 0, 1),
        make_event(0.3, "A", 0, 2),
        make_event(0.5, "B", 4, 3),
    ]
    result = simulate(PATH, wl, plan, duration=1.0, trace=trace, capacity=options("2"))
    # The A events reach node 4 after 4 time units and the sink holds every item until
    # its time + 4 (the watermark bound): A's enter the queue at 4.1, 4.2, 4.3, B at 4.5.
    # Each A costs 1 work unit (nothing to join yet): 0.5 time units at capacity 2, so
    # they are served 4.1-4.6, 4.6-5.1, 5.1-5.6. B waits until 5.6 and costs 1 + 3 joins
    # checked = 4 units = 2 time units: the three matches leave at 7.6, latency 7.1.
    assert result.matches == {"q": 3}
    assert result.latency["q"]["max"] == pytest.approx(7.1)
    assert result.latency["q"]["p50"] == pytest.approx(7.1)
    node = result.shedding["nodes"]["4"]
    assert node["work"] == 7.0 and node["items"] == 4
    assert node["max_queue_latency"] == pytest.approx(1.1)
    assert node["max_latency"] == pytest.approx(3.1)
    assert node["utilisation"] == pytest.approx(3.5 / 7.6)
    # the unlimited run needs 7 work units over the 1-time-unit run at node 4
    assert result.shedding["needed_capacity"] == pytest.approx(7.0)
    assert result.shedding["load"] == pytest.approx(3.5)
    assert result.shedding["false_negatives"] == 0 and result.shedding["false_positives"] == 0
    assert result.shedding["queries"]["q"]["bound_violations"] == 0  # no bound
    bounded = simulate(
        PATH, wl, plan, duration=1.0, trace=trace, capacity=options("2", latency_bound=3.0)
    )
    # B's queueing 1.1 + service 2 = 3.1 > 3: its three matches violate the bound; no A
    # item did (latencies 0.5, 0.9, 1.3)
    assert bounded.shedding["queries"]["q"]["bound_violations"] == 3
    assert bounded.shedding["nodes"]["4"]["bound_violations"] == 1
    assert "4" in result.shedding["nodes"] and "0" not in result.shedding["nodes"]
    plain = simulate(PATH, wl, plan, duration=1.0, trace=trace)
    assert plain.latency["q"]["max"] == pytest.approx(4.0)
    assert "shedding" not in plain.to_dict()
    assert "shedding" in result.to_dict()
    assert "false_negatives=0" in result.summary()


def test_a_huge_capacity_changes_nothing():
    net = generate_network(nodes=8, seed=3, skew=3)
    wl = generate_workload(net, queries=2, length=3, selectivity=0.5, seed=3)
    net = rescale_rates(net, wl.types, 40.0)
    plan = plan_workload(net, wl, "inev")
    plain = simulate(net, wl, plan, duration=5.0, seed=2)
    fast = simulate(net, wl, plan, duration=5.0, seed=2, capacity=options("1e12"))
    assert fast.matches == plain.matches and fast.equal_to_centralized
    assert fast.messages == plain.messages
    for q, summary in plain.latency.items():
        if summary["count"]:
            assert fast.latency[q]["max"] == pytest.approx(summary["max"] + 0.0, abs=1e-6)
    assert fast.shedding["false_negatives"] == 0 and fast.shedding["late"] == 0


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    negation=st.integers(0, 1),
    load=st.sampled_from([1.2, 1.5, 1.8]),
    method=st.sampled_from(["inev", "centralized"]),
)
# the items' own work exceeds the capacity: dropped as a last resort (shed_events)
@example(seed=5420, negation=0, load=1.8, method="centralized")
# NSEQ(B, C, D) with frequent C: negated events cannot be dropped, the bound gives way
@example(seed=798, negation=1, load=1.5, method="inev")
def test_shedding_keeps_the_bound_and_partial_match_shedding_adds_no_match(
    seed, negation, load, method
):
    net = generate_network(nodes=7, seed=seed, skew=3)
    wl = generate_workload(net, queries=1, length=3, negation=negation, selectivity=0.5, seed=seed)
    net = rescale_rates(net, wl.types, 40.0)
    plan = plan_workload(net, wl, method)
    bound = 0.5
    for strategy in ("pspice", "random-pm", "random-event"):
        result = simulate(
            net,
            wl,
            plan,
            duration=4.0,
            seed=seed,
            capacity=options(f"auto:{1 / load}", latency_bound=bound, shed=strategy),
        )
        figures = result.shedding
        for node in figures["nodes"].values():
            # the bound holds up to one item's service time, unless negated events that
            # cannot be shed without false matches had to be processed past it
            if node["bound_forced"] == 0:
                assert node["max_latency"] <= bound + node["max_service"] + 1e-9
            else:
                assert negation and strategy != "random-event"
        if strategy != "random-event":
            assert figures["false_positives"] == 0
            # what was found is a subset of the unlimited run's matches
            for q in figures["queries"].values():
                assert q["matches"] + q["false_negatives"] == q["reference"]


def test_inev_beats_centralized_latency_when_the_central_node_saturates():
    # A rare, B frequent at the three leaves of a star: INEv evaluates SEQ(A, B) at every
    # leaf (partitioned by B, the A events forwarded), so each leaf takes a third of the B
    # events; centralized evaluation gathers everything at one node.
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.1})])
    inev = plan_workload(STAR, wl, "inev")
    central = plan_workload(STAR, wl, "centralized")
    assert len({v.node for v in inev.vertices if v.inputs}) == 3
    runs = {}
    for name, plan in (("inev", inev), ("centralized", central)):
        runs[name] = simulate(STAR, wl, plan, duration=20.0, seed=3, capacity=options("200"))
    assert runs["centralized"].shedding["load"] > 1.5  # saturated
    assert runs["inev"].shedding["load"] < 1.0
    assert runs["inev"].matches == runs["centralized"].matches
    for key in ("mean", "p99"):
        assert runs["inev"].latency["q"][key] < runs["centralized"].latency["q"][key]
    # without capacity the centralized plan is the faster one here (no watermark detours)
    plain = {
        n: simulate(STAR, wl, p, duration=20.0, seed=3) for n, p in (("i", inev), ("c", central))
    }
    assert plain["c"].latency["q"]["mean"] <= plain["i"].latency["q"]["mean"]


def test_simulate_command_with_capacity(run_cli, tmp_path, write_json):
    net = write_json(
        "net.json",
        {
            "format": "inev-network/1",
            "nodes": [0, 1, 2, 3],
            "links": [[0, 1], [0, 2], [0, 3]],
            "event_types": {
                "A": {"rate": 1.0, "sources": [1, 2, 3]},
                "B": {"rate": 20.0, "sources": [1, 2, 3]},
            },
        },
    )
    wl = write_json(
        "wl.json",
        {
            "format": "inev-workload/1",
            "window": 1.0,
            "queries": [{"name": "q", "pattern": "SEQ(A, B)", "selectivity": {"A B": 0.1}}],
        },
    )
    out = tmp_path / "sim.json"
    args = ["simulate", net, wl, "--method", "centralized", "--duration", "5"]
    code, stdout, _ = run_cli(*args, "-o", out, "--capacity", "auto:0.6", "--latency-bound", "0.5")
    assert code == 0
    assert "shed=pspice" in stdout and "false_negatives=" in stdout
    shedding = json.loads(out.read_text())["shedding"]
    assert shedding["strategy"] == "pspice" and shedding["load"] == pytest.approx(1 / 0.6)
    assert set(shedding["nodes"]) == {"0"}
    assert shedding["false_positives"] == 0
    code, _, err = run_cli(*args, "-o", tmp_path / "x.json", "--shed", "random-pm")
    assert code == 1 and "need --capacity" in err
    code, _, err = run_cli(*args, "-o", tmp_path / "x.json", "--capacity", "7=3")
    assert code == 1 and "'7'" in err
    assert not (tmp_path / "x.json").exists()


def test_late_items_make_the_run_wait_longer_instead_of_losing_matches():
    # A multi-stage INEv plan at 200 % without a bound: upstream queues delay matches beyond
    # one window, so with the slack fixed at one window downstream vertices receive items
    # late and lose matches; by default the run is repeated with a larger slack until no
    # item comes late, and then nothing is lost (nothing was shed).
    net, wl = task_inputs(TaskConfig(nodes=10, length=3), 9)
    net = rescale_rates(net, wl.types, 30.0)
    plan = plan_workload(net, wl, "inev")
    assert plan.kept == "inev" and len(plan.combination) >= 2  # two stages
    fixed = simulate(
        net, wl, plan, duration=10.0, seed=0, capacity=options("auto:0.5", stage_slack=1.0)
    )
    assert fixed.shedding["late"] > 0 and fixed.shedding["false_negatives"] > 0
    retried = simulate(net, wl, plan, duration=10.0, seed=0, capacity=options("auto:0.5"))
    assert retried.shedding["late"] == 0 and retried.shedding["false_negatives"] == 0
    assert retried.shedding["stage_slack"] > 1.0
    assert sum(retried.matches.values()) == retried.shedding["queries"]["q1"]["reference"]
