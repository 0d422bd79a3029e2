"""Sweep results as Parquet: one row per task and method, written part by part for resume.

A sweep folder holds ``parts/part-*.parquet`` (one file per finished batch of tasks, each
written atomically, so an interrupted run keeps what it finished) and, when the run completes,
``results.parquet`` with every row in task order. :func:`read_results` reads either.

Columns: ``task_id``, ``task_index``, ``seed``, ``method``, every configuration parameter
(:data:`inev.experiments.spec.DEFAULTS`), the metrics of :data:`METRICS` (named and typed in
:mod:`inev.experiments.columns`; null where a method does not report one) and ``error`` (null
unless the task failed).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.option_names import option
from inev.common.stats import quantiles
from inev.experiments.columns import METRICS as METRIC_COLUMNS
from inev.experiments.spec import DEFAULTS

_TYPES = {"float": pa.float64(), "int": pa.int64(), "bool": pa.bool_(), "str": pa.string()}
METRICS: dict[str, pa.DataType] = {name: _TYPES[c.kind] for name, c in METRIC_COLUMNS.items()}
"""Metric columns and their Parquet types."""

TIMING_COLUMNS = ("planning_seconds",)
"""Columns that measure wall time and so differ between runs of the same spec."""


def _parameter_type(value: Any) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


SCHEMA = pa.schema(
    [
        ("task_id", pa.string()),
        ("task_index", pa.int64()),
        ("seed", pa.int64()),
        ("method", pa.string()),
        *[(key, _parameter_type(value)) for key, value in DEFAULTS.items()],
        *METRICS.items(),
        ("error", pa.string()),
    ]
)
"""The Parquet schema of every results file."""


def rows_to_table(rows: Sequence[dict[str, Any]], schema: pa.Schema = SCHEMA) -> pa.Table:
    """Rows (dicts) as a table of ``schema`` (:data:`SCHEMA`); unknown keys are an error."""
    names = set(schema.names)
    for row in rows:
        extra = set(row) - names
        if extra:
            raise InevError(f"result row has unknown column {sorted(extra)[0]!r}")
    columns = {name: [row.get(name) for row in rows] for name in schema.names}
    return pa.table(columns, schema=schema)


def write_part(
    folder: str | os.PathLike[str], rows: Sequence[dict[str, Any]], schema: pa.Schema = SCHEMA
) -> Path:
    """Write one batch of rows as a new part file under ``folder/parts`` (atomically), in
    ``schema`` (a sweep's :data:`SCHEMA`; ``inev whatif`` has its own).

    ``folder`` must exist: a worker that outlived its run must not make it again (a removed
    staging folder of ``inev reproduce`` came back that way).
    """
    parts = Path(folder) / "parts"
    parts.mkdir(exist_ok=True)
    first = min((row["task_index"] for row in rows), default=0)
    target = parts / f"part-{first:06d}-{uuid.uuid4().hex[:8]}.parquet"
    with atomic_output(target, "wb") as handle:  # removed on an interrupt
        pq.write_table(rows_to_table(rows, schema), handle)
    return target


def read_parts(folder: str | os.PathLike[str]) -> pa.Table:
    """All rows of the part files of a sweep folder (empty table if none)."""
    parts = sorted((Path(folder) / "parts").glob("part-*.parquet"))
    tables = []
    for path in parts:
        try:
            tables.append(pq.read_table(path, schema=SCHEMA))
        except (pa.ArrowInvalid, OSError):
            continue  # a part cut short by a crash outside the atomic rename: ignore it
    if not tables:
        return SCHEMA.empty_table()
    return _ordered(pa.concat_tables(tables))


def _ordered(table: pa.Table) -> pa.Table:
    """Rows sorted by task index and method, keeping one row per (task, method)."""
    rows = table.to_pylist()
    unique = {(r["task_id"], r["method"]): r for r in rows}
    ordered = sorted(unique.values(), key=lambda r: (r["task_index"], r["method"]))
    return rows_to_table(ordered)


def with_task_indices(table: pa.Table, index: dict[str, int], methods: Sequence[str]) -> pa.Table:
    """The rows of the tasks in ``index`` and of ``methods``, renumbered by ``index`` (a task's
    position in the sweep as run now: a run at another number of seeds wrote the same task
    under another index) and ordered as :func:`read_parts` orders them."""
    wanted = set(methods)
    rows = [r for r in table.to_pylist() if r["task_id"] in index and r["method"] in wanted]
    for r in rows:
        r["task_index"] = index[r["task_id"]]
    return _ordered(rows_to_table(rows)) if rows else SCHEMA.empty_table()


def finished_task_ids(folder: str | os.PathLike[str]) -> set[str]:
    """Task ids that already have rows in the folder (finished or failed)."""
    return set(read_parts(folder).column("task_id").to_pylist())


def write_results(folder: str | os.PathLike[str], table: pa.Table) -> Path:
    """Write ``folder/results.parquet`` atomically."""
    target = Path(folder) / "results.parquet"
    with atomic_output(target, "wb") as handle:  # a per-process temporary name
        pq.write_table(table, handle)
    return target


def read_results(path: str | os.PathLike[str]) -> pa.Table:
    """Read a results file, or the results (or parts) of a sweep folder.

    Parameters
    ----------
    path : str or path-like
        A ``results.parquet`` file or a sweep folder.

    Returns
    -------
    pyarrow.Table
        Checked to be sweep results (:func:`check_results`).

    Examples
    --------
    >>> import tempfile
    >>> rows = pa.table({"method": ["inev", "centralized"], "error": pa.array([None, None], pa.string()),
    ...                  "ratio": [0.25, 1.0]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = write_results(folder, rows)
    ...     read_results(folder).column("ratio").to_pylist()
    [0.25, 1.0]
    >>> read_results(pa.__file__)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    inev.common.errors.InevError: ...: not a readable Parquet file (...)
    """
    p = Path(path)
    if p.is_dir():
        if (p / "results.parquet").is_file():
            p = p / "results.parquet"
        elif (p / "parts").is_dir():
            return read_parts(p)
        else:
            raise InevError(f"{path}: no results.parquet or parts/ in this folder")
    if not p.is_file():
        raise InevError(f"{path}: no such file or folder")
    try:
        table = pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        reason = " ".join(str(exc).split())[:200]
        raise InevError(f"{path}: not a readable Parquet file ({reason})") from None
    check_results(table, os.fspath(p))
    return table


REQUIRED = {"method": pa.string(), "error": pa.string()}
"""Columns every results table has, with their types (the rest are optional for reading)."""


def check_results(table: pa.Table, origin: str) -> None:
    """Refuse a table that is not sweep results: the :data:`REQUIRED` columns must exist with
    their types, and every column of :data:`SCHEMA` that it has must have the schema's type
    (or a type that casts to it without loss, such as int64 for a float64 column).

    Hand-written against the Parquet schema, rather than a pydantic model per row: the schema
    is already the declaration, and the check needs the column types only, not every row.
    """
    names = table.schema.names
    for name, kind in REQUIRED.items():
        if name not in names:
            raise InevError(f"{origin}: no {name!r} column; not sweep results")
        if not table.schema.field(name).type.equals(kind) and not pa.types.is_null(
            table.schema.field(name).type
        ):
            raise InevError(f"{origin}: column {name!r} must hold text")
    for field in table.schema:
        if field.name not in SCHEMA.names or pa.types.is_null(field.type):
            continue
        expected = SCHEMA.field(field.name).type
        if field.type.equals(expected):
            continue
        numeric = pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
        if numeric and pa.types.is_floating(expected):
            continue
        raise InevError(f"{origin}: column {field.name!r} holds {field.type}, expected {expected}")


def check_plot_columns(
    table: pa.Table, origin: str, x: str, y: str | Sequence[str], lines: str | None
) -> None:
    """Refuse a plot of columns the table lacks, or of a ``y`` that is not numeric."""
    metrics = [y] if isinstance(y, str) else list(y)
    if not metrics or not all(isinstance(m, str) and m for m in metrics):
        raise InevError(f"{option('y')} must name one or more columns")
    for column in (x, *metrics, *([lines] if lines else [])):
        if column not in table.column_names:
            raise InevError(f"{origin}: no column {column!r} to plot")
    for metric in metrics:
        kind = table.schema.field(metric).type
        if not (
            pa.types.is_integer(kind)
            or pa.types.is_floating(kind)
            or pa.types.is_boolean(kind)
            or pa.types.is_null(kind)
        ):
            raise InevError(f"{origin}: column {metric!r} holds {kind}, not numbers to plot")


def summarise(table: pa.Table, axes: Iterable[str], metric: str = "ratio") -> list[dict[str, Any]]:
    """Median, quartiles, count and errors of ``metric`` per grid point and method."""
    keys = list(axes)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in table.to_pylist():
        groups.setdefault((*(row[k] for k in keys), row["method"]), []).append(row)
    out = []
    for key, rows in groups.items():
        values = sorted(r[metric] for r in rows if r.get(metric) is not None and r["error"] is None)
        entry = dict(zip([*keys, "method"], key, strict=True))
        entry["runs"] = len(rows)
        entry["errors"] = sum(1 for r in rows if r["error"] is not None)
        if values:
            q1, median, q3 = quantiles(values, (0.25, 0.5, 0.75))
            entry.update(median=median, q1=q1, q3=q3)
        else:
            entry.update(median=None, q1=None, q3=None)
        out.append(entry)
    return out
