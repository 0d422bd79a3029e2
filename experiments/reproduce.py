"""``inev reproduce``: the INEv paper's §7.2 figures re-run, drawn and checked in one report.

For each chosen figure of ``experiments/claims.toml`` the preset of the same name runs as a
sweep (on Spark, embedded by default, or ``--master serial``), the figure is drawn from the
preset's ``[plot]`` table, and every check of the figure's claim is evaluated on the rows.
Figures whose presets are the same sweep (9a and 9b: the same runs, another y) share one run.
The report, ``README.md`` in the output folder, states per figure the paper's claim with its
section, inev's numbers (median and quartiles per point), each check with its tolerance and
whether it holds, the preset's note on what differs from the paper, failed tasks if any, and
the time the figure took. Nothing is left out because it disagrees. :class:`RunOptions` holds
the command line's flags and the progress bar each figure's sweep reports to.

``--quick`` runs every preset at its ``[quick]`` scale (a few seeds, fewer points, planner
effort 0 for the multi-query figures): the report's shape in a few minutes, not the paper's
numbers. ``--seeds N`` runs N seeds per point instead of the presets' 50, ``--seeds FIG=N``
for one figure (the header and every figure's section say so).
``--force`` writes into a folder that holds a report: the figures named are re-run, resuming
the finished tasks of its ``runs/`` (also at another number of seeds: ``--seeds 50`` after
``--seeds 5`` runs the 45 new seeds only; a sweep whose other settings changed starts over
there: :mod:`inev.experiments.sweep_folder`), and the report's other figures stay: each is
checked and drawn again from its ``runs/``, at the settings it was run with
(:func:`kept_figures`), so ``inev reproduce 7a -o report --force`` updates one figure of 25.

The local engines' papers' figures (:mod:`inev.experiments.engine_figures`: ``inv5`` to
``inv9``, ``pspice5`` to ``pspice9``, ``greta-events``, ``greta-negation``,
``greta-selectivity``, ``greta-groups``, ``greta-sliding``) run by name beside INEv's, each a
library function rather than a sweep (no Spark, no seeds option); their sections follow the INEv figures' in
the same report, and their tables go to ``runs/<id>.json``. Giving no names
runs the INEv figures only; ``--force`` re-runs the engine figures named and keeps none.

The error promise holds: paths and figure names are checked before any work, the report is
built in a hidden sibling folder and renamed into place only when complete, and any failure
removes it, so a failed run leaves nothing behind. An interrupt (Ctrl-C, SIGTERM) keeps the
finished tasks as a sweep does: the staging folder's ``runs/`` moves into the output folder
(replacing the ``runs/`` it was copied from) and the rest is removed; the same command then
resumes them (an output folder holding only ``runs/`` needs no ``--force``). Workers are
stopped before any folder is moved (:mod:`inev.experiments.spark_shutdown`), so no staging
folder comes back, and a run interrupted before any task finished keeps nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.interrupts import Terminated
from inev.common.option_names import option
from inev.common.words import plural
from inev.experiments.claims import Figure, describe, evaluate, load_claims
from inev.experiments.engine_figures import choose_engine, engine_figures, is_engine, run_engine
from inev.experiments.engine_figures.model import EngineFigure, EngineResult
from inev.experiments.engine_figures.report import engine_text
from inev.experiments.provenance import task_versions, version_counts
from inev.experiments.reproduce_report import FigureResult, report_text, timing_text
from inev.experiments.spark import DEFAULT_MASTER
from inev.experiments.spec import SweepSpec, parse_spec, quick_document
from inev.experiments.sweep_folder import (
    identity,
    same_but_seeds,
    stored_document,
    stored_identity,
)

REPORT = "README.md"


def choose(names: Sequence[str], figures: Sequence[Figure] | None = None) -> list[Figure]:
    """The figures named (``4a`` or ``fig4a``; all when none), in the paper's order.

    >>> [f.id for f in choose(["fig9b", "4a"])]
    ['4a', '9b']
    """
    known = list(figures) if figures is not None else load_claims()
    if not names:
        return known
    wanted = set()
    ids = [f.id for f in known]
    for name in names:
        bare = name[3:] if name.lower().startswith("fig") else name
        if bare.lower() not in ids:
            raise InevError(f"no figure {name!r} (figures: {', '.join(ids)})")
        wanted.add(bare.lower())
    return [f for f in known if f.id in wanted]


def split_names(names: Sequence[str]) -> tuple[list[str], list[EngineFigure]]:
    """The INEv figure names and the engine figures among ``names``; every name is checked
    (an unknown one is refused in one line naming both sets).

    >>> inev, engine = split_names(["7a", "inv6"])
    >>> inev, [f.id for f in engine]
    (['7a'], ['inv6'])
    """
    inev = [n for n in names if not is_engine(n)]
    try:
        if inev:
            choose(inev)
    except InevError as error:
        raise InevError(
            f"{error}; engine figures: {', '.join(f.id for f in engine_figures())}"
        ) from None
    return inev, choose_engine([n for n in names if is_engine(n)])


def figure_list() -> list[str]:
    """One line per figure ``inev reproduce`` knows: its id, paper and section."""
    lines = [f"{f.id:14s} INEv, {f.section}" for f in load_claims()]
    lines += [f"{f.id:14s} {f.paper.split(',')[0]}, {f.section}" for f in engine_figures()]
    return lines


def parse_seeds(values: Sequence[str]) -> dict[str, int]:
    """``--seeds`` values (``N`` for every figure, ``FIG=N`` for one) as ``{figure or "*": N}``.

    >>> parse_seeds(["3", "fig9b=1", "10a=2"])
    {'*': 3, '9b': 1, '10a': 2}
    """
    out: dict[str, int] = {}
    for value in values:
        figure, _, count = value.rpartition("=")
        key = "*" if not figure else choose([figure])[0].id
        try:
            number = int(count)
        except ValueError:
            raise InevError(
                f"{option('seeds')} {value}: give N or FIG=N with a whole number N"
            ) from None
        if not 1 <= number <= 1000:
            raise InevError(f"{option('seeds')} must be between 1 and 1,000, got {number}")
        out[key] = number
    return out


def preset_document(figure: Figure, quick: bool, seeds: int | None) -> dict[str, Any]:
    """The sweep document of a figure's preset at the asked scale."""
    import tomllib
    from importlib import resources

    path = resources.files("inev.experiments") / "presets" / f"{figure.preset}.toml"
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    if quick:
        document = quick_document(document, f"preset {figure.preset}")
    if seeds is not None:
        document["seeds"] = seeds
    document.pop("quick", None)
    return document


