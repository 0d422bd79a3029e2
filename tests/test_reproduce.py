"""The paper's figures: presets, figure workloads, derived metrics, claim checks, the report."""

from __future__ import annotations

import os
import tomllib
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest
import sweep_helpers

from inev.common.errors import InevError
from inev.experiments.claims import load_claims
from inev.experiments.measure import measure, plan_options, swap_pairs, task_inputs
from inev.experiments.spec import parse_spec, quick_document
from inev.experiments.sweep_parameters import TaskConfig
from inev.experiments.sweep_presets import preset_names, resolve_spec
from inev.topologies.generate import generate_network
from inev.workloads.paper_variants import counterpart, paper_workload
from inev.workloads.pattern import Operator, walk

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
            config = TaskConfig(length=6, operator_type=kind, **{config_key: 1})
            wl = paper_workload(net, config.workload_settings(), config.variant_settings(), seed)
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
        config = TaskConfig(queries=queries, length=5, kleene=1, negation=1, operator_share=1 / 3)
        wl = paper_workload(net, config.workload_settings(), config.variant_settings(), 4)
        carrying = [
            q.name
            for q in wl.queries
            if any(isinstance(p, Operator) and p.kind == "NSEQ" for p in walk(q.pattern))
        ]
        assert carrying == [f"q{i + 1}" for i in range(expected)]


def _variant_workload(net, config, seed):
    return paper_workload(net, config.workload_settings(), config.variant_settings(), seed)


def test_min_length_draws_each_query_length_as_the_authors_generator():
    net = generate_network(seed=4, event_types=25)
    config = TaskConfig(
        queries=40, length=6, min_length=3, kleene=1, negation=1, operator_share=1 / 3
    )
    lengths = [
        len(q.types)
        for q in paper_workload(
            net, config.workload_settings(), config.variant_settings(), 4
        ).queries
    ]
    assert min(lengths) == 3 and max(lengths) == 6 and set(lengths) == {3, 4, 5, 6}
    fixed = _variant_workload(net, replace(config, min_length=0), 4)
    assert {len(q.types) for q in fixed.queries} == {6}
    with pytest.raises(InevError, match="min_length 7 exceeds the query length 6"):
        _variant_workload(net, replace(config, min_length=7), 4)


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
    config = TaskConfig(queries=3, length=4, event_types=8, effort=0.0)
    rows = measure(config, 5, ("inev", "isolated", "ppop", "ppop-flouris", "centralized"))
    inev = rows["inev"]
    assert inev["sharing_ratio"] == pytest.approx(inev["cost"] / rows["isolated"]["cost"])
    assert inev["sharing_ratio"] <= 1 + 1e-9
    assert inev["ppop_over_inev"] == pytest.approx(rows["ppop"]["cost"] / inev["cost"])
    assert inev["flouris_over_inev"] == pytest.approx(rows["ppop-flouris"]["cost"] / inev["cost"])
    assert rows["ppop-flouris"]["cost"] >= rows["ppop"]["cost"] - 1e-9  # no predicate: dearer
    net, wl = task_inputs(config, 5)
    rates = [net.global_rate(t) for t in wl.types]
    assert inev["max_events_per_window"] == pytest.approx(max(rates))
    assert inev["min_events_per_window"] == pytest.approx(min(rates))
    # the yardstick: no exact method asked for, so the larger of approximation and bound
    assert inev["yardstick"] == pytest.approx(max(inev["approximate_bound"], inev["lower_bound"]))
    assert inev["ratio_to_yardstick"] == pytest.approx(inev["cost"] / inev["yardstick"])
    assert inev["yardstick_kind"] in ("approximation", "lower bound")
    assert inev["possible_projections"] == 3 * (2**4 - 4 - 2)  # flat queries: no negation
    ordered = measure(replace(config, query_orders=4), 5, ("inev", "centralized"))["inev"]
    assert ordered["order_std"] >= 0


@pytest.mark.parametrize(("kind", "wanted"), [("busiest", 0.5), ("rarest", 3.0)])
def test_events_per_window_set_the_window(kind, wanted):
    config = TaskConfig(events_per_window=wanted, window_type=kind, length=4)
    net, wl = task_inputs(config, 2)
    per_window = [net.global_rate(t) * wl.window for t in wl.types]
    assert (max if kind == "busiest" else min)(per_window) == pytest.approx(wanted)
    plain, _ = task_inputs(replace(config, events_per_window=0.0), 2)
    assert plain.global_rates() == net.global_rates()  # the rates stay, the window moves


