"""Replay at trace scale: streamed match and simulate, size checks before and during a run."""

from __future__ import annotations

import doctest
import json

import pytest

import inev.simulator.engine.replay as replay_module
import inev.simulator.engine.size as size_module
import inev.simulator.simulation_result as result_module
from inev.common.errors import InevError
from inev.common.traces import scan_trace
from inev.planner.planning import plan_workload
from inev.simulator.engine.replay import ordered_chunks, prepare
from inev.simulator.engine.size import SizeGuard, check_trace_size, estimate_from_scan, scan_for
from inev.simulator.engine.trace import read_trace
from inev.simulator.run import TraceStream, simulate
from inev.topologies.from_trace import network_from_scan
from inev.topologies.trace_generator import TraceOptions, generate_trace_file
from inev.workloads.estimate import estimate_selectivities
from inev.workloads.io import save_workload
from inev.workloads.workload import Query, Workload

CHAIN = "A.bid == B.bid AND B.bid == C.bid"


@pytest.mark.parametrize("module", [replay_module, size_module, result_module])
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A small keyed trace study: trace, measured network, estimated workload, plan."""
    folder = tmp_path_factory.mktemp("study")
    path = folder / "trace.csv"
    options = TraceOptions(
        nodes=8, types=3, events=3000, duration=6.0, skew=1.0, profile="diurnal",
        period=1.0, keys=150, key_name="bid", seed=2,
    )  # fmt: skip
    generate_trace_file(options, path)
    network = network_from_scan(scan_trace(path), seed=1, link_latency=0.01)
    queries = [
        Query.build("q1", "SEQ(A, B, C)", where=CHAIN),
        Query.build("q2", "AND(A, B, C)", where=CHAIN),
    ]
    workload = estimate_selectivities(Workload.build(1.0, queries), path).workload
    plan = plan_workload(network, workload, "inev")
    return folder, path, network, workload, plan


def _stream(workload, path):
    prepared = prepare(workload, path)
    s = prepared.scan
    return TraceStream(lambda: ordered_chunks(prepared), s.end, s.rows, s.skipped, s.start)


def test_streamed_replay_equals_the_in_memory_replay(study):
    _, path, network, workload, plan = study
    streamed = simulate(network, workload, plan, duration=6.0, trace=_stream(workload, path))
    events = list(read_trace(path))
    held = simulate(network, workload, plan, duration=streamed.duration, trace=events)
    assert streamed.equal_to_centralized and held.equal_to_centralized
    assert sum(streamed.matches.values()) > 50  # the keys leave real work
    for field in (
        "events", "messages", "messages_by_type", "messages_by_link", "matches",
        "centralized_matches", "centralized_messages", "latency", "partial_matches",
    ):  # fmt: skip
        assert getattr(streamed, field) == getattr(held, field), field


def test_a_streamed_run_keeps_only_the_matches_in_flight(study, monkeypatch):
    _, path, network, workload, plan = study
    import inev.simulator.run as run

    sizes = []
    original = run.MatchBalance.expect

    def spy(self, key):
        original(self, key)
        sizes.append(len(self))

    monkeypatch.setattr(run.MatchBalance, "expect", spy)
    result = simulate(network, workload, plan, duration=6.0, trace=_stream(workload, path))
    total = sum(result.centralized_matches.values())
    assert len(sizes) == total
    # both sides find each match within a few link latencies: the balance stays small
    assert max(sizes) < total / 5


def test_size_estimate_counts_per_key_and_refuses_naming_query_and_knob(tmp_path):
    path = tmp_path / "t.csv"
    # 40 A and 40 B within one window, keys 0..3: 4 x 10 x 10 = 400 pairs, not 1600
    rows = [f"{i * 0.01},{'AB'[i % 2]},0,{i},{(i // 2) % 4}" for i in range(80)]
    path.write_text("time,type,node,id,k\n" + "\n".join(rows) + "\n")
    keyed = Workload.build(1.0, [Query.build("q", "AND(A, B)", where="A.k == B.k")])
    plain = Workload.build(1.0, [Query.build("q", "AND(A, B)", where="A.k <= B.k")])
    assert estimate_from_scan(keyed, scan_for(keyed, path)).partial_matches["q"] == pytest.approx(
        400
    )
    assert estimate_from_scan(plain, scan_for(plain, path)).partial_matches["q"] == pytest.approx(
        1600
    )
    check_trace_size(keyed, scan_for(keyed, path), "t.csv", max_partial_matches=500)
    with pytest.raises(InevError) as info:
        check_trace_size(plain, scan_for(plain, path), "t.csv", max_partial_matches=500)
    message = str(info.value)
    assert message.startswith("query q: about 1.6e+03 partial matches in the busiest window")
    assert "shorten the window, or join on a key" in message and "guard=False" in message


def test_the_guard_stops_a_run_that_outgrows_its_limit():
    from inev.simulator.engine.engine import Engine
    from inev.simulator.engine.events import make_event

    engine = Engine("AND(A, B)", 100.0)
    guard = SizeGuard({"q": engine}, 100.0, limit=50, every=10)
    with pytest.raises(InevError, match=r"query q: \d+ partial matches held at time 59"):
        for i in range(200):
            engine.push(make_event(float(i), "AB"[i % 2], 0, i))
            guard.tick(float(i))


def test_match_cli_refuses_before_running_and_runs_with_no_size_check(
    tmp_path, run_cli, monkeypatch
):
    path = tmp_path / "t.csv"
    rows = [f"{i * 0.01},{'AB'[i % 2]},0,{i}" for i in range(80)]
    path.write_text("time,type,node,id\n" + "\n".join(rows) + "\n")
    wl = tmp_path / "wl.json"
    save_workload(Workload.build(1.0, [Query.build("q", "AND(A, B)")]), wl)
    out = tmp_path / "m.jsonl"
    monkeypatch.setattr(size_module, "MAX_PARTIAL_MATCHES", 100)
    code, _, err = run_cli("match", wl, path, "-o", out)
    assert code == 1 and err.startswith("error: query q: about 1.6e+03 partial matches")
    assert not out.exists()
    code, _stdout, err = run_cli("match", wl, path, "-o", out, "--no-size-check")
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 1600
    assert err == ""  # no progress bar when stderr is not a terminal


def test_unsorted_traces_are_sorted_in_memory_up_to_a_limit(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    path.write_text("time,type,node,id\n2,B,0,2\n1,A,0,1\n")
    wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)")])
    prepared = prepare(wl, path)
    assert [e.id for c in ordered_chunks(prepared) for e in c] == [1, 2]
    monkeypatch.setattr(replay_module, "SORT_LIMIT", 1)
    with pytest.raises(InevError, match="line 3 goes back in time: a trace of 2 rows must be"):
        prepare(wl, path)


def test_simulate_cli_replays_a_trace_and_reports_ignored_events(study, tmp_path, run_cli):
    _folder, path, network, workload, plan = study
    from inev.planner.inev_graph import save_plan
    from inev.topologies.io import save_network

    extra = tmp_path / "with-z.csv"
    lines = path.read_text().splitlines()
    extra.write_text("\n".join([*lines, f"6.5,Z,0,{10**6},1", ""]) + "\n")
    files = [tmp_path / "n.json", tmp_path / "w.json", tmp_path / "p.json"]
    save_network(network, files[0])
    save_workload(workload, files[1])
    save_plan(plan, files[2])
    out = tmp_path / "sim.json"
    code, stdout, err = run_cli("simulate", *files, "--trace", extra, "-o", out)
    assert code == 0, err
    assert "equal=true" in stdout and "ignored=1 skipped_lines=1" in stdout
    document = json.loads(out.read_text())
    assert document["trace_ignored"] == 1 and document["duration"] == 6.5
    assert err == ""


def test_the_readme_example_runs_end_to_end(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / "trace_walkthrough.py"
    spec = importlib.util.spec_from_file_location("trace_walkthrough", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.run(tmp_path / "walk", events=4000, keys=200)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("method=inev messages=") and "equal=true" in last
    assert json.loads((tmp_path / "walk" / "sim.json").read_text())["equal_to_centralized"]


def test_a_simulation_that_outgrows_the_guard_stops_naming_the_query(study, monkeypatch):
    _, path, network, workload, plan = study
    monkeypatch.setattr(size_module, "MAX_HELD", 10)
    monkeypatch.setattr(size_module, "CHECK_EVERY", 100)
    for trace in (_stream(workload, path), list(read_trace(path))):
        with pytest.raises(InevError, match=r"^query q\d: [\d,]+ partial matches held at time"):
            simulate(network, workload, plan, duration=6.0, trace=trace)


def _shed_trace(path, events: int = 2000) -> None:
    """Issue 26's stream (times i x 0.01; A-D weighted 4:3:2:1; x in 0..19; seed 9)."""
    import random

    rng = random.Random(9)
    rows = ["time,type,node,id,x"]
    for i in range(events):
        typ = rng.choices("ABCD", weights=[4, 3, 2, 1])[0]
        rows.append(f"{i * 0.01:.2f},{typ},0,{i},{rng.randint(0, 19)}")
    path.write_text("\n".join(rows) + "\n")


