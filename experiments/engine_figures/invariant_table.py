"""The invariant paper's Table 1 (seed 000, §5.2): the quality of §3.4's data-analysis
estimate of the invariant distance, ``d_avg`` (the average relative difference between the
sides of the deciding conditions at the initial plan generation), against ``d_opt`` found
by parameter scanning, as ``min(d_avg / d_opt, d_opt / d_avg)`` (the paper's "precision").

``d_avg`` is the engine's ``distance="average"`` (:func:`~inev.simulator.engine.invariants.
average_distance` over the initial plan's deciding conditions, read from the engine after
its first plan); ``d_opt`` is ``inv5``'s: the d of the grid 0-0.5 with the highest CPU
throughput at the most pattern sizes (one per dataset and plan, as the paper's table has
one per dataset and algorithm), from the same interleaved runs
(:func:`~.invariant_runs.compare`), which also time the invariant method at ``d_avg`` (its
throughput over ``d_opt``'s, not in the paper's table). Streams and scale as ``inv5``
(:mod:`.invariant`). A ratio with a zero side is 0 (both zero: 1).
"""

from __future__ import annotations

from typing import Any

from inev.experiments.engine_figures.invariant import PAPER, STREAM, _d_opt, _words, scale
from inev.experiments.engine_figures.invariant_runs import compare
from inev.experiments.engine_figures.model import (
    EngineFigure,
    Measured,
    Verdict,
    every_verdict,
    fmt,
    select,
)
from inev.simulator.engine.engine import Adaptation

DATA = ("traffic", "stocks")
PLANS = ("greedy", "zstream")


def precision(d_avg: float, d_opt: float) -> float:
    """``min(d_avg / d_opt, d_opt / d_avg)``; 0 when one side is 0, 1 when both are.

    >>> precision(0.1695, 0.1), precision(0.0, 0.2), precision(0.0, 0.0)
    (0.5899705014749262, 0.0, 1.0)
    """
    if d_avg <= 0 or d_opt <= 0:
        return 1.0 if d_avg == d_opt == 0 else 0.0
    return min(d_avg / d_opt, d_opt / d_avg)


def initial_average(stream: Any, plan: str) -> float:
    """``d_avg`` of an engine on ``stream`` with ``plan``: the average relative gap of the
    deciding conditions of its first plan (built from the stream's initial rates).

    >>> from inev.simulator.engine.drift_streams import traffic_like
    >>> initial_average(traffic_like(300, size=4), "greedy") > 0
    True
    """
    engine = stream.engine(plan, Adaptation("invariant", distance="average"))
    (branch,) = engine.branches
    return float(branch.decision.distance)


def compute(quick: bool) -> Measured:
    """Per dataset, plan and pattern size: the d scan (CPU throughput over d = 0) and the
    invariant method at ``d_avg`` in one interleaved run; the ``d_avg`` rows also show the
    table's ``d_opt`` and precision (the judge recomputes them from the scan)."""
    s = scale(quick)
    rows = []
    for data in DATA:
        for plan in PLANS:
            for size in s["sizes"]:
                stream = STREAM[data](s["events"], seed=1, size=size)
                d_avg = initial_average(stream, plan)
                chosen = {f"d={d}": Adaptation("invariant", distance=d) for d in s["distances"]}
                chosen["d=average"] = Adaptation("invariant", distance="average")
                found = compare(stream, plan, s["rounds"], chosen)
                base = found["d=0.0"]["cpu"]
                for d in [*s["distances"], "average"]:
                    r = found[f"d={d}"]
                    rows.append(
                        {
                            "data": data,
                            "plan": plan,
                            "size": size,
                            "d": d,
                            "d_avg": d_avg,
                            "x d=0": base / r["cpu"],
                            "plan changes": r["plan_changes"],
                        }
                    )
    words = _words(s) + f", d in {list(s['distances'])} and d_avg"
    shown = {(r["data"], r["plan"], r["size"]): r for r in table(Measured((), tuple(rows), ""))}
    for r in rows:  # the table's d_opt and precision beside each d_avg row (for the reader)
        if r["d"] == "average":
            t = shown[(r["data"], r["plan"], r["size"])]
            r.update({"d_opt": t["d_opt"], "precision": t["precision"]})
    columns = ("data", "plan", "size", "d", "d_avg", "x d=0", "plan changes", "d_opt", "precision")
    return Measured(columns, tuple(rows), words)


def table(m: Measured) -> list[dict[str, Any]]:
    """The paper's Table 1 from the runs: per dataset, plan and size, ``d_avg``, ``d_opt``,
    the precision and the throughput at ``d_avg`` over ``d_opt``'s.

    >>> rows = [{"data": "traffic", "plan": "greedy", "size": 4, "d": d, "d_avg": 0.125,
    ...          "x d=0": x} for d, x in ((0.0, 1.0), (0.1, 2.0), ("average", 1.5))]
    >>> table(Measured((), tuple(rows), ""))[0]["precision"]
    0.8
    """
    out = []
    for data in DATA:
        for plan in PLANS:
            rows = select(m.rows, data=data, plan=plan)
            scan = [r for r in rows if r["d"] != "average"]
            if not scan:
                continue
            d_opt = _d_opt(scan)
            for size in sorted({r["size"] for r in scan}):
                at = select(rows, size=size)
                opt = select(at, d=d_opt)[0]
                avg = select(at, d="average")
                d_avg = opt["d_avg"]
                out.append(
                    {
                        "data": data,
                        "plan": plan,
                        "size": size,
                        "d_avg": d_avg,
                        "d_opt": d_opt,
                        "precision": precision(d_avg, d_opt),
                        "x d_opt": avg[0]["x d=0"] / opt["x d=0"] if avg else float("nan"),
                    }
                )
    return out


