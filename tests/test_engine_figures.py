"""The local engines' papers' figures in ``inev reproduce`` (issue 49): the verdict logic on
hand-made tables, the reproduce path at --quick scale, and the error promise."""

from __future__ import annotations

import json

import pytest

from inev.common.errors import InevError
from inev.experiments.engine_figures import choose_engine, engine_figures
from inev.experiments.engine_figures.greta import events_judge
from inev.experiments.engine_figures.invariant import compare_judge, fig5_judge
from inev.experiments.engine_figures.model import Measured, every_verdict
from inev.experiments.engine_figures.pspice import fig5_judge as pspice5_judge
from inev.experiments.engine_figures.pspice_latency import compute as pspice8_compute
from inev.experiments.engine_figures.pspice_latency import judge as pspice8_judge
from inev.experiments.engine_figures.pspice_overhead import compute as pspice9_compute
from inev.experiments.engine_figures.pspice_overhead import judge as pspice9_judge
from inev.experiments.engine_figures.pspice_time import compute as pspice7_compute
from inev.experiments.engine_figures.pspice_time import judge as pspice7_judge
from inev.experiments.reproduce import RunOptions, reproduce, split_names


def _compare_rows(inv_x_static: float, thr_x_static: float) -> tuple[dict, ...]:
    """One pattern size: static 1, invariant and best threshold at the given gains, always 0.5."""
    gains = {"static": 1.0, "invariant": inv_x_static, "always": 0.5}
    gains["threshold (best)"] = thr_x_static
    changes = {"static": 0, "invariant": 2, "always": 9, "threshold (best)": 3}
    overhead = {"static": 0.0, "invariant": 0.01, "always": 0.11, "threshold (best)": 0.02}
    return tuple(
        {
            "size": 4,
            "role": role,
            "x static": g,
            "plan changes": changes[role],
            "overhead": overhead[role],
        }
        for role, g in gains.items()
    )


def test_traffic_judge_on_hand_made_numbers():
    # invariant 7x static, best threshold 1x static: 7x the threshold -> the peak claim holds
    verdicts = compare_judge("traffic")(Measured((), _compare_rows(7.0, 1.0), ""))
    assert [v.holds for v in verdicts] == [True, True, True, True, True, True, True]
    assert verdicts[3].measured == "n=4: 7 (needs >= 6 at one point at least)"
    # invariant 0.9x the best threshold: below the 0.95 noise floor, and far from 6x
    verdicts = compare_judge("traffic")(Measured((), _compare_rows(1.8, 2.0), ""))
    assert [v.holds for v in verdicts] == [False, True, True, False, True, True, True]
    assert verdicts[0].measured == "n=4: 0.9 (needs >= 0.95 at every point)"


def test_stocks_judge_needs_the_static_plan_above_always():
    verdicts = compare_judge("stocks")(Measured((), _compare_rows(1.4, 1.0), ""))
    texts = {v.text: v.holds for v in verdicts}
    assert texts["(b) invariant over the best constant threshold (about 30-60 %)"] is True
    assert texts["(b) the static plan's throughput over the unconditional method's"] is True
    assert len(verdicts) == 8


def test_fig5_judge_picks_the_d_best_at_most_sizes():
    rows = [
        {"data": "traffic", "plan": "greedy", "size": n, "d": d, "x d=0": x}
        for n, xs in ((4, (1.0, 2.5, 2.0)), (5, (1.0, 3.0, 1.0)), (6, (1.0, 1.9, 2.0)))
        for d, x in zip((0.0, 0.1, 0.5), xs, strict=True)
    ]
    near, gain = fig5_judge(Measured((), tuple(rows), ""))
    assert "d_opt = 0.1" in near.text and near.holds  # 1.9 / 2.0 = 0.95 at n = 6
    assert gain.measured == "n=4: 2.5, n=5: 3, n=6: 1.9 (needs >= 2 at every point)"
    assert not gain.holds


def test_pspice_judge_counts_only_match_probabilities_up_to_80_percent():
    rows = []
    for q in ("Q1", "Q3"):
        for p, mine, pm in ((0.1, 5.0, 9.0), (0.5, 10.0, 12.0), (0.9, 30.0, 20.0)):
            rows += [
                {"query": q, "strategy": "pSPICE", "match p": p, "rate": 1.2, "FN %": mine,
                 "violations": 0},
                {"query": q, "strategy": "PM-BL", "match p": p, "rate": 1.2, "FN %": pm,
                 "violations": 1},
            ]  # fmt: skip
    verdicts = pspice5_judge(Measured((), tuple(rows), ""))
    assert [v.holds for v in verdicts] == [True, True, True, True, True]
    assert verdicts[0].measured == "p=0.1: -4, p=0.5: -2 (needs < 0 at every point)"
    rows[0] = {**rows[0], "violations": 2}  # one pSPICE violation fails the bound claim
    assert not pspice5_judge(Measured((), tuple(rows), ""))[-1].holds