Progress = Callable[[int, int], Callable[[int], None]]
"""``start(total, already_done)`` returning ``advance(n)``, as :func:`run_sweep` takes."""


@dataclass(frozen=True)
class RunOptions:
    """How :func:`reproduce` runs: the command line's flags, and where it reports progress."""

    master: str = DEFAULT_MASTER
    """Spark master URL, or ``serial``."""
    quick: bool = False
    """Every preset at its ``[quick]`` scale."""
    seeds: Sequence[str] = ()
    """``--seeds`` values: ``N`` for every figure, ``FIG=N`` for one (:func:`parse_seeds`)."""
    force: bool = False
    """Replace a non-empty report folder, resuming its ``runs/``."""
    command: str = "inev reproduce"
    """The command as typed, for the report's header."""
    echo: Callable[[str], None] = print
    """Called with one line per finished figure."""
    progress: Callable[[str], tuple[Progress, Callable[[], None]]] | None = None
    """Given a figure's label, a ``(start, stop)`` pair: ``start`` goes to the figure's sweep,
    ``stop`` is called when the sweep ends (a progress bar per figure)."""
    estimates: bool = False
    """Each figure's sweep first runs one task and echoes what the rest will cost
    (:mod:`inev.experiments.cost_estimate`)."""


def kept_figures(folder: Path, chosen: Sequence[Figure]) -> dict[str, dict[str, Any]]:
    """The figures of the report in ``folder`` that are not in ``chosen`` and whose runs are
    there: ``{figure id: the sweep document it was run with}``, in the paper's order."""
    report = folder / REPORT
    if not report.is_file():
        return {}
    text = report.read_text(encoding="utf-8", errors="replace")
    named = {f.id for f in chosen}
    out = {}
    for figure in load_claims():
        if figure.id in named or f"\n## Figure {figure.id}\n" not in text:
            continue
        preset = figure.preset
        shared = re.search(rf"Preset `{re.escape(preset)}` \(the runs of preset ([\w-]+)\)", text)
        runs = folder / "runs" / (shared.group(1) if shared else preset)
        if not (runs / "spec.json").is_file():
            continue
        document = stored_document(runs)
        if shared:  # the same sweep, drawn and named as this figure's preset says
            own = preset_document(figure, quick=False, seeds=None)
            document = {**document, **{k: own[k] for k in ("name", "note", "plot") if k in own}}
        out[figure.id] = document
    return out