def test_the_section_6_6_repair_is_reported_apart_from_the_fallback_and_replanning():
    config = TaskConfig(
        event_types=8, queries=2, length=4, effort=0.0, rate_swap=1.0, swap_from="middle"
    )
    for seed in range(4):
        row = measure(config, seed, ("inev", "centralized"))["inev"]
        assert 0 <= row["invalid_projection_share"] <= 1
        # the fallback answers the cheapest of the local repair, the old and centralized plan
        assert (
            row["repaired_ratio"] <= min(row["local_repair_ratio"], row["broken_ratio"], 1.0) + 1e-9
        )
        assert row["local_repair_gain"] == pytest.approx(
            row["local_repair_ratio"] / row["broken_ratio"]
        )
        assert row["repair_gain"] == pytest.approx(row["repaired_ratio"] / row["broken_ratio"])
        assert row["replan_gain"] == pytest.approx(row["replanned_ratio"] / row["broken_ratio"])
        fell_back = row["repair_kept"] != "local"
        assert row["repair_fallback"] == float(fell_back)
        if not fell_back:
            assert row["repaired_ratio"] == pytest.approx(row["local_repair_ratio"])
    still = measure(replace(config, rate_swap=0.0), 1, ("inev", "centralized"))["inev"]
    assert still["local_repair_ratio"] == still["broken_ratio"] == still["ratio"]
    assert still["repair_fallback"] == 0.0 and still["local_repair_gain"] == 1.0


def test_rates_varying_over_the_run_are_costed_epoch_by_epoch():
    from inev.experiments.dynamics import epoch_networks, rates_over_the_run
    from inev.planner.planning import plan_workload

    config = TaskConfig(event_types=8, queries=2, length=4, effort=0.0)
    net, wl = task_inputs(config, 3)
    plan = plan_workload(net, wl, "inev", plan_options(config))
    calm = rates_over_the_run(plan, net, wl, 1e-9, 3, seed=3)
    assert calm["rate_change_increase"] == pytest.approx(1.0, rel=1e-6)  # no change, no loss
    for epoch in epoch_networks(net, 0.5, 5, seed=3):
        for t in net.types:
            assert 0.5 * net.rate(t) - 1e-9 <= epoch.rate(t) <= 1.5 * net.rate(t) + 1e-9
    row = measure(
        replace(config, rate_variance=0.75, variance_epochs=4), 3, ("inev", "centralized")
    )
    varied = row["inev"]
    assert varied["rate_change_worst"] >= 0 and varied["rate_change_increase"] > 0
    assert varied["rate_change_increase"] == pytest.approx(
        rates_over_the_run(plan, net, wl, 0.75, 4, seed=3)["rate_change_increase"]
    )


def test_an_overloaded_centralized_node_finishes_late_and_its_throughput_is_measured():
    config = TaskConfig(
        nodes=8,
        length=3,
        skew=1.5,
        simulate=True,
        duration=10.0,
        sim_rate=20.0,
        overload=1.5,
        capacity_from="centralized",
    )
    rows = measure(config, 1, ("inev", "centralized"))
    central, inev = rows["centralized"], rows["inev"]
    # two thirds of the capacity it needs: after 10 time units of input the central node
    # still holds about half of it, 5 time units of work, and gets through 20 / 1.5
    assert central["sim_backlog"] == pytest.approx(0.5 * 10.0, rel=0.25)
    assert central["sim_throughput"] == pytest.approx(20.0 / 1.5, rel=0.15)
    assert inev["sim_backlog"] < 1.0 and inev["sim_throughput"] > central["sim_throughput"]
    assert inev["sim_throughput_ratio"] == pytest.approx(
        inev["sim_throughput"] / central["sim_throughput"]
    )
    assert inev["sim_load_ratio"] == pytest.approx(central["sim_load"] / inev["sim_load"])


def test_the_three_latency_graphs_are_ranked_by_hops():
    config = TaskConfig(nodes=10, length=3, skew=1.5, selectivity=0.5, simulate=True, duration=5.0)
    hops = [
        measure(replace(config, hop_rank=rank), 4, ("inev", "centralized"))["inev"]["sim_hops"]
        for rank in (1, 2, 3)
    ]
    assert hops == sorted(hops)


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
    # each figure first says what the rest of its tasks will cost (one task run, 2 to go)
    assert "Fig. 4b: estimate: first task " in stdout and "; 2 more ≈ " in stdout
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
    # a kept figure whose runs/ lost tasks has them run, and is then not called "not re-run"
    runs = tmp_path / "r" / "runs" / "fig9a"
    for part in [runs / "results.parquet", *(runs / "parts").glob("part-*")]:
        part.unlink()
    lines.clear()
    third = RunOptions(master="serial", quick=True, seeds=("1",), force=True, echo=lines.append)
    reproduce(["4b"], tmp_path / "r", third)
    completed = "(kept from the report; the tasks its runs/ missed were run)"
    assert [completed in line for line in lines[1:]] == [False, True, True]
    report = (tmp_path / "r" / "README.md").read_text(encoding="utf-8")
    assert "kept from the earlier report" not in report


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
