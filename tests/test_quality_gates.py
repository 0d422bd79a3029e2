"""Quality gates: each seed feature's headline figure against a floor that was measured.

A change that lowers one of these figures fails here; raising a floor is how progress is
recorded, and a floor is never lowered without saying why in the commit. Every figure is
computed by ``tests/gate_figures.py``, which prints them all (the command next to each floor
printed the figure it was measured from); ``docs/quality-gates.md`` says why each floor is
where it is.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from engine_oracle import oracle
from gate_figures import (
    GRETA_WINDOWS,
    SIM_MODEL_SEEDS,
    adaptive_figures,
    greta_closed_form,
    greta_stream,
    invariant_paper_figures,
    planner_figures,
    planner_instances,
    pspice_paper_figures,
    shedding_figures,
    sim_model_deviation,
)

from inev.planner.planning import plan_workload
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import make_event
from inev.simulator.run import simulate
from inev.workloads.expressions import parse_condition
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Workload

# ------------------------------------------------------------------------------- pSPICE
# python tests/gate_figures.py shedding  (10,000 events of issue 26's stream, bound 0.2)
#
# With the plan in pattern order (--adaptive off: the operator of the pSPICE paper, where
# partial matches that never complete cost most of the work) pSPICE lost 0.025-0.076 of
# random partial-match dropping's false negatives (0.040 / 0.051 keyed at loads 1.6 / 2.5,
# 0.025 / 0.076 unkeyed). Floor: 0.1.
PSPICE_SHARE_OF_RANDOM = 0.1
# With the invariant-adaptive engine (inev match's default) the plan evaluates D first and
# wastes little work, so every partial match is about as useful per work unit as any other
# and a shedder loses matches about in proportion to the work it must cut (so does one that
# knows every item's exact cost and every partial match's future matches, see
# benchmarks/bench_shedding_ceiling.py): pSPICE lost 0.81-0.99 of random's. Floor: 1.
PSPICE_SHARE_OF_RANDOM_ADAPTIVE = 1.0


@pytest.mark.parametrize("condition", ["keyed", "unkeyed"])
@pytest.mark.parametrize("load", [1.6, 2.5])
@pytest.mark.parametrize("adaptive", ["off", "invariant"])
def test_pspice_against_random_shedding(condition, load, adaptive):
    figures = shedding_figures(condition, adaptive, load, ("pspice", "random-pm", "random-event"))
    pspice = figures["pspice"]
    assert pspice["false_positives"] == 0 and pspice["violations"] == 0
    share = PSPICE_SHARE_OF_RANDOM if adaptive == "off" else PSPICE_SHARE_OF_RANDOM_ADAPTIVE
    for baseline in ("random-pm", "random-event"):
        assert pspice["false_negatives"] <= share * figures[baseline]["false_negatives"], baseline
    assert figures["random-pm"]["false_positives"] == 0


# python tests/gate_figures.py pspice-paper  (the paper's Fig. 5(a) setting, Q1 over a
# count-based window, 100,000 stream places, event rate 120 %, the paper's detector and a
# simulated l_s; benchmarks/bench_pspice_paper.py runs it whole)
#
# pSPICE (retraining on error, as the paper) lost 0.110 / 0.235 / 0.453 of random
# partial-match dropping's windows (W = 500 / 300 / 200, match probability 78 / 28 / 6 %),
# and less than random event dropping; no violation. Floor: 0.5.
PSPICE_PAPER_SHARE_OF_RANDOM = 0.5


def test_pspice_paper_q1_against_random_shedding():
    for w, figures in pspice_paper_figures().items():
        pspice = figures["pspice"]
        assert pspice["violations"] == 0 and pspice["false_positives"] == 0, w
        for baseline in ("random-pm", "random-event"):
            limit = PSPICE_PAPER_SHARE_OF_RANDOM * figures[baseline]["window_fn"]
            assert pspice["window_fn"] <= limit, (w, baseline)


# ------------------------------------------------------------------------------- GRETA
def _greta_run(tmp_path, run_cli, rows, window, slide):
    trace = tmp_path / "t.csv"
    trace.write_text("time,type,node,id\n" + "\n".join(rows) + "\n")
    workload = tmp_path / "wl.json"
    workload.write_text(
        json.dumps(
            {
                "format": "inev-workload/1",
                "window": window,
                "slide": slide,
                "queries": [{"name": "t", "pattern": "SEQ(A, KL(B), C)", "return": "COUNT(*)"}],
            }
        )
    )
    out = tmp_path / "m.jsonl"
    code, _, err = run_cli("match", workload, trace, "-o", out)  # the default size check
    assert code == 0, err
    cells = [json.loads(line) for line in out.read_text().splitlines()]
    return {round(c["window_start"], 9): c["value"] for c in cells}


@pytest.mark.parametrize(("window", "slide"), GRETA_WINDOWS)
def test_greta_counts_equal_the_closed_form(tmp_path, run_cli, window, slide):
    # 10 random streams of 60 events (ABBBC): up to 2^25 trends in a window, every count
    # exact. Floor: all windows equal.
    for seed in range(10):
        stream = greta_stream(seed)
        rows = [f"{t},{e},0,{i}" for i, (t, e) in enumerate(stream)]
        got = _greta_run(tmp_path, run_cli, rows, window, slide)
        expected = greta_closed_form(stream, window, slide)
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}
        assert all(expected.get(k, 0) == v for k, v in got.items()), seed


def test_greta_counts_2_to_the_80_trends_with_the_default_size_check(tmp_path, run_cli):
    rows = ["0.0,A,0,0", *(f"{0.01 * i:.2f},B,0,{i}" for i in range(1, 81)), "0.9,C,0,81"]
    assert _greta_run(tmp_path, run_cli, rows, 1.0, 1.0) == {0.0: 2**80 - 1}


# ------------------------------------------------------------------------------- engine
# Floor: every instance equal to the brute-force oracle, for every operator, keyed (an
# equality between two types) and unkeyed (an order predicate), with static greedy and
# ZStream plans and the invariant-adaptive engine.
ENGINE_PATTERNS = {
    "SEQ": "SEQ(A, B, C)",
    "AND": "AND(A, B, C)",
    "OR": "OR(SEQ(A, C), AND(B, D))",
    "KL": "SEQ(A, KL(B), C)",
    "NSEQ": "SEQ(A, NSEQ(B, D, C))",
}
ENGINE_WHERE = {"keyed": "A.v == C.v", "unkeyed": "A.v < C.v"}


@pytest.mark.parametrize("operator", list(ENGINE_PATTERNS))
@pytest.mark.parametrize("where", list(ENGINE_WHERE))
def test_engine_equals_brute_force_on_every_operator(operator, where):
    pattern = ENGINE_PATTERNS[operator]
    condition = ENGINE_WHERE[where]
    if operator == "OR":  # a condition per branch (each applies where its types are)
        condition += " AND " + condition.replace("A.v", "B.v").replace("C.v", "D.v")
    engines = {
        "greedy": {"plan": "greedy"},
        "zstream": {"plan": "zstream"},
        "invariant": {
            "adaptation": Adaptation("invariant", distance=0.0, check_every=4, span=3.0),
        },
    }
    equal = Counter()
    for seed in range(8):
        rng = random.Random(seed)
        events = []
        t = 0.0
        for i in range(40):
            t += rng.uniform(0.1, 1.0)
            events.append(make_event(t, rng.choice("ABCD"), 0, i, {"v": rng.randint(0, 3)}))
        expected = oracle(Engine(pattern, 4.0).pattern, events, 4.0, {}, parse_condition(condition))
        for name, options in engines.items():
            engine = Engine(pattern, 4.0, where=condition, **options)
            found = [m for e in events for m in engine.push(e)] + engine.flush()
            got = Counter(tuple(e.id for e in m) for m in found)
            equal[name] += set(got) == expected and all(v == 1 for v in got.values())
    assert equal == {name: 8 for name in engines}


# ------------------------------------------------------------------------------- planner
# python tests/gate_figures.py planner   (12 frozen instances, 15-60 nodes, 1-6 queries)
# The ratio ψ / centralized of each instance may not rise above its record in
# tests/fixtures/quality_gates/planner.json; a lower one must be recorded in the same commit
# (python tests/gate_figures.py planner --update). Never above centralized (1), isolated or
# PPoP on the same instance.
INSTANCES = planner_instances()


@pytest.mark.parametrize("instance", INSTANCES, ids=[i["name"] for i in INSTANCES])
def test_planner_ratios_never_rise(instance):
    figures = planner_figures(instance)
    ratio, recorded = figures["inev"], instance["inev_ratio"]
    assert ratio <= recorded * (1 + 1e-9), f"{instance['name']}: {ratio} > record {recorded}"
    assert ratio >= recorded * (1 - 1e-9), (
        f"{instance['name']}: {ratio} improves on {recorded}: record it with "
        "python tests/gate_figures.py planner --update"
    )
    assert ratio <= min(1.0, figures["isolated"], figures["ppop"]) * (1 + 1e-9)


# ------------------------------------------------------------------------------- simulator
# python tests/gate_figures.py simulator  (AND workloads, 30 events per time unit, 300 time
# units): centralized, inev and isolated plans sent 2,274-29,573 messages, within 6.5 % of
# ψ · duration (largest: -0.065). Floor: 10 % (Poisson noise of the smallest run is 2 %).
MODEL_BAND = 0.1


@pytest.mark.parametrize("seed", SIM_MODEL_SEEDS)
@pytest.mark.parametrize("method", ["centralized", "inev", "isolated"])
def test_simulated_messages_follow_psi_where_the_model_holds(seed, method):
    figures = sim_model_deviation(seed, method)
    assert figures["equal"]
    assert abs(figures["deviation"]) <= MODEL_BAND


def test_simulated_matches_equal_centralized_on_every_operator_and_method():
    # 6 generated instances with SEQ, Kleene and negation, each planned by every method:
    # floor, all equal
    from inev.simulator.sources import rescale_rates
    from inev.topologies.generate import generate_network

    equal = 0
    runs = 0
    for seed in range(6):
        net = generate_network(nodes=12, event_types=5, skew=1.3, node_ratio=0.5, seed=seed)
        wl = generate_workload(
            net, queries=2, length=3, selectivity=0.3, kleene=seed % 2, negation=seed % 3 == 0,
            seed=seed,
        )  # fmt: skip
        wl = Workload.build(wl.window, list(wl.queries))
        net = rescale_rates(net, wl.types, 8.0)
        for method in ("inev", "centralized", "isolated", "ppop"):
            result = simulate(net, wl, plan_workload(net, wl, method), duration=20.0, seed=seed)
            equal += result.equal_to_centralized
            runs += 1
    assert equal == runs


# ------------------------------------------------------------------------------- adaptivity
# python tests/gate_figures.py adaptivity  (AND(A, B, C, D), 12,000 events, the rates reverse
# half way): the invariant method with its default distance (auto: per invariant, from the
# statistics' noise) re-optimised once and did 0.700 of the work of the best of the 24 static
# order-based plans (it follows the swap; no static plan can); with the mean-gap distance it
# re-optimised twice for 0.939. Floor: 0.75.
ADAPTIVE_SHARE_OF_BEST_STATIC = 0.75


def test_invariant_adaptation_beats_every_static_plan_under_drift():
    figures = adaptive_figures()
    assert figures["reoptimizations"] >= 1 and figures["plan_changes"] >= 1
    assert figures["ratio"] <= ADAPTIVE_SHARE_OF_BEST_STATIC
    assert figures["static_matches"] == {figures["matches"]}


# ------------------------------------------------------------------------- invariant paper
# python tests/gate_figures.py invariant-paper  (drift_streams, 20,000 events, seed 1,
# greedy): work units of the invariant method with its defaults against the static plan
# and against the threshold method at its least-work threshold of the grid 0.1 … 2.0:
# rate-swap 0.350x static, 1.000x (t = 2.0), 1 plan change after the reversal;
# traffic-like 0.152x static, 1.027x (t = 1.0), 3 plan changes; stocks-like 1.061x
# (t = 0.1); stationary 0 plan changes. CPU (benchmarks/bench_invariant_paper.py) follows
# the work where methods differ, and is noise where they do not.
INVARIANT_PAPER = {
    # stream: (share of static's work, share of the least-work threshold's, changes at least)
    "rate-swap": (0.36, 1.0, 1),
    "traffic-like": (0.16, 1.03, 1),
    "stocks-like": (1.0, 1.07, 0),
}


@pytest.mark.parametrize("stream", sorted(INVARIANT_PAPER))
def test_invariant_method_follows_the_drift_streams(stream):
    of_static, of_threshold, changes = INVARIANT_PAPER[stream]
    f = invariant_paper_figures(stream)
    assert len(f["matches"]) == 1
    assert f["of_static"] <= of_static
    assert f["of_threshold"] <= of_threshold
    assert f["plan_changes"] >= changes


def test_invariant_method_keeps_its_plan_on_a_stationary_stream():
    f = invariant_paper_figures("stationary")
    assert len(f["matches"]) == 1 and f["plan_changes"] == 0


# ------------------------------------------------------------------------------- size check
def test_issue_26s_unkeyed_run_fits_the_default_size_check(tmp_path, run_cli, monkeypatch):
    # SEQ(A, B, C, D) where A.x < D.x over 20,000 events: about 1.4e6 partial matches in the
    # busiest window, 1.7 GB at most, on a machine of 8 GiB (the run itself takes 300 MB).
    # A fixed limit of 1e6 partial matches refused it.
    from gate_figures import SHED_QUERIES, shedding_stream

    monkeypatch.setenv("INEV_MAX_MEMORY", "8G")
    trace = tmp_path / "t.csv"
    rows = [f"{e.time},{e.type},0,{e.id},{e.attrs['x']}" for e in shedding_stream(20_000)]
    trace.write_text("time,type,node,id,x\n" + "\n".join(rows) + "\n")
    workload = tmp_path / "wl.json"
    workload.write_text(
        json.dumps(
            {
                "format": "inev-workload/1",
                "window": 0.5,
                "queries": [
                    {"name": "q", "pattern": "SEQ(A, B, C, D)", "where": SHED_QUERIES["unkeyed"]}
                ],
            }
        )
    )
    code, out, err = run_cli("match", workload, trace, "-o", tmp_path / "m.jsonl")
    assert code == 0, err
    assert "match: 449678 matches" in out
