"""The local engines' papers, figure by figure, as ``inev reproduce`` runs them beside the
INEv paper's: the invariant paper (seeds 000/001: ``inv5`` to ``inv9``, ``inv-table1``),
pSPICE (seed 004: ``pspice5`` to ``pspice9``, ``pspice5bd``) and GRETA (seed 002:
``greta-events``, ``greta-negation``, ``greta-selectivity``, ``greta-groups``,
``greta-sliding``).

Each figure (:class:`~.model.EngineFigure`) is a library function computing its table, a
pure judge of that table, and a measured cause where a claim fails; :func:`run_engine` runs
the chosen ones into a report folder and :mod:`.report` writes their sections.

>>> [f.id for f in engine_figures()][:3]
['inv5', 'inv6', 'inv7']
>>> is_engine("PSPICE5"), is_engine("7a")
(True, False)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from inev.common.errors import InevError
from inev.experiments.engine_figures.model import EngineFigure, EngineResult, Measured


def engine_figures() -> list[EngineFigure]:
    """Every engine figure, in report order (invariant, pSPICE, GRETA)."""
    from inev.experiments.engine_figures import (
        greta,
        greta_groups,
        greta_negation,
        greta_selectivity,
        greta_sliding,
        invariant,
        invariant_table,
        pspice,
        pspice_latency,
        pspice_overhead,
        pspice_q24,
        pspice_time,
    )

    return [
        *invariant.figures(),
        *invariant_table.figures(),
        *pspice.figures(),
        *pspice_q24.figures(),
        *pspice_time.figures(),
        *pspice_latency.figures(),
        *pspice_overhead.figures(),
        *greta.figures(),
        *greta_negation.figures(),
        *greta_selectivity.figures(),
        *greta_groups.figures(),
        *greta_sliding.figures(),
    ]


def is_engine(name: str) -> bool:
    """Whether ``name`` (any case) is an engine figure's id."""
    return name.lower() in {f.id for f in engine_figures()}


def choose_engine(names: Sequence[str]) -> list[EngineFigure]:
    """The engine figures named, in report order; an unknown name is refused.

    >>> [f.id for f in choose_engine(["greta-events", "inv6"])]
    ['inv6', 'greta-events']
    """
    known = engine_figures()
    ids = {f.id for f in known}
    wanted = {n.lower() for n in names}
    unknown = sorted(wanted - ids)
    if unknown:
        raise InevError(f"no engine figure {unknown[0]!r} (engine figures: {', '.join(ids)})")
    return [f for f in known if f.id in wanted]


def run_engine(
    figures: Sequence[EngineFigure],
    folder: Path,
    quick: bool,
    echo: Callable[[str], None] = print,
) -> list[EngineResult]:
    """Compute and judge each figure; its table goes to ``folder/runs/<id>.json``."""
    out = []
    for figure in figures:
        started = time.perf_counter()
        measured = figure.compute(quick)
        verdicts = figure.judge(measured)
        result = EngineResult(figure, measured, verdicts, time.perf_counter() - started)
        runs = folder / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        record = {
            "figure": figure.id,
            "scale": measured.scale,
            "quick": quick,
            "seconds": result.seconds,
            "columns": list(measured.columns),
            "rows": list(measured.rows),
            "verdicts": [v.__dict__ for v in verdicts],
        }
        (runs / f"{figure.id}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
        out.append(result)
        verdict = "holds" if result.holds else "DOES NOT HOLD"
        echo(f"{figure.id}: computed in {result.seconds:.1f} s, claim {verdict}")
    return out


def load_result(path: Path) -> EngineResult:
    """An engine figure's result from its ``runs/<id>.json``: the stored table, judged again
    (the judge is a pure function of the table, so the verdicts are today's code's)."""
    record = json.loads(path.read_text(encoding="utf-8"))
    figure = choose_engine([record["figure"]])[0]
    measured = Measured(tuple(record["columns"]), tuple(record["rows"]), record["scale"])
    return EngineResult(figure, measured, figure.judge(measured), record.get("seconds", 0.0))