def test_the_size_check_is_a_memory_budget(tmp_path, monkeypatch):
    # SEQ(A, B, C, D) where A.x < D.x over window 0.5: about 9.6e5 partial matches in the
    # busiest window (the busiest A, B, C, D counts' product), in up to 7 buffers of 172
    # bytes each: 1.1 GiB. It fits the budget of an 8 GiB machine (4 GiB) but not that of a
    # 1 GiB one (512 MiB); a fixed count of 1e6 had refused it everywhere at 1.4e6
    path = tmp_path / "t.csv"
    _shed_trace(path)
    wl = Workload.build(0.5, [Query.build("q", "SEQ(A, B, C, D)", where="A.x < D.x")])
    scan = scan_for(wl, path)
    estimate = estimate_from_scan(wl, scan).partial_matches["q"]
    assert estimate == pytest.approx(959616)
    monkeypatch.setenv("INEV_MAX_MEMORY", "8G")
    check_trace_size(wl, scan, "t.csv")
    monkeypatch.setenv("INEV_MAX_MEMORY", "1G")
    with pytest.raises(InevError) as info:
        check_trace_size(wl, scan, "t.csv")
    message = str(info.value)
    assert message.startswith("query q: about 9.6e+05 partial matches")
    assert "would take about 1.08 GiB" in message
    assert "over the 512 MiB the size check allows" in message
    assert "INEV_MAX_MEMORY sets it" in message and "guard=False" in message


