"""The pSPICE paper's Q2 and Q4 (§IV-A, Fig. 5 (b) and (d)) as generated streams, beside
Q1 and Q3 of :mod:`.paper_streams`, with brute-force match probabilities.

* **Q2** (sequence with repetition, stocks): the paper's ``seq`` of 14 rising quotes of ten
  symbols, some symbols twice, over a count-based window opened by each quote of the leading
  symbol. Here: the symbol order :data:`Q2_ORDER` (``S1`` … ``S4`` repeat; the paper does
  not say which symbols repeat, nor where) in episodes as in
  :func:`~.paper_streams.q1_stream` (one quote per step, 13 steps after ``S0``). The engine
  gives every leaf its own name, so a quote of a repeated symbol ``Si`` reaches the operator
  twice, as ``Si`` and as ``Ri`` (same place, id and episode: what
  :func:`inev.simulator.engine.streams.relabel` does for the variables of one stream); a
  ``Ri`` quote can only extend a partial match past ``Si``, and a second ``Si`` quote also
  extends ``S0`` partial matches that can no longer complete (the repetition's extra
  partial matches). Differences: rising or falling not modelled; one leading symbol, not
  four; each copy is one operator item (its per-event cost is paid twice).
* **Q4** (any, buses): "any ``n`` buses within a window of 8K events get delayed at the same
  stop", windows opened every 500 events. Here: a window-opening marker ``W`` every
  :data:`Q4_SLIDE` places (the count-based predicate as an event; it is the leading type)
  and ``SEQ(W, AND(B1, …, Bn))`` with all ``Bi.stop`` equal (written as two inequalities
  per pair, as Q1's episodes), over :data:`Q4_WINDOW` places. Each of ten buses is
  delayed at Poisson places (:data:`Q4_DELAY_RATE`), each delay at one of
  :data:`Q4_STOPS` stops, uniformly; a dropped delay can be replaced by a later delay of
  the same bus at the same stop within the window, as a defender's event in Q3.
  Differences: the paper's ``any(n, B1 … Bk)`` takes any ``n`` of 911 buses; here the
  ``n`` buses are fixed (the engine's conjunction), as in Q3; the window is 800 places and
  the slide 50 (the paper's divided by 10); arrivals are 10 times denser than Q1's
  (:data:`Q4_SPACING`).

Match probability is the paper's (:mod:`.paper_streams`): the share of windows (leading
events) that hold at least one match. :func:`q2_match_probability` and
:func:`q4_match_probability` count it by brute force on the stream, independently of the
engine.

>>> events, _ = q2_stream(4000, seed=1)
>>> sorted({e.type for e in events if e.attrs["m"] == events[0].attrs["m"]})[:6]
['R1', 'R2', 'R3', 'R4', 'S0', 'S1']
>>> w, _ = q4_stream(2000, seed=1)
>>> [e.time for e in w if e.type == "W"][:3]
[0.0, 50.0, 100.0]
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise

from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.shedding.paper_streams import SPACING, q1_stream, sequence_query

Q2_ORDER = ["S0", "S1", "S2", "S3", "S1", "S4", "S5", "S2", "S6", "S7", "S3", "S8", "S4", "S9"]
"""The symbols of Q2's 14 steps in order (four symbols twice)."""
Q2_REPEATED = {"S1": "R1", "S2": "R2", "S3": "R3", "S4": "R4"}
"""A repeated symbol's second leaf."""


def q2_leaves() -> list[str]:
    """Q2's leaves in order: a repeated symbol's second occurrence is its ``R`` leaf.

    >>> " ".join(q2_leaves())
    'S0 S1 S2 S3 R1 S4 S5 R2 S6 S7 R3 S8 R4 S9'
    """
    seen: set[str] = set()
    out = []
    for s in Q2_ORDER:
        out.append(Q2_REPEATED[s] if s in seen else s)
        seen.add(s)
    return out


Q2_PATTERN, Q2_WHERE = sequence_query(q2_leaves())


def q2_stream(places: int, seed: int = 0) -> tuple[list[Event], list[float]]:
    """Q2's stream over ``places`` stream places (time = place, arrival = place ×
    ``SPACING``): :func:`~.paper_streams.q1_stream`'s episodes along :data:`Q2_ORDER`, each
    quote of a repeated symbol followed by its ``R`` copy (same time, id and episode)."""
    quotes, _ = q1_stream(places, seed=seed, symbols=(Q2_ORDER,))
    events: list[Event] = []
    for e in quotes:
        events.append(e)
        if e.type in Q2_REPEATED:
            events.append(e._replace(type=Q2_REPEATED[e.type]))
    return events, [e.time * SPACING for e in events]


