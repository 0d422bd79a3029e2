"""Load shedding end to end: no false positives, the latency bound, pSPICE's choices, CLI."""

from __future__ import annotations

import json
import math
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.cli import cli, main
from inev.simulator.engine.engine import Engine, OrderPlan
from inev.simulator.engine.events import make_event
from inev.simulator.engine.shedding import shedders
from inev.simulator.engine.shedding.node_queue import Processor
from inev.simulator.engine.shedding.quality import run_node, run_overload

PATTERNS = ["SEQ(A, B, C)", "SEQ(A, NSEQ(B, E, C))", "AND(A, B, C)", "SEQ(A, KL(B), C)"]


def stream(n: int, weights: dict[str, float], seed: int, rate: float = 4.0) -> list:
    rng = random.Random(seed)
    types = list(weights)
    t = 0.0
    out = []
    for i in range(n):
        t += rng.expovariate(rate)
        typ = rng.choices(types, weights=[weights[x] for x in types])[0]
        out.append(make_event(t, typ, 0, i, {"v": rng.randrange(3)}))
    return out


def factory(pattern: str, window: float, where: str | None = None):
    return lambda: {"q": Engine(pattern, window, where=where, selectivities={"A B": 0.6})}


@settings(max_examples=25, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    seed=st.integers(0, 10_000),
    load=st.sampled_from([1.3, 1.8, 3.0]),
    strategy=st.sampled_from(["pspice", "random-pm"]),
)
def test_partial_match_shedding_has_no_false_positives(pattern, seed, load, strategy):
    events = stream(600, {"A": 1, "B": 2, "C": 1, "E": 1}, seed)
    make = factory(pattern, 2.0, where="A.v == C.v" if seed % 2 else None)
    result, out = run_overload(make, events, f"auto:{1 / load}", 1.0, strategy, seed=seed)
    assert result["false_positives"] == 0
    _, ref_out, _ = run_node(make, events, math.inf)
    ref = {tuple(e.id for e in m) for m in ref_out["q"]}
    got = [tuple(e.id for e in m) for m in out["q"]]
    assert set(got) <= ref and len(got) == len(set(got))
    assert result["false_negatives"] == len(ref) - len(got)


@settings(max_examples=25, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    seed=st.integers(0, 10_000),
    load=st.sampled_from([1.2, 1.6, 2.5]),
    strategy=st.sampled_from(["pspice", "random-pm", "random-event", "type-utility"]),
)
def test_latency_bound_holds_up_to_one_service_time(pattern, seed, load, strategy):
    events = stream(800, {"A": 2, "B": 1, "C": 1, "E": 1}, seed)
    make = factory(pattern, 2.0)
    ref_proc, _, _ = run_node(make, events, math.inf)
    capacity = ref_proc.stats.work / (events[-1].time - events[0].time) / load
    # a bound of 25 mean service times (a bound of a few items would be below what the
    # per-item base cost alone needs, which no partial-match shedding can cut)
    bound = 25 * ref_proc.stats.work / ref_proc.stats.processed / capacity
    proc = Processor(make(), capacity, latency_bound=bound, shedder=strategy, safety=0.1 * bound)
    for e in events:
        proc.arrive(e, e.time)
    longest = proc.stats.max_service
    assert max(proc.stats.latencies) <= bound + longest + 1e-9
    # and the unshedded node under the same load breaks the bound by far more
    plain = Processor(make(), capacity, latency_bound=bound)
    for e in events:
        plain.arrive(e, e.time)
    assert plain.stats.violations >= proc.stats.violations


