"""Signals, the memory watchdog, temporary files, and the docstring examples of the guards."""

from __future__ import annotations

import doctest
import importlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from inev.common.errors import InevError
from inev.common.files import atomic_output, remove_stale_temporaries, temporary_name
from inev.common.watchdog import MemoryLimitExceeded, parse_size, resident_bytes, watch_memory

# A command whose output is written slowly: `inev network show` with topologies.io's load_network patched to
# write half a file through atomic_output and wait, so that a signal arrives mid-write.
SLOW_WRITER = textwrap.dedent(
    """
    import sys, time
    import inev.topologies.io as io
    from inev.common.files import atomic_output

    def slow(path):
        with atomic_output(sys.argv[1]) as handle:
            handle.write("half")
            handle.flush()
            print("writing", flush=True)
            time.sleep(60)

    io.load_network = slow  # what `inev network show` reads the network with
    from inev.common.cli import main
    main(["network", "show", "net.json"])
    """
)


@pytest.mark.parametrize(
    ("signum", "status", "message"),
    [(signal.SIGTERM, 143, "error: terminated"), (signal.SIGINT, 130, "error: interrupted")],
)
def test_a_signal_mid_write_leaves_no_file(tmp_path, signum, status, message):
    (tmp_path / "net.json").write_text("{}")
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER, str(tmp_path / "out.json")],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "writing"
    assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    process.send_signal(signum)
    _, err = process.communicate(timeout=30)
    assert process.returncode == status
    assert err.strip() == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.json"]


def test_stale_temporaries_of_dead_processes_go_and_live_ones_stay(tmp_path):
    target = tmp_path / "out.json"
    mine = temporary_name(target)
    mine.write_text("being written by this process")
    dead = tmp_path / ".out.json.999999999-00ff00ff.tmp"
    dead.write_text("left by a killed run")
    other = tmp_path / ".other.json.999999999-00ff00ff.tmp"
    other.write_text("another target's")
    assert remove_stale_temporaries(target) == [dead]
    assert mine.exists() and other.exists() and not dead.exists()


def test_atomic_output_refuses_a_folder_as_target(tmp_path):
    with pytest.raises(InevError, match="is a folder"), atomic_output(tmp_path):
        pass


def test_parse_size():
    assert parse_size("512M") == 512 * 2**20
    assert parse_size("8g") == 8 * 2**30
    assert parse_size("1000") == 1000
    assert parse_size("2GiB") == 2 * 2**30
    with pytest.raises(InevError, match="not a size"):
        parse_size("lots")


def _grow_under_the_watchdog() -> list[bytearray]:
    """Allocate up to 2 GB under a watchdog 150 MB above what the process holds; once over
    the limit, give the watchdog 10 s to interrupt (its thread may not run at once on a
    loaded machine). Returns what was allocated when it stopped the run."""
    limit = resident_bytes() + 150 * 2**20
    chunks = []
    with pytest.raises(MemoryLimitExceeded, match="memory use reached"):  # noqa: SIM117
        with watch_memory(limit=limit, interval=0.02):
            for _ in range(400):
                chunks.append(bytearray(5 * 2**20))
                if resident_bytes() > limit:
                    deadline = time.monotonic() + 10.0
                    while time.monotonic() < deadline:
                        sum(range(200))
                    break
    return chunks


@pytest.mark.skipif(resident_bytes() is None, reason="needs /proc/self/statm")
def test_the_watchdog_stops_a_growing_run():
    chunks = _grow_under_the_watchdog()
    assert len(chunks) < 400
    del chunks


@pytest.mark.skipif(resident_bytes() is None, reason="needs /proc/self/statm")
def test_the_watchdog_stops_a_run_that_ignores_sigint():
    # `cmd &` in a shell without job control starts Python with SIGINT ignored, so the
    # watchdog's interrupt did nothing (this test's first form failed in every full run
    # started that way); the block gets Python's handler and SIG_IGN comes back after it.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        chunks = _grow_under_the_watchdog()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert len(chunks) < 400
    del chunks


GROWING_COMMAND = textwrap.dedent(
    """
    import inev.topologies.io as io

    def grow(path):
        chunks = []
        while True:
            chunks.append(bytearray(8 * 2**20))
            sum(range(20000))

    io.load_network = grow
    from inev.common.cli import main
    main(["network", "show", "net.json"])
    """
)


@pytest.mark.skipif(resident_bytes() is None, reason="needs /proc/self/statm")
def test_a_command_over_the_memory_limit_ends_with_one_line(tmp_path):
    (tmp_path / "net.json").write_text("{}")
    env = {**os.environ, "INEV_MAX_MEMORY": "400M"}
    result = subprocess.run(
        [sys.executable, "-c", GROWING_COMMAND],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: memory use reached"), result.stderr
    assert "over the limit of 0.39 GiB" in lines[0]


@pytest.mark.parametrize(
    "module",
    [
        "inev.common.files",
        "inev.common.paths",
        "inev.common.locks",
        "inev.common.validation",
        "inev.common.watchdog",
        "inev.topologies.schema",
        "inev.workloads.schema",
        "inev.planner.schema",
        "inev.planner.fingerprint",
        "inev.common.cli",
    ],
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
