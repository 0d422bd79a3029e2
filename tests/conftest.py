"""Shared fixtures and helpers for the inev test suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The default profile is derandomized: every run of the suite (and CI) tries the same
# examples, so a red run is reproducible. `pytest --hypothesis-profile=explore` draws new ones.
settings.register_profile(
    "inev",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile(
    "explore", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("inev")


@pytest.fixture
def run_cli(capsys):
    """Run the ``inev`` command in-process; return (exit code, stdout, stderr)."""
    from inev.common.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        code = 0
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def write_json(tmp_path: Path):
    """Write a JSON document to a file in the test's folder and return its path."""

    def write(name: str, document: object) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(document), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def spark():
    """One shared local Spark session for the whole test run (no UI, quiet logs)."""
    from inev.experiments.spark import spark_session

    session = spark_session("local[2]", app_name="inev-tests")
    yield session
    session.stop()
