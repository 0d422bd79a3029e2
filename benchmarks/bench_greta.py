"""Benchmark GRETA against the two-step baseline (GRETA paper §10.2, Figure 9).

Query: the paper's Q1 variation ``KL(S)`` with the edge predicate
``S.price * 1.05 < NEXT(S).price`` (up-trends rising at least 5% per step), returning
``COUNT(*)`` and ``SUM(S.price)``, over one tumbling window holding 1k, 10k or 100k events of
a synthetic stock-like stream (a geometric random walk of integer prices in cents, one
event per time unit). Three settings (volatility per step, companies): (0.02, 1) where the
trend count explodes as in the paper; (0.006, 1), calmer prices with fewer trends so that
the baseline can finish at 1k events; (0.02, 10) with ``group_by company`` (Q1's
per-group trends).

For each size, the script prints events per second (stream length / wall time, no tracing;
up to 10k events the best of at least 3 runs, of as many as fill 0.2 s for GRETA's runs of
milliseconds, and of 3 for baseline runs under 2 s) and peak memory (``tracemalloc``, a
second run) for GRETA and the two-step baseline. The baseline stops at ``--timeout``
seconds (default 60) and is not run at larger sizes after it stopped. Speed-up = baseline
time / GRETA time where both finish.

Then sliding windows (GRETA §6, §7): the same query (volatility 0.006, one group) with a
window of ``--window`` events (default 5,000) sliding by window / r for r in ``--ratios``
(default 2 5 10 20), over a stream of 3 windows: the shared graph (one graph, aggregates
per window, ``shared=True``) against the per-window stores (the default, the replication
the paper calls naive). Per r: CPU time of each (``time.process_time``, best of 3, the two
alternating in one run) and their ratio, peak stored vertex entries and per-window aggregate
vectors (counted at window closes, before the closed windows are dropped), and the
``tracemalloc`` peak (a separate run); the results of the two are asserted equal. The same
comparison is the report figure ``greta-sliding`` of ``inev reproduce``
(:mod:`inev.experiments.engine_figures.greta_sliding`, whose ``evaluate`` runs each method).

    python benchmarks/bench_greta.py                 # 1k, 10k, 100k
    python benchmarks/bench_greta.py --sizes 1000 10000 --timeout 10
    python benchmarks/bench_greta.py --sliding-only  # only the sliding-window table
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.table import Table

from inev.experiments.engine_figures.greta import baseline, best, run, stock_stream
from inev.experiments.engine_figures.greta_sliding import evaluate
from inev.simulator.engine.greta import (
    greta_aggregates,
    two_step_aggregates,
)
from inev.workloads.workload import Query

SETTINGS = ((0.02, 1), (0.006, 1), (0.02, 10))


def main() -> None:
    """Parse arguments, run the benchmark, print one table per setting."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=int, default=5_000)
    parser.add_argument("--ratios", type=int, nargs="+", default=[2, 5, 10, 20])
    parser.add_argument("--sliding-only", action="store_true")
    args = parser.parse_args()
    console = Console(width=150)
    for volatility, companies in () if args.sliding_only else SETTINGS:
        grouped = companies > 1
        table = Table(
            title=f"KL(S), S.price * 1.05 < NEXT(S).price, volatility {volatility}, "
            f"{f'group_by company ({companies} companies)' if grouped else 'one group'}"
        )
        for column in (
            "aggregate",
            "events/window",
            "value digits",
            "GRETA ev/s",
            "GRETA peak MB",
            "two-step ev/s",
            "two-step peak MB",
            "speed-up",
        ):
            table.add_column(column, justify="right")
        for returns in ("COUNT(*)", "SUM(S.price)"):
            query = Query.build(
                "q1",
                "KL(S)",
                where="S.price * 1.05 < NEXT(S).price",
                returns=returns,
                group_by=("company",) if grouped else (),
            )
            baseline_stopped = False
            for n in args.sizes:
                events = stock_stream(n, args.seed, volatility, companies)
                window = float(n)

                def greta(q: Query = query, ev: list = events, w: float = window) -> list:
                    return list(greta_aggregates(q, ev, w))

                g_time, _, g_results = best(greta, n)
                _, g_peak, _ = run(greta, memory=True)
                digits = max(len(str(r["value"])) for r in g_results)
                row = [
                    returns,
                    f"{n:,}",
                    str(digits),
                    f"{n / g_time:,.0f}",
                    f"{g_peak / 1e6:.1f}",
                ]
                if baseline_stopped:
                    row += ["not run", "", ""]
                else:
                    b_time, b_peak, status = baseline(query, events, window, args.timeout)
                    if status == "ok":
                        _, b_peak, b_results = run(
                            lambda q=query, ev=events, w=window: list(
                                two_step_aggregates(q, ev, w, limit=None)
                            ),
                            memory=True,
                        )
                        assert b_results == g_results, "two-step and GRETA disagree"
                        row += [
                            f"{n / b_time:,.0f}",
                            f"{b_peak / 1e6:.1f}",
                            f"{b_time / g_time:,.0f}x",
                        ]
                    else:
                        baseline_stopped = True
                        row += [
                            f"stopped > {args.timeout:.0f} s",
                            "",
                            f"> {args.timeout / g_time:,.0f}x",
                        ]
                table.add_row(*row)
        console.print(table)
    console.print(sliding_table(args.window, args.ratios, args.seed))


def sliding_table(window: int, ratios: list[int], seed: int) -> Table:
    """Shared graph against per-window stores for window / slide = each of ``ratios``."""
    table = Table(
        title=f"sliding windows: KL(S), S.price * 1.05 < NEXT(S).price, COUNT(*), "
        f"window {window:,} events, stream of 3 windows; shared graph / per-window stores"
    )
    for column in (
        "window/slide",
        "CPU s shared",
        "CPU s per-window",
        "CPU ratio",
        "peak vertices",
        "peak aggregates",
        "tracemalloc MB",
        "memory ratio",
    ):
        table.add_column(column, justify="right")
    query = Query.build("q1", "KL(S)", where="S.price * 1.05 < NEXT(S).price", returns="COUNT(*)")
    events = stock_stream(3 * window, seed, 0.006, 1)
    for r in ratios:
        w, s = float(window), window / r
        best: dict[bool, Any] = {}
        for _ in range(3):
            for shared in (True, False):
                got = evaluate(query, events, w, s, shared)
                if shared not in best or got[0] < best[shared][0]:
                    best[shared] = got
        assert best[True][1] == best[False][1], "shared graph and per-window stores disagree"
        peaks = {}
        for shared in (True, False):
            _, peaks[shared], _ = run(
                lambda sh=shared, w=w, s=s: evaluate(query, events, w, s, sh)[1],
                memory=True,
            )
        (ts, _, vs, ags), (tp, _, vp, agp) = best[True], best[False]
        table.add_row(
            str(r),
            f"{ts:.2f}",
            f"{tp:.2f}",
            f"{ts / tp:.2f}",
            f"{vs:,} / {vp:,}",
            f"{ags:,} / {agp:,}",
            f"{peaks[True] / 1e6:.2f} / {peaks[False] / 1e6:.2f}",
            f"{peaks[True] / peaks[False]:.2f}",
        )
    return table


if __name__ == "__main__":
    main()
