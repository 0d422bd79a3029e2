"""Running tasks into a results folder: the one path of sweeps and what-if studies.

A run makes its folder (or finds it), holds the folder's lock so that a second run into it
stops at once, lets the caller *claim* the folder (refuse another run's folder, or start it
over), runs the tasks not yet done, serially in this process or on Spark, each batch a
Parquet part written by whoever computed it, records which code computed them
(:mod:`inev.experiments.provenance`), and removes a folder it made when nothing finished in it
(refused, Spark did not start, interrupted before the first task finished).
:func:`inev.experiments.sweep.run_sweep` and :func:`inev.experiments.whatif_run.run_whatif`
differ only in their claim, their tasks and their rows.

>>> import tempfile
>>> from pathlib import Path
>>> from inev.common.errors import InevError
>>> def refuse(out):
...     raise InevError("not this folder")
>>> target = Path(tempfile.mkdtemp()) / "new"
>>> try:
...     in_folder(target, "demo", refuse, lambda out: None)
... except InevError as exc:
...     print(exc)
not this folder
>>> target.exists()  # made by the run, removed again: nothing finished in it
False
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from inev.common.errors import InevError
from inev.common.files import remove_stale_temporaries
from inev.common.interrupts import Terminated
from inev.common.locks import folder_lock
from inev.experiments.cost_estimate import SweepEstimate, workers_of
from inev.experiments.provenance import code_version, record_run
from inev.experiments.results import write_part
from inev.experiments.spark import DEFAULT_MASTER

Rows = list[dict[str, Any]]
Writer = Callable[[str, Rows], Any]


class Outcome(Protocol):
    """What :func:`in_folder` needs of a run's outcome."""

    interrupted: bool
    path: Path

    @property
    def finished(self) -> int:
        """Tasks with rows in the folder, from this run and before."""
        ...


AnOutcome = TypeVar("AnOutcome", bound=Outcome)
Task = TypeVar("Task")
"""A task of a sweep (:class:`inev.experiments.spec.Task`) or a what-if case: anything with a
``task_id`` that ``batch`` computes and Spark can pickle."""


@dataclass(frozen=True)
class Runner:
    """Where and how the pending tasks run.

    Parameters
    ----------
    master
        A Spark master URL (``local[*]``, ``spark://…``) or ``serial``: this process.
    parallelism
        Spark partitions (default: the session's parallelism).
    write
        ``write(folder, rows)`` writes one batch as a part file (default
        :func:`inev.experiments.results.write_part`).
    app_name
        The Spark application's name.
    """

    master: str = DEFAULT_MASTER
    parallelism: int | None = None
    write: Writer = write_part
    app_name: str = "inev-sweep"


def in_folder(
    folder: str | Path, kind: str, claim: Callable[[Path], None], body: Callable[[Path], AnOutcome]
) -> AnOutcome:
    """Run ``body(out)`` in the folder ``folder`` under its lock, after ``claim(out)``.

    Parameters
    ----------
    folder
        The results folder; made when absent (a file there is refused).
    kind
        The lock's name (:func:`inev.common.locks.folder_lock`).
    claim
        Checks the folder is this run's, or raises :class:`InevError`; it runs under the
        lock, so that a ``--force`` that removes old parts cannot race another run.
    body
        The run; its outcome's ``interrupted``, ``finished`` and ``path`` are read.

    Returns
    -------
    The body's outcome. When the run was interrupted with nothing finished in a folder it
    made, the folder is removed and ``path`` names it.
    """
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise InevError(f"{folder}: exists and is not a folder")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with folder_lock(out, kind):
            claim(out)
            outcome = body(out)
    except (InevError, Terminated):
        _remove_if_unused(out, created)
        raise
    if outcome.interrupted and outcome.finished == 0 and _remove_if_unused(out, created):
        outcome.path = out
    return outcome


def run_pending(
    todo: Sequence[Task],
    batch: Callable[[list[Task]], Rows],
    out: Path,
    runner: Runner,
    finished_ids: Callable[[], set[str]],
    advance: Callable[[int], None] | None = None,
    estimate: Callable[[SweepEstimate], None] | None = None,
) -> bool:
    """Run ``todo`` into ``out/parts``; whether a Ctrl-C interrupted it.

    Parameters
    ----------
    todo
        The tasks without rows yet, in the order to run them.
    batch
        ``batch(tasks)`` computes the rows of some tasks.
    out
        The results folder (its lock held).
    runner
        Where the tasks run and how parts are written.
    finished_ids
        The ids of the tasks with rows in the folder (read before and after the run: the
        difference is what this code computed).
    advance
        Called with the number of newly finished tasks.
    estimate
        If given, the first task runs alone (on Spark: as a job of its own, at the workers'
        pace) and ``estimate`` hears what the rest will cost.

    Returns
    -------
    ``True`` when a ``KeyboardInterrupt`` ended the run (the finished parts stay).
    """
    code = code_version()  # the code as the run starts (the checkout may move while it runs)
    before = finished_ids()
    try:
        if todo:
            _run_todo(list(todo), batch, out, runner, advance, estimate)
    except KeyboardInterrupt:
        return True
    finally:
        remove_dead_temporaries(out / "parts")  # of workers ended in the middle of a part
        record_run(out, finished_ids() - before, code)
    return False


def _run_todo(
    todo: list[Task],
    batch: Callable[[list[Task]], Rows],
    out: Path,
    runner: Runner,
    advance: Callable[[int], None] | None,
    estimate: Callable[[SweepEstimate], None] | None,
) -> None:
    """Run ``todo``: serially here, or on Spark (started first, so that a Spark that does
    not start leaves nothing)."""
    session = None
    if runner.master != "serial":
        from inev.experiments.spark import spark_session

        session = spark_session(runner.master, app_name=runner.app_name)

    def run(tasks: list[Task]) -> None:
        if session is None:
            for task in tasks:
                runner.write(str(out), batch([task]))
                if advance:
                    advance(1)
            return
        from inev.experiments.spark import run_tasks

        run_tasks(session, tasks, batch, str(out), runner.parallelism, advance, write=runner.write)

    if estimate is not None:
        began = time.perf_counter()
        run(todo[:1])
        seconds = time.perf_counter() - began
        workers = workers_of(runner.master, runner.parallelism)
        estimate(SweepEstimate(seconds, len(todo) - 1, workers))
        todo = todo[1:]
    if todo:
        run(todo)


def _remove_if_unused(out: Path, created: bool) -> bool:
    """Remove ``out`` if this run made it and no task finished in it; whether it did."""
    if created and not any(out.glob("parts/part-*")):
        shutil.rmtree(out, ignore_errors=True)
        return True
    return False


def remove_dead_temporaries(parts: Path) -> None:
    """Remove temporary part files whose writer (a Spark worker) no longer runs."""
    if not parts.is_dir():
        return
    for temporary in parts.glob(".part-*.tmp"):
        target = parts / temporary.name[1:].split(".parquet.", 1)[0]
        remove_stale_temporaries(f"{target}.parquet")
