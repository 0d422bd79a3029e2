"""The network and workload commands: outputs, determinism, one-line errors, no partial files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NET_ARGS = [
    "network",
    "generate",
    "--nodes",
    "20",
    "--out-degree",
    "3",
    "--event-types",
    "6",
    "--skew",
    "1.3",
    "--node-ratio",
    "0.5",
    "--seed",
    "1",
]


def wl_args(net):
    return [
        "workload",
        "generate",
        "--network",
        net,
        "--queries",
        "1",
        "--length",
        "6",
        "--kleene",
        "0",
        "--negation",
        "0",
        "--selectivity",
        "0.1",
        "--seed",
        "1",
    ]


def test_spec_commands_are_byte_identical_for_the_same_seed(run_cli, tmp_path):
    for name in ("a", "b"):
        code, out, _ = run_cli(*NET_ARGS, "-o", tmp_path / f"net-{name}.json")
        assert code == 0 and "20 nodes" in out
        code, out, _ = run_cli(
            *wl_args(tmp_path / f"net-{name}.json"), "-o", tmp_path / f"wl-{name}.json"
        )
        assert code == 0 and "1 query over 6 event types" in out
    assert (tmp_path / "net-a.json").read_bytes() == (tmp_path / "net-b.json").read_bytes()
    assert (tmp_path / "wl-a.json").read_bytes() == (tmp_path / "wl-b.json").read_bytes()
    network = json.loads((tmp_path / "net-a.json").read_text())
    assert network["format"] == "inev-network/1" and len(network["nodes"]) == 20
    workload = json.loads((tmp_path / "wl-a.json").read_text())
    assert workload["format"] == "inev-workload/1"
    assert len(workload["queries"]) == 1


def test_show_commands(run_cli, tmp_path):
    run_cli(*NET_ARGS, "-o", tmp_path / "net.json")
    run_cli(*wl_args(tmp_path / "net.json"), "-o", tmp_path / "wl.json")
    code, out, _ = run_cli("network", "show", tmp_path / "net.json")
    assert code == 0 and "diameter 6" in out and "R(e) in all" in out
    code, out, _ = run_cli(
        "workload", "show", tmp_path / "wl.json", "--network", tmp_path / "net.json"
    )
    assert code == 0 and "q1" in out and "R(q)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["network", "generate", "--skew", "1.0"], "skew must be > 1"),
        (["network", "generate", "--node-ratio", "0"], "node ratio"),
        (["network", "generate", "--nodes", "0"], "at least one node"),
    ],
)
def test_bad_generator_input_exits_non_zero_without_output(run_cli, tmp_path, args, message):
    out_file = tmp_path / "out.json"
    code, _, err = run_cli(*args, "-o", out_file)
    assert code != 0
    assert err.strip().count("\n") == 0 and message in err and err.startswith("error: ")
    assert not out_file.exists()
    assert list(tmp_path.iterdir()) == []


def test_bad_files_exit_non_zero_with_one_line(run_cli, tmp_path, write_json):
    net = write_json(
        "net.json",
        {
            "format": "inev-network/1",
            "nodes": [0, 1, 2],
            "links": [[0, 1]],
            "event_types": {"A": {"rate": 1, "sources": [0]}},
        },
    )
    code, _, err = run_cli("network", "show", net)
    assert code == 1 and "disconnected" in err and err.count("\n") == 1
    good = tmp_path / "good.json"
    run_cli(*NET_ARGS, "-o", good)
    bad_wl = write_json(
        "wl.json",
        {
            "format": "inev-workload/1",
            "window": 1,
            "queries": [{"name": "q", "pattern": "SEQ(A, ZZ)"}],
        },
    )
    code, _, err = run_cli("workload", "show", bad_wl, "--network", good)
    assert code == 1 and err == (
        f"error: {bad_wl}: query q uses event type ZZ, which {good} does not have "
        "(its types: A, B, C, D, E, F)\n"
    )
    out_file = tmp_path / "w.json"
    code, _, err = run_cli(
        "workload", "generate", "--network", good, "--length", "9", "-o", out_file
    )
    assert code == 1 and "exceeds" in err and not out_file.exists()


def test_output_into_a_missing_folder_is_an_error(run_cli, tmp_path):
    code, _, err = run_cli(*NET_ARGS, "-o", tmp_path / "nowhere" / "net.json")
    assert code == 1 and "does not exist" in err


def test_console_script_process_exit_code(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "inev.common.cli",
            "network",
            "generate",
            "--skew",
            "0.9",
            "-o",
            str(tmp_path / "n.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: skew must be > 1")
    assert not (tmp_path / "n.json").exists()
