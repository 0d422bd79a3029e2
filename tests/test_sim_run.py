"""The network simulator: exact message counts, equality with centralized evaluation, latency."""

from __future__ import annotations

import bisect
import json
import math

import numpy as np
import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.planner.planning import plan_workload
from inev.simulator.engine.events import make_event
from inev.simulator.estimate import check_size, estimate
from inev.simulator.run import simulate
from inev.simulator.sources import poisson_trace
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload

PATH = Network.build(
    [0, 1, 2, 3, 4], [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (1.0, [0]), "B": (100.0, [4])}
)


def test_three_a_events_over_four_links_are_twelve_messages():
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(PATH, wl, "centralized")
    assert plan.centralized_node == 4  # gathering the rare A events is cheapest
    trace = [
        make_event(0.1, "A", 0, 0),
        make_event(0.2, "A", 0, 1),
        make_event(0.3, "A", 0, 2),
        make_event(0.5, "B", 4, 3),
    ]
    result = simulate(PATH, wl, plan, duration=1.0, trace=trace)
    assert result.messages == 12
    assert result.messages_by_type == {"A": 12}
    assert sorted(result.messages_by_link.values()) == [3, 3, 3, 3]
    assert result.matches == {"q": 3} and result.equal_to_centralized
    assert result.centralized_messages == 12
    # each A needs 4 time units to reach node 4; the sink releases the match with B (t=0.5)
    # once nothing older than 0.5 can still arrive: at 0.5 + 4, a latency of 4 for all three
    assert result.latency["q"]["p50"] == pytest.approx(4.0)
    assert result.latency["q"]["max"] == pytest.approx(4.0)
    assert result.late == 0


def test_push_pull_plan_requests_the_pulled_events_per_prefix_match():
    # A is rare at node 1, B frequent at nodes 0 and 2: PPoP evaluates at node 1, pushes A
    # (0 hops) and pulls B (psi = 0.1 * (1 + 1 hops) * (1 + 1.0 * 5) = 1.2).
    net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (0.1, [1]), "B": (5.0, [0, 2])})
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(net, wl, "ppop")
    assert plan.psi == pytest.approx(1.2)
    assert "q: pull B" in plan.notes
    trace = [
        make_event(1.0, "A", 1, 0),
        make_event(1.2, "B", 2, 1),
        make_event(1.5, "B", 0, 2),
        make_event(3.0, "B", 0, 3),  # outside the window of the only A: never sent
        make_event(4.0, "B", 0, 4),
        make_event(5.0, "B", 2, 5),
    ]
    result = simulate(net, wl, plan, duration=6.0, trace=trace)
    # one request per B source (1 hop each), then B@1.2 and B@1.5 answer it (1 hop each);
    # pushing every B would have cost 5
    assert result.messages == 4
    assert result.messages_by_link == {"0 1": 2, "1 2": 2}
    assert result.matches == {"q": 2} and result.equal_to_centralized
    # B's events reach node 1 at most max(2 * 1 + 1, 2 * 1 + 1) = 3 after their time, so
    # the sink releases each match 3 time units after its B
    assert result.latency["q"]["max"] == pytest.approx(3.0)
    assert result.late == 0


def test_measured_messages_equal_the_model_for_primitive_forwarding():
    for seed in range(8):
        net = generate_network(nodes=12, event_types=5, seed=seed)
        net = net.with_rates({t: 1.0 + i for i, t in enumerate(net.types)})
        wl = generate_workload(net, queries=1, length=3, selectivity=0.05, seed=seed)
        plan = plan_workload(net, wl, "centralized")
        trace = poisson_trace(net, 2.0, seed, types=wl.types)
        result = simulate(net, wl, plan, duration=2.0, trace=trace)
        expected = 0
        for v in plan.vertices:
            if v.inputs:
                continue
            nodes = {n for link in v.forwarding for n in link}
            assert not v.forwarding or len(v.forwarding) == len(nodes) - 1  # trees
            expected += len(v.forwarding) * sum(
                1 for e in trace if e.type == v.projection and e.node == v.node
            )
        assert result.messages == expected
        assert result.equal_to_centralized


