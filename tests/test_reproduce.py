"""The paper's figures: presets, figure workloads, derived metrics, claim checks, the report."""

from __future__ import annotations

import os
import tomllib
from importlib import resources

import numpy as np
import pytest
import sweep_helpers

from inev.common.errors import InevError
from inev.experiments.claims import evaluate, load_claims
from inev.experiments.commands import preset_names, resolve_spec
from inev.experiments.measure import measure, swap_pairs, task_inputs
from inev.experiments.paper_workloads import counterpart, paper_workload
from inev.experiments.spec import DEFAULTS, parse_spec, quick_document
from inev.topologies.generate import generate_network
from inev.workloads.query import Operator, walk


def rows_of(values, **fixed):
    """INEv rows ``{x: .., metric: ..}`` from ``[(x, value), ...]``."""
    return [{"method": "inev", "error": None, **fixed, "x": x, "m": v} for x, v in values]


# ---------------------------------------------------------------- claims checks, by hand


def test_stat_check_median_per_group_and_over_any():
    rows = rows_of([(1, 0.1), (1, 0.3), (1, 0.2), (2, 5.0), (2, 7.0)])
    check = {"metric": "m", "per": ["x"], "op": "<=", "value": 1.0}
    found = evaluate(check, rows)
    assert not found.holds  # median 6 at x=2
    assert found.measured == "x=1: median 0.2 (n=3); x=2: median 6 (n=2)"
    assert evaluate({**check, "over": "any"}, rows).holds
    assert evaluate({**check, "where": {"x": 1}}, rows).holds
    assert evaluate({**check, "stat": "mean", "where": {"x": {"max": 1}}}, rows).measured == (
        "x=1: mean 0.2 (n=3)"
    )


def test_share_below_and_between():
    rows = rows_of([(1, 0.0005), (1, 0.0002), (1, 0.01), (1, 0.0)])
    share = evaluate(
        {"metric": "m", "stat": "share_below", "below": 0.001, "op": ">=", "value": 0.75}, rows
    )
    assert share.holds and share.measured == "share below 0.001 0.75 (n=4)"
    assert not evaluate(
        {**dict(metric="m", stat="share_below", below=0.001), "op": ">=", "value": 0.76}, rows
    ).holds
    assert evaluate(
        {"metric": "m", "stat": "max", "op": "between", "value": [0.009, 0.011]}, rows
    ).holds


def test_trend_spread_and_argmax_by_hand():
    rows = rows_of([(1, 1.0), (1, 3.0), (5, 2.0), (10, 4.0), (10, 6.0)])
    trend = evaluate({"kind": "trend", "metric": "m", "x": "x", "op": "up"}, rows)
    assert trend.holds and trend.measured == "median 2 at x=1, 5 at x=10"
    assert not evaluate({"kind": "trend", "metric": "m", "x": "x", "op": "down"}, rows).holds
    spread = evaluate({"kind": "spread", "metric": "m", "x": "x", "value": 2.5}, rows)
    assert spread.holds and spread.measured == "medians 2 - 5 (2.5x)"
    assert not evaluate(
        {"kind": "spread", "metric": "m", "x": "x", "op": ">=", "value": 3}, rows
    ).holds
    assert evaluate({"kind": "argmax", "metric": "m", "x": "x", "value": 10}, rows).holds
    assert evaluate({"kind": "argmin", "metric": "m", "x": "x", "value": 1}, rows).holds
    one = evaluate({"kind": "trend", "metric": "m", "x": "x", "where": {"x": 5}}, rows)
    assert not one.holds and "nothing to compare" in one.measured


def test_correlation_and_missing_rows_never_pass():
    rows = [
        {"method": "inev", "error": None, "h": h, "m": m}
        for h, m in [(1, 0.1), (2, 0.3), (3, 0.2), (4, 0.9)]
    ]
    found = evaluate(
        {"kind": "correlation", "metric": "m", "against": "h", "op": ">=", "value": 0.5}, rows
    )
    assert found.holds and found.measured == "Spearman rho(h, m) = 0.8 (n=4)"
    failed = [{**rows[0], "error": "boom"}]
    nothing = evaluate({"metric": "m", "op": "<=", "value": 1e9}, failed)
    assert not nothing.holds and "no rows" in nothing.measured
    other = evaluate({"metric": "m", "method": "ppop", "op": "<=", "value": 1e9}, rows)
    assert not other.holds


# ---------------------------------------------------------------- presets and claims file


