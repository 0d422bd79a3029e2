"""Streams and runs of the pSPICE paper's experiments (§IV-B, Figs 5-7) on this engine.

The paper's datasets (NYSE quotes, the RTLS soccer data) are not available; these
generators give its queries the properties its figures vary:

* **Q1** (sequence, stocks): ``SEQ(S0, …, S9)``, ten stock symbols in a given order, over a
  **count-based window** of ``W`` events opened by each event of the leading symbol ``S0``.
  Quotes of the pattern's symbols come in episodes (:func:`q1_stream`; rising or falling
  not modelled); only the ten symbols reach the operator, the other symbols' quotes still
  count in the windows. The window is counted in stream places: an event's time is its
  place in the stream, its arrival time ``place × spacing`` (the processor queues by
  arrival, the engine windows by place), so no part of the engine changes. As in the paper,
  the window size sets the match probability (the paper: 3.5K-10K events for 6-89 %; here
  a few hundred places).
* **Q3** (sequence with any, soccer): ``SEQ(S, AND(D1, …, Dn))``, a striker event then ``n``
  defence events of distinct defenders in any order, within a **time-based window** of
  15 time units; the striker and each of six defenders are Poisson streams. As in the paper
  the pattern size ``n`` (2-6) sets the match probability. Differences: the paper's
  ``any(n, D1 … Dk)`` takes any ``n`` of ``k`` defenders; here the ``n`` defenders are
  fixed (the engine's conjunction), and there is one striker, not two.

* **Fig. 7** (Q1 and Q2 in one operator, Q1's processing time forced ρ times Q2's):
  :func:`q1_stream` with two symbol sets (Q2 = Q1's shape over ``T0`` … ``T9``, not the
  paper's sequence with repetition), run by :func:`shared_run`.

**Match probability** is the paper's "total number of complex events divided by the total
number of PMs", where each window (opened by a leading event) holds one partial match and
yields at most one complex event: here the share of leading events that start at least one
match of the unshedded run. The engine evaluates skip-till-any-match, so a window can
yield several matches; :func:`window_false_negatives` counts, as the paper does, a window
whose complex event is lost (it had a match unshedded and has none shedded), beside the
share of lost matches.

>>> events, arrivals = q1_stream(20000, seed=1)
>>> starts = [e for e in events if e.type == "S0"]  # one per episode, about 20000 / 40
>>> events[0].type, 400 < len(starts) < 600, len({e.attrs["m"] for e in starts}) == len(starts)
('S0', True, True)
>>> all(e.time == e.id and a == e.time * SPACING for e, a in zip(events, arrivals))
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.shedding.quality import run_node, run_overload
from inev.simulator.engine.shedding.shedders import PSpiceShedder, make_shedder


def sequence_query(types: Sequence[str]) -> tuple[str, str]:
    """Q1's pattern and predicate over ``types``: ``SEQ(types)`` within one episode,
    written as two inequalities per pair (the engine keys joins on equalities and would
    then check a quote only against its own episode's partial matches, where the paper's
    operator checks every event against every partial match).

    >>> sequence_query(["A", "B"])
    ('SEQ(A, B)', 'A.m <= B.m AND B.m <= A.m')
    """
    pattern = "SEQ(" + ", ".join(types) + ")"
    return pattern, " AND ".join(f"{a}.m <= {b}.m AND {b}.m <= {a}.m" for a, b in pairwise(types))


Q1_TYPES = [f"S{i}" for i in range(10)]
Q1_PATTERN, Q1_WHERE = sequence_query(Q1_TYPES)
Q2_TYPES = [f"T{i}" for i in range(10)]
"""Fig. 7's second query: Q1's shape over ten other symbols (the paper's Q2, a sequence
with repetition, is not modelled)."""
SPACING = 0.01
"""Arrival time between two places of the Q1 stream (100 places per time unit)."""
Q3_WINDOW = 15.0
Q3_STRIKER_RATE = 0.1
Q3_DEFENDER_RATE = 0.08
"""Per defender and time unit: a defender appears in a window with probability 0.70."""


def q1_stream(
    places: int,
    seed: int = 0,
    episode_every: float = 40.0,
    gap: float = 40.0,
    follow: float = 0.99,
    symbols: Sequence[Sequence[str]] = (Q1_TYPES,),
) -> tuple[list[Event], list[float]]:
    """The Q1 stream over ``places`` stream places: time = place (count-based window),
    arrival = place × ``SPACING``.

    Quotes of the ten pattern symbols come in *episodes* (a market move the symbols follow
    one after another): an episode starts at a Poisson place (one per ``episode_every``
    places) with an ``S0`` quote; each next symbol ``S1`` … ``S9`` quotes ``gap`` places
    later on average (geometric), and with probability ``1 - follow`` not at all (the
    episode ends). Every other place holds a quote of some other symbol, which reaches no
    engine. A quote carries its episode in attribute ``m`` and Q1 requires one ``m`` per
    match (:data:`Q1_WHERE`). Why: under skip-till-any-match, independent quotes of ten
    symbols give a window with a high match probability thousands of matches (every
    ordered choice of quotes), where the paper's operator keeps one partial match per
    window; with episodes a window holds one chain, and whether it completes depends on
    the window size as in the paper (larger windows hold more of the episode). Episodes
    overlap (about nine at a time), so every quote is checked against the partial matches
    of all of them. ``symbols``: one list of ten symbols per independent episode process
    (:data:`Q2_TYPES` beside :data:`Q1_TYPES` gives the two queries of Fig. 7)."""
    rng = random.Random(seed)
    taken: dict[int, tuple[str, int]] = {}
    episode = 0
    for types in symbols:
        place = 0.0
        while True:
            place += rng.expovariate(1.0 / episode_every)
            if place >= places:
                break
            episode += 1
            at = int(place)
            for k, symbol in enumerate(types):
                if k and rng.random() > follow:
                    break
                if k:
                    at += 1 + int(rng.expovariate(1.0 / gap))
                while at in taken:
                    at += 1
                if at >= places:
                    break
                taken[at] = (symbol, episode)
    events, arrivals = [], []
    for at in sorted(taken):
        symbol, episode = taken[at]
        events.append(make_event(float(at), symbol, 0, at, {"m": episode}))
        arrivals.append(at * SPACING)
    return events, arrivals


def q3_pattern(size: int) -> str:
    """``SEQ(S, AND(D1, …, Dn))`` for ``size`` = n defenders."""
    return "SEQ(S, AND(" + ", ".join(f"D{i}" for i in range(1, size + 1)) + "))"


def q3_stream(duration: float, seed: int = 0) -> tuple[list[Event], list[float]]:
    """A striker ``S`` and defenders ``D1`` … ``D6`` as Poisson streams over ``duration``
    time units; arrival = time × ``SPACING`` (the paper streams its datasets from files at
    a chosen rate: the replay is 100 times faster than the game's clock)."""
    rng = random.Random(seed)
    rates = [("S", Q3_STRIKER_RATE)] + [(f"D{i}", Q3_DEFENDER_RATE) for i in range(1, 7)]
    total = sum(r for _, r in rates)
    events = []
    t = 0.0
    while True:
        t += rng.expovariate(total)
        if t >= duration:
            break
        typ = rng.choices([k for k, _ in rates], weights=[r for _, r in rates])[0]
        events.append(make_event(round(t, 6), typ, 0, len(events)))
    return events, [e.time * SPACING for e in events]


def _timed(fn: Any, total: list[float]) -> Any:
    """``fn`` adding its wall seconds to ``total[0]``."""

    def wrapper(*args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            total[0] += time.perf_counter() - t0

    return wrapper


def leading_id(match: Any) -> int:
    """The id of a match's leading event (its first event: S0 for Q1, S for Q3)."""
    return min(match, key=lambda e: (e.time, e.id)).id


def window_false_negatives(reference: Sequence[Any], shedded: Sequence[Any]) -> tuple[int, int]:
    """(windows whose complex event was lost, windows with a complex event unshedded)."""
    ref = {leading_id(m) for m in reference}
    got = {leading_id(m) for m in shedded}
    return len(ref - got), len(ref)


def _leading_type(pattern: str) -> str:
    """The first type of a ``SEQ(...)`` pattern's text (the symbol that opens a window)."""
    return pattern[4 : pattern.index(",")].strip()


def _shed(
    make: Any,
    events: list[Event],
    arrivals: list[float] | None,
    load: float,
    strategy: str,
    reference: tuple[Any, float],
    options: dict[str, Any],
    *,
    bound: float,
    safety: float,
    retrain: str,
    seed: int,
) -> tuple[dict[str, Any], dict[str, Any], Any, float, float]:
    """One shedded run at ``load`` with ``strategy`` (pSPICE's models rebuilt as ``retrain``
    says, their building and the retraining checks timed): (result, matches per query, the
    shedder, build seconds, check seconds)."""
    shedder = make_shedder(strategy, seed)
    building, checking = [0.0], [0.0]
    if isinstance(shedder, PSpiceShedder):
        shedder.retrain = retrain
        shedder.build = _timed(shedder.build, building)  # type: ignore[method-assign]
        shedder.drifted = _timed(shedder.drifted, checking)  # type: ignore[method-assign]
    result, got = run_overload(
        make,
        events,
        f"auto:{1 / load}",
        bound,
        shedder,
        safety=safety * bound,
        seed=seed,
        reference=reference,
        arrivals=arrivals,
        options={"early": 2.0, **options},
    )
    return result, got, shedder, building[0], checking[0]


def paper_run(
    pattern: str,
    window: float,
    events: list[Event],
    arrivals: list[float] | None,
    loads: Sequence[float],
    strategies: Sequence[str],
    *,
    where: str | None = None,
    bound: float,
    detector: str = "paper",
    shed_cost: float = 0.0,
    safety: float = 0.1,
    retrain: str = "error",
    seed: int = 0,
) -> dict[str, Any]:
    """The unshedded reference (its matches and the partial matches its engine created) and,
    per load (input rate / capacity) and strategy, the shedded run of one query (safety
    buffer δ = ``safety × bound``; pSPICE's models rebuilt as ``retrain`` says, by default
    the paper's: on error): match probability, per-window and per-match false-negative
    shares, bound violations, false positives, partial matches shed (those of utility 0
    among them), the processed items' latency summary
    (:func:`~inev.common.stats.latency_summary`), the wall seconds of the shedder (model
    building included), of pSPICE's model builds (and their number), of its retraining
    checks (:meth:`.PSpiceShedder.drifted`, inside the shedder's) and of the run. pSPICE runs with the paper's components
    (no early relief: ``early`` = 2, never reached before the bound)."""

    def make() -> dict[str, Engine]:
        return {"q": Engine(pattern, window, where=where, adaptation="off")}

    ref_proc, ref_out, _ = run_node(make, events, math.inf, arrivals)
    leading = sum(1 for e in events if e.type == _leading_type(pattern))
    completed = {leading_id(m) for m in ref_out["q"]}
    out: dict[str, Any] = {
        "matches": len(ref_out["q"]),
        "partial_matches": ref_proc.engines["q"].counters["partial_matches"],
        "windows": leading,
        "match_probability": len(completed) / leading if leading else 0.0,
        "runs": {},
    }
    reference = (ref_out, ref_proc.stats.work)
    options = {"detector": detector, "shed_cost": shed_cost}
    settings = {"bound": bound, "safety": safety, "retrain": retrain, "seed": seed}
    for load in loads:
        for strategy in strategies:
            result, got, shedder, building, checking = _shed(
                make, events, arrivals, load, strategy, reference, options, **settings
            )
            lost, windows = window_false_negatives(ref_out["q"], got["q"])
            out["runs"][(load, strategy)] = {
                "window_fn": lost / windows if windows else 0.0,
                "match_fn": result["false_negative_share"],
                "violations": result["bound_violations"],
                "false_positives": result["false_positives"],
                "shed_partial_matches": result["shed_partial_matches"],
                "shed_hopeless": shedder.shed_hopeless,
                "shed_events": result["shed_events"],
                "latency": result["item_latency"],
                "shedder_seconds": result["shedder_seconds"],
                "build_seconds": building,
                "check_seconds": checking,
                "builds": getattr(shedder, "builds", 0),
                "wall_seconds": result["wall_seconds"],
            }
    return out


def shared_run(
    queries: dict[str, tuple[str, str | None]],
    window: float,
    events: list[Event],
    arrivals: list[float] | None,
    loads: Sequence[float],
    strategies: Sequence[str],
    factors: Sequence[float],
    slow: str,
    *,
    bound: float,
    detector: str = "paper",
    shed_cost: float = 0.0,
    safety: float = 0.1,
    retrain: str = "error",
    seed: int = 0,
) -> dict[str, Any]:
    """Several queries (name -> pattern, predicate) in one operator, the paper's Fig. 7:
    per factor ρ of ``factors``, query ``slow``'s work units are ρ times what its engine
    reports (:class:`.node_queue.Processor` ``cost_factors``), and per load of ``loads``
    the capacity is the unshedded run's work at that factor divided by the load; each
    strategy runs once. Returns the match probability per query and, per ``(load, factor,
    strategy)``, the windows lost over all queries and per query
    (:func:`window_false_negatives`), the violations, the overloads flagged and the
    partial matches (those of utility 0 among them) and events shed."""

    def make() -> dict[str, Engine]:
        return {
            name: Engine(pattern, window, where=where, adaptation="off")
            for name, (pattern, where) in queries.items()
        }

    out: dict[str, Any] = {"match_probability": {}, "runs": {}}
    settings = {"bound": bound, "safety": safety, "retrain": retrain, "seed": seed}
    for factor in factors:
        cost = {slow: float(factor)}
        ref_proc, ref_out, _ = run_node(make, events, math.inf, arrivals, cost_factors=cost)
        if not out["match_probability"]:
            for name, (pattern, _) in queries.items():
                first = _leading_type(pattern)
                leading = sum(1 for e in events if e.type == first)
                done = len({leading_id(m) for m in ref_out[name]})
                out["match_probability"][name] = done / leading if leading else 0.0
        reference = (ref_out, ref_proc.stats.work)
        options = {"detector": detector, "shed_cost": shed_cost, "cost_factors": cost}
        for load, strategy in ((x, s) for x in loads for s in strategies):
            result, got, shedder, _, _ = _shed(
                make, events, arrivals, load, strategy, reference, options, **settings
            )
            lost = {n: window_false_negatives(ref_out[n], got[n]) for n in queries}
            total = sum(w for _, w in lost.values())
            out["runs"][(load, factor, strategy)] = {
                "window_fn": sum(x for x, _ in lost.values()) / total if total else 0.0,
                "query_fn": {n: x / w if w else 0.0 for n, (x, w) in lost.items()},
                "violations": result["bound_violations"],
                "shed_partial_matches": result["shed_partial_matches"],
                "shed_hopeless": shedder.shed_hopeless,
                "shed_events": result["shed_events"],
                "overloads": result["overloads"],
            }
    return out