def run_figures(
    figures: Sequence[Figure],
    folder: Path,
    options: RunOptions | None = None,
    seeds: dict[str, int] | None = None,
    kept: dict[str, dict[str, Any]] | None = None,
) -> list[FigureResult]:
    """Run, draw and check each figure into ``folder`` (``runs/<preset>/`` and PNGs) as
    ``options`` say, with ``seeds`` parsed from ``options.seeds``; the figures of ``kept``
    (:func:`kept_figures`) are checked and drawn from their runs at their own settings."""
    options = options or RunOptions()
    wanted = seeds or {}
    kept = kept or {}
    documents = [
        kept[f.id]
        if f.id in kept
        else preset_document(f, options.quick, wanted.get(f.id, wanted.get("*")))
        for f in figures
    ]
    specs = [
        parse_spec(d, origin=f"preset {f.preset}") for f, d in zip(figures, documents, strict=True)
    ]
    sweeps = {json.dumps(identity(s), sort_keys=True): s.size for s in specs}
    options.echo(
        f"{plural(len(figures), 'figure')} from {plural(len(sweeps), 'sweep')} of "
        f"{plural(sum(sweeps.values()), 'task')} in all (finished tasks in runs/ are kept)"
        + (f"; {', '.join(kept)} kept from the report in the folder" if kept else "")
    )
    done: dict[str, tuple[str, list[dict[str, Any]], list[str], bool]] = {}
    out = []
    for figure, document, spec in zip(figures, documents, specs, strict=True):
        key = json.dumps(identity(spec), sort_keys=True)
        started = time.perf_counter()
        shared = None
        resumed = False
        if key in done:
            shared, rows, failures, resumed = done[key]
        else:
            rows, failures, resumed = _sweep_rows(figure, spec, document, folder, options)
            done[key] = (figure.preset, rows, failures, resumed)
        image, failures = _draw(figure, rows, document, folder, failures)
        outcomes = [evaluate(check, rows) for check in figure.checks]
        code = _code(folder / "runs" / (shared or figure.preset), rows)
        diagnostics = [(d["text"], describe(d, rows)) for d in figure.diagnostics]
        seconds = time.perf_counter() - started
        result = FigureResult(
            figure,
            spec,
            document,
            rows,
            outcomes,
            image,
            seconds,
            shared,
            failures,
            resumed,
            diagnostics,
        )
        # a kept figure whose runs/ missed tasks had them run: it is not "not re-run"
        result.kept = figure.id in kept and resumed
        result.code = code
        out.append(result)
        verdict = "holds" if result.holds else "DOES NOT HOLD"
        how = "kept from the report" if result.kept else f"in {seconds:.1f} s"
        if figure.id in kept and not resumed:
            how += " (kept from the report; the tasks its runs/ missed were run)"
        options.echo(f"Fig. {figure.id}: {spec.size} tasks {how}, claim {verdict}")
    return out


