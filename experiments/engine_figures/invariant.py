"""The invariant paper's figures (seeds 000/001, §5.2): Fig. 5 (throughput against pattern
size and the invariant distance d) and Figs 6-9 (the adaptation methods compared for the
traffic and stocks data with the greedy and ZStream plans: throughput, gain over the static
plan, plan replacements, computational overhead).

The paper's datasets (Aarhus traffic, NASDAQ stocks) are not here; the streams are
:func:`~inev.simulator.engine.drift_streams.traffic_like` and
:func:`~inev.simulator.engine.drift_streams.stocks_like` at pattern sizes 4-8 (SEQ of that
many types), whose docstrings state the properties kept and how they differ. Throughput is
CPU time only, as a ratio between methods of one run (:mod:`.invariant_runs`).

Choices where the paper is vague, and why:

- *Best-tuned threshold* ``t_opt`` is the threshold of the grid with the least CPU time on that
  stream, size and plan (the paper "empirically found" one per combination; finding it per
  size favours the threshold method, so the invariant method's claim is judged against the
  strongest rival).
- The invariant method runs with the engine's **defaults** (issue 49 holds the defaults to the
  claim), not the paper's per-combination ``d_opt`` from Fig. 5; Fig. 5 measures ``d``.
- *Overhead* (Figs 6d-9d: "the percentage of the total execution time spent on D and A") is
  ``1 - CPU(static) / CPU(method)`` on :func:`~inev.simulator.engine.drift_streams.stationary`
  of the same pattern size, where no plan is better than the first: all the extra time is the
  method's checking and re-planning. The engine does not time its decision function apart.
- CPU ratios within 5 % are noise on this machine: "superior" is judged as ``>= 0.95``.
"""

from __future__ import annotations

from typing import Any

from inev.experiments.engine_figures.invariant_runs import (
    THRESHOLDS,
    best_threshold,
    compare,
)
from inev.experiments.engine_figures.model import (
    EngineFigure,
    Measured,
    Verdict,
    any_verdict,
    every_verdict,
    fmt,
    select,
)
from inev.simulator.engine.drift_streams import stationary, stocks_like, traffic_like
from inev.simulator.engine.engine import Adaptation

PAPER = "Kolchinsky & Schuster, Efficient Adaptive Detection of Complex Event Patterns (seed 000; patent 001)"
STREAM = {"traffic": traffic_like, "stocks": stocks_like}
NOISE = 0.95
"""CPU ratios within 5 % are noise on this shared machine."""
NEGLIGIBLE = 0.05
""""Negligible" overhead, read as at most 5 % of the running time."""


def scale(quick: bool) -> dict[str, Any]:
    """Events per run, pattern sizes, rounds, thresholds and distances at either scale.

    >>> scale(True)["sizes"], scale(False)["sizes"]
    ((4, 5), (4, 5, 6, 7, 8))
    """
    if quick:
        return {
            "events": 2_000,
            "sizes": (4, 5),
            "rounds": 1,
            "thresholds": (0.2, 1.0),
            "distances": (0.0, 0.2, 0.5),
        }
    return {
        "events": 20_000,
        "sizes": (4, 5, 6, 7, 8),
        "rounds": 3,
        "thresholds": THRESHOLDS,
        "distances": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    }


def _words(s: dict[str, Any]) -> str:
    return (
        f"{s['events']:,} events per run, pattern sizes {s['sizes'][0]}-{s['sizes'][-1]}, "
        f"least CPU of {s['rounds']} interleaved round(s), seed 1"
    )


# --- Fig. 5 -------------------------------------------------------------------------------


