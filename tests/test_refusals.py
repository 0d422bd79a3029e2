"""Refusals say where and what instead: the file, the entry, the names that would do (issue 30)."""

from __future__ import annotations

import json

import pytest

NET = ["network", "generate", "--nodes", "10", "--event-types", "4", "--seed", "1"]


@pytest.fixture
def files(run_cli, tmp_path):
    net, wl, plan = tmp_path / "net.json", tmp_path / "wl.json", tmp_path / "plan.json"
    assert run_cli(*NET, "-o", net)[0] == 0
    assert run_cli("workload", "generate", "--network", net, "--length", "3", "-o", wl)[0] == 0
    assert run_cli("plan", net, wl, "-o", plan)[0] == 0
    return net, wl, plan


@pytest.mark.parametrize("command", ["repair", "simulate"])
def test_a_bad_change_names_the_changes_file_the_entry_and_the_nodes(
    run_cli, files, tmp_path, command
):
    net, wl, plan = files
    changes = tmp_path / "changes.json"
    entries = [
        {"time": 1.0, "kind": "swap-rates", "types": ["A", "B"]},
        {"time": 2.0, "kind": "node-down", "node": 99},
    ]
    changes.write_text(json.dumps({"format": "inev-changes/1", "changes": entries}))
    args = [net, wl, plan] if command == "simulate" else [plan, net, wl]
    code, _, err = run_cli(command, *args, "--changes", changes, "-o", tmp_path / "out.json")
    assert code == 1 and not (tmp_path / "out.json").exists()
    assert err == (
        f"error: {changes}: change #2 (node-down): cannot remove unknown node 99 "
        "(the network's nodes: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)\n"
    )


def test_an_unknown_type_in_a_change_lists_the_network_types(run_cli, files, tmp_path):
    net, wl, plan = files
    changes = tmp_path / "changes.json"
    entry = {"time": 1.0, "kind": "set-rate", "type": "Q", "rate": 3}
    changes.write_text(json.dumps({"format": "inev-changes/1", "changes": [entry]}))
    code, _, err = run_cli("repair", plan, net, wl, "--changes", changes, "-o", tmp_path / "r")
    assert code == 1 and err == (
        f"error: {changes}: change #1 (set-rate): unknown event type 'Q' for this network "
        "(the network's types: A, B, C, D)\n"
    )


def test_an_unknown_sweep_parameter_suggests_the_closest_and_lists_them_all(run_cli, tmp_path):
    from inev.experiments.spec import DEFAULTS

    spec = tmp_path / "s.toml"
    spec.write_text("[axes]\nskw = [1.2]\n[base]\nnodes = 10\n", encoding="utf-8")
    code, _, err = run_cli("sweep", spec, "-o", tmp_path / "r")
    assert code == 1 and not (tmp_path / "r").exists()
    assert err == (
        f"error: {spec}: unknown parameter 'skw' in [axes] (did you mean 'skew'?); known: "
        f"{', '.join(sorted(DEFAULTS))}\n"
    )


def test_a_simulation_too_large_says_which_total_rate_fits(run_cli, tmp_path):
    net, wl, plan = tmp_path / "net.json", tmp_path / "wl.json", tmp_path / "p.json"
    run_cli("network", "generate", "--nodes", "10", "--skew", "1.1", "--seed", "1", "-o", net)
    run_cli("workload", "generate", "--network", net, "-o", wl)
    run_cli("plan", net, wl, "-o", plan)
    code, _, err = run_cli("simulate", net, wl, plan, "--duration", "10", "-o", tmp_path / "s")
    assert code == 1 and err.startswith("error: about ")
    assert err.endswith(
        "exceed the limit of 5e+06: shorten the duration or lower the rates (--total-rate "
        "200000 with --method rescales every rate to fit this limit)\n"
    )
