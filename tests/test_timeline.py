"""The simulator's time series (simulator/timeline.py) and ``inev draw --timeline``."""

from __future__ import annotations

import json

import numpy as np
import pytest
import simpy
from hypothesis import event, given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.planner.planning import plan_workload
from inev.simulator.engine.events import make_event
from inev.simulator.estimate import check_size
from inev.simulator.run import simulate
from inev.simulator.simpy_network import SimNetwork
from inev.simulator.simulation_result import load_result, result_from_dict, save_result
from inev.simulator.timeline import MAX_BINS, build_timeline, default_bin
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload


def _path_case():
    """A path 0 -(2)- 1 -(3)- 2; A at 0, B at 1, C at 2; SEQ(A, B, C) gathered at node 1."""
    net = Network.build(
        [0, 1, 2], [(0, 1, 2.0), (1, 2, 3.0)], {"A": (1.0, [0]), "B": (5.0, [1]), "C": (1.0, [2])}
    )
    sel = {"A B": 1.0, "A C": 1.0, "B C": 1.0}
    wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B, C)", sel)])
    plan = plan_workload(net, wl, "centralized")
    trace = [
        make_event(0.5, "A", 0, 1),
        make_event(1.2, "B", 1, 2),
        make_event(1.6, "C", 2, 3),
        make_event(4.3, "A", 0, 4),
        make_event(8.7, "C", 2, 5),
    ]
    return net, wl, plan, trace


def test_a_hand_checked_path_counts_each_message_in_the_bin_it_arrives_in():
    net, wl, plan, trace = _path_case()
    assert plan.centralized_node == 1  # A crosses 0-1 (latency 2), C crosses 2-1 (latency 3)
    result = simulate(net, wl, plan, duration=10.0, trace=trace, timeline_bin=1.0)
    t = result.timeline
    assert t.bin == 1.0 and t.factor == 1 and t.duration == 10.0
    # A1 arrives at 0.5 + 2 = 2.5, C3 at 1.6 + 3 = 4.6, A4 at 4.3 + 2 = 6.3 and C5 at
    # 8.7 + 3 = 11.7: after the duration, so the timeline runs on to bin 11 (12 bins)
    assert t.messages == (0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1)
    # the one match (1, 2, 3): its latest event C3 at 1.6 (bin 1); node 1 waits D = 3 (its
    # slowest input) past 1.6 before releasing it, so it is detected at 4.6 (bin 4)
    assert t.matches == (0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)
    assert t.matches_by_event_time == (0, 1) + (0,) * 10
    assert t.latency_mean[4] == pytest.approx(3.0) and t.latency_p99[4] == pytest.approx(3.0)
    assert [v for k, v in enumerate(t.latency_mean) if k != 4] == [None] * 11
    assert t.missing == (0,) * 12 and t.changes == ()
    assert sum(t.messages) == result.messages == 4


def test_a_detour_counts_each_relayed_link_when_it_is_crossed():
    net = Network.build([0, 1, 2], [(0, 1, 0.75), (1, 2, 1.5), (0, 2, 1.0)], {"A": (1.0, [0])})
    env = simpy.Environment()
    sim = SimNetwork(env, net)
    sim.bin = 0.5
    sim.down = {(0, 2)}
    sim.send(0, {0: (2,)}, payload="x", kind="A")  # 0-2 is down: 0-1 (0.75), then 1-2 (2.25)
    env.run()
    assert sim.messages == 2 and dict(sim.by_bin) == {1: 1, 4: 1}


def test_the_default_bin_is_a_round_hundredth_of_the_duration():
    assert [default_bin(d) for d in (30.0, 100.0, 7.0, 250.0, 0.003, 1e6)] == [
        0.5,
        1.0,
        0.1,
        5.0,
        0.00005,
        10_000.0,
    ]


