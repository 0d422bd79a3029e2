"""Claim checks on hand-made rows: the paper's statistic (the mean), trends over every point,
fitted slopes, spreads, arg checks and correlations, each with both verdicts."""

from __future__ import annotations

import math

import pytest

from inev.experiments.claims import Summary, describe, evaluate, load_claims
from inev.experiments.trends import monotone, slope


def rows_of(values, **fixed):
    """INEv rows ``{x: .., m: ..}`` from ``[(x, value), ...]``."""
    return [{"method": "inev", "error": None, **fixed, "x": x, "m": v} for x, v in values]


# ---------------------------------------------------------------- the statistic


def test_a_stat_check_is_judged_on_the_mean_with_median_and_quartiles_beside_it():
    # 9e's case in small: the median passes, the mean (carried by one outlier) does not
    rows = rows_of([(1, 1.0), (1, 1.1), (1, 1.2), (1, 9.0)])
    check = {"metric": "m", "op": "<=", "value": 2.5}
    found = evaluate(check, rows)
    assert not found.holds
    assert found.measured == "mean 3.08 (median 1.15, quartiles 1.08 – 3.15, n=4)"
    assert found.headline == "mean 3.08, median 1.15"
    assert evaluate({**check, "stat": "median"}, rows).holds
    assert evaluate({**check, "value": 3.1}, rows).holds


def test_groups_over_all_and_any_and_the_deciding_group():
    rows = rows_of([(1, 0.1), (1, 0.3), (1, 0.2), (2, 5.0), (2, 7.0)])
    check = {"metric": "m", "per": ["x"], "op": "<=", "value": 1.0}
    found = evaluate(check, rows)
    assert not found.holds  # mean 6 at x=2
    assert found.measured == (
        "x=1: mean 0.2 (median 0.2, quartiles 0.15 – 0.25, n=3); "
        "x=2: mean 6 (median 6, quartiles 5.5 – 6.5, n=2)"
    )
    assert found.headline == "x=2: mean 6, median 6"  # the failing group
    some = evaluate({**check, "over": "any"}, rows)
    assert some.holds and some.headline == "x=1: mean 0.2, median 0.2"  # the passing one
    assert evaluate({**check, "where": {"x": 1}}, rows).holds
    assert not evaluate({**check, "where": {"x": {"min": 2}}}, rows).holds


def test_share_below_max_and_between():
    rows = rows_of([(1, 0.0005), (1, 0.0002), (1, 0.01), (1, 0.0)])
    share = evaluate(
        {"metric": "m", "stat": "share_below", "below": 0.001, "op": ">=", "value": 0.75}, rows
    )
    assert share.holds and share.measured == "share below 0.001 0.75 (n=4)"
    assert not evaluate(
        {"metric": "m", "stat": "share_below", "below": 0.001, "op": ">=", "value": 0.76}, rows
    ).holds
    assert evaluate({"metric": "m", "stat": "max", "op": "between", "value": [0.009, 0.011]}, rows)
    assert not evaluate(
        {"metric": "m", "stat": "max", "op": "between", "value": [0.02, 0.03]}, rows
    ).holds


def test_summary_words():
    assert Summary.of([2.0]).words() == "mean 2 (median 2, n=1)"
    assert Summary.of([1.0, 3.0]).words("median") == ("median 2 (mean 2, quartiles 1.5 – 2.5, n=2)")


# ---------------------------------------------------------------- trends over every point


def test_monotone_sees_a_dip_that_two_end_points_miss():
    # Fig. 6b's 0.001 line from the issue: up from first to last, down in between
    curve = [(10, 0.00239), (20, 0.00142), (50, 0.0020), (100, 0.0025), (200, 0.00303)]
    found = monotone(curve, "up", 0.1)
    assert not found.holds and found.value == pytest.approx(1 - 0.00142 / 0.00239)
    assert found.text == "largest step against the rise: -41 % (10 -> 20), tolerance 10 %"
    assert monotone(curve, "up", 0.5).holds  # within a 50 % tolerance the dip is allowed
    assert monotone([(1, 1.0), (2, 2.0), (3, 4.0)], "up", 0.0).text == "every step a rise"


