"""The report of ``inev reproduce`` (``README.md`` in its folder): a figure's run
(:class:`FigureResult`), and the text stating per figure the paper's claim, inev's numbers,
each check and whether it holds, what failed, and the time it took (:func:`report_text`);
:mod:`inev.experiments.reproduce` runs the figures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.common.stats import quantiles
from inev.common.words import plural
from inev.experiments.claims import Figure, Outcome, fmt, load_claims
from inev.experiments.columns import axis_label, method_name
from inev.experiments.paper_settings import settings_rows, settings_table
from inev.experiments.plot_options import DEFAULT_Y
from inev.experiments.provenance import describe_versions
from inev.experiments.spec import SweepSpec

PAPER_RUNS = 50
"""Runs per point the paper averages (§7.1)."""


@dataclass
class FigureResult:
    """One figure's run: its rows, checks, image and timing."""

    figure: Figure
    spec: SweepSpec
    document: dict[str, Any]
    rows: list[dict[str, Any]]
    outcomes: list[Outcome]
    image: str
    seconds: float
    shared_with: str | None = None
    failures: list[str] = field(default_factory=list)
    resumed: bool = False
    """Whether every task was already done (the time is then not the figure's run time)."""
    diagnostics: list[tuple[str, str]] = field(default_factory=list)
    """``(text, measured)`` of the figure's diagnostics: numbers without a verdict."""
    kept: bool = False
    """Not asked for: kept from the report in the folder, checked again from its ``runs/``."""
    code: dict[str, int] = field(default_factory=dict)
    """How many of the figure's tasks each version of inev computed
    (:mod:`inev.experiments.provenance`)."""

    @property
    def holds(self) -> bool:
        """Whether every check holds."""
        return all(o.holds for o in self.outcomes)

    @property
    def headline(self) -> str:
        """inev's deciding numbers: those of the first check that fails, else the first's."""
        deciding = next((o for o in self.outcomes if not o.holds), None)
        deciding = deciding or (self.outcomes[0] if self.outcomes else None)
        return deciding.headline or deciding.measured if deciding else ""


def code_line(results: Sequence[FigureResult]) -> str:
    """The header's line on which code computed the report's runs.

    >>> fig = next(f for f in load_claims() if f.id == "7a")
    >>> one = FigureResult(fig, None, {}, [], [], "", 1.0, code={"abc": 3})
    >>> code_line([one, one])
    'Runs: all 6 tasks computed by abc.'
    >>> two = FigureResult(fig, None, {}, [], [], "", 1.0, code={"def": 2})
    >>> code_line([one, two])
    'Runs: **mixed code**: 3 tasks computed by abc, 2 by def; each figure says which of its tasks which code computed.'
    """
    total: Counter[str] = Counter()
    for r in results:
        if not r.shared_with:
            total.update(r.code)
    if not total:
        return ""
    text = f"Runs: {describe_versions(total)}"
    return text + (
        "; each figure says which of its tasks which code computed." if len(total) > 1 else "."
    )


def _points(result: FigureResult) -> list[str]:
    """Markdown table rows: median (quartiles) of the plotted metrics per point and method."""
    plot_table = result.document.get("plot", {})
    y = plot_table.get("y", DEFAULT_Y)
    metrics = [y] if isinstance(y, str) else list(y)
    methods = plot_table.get("methods") or list(result.spec.methods)
    axes = list(result.spec.axes)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in result.rows:
        if row.get("error") is None and row["method"] in methods:
            groups.setdefault((*(row[a] for a in axes), row["method"]), []).append(row)
    header = [*axes, "method", "n", *(axis_label(m) for m in metrics)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key in sorted(groups, key=lambda k: tuple(map(str, k[-1:])) + tuple(map(_order, k[:-1]))):
        rows = groups[key]
        cells = [fmt(v) for v in key[:-1]] + [method_name(key[-1]), str(len(rows))]
        for metric in metrics:
            values = sorted(float(r[metric]) for r in rows if r.get(metric) is not None)
            cells.append(_quartile_text(values))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _order(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))