def test_more_bins_than_the_limit_are_merged_and_their_latencies_recomputed():
    # 2,500 bins of 0.01 over a duration of 25: at least 3 must merge (0.03), and 5 make a
    # round width: 500 bins of 0.05
    messages = {k: 1 for k in range(2500)}
    detected = {0: [1.0], 1: [2.0], 2: [3.0, 10.0], 2499: [4.0]}
    t = build_timeline(0.01, 25.0, messages, detected, {0: 5}, [0.005, 24.999])
    assert t.factor == 5 and t.bin == pytest.approx(0.05) and len(t) == 500 <= MAX_BINS
    assert t.messages[0] == t.messages[-1] == 5 and sum(t.messages) == 2500
    assert t.matches[0] == 4 and t.latency_mean[0] == pytest.approx(4.0)
    assert t.latency_p99[0] == pytest.approx(np.quantile([1.0, 2.0, 3.0, 10.0], 0.99))
    assert t.matches[-1] == 1 and t.missing[0] == 1 and t.missing[-1] == 1


def test_the_timeline_survives_the_result_file_and_a_bad_one_is_refused(tmp_path):
    net, wl, plan, trace = _path_case()
    result = simulate(net, wl, plan, duration=10.0, trace=trace, timeline_bin=1.0)
    path = tmp_path / "sim.json"
    save_result(result, path)
    assert load_result(path).timeline == result.timeline
    frame = result.timeline.to_pandas()
    assert list(frame["messages"]) == list(result.timeline.messages)
    assert list(frame["start"][:3]) == [0.0, 1.0, 2.0] and frame["messages_per_time"].sum() == 4
    document = json.loads(path.read_text())
    assert len(document["timeline"]["messages"]) == 12
    document["timeline"]["matches"] = [0, 1]
    with pytest.raises(InevError, match=r"timeline: .*one entry per bin"):
        result_from_dict(document, "sim.json")
    del document["timeline"]
    assert result_from_dict(document).timeline is None  # an older result


def test_a_bin_that_is_not_positive_is_refused():
    net, wl, plan, trace = _path_case()
    with pytest.raises(InevError, match="bin must be a positive number"):
        simulate(net, wl, plan, duration=10.0, trace=trace, timeline_bin=0.0)


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    net = generate_network(nodes=int(rng.integers(4, 9)), event_types=5, seed=seed, skew=1.5)
    net = net.with_rates({t: float(rng.choice([0.5, 1.0, 2.0])) for t in net.types})
    wl = generate_workload(
        net, queries=int(rng.integers(1, 3)), length=3, selectivity=0.5, seed=seed
    )
    return net, wl, rng


def _change(kind: str, net: Network, rng):
    if kind == "link-down":
        u, v, _ = net.links[int(rng.integers(len(net.links)))]
        return [{"time": 2.0, "kind": "link-down", "link": [u, v]}]
    if kind == "node-down":
        return [
            {"time": 3.0, "kind": "node-down", "node": net.nodes[int(rng.integers(len(net.nodes)))]}
        ]
    if kind == "set-rate":
        return [{"time": 2.5, "kind": "set-rate", "type": sorted(net.types)[0], "rate": 3.0}]
    return []


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["none", "link-down", "node-down", "set-rate"]),
    width=st.sampled_from([None, 0.001, 0.05, 0.3, 2.0]),
)
def test_the_timeline_adds_up_to_the_result(seed, kind, width):
    net, wl, rng = _instance(seed)
    changes = _change(kind, net, rng)
    try:
        check_size(net, wl, 5.0, max_partial_matches=20_000, max_matches=100_000)
        plan = plan_workload(net, wl, "inev")
        result = simulate(
            net, wl, plan, duration=5.0, seed=seed, changes=changes, timeline_bin=width
        )
    except InevError as exc:
        event(f"refused: {str(exc)[:40]}")
        return
    t = result.timeline
    event("matches" if sum(result.matches.values()) else "no match")
    event("some missed" if result.missing else "none missed")
    event("merged bins" if t.factor > 1 else "bins as given")
    assert sum(t.messages) == result.messages
    assert sum(t.matches) == sum(t.matches_by_event_time) == sum(result.matches.values())
    assert sum(t.missing) == result.missing
    assert len(t) <= MAX_BINS and len(t) * t.bin >= result.duration - 1e-9
    assert [(m.time, m.kind) for m in t.changes] == [(c["time"], c["kind"]) for c in changes]
    largest = max((v["max"] for v in result.latency.values() if v["count"]), default=0.0)
    for k, n in enumerate(t.matches):  # latencies where matches were detected, and only there
        assert (t.latency_mean[k] is None) == (t.latency_p99[k] is None) == (n == 0)
        if n:
            assert 0 <= t.latency_mean[k] <= largest * (1 + 1e-9)
            assert 0 <= t.latency_p99[k] <= largest * (1 + 1e-9)
    # the bins regroup the run's latencies: the total over the bins is the total per query
    total = sum(m * n for m, n in zip(t.latency_mean, t.matches, strict=True) if n)
    expected = sum(v["mean"] * v["count"] for v in result.latency.values() if v["count"])
    assert total == pytest.approx(expected, rel=1e-8, abs=1e-9)


