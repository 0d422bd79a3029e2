"""GRETA's figures greta-negation, greta-selectivity and greta-groups: GRETA against a
brute-force trend count on their pattern shapes and streams, the selectivity of the
generated stream, the quick runs, and the judges on hand-made tables."""

from __future__ import annotations

import itertools

import pytest
from test_greta_random import brute_force_results

from inev.experiments.engine_figures import greta_groups as groups
from inev.experiments.engine_figures import greta_negation as negation
from inev.experiments.engine_figures import greta_selectivity as selectivity
from inev.experiments.engine_figures.model import Measured
from inev.simulator.engine.greta import greta_aggregates, greta_event

# --------------------------------------------------------------------------- GRETA = brute force


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("pattern", [negation.NEGATED, negation.POSITIVE])
def test_greta_counts_the_negation_figures_trends(seed: int, pattern: str) -> None:
    # volatile prices (5 % steps) so that the 1.05x up-trends exist on 11 events
    events = negation.negation_stream(11, seed, volatility=0.08)
    query = negation.query(pattern)
    expected = brute_force_results(query, events, 100.0, 100.0)
    assert list(greta_aggregates(query, events, 100.0)) == expected


def test_negation_removes_trends_on_a_hand_made_stream() -> None:
    # S1 S2 D B1 S3 B2 (rising prices): an S-trend, then a B-trend starting after its end
    rows = [("S", 100), ("S", 200), ("D", 0), ("B", 100), ("S", 300), ("B", 200)]
    events = [greta_event(float(i), t, i, None, {"price": p}) for i, (t, p) in enumerate(rows)]
    pos = list(greta_aggregates(negation.query(negation.POSITIVE), events, 10.0))
    neg = list(greta_aggregates(negation.query(negation.NEGATED), events, 10.0))
    # positive: the 3 S-trends of S1, S2 before B1 (x {B1}, {B1 B2}) and all 7 S-trends of
    # S1, S2, S3 before B2 (x {B2}): 3 * 2 + 7 = 13
    assert pos[0]["value"] == 13
    # negated: the halt cuts S1, S2 -> B1 and S1, S2 -> B2; S3 -> B2 only, with any S-trend
    # ending in S3: {S3}, {S1 S3}, {S2 S3}, {S1 S2 S3}
    assert neg[0]["value"] == 4


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("s", [0.2, 0.5, 0.8])
def test_greta_counts_the_selectivity_figures_trends(seed: int, s: float) -> None:
    events = selectivity.traffic_stream(12, seed, vehicles=2)
    query = selectivity.query(s)
    expected = brute_force_results(query, events, 100.0, 100.0)
    assert list(greta_aggregates(query, events, 100.0)) == expected


@pytest.mark.parametrize("seed", range(6))
def test_greta_counts_the_groups_figures_trends(seed: int) -> None:
    events = groups.cluster_stream(14, seed, 2)
    expected = brute_force_results(groups.QUERY, events, 100.0, 100.0)
    assert list(greta_aggregates(groups.QUERY, events, 100.0)) == expected


# --------------------------------------------------------------------------- the stream's selectivity


@pytest.mark.parametrize("s", [0.05, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9])
def test_the_edge_predicate_has_the_selectivity_asked_for(s: float) -> None:
    """Fraction of (earlier, later) reports of one vehicle with speed + T > next speed."""
    events = selectivity.traffic_stream(6_000, 7, vehicles=100)
    t = selectivity.offset(s)
    by_vehicle: dict[int, list[float]] = {}
    for e in events:
        by_vehicle.setdefault(e.attrs["vehicle"], []).append(e.attrs["speed"])
    pairs = held = 0
    for speeds in by_vehicle.values():
        for x, y in itertools.combinations(speeds, 2):
            pairs += 1
            held += x + t > y
    assert pairs > 150_000 and abs(held / pairs - s) < 0.01


def test_offset_solves_the_triangular_distribution_by_hand() -> None:
    # s = 1/8: (L + T)^2 / (2 L^2) = 1/8 -> L + T = L / 2; s = 7/8 symmetric
    assert selectivity.offset(0.125) == pytest.approx(-500.0)
    assert selectivity.offset(0.875) == pytest.approx(500.0)
    assert selectivity.offset(0.5) == 0.0
    with pytest.raises(Exception, match="selectivity"):
        selectivity.offset(1.5)


