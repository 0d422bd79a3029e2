"""Sweep results for the terminal: the progress bar and summary table of ``inev sweep`` (and
``inev whatif``), and what ``inev show`` prints of a sweep folder or of a results file.

>>> _seeds([1, 2, 3]), _seeds([4]), _seeds([1, 5])
('seeds 1–3', 'seed 4', 'seeds 1, 5')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.words import plural
from inev.experiments.columns import axis_label, method_name
from inev.experiments.plot_options import DEFAULT_Y


def summary_metrics(plot: dict[str, Any]) -> list[str]:
    """The metrics a sweep's summary shows: its ``[plot] y`` (``ratio`` when none)."""
    y = plot.get("y", DEFAULT_Y)
    return [y] if isinstance(y, str) else list(y)


def _cell(entry: dict[str, Any]) -> str:
    if entry["median"] is None:
        return "–"
    if entry["q1"] == entry["q3"]:
        return f"{entry['median']:.3g}"
    return f"{entry['median']:.3g} ({entry['q1']:.3g} – {entry['q3']:.3g})"


def summary_table(table: Any, axes: list[str], metrics: list[str], title: str | None = None) -> Any:
    """The sweep's summary: per grid point and method, runs, errors and each metric's median
    with its inter-quartile range; methods without any value and without errors are left out."""
    from rich.table import Table

    from inev.experiments.results import summarise

    per_metric = [summarise(table, axes, m) for m in metrics]
    errors = any(e["errors"] for e in per_metric[0]) if per_metric else False
    columns = [*axes, "method", "runs", *(["errors"] if errors else [])]
    columns += [f"{axis_label(m)}: median (IQR)" for m in metrics]
    out = Table(*columns, title=title, title_justify="left")
    for i, entry in enumerate(per_metric[0] if per_metric else []):
        cells = [_cell(p[i]) for p in per_metric]
        if all(c == "–" for c in cells) and not entry["errors"]:
            continue
        row = [str(entry[a]) for a in axes] + [method_name(entry["method"]), str(entry["runs"])]
        if errors:
            row.append(str(entry["errors"]) if entry["errors"] else "")
        out.add_row(*row, *cells)
    return out


def failures(table: Any, axes: list[str]) -> list[str]:
    """One line per failed grid point and reason: the point, the seeds, the reason."""
    groups: dict[tuple, list[int]] = {}
    seen: set[str] = set()
    for row in table.to_pylist():
        if row["error"] is None or row["task_id"] in seen:
            continue
        seen.add(row["task_id"])
        key = (tuple((a, row[a]) for a in axes), row["error"])
        groups.setdefault(key, []).append(row["seed"])
    lines = []
    for (point, reason), seeds in groups.items():
        where = ", ".join(f"{a}={v}" for a, v in point) or "every point"
        lines.append(f"{where}, {_seeds(sorted(seeds))}: {reason}")
    return lines


def _seeds(seeds: list[int]) -> str:
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"seeds {seeds[0]}–{seeds[-1]}"
    return "seeds " + ", ".join(map(str, seeds))


def sweep_view(path: str) -> list[Any]:
    """``inev show FOLDER``: a sweep folder (or its spec.json): its spec, summary table and
    failed tasks."""
    from inev.experiments.results import read_results
    from inev.experiments.sweep_folder import stored_document

    folder = Path(path) if Path(path).is_dir() else Path(path).parent
    document = stored_document(folder)
    table = read_results(folder)
    axes = list(document.get("axes", {}))
    _require_columns(table, str(folder), ["task_id", "seed", *axes])
    name = document.get("name", folder.name)
    tasks = len(set(table.column("task_id").to_pylist()))
    out: list[Any] = [
        summary_table(
            table,
            axes,
            summary_metrics(document.get("plot", {})),
            title=f"{folder}: sweep {name!r}, {plural(tasks, 'task')} with results",
        )
    ]
    failed = failures(table, axes)
    if failed:
        out.append("failed tasks:\n" + "\n".join(f"  {line}" for line in failed))
    return out


def _require_columns(table: Any, path: str, names: list[str]) -> None:
    """Refuse results that lack a column the summary needs (one line naming it)."""
    for name in names:
        if name not in table.column_names:
            raise InevError(f"{path}: no {name!r} column in the results; cannot summarise them")


def results_view(path: str) -> list[Any]:
    """``inev show results.parquet``: a results file on its own, summarised over the
    parameters that vary."""
    from inev.experiments.results import read_results
    from inev.experiments.spec import DEFAULTS

    table = read_results(path)
    _require_columns(table, path, ["task_id", "seed"])
    axes = [
        k for k in DEFAULTS if k in table.column_names and len(set(table.column(k).to_pylist())) > 1
    ]
    return [
        summary_table(table, axes, ["ratio"], title=f"{path}: sweep results"),
        *(
            ["failed tasks:\n" + "\n".join(f"  {x}" for x in failures(table, axes))]
            if failures(table, axes)
            else []
        ),
    ]


def sweep_progress(console: Any, label: str, transient: bool = False) -> tuple[Any, Any]:
    """A rich progress bar of tasks as a ``(start, stop)`` pair: ``start(total, done)`` shows
    it and returns ``advance(n)``; ``stop()`` ends it (nothing when it never started)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    state: dict[str, Any] = {}

    def start(total: int, done: int):
        progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=transient,
        )
        progress.start()
        task = progress.add_task(label, total=total, completed=done)
        state["progress"] = progress

        def advance(n: int) -> None:
            progress.advance(task, n)

        return advance

    def stop() -> None:
        if "progress" in state:
            state["progress"].stop()

    return start, stop