def small_instance(seed: int, length: int, kleene: int, negation: int, queries: int):
    rng = np.random.default_rng(seed)
    net = generate_network(nodes=int(rng.integers(4, 10)), event_types=6, seed=seed, skew=1.5)
    net = net.with_rates({t: float(rng.choice([0.2, 0.5, 1.0, 2.0])) for t in net.types})
    wl = generate_workload(
        net,
        queries=queries,
        length=length,
        kleene=kleene,
        negation=negation,
        selectivity=0.5,
        seed=seed,
    )
    return net, wl


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shape=st.sampled_from([(2, 0, 0), (3, 0, 0), (3, 1, 0), (3, 0, 1), (4, 0, 0), (4, 1, 1)]),
    queries=st.integers(1, 3),
    method=st.sampled_from(["inev", "centralized", "isolated", "ppop"]),
)
# PPoP pulling A for SEQ(KL(A), NSEQ(B, C, D)) with a selectivity between A and C: the prefix
# NSEQ(B, C, D) cancelled on every C and lost all 6 matches (pull.prefix_types)
@example(seed=3641, shape=(4, 1, 1), queries=1, method="ppop")
# the projection NSEQ(E, A, F) of AND(B, NSEQ(E, A, F)) with a selectivity between A and B
# could not decide its negation; the engine refused the plan (projections.negation_ties)
@example(seed=12694, shape=(5, 1, 1), queries=2, method="isolated")
def test_distributed_matches_equal_centralized_matches(seed, shape, queries, method):
    length, kleene, negation = shape
    net, wl = small_instance(seed, length, kleene, negation, queries)
    plan = plan_workload(net, wl, method)
    try:  # keep the unit test fast: a much lower limit than the simulator's default
        check_size(net, wl, 5.0, max_partial_matches=20_000, max_matches=200_000)
    except InevError as exc:
        assert "would take about" in str(exc) or "exceed" in str(exc)
        event("too big for a unit test")
        return
    result = simulate(net, wl, plan, duration=5.0, seed=seed)
    event("matches" if sum(result.matches.values()) else "no match")
    assert result.missing == 0 and result.extra == 0 and result.late == 0
    assert result.equal_to_centralized
    assert result.matches == result.centralized_matches


def _observables(result):
    d = result.to_dict()
    for key in ("wall_seconds", "latency"):
        d.pop(key, None)
    return d


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shape=st.sampled_from([(3, 0, 0), (3, 1, 0), (3, 0, 1), (4, 1, 1)]),
    queries=st.integers(1, 3),
    method=st.sampled_from(["inev", "centralized", "isolated", "ppop"]),
)
def test_batched_releases_change_nothing_observable(seed, shape, queries, method):
    # batching only saves SimPy events: every count, match and latency stays the same
    length, kleene, negation = shape
    net, wl = small_instance(seed, length, kleene, negation, queries)
    plan = plan_workload(net, wl, method)
    try:
        check_size(net, wl, 5.0, max_partial_matches=20_000, max_matches=200_000)
    except InevError:
        event("too big for a unit test")
        return
    batched = simulate(net, wl, plan, duration=5.0, seed=seed)
    exact = simulate(net, wl, plan, duration=5.0, seed=seed, batch=False)
    event("matches" if sum(exact.matches.values()) else "no match")
    assert _observables(batched) == _observables(exact)
    assert batched.latency.keys() == exact.latency.keys()
    for q, summary in exact.latency.items():
        for key, value in summary.items():
            assert batched.latency[q][key] == pytest.approx(value, abs=1e-9), (q, key)
    assert batched.late == exact.late == 0