def test_every_figure_has_a_preset_with_note_and_quick_scale():
    figures = load_claims()
    ids = [f.id for f in figures]
    assert ids == [
        "4a",
        "4b",
        "5a",
        "5b",
        "6a",
        "6b",
        "6c",
        "6d",
        "7a",
        "7b",
        "8a",
        "8b",
        "8c",
        "8d",
        "9a",
        "9b",
        "9c",
        "9d",
        "9e",
        "10a",
        "10b",
        "11a",
        "11b",
        "12a",
        "12b",
    ]
    for figure in figures:
        assert figure.preset in preset_names()
        _, document = resolve_spec(figure.preset)
        assert document.get("note"), figure.preset
        assert "quick" in document, figure.preset
        quick = parse_spec(quick_document(document))
        assert quick.size <= 10, (figure.preset, quick.size)
        assert figure.checks


def test_quick_table_is_checked():
    with pytest.raises(InevError, match="unknown \\[quick\\] key 'sed'"):
        parse_spec({"axes": {"skew": [1.1]}, "quick": {"sed": 2}})
    with pytest.raises(InevError, match="skew must be more than 1"):
        parse_spec({"axes": {"skew": [1.1]}, "quick": {"axes": {"skew": [0.5]}}})
    with pytest.raises(InevError, match="operator_type must be one of random, max, min"):
        parse_spec({"base": {"operator_type": "maximal"}})


def test_preset_and_same_named_folder_or_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fig7a").mkdir()
    said = []
    spec, _ = resolve_spec("fig7a", notice=said.append)
    assert spec.name.startswith("fig7a") and said == [
        "fig7a: is a folder here, not a sweep file; using the preset fig7a"
    ]
    (tmp_path / "fig4b").write_text('name = "mine"\nseeds = 1\n[axes]\nskew = [1.5]\n')
    said.clear()
    spec, _ = resolve_spec("fig4b", notice=said.append)
    assert spec.name == "mine" and said == [
        "fig4b: using the file fig4b, not the preset of the same name"
    ]


# ---------------------------------------------------------------- figure workloads and metrics


@pytest.mark.parametrize("kind", ["max", "min"])
def test_operator_type_lands_on_the_extreme_rate_type(kind):
    for seed in range(25):
        net = generate_network(seed=seed, event_types=8)
        rates = {t: net.global_rate(t) for t in net.types}
        extreme = (max if kind == "max" else min)(rates.values())
        for op, config_key in (("KL", "kleene"), ("NSEQ", "negation")):
            config = dict(DEFAULTS, length=6, operator_type=kind, **{config_key: 1})
            wl = paper_workload(net, config, seed)
            (query,) = wl.queries
            node = next(p for p in walk(query.pattern) if isinstance(p, Operator) and p.kind == op)
            placed = node.children[0 if op == "KL" else 1].type
            assert rates[placed] == extreme
            twin = counterpart(wl).queries[0]
            assert sorted(twin.types) == sorted(query.types) and len(twin.types) == 6
            assert not any(
                isinstance(p, Operator) and p.kind in ("KL", "NSEQ") for p in walk(twin.pattern)
            )
            assert dict(twin.selectivities) == dict(query.selectivities)


def test_operator_share_puts_operators_on_a_third_of_the_queries():
    net = generate_network(seed=4, event_types=6)
    for queries, expected in ((5, 2), (10, 3), (20, 7)):
        config = dict(
            DEFAULTS, queries=queries, length=5, kleene=1, negation=1, operator_share=1 / 3
        )
        wl = paper_workload(net, config, 4)
        carrying = [
            q.name
            for q in wl.queries
            if any(isinstance(p, Operator) and p.kind == "NSEQ" for p in walk(q.pattern))
        ]
        assert carrying == [f"q{i + 1}" for i in range(expected)]


def test_middle_swaps_pair_the_rate_order_from_the_middle_out():
    from inev.topologies.network import Network

    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(2, 25))
        rates = rng.permutation(np.arange(1, n + 1)).tolist()
        net = Network.build([0], [], {f"T{i}": (float(r), [0]) for i, r in enumerate(rates)})
        ranked = sorted(net.types, key=lambda t: -net.rate(t))
        share = float(rng.uniform(0, 1))
        pairs = swap_pairs(net, share, 0, "middle")
        count = round(share * n) - round(share * n) % 2
        first = (n - count) // 2
        assert len(pairs) == count // 2
        assert {t for p in pairs for t in p} == set(ranked[first : first + count])
        for a, b in pairs:  # positions mirror around the middle of the block
            assert ranked.index(a) + ranked.index(b) == 2 * first + count - 1
    net = Network.build([0], [], {f"T{i:02d}": (float(20 - i), [0]) for i in range(20)})
    assert swap_pairs(net, 0.1, 0, "middle") == [("T09", "T10")]  # the 10th and 11th highest


