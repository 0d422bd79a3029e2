"""``inev sweep`` from the command line: the summary's metric, failed tasks, the folder's spec."""

from __future__ import annotations

import json

import sweep_helpers

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


def test_ctrl_c_keeps_the_finished_tasks_and_says_so_in_one_error_line(
    tmp_path, run_cli, monkeypatch
):
    sweep_helpers.count_batches(monkeypatch, interrupt_at=3)
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3, 4]"))
    out = tmp_path / "r"
    code, stdout, err = run_cli("sweep", spec, "-o", out, "--master", "serial")
    assert code == 130
    assert err.splitlines() == [
        f"error: interrupted: 2 of 4 tasks finished (2 run, 0 already done), kept in {out}; "
        "run the same command again to resume"
    ]
    assert "length" in stdout and not (out / "results.parquet").exists()
    assert len(list((out / "parts").glob("part-*.parquet"))) == 2
    monkeypatch.undo()
    code, stdout, _ = run_cli("sweep", spec, "-o", out, "--master", "serial")
    assert code == 0 and "4 tasks (2 run, 2 already done)" in stdout


def test_plot_checks_the_stored_plot_table_as_the_sweep_does(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]"))
    out = tmp_path / "r"
    assert run_cli("sweep", spec, "-o", out, "--master", "serial")[0] == 0
    record = json.loads((out / "spec.json").read_text())
    record["spec"]["plot"]["logx"] = True  # a hand edit of the folder's record
    (out / "spec.json").write_text(json.dumps(record))
    code, _, err = run_cli("plot", out, "-o", tmp_path / "f.png")
    assert code == 1 and len(err.splitlines()) == 1
    assert "unknown [plot] key 'logx' (did you mean 'log_x'?)" in err
    assert not (tmp_path / "f.png").exists()
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]") + "logx = true\n")
    code, _, err = run_cli("sweep", spec, "-o", tmp_path / "r2", "--master", "serial")
    assert code == 1 and "unknown [plot] key 'logx' (did you mean 'log_x'?)" in err


def test_a_sweep_refused_by_the_folder_lock_leaves_the_record_alone(tmp_path, run_cli):
    from inev.common.locks import folder_lock

    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]"))
    out = tmp_path / "r"
    assert run_cli("sweep", spec, "-o", out, "--master", "serial")[0] == 0
    before = (out / "spec.json").read_text()
    with folder_lock(out, "sweep"):
        code, _, err = run_cli("sweep", spec, "-o", out, "--master", "serial", "--force")
    assert code == 1 and "another sweep is writing into this folder" in err
    assert (out / "spec.json").read_text() == before and (out / "results.parquet").is_file()


def test_values_every_task_would_fail_on_are_refused_before_any_work(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    for line, message in (
        ("length = [0, 3]", "length must be at least 2, got 0"),
        ("skew = [1.0, 1.5]", "skew must be more than 1, got 1.0"),
        ("window = [0.0]", "window must be more than 0, got 0.0"),
    ):
        spec.write_text(SPEC.replace("length = [3, 6]", line))
        code, _, err = run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "serial")
        assert code == 1 and err.splitlines() == [f"error: {spec}: {message}"]
        assert not (tmp_path / "r").exists()


def test_show_refuses_results_without_the_columns_it_summarises(tmp_path, run_cli):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "r").mkdir()
    table = pa.table({"method": ["inev"], "error": [None], "skew": [1.1], "ratio": [0.5]})
    pq.write_table(table, tmp_path / "r" / "results.parquet")
    code, _, err = run_cli("show", tmp_path / "r")
    assert code == 1
    assert err.splitlines() == [f"error: {tmp_path / 'r'}: no 'task_id' column in the results; "
                                "cannot summarise them"]  # fmt: skip


def test_a_master_url_spark_would_not_take_is_refused_before_the_folder_is_made(tmp_path, run_cli):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]"))
    for master, message in (
        ("bogus", "--master bogus: not a Spark master URL"),
        ("local[2", "--master local[2: not a Spark master URL"),
        ("local[0]", "--master local[0]: local mode needs at least one thread"),
    ):
        for command in (["sweep", spec], ["reproduce", "4a", "--quick"], ["demo"]):
            code, _, err = run_cli(*command, "-o", tmp_path / "r", "--master", master)
            assert code == 1 and len(err.splitlines()) == 1
            assert err.startswith(f"error: {message}")
            assert not (tmp_path / "r").exists()


def test_spark_that_does_not_start_is_one_error_line_and_leaves_no_folder(
    tmp_path, run_cli, monkeypatch
):
    import inev.experiments.spark as spark

    class Builder:  # what SparkSession.builder does when the Java gateway exits
        def getOrCreate(self):
            raise RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited.\nmore")

    monkeypatch.setattr(spark, "spark_session", lambda master, **_: spark._start(Builder(), master))
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("length = [3, 6]", "length = [3]"))
    code, _, err = run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "local[1]")
    assert code == 1
    assert err.splitlines() == [
        "error: --master local[1]: Spark did not start ([JAVA_GATEWAY_EXITED] Java gateway "
        "process exited.); check the master URL and that Java 17 or later is installed, or "
        "run with --master serial"
    ]
    assert not (tmp_path / "r").exists()
    (tmp_path / "r").mkdir()  # a folder the user made stays
    assert run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "local[1]")[0] == 1
    assert (tmp_path / "r").is_dir()
