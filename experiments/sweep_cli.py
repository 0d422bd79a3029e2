"""``inev sweep``, ``inev plot``, ``inev reproduce`` and ``inev demo``: experiments from the
command line (the presets they name are :mod:`inev.experiments.sweep_presets`).

The sweep's summary table shows the metric(s) of the spec's ``[plot] y`` (the transmission
ratio when it names none) per grid point and method; failed tasks are listed at the end with
their reasons, and the exit status is 1 when any failed unless ``--allow-errors``. Heavy
modules (pyarrow, matplotlib, Spark) are imported only when a command runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.words import plural
from inev.experiments.click_options import master_option
from inev.experiments.columns import METRICS
from inev.experiments.plot_options import DEFAULT_Y
from inev.experiments.spark import DEFAULT_MASTER
from inev.experiments.spec import CONFIRM_TASKS, SweepSpec
from inev.experiments.sweep_folder import stored_document
from inev.experiments.sweep_presets import preset_titles, resolve_spec
from inev.experiments.sweep_view import failures, summary_metrics, summary_table, sweep_progress


def print_summary(console: Any, outcome: Any, spec: SweepSpec) -> list[str]:
    """Print the summary table, the failed tasks and the task counts; return the failures."""
    axes = list(spec.axes)
    console.print(summary_table(outcome.table, axes, summary_metrics(spec.plot)))
    failed = failures(outcome.table, axes)
    if failed:
        count = len({r["task_id"] for r in outcome.table.to_pylist() if r["error"] is not None})
        console.print(f"[bold red]{plural(count, 'task')} failed:[/]")
        for line in failed:
            console.print(f"  {line}", markup=False, highlight=False)
    if not outcome.interrupted:  # else the error line says how far it got (_finish)
        console.print(
            f"{outcome.tasks} tasks ({outcome.ran} run, {outcome.skipped} already done) in "
            f"{outcome.seconds:.1f} s -> {outcome.path}",
            markup=False,
            highlight=False,
        )
    return failed


def execute(
    spec: SweepSpec,
    document: dict[str, Any],
    out: str,
    master: str,
    parallelism: int | None,
    force: bool = False,
) -> tuple[Any, list[str]]:
    """Run a sweep with a progress bar and the summary table; return the outcome and the
    failure lines."""
    from inev.common.display import terminal_console
    from inev.experiments.sweep import run_sweep

    console = terminal_console(120)
    start, stop = sweep_progress(console, spec.name)
    try:
        outcome = run_sweep(
            spec,
            out,
            master=master,
            parallelism=parallelism,
            progress=start,
            document=document,
            force=force,
            estimate=lambda e: console.print(e.line(), markup=False, highlight=False),
        )
    finally:
        stop()
    return outcome, print_summary(console, outcome, spec)


def _finish(outcome: Any, failed: list[str], allow_errors: bool) -> None:
    """Exit 130 after an interrupt, 1 when tasks failed (unless allowed).

    The interrupt goes on as a :class:`KeyboardInterrupt` carrying how far the sweep got, so
    that the command line prints its one ``error: interrupted: ...`` line (and the memory
    watchdog, whose stop is an interrupt too, can still name itself).
    """
    if outcome.interrupted and outcome.finished == 0 and not outcome.path.exists():
        raise KeyboardInterrupt(f"no task had finished; {outcome.path} was not kept")
    if outcome.interrupted:
        raise KeyboardInterrupt(
            f"{outcome.finished} of {outcome.tasks} tasks finished ({outcome.ran} run, "
            f"{outcome.skipped} already done), kept in {outcome.path.parent}; run the same "
            "command again to resume"
        )
    if failed and not allow_errors:
        count = len({r["task_id"] for r in outcome.table.to_pylist() if r["error"] is not None})
        raise InevError(
            f"{count} of {plural(outcome.tasks, 'task')} failed (listed above); "
            "--allow-errors accepts them"
        )


def _presets_epilog() -> str:
    titles = preset_titles()
    width = max(len(n) for n in titles)
    return "\b\nPresets:\n" + "\n".join(f"  {n.ljust(width)}  {t}" for n, t in titles.items())


@click.command(
    "sweep",
    epilog=examples(
        "inev sweep sweep.toml -o results --master serial",
        "inev sweep sweep.toml -o results --master local[2] --parallelism 2",
        "inev sweep fig6a -o fig6a-results",
        then=_presets_epilog(),
    ),
)
@click.argument("spec_file", metavar="SPEC")
@click.option(
    "-o", "--out", required=True, type=click.Path(file_okay=False), help="Results folder."
)
@master_option
@click.option("--parallelism", type=int, help="Concurrent task slots (default: Spark's).")
@click.option(
    "--resume/--force",
    default=True,
    help="Keep the finished tasks of the same sweep in the folder (default), or start the "
    "folder over. A folder of another sweep is refused without --force.",
)
@click.option("--allow-errors", is_flag=True, help="Exit 0 even when some tasks failed.")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help=f"Run without asking even when the sweep has more than {CONFIRM_TASKS:,} tasks.",
)
def sweep_command(
    spec_file: str,
    out: str,
    master: str,
    parallelism: int | None,
    resume: bool,
    allow_errors: bool,
    yes: bool,
) -> None:
    """Run a parameter sweep (TOML file or preset name) on Spark; results as Parquet."""
    if os.path.isfile(spec_file):
        check_paths({"spec": spec_file}, out, output_folder=True)
    spec, document = resolve_spec(spec_file, notice=lambda text: click.echo(text, err=True))
    check_paths({}, out, output_folder=True)
    if parallelism is not None and not 1 <= parallelism <= 100_000:
        raise InevError(f"--parallelism must be between 1 and 100,000, got {parallelism}")
    confirm_size(spec, yes)
    outcome, failed = execute(spec, document, out, master, parallelism, force=not resume)
    _finish(outcome, failed, allow_errors)


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
    document = stored_document(folder)  # checked, its [plot] table by spec.check_plot
    defaults = dict(document.get("plot", {}))
    axes = list(document.get("axes", {}))
    defaults.setdefault("x", axes[0] if axes else None)
    if len(axes) > 1:
        defaults.setdefault("lines", axes[1])
    return defaults


@click.command(
    "plot",
    epilog=examples(
        "inev plot results -o skew.png",
        "inev plot results -o ratio.svg --x skew --y ratio --lines selectivity --log",
        "inev plot results -o mean.png --stat mean --bound",
        then="Metrics for --y: " + ", ".join(METRICS) + ".",
    ),
)
@click.argument("results")
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Figure file (.png, .svg or .pdf).",
)
@click.option("--x", "x", help="Column on the horizontal axis (default: the sweep's first axis).")
@click.option(
    "--y", "y", help="Metric(s) to plot, comma-separated (default: the sweep's, else ratio)."
)
@click.option("--lines", help="Column with one line per value (default: the second axis).")
@click.option("--log/--linear", "log", default=None, help="Log or linear vertical axis.")
@click.option("--log-x/--linear-x", "log_x", default=None, help="Log or linear horizontal axis.")
@click.option("--method", "methods", multiple=True, help="Only these methods (repeatable).")
@click.option("--title", help="Figure title.")
@click.option(
    "--stat",
    type=click.Choice(["median", "mean"]),
    default=None,
    help="The line: median (default; band: quartiles) or mean (band: 95% confidence interval).",
)
@click.option(
    "--ci/--iqr",
    "ci",
    default=None,
    help="Bands: the 95% confidence interval, or the quartiles (default: by --stat).",
)
@click.option(
    "--bound", is_flag=True, default=None, help="Add the provable lower bound of ratio or cost."
)
def plot_command(
    results: str,
    out: str,
    x: str | None,
    y: str | None,
    lines: str | None,
    log: bool | None,
    log_x: bool | None,
    methods: tuple[str, ...],
    title: str | None,
    stat: str | None,
    ci: bool | None,
    bound: bool | None,
) -> None:
    """Plot sweep results: median (or mean) with its spread per line."""
    from inev.experiments.plot import PlotOptions, plot
    from inev.experiments.results import check_plot_columns, read_results

    check_paths({"results": results}, out, folders=("results",))
    table = read_results(results)
    defaults = plot_defaults(results) if os.path.isdir(results) else {}
    x = x or defaults.get("x")
    if not x:
        raise InevError("say which column goes on the horizontal axis with --x")
    y_metrics = y.split(",") if y else defaults.get("y", DEFAULT_Y)
    options = PlotOptions.from_table(
        defaults,
        x=x,
        y=y_metrics,
        lines=lines,
        log=log,
        log_x=log_x,
        methods=methods or None,
        title=title,
        stat=stat,
        interval=None if ci is None else ("ci" if ci else "iqr"),
        bound=bound or None,
    )
    check_plot_columns(table, results, x, options.metrics, options.lines)
    path = plot(table, out, options)
    shown = ", ".join(options.metrics)
    click.echo(
        f"plot: {shown} over {x}"
        + (f" by {options.lines}" if options.lines else "")
        + f" -> {path}"
    )


@click.command(
    "demo",
    epilog=examples(
        "inev demo -o demo-results",
        "inev demo -o demo-results --master serial",
    ),
)
@click.option(
    "-o",
    "--out",
    default="demo-results",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Results folder.",
)
@master_option
@click.option("--allow-errors", is_flag=True, help="Exit 0 even when some tasks failed.")
def demo_command(out: str, master: str, allow_errors: bool) -> None:
    """The main job: a small skew x selectivity sweep on local Spark, ending in a plot."""
    from inev.experiments.plot import PlotOptions, plot

    check_paths({}, out, output_folder=True)
    spec, document = resolve_spec("demo")
    outcome, failed = execute(spec, document, out, master, None)
    if outcome.interrupted:
        _finish(outcome, failed, allow_errors)
    figure = Path(out) / "ratio.png"
    defaults = plot_defaults(out)
    plot(outcome.table, figure, PlotOptions.from_table(defaults))
    click.echo(f"results: {outcome.path}\nplot:    {figure}")
    _finish(outcome, failed, allow_errors)


def _list_figures(ctx: click.Context) -> None:
    """``--list``: one line per figure, then exit."""
    from inev.experiments.reproduce import figure_list

    click.echo("\n".join(figure_list()))
    ctx.exit(0)


@click.command(
    "reproduce",
    epilog=examples(
        "inev reproduce -o report",
        "inev reproduce 7a 10b -o report --quick",
        "inev reproduce 7a -o report --force",
        "inev reproduce inv6 pspice5 greta-events -o engines --quick",
        "inev reproduce --list",
    ),
)
@click.option(
    "--list",
    "show_list",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=lambda ctx, _param, value: _list_figures(ctx) if value else None,
    help="List every figure (the INEv paper's and the local engines' papers') and exit.",
)
@click.argument("figures", nargs=-1, metavar="[FIGS]...")
@click.option(
    "-o", "--out", required=True, type=click.Path(file_okay=False), help="Report folder (new)."
)
@click.option("--quick", is_flag=True, help="The presets' small [quick] scale (minutes).")
@click.option(
    "--seeds",
    multiple=True,
    metavar="N|FIG=N",
    help="Seeds per point instead of the presets' 50, for every figure or one (repeatable).",
)
@master_option
@click.option("--force", is_flag=True, help="Replace a non-empty report folder.")
def reproduce_command(
    figures: tuple[str, ...],
    out: str,
    quick: bool,
    seeds: tuple[str, ...],
    master: str,
    force: bool,
) -> None:
    """Re-run the INEv paper's figures 4a to 12b (and, by name, the local engines' papers'
    figures: inev reproduce --list) and write a report checking each claim."""
    from rich.console import Console

    from inev.experiments.reproduce import RunOptions, parse_seeds, reproduce, split_names

    check_paths({}, out, output_folder=True)
    split_names(figures)  # unknown figure names and seed counts are refused before anything runs
    parse_seeds(seeds)
    words = ["inev reproduce", *figures, "-o", out]
    words += ["--quick"] * quick + [f"--seeds {s}" for s in seeds]
    words += [f"--master {master}"] if master != DEFAULT_MASTER else []
    console = Console()
    bars = console.is_terminal  # a log file gets the one line per figure only
    options = RunOptions(
        master=master,
        quick=quick,
        seeds=seeds,
        force=force,
        command=" ".join(words),
        echo=click.echo,
        estimates=True,
        progress=(lambda label: sweep_progress(console, label, transient=True)) if bars else None,
    )
    report = reproduce(figures, out, options)
    click.echo(f"report: {report}")