def test_pspice_drops_hopeless_partial_matches_first():
    # SEQ(A, B, C) with plan A, B, C over a skewed stream (B and C frequent, A rare): the
    # B and C events buffered in their leaves can never complete (a later A cannot precede
    # them), so pSPICE must drop them before any A or AB partial match
    rng = random.Random(3)
    events = []
    t = 0.0
    for i in range(4000):
        t += 0.25
        events.append(make_event(t, rng.choices("ABC", weights=[1, 4, 3])[0], 0, i))

    def make():
        return {"q": Engine("SEQ(A, B, C)", 3.0, plan=OrderPlan((0, 1, 2)))}

    ref_proc, _, _ = run_node(make, events, math.inf)
    capacity = ref_proc.stats.work / (events[-1].time - events[0].time) / 1.5

    drops: list[tuple[int, int]] = []  # (hopeless dropped, useful dropped) per call
    original = shedders.Shedder._drop_flat

    def spy(self, segments, scores, costs, excess, free):
        states = [_node_types(runner, node) in ({"B"}, {"C"}) for runner, node, _ in segments]
        before = [list(r.buffers[n]) for r, n, _ in segments]
        count = original(self, segments, scores, costs, excess, free)
        hopeless = useful = 0
        for (runner, node, _), old, flag in zip(segments, before, states, strict=True):
            gone = len(old) - len(runner.buffers[node])
            if gone and flag:
                hopeless += gone
            elif gone:
                useful += gone
        remaining_hopeless = sum(
            len(r.buffers[n]) for (r, n, _), f in zip(segments, states, strict=True) if f
        )
        drops.append((hopeless, useful, remaining_hopeless))
        return count

    shedders.Shedder._drop_flat = spy
    try:
        proc = Processor(make(), capacity, latency_bound=2.0, shedder="pspice", safety=0.2)
        for e in events:
            proc.arrive(e, e.time)
    finally:
        shedders.Shedder._drop_flat = original
    model_calls = drops[-len(drops) // 2 :]  # well after the first model build
    assert sum(h for h, _, _ in model_calls) > 0
    for _hopeless, useful, remaining in model_calls:
        if useful:  # a useful partial match went only once no hopeless one was left
            assert remaining == 0
    ours, _ = run_overload(make, events, capacity, 2.0, "pspice", safety=0.2)
    theirs, _ = run_overload(make, events, capacity, 2.0, "random-pm", safety=0.2)
    assert ours["false_negatives"] < theirs["false_negatives"]


def _node_types(runner, node) -> set[str]:
    plan = runner.plan
    names = "ABC"
    types: list[set[str]] = [set() for _ in range(plan.node_count)]
    for unit, leaf in plan.leaf_node.items():
        types[leaf].add(names[unit])
        for _fn, _sibling, up, _keyed in plan.paths[unit]:
            types[up].add(names[unit])
    return types[node]


@pytest.fixture
def overload_files(tmp_path):
    wl = {
        "format": "inev-workload/1",
        "window": 3.0,
        "queries": [
            {"name": "q1", "pattern": "SEQ(A, B, C)", "selectivity": {"A B": 0.5}},
            {"name": "q2", "pattern": "SEQ(A, NSEQ(B, E, C))", "weight": 2.0},
        ],
    }
    (tmp_path / "wl.json").write_text(json.dumps(wl))
    rows = ["time,type,node,id"]
    rng = random.Random(5)
    for i in range(1500):
        rows.append(f"{0.2 * i:.3f},{rng.choice('ABCE')},0,{i}")
    (tmp_path / "trace.csv").write_text("\n".join(rows) + "\n")
    return tmp_path


def test_match_cli_writes_shedding_line(overload_files):
    d = overload_files
    runner = CliRunner()
    args = ["match", str(d / "wl.json"), str(d / "trace.csv")]
    plain = runner.invoke(cli, [*args, "-o", str(d / "ref.jsonl")])
    assert plain.exit_code == 0, plain.output
    ref = [json.loads(x) for x in (d / "ref.jsonl").read_text().splitlines()]
    options = ["--capacity", "auto:0.6", "--latency-bound", "2", "--shed", "pspice"]
    res = runner.invoke(cli, [*args, "-o", str(d / "m.jsonl"), *options])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in (d / "m.jsonl").read_text().splitlines()]
    final = lines[-1]["shedding"]
    for key in (
        "strategy",
        "false_negatives",
        "false_positives",
        "bound_violations",
        "shed_partial_matches",
        "shed_events",
        "latency",
    ):
        assert key in final
    assert final["strategy"] == "pspice" and final["false_positives"] == 0
    got = {(x["query"], tuple(x["events"])) for x in lines[:-1]}
    want = {(x["query"], tuple(x["events"])) for x in ref}
    assert got <= want
    assert final["false_negatives"] == len(want) - len(got) > 0
    assert "false negatives" in res.output and "bound violations" in res.output
    again = runner.invoke(cli, [*args, "-o", str(d / "m2.jsonl"), *options])
    assert again.exit_code == 0
    assert (d / "m2.jsonl").read_text() == (d / "m.jsonl").read_text()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--shed", "pspice"], "need --capacity"),
        (["--capacity", "auto:0.5", "--shed", "random-pm"], "needs --latency-bound"),
        (["--capacity", "fast", "--latency-bound", "1"], "capacity must be"),
        (["--capacity", "2", "--latency-bound", "-1"], "latency bound must be positive"),
    ],
)
def test_match_cli_rejects_bad_overload_options(overload_files, extra, message, capsys):
    d = overload_files
    out = d / "bad.jsonl"
    with pytest.raises(SystemExit) as info:
        main(["match", str(d / "wl.json"), str(d / "trace.csv"), "-o", str(out), *extra])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()
