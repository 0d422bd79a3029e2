"""GRETA's §10.4 figure (seed 002, Fig. 12): latency, throughput and peak memory against the
number of event trend groups (``GROUP-BY`` partitions), GRETA against the two-step
baseline, 10k events per window; ``greta-groups`` of ``inev reproduce``.

Stream (:func:`cluster_stream`, the paper's cluster-monitoring generator of its Table 2): one
event per time unit, a job start ``S`` (5 %), a job end ``E`` (5 %) or a mapper measurement
``M`` (90 %), each with a mapper id uniform in ``0..groups-1``, a load drawn from a Poisson
distribution with mean 100 and a CPU value uniform in ``0..999``. Query: Q2's pattern
``SEQ(S, KL(M), E)`` with ``M.load < NEXT(M).load``, ``COUNT(*)``, ``group_by mapper``, over
one tumbling window of the whole stream. Each point is measured as in ``greta-events``
(:mod:`.greta_compare`); the baseline runs from the most groups (the fewest trends) down
and is not run at fewer groups after it stopped, except at the paper's named 5 groups.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from inev.experiments.engine_figures.greta import PAPER
from inev.experiments.engine_figures.greta_compare import COLUMNS, bounds, compare, finished, shown
from inev.experiments.engine_figures.model import (
    EngineFigure,
    Measured,
    Verdict,
    every_verdict,
    fmt,
    ratio_verdict,
)
from inev.simulator.engine.greta import Event, greta_event
from inev.workloads.workload import Query

NAMED = (5,)
"""The paper's named point (2 orders of magnitude at 5 groups): the baseline always runs."""
STABLE = 2.0
"""GRETA performs "equally well" when its slowest point takes at most this times its fastest."""
QUERY = Query.build(
    "q2",
    "SEQ(S, KL(M), E)",
    where="M.load < NEXT(M).load",
    returns="COUNT(*)",
    group_by=("mapper",),
)


def poisson(rng: random.Random, mean: float) -> int:
    """One draw of a Poisson distribution (Knuth's product of uniforms; ``mean`` < 700).

    >>> rng = random.Random(3)
    >>> draws = [poisson(rng, 100.0) for _ in range(2_000)]
    >>> 98 < sum(draws) / len(draws) < 102
    True
    """
    limit = math.exp(-mean)
    k, product = 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


def cluster_stream(n: int, seed: int, groups: int) -> list[Event]:
    """``n`` cluster events at times 0..n-1 over ``groups`` mappers (module docstring).

    >>> evs = cluster_stream(1_000, 1, 4)
    >>> sorted({e.type for e in evs}), sorted({e.attrs["mapper"] for e in evs})
    (['E', 'M', 'S'], [0, 1, 2, 3])
    """
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = rng.random()
        kind = "S" if r < 0.05 else ("E" if r < 0.10 else "M")
        attrs = {
            "mapper": rng.randrange(groups),
            "load": poisson(rng, 100.0),
            "cpu": rng.randrange(1000),
        }
        out.append(greta_event(float(i), kind, i, None, attrs))
    return out


def scale(quick: bool) -> dict[str, Any]:
    """Events per window, numbers of groups and the baseline's deadline.

    >>> scale(False)["groups"][:2]
    (5, 10)
    """
    if quick:
        return {"events": 600, "groups": (20, 60), "timeout": 2.0}
    return {"events": 10_000, "groups": (5, 10, 20, 50, 100, 200, 500, 1000), "timeout": 60.0}


def groups_compute(quick: bool) -> Measured:
    """Every number of groups, the baseline from the most groups down (module docstring)."""
    sc = scale(quick)
    n = sc["events"]
    rows = []
    stopped = False
    for g in sorted(sc["groups"], reverse=True):
        row: dict[str, Any] = {"groups": g}
        skip = stopped and g not in NAMED
        row.update(compare(QUERY, cluster_stream(n, 1, g), float(n), sc["timeout"], skip))
        stopped = stopped or row["two-step"].startswith("stopped")
        rows.append(row)
    rows.sort(key=lambda r: r["groups"])
    words = (
        f"{n:,} events per window, groups {', '.join(str(g) for g in sc['groups'])}; "
        f"baseline deadline {sc['timeout']:.0f} s; CPU time best of up to 3 runs; seed 1"
    )
    return Measured(("groups", *COLUMNS), tuple(rows), words)


def falling(m: Measured, column: str) -> dict[str, float]:
    """``column`` at each finished point over its value at the next finished point with more
    groups (> 1: it falls as groups grow).

    >>> rows = ({"groups": 5, "two-step": "finished", "x": 8.0},
    ...         {"groups": 9, "two-step": "stopped > 2 s", "x": 1.0},
    ...         {"groups": 10, "two-step": "finished", "x": 2.0})
    >>> falling(Measured((), rows, ""), "x")
    {'5/10': 4.0}
    """
    done = [r for r in m.rows if r["two-step"] == "finished"]
    return {
        f"{a['groups']}/{b['groups']}": a[column] / b[column] for a, b in itertools.pairwise(done)
    }