def test_the_selectivity_query_reads_its_offset() -> None:
    # a 3-report vehicle 500, 100, 900 at s = 7/8 (T = +500): pairs (500, 100) and
    # (500, 900) and (100, 900) hold when x + 500 > y: 1000 > 100, 1000 > 900, 600 > 900 no
    speeds = [500.0, 100.0, 900.0]
    events = [greta_event(float(i), "P", i, None, {"vehicle": 0, "speed": v})
              for i, v in enumerate(speeds)]  # fmt: skip
    got = list(greta_aggregates(selectivity.query(0.875), events, 10.0))
    # trends: 3 singletons, (500,100), (500,900); (500,100,900) needs 100 + 500 > 900: no
    assert got[0]["value"] == 5


# --------------------------------------------------------------------------- quick runs


def test_negation_runs_at_quick_scale() -> None:
    m = negation.negation_compute(True)
    assert [(r["events/window"], r["pattern"]) for r in m.rows] == [
        (100, negation.NEGATED), (100, negation.POSITIVE), (100, negation.CONTROL),
        (200, negation.NEGATED), (200, negation.POSITIVE), (200, negation.CONTROL),
    ]  # fmt: skip
    for neg, pos, control in zip(m.rows[::3], m.rows[1::3], m.rows[2::3], strict=True):
        assert 0 < neg["trends"] < pos["trends"]  # the negation only removes trends
        # without halts the negated pattern has the positive one's trends (over fewer events)
        calm = [e for e in negation.negation_stream(pos["events/window"], 1) if e.type != "D"]
        got = list(greta_aggregates(negation.query(negation.POSITIVE), calm, 1e6))
        assert control["trends"] == got[0]["value"] and control["two-step"] == "not run"
    for r in m.rows:
        if r["two-step"] == "finished":
            assert r["speed-up"] == pytest.approx(r["two-step CPU s"] / r["GRETA CPU s"])
    assert len(negation.negation_judge(m)) == 6


def test_selectivity_runs_at_quick_scale() -> None:
    m = selectivity.selectivity_compute(True)
    assert [r["selectivity"] for r in m.rows] == [0.2, 0.5]
    assert 0 < m.rows[0]["trends"] < m.rows[1]["trends"]  # a looser predicate, more trends
    assert all(r["two-step"] == "finished" for r in m.rows)
    assert len(selectivity.selectivity_judge(m)) == 6


def test_groups_runs_at_quick_scale() -> None:
    m = groups.groups_compute(True)
    assert [r["groups"] for r in m.rows] == [20, 60]
    assert all(r["trends"] > 0 and r["two-step"] == "finished" for r in m.rows)
    assert len(groups.groups_judge(m)) == 5


# --------------------------------------------------------------------------- judges


def _row(**kw: object) -> dict[str, object]:
    base = {"trends": 1.0, "GRETA CPU s": 0.01, "GRETA peak MB": 1.0, "two-step": "finished",
            "two-step CPU s": 1.0, "two-step peak MB": 5.0, "speed-up": 100.0,
            "memory ratio": 5.0}  # fmt: skip
    return {**base, **kw}


def test_negation_judge_on_a_hand_made_table() -> None:
    n, p = negation.NEGATED, negation.POSITIVE
    rows = (
        _row(pattern=n, **{"events/window": 1000}),
        _row(pattern=p, **{"events/window": 1000, "GRETA CPU s": 0.02, "GRETA peak MB": 2.0,
                           "two-step CPU s": 4.0}),
        # the negated baseline stops at 10k; the positive one is not run: no 10k latency pair
        _row(pattern=n, **{"events/window": 10000, "two-step": "stopped > 60 s",
                           "two-step CPU s": 60.0, "speed-up": -6000.0, "memory ratio": None}),
        _row(pattern=p, **{"events/window": 10000, "GRETA CPU s": 0.02, "GRETA peak MB": 2.0,
                           "two-step": "not run", "two-step CPU s": None, "speed-up": None,
                           "memory ratio": None}),
    )  # fmt: skip
    verdicts = negation.negation_judge(Measured((), rows, ""))
    assert [v.holds for v in verdicts] == [True, True, True, True, True, True]
    # GRETA slower with the negation at 10k: only that check fails
    slower = (*rows[:3], {**rows[3], "GRETA CPU s": 0.005})
    verdicts = negation.negation_judge(Measured((), slower, ""))
    assert [v.holds for v in verdicts] == [True, True, True, True, False, True]
    assert "n=10,000: 0.5" in verdicts[4].measured
    # a control row (halts removed) costing 0.9x the positive pattern: the negation's own cost
    control = _row(
        pattern=negation.CONTROL,
        **{"events/window": 10000, "GRETA CPU s": 0.0045, "two-step": "not run", "speed-up": None},
    )
    cause = negation.negation_cause(Measured((), (*slower, control), ""))
    assert "GRETA's CPU with the negation over without it: n=1,000: 0.5, n=10,000: 2;" in cause
    assert "(the negation never fires): n=10,000: 0.9." in cause
    assert "GRETA's memory" not in cause  # memory falls with the negation at every size