def fig5_compute(quick: bool) -> Measured:
    """Throughput of the invariant method per dataset, plan, pattern size and d."""
    s = scale(quick)
    rows = []
    for data in ("traffic", "stocks"):
        for plan in ("greedy", "zstream"):
            for size in s["sizes"]:
                stream = STREAM[data](s["events"], seed=1, size=size)
                chosen = {f"d={d}": Adaptation("invariant", distance=d) for d in s["distances"]}
                found = compare(stream, plan, s["rounds"], chosen)
                base = found["d=0.0"]
                for d in s["distances"]:
                    r = found[f"d={d}"]
                    rows.append(
                        {
                            "data": data,
                            "plan": plan,
                            "size": size,
                            "d": d,
                            "x d=0": base["cpu"] / r["cpu"],
                            "work / d=0": r["work"] / base["work"],
                            "plan changes": r["plan_changes"],
                        }
                    )
    columns = ("data", "plan", "size", "d", "x d=0", "work / d=0", "plan changes")
    return Measured(columns, tuple(rows), _words(s) + f", d in {list(s['distances'])}")


def _d_opt(rows: list[dict[str, Any]]) -> float:
    """The d best (highest throughput) at the most pattern sizes; ties to the smaller d."""
    wins: dict[float, int] = {}
    for size in sorted({r["size"] for r in rows}):
        at = select(rows, size=size)
        best = max(at, key=lambda r: (r["x d=0"], -r["d"]))
        wins[best["d"]] = wins.get(best["d"], 0) + 1
    return min(wins, key=lambda d: (-wins[d], d))


def fig5_judge(m: Measured) -> list[Verdict]:
    """Per dataset and plan: one d within noise of the best at every size; at that d the
    throughput 2x that of d = 0 or more at every size (the paper: 2 to 25 times)."""
    out = []
    for data in ("traffic", "stocks"):
        for plan in ("greedy", "zstream"):
            rows = select(m.rows, data=data, plan=plan)
            if not rows:
                continue
            d = _d_opt(rows)
            near = {}
            gain = {}
            for size in sorted({r["size"] for r in rows}):
                at = select(rows, size=size)
                best = max(r["x d=0"] for r in at)
                mine = select(at, d=d)[0]["x d=0"]
                near[f"n={size}"] = mine / best
                gain[f"n={size}"] = mine
            out.append(
                every_verdict(
                    f"{data}/{plan}: d_opt = {d} outperforms the other d at every pattern size "
                    f"(throughput / the best d's)",
                    near,
                    ">=",
                    NOISE,
                )
            )
            out.append(
                every_verdict(
                    f"{data}/{plan}: throughput at d_opt = {d} over d = 0", gain, ">=", 2.0
                )
            )
    return out


def fig5_cause(m: Measured) -> str:
    """Why d_opt's gain over d = 0 stays below 2: the work units and plan changes at both."""
    parts = []
    for data in ("traffic", "stocks"):
        for plan in ("greedy", "zstream"):
            rows = select(m.rows, data=data, plan=plan)
            if not rows:
                continue
            d = _d_opt(rows)
            mine = select(rows, d=d)
            base = select(rows, d=0.0)
            work = [r["work / d=0"] for r in mine]
            changes = [
                (b["plan changes"], r["plan changes"]) for b, r in zip(base, mine, strict=True)
            ]
            parts.append(
                f"{data}/{plan}: at d_opt = {d} the work units are {fmt(min(work))}-"
                f"{fmt(max(work))}x those of d = 0 and plan changes (d = 0, d_opt) "
                f"{', '.join(f'{a}/{b}' for a, b in changes)}"
            )
    return (
        "d = 0 does not over-adapt enough to lose a factor 2 here: "
        + "; ".join(parts)
        + ". The engine re-plans only at its check period and only when a violated invariant's "
        "new plan differs, so the basic method's false positives cost one re-planning each, "
        "not the paper's repeated plan replacements."
    )


# --- Figs 6-9 -----------------------------------------------------------------------------

COMBINATIONS = {
    "inv6": ("traffic", "greedy", "Fig. 6"),
    "inv7": ("traffic", "zstream", "Fig. 7"),
    "inv8": ("stocks", "greedy", "Fig. 8"),
    "inv9": ("stocks", "zstream", "Fig. 9"),
}
METHODS = ("static", "invariant", "always", "threshold (best)")