def _by(rows: list[dict[str, Any]], data: str, key: str = "precision") -> dict[str, float]:
    return {f"{r['plan']} n={r['size']}": r[key] for r in rows if r["data"] == data}


def judge(m: Measured) -> list[Verdict]:
    """Traffic: precision >= 0.85 from pattern size 6 on; stocks: precision at most 0.45
    everywhere (the method "does not function well in presence of low data skew"); for
    every dataset and plan the precision at the largest size above that at the smallest.

    The bounds are the paper's table's, not its text's: the text says "at least 87%" and
    "31-44%", its table has 0.86 (0.1 / 0.1163) for greedy at size 6, 0.134 and 0.443 on
    stocks; the paper's own table passes every check (``tests/test_engine_figures_q24.py``).
    """
    t = table(m)
    large = [r for r in t if r["size"] >= 6]
    rise = {}
    for data in DATA:
        for plan in PLANS:
            rows = sorted((r for r in t if r["data"] == data and r["plan"] == plan),
                          key=lambda r: r["size"])  # fmt: skip
            if len(rows) > 1:
                rise[f"{data}/{plan}"] = rows[-1]["precision"] - rows[0]["precision"]
    return [
        every_verdict("traffic: precision of d_avg, pattern sizes 6 and above (the paper: "
                      "86-92 %)", _by(large, "traffic"), ">=", 0.85),
        every_verdict("stocks: precision of d_avg at every size (the paper: 13-44 %)",
                      _by(t, "stocks"), "<=", 0.45),
        every_verdict("precision at the largest pattern size minus at the smallest, per "
                      "dataset and plan", rise, ">", 0.0),
    ]  # fmt: skip


def cause(m: Measured) -> str:
    """``d_avg`` against ``d_opt`` per dataset and plan, and what running at ``d_avg`` costs."""
    parts = []
    t = table(m)
    for data in DATA:
        for plan in PLANS:
            rows = [r for r in t if r["data"] == data and r["plan"] == plan]
            if not rows:
                continue
            scan = [r for r in select(m.rows, data=data, plan=plan) if r["d"] != "average"]
            spread = []
            for size in sorted({r["size"] for r in scan}):
                x = [r["x d=0"] for r in scan if r["size"] == size]
                spread.append(100 * (max(x) / min(x) - 1))
            parts.append(
                f"{data}/{plan}: the scanned d's throughputs differ by "
                f"{', '.join(fmt(v) for v in spread)} % (best over worst, per size), "
                f"d_opt = {fmt(rows[0]['d_opt'])}, d_avg "
                + ", ".join(f"n={r['size']}: {fmt(r['d_avg'])}" for r in rows)
                + "; throughput at d_avg / at d_opt "
                + ", ".join(fmt(r["x d_opt"]) for r in rows)
            )
    return (
        "; ".join(parts)
        + ". d_avg is the mean relative gap over every deciding condition of the first plan, "
        "while an invariant is only the tightest condition of its block; d_opt is the d of "
        "the grid 0-0.5 best at the most sizes, and where the d's throughputs differ by "
        "about the machine's noise (5 %) it is not well defined: a repeated run can pick "
        "another d_opt and so another precision. On the traffic-like stream (rates 0.1-8.1, a relative gap "
        "up to 80) greedy's conditions compare candidates far apart and d_avg lands far "
        "above the grid."
    )


def figures() -> list[EngineFigure]:
    """inv-table1."""
    return [
        EngineFigure(
            "inv-table1",
            PAPER,
            "§5.2, Table 1 (quality of d_avg)",
            '"For the traffic dataset, the computed values were considerably close to the '
            "optimal ones for patterns of length 6 and above, with precision reaching at least "
            "87% [...] and as high as 92% [...]. For the stocks dataset, the achieved accuracy "
            "was only 31-44%. [...] for all dataset-algorithm combinations the prevision of the "
            'average relative difference method increases with pattern size."',
            "min(d_avg / d_opt, d_opt / d_avg) per dataset, algorithm and pattern size (the "
            "paper's precision); beside it the throughput at d_avg over that at d_opt",
            "traffic-like / stocks-like streams (drift_streams) instead of Aarhus traffic and "
            "NASDAQ; sequence patterns of 4-8 types; d_opt from the grid 0-0.5 (the paper's "
            "range) as in inv5, d_avg from the engine's initial plan.",
            compute,
            judge,
            cause,
        )
    ]
