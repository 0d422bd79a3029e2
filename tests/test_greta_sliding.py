"""GRETA's greta-sliding figure: the shared sliding-window graph and the per-window stores
against a brute-force trend count on the figure's query and stream, the quick run, and the
judge and cause on hand-made tables."""

from __future__ import annotations

import pytest
from test_greta_random import brute_force_results

from inev.common.errors import InevError
from inev.experiments.engine_figures import choose_engine
from inev.experiments.engine_figures import greta_sliding as sliding
from inev.experiments.engine_figures.greta import stock_stream
from inev.experiments.engine_figures.model import Measured
from inev.simulator.engine.greta import greta_event

# --------------------------------------------------------------------------- both = brute force


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("ratio", [2, 3, 5])
def test_both_methods_count_the_figures_trends_like_brute_force(seed: int, ratio: int) -> None:
    # volatile prices (8 % steps) so that the 1.05x up-trends exist on 12 events
    events = stock_stream(12, seed, 0.08, 1)
    window = 6.0
    expected = brute_force_results(sliding.QUERY, events, window, window / ratio)
    for shared in (True, False):
        got = sliding.evaluate(sliding.QUERY, events, window, window / ratio, shared)[1]
        assert got == expected


def test_up_trends_by_hand_in_overlapping_windows() -> None:
    # prices 100, 110, 104, 120 at times 0-3; a step needs price * 1.05 < next price:
    # 100->110, 100->120, 110->120, 104->120 (not 100->104, not 110->104)
    prices = [100, 110, 104, 120]
    events = [greta_event(float(i), "S", i, None, {"price": p}) for i, p in enumerate(prices)]
    # window 3 sliding by 1: [0,3) {100,110,104}: 3 singletons + (100,110) = 4;
    # [1,4) {110,104,120}: 3 + (110,120), (104,120) = 5; [2,5) {104,120}: 2 + 1 = 3;
    # [3,6) {120}: 1
    for shared in (True, False):
        got = sliding.evaluate(sliding.QUERY, events, 3.0, 1.0, shared)[1]
        assert [r["value"] for r in got] == [4, 5, 3, 1]


# --------------------------------------------------------------------------- the quick run


def test_sliding_runs_at_quick_scale_and_writes_its_rows(tmp_path) -> None:
    from inev.experiments.engine_figures import run_engine

    results = run_engine(choose_engine(["greta-sliding"]), tmp_path, True, echo=lambda _: None)
    m = results[0].measured
    assert [r["window/slide"] for r in m.rows] == [2, 5]
    # 600 events at times 0..599, windows [k*s, k*s + 200) for k*s <= 599: s = 100 -> 6,
    # s = 40 -> 15
    assert [r["windows"] for r in m.rows] == [6, 15]
    for r in m.rows:
        # the shared graph stores an event once: at most a window and a slide of events
        # are live; the per-window stores hold one entry per (event, window)
        assert 0 < r["shared vertices"] <= 200 + 200 / r["window/slide"]
        assert r["per-window vertices"] > r["shared vertices"]
        assert r["speed-up"] == pytest.approx(r["per-window CPU s"] / r["shared CPU s"])
        assert r["memory ratio"] == pytest.approx(r["per-window peak MB"] / r["shared peak MB"])
        assert r["trends"] > r["windows"]  # more than one trend per window
    assert len(results[0].verdicts) == 3
    stored = (tmp_path / "runs" / "greta-sliding.json").read_text()
    assert '"window/slide": 5' in stored and '"quick": true' in stored


def test_a_disagreement_is_refused(monkeypatch) -> None:
    calls = iter(range(10**6))

    def fake(query, events, window, slide, shared):
        return 0.1, [{"value": next(calls) + 1 if shared else 0}], 1, 1

    monkeypatch.setattr(sliding, "evaluate", fake)
    with pytest.raises(InevError, match="disagree at window/slide 2"):
        sliding.point(stock_stream(10, 1, 0.006, 1), 10, 2)


# --------------------------------------------------------------------------- judge and cause


def _row(ratio: int, **kw: object) -> dict[str, object]:
    base = {"window/slide": ratio, "windows": 6, "trends": 10.0, "shared CPU s": 1.0,
            "per-window CPU s": 2.0, "speed-up": 2.0, "shared vertices": 100,
            "per-window vertices": 300, "shared aggregates": 300, "per-window aggregates": 300,
            "shared peak MB": 1.0, "per-window peak MB": 3.0, "memory ratio": 3.0}  # fmt: skip
    return {**base, **kw}


def test_judge_holds_where_sharing_wins_everywhere() -> None:
    m = Measured(sliding.COLUMNS, (_row(2), _row(20)), "")
    assert [v.holds for v in sliding.sliding_judge(m)] == [True, True, True]


def test_judge_and_cause_where_sharing_is_slower_and_no_lighter() -> None:
    slow = _row(20, **{"per-window CPU s": 0.5, "speed-up": 0.5, "per-window peak MB": 0.9,
                       "memory ratio": 0.9})  # fmt: skip
    m = Measured(sliding.COLUMNS, (_row(2), slow), "")
    verdicts = sliding.sliding_judge(m)
    assert [v.holds for v in verdicts] == [True, False, False]
    assert "r=2: 3, r=20: 3" in verdicts[0].measured
    assert "r=2: 2, r=20: 0.5" in verdicts[1].measured
    cause = sliding.sliding_cause(m)
    assert "r=20: speed-up 0.5 (1 s shared, 0.5 s per-window)" in cause
    assert "no lighter at r=20 and at most 3x lighter anywhere" in cause
    assert "stores 3-3x fewer vertex entries" in cause
    # r=20: 1 MB over 300 aggregates; (0.9 - 1) MB over 200 extra entries
    assert "vectors 3.33e+03 bytes each;" in cause and "entries -500 bytes each)." in cause
    assert "about r^2 component sums" in cause
    # faster and lighter: only the numbers
    fine = sliding.sliding_cause(Measured(sliding.COLUMNS, (_row(2),), ""))
    assert "Memory:" not in fine and "Time:" not in fine
