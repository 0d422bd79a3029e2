"""Ctrl-C and SIGTERM at several moments of a Spark sweep: one error line, no process left,
no partial folder (issue 30).

Each run is a real ``inev sweep`` in a process of its own (a session of its own, so that the
signal reaches it alone, as ``kill -INT`` would). The moment is found from what the run is
doing, not from a clock: the JVM has appeared below it (Spark is starting), PySpark's worker
daemon has (the workers start), the first Parquet part is written (tasks run). Every process
seen below the run is recorded while it runs; none may be alive after it ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inev.common.processes import alive, descendants
from inev.experiments.provenance import task_versions
from inev.experiments.results import finished_task_ids

SPEC = """\
name = "interrupted"
seeds = 10
methods = ["inev", "centralized"]
[base]
nodes = 16
[axes]
skew = [1.3, 1.7]
selectivity = [0.1, 0.01]
"""


WATCHDOG = 900
"""Seconds after which a sweep that never reaches its moment counts as hanging (the moments
come within seconds on an idle machine; a machine loaded eight-fold took over a minute)."""


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _java(pids: list[int]) -> bool:
    return any("java" in _command_line(p) or "spark-submit" in _command_line(p) for p in pids)


def _workers(pids: list[int]) -> bool:
    return any("pyspark.daemon" in _command_line(p) for p in pids)


def _parts(out: Path) -> bool:
    return any((out / "parts").glob("part-*.parquet"))


def _in_session(sid: int) -> list[int]:
    """Living processes of session ``sid`` (the run's own, since it started one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text(errors="replace")
            except OSError:
                continue
            fields = text[text.rfind(")") + 2 :].split()
            if int(fields[3]) == sid and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def _record(seen: dict[int, set[str]], pids: list[int]) -> None:
    for p in pids:
        seen.setdefault(p, set()).add(_command_line(p))


def interrupt(tmp_path: Path, moment, signum: signal.Signals) -> tuple[int, str, list[str]]:
    """Run the sweep, send ``signum`` when ``moment(pids below, output folder)`` first holds;
    return the exit status, the error output and the command lines of every process seen
    below the run."""
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC, encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "r"
    command = ["sweep", str(spec), "-o", str(out), "--master", "local[2]"]
    run = subprocess.Popen(
        [sys.executable, "-m", "inev.common.cli", *command],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary), "INEV_DEBUG": ""},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    seen: dict[int, set[str]] = {}  # every command line of a process: a pid may exec (bash -> java)
    # wait for the moment, however long a loaded machine takes to reach it; the watchdog only
    # keeps a run that hangs from hanging the suite
    watchdog = time.monotonic() + WATCHDOG
    while run.poll() is None and time.monotonic() < watchdog:
        below = descendants(run.pid)
        _record(seen, below)
        if moment(below, out):
            run.send_signal(signum)
            break
        time.sleep(0.02)
    else:
        ended = run.poll() is not None
        run.kill()
        run.wait()
        pytest.fail(
            "the sweep ended before the moment came"
            if ended
            else f"the sweep reached no moment in {WATCHDOG} s: it hangs"
        )
    while run.poll() is None:
        _record(seen, descendants(run.pid))
        time.sleep(0.02)
    _, err = run.communicate(timeout=60)
    left = [p for p in seen if alive(p)] + _in_session(run.pid)
    assert not left, f"processes outlived inev: {[_command_line(p) for p in left]}"
    assert sorted(p.name for p in temporary.iterdir()) in ([], ["inev-spark"])
    return run.returncode, err.decode(), sorted(set().union(*seen.values()))


def _check_folder(tmp_path: Path) -> None:
    """Only the spec and the sweep folder (if a task finished), without temporary files."""
    names = sorted(p.name for p in tmp_path.iterdir() if p.name != "tmp")
    assert names in (["spec.toml"], ["r", "spec.toml"])
    out = tmp_path / "r"
    if out.exists():
        parts = sorted(p.name for p in (out / "parts").iterdir())
        assert parts and all(p.startswith("part-") and p.endswith(".parquet") for p in parts)
        names = [".inev.lock", "parts", "provenance.jsonl", "spec.json"]
        assert sorted(p.name for p in out.iterdir()) == names
        # an interrupted run still records which code computed the parts it leaves
        assert set(task_versions(out)) == finished_task_ids(out)


MOMENTS = {
    "SIGINT, Spark starting": (lambda pids, out: _java(pids), signal.SIGINT),
    "SIGTERM, workers starting": (lambda pids, out: _workers(pids), signal.SIGTERM),
    "SIGINT, tasks running": (lambda pids, out: _parts(out), signal.SIGINT),
}
"""Three moments, each with a Spark start of its own (a few seconds each on an idle machine)."""


@pytest.mark.spark
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("name", list(MOMENTS))
def test_an_interrupt_at_any_moment_of_a_spark_sweep_is_one_line_and_leaves_nothing(tmp_path, name):
    moment, signum = MOMENTS[name]
    code, err, seen = interrupt(tmp_path, moment, signum)
    assert any("java" in line for line in seen)  # the moment came with Spark running
    assert any("pyspark.daemon" in line for line in seen) or "Spark starting" in name
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert code == (130 if signum == signal.SIGINT else 143)
    assert err.count("\n") == 1 and err.startswith(f"error: {word}"), err
    _check_folder(tmp_path)
    if name.endswith("tasks running"):
        assert "run the same command again to resume" in err
