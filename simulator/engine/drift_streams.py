"""Streams whose statistics drift, for the adaptive engine's benchmarks and gates (papers 000/001, §5.1).

The invariant paper evaluates on two real datasets that are not available here; these
generators have the properties the paper states for them, on Poisson arrivals with
piecewise-constant rates and hash-realised pairwise selectivities
(:func:`~inev.simulator.engine.events.pair_holds`):

* :func:`rate_swap` — ``benchmarks/bench_engine.py``'s stream: AND(A, B, C, D), rates
  A 0.2, B 0.5, C 2, D 8, reversed half way.
* :func:`traffic_like` — "highly skewed and stable, with few on-the-fly changes; the changes
  that did occur were mostly very extreme" (Aarhus traffic): SEQ of five types whose rates
  are a factor 3 apart (0.1 … 8.1) and whose chain selectivities range from 0.1 to 0.8;
  two extreme changes, at a third (the rates reverse) and at two thirds of the stream (a
  seeded permutation of the rates); window 4 (about 48 events). Unlike the real data, the
  selectivities do not change. The window was 1 (about 12 events) until the engine was held
  to the paper's claims: there the static plan did 2.6x the adaptive methods' work units but
  that was 1.8 pair checks per event, less than the per-event cost of any adaptation, so
  the static plan was the fastest in CPU (20,000 events, greedy: static 316k events per
  CPU-second, invariant 255k, best threshold 267k, ``benchmarks/bench_invariant_paper.py``),
  the opposite of the paper's traffic results (every adaptive method well above static)
  that this stream stands for.
* :func:`stocks_like` — "low skew, the initial values nearly identical for all event types;
  the changes were highly frequent, but mostly minor" (NASDAQ): SEQ of five types, every
  rate starting at 1 ± 2 %, and every 100 events each rate multiplied by a factor drawn
  uniformly from [0.85, 1.15] (kept within [0.5, 2]); chain selectivities 0.28-0.32.
  Unlike the real data, the selectivities do not drift.

>>> s = rate_swap(1000, seed=1)
>>> s.pattern, len(s.events), s.events[0].type in "ABCD"
('AND(A, B, C, D)', 1000, True)
>>> all(a.time < b.time for a, b in zip(s.events, s.events[1:]))
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from inev.common.errors import InevError
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.engine_options import DEFAULT_ENGINE_PLAN, Adaptation
from inev.simulator.engine.events import Event, make_event


@dataclass(frozen=True)
class DriftStream:
    """A pattern, its window and pairwise selectivities, the rates its first plan is built
    on, and the events (in time order)."""

    name: str
    pattern: str
    window: float
    selectivities: dict[tuple[str, str], float]
    initial_rates: dict[str, float]
    events: list[Event]

    def engine(
        self, plan: str = DEFAULT_ENGINE_PLAN, adaptation: Adaptation | str = "off"
    ) -> Engine:
        """An engine for the stream's pattern, window and selectivities, its first plan
        built on :attr:`initial_rates`.

        >>> s = rate_swap(200, seed=1)
        >>> engine = s.engine(adaptation=Adaptation("invariant"))
        >>> sum(len(engine.push(e)) for e in s.events) >= 0
        True
        """
        return Engine(
            self.pattern,
            self.window,
            selectivities=self.selectivities,
            plan=plan,
            rates=self.initial_rates,
            adaptation=adaptation,
        )


def piecewise_poisson(
    n: int, rates_at: Callable[[int], dict[str, float]], seed: int
) -> list[Event]:
    """``n`` events of a Poisson stream whose per-type rates are ``rates_at(i)`` for the
    ``i``-th event (one attribute ``v``, uniform in 0..9).

    >>> evs = piecewise_poisson(3, lambda i: {"A": 1.0}, seed=0)
    >>> [e.type for e in evs], [e.id for e in evs]
    (['A', 'A', 'A'], [0, 1, 2])
    """
    rng = random.Random(seed)
    t = 0.0
    out = []
    for i in range(n):
        rates = rates_at(i)
        types = list(rates)
        weights = [rates[k] for k in types]
        t += rng.expovariate(sum(weights))
        typ = rng.choices(types, weights)[0]
        out.append(make_event(t, typ, 0, i, {"v": rng.randint(0, 9)}))
    return out


def rate_swap(n: int = 20_000, seed: int = 1) -> DriftStream:
    """AND(A, B, C, D), window 2, chain selectivities 0.5; rates A 0.2, B 0.5, C 2, D 8 for
    the first half, reversed for the second (bench_engine's swapping benchmark)."""
    first = {"A": 0.2, "B": 0.5, "C": 2.0, "D": 8.0}
    second = dict(zip(first, reversed(first.values()), strict=True))
    events = piecewise_poisson(n, lambda i: first if i < n // 2 else second, seed)
    sel = {("A", "B"): 0.5, ("B", "C"): 0.5, ("C", "D"): 0.5}
    return DriftStream("rate-swap", "AND(A, B, C, D)", 2.0, sel, first, events)


TYPES8 = ("A", "B", "C", "D", "E", "F", "G", "H")


def _types(size: int) -> tuple[str, ...]:
    """The first ``size`` type names (2 to 8: the invariant paper's pattern sizes are 4-8)."""
    if not 2 <= size <= len(TYPES8):
        raise InevError(f"pattern size must be between 2 and {len(TYPES8)}, got {size}")
    return TYPES8[:size]


def _chain(types: Sequence[str], values: Sequence[float]) -> dict[tuple[str, str], float]:
    """Selectivities of consecutive types, ``values`` repeated as needed."""
    return {(a, b): values[i % len(values)] for i, (a, b) in enumerate(pairwise(types))}


def traffic_like(n: int = 20_000, seed: int = 1, size: int = 5) -> DriftStream:
    """Skewed, stable rates with two extreme changes (see the module docstring).

    ``size`` types (SEQ of all of them; the invariant paper's Fig. 5-7 vary it from 4 to 8):
    the rates are a geometric series from 0.1 to 8.1 (a factor 3 apart at the default 5,
    whose stream is unchanged), the chain selectivities repeat 0.1, 0.5, 0.2, 0.8.

    >>> s = traffic_like(3000, seed=2)
    >>> s.initial_rates["A"], s.initial_rates["E"]
    (0.1, 8.1)
    >>> t = traffic_like(300, seed=2, size=8)
    >>> t.pattern, t.initial_rates["A"], t.initial_rates["H"], t.selectivities[("E", "F")]
    ('SEQ(A, B, C, D, E, F, G, H)', 0.1, 8.1, 0.1)
    """
    types = _types(size)
    base = [0.1 * 81 ** (i / (size - 1)) for i in range(size)]
    first = dict(zip(types, [round(r, 6) for r in base], strict=True))
    second = dict(zip(types, reversed(first.values()), strict=True))
    rng = random.Random(seed)
    values = list(first.values())
    rng.shuffle(values)
    third = dict(zip(types, values, strict=True))

    def rates_at(i: int) -> dict[str, float]:
        return first if i < n // 3 else second if i < 2 * n // 3 else third

    events = piecewise_poisson(n, rates_at, seed)
    sel = _chain(types, (0.1, 0.5, 0.2, 0.8))
    return DriftStream("traffic-like", _seq(types), 4.0, sel, first, events)


def _seq(types: Sequence[str]) -> str:
    return f"SEQ({', '.join(types)})"


def stocks_like(n: int = 20_000, seed: int = 1, every: int = 100, size: int = 5) -> DriftStream:
    """Near-uniform rates with frequent minor changes (see the module docstring); ``size``
    types, chain selectivities repeating 0.3, 0.32, 0.28, 0.31 (the default 5 unchanged).

    >>> s = stocks_like(2000, seed=3)
    >>> all(0.97 < r < 1.03 for r in s.initial_rates.values())
    True
    >>> stocks_like(200, seed=3, size=7).pattern
    'SEQ(A, B, C, D, E, F, G)'
    """
    types = _types(size)
    rng = random.Random(seed + 7919)
    first = {t: round(rng.uniform(0.98, 1.02), 6) for t in types}
    schedule = [dict(first)]
    for _ in range(n // every):
        prev = schedule[-1]
        schedule.append(
            {t: min(2.0, max(0.5, r * rng.uniform(0.85, 1.15))) for t, r in prev.items()}
        )
    events = piecewise_poisson(n, lambda i: schedule[i // every], seed)
    sel = _chain(types, (0.3, 0.32, 0.28, 0.31))
    return DriftStream("stocks-like", _seq(types), 2.0, sel, first, events)


def stationary(n: int = 20_000, seed: int = 1, size: int = 4) -> DriftStream:
    """bench_engine's stationary stream: SEQ(A, B, C, D), every rate 1, selectivities A-B
    and C-D 0.2, window 5 (the adaptive engine's checking overhead against the static plan);
    ``size`` types, every other consecutive pair 0.2 (the default 4 unchanged).

    >>> stationary(100, size=6).selectivities
    {('A', 'B'): 0.2, ('C', 'D'): 0.2, ('E', 'F'): 0.2}
    """
    types = _types(size)
    rates = dict.fromkeys(types, 1.0)
    events = piecewise_poisson(n, lambda i: rates, seed)
    sel = {(a, b): 0.2 for a, b in zip(types[::2], types[1::2], strict=False)}
    return DriftStream("stationary", _seq(types), 5.0, sel, rates, events)


STREAMS: dict[str, Callable[..., DriftStream]] = {
    "rate-swap": rate_swap,
    "traffic-like": traffic_like,
    "stocks-like": stocks_like,
    "stationary": stationary,
}
"""The generators by name."""
