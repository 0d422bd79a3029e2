"""``inev plan`` from the command line: output file, summary line, errors."""

from __future__ import annotations

import json

import pytest

from inev.experiments.cli import main
from inev.planner.checks import check_plan
from inev.planner.plan import load_plan
from inev.topologies.generate import generate_network
from inev.topologies.io import load_network, save_network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload


@pytest.fixture
def files(tmp_path):
    net = generate_network(seed=3)
    save_network(net, tmp_path / "net.json")
    save_workload(generate_workload(net, queries=2, seed=3), tmp_path / "wl.json")
    return tmp_path


@pytest.mark.parametrize("method", ["inev", "centralized", "isolated", "ppop"])
def test_plan_command_writes_plan(files, capsys, method):
    out = files / "plan.json"
    main(
        [
            "plan",
            str(files / "net.json"),
            str(files / "wl.json"),
            "-o",
            str(out),
            "--method",
            method,
        ]
    )
    line = capsys.readouterr().out.strip().splitlines()[0]
    doc = json.loads(out.read_text())
    assert doc["format"] == "inev-plan/1" and doc["method"] == method
    assert line.startswith(f"method={method} psi=")
    assert f"ratio={doc['ratio']:.6g}" in line
    plan = load_plan(out)
    if method != "ppop":
        assert check_plan(plan, load_network(files / "net.json")) == []
    assert plan.psi == pytest.approx(sum(v["cost"] for v in doc["vertices"]))


def test_plan_explain_names_multi_node(files, capsys):
    main(
        [
            "plan",
            str(files / "net.json"),
            str(files / "wl.json"),
            "-o",
            str(files / "p.json"),
            "--explain",
        ]
    )
    text = capsys.readouterr().out
    doc = json.loads((files / "p.json").read_text())
    for key, part in doc["multi_node"].items():
        assert f"{key} <- " in text and f"sources of {part}" in text and "Eq. 1" in text


def test_plan_bad_input_leaves_no_file(files, capsys):
    (files / "bad.json").write_text('{"format": "inev-workload/1", "window": 1, "queries": []}')
    with pytest.raises(SystemExit) as exc:
        main(
            ["plan", str(files / "net.json"), str(files / "bad.json"), "-o", str(files / "x.json")]
        )
    assert exc.value.code == 1
    assert capsys.readouterr().err.startswith("error: ")
    assert not (files / "x.json").exists()
