"""pSPICE's Figs 5 and 6 (false negatives against match probability and event rate) for Q1 and Q3.

Run: ``python benchmarks/bench_pspice_paper.py [--places 200000] [--duration 20000]
[--detector paper|path] [--shed-cost 0.05] [--safety 0.1] [--retrain error|periodic]
[--seed 1] [--figure 5|6|all]``

The paper's setting (§IV-B) on this engine: one operator, the plan in pattern order
(``--adaptive off``, the paper's NFA-like operator), latency bound 1 time unit of arrival
with the paper's safety buffer δ = 10 % of it, capacity 1/1.2 of what the unshedded run
needs (Fig. 5) or 1/1.2 … 1/2.0 (Fig. 6: event rate 120-200 % of the operator's maximum
throughput), the paper's overload detector (``--detector paper``: the work of an item
regressed on the number of partial matches, :mod:`inev.simulator.engine.shedding.latency_model`)
and a simulated shedding latency ``l_s`` (``--shed-cost``: work units per partial match a
shedder scores; the paper's sort over all partial matches, a twentieth of checking one
against an event by default) and the paper's retraining (``--retrain error``: the models
are rebuilt when the transition matrix's error passes a threshold). The streams (:mod:`inev.simulator.engine.shedding.paper_streams`,
whose docstring says how they differ from the paper's NYSE and RTLS data):

* Q1 ``SEQ(S0, …, S9)`` over a count-based window of W stream places, W = 200 … 700 for
  the match probabilities of Fig. 5(a) (the paper: window 3.5K-10K events, 6-89 %);
* Q3 ``SEQ(S, AND(D1, …, Dn))`` over a 15-unit time window, n = 2 … 6 (Fig. 5(c)).

Strategies: ``pspice``; ``pspice--`` (the paper's ablation: utility = completion
probability only); PM-BL = ``random-pm`` (uniformly random partial matches, the paper's
Bernoulli dropper); E-BL as the brief of issue 49 reads it, ``random-event`` (uniformly
random input events), and as the paper describes it, ``type-utility`` (event types ranked
by their share in matches, uniform sampling within a type). False negatives are the
paper's: the share of windows (leading events) whose complex event the unshedded run
detects and the shedded run does not ("FN %"); the share of lost matches is printed too
(the engine evaluates skip-till-any-match: a window may hold several). "viol." are items
processed later than the bound (the paper's Fig. 8 claim: none).

Fig. 6 uses Q1 at W = 300 (match probability near the paper's 30 %) and Q3 at n = 6
(the lowest match probability of these streams, about 12 %; the paper's is 4 %).
Measured (2026-12-03, defaults): Q1 holds under both detectors (pSPICE / PM-BL 0.14-0.42
of lost windows, 0 violations at 120-200 %). Q3 with ``--detector paper`` breaks the bound
(pSPICE 1-4 violations at n = 3, 4 and at 140-200 %): in this tree plan a D event's work is
the product of the buffers along its path (S, then D1, D2, ...), not a function of the
total ``n``; single D events cost 9-15 times the regression's f(n), more than any earlier
ratio, and a safety buffer of 30 % of the bound did not remove the violations.
``--detector path`` (the calibrated path-cost model) keeps pSPICE at 0 violations on both
queries at every rate.

Targets printed at the end: pSPICE's FN below PM-BL's at every match probability up to
80 % (each query), and 0 violations for pSPICE (the others' violations are summed).
"""

from __future__ import annotations

import argparse
import time

from inev.experiments.engine_figures.pspice import (
    LABELS,
    LOADS,
    Q1_WINDOWS,
    Q3_SIZES,
    STRATEGIES,
)
from inev.simulator.engine.shedding.paper_streams import (
    Q1_PATTERN,
    Q1_WHERE,
    Q3_WINDOW,
    paper_run,
    q1_stream,
    q3_pattern,
    q3_stream,
)


def _header(x: str) -> None:
    cells = " ".join(f"{LABELS[s]:>10}" for s in STRATEGIES)
    print(
        f"{x:>8} {'match p':>7} | FN % {cells} | viol. (same order) | lost matches % pSPICE / PM-BL"
    )


def _row(x: str, run: dict, load: float, verdict: list) -> None:
    runs = {s: run["runs"][(load, s)] for s in STRATEGIES}
    fn = " ".join(f"{100 * runs[s]['window_fn']:>10.1f}" for s in STRATEGIES)
    viol = " ".join(f"{runs[s]['violations']}" for s in STRATEGIES)
    print(
        f"{x:>8} {100 * run['match_probability']:>6.1f}% | FN % {fn} | {viol:>18} | "
        f"{100 * runs['pspice']['match_fn']:.1f} / {100 * runs['random-pm']['match_fn']:.1f}",
        flush=True,
    )
    verdict.append((run["match_probability"], runs))