def compare_compute(data: str, plan: str, quick: bool) -> Measured:
    """The methods over the stream per pattern size, with their overhead on the stationary
    stream of the same size (module docstring)."""
    s = scale(quick)
    rows = []
    for size in s["sizes"]:
        chosen = {
            "static": Adaptation("off"),
            "invariant": Adaptation("invariant"),
            "always": Adaptation("always"),
            **{f"threshold t={t}": Adaptation("threshold", threshold=t) for t in s["thresholds"]},
        }
        found = compare(STREAM[data](s["events"], seed=1, size=size), plan, s["rounds"], chosen)
        best = best_threshold(found)
        found["threshold (best)"] = found[best]
        calm = stationary(s["events"], seed=1, size=size)
        quiet = {
            k: chosen[best if k == "threshold (best)" else k] for k in METHODS if k != "static"
        }
        still = compare(calm, plan, s["rounds"], {"static": chosen["static"], **quiet})
        for method in METHODS:
            r = found[method]
            rows.append(
                {
                    "size": size,
                    "method": method
                    if method != "threshold (best)"
                    else f"threshold ({best[10:]})",
                    "role": method,
                    "x static": found["static"]["cpu"] / r["cpu"],
                    "x best threshold": found[best]["cpu"] / r["cpu"],
                    "work / static": r["work"] / found["static"]["work"],
                    "plan changes": r["plan_changes"],
                    "overhead": 1 - still["static"]["cpu"] / still[method]["cpu"],
                }
            )
    columns = (
        "size",
        "method",
        "x static",
        "x best threshold",
        "work / static",
        "plan changes",
        "overhead",
    )
    words = _words(s) + f", thresholds {list(s['thresholds'])}, {data}-like stream, {plan} plans"
    return Measured(columns, tuple(rows), words)


def _per_size(m: Measured, role: str, column: str) -> dict[str, float]:
    return {f"n={r['size']}": float(r[column]) for r in select(m.rows, role=role)}


def _ratio(m: Measured, role: str, other: str) -> dict[str, float]:
    """The invariant method's CPU throughput over ``other``'s, per size."""
    mine = _per_size(m, role, "x static")
    theirs = _per_size(m, other, "x static")
    return {k: mine[k] / theirs[k] for k in mine if k in theirs}


def compare_judge(data: str) -> Any:
    """The judge of one of Figs 6-9 (traffic or stocks claims)."""

    def judge(m: Measured) -> list[Verdict]:
        out = [
            every_verdict(
                f"(a) invariant throughput / {other}'s", _ratio(m, "invariant", other), ">=", NOISE
            )
            for other in ("threshold (best)", "always", "static")
        ]
        if data == "traffic":
            out.append(
                any_verdict(
                    "(b) invariant over the best constant threshold, its peak",
                    _ratio(m, "invariant", "threshold (best)"),
                    ">=",
                    6.0,
                )
            )
        else:
            out.append(
                any_verdict(
                    "(b) invariant over the best constant threshold (about 30-60 %)",
                    _ratio(m, "invariant", "threshold (best)"),
                    ">=",
                    1.3,
                )
            )
            out.append(
                every_verdict(
                    "(b) the static plan's throughput over the unconditional method's",
                    _ratio(m, "static", "always"),
                    ">",
                    1.0,
                )
            )
        changes = _per_size(m, "invariant", "plan changes")
        fewest = {
            k: min(_per_size(m, o, "plan changes")[k] for o in ("threshold (best)", "always"))
            for k in changes
        }
        out.append(
            every_verdict(
                "(c) invariant plan changes minus the fewest of threshold's and always'",
                {k: changes[k] - fewest[k] for k in changes},
                "<=",
                0.0,
            )
        )
        for role in ("invariant", "threshold (best)"):
            out.append(
                every_verdict(
                    f"(d) {role} overhead (share of CPU time)",
                    _per_size(m, role, "overhead"),
                    "<=",
                    NEGLIGIBLE,
                )
            )
        return out

    return judge