def _quartile_text(values: list[float]) -> str:
    """Median (first quartile – third quartile) in 3 digits; the value alone for one."""
    if not values:
        return "–"
    if len(values) == 1:
        return fmt(values[0])
    q1, median, q3 = quantiles(values, (0.25, 0.5, 0.75))
    return f"{fmt(median)} ({fmt(q1)} – {fmt(q3)})"


def caveat(results: Sequence[FigureResult], quick: bool = False) -> str | None:
    """The report's first line when its verdicts rest on fewer seeds than the paper's 50
    runs per point (``None`` when every figure ran 50 or more).

    >>> fig = Figure(id="4a", preset="fig4a", section="", claim="", checks=())
    >>> spec = SweepSpec("s", {}, {}, ("inev",), seeds=3)
    >>> print(caveat([FigureResult(fig, spec, {}, [], [], "", 0.0)], quick=True))
    **Quick run: every verdict below rests on 3 seeds per point, not the paper's 50 runs per point; it shows the report's shape, not the paper's results.**
    """
    seeds = sorted({r.spec.seeds for r in results})
    if not seeds or seeds[0] >= PAPER_RUNS:
        return None
    count = str(seeds[0]) if len(seeds) == 1 else f"{seeds[0]} to {seeds[-1]}"
    kind = "Quick run: every" if quick else "Every"
    return (
        f"**{kind} verdict below rests on {count} seeds per point, not the paper's "
        f"{PAPER_RUNS} runs per point; it shows the report's shape, not the paper's results.**"
    )


def _cause(r: FigureResult) -> str:
    """Why a claim does not hold, in the summary table (empty when it holds)."""
    if r.holds:
        return ""
    return r.figure.cause or "**not analysed yet**"


def report_text(results: Sequence[FigureResult], header: Sequence[str], quick: bool = False) -> str:
    """The Markdown report (see the module docstring)."""
    first = caveat(results, quick)
    lines = [first, ""] if first else []
    code = code_line(results)
    lines += ["# The INEv paper's §7.2, figure by figure, re-run with inev", "", *header, ""]
    lines += [code, ""] if code else []
    lines += _summary(results)
    chosen = {r.figure.id for r in results}
    rows = [row for row in settings_rows() if row.figures == ("all",) or chosen & set(row.figures)]
    lines += [
        "",
        "## Settings: the paper's and inev's",
        "",
        "Where the paper's text states a setting, the preset uses it; where it does not, the "
        "authors' public scripts (the setup §7.1 points to) are followed where they give one, "
        "and the row says so (experiments/settings.toml).",
        "",
        *settings_table(rows),
    ]
    for r in results:
        lines += _figure_section(r)
    return "\n".join(lines) + "\n"