def test_derived_metrics_of_one_task_agree_with_their_parts():
    config = dict(DEFAULTS, queries=3, length=4, event_types=8, effort=0.0)
    rows = measure(config, 5, ("inev", "isolated", "ppop", "centralized"))
    inev = rows["inev"]
    assert inev["sharing_ratio"] == pytest.approx(inev["cost"] / rows["isolated"]["cost"])
    assert inev["sharing_ratio"] <= 1 + 1e-9
    assert inev["ppop_over_inev"] == pytest.approx(rows["ppop"]["cost"] / inev["cost"])
    net, wl = task_inputs(config, 5)
    assert inev["events_per_window"] == pytest.approx(max(net.global_rate(t) for t in wl.types))
    ordered = measure(dict(config, query_orders=4), 5, ("inev", "centralized"))["inev"]
    assert ordered["order_std"] >= 0
    swapped = measure(
        dict(
            DEFAULTS,
            event_types=8,
            queries=2,
            length=4,
            effort=0.0,
            rate_swap=1.0,
            swap_from="middle",
        ),
        2,
        ("inev", "centralized"),
    )["inev"]
    assert 0 <= swapped["invalid_projection_share"] <= 1
    assert swapped["repair_gain"] == pytest.approx(
        swapped["repaired_ratio"] / swapped["broken_ratio"]
    )
    assert swapped["repair_gain"] <= 1 + 1e-9


# ---------------------------------------------------------------- the command


def test_tiny_reproduce_writes_one_report_with_every_chosen_figure(tmp_path, run_cli):
    out = tmp_path / "report"
    code, stdout, err = run_cli(
        "reproduce", "4b", "fig10b", "-o", out, "--quick", "--seeds", "1", "--master", "serial"
    )
    assert code == 0, err
    text = (out / "README.md").read_text()
    assert "## Figure 4b" in text and "## Figure 10b" in text and "## Figure 5a" not in text
    assert (out / "fig4b.png").stat().st_size > 5000 and (out / "fig10b.png").is_file()
    claims = {f.id: f for f in load_claims()}
    assert claims["4b"].claim in text and claims["10b"].section in text
    assert "1 seeds per point instead of the presets' own" in text
    verdicts = text.count("**Verdict: holds.**") + text.count("**Verdict: does not hold.**")
    assert verdicts == 2 and "What differs from the paper" in text
    assert "Fig. 4b: 3 tasks" in stdout and f"report: {out / 'README.md'}" in stdout
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no staging folder left


def test_each_figure_gets_its_own_progress_bar_from_start_to_stop(tmp_path):
    from inev.experiments.reproduce import RunOptions, reproduce

    events, lines = [], []

    def bar(label):
        def start(total, done):
            events.append((label, "start", total, done))
            return lambda n: events.append((label, "advance", n))

        return start, lambda: events.append((label, "stop"))

    options = RunOptions(master="serial", quick=True, seeds=("1",), echo=lines.append, progress=bar)
    reproduce(["4b", "9a", "9b"], tmp_path / "r", options)
    # 9b shares 9a's runs: no sweep, no bar; each bar stops before its figure's line
    assert [e for e in events if e[1] != "advance"] == [
        ("Fig. 4b", "start", 3, 0),
        ("Fig. 4b", "stop"),
        ("Fig. 9a", "start", 3, 0),
        ("Fig. 9a", "stop"),
    ]
    for label, total in (("Fig. 4b", 3), ("Fig. 9a", 3)):  # 3 points x 1 seed each
        assert sum(e[2] for e in events if e[:2] == (label, "advance")) == total
    # first the scale: 9b shares 9a's sweep, 3 points x 1 seed each
    assert (
        lines[0] == "3 figures from 2 sweeps of 6 tasks in all (finished tasks in runs/ are kept)"
    )
    assert [line.split(":")[0] for line in lines[1:]] == ["Fig. 4b", "Fig. 9a", "Fig. 9b"]
    again = RunOptions(master="serial", quick=True, seeds=("1",), force=True, progress=bar)
    events.clear()
    reproduce(["4b"], tmp_path / "r", again)  # resumed: the bar starts full
    # 9a and 9b stay in the report, checked again from 9a's runs (nothing runs: bar full)
    assert events == [
        ("Fig. 4b", "start", 3, 3),
        ("Fig. 4b", "stop"),
        ("Fig. 9a", "start", 3, 3),
        ("Fig. 9a", "stop"),
    ]
    report = (tmp_path / "r" / "README.md").read_text(encoding="utf-8")
    assert all(f"## Figure {f}\n" in report for f in ("4b", "9a", "9b"))
    assert "2 figures kept from the earlier report in this folder" in report
    assert all((tmp_path / "r" / f"fig{f}.png").is_file() for f in ("4b", "9a", "9b"))