def test_monotone_needs_the_end_beyond_the_start_and_reads_down_as_down():
    flat = [(1, 1.0), (2, 1.05), (3, 1.0)]
    assert not monotone(flat, "up", 0.1).holds  # within tolerance everywhere, but no rise
    falling = [(1, 4.0), (2, 3.0), (3, 3.2), (4, 1.0)]
    assert not monotone(falling, "down", 0.05).holds  # +6.7 % against the fall
    assert monotone(falling, "down", 0.1).holds
    assert not monotone(falling, "up", 10.0).holds
    assert monotone([(1, 0.0), (2, 1.0)], "up", 0.0).holds
    assert not monotone([(1, 0.0), (2, -1.0), (3, 1.0)], "up", 10.0).holds  # from 0, any fall


def test_slope_sign_and_logs():
    noisy_rise = [(1, 1.0), (2, 0.8), (3, 1.5), (4, 1.4), (5, 2.0)]
    assert slope(noisy_rise, "up").holds and not slope(noisy_rise, "down").holds
    powers = [(10, 1e-3), (100, 1e-2), (1000, 1e-1)]
    fitted = slope(powers, "up", log_y=True, log_x=True)
    assert fitted.holds and fitted.value == pytest.approx(1.0)
    assert fitted.text == "fitted slope +1 log10 value per log10 x"
    assert not slope([(1, 0.0), (2, 1.0)], "up", log_y=True).holds
    assert math.isnan(slope([(1, 1.0), (1, 2.0)], "up").value)


def test_trend_and_slope_checks_on_rows_per_group():
    rows = rows_of([(1, 1.0), (1, 3.0), (5, 1.5), (10, 4.0), (10, 6.0)], g="a") + rows_of(
        [(1, 5.0), (5, 1.0), (10, 6.0)], g="b"
    )
    trend = {"kind": "trend", "metric": "m", "x": "x", "per": ["g"], "op": "up"}
    found = evaluate(trend, rows)
    assert not found.holds  # b falls from 5 to 1 before it rises
    assert found.measured.startswith(
        "g=a: x=1: mean 2 (median 2), x=5: 1.5 (1.5), x=10: 5 (5); largest step against the "
        "rise: -25 % (1 -> 5), tolerance 0 %; g=b:"
    )
    assert found.headline == "g=a: mean 2 -> 5 (median 2 -> 5); g=b: mean 5 -> 6 (median 5 -> 6)"
    assert evaluate({**trend, "where": {"g": "a"}, "tolerance": 0.25}, rows).holds
    assert not evaluate({**trend, "where": {"g": "a"}, "tolerance": 0.24}, rows).holds
    fitted = {"kind": "slope", "metric": "m", "x": "x", "per": ["g"], "op": "up"}
    assert evaluate(fitted, rows).holds
    assert not evaluate({**fitted, "op": "down"}, rows).holds
    median = evaluate({**trend, "stat": "median", "where": {"g": "a"}}, rows)
    assert "x=1: median 2 (mean 2)" in median.measured
    one = evaluate({"kind": "trend", "metric": "m", "x": "x", "where": {"x": 5}}, rows)
    assert not one.holds and "nothing to compare" in one.measured


def test_spread_and_arg_checks_use_the_mean_per_point():
    rows = rows_of([(1, 1.0), (1, 3.0), (5, 2.5), (10, 0.5), (10, 0.5), (10, 8.0)])
    # means 2, 2.5, 3 (medians 2, 2.5, 0.5): the mean and the median disagree on both ends
    spread = evaluate({"kind": "spread", "metric": "m", "x": "x", "value": 1.5}, rows)
    assert spread.holds and spread.measured.endswith("largest / smallest 1.5x")
    assert not evaluate({"kind": "spread", "metric": "m", "x": "x", "value": 1.4}, rows).holds
    assert evaluate({"kind": "argmax", "metric": "m", "x": "x", "value": 10}, rows).holds
    assert not evaluate({"kind": "argmax", "metric": "m", "x": "x", "value": 5}, rows).holds
    argmin = evaluate({"kind": "argmin", "metric": "m", "x": "x", "value": 1}, rows)
    assert argmin.holds and argmin.measured.endswith("min at x=1")
    by_median = {"kind": "argmin", "metric": "m", "x": "x", "stat": "median", "value": 10}
    assert evaluate(by_median, rows).holds