def _summary(results: Sequence[FigureResult]) -> list[str]:
    """The report's count of claims that hold and its table, a row per figure."""
    held = sum(r.holds for r in results)
    lines = [
        f"**{held} of {len(results)} figures' claims hold; {len(results) - held} do not.**",
        "",
        *_absent(results),
        "| figure | the paper's claim | the paper's statistic | inev: mean (median) | holds "
        "| cause of the difference | time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        mark = "yes" if r.holds else "**no**"
        took = "runs shared" if r.shared_with else f"{r.seconds:.0f} s"
        took = "resumed from an earlier run" if r.resumed else took
        took = "kept from the earlier report" if r.kept else took
        cells = [
            f"[{r.figure.id}](#figure-{r.figure.id})",
            r.figure.claim,
            r.figure.statistic,
            r.headline,
            mark,
            _cause(r),
            took,
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def _figure_section(r: FigureResult) -> list[str]:
    """One figure's section: the claim, the verdict per check, cause, image, runs, points."""
    lines = ["", f"## Figure {r.figure.id}", ""]
    lines += [f"**The paper** ({r.figure.section}): {r.figure.claim}", ""]
    lines += [f"**The paper's statistic:** {r.figure.statistic}.", ""]
    lines += [f"**Verdict: {'holds' if r.holds else 'does not hold'}.**", ""]
    for o in r.outcomes:
        lines.append(
            f"- {'holds' if o.holds else '**does not hold**'}: {o.text}. Measured: {o.measured}."
        )
    lines.append("")
    if not r.holds:
        lines += [f"*Cause (which step of inev differs from the paper):* {_cause(r)}", ""]
    if r.diagnostics:
        lines += ["Measured beside the checks (no verdict):", ""]
        lines += [f"- {text}: {measured}." for text, measured in r.diagnostics]
        lines.append("")
    if r.figure.known:
        lines += [f"*Why (inev's analysis):* {r.figure.known}", ""]
    if r.image:
        lines += [f"![Figure {r.figure.id}]({r.image})", ""]
    lines += _runs_lines(r)
    lines += ["<details><summary>inev's numbers per point</summary>", ""]
    lines += _points(r)
    lines += ["", "</details>"]
    return lines


def _runs_lines(r: FigureResult) -> list[str]:
    """Where a figure's runs are, its sweep's size, the preset's note and any failures."""
    runs = f"`runs/{r.shared_with or r.figure.preset}/`"
    shared = f" (the runs of preset {r.shared_with})" if r.shared_with else ""
    lines = [
        f"Preset `{r.figure.preset}`{shared}: {r.spec.size} tasks "
        f"({r.spec.size // r.spec.seeds} points x {r.spec.seeds} seeds), methods "
        f"{', '.join(r.spec.methods)}; results in {runs}"
        + (f"; {describe_versions(r.code)}." if r.code else "."),
        "",
    ]
    note = r.document.get("note")
    if note:
        lines += [f"*What differs from the paper:* {note}", ""]
    if r.failures:
        lines += ["**Failed tasks or drawing:**", ""] + [f"- {f}" for f in r.failures] + [""]
    return lines


def _absent(results: Sequence[FigureResult], figures: Sequence[Figure] | None = None) -> list[str]:
    """A line naming the paper's figures this report leaves out (none when it has them all),
    so a partial report cannot be read as the whole.

    >>> known = [Figure(id=i, preset="", section="", claim="", checks=()) for i in ("4a", "4b")]
    >>> _absent([FigureResult(known[0], None, {}, [], [], "", 0.0)], known)
    ['Not in this report (not run yet): 4b; the count above is over the figures it has.', '']
    """
    have = {r.figure.id for r in results}
    missing = [
        f.id for f in (figures if figures is not None else load_claims()) if f.id not in have
    ]
    if not missing:
        return []
    return [
        f"Not in this report (not run yet): {', '.join(missing)}; the count above is over the "
        "figures it has.",
        "",
    ]


def timing_text(results: Sequence[FigureResult], seconds: float) -> str:
    """The header's account of the run's time, honest about figures resumed from a folder.

    >>> fig = Figure(id="4a", preset="fig4a", section="", claim="", checks=())
    >>> runs = [FigureResult(fig, None, {}, [], [], "", 5.0, resumed=r) for r in (False, True)]
    >>> timing_text(runs, 7.0)
    'figures: 2, wall time 7 s; 1 of them wholly resumed from an earlier run in this folder, whose time is not counted'
    """
    text = f"figures: {len(results)}, wall time {seconds:.0f} s"
    kept = [r.figure.id for r in results if r.kept]
    if kept:
        text += (
            f"; {plural(len(kept), 'figure')} kept from the earlier report in this folder, "
            f"not re-run (checked and drawn again from their runs/): {', '.join(kept)}"
        )
    resumed = sum(r.resumed and not r.kept for r in results)
    if resumed:
        text += (
            f"; {resumed} of them wholly resumed from an earlier run in this folder, "
            "whose time is not counted"
        )
    return text