def test_same_seed_same_result():
    net, wl = small_instance(5, 3, 0, 0, 2)
    plan = plan_workload(net, wl, "inev")
    a = simulate(net, wl, plan, duration=3.0, seed=9).to_dict()
    b = simulate(net, wl, plan, duration=3.0, seed=9).to_dict()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = simulate(net, wl, plan, duration=3.0, seed=10).to_dict()
    assert a["events"] != c["events"] or a["messages"] != c["messages"]


def test_runs_that_would_exhaust_memory_are_refused():
    net = Network.build([0, 1], [(0, 1)], {"A": (60.0, [0, 1]), "B": (1.0, [1])})
    wl = Workload.build(1.0, [Query.build("q", "SEQ(KL(A), B)")])
    plan = plan_workload(net, wl, "centralized")
    with pytest.raises(InevError, match="partial matches per window would take about"):
        simulate(net, wl, plan, duration=10.0)


def test_the_size_estimate_holds_the_busiest_kleene_window_of_the_run(monkeypatch):
    # 11.7 A events per window on average: e^11.7 = 2^16.9 trends in a mean window, but a
    # 20-time-unit run has busier windows (scan statistic); memory must hold those
    net = Network.build([0, 1], [(0, 1)], {"A": (39.0, [0]), "B": (1.0, [1])})
    wl = Workload.build(0.3, [Query.build("q", "SEQ(KL(A), B)")])
    log2_estimate = math.log2(estimate(net, wl, 20.0).partial_matches_per_window["q"])
    peaks = []
    for seed in range(10):
        times = [e.time for e in poisson_trace(net, 20.0, seed) if e.type == "A"]
        peaks.append(max(bisect.bisect_right(times, t + 0.3) - i for i, t in enumerate(times)))
    assert min(peaks) > 39.0 * 0.3 * math.log2(math.e) + 2  # the mean window is far off
    assert sum(p <= log2_estimate for p in peaks) >= 7
    monkeypatch.setenv("INEV_MAX_MEMORY", "8G")  # a machine of 8 GiB: 2^26 trends do not fit
    with pytest.raises(InevError, match=r"partial matches per window would take about .* GiB"):
        check_size(net, wl, 20.0)


def test_trace_events_at_a_non_source_node_are_refused():
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(PATH, wl, "centralized")
    with pytest.raises(InevError, match="node 2 is not a source of A"):
        simulate(PATH, wl, plan, trace=[make_event(0.1, "A", 2, 0)])


def test_simulate_command(run_cli, tmp_path):
    from inev.topologies.io import save_network
    from inev.workloads.io import save_workload

    net, wl = small_instance(3, 3, 0, 0, 1)
    save_network(net, tmp_path / "n.json")
    save_workload(wl, tmp_path / "w.json")
    code, out, err = run_cli(
        "simulate",
        tmp_path / "n.json",
        tmp_path / "w.json",
        "--method",
        "inev",
        "--duration",
        "2",
        "--seed",
        "1",
        "-o",
        tmp_path / "s.json",
    )
    assert code == 0, err
    assert "equal=true" in out
    document = json.loads((tmp_path / "s.json").read_text())
    assert document["format"] == "inev-sim/1" and document["equal_to_centralized"] is True
    code, _, err = run_cli(
        "simulate", tmp_path / "n.json", tmp_path / "w.json", "-o", tmp_path / "x.json"
    )
    assert code == 1 and "plan file or --method" in err and not (tmp_path / "x.json").exists()
    # --total-rate rescales the network: the centralized gathering carries proportionally less
    total = sum(net.global_rate(t) for t in wl.types)
    args = ("--method", "centralized", "--duration", "4", "--seed", "2")
    assert (
        run_cli(
            "simulate", tmp_path / "n.json", tmp_path / "w.json", *args, "-o", tmp_path / "a.json"
        )[0]
        == 0
    )
    code, _, err = run_cli(
        "simulate",
        tmp_path / "n.json",
        tmp_path / "w.json",
        *args,
        "--total-rate",
        str(total / 4),
        "-o",
        tmp_path / "b.json",
    )
    assert code == 0, err
    full = json.loads((tmp_path / "a.json").read_text())
    quarter = json.loads((tmp_path / "b.json").read_text())
    assert quarter["model_messages"] == pytest.approx(full["model_messages"] / 4)
    assert 0 < quarter["events"] < full["events"] / 2
    code, _, err = run_cli(
        "simulate",
        tmp_path / "n.json",
        tmp_path / "w.json",
        tmp_path / "plan.json",
        "--total-rate",
        "5",
        "-o",
        tmp_path / "y.json",
    )
    assert code == 1 and "--total-rate needs --method" in err