def _sweep_rows(
    figure: Figure, spec: SweepSpec, document: dict[str, Any], folder: Path, options: RunOptions
) -> tuple[list[dict[str, Any]], list[str], bool]:
    """Run a figure's sweep into ``folder/runs/<preset>`` (runs of other settings there are
    removed first); its rows, failed tasks, and whether every task was resumed."""
    runs = folder / "runs" / figure.preset
    stored = stored_identity(runs) if runs.is_dir() else None
    if stored is not None and not same_but_seeds(stored, identity(spec)):
        shutil.rmtree(runs)  # an older report's runs of other settings: start over
    outcome = _run(spec, runs, document, options, f"Fig. {figure.id}")
    if outcome.interrupted:
        raise KeyboardInterrupt(f"while running figure {figure.id}")
    rows = outcome.table.to_pylist()
    return rows, _failures(rows), outcome.ran == 0 and outcome.skipped > 0


def _draw(
    figure: Figure,
    rows: list[dict[str, Any]],
    document: dict[str, Any],
    folder: Path,
    failures: list[str],
) -> tuple[str, list[str]]:
    """Draw a figure's PNG as its preset's plot table says; its file name ("" when there
    is nothing to draw) and the failures, with the reason for no drawing added."""
    from inev.experiments.plot import PlotOptions, plot

    image = f"fig{figure.id}.png"
    drawing = PlotOptions.from_table(document.get("plot", {}))
    try:
        plot(_table(rows), folder / image, drawing)
    except InevError as exc:  # nothing to draw: the report says why, the run goes on
        return "", [*failures, f"no figure drawn: {exc}"]
    return image, failures


def _run(
    spec: SweepSpec, runs: Path, document: dict[str, Any], options: RunOptions, label: str
) -> Any:
    """One figure's sweep into ``runs``, with its progress bar when ``options`` give one."""
    from inev.experiments.sweep import run_sweep

    start, stop = options.progress(label) if options.progress else (None, None)
    estimate = (lambda e: options.echo(f"{label}: {e.line()}")) if options.estimates else None
    try:
        return run_sweep(
            spec,
            runs,
            master=options.master,
            document=document,
            progress=start,
            estimate=estimate,
        )
    finally:
        if stop is not None:
            stop()


def _code(runs: Path, rows: list[dict[str, Any]]) -> dict[str, int]:
    """How many tasks of ``rows`` each code computed, from ``runs``' record."""
    ids = {row["task_id"] for row in rows if row.get("task_id")}
    return dict(version_counts(task_versions(runs), ids))


def _table(rows: list[dict[str, Any]]) -> Any:
    from inev.experiments.results import rows_to_table

    return rows_to_table(rows)


def _failures(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, list[int]] = {}
    for row in rows:
        if row.get("error") is not None:
            seen.setdefault(row["error"], []).append(row["seed"])
    return [f"{len(set(s))} task(s), seeds {sorted(set(s))[:5]}: {e}" for e, s in seen.items()]


