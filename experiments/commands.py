"""``inev sweep``, ``inev plot`` and ``inev demo``: experiments from the command line."""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from inev.common.errors import InevError
from inev.common.files import read_json_document, write_json_document
from inev.common.paths import check_paths
from inev.experiments.plot import plot
from inev.experiments.results import check_plot_columns, read_results, summarise
from inev.experiments.spec import (
    CONFIRM_TASKS,
    SweepSpec,
    check_plot_table,
    parse_spec,
    read_spec_document,
)
from inev.experiments.sweep import SweepOutcome, run_sweep

SPEC_FILE = "spec.json"


def preset_names() -> list[str]:
    """Names of the TOML presets shipped under ``experiments/presets``."""
    folder = resources.files("inev.experiments") / "presets"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def resolve_spec(name: str) -> tuple[SweepSpec, dict[str, Any]]:
    """A sweep spec from a TOML path or a preset name, with its raw document."""
    import tomllib

    if os.path.exists(name):
        document = read_spec_document(name)
        return parse_spec(document, origin=name), document
    preset = resources.files("inev.experiments") / "presets" / f"{name}.toml"
    if preset.is_file():
        document = tomllib.loads(preset.read_text(encoding="utf-8"))
        return parse_spec(document, origin=f"preset {name}"), document
    raise InevError(f"{name}: no such file or preset (presets: {', '.join(preset_names())})")


def _progress_factory(console: Console, label: str):
    state: dict[str, Any] = {}

    def start(total: int, done: int):
        progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
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


def print_summary(
    console: Console, outcome: SweepOutcome, spec: SweepSpec, metric: str = "ratio"
) -> None:
    """The final table: median and inter-quartile range of ``metric`` per grid point and method."""
    axes = list(spec.axes)
    table = Table(*axes, "method", "runs", "errors", f"median {metric}", "inter-quartile range")
    for entry in summarise(outcome.table, axes, metric):
        cells = [str(entry[a]) for a in axes] + [
            entry["method"],
            str(entry["runs"]),
            str(entry["errors"]),
        ]
        if entry["median"] is None:
            cells += ["–", "–"]
        else:
            cells += [f"{entry['median']:.3g}", f"{entry['q1']:.3g} – {entry['q3']:.3g}"]
        table.add_row(*cells)
    console.print(table)
    console.print(
        f"{outcome.tasks} tasks ({outcome.ran} run, {outcome.skipped} already done) in "
        f"{outcome.seconds:.1f} s -> {outcome.path}"
    )


def execute(
    spec: SweepSpec, document: dict[str, Any], out: str, master: str, parallelism: int | None
) -> SweepOutcome:
    """Run a sweep with a progress bar and the summary table."""
    console = Console(width=None if Console().is_terminal else 120)
    Path(out).mkdir(parents=True, exist_ok=True)
    write_json_document(Path(out) / SPEC_FILE, {"format": "inev-sweep/1", "spec": document})
    start, stop = _progress_factory(console, spec.name)
    try:
        outcome = run_sweep(spec, out, master=master, parallelism=parallelism, progress=start)
    finally:
        stop()
    print_summary(console, outcome, spec)
    return outcome


@click.command("sweep")
@click.argument("spec_file")
@click.option(
    "-o", "--out", required=True, type=click.Path(file_okay=False), help="Results folder."
)
@click.option(
    "--master",
    default="local[*]",
    show_default=True,
    help="Spark master URL, or 'serial' to run without Spark.",
)
@click.option("--parallelism", type=int, help="Concurrent task slots (default: Spark's).")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help=f"Run without asking even when the sweep has more than {CONFIRM_TASKS:,} tasks.",
)
def sweep_command(
    spec_file: str, out: str, master: str, parallelism: int | None, yes: bool
) -> None:
    """Run a parameter sweep (TOML file or preset name) on Spark; results as Parquet."""
    if os.path.exists(spec_file):
        check_paths({"spec": spec_file}, out, output_folder=True)
    spec, document = resolve_spec(spec_file)
    check_paths({}, out, output_folder=True)
    if parallelism is not None and not 1 <= parallelism <= 100_000:
        raise InevError(f"--parallelism must be between 1 and 100,000, got {parallelism}")
    confirm_size(spec, yes)
    execute(spec, document, out, master, parallelism)