def test_selectivity_judge_on_a_hand_made_table() -> None:
    rows = (
        _row(selectivity=0.1, **{"two-step CPU s": 0.1, "speed-up": 10.0}),
        _row(selectivity=0.5, **{"two-step CPU s": 2.0, "speed-up": 200.0, "memory ratio": 25.0}),
        _row(selectivity=0.6, **{"GRETA CPU s": 0.015, "two-step": "stopped > 60 s",
                                 "speed-up": -4000.0, "memory ratio": None}),
        _row(selectivity=0.9, **{"two-step": "not run", "speed-up": None,
                                 "memory ratio": None}),
    )  # fmt: skip
    verdicts = selectivity.selectivity_judge(Measured((), rows, ""))
    assert [v.holds for v in verdicts] == [True] * 6
    # GRETA 3x slower at 90 %, the baseline finishing at 60 % and lighter at 50 %
    worse = (
        rows[0],
        {**rows[1], "memory ratio": 0.5},
        _row(selectivity=0.6, **{"two-step CPU s": 30.0, "speed-up": 2000.0}),
        {**rows[3], "GRETA CPU s": 0.03},
    )
    verdicts = selectivity.selectivity_judge(Measured((), worse, ""))
    assert [v.holds for v in verdicts] == [False, True, True, True, False, False]
    assert verdicts[0].measured.startswith("3 ")


def test_groups_judge_on_a_hand_made_table() -> None:
    rows = (
        _row(groups=5, **{"two-step": "stopped > 60 s", "speed-up": -6000.0,
                          "memory ratio": None, "two-step peak MB": None}),
        _row(groups=50, **{"two-step CPU s": 3.0, "two-step peak MB": 9.0}),
        _row(groups=500, **{"two-step CPU s": 0.005, "two-step peak MB": 2.0,
                            "speed-up": 0.5, "GRETA CPU s": 0.012}),
    )  # fmt: skip
    verdicts = groups.groups_judge(Measured((), rows, ""))
    # flat GRETA (1.2x), latency 600x and memory 4.5x lower at 500 groups, slower there,
    # the 5-group lower bound 6000x
    assert [v.holds for v in verdicts] == [True, True, True, False, True]
    assert "50/500: 600" in verdicts[1].measured
    assert "At 500 groups a group holds a few events" in groups.groups_cause(Measured((), rows, ""))


# --------------------------------------------------------------------------- when the baseline runs


def test_groups_runs_the_baseline_from_most_groups_down_and_always_at_five(monkeypatch) -> None:
    calls: list[tuple[int, bool]] = []

    def fake(query, events, window, timeout, skip):
        g = max(e.attrs["mapper"] for e in events) + 1
        calls.append((g, skip))
        status = "not run" if skip else ("stopped > 1 s" if g <= 50 else "finished")
        return {"two-step": status, "GRETA CPU s": 1.0}

    monkeypatch.setattr(groups, "compare", fake)
    monkeypatch.setattr(
        groups, "scale", lambda quick: {"events": 400, "groups": (5, 10, 50, 100), "timeout": 1.0}
    )
    m = groups.groups_compute(False)
    # 100 finishes, 50 stops, 10 is skipped after the stop, 5 (the paper's point) runs anyway
    assert calls == [(100, False), (50, False), (10, True), (5, False)]
    assert [r["groups"] for r in m.rows] == [5, 10, 50, 100]


def test_negation_stops_the_baseline_per_pattern(monkeypatch) -> None:
    calls: list[tuple[str, int, bool]] = []

    def fake(query, events, window, timeout, skip):
        pattern = str(query.pattern)
        calls.append((pattern, len(events), skip))
        stop = "NOT" not in pattern and len(events) >= 100  # the positive one stops at 100
        return {"two-step": "not run" if skip else ("stopped > 1 s" if stop else "finished")}

    monkeypatch.setattr(negation, "compare", fake)
    monkeypatch.setattr(negation, "scale", lambda quick: {"sizes": (50, 100, 200), "timeout": 1.0})
    negation.negation_compute(False)
    positive = [skip for p, _, skip in calls if "NOT" not in p]
    negated = [(n, skip) for p, n, skip in calls if "NOT" in p]
    assert positive == [False, False, True]  # not run at 200 after its stop at 100
    # the negated pattern runs at every size; each size's control row (the same stream with
    # its halts removed: fewer events) never runs the baseline
    assert [skip for _, skip in negated] == [False, True, False, True, False, True]
    full, control = [n for n, _ in negated[::2]], [n for n, _ in negated[1::2]]
    assert full == [50, 100, 200] and all(c < f for c, f in zip(control, full, strict=True))