def test_rate_change_at_run_time_triggers_the_repair():
    # the planner's hand-checked case: SEQ(A, B) multi-node at B's sources; when B becomes
    # rare, Eq. 1 fails and §6.6 falls back to node 2 (broken ψ = 4 r(A), local repair 2 r(A)),
    # but gathering at A's node 0 costs less still (B's 0.0001 events travel 1 + 2 + 3 + 4
    # hops): the repair answers with the centralized plan, and A stops travelling
    net = Network.build(
        range(5), [(i, i + 1) for i in range(4)], {"A": (2.0, [0]), "B": (40.0, [1, 2, 3, 4])}
    )
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})])
    plan = plan_workload(net, wl)
    assert plan.multi_node == {"SEQ(A, B)": "B"}
    change = {"time": 10.0, "kind": "set-rate", "type": "B", "rate": 0.0001}
    result = simulate(net, wl, plan, duration=30.0, seed=2, changes=[change])
    (report,) = result.changes
    assert report["invalid_multi_node"] == ["SEQ(A, B)"]
    assert report["repaired_psi"] == pytest.approx(0.0001 * 10)
    assert report["used"] == "centralized"
    # The old plan sends every A over all 4 links until the change; afterwards no A leaves
    # node 0 and only B's rare events travel: every link carries the same A traffic (the
    # first third of the run), and B adds next to nothing
    links = result.messages_by_link
    assert links["0 1"] == links["1 2"] == links["2 3"] == links["3 4"]
    assert result.equal_to_centralized and report["lost"] == 0


def test_link_loss_with_an_alternative_path_loses_no_match():
    ring = Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0]), "B": (1.0, [2])}
    )
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(ring, wl, "centralized")
    trace = [
        make_event(1.0, "A", 0, 0),
        make_event(1.5, "B", 2, 1),
        make_event(8.0, "A", 0, 2),
        make_event(8.5, "B", 2, 3),
    ]
    used = {tuple(sorted(link)) for v in plan.vertices for link in v.forwarding}
    lost_link = sorted(used)[0]
    change = {"time": 5.0, "kind": "link-down", "link": list(lost_link)}
    result = simulate(ring, wl, plan, duration=10.0, trace=trace, changes=[change])
    assert result.matches == {"q": 2} and result.equal_to_centralized
    assert result.changes[0]["lost"] == 0
    # after the change nothing crosses the lost link
    key = f"{lost_link[0]} {lost_link[1]}"
    before = result.messages_by_link.get(key, 0)
    assert before <= 2


def test_a_message_caught_by_a_link_loss_takes_the_detour_and_its_match_waits_for_it():
    ring = Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0]), "B": (100.0, [2])}
    )
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(ring, wl, "centralized")
    assert plan.centralized_node == 2  # A travels 0-1-2, D = 2
    trace = [make_event(4.5, "A", 0, 0), make_event(5.0, "B", 2, 1)]
    # A reaches node 1 at 5.5, after link 1-2 went down at 5.0: it detours 1-0-5-4-3-2
    # (5 links, latency 5) and reaches node 2 at 10.5, long after the old release at 5 + 2
    change = {"time": 5.0, "kind": "link-down", "link": [1, 2]}
    result = simulate(ring, wl, plan, duration=12.0, trace=trace, changes=[change])
    assert result.late == 0
    assert result.matches == {"q": 1} and result.equal_to_centralized
    assert result.changes[0]["lost"] == 0
    assert result.messages == 1 + 5
    # the sink's D grew to the detoured path (1 + 5): the match is released at 5.0 + 6
    assert result.latency["q"]["max"] == pytest.approx(6.0)