def reproduce(
    names: Sequence[str], out: str | os.PathLike[str], options: RunOptions | None = None
) -> Path:
    """Run the figures into a new report folder ``out`` (module docstring); return its report."""
    options = options or RunOptions()
    inev_names, engines = split_names(names)
    figures = choose(inev_names) if inev_names or not engines else []
    target = Path(out)
    counts = parse_seeds(options.seeds)
    force = options.force
    resuming = _check_target(out, target, force)
    started = time.perf_counter()
    staging = _staging(out, target)
    ready = False  # staging's runs/ holds the target's (if any): safe to keep on an interrupt
    try:
        if (force or resuming) and (target / "runs").is_dir():  # finished tasks resume
            shutil.copytree(target / "runs", staging / "runs")
        ready = True
        others = kept_figures(target, figures) if force and names else {}
        every = [f for f in load_claims() if f in figures or f.id in others]
        results = run_figures(every, staging, options, counts, others) if every else []
        done = run_engine(engines, staging, options.quick, options.echo)
        text = _report(results, done, options, counts, time.perf_counter() - started)
        (staging / REPORT).write_text(text, encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    except (KeyboardInterrupt, Terminated) as stop:
        kept = _keep_runs(staging, target) if ready else None
        shutil.rmtree(staging, ignore_errors=True)
        if kept is None or isinstance(stop, Terminated):
            raise
        said = f"{stop}; " if str(stop) else ""
        raise KeyboardInterrupt(
            f"{said}finished tasks kept in {kept}, the same command resumes them"
        ) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target / REPORT


def _report(
    results: Sequence[FigureResult],
    done: Sequence[EngineResult],
    options: RunOptions,
    counts: dict[str, int],
    seconds: float,
) -> str:
    """The report: the INEv figures' (when any ran), then the engine figures' sections."""
    if results:
        header = _header(options, counts, timing_text(results, seconds))
        text = report_text(results, header, options.quick)
    else:  # engine figures only: no Spark, no presets, no seeds
        scale = "quick scale" if options.quick else "full scale"
        text = f"Command: `{options.command}`; {scale}; wall time {seconds:.0f} s.\n"
    if done:
        text += "\n" + "\n".join(engine_text(done, options.quick)) + "\n"
    return text


def _check_target(out: str | os.PathLike[str], target: Path, force: bool) -> bool:
    """Refuse a report folder that cannot be written; return whether it holds only the
    ``runs/`` of an interrupted reproduction (which then resumes)."""
    if target.exists() and not target.is_dir():
        raise InevError(f"{out}: exists and is not a folder")
    resuming = target.is_dir() and {p.name for p in target.iterdir()} == {"runs"}
    if target.is_dir() and any(target.iterdir()) and not (force or resuming):
        what = "holds a report" if (target / REPORT).is_file() else "is not empty"
        raise InevError(
            f"{out}: {what}; {option('force')} re-runs the figures named into it (the "
            "report's other figures stay, finished tasks in its runs/ resume), or give another "
            "-o folder"
        )
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InevError(f"output folder {str(parent)!r} does not exist")
    return resuming


def _staging(out: str | os.PathLike[str], target: Path) -> Path:
    """A new hidden folder beside ``target`` that the report is written into first."""
    parent = target.parent if str(target.parent) else Path(".")
    staging = parent / f".{target.name}.partial-{uuid.uuid4().hex[:8]}"
    try:
        staging.mkdir()
    except OSError as error:  # the staging name would only puzzle: name the folder asked for
        raise InevError(f"{out}: cannot write the report here ({error.strerror})") from None
    return staging


def _header(options: RunOptions, counts: dict[str, int], timing: str) -> list[str]:
    """The report's header: the command, the scale and seeds, the Spark master, the time."""
    scale = "quick scale (presets' [quick] tables)" if options.quick else "the presets' scale"
    if "*" in counts:
        scale += f", {counts['*']} seeds per point instead of the presets' own"
    others = [f"Fig. {k}: {v}" for k, v in counts.items() if k != "*"]
    if others:
        scale += f" (seeds per point set for {', '.join(others)})"
    return [
        f"Command: `{options.command}`; {scale}; Spark master `{options.master}`; {timing}.",
        "",
        "Each figure states the paper's claim, inev's numbers and whether the claim "
        "holds within the tolerance written in each check (experiments/claims.toml; "
        "tolerances were fixed from the paper's wording before the runs). A claim that "
        "does not hold is reported as measured, never hidden.",
    ]


def _keep_runs(staging: Path, target: Path) -> Path | None:
    """Move the staging folder's ``runs/`` (a superset of the target's) into ``target``;
    ``None`` (and nothing moved) when no task has finished in it."""
    runs = staging / "runs"
    if not any(runs.glob("*/parts/part-*")):
        return None
    target.mkdir(exist_ok=True)
    kept = target / "runs"
    if kept.exists():
        shutil.rmtree(kept)
    runs.rename(kept)
    return kept