def test_greta_queries_are_sized_by_their_graph_not_their_trends(tmp_path, run_cli):
    # one window with an A, 80 B and a C: 2^80 - 1 trends, 82 GRETA vertices. The default
    # size check lets the count run (exact), and still refuses to enumerate the trends
    rows = ["time,type,node,id", "0.0,A,0,0"]
    rows += [f"{0.01 * i:.2f},B,0,{i}" for i in range(1, 81)]
    rows.append("0.9,C,0,81")
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    counted = tmp_path / "count.json"
    listed = tmp_path / "list.json"
    counted.write_text(
        json.dumps(
            {
                "format": "inev-workload/1",
                "window": 1.0,
                "queries": [{"name": "t", "pattern": "SEQ(A, KL(B), C)", "return": "COUNT(*)"}],
            }
        )
    )
    listed.write_text(json.dumps({
        "format": "inev-workload/1", "window": 1.0,
        "queries": [{"name": "t", "pattern": "SEQ(A, KL(B), C)"}]}))  # fmt: skip
    out = tmp_path / "m.jsonl"
    code, _, err = run_cli("match", counted, path, "-o", out)
    assert code == 0, err
    [cell] = [json.loads(line) for line in out.read_text().splitlines()]
    assert cell["value"] == 2**80 - 1
    code, _, err = run_cli("match", listed, path, "-o", tmp_path / "n.jsonl")
    assert code == 1 and "partial matches in the busiest window" in err
    assert "Kleene type's trends double" in err and not (tmp_path / "n.jsonl").exists()


def test_match_says_which_query_types_the_trace_never_holds(tmp_path, run_cli):
    path = tmp_path / "t.csv"
    path.write_text("time,type,node,id\n0,A,0,1\n1,B,0,2\n")
    wl = tmp_path / "wl.json"
    save_workload(
        Workload.build(
            5.0,
            [
                Query.build("q", "SEQ(A, Z)"),
                Query.build("r", "OR(SEQ(A, B), SEQ(X, Y))"),
                Query.build("s", "NSEQ(A, W, B)"),
            ],
        ),
        wl,
    )
    code, out, err = run_cli("match", wl, path, "-o", tmp_path / "m.jsonl")
    assert code == 0
    assert err.splitlines() == [
        "note: query q: the trace holds no event of type Z, so it cannot match",
        "note: query r: the trace holds no event of types X, Y",
    ]
    assert "2 matches" in out  # r's first branch, and s (no W: nothing negates A, B)