def _pspice7_rows(fn: dict[int, tuple[float, float]], violations: int = 0) -> tuple[dict, ...]:
    """FN % of pSPICE and pSPICE-- per factor."""
    return tuple(
        {"factor": f, "strategy": s, "FN %": v, "violations": violations}
        for f, pair in fn.items()
        for s, v in zip(("pSPICE", "pSPICE--"), pair, strict=True)
    )


def test_pspice7_judge_holds_on_the_papers_shape():
    # the same at 1 (1 point apart), apart from 8 on, 23 % against 37.5 % at 16 (the paper's)
    fn = {1: (10.0, 11.0), 4: (12.0, 14.0), 8: (15.0, 22.0), 16: (23.0, 37.5)}
    verdicts = pspice7_judge(Measured((), _pspice7_rows(fn), ""))
    assert [v.holds for v in verdicts] == [True] * 5
    assert verdicts[1].measured == "ρ=8: 7, ρ=16: 14.5 (needs > 0 at every point)"
    assert verdicts[2].measured == "13.5 (needs > 0)"  # 14.5 - 1
    assert verdicts[3].measured.startswith("1.63 (needs >= 1.5)")


def test_pspice7_judge_fails_when_the_factor_changes_nothing():
    # 1.8 against 1.7 at 16 (inev's measured shape): not ahead, no growing gap, ratio 0.94
    fn = {1: (4.7, 5.8), 16: (1.8, 1.7)}
    verdicts = pspice7_judge(Measured((), _pspice7_rows(fn, violations=1), ""))
    assert [v.holds for v in verdicts] == [True, False, False, False, False]
    assert verdicts[0].measured == "1.1 (needs <= 2)"
    assert not pspice7_judge(Measured((), (), ""))[0].holds  # nothing to judge


def test_pspice7_runs_at_quick_scale():
    m = pspice7_compute(True)
    assert sorted({r["factor"] for r in m.rows}) == [1, 16]
    assert sorted({r["strategy"] for r in m.rows}) == ["PM-BL", "pSPICE", "pSPICE--"]
    for r in m.rows:
        assert 0.0 <= r["FN %"] <= 100.0
        low, high = sorted((r["Q1 FN %"], r["Q2 FN %"]))
        assert low - 1e-9 <= r["FN %"] <= high + 1e-9  # the pooled share lies between
        assert r["shed PMs"] > 0  # 120 % load: every strategy sheds
    assert len(pspice7_judge(m)) == 5


def test_pspice8_judge_needs_the_bound_kept_and_broken_without_shedding():
    def rows(mine: float, violations: int, unshed: int) -> tuple[dict, ...]:
        return tuple(
            row
            for rate in (1.2, 1.4)
            for row in (
                {"rate": rate, "strategy": "pSPICE", "max latency": mine,
                 "violations": violations},
                {"rate": rate, "strategy": "no shedding", "max latency": 50.0,
                 "violations": unshed},
            )
        )  # fmt: skip

    assert [v.holds for v in pspice8_judge(Measured((), rows(0.9, 0, 4000), ""))] == [True] * 3
    # one event at 1.2 breaks the bound; and a load nothing breaks proves nothing
    verdicts = pspice8_judge(Measured((), rows(1.2, 1, 0), ""))
    assert [v.holds for v in verdicts] == [False, False, False]
    assert verdicts[0].measured == "rate 120 %: 1.2, rate 140 %: 1.2 (needs <= 1 at every point)"


def test_pspice8_runs_at_quick_scale():
    m = pspice8_compute(True)
    assert [(r["rate"], r["strategy"]) for r in m.rows] == [
        (1.2, "pSPICE"), (1.2, "no shedding"), (1.4, "pSPICE"), (1.4, "no shedding"),
    ]  # fmt: skip
    for r in m.rows:  # every event is processed or dropped, and the order of latencies holds
        assert r["mean latency"] <= r["p99 latency"] <= r["max latency"]
    unshed = [r for r in m.rows if r["strategy"] == "no shedding"]
    assert all(r["shed PMs"] == r["dropped events"] == 0 and r["FN %"] == 0 for r in unshed)
    assert len(pspice8_judge(m)) == 3


def _pspice9_rows(overheads: dict[str, tuple[float, float]], build: tuple[float, float]):
    """Overhead % per strategy at W = 200 and 700, and pSPICE's seconds per build."""
    return tuple(
        {"window": w, "strategy": s, "overhead %": o[i],
         "s per build": build[i] if s == "pSPICE" else None}
        for s, o in overheads.items()
        for i, w in enumerate((200, 700))
    )  # fmt: skip


