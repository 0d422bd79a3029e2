"""Sweeps over the real planner: every preset at small size, the demo, the plot command."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from inev.experiments.measure import measure, swap_rates, task_inputs
from inev.experiments.spec import parse_spec, quick_document
from inev.experiments.sweep import run_sweep
from inev.experiments.sweep_parameters import TaskConfig
from inev.experiments.sweep_presets import preset_names, resolve_spec
from inev.topologies.generate import generate_network


def shrunk(document):
    """The preset at its [quick] scale with one seed and at most two values per axis."""
    small = dict(quick_document(document), seeds=1)
    small["axes"] = {
        k: (v[:2] if isinstance(v, list) else v) for k, v in document.get("axes", {}).items()
    }
    for key, value in small["axes"].items():
        if isinstance(value, dict):
            small["axes"][key] = [value["start"], value["start"] + value["step"]]
    return small


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_runs_at_small_size_and_plots(name, tmp_path, run_cli):
    _, document = resolve_spec(name)
    spec = parse_spec(shrunk(document))
    outcome = run_sweep(spec, tmp_path / "r", master="serial")
    rows = outcome.table.to_pylist()
    assert len(rows) == spec.size * len(spec.methods)
    assert all(r["error"] is None for r in rows), [r["error"] for r in rows if r["error"]]
    # the folder needs the spec for the plot defaults: write it as the sweep command does
    from inev.common.files import write_json_document

    write_json_document(tmp_path / "r" / "spec.json", {"format": "inev-sweep/1", "spec": document})
    code, _out, err = run_cli("plot", tmp_path / "r", "-o", tmp_path / "f.png")
    assert code == 0, err
    assert (tmp_path / "f.png").stat().st_size > 5000


def test_measure_rows_are_consistent():
    config = TaskConfig(skew=1.2)
    rows = measure(config, 3, ("inev", "centralized", "lower_bound"))
    central = rows["centralized"]
    assert central["ratio"] == pytest.approx(1.0)
    assert rows["inev"]["centralized_cost"] == pytest.approx(central["cost"])
    assert rows["inev"]["cost"] <= central["cost"] * (1 + 1e-9)
    assert rows["inev"]["ratio"] == pytest.approx(rows["inev"]["cost"] / central["cost"])
    assert rows["lower_bound"]["cost"] == pytest.approx(rows["inev"]["lower_bound"])
    network, workload = task_inputs(config, 3)
    again, _ = task_inputs(config, 3)
    assert network.local_rates() == again.local_rates()
    assert len(workload.queries) == config.queries


def test_simulated_rows_match_centralized_evaluation():
    for seed in range(3):
        config = TaskConfig(simulate=True, length=3, selectivity=0.5, duration=10.0, sim_rate=20.0)
        rows = measure(config, seed, ("inev", "centralized"))
        for method in ("inev", "centralized"):
            assert rows[method]["sim_equal"] is True
            assert rows[method]["sim_messages"] >= 0
        assert rows["centralized"]["sim_ratio"] == pytest.approx(1.0)


def test_swap_rates_exchanges_pairs_of_types():
    net = generate_network(event_types=6, seed=4)
    swapped = swap_rates(net, 1.0, seed=1)
    assert sorted(swapped.local_rates().values()) == sorted(net.local_rates().values())
    moved = [t for t in net.types if swapped.rate(t) != net.rate(t)]
    assert len(moved) >= 2 or len(set(net.local_rates().values())) < 6
    assert swap_rates(net, 0.0, seed=1) is net


def test_sweep_and_plot_commands(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "t"\nseeds = 2\nmethods = ["inev", "centralized"]\n'
        '[axes]\nskew = [1.2, 1.6]\n[plot]\nx = "skew"\n'
    )
    code, out, err = run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "serial")
    assert code == 0, err
    assert "4 tasks (4 run, 0 already done)" in out
    table = pq.read_table(tmp_path / "r" / "results.parquet")
    assert table.num_rows == 8
    code, out, _ = run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "serial")
    assert "4 tasks (0 run, 4 already done)" in out
    code, out, err = run_cli("plot", tmp_path / "r", "-o", tmp_path / "p.svg", "--method", "inev")
    assert code == 0 and (tmp_path / "p.svg").read_text().startswith("<?xml")
    code, _, err = run_cli("sweep", "no-such-preset", "-o", tmp_path / "x")
    assert code == 1 and "no such file or preset" in err
    bad = tmp_path / "bad.toml"
    bad.write_text("seeds = [\n")
    code, _, err = run_cli("sweep", bad, "-o", tmp_path / "y")
    assert code == 1 and "invalid TOML" in err and err.count("\n") == 1