def _summary(name: str, verdict: list) -> tuple[bool, bool]:
    below = all(
        r["pspice"]["window_fn"] < r["random-pm"]["window_fn"] for mp, r in verdict if mp <= 0.8
    )
    clean = all(r["pspice"]["violations"] == 0 for _, r in verdict)
    others = sum(r[s]["violations"] for _, r in verdict for s in STRATEGIES if s != "pspice")
    ratios = [
        r["pspice"]["window_fn"] / r["random-pm"]["window_fn"]
        for mp, r in verdict
        if mp <= 0.8 and r["random-pm"]["window_fn"] > 0
    ]
    span = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "n/a"
    print(
        f"{name}: pSPICE FN below PM-BL at every match probability <= 80 %: "
        f"{'met' if below else 'NOT met'} (pSPICE / PM-BL {span}); "
        f"0 violations for pSPICE: {'met' if clean else 'NOT met'} "
        f"(the other strategies: {others})\n"
    )
    return below, clean


def main() -> None:
    """Print Fig. 5 and Fig. 6 as tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--places", type=int, default=200_000, help="Q1 stream places")
    parser.add_argument("--duration", type=float, default=20_000.0, help="Q3 time units")
    parser.add_argument("--detector", choices=("paper", "path"), default="paper")
    parser.add_argument("--shed-cost", type=float, default=0.05)
    parser.add_argument("--safety", type=float, default=0.1, help="δ, share of the bound")
    parser.add_argument("--retrain", choices=("error", "periodic"), default="error")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--figure", choices=("5", "6", "all"), default="all")
    args = parser.parse_args()
    options = {
        "detector": args.detector,
        "shed_cost": args.shed_cost,
        "seed": args.seed,
        "safety": args.safety,
        "retrain": args.retrain,
    }
    q1_events, q1_arrivals = q1_stream(args.places, seed=args.seed)
    q3_events, q3_arrivals = q3_stream(args.duration, seed=args.seed)
    print(
        f"detector {args.detector}, shed cost {args.shed_cost} work units per partial match, "
        f"bound 1.0, safety {args.safety}, pSPICE retrains {args.retrain}; Q1 {len(q1_events)} events over {args.places} places, "
        f"Q3 {len(q3_events)} events over {args.duration:g} time units"
    )
    started = time.process_time()
    results = []
    if args.figure in ("5", "all"):
        print("\nFig. 5(a): Q1, false negatives against match probability (event rate 120 %)")
        _header("window")
        verdict: list = []
        for w in Q1_WINDOWS:
            run = paper_run(
                Q1_PATTERN, float(w), q1_events, q1_arrivals, [1.2], STRATEGIES,
                where=Q1_WHERE, bound=1.0, **options,
            )  # fmt: skip
            _row(str(w), run, 1.2, verdict)
        results.append(_summary("Fig. 5(a) Q1", verdict))
        print("Fig. 5(c): Q3, false negatives against match probability (event rate 120 %)")
        _header("n")
        verdict = []
        for n in Q3_SIZES:
            run = paper_run(
                q3_pattern(n), Q3_WINDOW, q3_events, q3_arrivals, [1.2], STRATEGIES,
                bound=1.0, **options,
            )  # fmt: skip
            _row(str(n), run, 1.2, verdict)
        results.append(_summary("Fig. 5(c) Q3", verdict))
    if args.figure in ("6", "all"):
        q1 = paper_run(
            Q1_PATTERN, 300.0, q1_events, q1_arrivals, LOADS, STRATEGIES,
            where=Q1_WHERE, bound=1.0, **options,
        )  # fmt: skip
        q3 = paper_run(
            q3_pattern(6), Q3_WINDOW, q3_events, q3_arrivals, LOADS, STRATEGIES,
            bound=1.0, **options,
        )  # fmt: skip
        for name, run in (("Fig. 6(a): Q1, W = 300", q1), ("Fig. 6(b): Q3, n = 6", q3)):
            print(f"{name}: false negatives against event rate")
            _header("rate")
            verdict = []
            for load in LOADS:
                _row(f"{load:.0%}", run, load, verdict)
            results.append(_summary(name.split(":")[0], verdict))
    print(f"CPU seconds: {time.process_time() - started:.0f}")


if __name__ == "__main__":
    main()