def test_pspice9_judge_on_the_papers_numbers_and_on_a_costly_shedder():
    # the paper's: pSPICE 1 % -> 0.7 %, PM-BL a little lower, E-BL 3 % -> 10 %; builds 1 -> 2.4 s
    paper = {"pSPICE": (1.0, 0.7), "PM-BL": (0.9, 0.6), "E-BL type": (3.0, 10.0),
             "E-BL rnd": (3.5, 11.0)}  # fmt: skip
    verdicts = pspice9_judge(Measured((), _pspice9_rows(paper, (1.0, 2.4)), ""))
    assert [v.holds for v in verdicts] == [True] * 6
    assert verdicts[3].measured == "W=200: 0.333, W=700: 0.07 (needs < 1 at every point)"
    # a shedder costing 16 % (a quick run here): PM-BL not below it, 4-5x E-BL, builds faster
    costly = {"pSPICE": (16.0, 11.3), "PM-BL": (16.3, 12.8), "E-BL type": (3.6, 4.3),
              "E-BL rnd": (3.1, 2.8)}  # fmt: skip
    verdicts = pspice9_judge(Measured((), _pspice9_rows(costly, (0.0017, 0.0003)), ""))
    assert [v.holds for v in verdicts] == [False, True, False, False, True, False]


def test_pspice9_runs_at_quick_scale():
    m = pspice9_compute(True)
    assert sorted({r["window"] for r in m.rows}) == [200, 400]
    for r in m.rows:
        assert 0.0 <= r["overhead %"] < 100.0 and 0.0 < r["shedder s"] < r["run s"]
        assert (r["builds"] > 0) == (r["strategy"] == "pSPICE")
    assert len(pspice9_judge(m)) == 6


def test_greta_judge_takes_a_stopped_baseline_as_a_lower_bound():
    rows = (
        {"stream": "s", "events/window": 1000, "two-step": "finished", "speed-up": 300.0,
         "memory ratio": 60.0},
        {"stream": "s", "events/window": 10000, "two-step": "stopped > 60 s",
         "speed-up": -20000.0, "memory ratio": None},
    )  # fmt: skip
    assert [v.holds for v in events_judge(Measured((), rows, ""))] == [True, True, True, True]


def test_every_verdict_never_passes_on_nothing():
    assert not every_verdict("x", {}, ">=", 1.0).holds


def test_reproduce_runs_an_engine_figure_at_quick_scale(tmp_path):
    lines: list[str] = []
    report = reproduce(["INV6"], tmp_path / "r", RunOptions(quick=True, echo=lines.append))
    text = report.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    assert "## Engine figure inv6" in text and "## Figure" not in text  # no INEv figure ran
    assert "**Quick run:" in text and "Fig. 6 (a)-(d), traffic / greedy" in text
    record = json.loads((tmp_path / "r" / "runs" / "inv6.json").read_text())
    assert record["quick"] is True and len(record["verdicts"]) == 7
    assert sorted({r["size"] for r in record["rows"]}) == [4, 5]
    assert sorted(r["role"] for r in record["rows"] if r["size"] == 4) == [
        "always", "invariant", "static", "threshold (best)",
    ]  # fmt: skip
    static = [r for r in record["rows"] if r["role"] == "static"]
    assert all(r["x static"] == 1.0 and r["work / static"] == 1.0 for r in static)
    holds = all(v["holds"] for v in record["verdicts"])
    assert f"**Verdict: {'holds' if holds else 'does not hold'}.**" in text
    assert ("*Cause (measured):*" in text) == (not holds)
    assert len(lines) == 1 and lines[0].startswith("inv6: computed in ")


def test_unknown_engine_figure_is_refused_and_nothing_is_left(tmp_path, run_cli):
    with pytest.raises(InevError, match="no engine figure 'inv99'"):
        choose_engine(["inv99"])
    code, _, err = run_cli("reproduce", "inv6", "inv99", "-o", tmp_path / "r", "--quick")
    assert code == 1 and err.startswith("error: no figure 'inv99'") and err.count("\n") == 1
    assert "engine figures: inv5, inv6" in err
    assert list(tmp_path.iterdir()) == []


def test_names_split_between_the_papers():
    inev, engine = split_names(["fig7a", "pspice6", "greta-events"])
    assert inev == ["fig7a"] and [f.id for f in engine] == ["pspice6", "greta-events"]
    ids = [f.id for f in engine_figures()]
    assert len(ids) == len(set(ids)) == 17


def test_list_names_every_figure(run_cli):
    code, out, _ = run_cli("reproduce", "--list")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names[:2] == ["4a", "4b"] and names[-1] == "greta-sliding" and len(names) == 25 + 17


def test_the_report_renders_again_from_its_tables(tmp_path):
    from inev.experiments.engine_figures.report import report_from_runs

    reproduce(["inv8"], tmp_path / "r", RunOptions(quick=True, echo=lambda _: None))
    text = report_from_runs(tmp_path / "r" / "runs", ["my header"])
    assert text.startswith("# The local engines' papers") and "\nmy header\n" in text
    assert "## Engine figure inv8" in text and "**Quick run:" in text
    assert "Not in this report (not run): inv5, inv6, inv7, inv9, inv-table1, pspice5" in text