def compare_cause(m: Measured) -> str:
    """Per size, the deterministic work units and plan changes behind the CPU ratios."""
    parts = []
    for size in sorted({r["size"] for r in m.rows}):
        at = {r["role"]: r for r in select(m.rows, size=size)}
        inv, thr, alw = at["invariant"], at["threshold (best)"], at["always"]
        parts.append(
            f"n={size}: work / static invariant {fmt(inv['work / static'])}, best threshold "
            f"{fmt(thr['work / static'])}, always {fmt(alw['work / static'])}; plan changes "
            f"{inv['plan changes']} / {thr['plan changes']} / {alw['plan changes']}; "
            f"overhead {fmt(100 * inv['overhead'])} % / {fmt(100 * thr['overhead'])} % / "
            f"{fmt(100 * alw['overhead'])} %"
        )
    return (
        "Measured per size (invariant / best threshold / always): "
        + "; ".join(parts)
        + ". Where the invariant method's work is within a few % of the best threshold's, "
        "the methods choose the same plans and the CPU ratio is its per-event checking cost; "
        "a factor like the paper's 6x needs a threshold that misses changes, which the tuned "
        "threshold on these streams does not. The overheads are CPU ratios on a shared "
        "machine: negative values (a method faster than the static plan with the same plan) "
        "show their noise, about ±10-15 % per point."
    )


def figures() -> list[EngineFigure]:
    """The invariant paper's figures: inv5 to inv9."""
    out = [
        EngineFigure(
            "inv5",
            PAPER,
            "§5.2, Fig. 5 (a)-(d)",
            '"in each scenario there exists an optimal value d_opt, which depends on the data and '
            "the algorithm in use, consistently outperforming the other values for all pattern "
            "sizes [...] the throughput achieved by using invariants with distance d_opt is 2 to "
            '25 times higher than that of the basic method (d = 0)."',
            "throughput (events per second) against pattern size per d; judged: CPU throughput "
            "at d_opt over d = 0, per pattern size",
            "traffic-like / stocks-like streams (drift_streams) instead of Aarhus traffic and "
            "NASDAQ; sequence patterns of 4-8 types; d_opt is the d best at the most sizes.",
            fig5_compute,
            fig5_judge,
            fig5_cause,
        )
    ]
    claims = {
        "traffic": '"The throughput comparison demonstrates the superiority of the invariant-based '
        "method over its alternatives for all scenarios. Its biggest performance gain is "
        "achieved in the traffic scenario [...] with the maximal recorded performance of more "
        'than 6 times that of the second-best constant-threshold method." (c): "The '
        'invariant-based method consistently requires few plan replacements"; (d): "the '
        "invariant-based and the constant-threshold methods consume negligible system "
        'resources, unconditional reoptimization results in up to 11% of the running time".',
        "stocks": '"the invariant-based method achieves a performance speedup for this dataset as '
        "well (albeit only about 30-60%) without adding significant overhead. [...] the static "
        "plan performs reasonably well in this scenario, decidedly outperforming the "
        'unconditional method." (c) few plan replacements; (d) negligible overhead for the '
        "invariant and constant-threshold methods.",
    }
    for fid, (data, plan, number) in COMBINATIONS.items():
        out.append(
            EngineFigure(
                fid,
                PAPER,
                f"§5.2, {number} (a)-(d), {data} / {plan}",
                claims[data],
                "(a) throughput, (b) gain over static, (c) plan replacements, (d) overhead, "
                "against pattern size; judged: CPU-time ratios between methods of one run",
                f"{data}-like stream (drift_streams) at pattern sizes 4-8; the invariant method "
                "with the engine's defaults (not the paper's d_opt); threshold tuned per size; "
                "overhead measured on the stationary stream of the same size.",
                lambda quick, d=data, p=plan: compare_compute(d, p, quick),
                compare_judge(data),
                compare_cause,
            )
        )
    return out
