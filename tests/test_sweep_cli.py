"""``inev sweep`` from the command line: the summary's metric, failed tasks, the folder's spec."""

from __future__ import annotations

import json

SPEC = """
name = "t"
seeds = 2
methods = ["inev", "centralized"]
[base]
event_types = 4
[axes]
length = [3, 6]
[plot]
x = "length"
y = ["ratio", "projections"]
"""


def test_failed_tasks_are_listed_with_their_reason_and_the_exit_is_non_zero(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)  # length 6 > 4 event types: both seeds of that point fail
    out = tmp_path / "r"
    code, stdout, err = run_cli("sweep", spec, "-o", out, "--master", "serial")
    assert code == 1
    assert err.strip() == "error: 2 of 4 tasks failed (listed above); --allow-errors accepts them"
    listed = stdout[stdout.index("2 tasks failed:") :].splitlines()
    assert listed[1].strip().startswith("length=6, seeds 0–1: InevError: query length 6 exceeds")
    # the summary shows the spec's own metrics, with human names
    assert "transmission ratio (ψ / centralized):" in stdout
    assert "projections placed: median (IQR)" in stdout
    assert (out / "results.parquet").is_file()
    code, stdout, err = run_cli("sweep", spec, "-o", out, "--master", "serial", "--allow-errors")
    assert code == 0 and err == "" and "4 tasks (0 run, 4 already done)" in stdout


def test_the_folder_remembers_its_spec(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]"))
    out = tmp_path / "r"
    assert run_cli("sweep", spec, "-o", out, "--master", "serial")[0] == 0
    record = json.loads((out / "spec.json").read_text())
    assert record["identity"]["axes"] == {"length": [3]} and record["spec"]["name"] == "t"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [4]"))
    code, _, err = run_cli("sweep", spec, "-o", out, "--master", "serial")
    assert code == 1 and "different sweep (axis length: [3] there, [4] here)" in err
    code, stdout, _ = run_cli("sweep", spec, "-o", out, "--master", "serial", "--force")
    assert code == 0 and "2 tasks (2 run, 0 already done)" in stdout


def test_help_lists_presets_and_metrics(run_cli):
    code, stdout, _ = run_cli("sweep", "--help")
    assert code == 0 and "fig5a" in stdout and "lower bound" in stdout
    code, stdout, _ = run_cli("plot", "--help")
    assert code == 0 and "sim_latency_p99" in stdout and "ratio_to_lower_bound" in stdout