def test_changes_outside_the_run_are_refused():
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(PATH, wl, "centralized")
    with pytest.raises(InevError, match="time must be inside the run"):
        simulate(
            PATH,
            wl,
            plan,
            duration=5.0,
            changes=[{"time": 9.0, "kind": "set-rate", "type": "A", "rate": 2.0}],
        )


def test_simulate_command_with_changes(run_cli, tmp_path, write_json):
    from inev.topologies.io import save_network
    from inev.workloads.io import save_workload

    net, wl = small_instance(3, 3, 0, 0, 1)
    save_network(net, tmp_path / "n.json")
    save_workload(wl, tmp_path / "w.json")
    a, b = net.types[0], net.types[1]
    changes = write_json(
        "c.json",
        {
            "format": "inev-changes/1",
            "changes": [{"time": 2.0, "kind": "swap-rates", "types": [a, b]}],
        },
    )
    code, _out, err = run_cli(
        "simulate",
        tmp_path / "n.json",
        tmp_path / "w.json",
        "--method",
        "inev",
        "--duration",
        "4",
        "--changes",
        changes,
        "-o",
        tmp_path / "s.json",
    )
    assert code == 0, err
    document = json.loads((tmp_path / "s.json").read_text())
    assert document["changes"][0]["time"] == 2.0
    assert {"broken_psi", "repaired_psi", "messages_before", "messages_after", "lost"} <= set(
        document["changes"][0]
    )
    bad = write_json(
        "bad.json", {"format": "inev-changes/1", "changes": [{"time": 1.0, "kind": "meteor"}]}
    )
    code, _, err = run_cli(
        "simulate",
        tmp_path / "n.json",
        tmp_path / "w.json",
        "--method",
        "inev",
        "--duration",
        "4",
        "--changes",
        bad,
        "-o",
        tmp_path / "t.json",
    )
    assert code == 1 and "unknown kind 'meteor'" in err and not (tmp_path / "t.json").exists()


def test_a_plan_without_its_centralized_node_is_measured_against_the_derived_one(tmp_path, run_cli):
    # a plan built from another planner's combination (build_plan) carries no centralized
    # node: the simulator derives it, so the ratio is the one of the full plan, not inf
    from dataclasses import replace

    from inev.planner.inev_graph import save_plan
    from inev.topologies.io import save_network
    from inev.workloads.io import save_workload

    net = generate_network(nodes=12, out_degree=3, event_types=4, skew=1.3, node_ratio=0.5, seed=1)
    wl = generate_workload(net, queries=1, length=3, selectivity=0.1, seed=1)
    full = plan_workload(net, wl)
    bare = replace(full, centralized_node=None, centralized_cost=0.0)
    a = simulate(net, wl, full, duration=2.0, seed=3)
    b = simulate(net, wl, bare, duration=2.0, seed=3)
    assert b.centralized_messages == a.centralized_messages > 0
    assert b.ratio == a.ratio < 1
    files = [tmp_path / "n.json", tmp_path / "w.json", tmp_path / "p.json"]
    save_network(net, files[0])
    save_workload(wl, files[1])
    save_plan(bare, files[2])
    code, _out, err = run_cli(
        "simulate", *files, "--duration", "2", "--seed", "3", "-o", tmp_path / "s.json"
    )
    assert code == 0, err
    assert json.loads((tmp_path / "s.json").read_text())["ratio"] == pytest.approx(a.ratio)
