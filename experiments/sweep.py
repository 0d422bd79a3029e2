"""Running a sweep: expand the grid, skip finished tasks, fan out, collect Parquet, summarise.

>>> from inev.experiments.spec import parse_spec
>>> spec = parse_spec({"seeds": 1, "axes": {"skew": [1.1, 1.9]}})
>>> len(pending_tasks(spec, "/nonexistent-folder"))
2
"""

from __future__ import annotations

import functools
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from inev.experiments.cost_estimate import SweepEstimate
from inev.experiments.folder_run import Runner, in_folder, run_pending
from inev.experiments.results import (
    finished_task_ids,
    read_parts,
    with_task_indices,
    write_results,
)
from inev.experiments.spark import DEFAULT_MASTER
from inev.experiments.spec import SweepSpec, Task, expand
from inev.experiments.sweep_folder import claim_folder
from inev.experiments.sweep_parameters import TaskConfig

Measure = Callable[[TaskConfig, int, tuple[str, ...]], dict[str, dict[str, Any]]]
"""``measure(config, seed, methods) -> {method: {metric: value}}``, one task's figures."""


def default_measure() -> Measure:
    """The planner-backed measurement of :mod:`inev.experiments.measure`."""
    from inev.experiments.measure import measure

    return measure


def seed_major(tasks: list[Task]) -> list[Task]:
    """``tasks`` ordered by seed, then by their place in the sweep.

    The tasks of one seed at different points of a change axis (rate swaps, rate variance)
    plan the same network and workload before their change; run one after another (and so
    mostly in the same batch and worker), they find that plan in
    :mod:`inev.experiments.measure`'s cache instead of planning it again. An interrupted
    sweep then also holds whole curves at fewer seeds rather than some points at all seeds.
    Rows are put back in task order when read (:func:`with_task_indices`).

    >>> from inev.experiments.spec import Task
    >>> tasks = [Task(i, {}, seed, ("inev",), str(i)) for i, seed in enumerate([0, 1, 0, 1])]
    >>> [t.index for t in seed_major(tasks)]
    [0, 2, 1, 3]
    """
    return sorted(tasks, key=lambda t: (t.seed, t.index))


def run_task(task: Task, measure: Measure) -> list[dict[str, Any]]:
    """One row per method for ``task``; an exception becomes error rows, never a crash."""
    base = {"task_id": task.task_id, "task_index": task.index, "seed": task.seed, **task.point}
    try:
        figures = measure(task.config(), task.seed, task.methods)
    except Exception as exc:
        last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
        message = f"{type(exc).__name__}: {exc}{where}"
        return [{**base, "method": m, "error": message} for m in task.methods]
    return [{**base, "method": m, **figures.get(m, {}), "error": None} for m in task.methods]


def run_batch(tasks: list[Task], measure: Measure | None = None) -> list[dict[str, Any]]:
    """Rows of several tasks, in order."""
    chosen = measure or default_measure()
    rows: list[dict[str, Any]] = []
    for task in tasks:
        rows.extend(run_task(task, chosen))
    return rows


def pending_tasks(spec: SweepSpec, folder: str | os.PathLike[str]) -> list[Task]:
    """Tasks of ``spec`` without rows in ``folder`` yet (all of them for a new folder)."""
    tasks = expand(spec)
    if not Path(folder).is_dir():
        return tasks
    done = finished_task_ids(folder)
    return [t for t in tasks if t.task_id not in done]


@dataclass
class SweepOutcome:
    """What a sweep run did: the table, the path written, task counts and wall time.

    After an interrupt (Ctrl-C) ``interrupted`` is true, ``table`` holds the finished rows,
    ``path`` is the folder's ``parts`` (no ``results.parquet`` is written) and ``finished``
    counts the tasks done so far, in this run and before.

    Parameters
    ----------
    table : pyarrow.Table
        One row per task and method.
    path : Path
        The ``results.parquet`` written (or the folder's ``parts``).
    tasks, ran, skipped : int
        The sweep's tasks, those this run ran and those already done before.
    seconds : float
        Wall time.
    interrupted : bool
    finished : int

    Examples
    --------
    >>> rows = pa.table({"method": ["inev"], "ratio": [0.5]})
    >>> SweepOutcome(rows, Path("skew/results.parquet"), 3, 2, 1, 1.25)
    <SweepOutcome 3 tasks (2 run, 1 already done), 1 rows, 1.2 s -> skew/results.parquet>
    """

    table: pa.Table
    path: Path
    tasks: int
    ran: int
    skipped: int
    seconds: float
    interrupted: bool = False
    finished: int = 0

    def to_pandas(self) -> Any:
        """Every row as a pandas DataFrame."""
        return self.table.to_pandas()

    def __repr__(self) -> str:
        """A short text form (the dataclass's own would print the table's whole schema)."""
        state = ", interrupted" if self.interrupted else ""
        return (
            f"<SweepOutcome {self.tasks} tasks ({self.ran} run, {self.skipped} already done"
            f"{state}), {self.table.num_rows} rows, {self.seconds:.1f} s -> {self.path}>"
        )

    def _repr_html_(self) -> str:
        """A notebook's view: the summary table and the plot
        (:class:`inev.experiments.notebook.SweepResults`)."""
        from inev.experiments.notebook import sweep_results

        return sweep_results(self)._repr_html_()