def confirm_size(spec: SweepSpec, yes: bool) -> None:
    """Show the sweep's task count; above :data:`CONFIRM_TASKS` ask first (or need ``--yes``
    where no one can answer)."""
    points = spec.size // spec.seeds
    click.echo(
        f"sweep {spec.name}: {spec.size:,} tasks ({points:,} grid points x {spec.seeds:,} "
        f"seeds), methods {', '.join(spec.methods)}"
    )
    if spec.size <= CONFIRM_TASKS or yes:
        return
    if not sys.stdin.isatty():
        raise InevError(
            f"{spec.size:,} tasks are more than {CONFIRM_TASKS:,}; pass --yes to run them"
        )
    click.confirm(f"Run {spec.size:,} tasks?", abort=True, err=True)


def plot_defaults(folder: str) -> dict[str, Any]:
    """The ``[plot]`` table and axes of the spec stored in a results folder (if any)."""
    path = Path(folder) / SPEC_FILE
    if not path.is_file():
        return {}
    document = read_json_document(path, "inev-sweep/1").get("spec", {})
    if not isinstance(document, dict) or not isinstance(document.get("axes", {}), dict):
        raise InevError(f"{path}: 'spec' must be a sweep document with an [axes] table")
    check_plot_table(document.get("plot", {}), str(path))
    defaults = dict(document.get("plot", {}))
    axes = list(document.get("axes", {}))
    defaults.setdefault("x", axes[0] if axes else None)
    if len(axes) > 1:
        defaults.setdefault("lines", axes[1])
    return defaults


@click.command("plot")
@click.argument("results")
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Figure file (.png, .svg or .pdf).",
)
@click.option("--x", "x", help="Column on the horizontal axis (default: the sweep's first axis).")
@click.option("--y", "y", help="Metric to plot (default: ratio).")
@click.option("--lines", help="Column with one line per value (default: the second axis).")
@click.option("--log/--linear", "log", default=None, help="Log or linear vertical axis.")
@click.option("--method", "methods", multiple=True, help="Only these methods (repeatable).")
@click.option("--title", help="Figure title.")
def plot_command(
    results: str,
    out: str,
    x: str | None,
    y: str | None,
    lines: str | None,
    log: bool | None,
    methods: tuple[str, ...],
    title: str | None,
) -> None:
    """Plot sweep results: median with an inter-quartile band per line."""
    check_paths({"results": results}, out, folders=("results",))
    defaults = plot_defaults(results) if os.path.isdir(results) else {}
    x = x or defaults.get("x")
    if not x:
        raise InevError("say which column goes on the horizontal axis with --x")
    y_metrics = y.split(",") if y else defaults.get("y", "ratio")
    lines = lines or defaults.get("lines")
    if log is None:
        log = defaults.get("log")
    methods = methods or tuple(defaults.get("methods", ()))
    table = read_results(results)
    check_plot_columns(table, results, x, y_metrics, lines)
    path = plot(
        table,
        out,
        x=x,
        y=y_metrics,
        lines=lines,
        log=log,
        methods=methods or None,
        title=title or defaults.get("title"),
    )
    shown = y_metrics if isinstance(y_metrics, str) else ", ".join(y_metrics)
    click.echo(f"plot: {shown} over {x}" + (f" by {lines}" if lines else "") + f" -> {path}")


@click.command("demo")
@click.option(
    "-o",
    "--out",
    default="demo-results",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Results folder.",
)
@click.option(
    "--master", default="local[*]", show_default=True, help="Spark master URL or 'serial'."
)
def demo_command(out: str, master: str) -> None:
    """The main job: a small skew x selectivity sweep on local Spark, ending in a plot."""
    check_paths({}, out, output_folder=True)
    spec, document = resolve_spec("demo")
    outcome = execute(spec, document, out, master, None)
    defaults = plot_defaults(out)
    figure = Path(out) / "ratio.png"
    plot(
        outcome.table,
        figure,
        x=defaults["x"],
        y=defaults.get("y", "ratio"),
        lines=defaults.get("lines"),
        methods=defaults.get("methods"),
        title=defaults.get("title"),
    )
    click.echo(f"results: {outcome.path}\nplot:    {figure}")
