"""The engine figures' part of the ``inev reproduce`` report: a summary table and a section
per figure in the shape of the INEv figures (the paper's claim in its words with its section,
its statistic, inev's numbers, the verdict per check and, where it fails, the measured cause).

>>> from inev.experiments.engine_figures.model import EngineFigure, Measured, Verdict
>>> m = Measured(("x",), ({"x": 1.5},), "toy")
>>> f = EngineFigure("toy", "P", "§1", "it holds", "x", "none", lambda q: m,
...                  lambda m: [Verdict("x >= 1", "1.5", True)], lambda m: "")
>>> text = "\\n".join(engine_text([EngineResult(f, m, f.judge(m), 0.5)], quick=True))
>>> "**1 of 1 engine figures' claims hold; 0 do not.**" in text, "| 1.5 |" in text
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inev.experiments.engine_figures.model import EngineFigure, EngineResult, fmt

__all__ = ["EngineResult", "engine_text"]


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return fmt(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def _cause(r: EngineResult) -> str:
    return "" if r.holds else (r.figure.cause(r.measured) or "**not analysed yet**")


def engine_text(
    results: Sequence[EngineResult],
    quick: bool,
    absent: Sequence[EngineFigure] = (),
) -> list[str]:
    """The engine papers' summary and sections (``absent``: figures not run, named at the top)."""
    held = sum(r.holds for r in results)
    lines = ["# The local engines' papers, figure by figure, re-run with inev", ""]
    if quick:
        lines += [
            "**Quick run: every figure below ran at its quick scale (a few thousand events, "
            "two points per axis); it shows the report's shape, not the papers' results.**",
            "",
        ]
    if absent:
        lines += [f"Not in this report (not run): {', '.join(f.id for f in absent)}.", ""]
    lines += [
        f"**{held} of {len(results)} engine figures' claims hold; {len(results) - held} do not.** "
        "Throughput is only ever a ratio of CPU times between methods of one run.",
        "",
        "| figure | paper | the paper's claim | holds | time |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        cells = [
            f"[{r.figure.id}](#engine-figure-{r.figure.id})",
            f"{r.figure.paper.split(',')[0]}, {r.figure.section}",
            r.figure.claim,
            ("yes" if r.holds else "**no**")
            + f" ({sum(v.holds for v in r.verdicts)} of {len(r.verdicts)} checks)",
            f"{r.seconds:.0f} s",
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    for r in results:
        lines += _section(r)
    return lines


def _section(r: EngineResult) -> list[str]:
    f = r.figure
    lines = ["", f"## Engine figure {f.id}", ""]
    lines += [f"**The paper** ({f.paper}, {f.section}): {f.claim}", ""]
    lines += [f"**The paper's statistic:** {f.statistic}.", ""]
    lines += [f"**Verdict: {'holds' if r.holds else 'does not hold'}.**", ""]
    lines += [
        f"- {'holds' if v.holds else '**does not hold**'}: {v.text}. Measured: {v.measured}."
        for v in r.verdicts
    ]
    lines.append("")
    if not r.holds:
        lines += [f"*Cause (measured):* {_cause(r)}", ""]
    lines += [f"*What differs from the paper:* {f.setting}", ""]
    lines += [f"Scale: {r.measured.scale}; table in `runs/{f.id}.json`.", ""]
    lines += ["<details><summary>inev's numbers</summary>", ""]
    cols = r.measured.columns
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_cell(row.get(c)) for c in cols) + " |" for row in r.measured.rows]
    lines += ["", "</details>"]
    return lines


def report_from_runs(folder: Path, header: Sequence[str]) -> str:
    """The engine report rendered from the ``<id>.json`` tables in ``folder`` (every engine
    figure that has one, judged again by today's code), ``header`` after the title; the
    figures without a table are named as not run. ``docs/reproduction/engines.md`` is this."""
    from inev.experiments.engine_figures import engine_figures, load_result

    known = engine_figures()
    results = [
        load_result(folder / f"{f.id}.json") for f in known if (folder / f"{f.id}.json").is_file()
    ]
    absent = [f for f in known if not (folder / f"{f.id}.json").is_file()]
    lines = engine_text(results, quick=any(_quick(folder, r) for r in results), absent=absent)
    return "\n".join([lines[0], "", *header, *lines[1:]]) + "\n"


def _quick(folder: Path, r: EngineResult) -> bool:
    import json

    record = json.loads((folder / f"{r.figure.id}.json").read_text(encoding="utf-8"))
    return bool(record.get("quick"))