def test_draw_timeline_writes_a_picture_text_and_a_page(run_cli, tmp_path):
    net, wl, plan, trace = _path_case()
    sim = tmp_path / "sim.json"
    save_result(simulate(net, wl, plan, duration=10.0, trace=trace, timeline_bin=1.0), sim)
    code, out, err = run_cli("draw", sim, "--timeline", "-o", tmp_path / "t.png")
    assert (code, err) == (0, "") and out.strip() == f"draw: timeline {sim} -> {tmp_path / 't.png'}"
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run_cli("show", sim)
    assert code == 0 and "timeline: 12 bins of 1 time unit to t = 12" in out
    code, out, _ = run_cli("draw", sim, "--timeline", "--text")
    # the bins that hold something (the hand-checked case above): start, messages, detected
    rows = [line.split()[:3] for line in out.splitlines()[2:]]
    assert code == 0 and rows == [
        ["1", "0", "0"],
        ["2", "1", "0"],
        ["4", "1", "1"],
        ["6", "1", "0"],
        ["11", "1", "0"],
    ]
    code, _, _ = run_cli("draw", sim, "--timeline", "-o", tmp_path / "t.html")
    page = (tmp_path / "t.html").read_text()
    assert code == 0 and page.startswith("<!DOCTYPE html>") and "<svg" in page
    # a change is listed (and drawn) with its kind and what it touched
    change = [{"time": 5.0, "kind": "set-rate", "type": "B", "rate": 6.0}]
    save_result(simulate(net, wl, plan, duration=10.0, trace=trace, changes=change), sim)
    code, out, _ = run_cli("draw", sim, "--timeline", "--text")
    assert code == 0 and "change at 5: set-rate B=6" in out.splitlines()
    assert run_cli("draw", sim, "--timeline", "-o", tmp_path / "c.svg")[0] == 0


def test_draw_timeline_refuses_a_result_without_one_and_other_files(run_cli, tmp_path):
    net, wl, plan, trace = _path_case()
    document = simulate(net, wl, plan, duration=10.0, trace=trace).to_dict()
    del document["timeline"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document))
    code, out, err = run_cli("draw", old, "--timeline", "-o", tmp_path / "t.png")
    assert code != 0 and out == "" and err.startswith("error: ") and "has no timeline" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "t.png").exists()
    code, _, err = run_cli("draw", old, "--timeline", "--logical", "-o", tmp_path / "t.png")
    assert code != 0 and "one of --logical, --vs and --timeline" in err


def test_a_streamed_trace_has_a_timeline_without_the_missed_matches(run_cli, tmp_path):
    from inev.planner.inev_graph import save_plan
    from inev.topologies.io import save_network
    from inev.workloads.io import save_workload

    net, wl, plan, trace = _path_case()
    save_network(net, tmp_path / "net.json")
    save_workload(wl, tmp_path / "wl.json")
    save_plan(plan, tmp_path / "plan.json")
    rows = [f"{e.time},{e.type},{e.node},{e.id}" for e in trace]
    (tmp_path / "t.csv").write_text("time,type,node,id\n" + "\n".join(rows) + "\n")
    files = [tmp_path / n for n in ("net.json", "wl.json", "plan.json")]
    code, _, err = run_cli("simulate", *files, "--trace", tmp_path / "t.csv", "--duration", "10",
                           "--timeline-bin", "1", "-o", tmp_path / "s.json")  # fmt: skip
    assert code == 0, err
    t = load_result(tmp_path / "s.json").timeline
    # the same arrivals and detection as the hand-checked case, held in memory there
    assert t.messages == (0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1)
    assert t.matches == (0, 0, 0, 0, 1) + (0,) * 7 and t.missing is None