def test_correlation_and_missing_rows_never_pass():
    rows = [
        {"method": "inev", "error": None, "h": h, "m": m}
        for h, m in [(1, 0.1), (2, 0.3), (3, 0.2), (4, 0.9)]
    ]
    found = evaluate(
        {"kind": "correlation", "metric": "m", "against": "h", "op": ">=", "value": 0.5}, rows
    )
    assert found.holds and found.measured == "Spearman rho(h, m) = 0.8 (n=4)"
    assert not evaluate(
        {"kind": "correlation", "metric": "m", "against": "h", "op": ">=", "value": 0.9}, rows
    ).holds
    failed = [{**rows[0], "error": "boom"}]
    nothing = evaluate({"metric": "m", "op": "<=", "value": 1e9}, failed)
    assert not nothing.holds and "no rows" in nothing.measured
    assert not evaluate({"metric": "m", "method": "ppop", "op": "<=", "value": 1e9}, rows).holds


def test_diagnostics_are_described_without_a_verdict():
    rows = rows_of([(1, 2.0), (2, 4.0)])
    assert describe({"metric": "m", "text": "t", "per": ["x"]}, rows) == (
        "x=1: mean 2 (median 2, n=1); x=2: mean 4 (median 4, n=1)"
    )


def test_the_claims_file_judges_by_the_paper_statistic_and_checks_whole_curves():
    for figure in load_claims():
        for check in figure.checks:
            assert check.get("stat", "mean") != "median" or "median" in figure.statistic, (
                figure.id,
                check["text"],
            )
            if check.get("kind") == "trend":
                assert "where" not in check or not set(check["where"]) & {check["x"]}, (
                    figure.id  # a trend looks at every point of its x, not two of them
                )


def test_versus_compares_two_methods_curves_point_by_point():
    rows = rows_of([(1, 0.01), (1, 0.03), (2, 0.5)]) + [
        {"method": "ppop", "error": None, "x": x, "m": v}
        for x, v in [(1, 0.03), (1, 0.05), (2, 0.6)]
    ]
    check = {"kind": "versus", "metric": "m", "method": "ppop", "versus": "inev", "per": ["x"]}
    found = evaluate({**check, "op": "<=", "value": 2.0}, rows)
    assert found.holds  # 0.04 / 0.02 = 2 at x=1, 0.6 / 0.5 = 1.2 at x=2
    assert found.measured.startswith(
        "x=1: ppop mean 0.04 (median 0.04) / inev 0.02 (median 0.02) = 2x"
    )
    assert found.headline.startswith("x=1: 2x")  # the worst point
    assert not evaluate({**check, "op": "<=", "value": 1.9}, rows).holds
    assert evaluate({**check, "op": ">=", "value": 1.2}, rows).holds
    lonely = evaluate({**check, "versus": "centralized", "op": "<=", "value": 9}, rows)
    assert not lonely.holds and "no centralized rows" in lonely.measured


def test_rows_without_a_value_are_counted_not_hidden():
    rows = [
        *rows_of([(1, 1.0), (1, None), (2, float("nan"))]),
        {"method": "inev", "error": "boom", "x": 3, "m": None},
    ]
    found = evaluate({"metric": "m", "op": "<=", "value": 2.0}, rows)
    assert found.holds
    assert found.measured == "mean 1 (median 1, n=1); 2 rows without a value left out"


# ---------------------------------------------------------------- Fig. 5a's yardstick


def test_exact_psi_uses_the_planners_exact_method_and_falls_back_when_refused(monkeypatch):
    from inev.common.errors import InevError
    from inev.experiments import yardstick as ys

    asked = []

    class Planned:
        psi = 4.0

    def fake_plan(network, workload, method, options=None):
        asked.append(method)
        if workload == "too large":
            raise InevError("above the exact method's size limit")
        return Planned()

    monkeypatch.setattr(ys, "plan_workload", fake_plan)
    monkeypatch.setattr(ys, "METHODS", ("inev", "centralized"))
    assert ys.exact_method() is None and ys.exact_psi(None, "small") is None and asked == []
    monkeypatch.setattr(ys, "METHODS", ("inev", "optimal"))
    assert ys.exact_psi(None, "small") == 4.0 and asked == ["optimal"]
    assert ys.exact_psi(None, "too large") is None  # refused: the yardstick falls back
    # the exact optimum wins over both estimates; without it the larger estimate is taken
    assert ys.yardstick(4.0, 5.0, 3.0) == (4.0, "exact")
    assert ys.yardstick(None, 2.0, 3.0) == (3.0, "lower bound")
    assert ys.yardstick(None, None, 0.0) == (None, "none")
    assert ys.closeness(6.0, ys.yardstick(None, 2.0, 3.0)[0]) == 2.0
