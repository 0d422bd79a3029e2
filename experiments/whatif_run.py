"""Running a what-if study (:mod:`inev.experiments.whatif`) into a folder, resumably.

The cases run as a sweep's tasks do (:mod:`inev.experiments.folder_run`): batches of cases on
embedded local Spark by default (``serial``: in this process), each finished batch a Parquet
part of :data:`~inev.experiments.whatif.SCHEMA` under ``folder/parts``, written by the
executor that computed it. A run into a folder that holds parts of the same study runs only
the cases not yet done; the folder's ``whatif.json`` records the study's identity
(:meth:`~inev.experiments.whatif.Study.identity`), so the folder of another plan, network,
workload, case list or simulation is refused unless ``force`` starts it over. When the run
completes, ``results.parquet`` holds every row in case order.
"""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from inev.common.errors import InevError
from inev.common.files import read_json_document, write_json_document
from inev.common.option_names import option
from inev.experiments.folder_run import Runner, in_folder, run_pending
from inev.experiments.spark import DEFAULT_MASTER
from inev.experiments.whatif import SCHEMA, Study, run_cases

FORMAT = "inev-whatif/1"
RECORD_FILE = "whatif.json"


def write_rows(folder: str, rows: list[dict[str, Any]]) -> Path:
    """Write one batch of rows as a part file of :data:`SCHEMA` (atomically)."""
    from inev.experiments.results import write_part

    return write_part(folder, rows, SCHEMA)


def read_rows(folder: str | Path, ids: Mapping[str, int] | None = None) -> pa.Table:
    """Every row of the folder's parts (one per task id; those of ``ids`` only when given,
    renumbered by it), ordered by case."""
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted((Path(folder) / "parts").glob("part-*.parquet")):
        try:
            table = pq.read_table(path, schema=SCHEMA)
        except (pa.ArrowInvalid, OSError):
            continue  # a part cut short outside the atomic rename
        for r in table.to_pylist():
            if ids is None or r["task_id"] in ids:
                rows[r["task_id"]] = r
    for r in rows.values():
        if ids is not None:
            r["task_index"] = ids[r["task_id"]]
    ordered = sorted(rows.values(), key=lambda r: r["task_index"])
    return pa.Table.from_pylist(ordered, schema=SCHEMA)


@dataclass
class WhatIfOutcome:
    """What a run did: the rows, the results file (or the parts after an interrupt), counts
    and wall time."""

    table: pa.Table
    path: Path
    cases: int
    ran: int
    skipped: int
    seconds: float
    interrupted: bool = False

    @property
    def finished(self) -> int:
        """Cases with a row, from this run and before."""
        return self.table.num_rows


def claim(folder: Path, study: Study, force: bool) -> None:
    """Make ``folder`` the home of ``study``: refuse a sweep's folder, or another study's
    folder that holds results, unless ``force`` (which removes the old results)."""
    record = folder / RECORD_FILE
    has_parts = any((folder / "parts").glob("part-*.parquet"))
    if (folder / "spec.json").exists() and not force:
        raise InevError(f"{folder}: holds a sweep's results; give another -o folder")
    if record.is_file() and has_parts and not force:
        stored = read_json_document(record, FORMAT).get("identity")
        if stored != study.identity():
            which = [
                k
                for k in ("inputs", "cases", "simulation", "options")
                if stored.get(k) != study.identity()[k]
            ]
            raise InevError(
                f"{folder}: holds a what-if study of other {', '.join(which) or 'settings'}; "
                f"{option('force')} starts over, or give another -o folder"
            )
    elif has_parts and not record.is_file() and not force:
        raise InevError(f"{folder}: holds results of an unknown run; {option('force')} starts over")
    if force:
        shutil.rmtree(folder / "parts", ignore_errors=True)
        (folder / "results.parquet").unlink(missing_ok=True)
    write_json_document(
        record, {"format": FORMAT, "identity": study.identity(), "cases": len(study.cases)}
    )


def run_whatif(
    study: Study,
    folder: str | Path,
    master: str = DEFAULT_MASTER,
    parallelism: int | None = None,
    progress: Callable[[int, int], Callable[[int], None] | None] | None = None,
    force: bool = False,
) -> WhatIfOutcome:
    """Run the cases of ``study`` not yet done in ``folder``; write ``results.parquet``.

    ``master`` is a Spark master URL or ``serial`` (this process, no Spark);
    ``progress(total, done)`` may return a callback advanced by newly finished cases. An
    interrupt keeps the finished parts (``interrupted``; no results file is written).
    """
    started = time.perf_counter()
    runner = Runner(master, parallelism, write=write_rows, app_name="inev-whatif")
    return in_folder(
        folder,
        "whatif",
        lambda out: claim(out, study, force),
        lambda out: _run_locked(study, out, runner, progress, started),
    )


def _run_locked(
    study: Study,
    out: Path,
    runner: Runner,
    progress: Callable[[int, int], Callable[[int], None] | None] | None,
    started: float,
) -> WhatIfOutcome:
    """The body of :func:`run_whatif`, run while the folder's lock is held."""
    tasks = study.tasks()
    ids = {t.task_id: t.index for t in tasks}
    done = set(read_rows(out, ids).column("task_id").to_pylist())
    todo = [t for t in tasks if t.task_id not in done]
    advance = progress(len(tasks), len(done)) if progress else None
    batch = functools.partial(run_cases, study=study)
    interrupted = run_pending(
        todo,
        batch,
        out,
        runner,
        lambda: set(read_rows(out, ids).column("task_id").to_pylist()),
        advance,
    )
    table = read_rows(out, ids)
    path = out / "parts"
    if not interrupted:
        from inev.experiments.results import write_results

        path = write_results(out, table)
    ran = table.num_rows - len(done)
    return WhatIfOutcome(
        table, path, len(tasks), ran, len(done), time.perf_counter() - started, interrupted
    )