def test_an_interrupted_reproduction_keeps_its_finished_tasks_and_resumes_them(
    tmp_path, run_cli, monkeypatch
):
    sweep_helpers.count_batches(monkeypatch, interrupt_at=3)
    out = tmp_path / "r"
    command = ("reproduce", "4b", "-o", out, "--quick", "--master", "serial")
    code, _, err = run_cli(*command)
    assert code == 130
    assert err == (
        f"error: interrupted: while running figure 4b; finished tasks kept in {out / 'runs'}, "
        "the same command resumes them\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]  # no staging folder left
    assert sorted(p.name for p in out.iterdir()) == ["runs"]
    assert len(list((out / "runs" / "fig4b" / "parts").glob("*.parquet"))) == 2
    monkeypatch.undo()
    calls = sweep_helpers.count_batches(monkeypatch)
    code, stdout, err = run_cli(*command)  # no --force: the folder holds only runs/
    assert code == 0, err
    assert len(calls) == 9 - 2 and "Fig. 4b: 9 tasks" in stdout  # 3 points x 3 seeds
    assert (out / "README.md").is_file() and (out / "fig4b.png").is_file()


def test_reproduce_refuses_bad_input_and_leaves_nothing(tmp_path, run_cli, monkeypatch):
    code, _, err = run_cli("reproduce", "13z", "-o", tmp_path / "r")
    assert code == 1 and err.startswith("error: no figure '13z'") and err.count("\n") == 1
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "r", "--seeds", "4b=many")
    assert code == 1 and err == "error: --seeds 4b=many: give N or FIG=N with a whole number N\n"
    code, _, err = run_cli("reproduce", "-o", tmp_path / "r", "--seeds", "99z=2")
    assert code == 1 and err.startswith("error: no figure '99z'")
    (tmp_path / "file").write_text("x")
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "file")
    assert code == 1 and "is a file" in err and err.count("\n") == 1
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "no" / "such" / "r")
    assert code == 1 and "does not exist" in err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "full", "--quick")
    assert code == 1 and "is not empty" in err
    import inev.experiments.sweep as sweep

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device", "part.parquet")

    monkeypatch.setattr(sweep, "run_sweep", broken)
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "r", "--quick", "--master", "serial")
    assert code == 1 and err == "error: part.parquet: no space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "full"]
    from pathlib import Path

    def unwritable(self, *args, **kwargs):  # as a read-only or virtual parent folder says
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", unwritable)
    code, _, err = run_cli("reproduce", "4b", "-o", tmp_path / "r", "--quick", "--master", "serial")
    assert err == f"error: {tmp_path / 'r'}: cannot write the report here (Permission denied)\n"
    assert code == 1


def test_scatter_plot_draws_one_point_per_row(tmp_path):
    from inev.experiments.plot import PlotOptions, plot, scatter_series
    from inev.experiments.results import rows_to_table

    rows = [
        {
            "task_id": str(i),
            "task_index": i,
            "seed": i,
            "method": "inev",
            "ratio": r,
            "sim_ratio": r,
            "sim_latency_ratio": lat,
            "error": None,
        }
        for i, (r, lat) in enumerate([(0.01, 0.5), (0.1, 0.9), (0.5, 1.2)])
    ]
    table = rows_to_table(rows)
    data = scatter_series(table, "sim_ratio", "sim_latency_ratio")
    assert [(p[0], p[2]) for p in next(iter(data.values()))] == [
        (0.01, 0.5),
        (0.1, 0.9),
        (0.5, 1.2),
    ]
    target = plot(
        table,
        tmp_path / "s.svg",
        PlotOptions(x="sim_ratio", y="sim_latency_ratio", scatter=True, log_x=True),
    )
    assert 'id="points-0"' in target.read_text()


def test_presets_are_package_data():
    folder = resources.files("inev.experiments")
    assert (folder / "claims.toml").is_file()
    document = tomllib.loads((folder / "presets" / "fig10b.toml").read_text(encoding="utf-8"))
    assert document["base"]["effort"] == 0.0 and document["base"]["query_orders"] == 50
    assert os.path.basename(str(folder)) == "experiments"