def groups_judge(m: Measured) -> list[Verdict]:
    """GRETA as fast at every number of groups (slowest / fastest <= :data:`STABLE`); the
    baseline's latency and memory falling as groups grow; GRETA faster wherever the
    baseline finishes, 100x at 5 groups."""
    label = "{groups} groups"
    times = [r["GRETA CPU s"] for r in m.rows]
    return [
        ratio_verdict(
            "GRETA performs equally well: its slowest point's CPU time / its fastest's",
            max(times) / min(times),
            "<=",
            STABLE,
        ),
        every_verdict(
            "two-step's latency falls as groups grow (CPU time at fewer groups / at more)",
            falling(m, "two-step CPU s"),
            ">",
            1.0,
        ),
        every_verdict(
            "two-step's memory falls as groups grow (peak at fewer groups / at more)",
            falling(m, "two-step peak MB"),
            ">",
            1.0,
        ),
        every_verdict(
            "speed-up over two-step where it finishes",
            finished(m, "speed-up", label),
            ">",
            1.0,
        ),
        every_verdict(
            "2 orders of magnitude speed-up over CET and SASE at 5 groups (a stopped "
            "baseline: its lower bound)",
            bounds(m, label, groups=5),
            ">=",
            100.0,
        ),
    ]


def groups_cause(m: Measured) -> str:
    """The numbers per number of groups, where the baseline overtakes GRETA, and what the
    two methods' peak memory holds."""
    parts = [
        f"{r['groups']} groups: {shown(r)}, GRETA {fmt(r['GRETA CPU s'])} s / "
        f"{fmt(r['GRETA peak MB'])} MB, {fmt(r['trends'])} trends"
        for r in m.rows
    ]
    text = "; ".join(parts) + "."
    slow = [r for r in m.rows if r["two-step"] == "finished" and r["speed-up"] <= 1.0]
    if slow:
        text += (
            " At "
            + ", ".join(f"{r['groups']}" for r in slow)
            + " groups a group holds a few events and a few trends, so building them costs "
            "less than GRETA's per-group graph (its stores and aggregate vectors): the "
            "paper's range of groups stops where trends are still long."
        )
    done = [r for r in m.rows if r["two-step"] == "finished"]
    if done and not all(v > 1 for v in falling(m, "two-step peak MB").values()):
        text += (
            " The baseline's peak memory ("
            + ", ".join(f"{r['groups']} groups: {fmt(r['two-step peak MB'])} MB" for r in done)
            + ") is the window's event references and one group's pointer lists at a time:"
            " it evaluates a window's groups one after another when the window closes (SASE"
            " keeps its stacks for every group as the events arrive), so it grows with the"
            " per-group containers where the paper's falls with the trends; GRETA keeps every"
            " group's graph for the whole window ("
            + ", ".join(f"{r['groups']} groups: {fmt(r['GRETA peak MB'])} MB" for r in m.rows)
            + ")."
        )
    return text


def figures() -> list[EngineFigure]:
    """greta-groups."""
    return [
        EngineFigure(
            "greta-groups",
            PAPER,
            "§10.4, Fig. 12 (number of event trend groups, 10k events per window)",
            '"The latency and memory consumption of Flink, SASE, and CET decrease '
            "exponentially with the increasing number of event trend groups, while their "
            "throughput increases exponentially. [...] In contrast, GRETA performs equally "
            "well independently from the number of groups since event trends are never "
            "constructed. Thus, GRETA achieves 4 orders of magnitude speed-up compared to "
            "Flink for 10 groups and 2 orders of magnitude speed-up compared to CET and SASE "
            'for 5 groups."',
            "latency, throughput and peak memory against the number of groups; judged: "
            "GRETA's CPU time across the numbers of groups, the baseline's CPU time and peak "
            "memory as groups grow, and the two-step time / GRETA's (= latency and "
            "throughput ratio of one window); Flink's 4 orders of magnitude are not judged "
            "(no Flink-style baseline here)",
            "the paper's cluster generator as its Table 2 states it (Poisson loads, uniform "
            "ids) with 5 % job starts and 5 % job ends (not stated), Q2's pattern with "
            "COUNT(*) instead of SUM(M.cpu) and without its [job, mapper] equivalence "
            "predicate, GROUP-BY mapper over up to 1,000 mappers (the paper's axis is not "
            "printed in the text); the two-step baseline of inev.simulator.engine.greta "
            "(SASE-style) instead of SASE, CET and Flink; a 60 s deadline; 'equally well' "
            f"judged as at most {STABLE:g}x between GRETA's slowest and fastest point.",
            groups_compute,
            groups_judge,
            groups_cause,
        )
    ]