def q2_match_probability(events: Sequence[Event], window: float) -> float:
    """Share of ``S0`` quotes that open a complete Q2 (brute force on the quotes: the
    episode's quotes after the ``S0`` within ``window``, matched greedily along
    :data:`Q2_ORDER`, which finds a subsequence whenever one exists).

    >>> q = [make_event(float(t), s, 0, t, {"m": 1}) for t, s in enumerate(Q2_ORDER)]
    >>> q2_match_probability(q, 13.0), q2_match_probability(q, 12.0)
    (1.0, 0.0)
    """
    quotes = [e for e in events if e.type in Q2_ORDER]  # the R copies are the same quotes
    by_episode: dict[int, list[Event]] = {}
    for e in quotes:
        by_episode.setdefault(e.attrs["m"], []).append(e)
    leading = [e for e in quotes if e.type == "S0"]
    done = 0
    for s0 in leading:
        later = [e for e in by_episode[s0.attrs["m"]] if s0.time < e.time <= s0.time + window]
        step = 1
        for e in sorted(later, key=lambda e: e.time):
            if step < len(Q2_ORDER) and e.type == Q2_ORDER[step]:
                step += 1
        done += step == len(Q2_ORDER)
    return done / len(leading) if leading else 0.0


Q4_SLIDE = 50
"""Places between two window openings (the paper's 500 events, divided by 10)."""
Q4_WINDOW = 800.0
"""Q4's count-based window in places (the paper's 8K events, divided by 10)."""
Q4_STOPS = 3
Q4_DELAY_RATE = Q4_STOPS / Q4_WINDOW
"""Delays per place of one bus: one per window and stop on average (a bus is delayed at a
given stop in a window with probability 1 - 1/e = 0.63)."""
Q4_BUSES = 10
Q4_SPACING = 0.001
"""Arrival time between two places of the Q4 stream (1,000 places per time unit: about 60
operator events per latency bound of 1, as Q3's stream; at Q1's ``SPACING`` an item's join
work exceeded what the operator serves within the bound, and every strategy lost nearly
every window)."""


def q4_pattern(size: int) -> tuple[str, str]:
    """``SEQ(W, AND(B1, …, Bn))`` and its same-stop predicate for ``size`` = n buses.

    >>> q4_pattern(2)
    ('SEQ(W, AND(B1, B2))', 'B1.stop <= B2.stop AND B2.stop <= B1.stop')
    """
    buses = [f"B{i}" for i in range(1, size + 1)]
    where = " AND ".join(
        f"{a}.stop <= {b}.stop AND {b}.stop <= {a}.stop" for a, b in pairwise(buses)
    )
    return "SEQ(W, AND(" + ", ".join(buses) + "))", where


def q4_stream(places: int, seed: int = 0) -> tuple[list[Event], list[float]]:
    """Q4's stream over ``places`` stream places (time = place, arrival = place ×
    :data:`Q4_SPACING`): a marker ``W`` every :data:`Q4_SLIDE` places and each bus's
    delays (module doc), a delay's stop in ``stop``. Two events never share a place (a
    delay on a taken place moves one on)."""
    rng = random.Random(seed)
    taken: dict[int, tuple[str, int]] = {p: ("W", 0) for p in range(0, places, Q4_SLIDE)}
    for bus in range(1, Q4_BUSES + 1):
        place = 0.0
        while True:
            place += rng.expovariate(Q4_DELAY_RATE)
            if place >= places:
                break
            at = int(place)
            while at in taken:
                at += 1
            if at < places:
                taken[at] = (f"B{bus}", rng.randrange(Q4_STOPS))
    events = [
        make_event(float(at), typ, 0, at, {"stop": s}) for at, (typ, s) in sorted(taken.items())
    ]
    return events, [e.time * Q4_SPACING for e in events]


def q4_match_probability(events: Sequence[Event], size: int, window: float = Q4_WINDOW) -> float:
    """Share of markers ``W`` whose window holds, at one stop, a delay of each of buses 1 …
    ``size`` (brute force: later than the marker, at most ``window`` after it).

    >>> ev = [make_event(0.0, "W", 0, 0)] + [
    ...     make_event(float(t), f"B{t}", 0, t, {"stop": 7}) for t in (1, 2, 3)]
    >>> q4_match_probability(ev, 3), q4_match_probability(ev, 3, window=2.0)
    (1.0, 0.0)
    """
    markers = [e for e in events if e.type == "W"]
    wanted = {f"B{i}" for i in range(1, size + 1)}
    delays = sorted((e for e in events if e.type in wanted), key=lambda e: e.time)
    times = [e.time for e in delays]
    done = 0
    for w in markers:
        seen: dict[int, set[str]] = {}
        for e in delays[bisect_right(times, w.time) : bisect_right(times, w.time + window)]:
            seen.setdefault(e.attrs["stop"], set()).add(e.type)
        done += any(len(types) == size for types in seen.values())
    return done / len(markers) if markers else 0.0
