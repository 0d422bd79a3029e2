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


# The files whose tests take longest (a minute and more on a loaded two-core machine, the
# durations of `pytest --durations=0`), longest first. pytest-xdist hands the tests out in
# collection order, so these go first: the workers' last tests are then short ones and both
# stay busy till the end (alphabetically, a two-minute property test could start last).
SLOW_FIRST = (
    "test_planner_properties.py",
    "test_planner_repair.py",
    "test_quality_gates.py",
    "test_sweep.py",
    "test_experiments.py",
    "test_search_misses.py",
    "test_own_plans.py",
    "test_incremental.py",
    "test_regional.py",
    "test_reproduce.py",
    "test_interrupts.py",
)


def pytest_collection_modifyitems(config, items):
    """Move the tests of the SLOW_FIRST files to the front, in that order (the rest keep theirs)."""
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))