def run_sweep(
    spec: SweepSpec,
    folder: str | os.PathLike[str],
    master: str = DEFAULT_MASTER,
    parallelism: int | None = None,
    measure: Measure | None = None,
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
    document: dict[str, Any] | None = None,
    force: bool = False,
    estimate: Callable[[SweepEstimate], None] | None = None,
) -> SweepOutcome:
    """Run the pending tasks of ``spec`` into ``folder`` and write ``results.parquet``.

    ``master`` is a Spark master URL (``local[*]``, ``local[2]``, ``spark://…``) or ``serial``
    to run in this process without Spark. ``progress(total, already_done)`` may return a
    callback advanced by the number of newly finished tasks. The folder records the sweep
    (``document``, the spec as written, or one rebuilt from ``spec``); a folder of another
    sweep is refused unless ``force`` starts it over
    (:func:`inev.experiments.sweep_folder.claim_folder`).
    With ``estimate``, the first pending task runs alone before the others fan out (a Spark
    job of its own), and ``estimate`` hears what the rest will cost at its pace
    (:class:`~inev.experiments.cost_estimate.SweepEstimate`; its rows are kept as any
    task's).
    A folder this run made is removed again when the run ends with nothing finished in it
    (refused, Spark did not start, interrupted before the first task finished).

    Parameters
    ----------
    spec : SweepSpec
    folder : str or path-like
    master : str
        A Spark master URL, or ``serial``.
    parallelism : int, optional
        Spark partitions (default: from the master).
    measure : callable, optional
        One task's rows (default: :func:`inev.experiments.measure.measure`).
    progress, document, force, estimate
        As above.

    Returns
    -------
    SweepOutcome

    Examples
    --------
    One task, centralized only: its ratio is 1 by definition. A second run finds it done.

    >>> import tempfile
    >>> from inev.experiments.spec import parse_spec
    >>> spec = parse_spec({"seeds": 1, "methods": ["centralized"],
    ...                    "base": {"nodes": 3, "event_types": 2, "length": 2}})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     first = run_sweep(spec, folder, master="serial")
    ...     again = run_sweep(spec, folder, master="serial")
    >>> first.ran, first.table.column("ratio").to_pylist(), again.ran, again.skipped
    (1, [1.0], 0, 1)
    """
    started = time.perf_counter()
    runner = Runner(master, parallelism)
    return in_folder(  # a second sweep into the folder stops at once
        folder,
        "sweep",
        lambda out: claim_folder(out, spec, document, force),  # --force removes parts
        lambda out: _run_locked(spec, out, runner, measure, progress, started, estimate),
    )


def _run_locked(
    spec: SweepSpec,
    out: Path,
    runner: Runner,
    measure: Measure | None,
    progress: Callable[[int, int], Callable[[int], None]] | None,
    started: float,
    estimate: Callable[[SweepEstimate], None] | None = None,
) -> SweepOutcome:
    """The body of :func:`run_sweep`, run while the folder's lock is held."""
    all_tasks = expand(spec)
    done = finished_task_ids(out)
    todo = seed_major([t for t in all_tasks if t.task_id not in done])
    skipped = len(all_tasks) - len(todo)
    advance = progress(len(all_tasks), skipped) if progress else None
    batch = functools.partial(run_batch, measure=measure) if measure else run_batch
    interrupted = run_pending(
        todo, batch, out, runner, lambda: finished_task_ids(out), advance, estimate
    )
    table = read_parts(out)
    table = with_task_indices(table, {t.task_id: t.index for t in all_tasks}, spec.methods)
    finished = len(set(table.column("task_id").to_pylist()))
    path = out / "parts" if interrupted else write_results(out, table)
    return SweepOutcome(
        table,
        path,
        len(all_tasks),
        finished - skipped,
        skipped,
        time.perf_counter() - started,
        interrupted,
        finished,
    )
