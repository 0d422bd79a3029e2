"""Sliding-window statistics for plan generation (adaptive-CEP paper §2.2, §5.1).

Arrival rates per unit are counts of arrivals within the last ``span`` time units divided
by ``span`` (a deque of arrival times per unit: exact, and O(1) amortised per event, which
is cheaper in Python than the approximate sketches of the paper's reference [27]).
Selectivities per type pair are *sampled*: every ``sample_every``-th arrival of a type is
checked against the latest event of each type it shares a predicate with, and the share of
passing samples within the span is the estimate (the declared selectivity until a sample
exists).

>>> s = Statistics(["A", "B"], span=10.0)
>>> for t in range(5):
...     s.arrival(0, float(t))
>>> s.rates(4.0)[0]
0.5
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Stats:
    """A snapshot: rate per unit and selectivity between every two units."""

    rates: tuple[float, ...]
    sel: tuple[tuple[float, ...], ...]

    def values(self) -> list[float]:
        """Every monitored value, in a fixed order (for the threshold baseline)."""
        out = list(self.rates)
        n = len(self.rates)
        out += [self.sel[i][j] for i in range(n) for j in range(i + 1, n)]
        return out


class Statistics:
    """Windowed arrival counts per unit and sampled pass rates per type pair."""

    def __init__(self, labels: list[str], span: float, sample_every: int = 4) -> None:
        self.labels = labels
        self.span = float(span)
        self.sample_every = sample_every
        self.arrivals: list[deque[float]] = [deque() for _ in labels]
        self.samples: dict[tuple[str, str], deque[tuple[float, bool]]] = {}
        self.passed: dict[tuple[str, str], int] = {}

    def arrival(self, unit: int, time: float) -> None:
        """Record an item of ``unit`` at ``time``."""
        q = self.arrivals[unit]
        q.append(time)
        limit = time - self.span
        while q[0] < limit:
            q.popleft()

    def sample(self, pair: tuple[str, str], time: float, ok: bool) -> None:
        """Record one sampled predicate outcome for a type pair."""
        q = self.samples.get(pair)
        if q is None:
            q = self.samples[pair] = deque()
            self.passed[pair] = 0
        q.append((time, ok))
        self.passed[pair] += ok
        limit = time - self.span
        while q[0][0] < limit:
            self.passed[pair] -= q.popleft()[1]

    def rates(self, now: float) -> list[float]:
        """Arrivals per time unit of each unit over the last span."""
        limit = now - self.span
        out = []
        for q in self.arrivals:
            while q and q[0] < limit:
                q.popleft()
            out.append(len(q) / self.span)
        return out

    def selectivity(self, pair: tuple[str, str], declared: float) -> float:
        """The sampled pass rate of a type pair, or ``declared`` without samples."""
        q = self.samples.get(pair)
        if not q:
            return declared
        return self.passed[pair] / len(q)

    def snapshot(
        self,
        now: float,
        unit_types: list[tuple[str, ...]],
        declared: Mapping[tuple[str, str], float],
        monitored: list[tuple[str, str]],
        prior: Callable[[int], float] | None = None,
    ) -> Stats:
        """Unit-level statistics: a unit pair's selectivity is the product over its type pairs."""
        rates = self.rates(now)
        if prior is not None and not any(rates):
            rates = [prior(i) for i in range(len(rates))]
        sel_of = {p: self.selectivity(p, declared.get(p, 1.0)) for p in monitored}
        return Stats(tuple(rates), unit_selectivities(unit_types, sel_of))


def unit_selectivities(
    unit_types: Sequence[Iterable[str]], sel: Mapping[tuple[str, str], float]
) -> tuple[tuple[float, ...], ...]:
    """Selectivity matrix between plan units: each pair's selectivity charged to the two units
    that hold its types (pairs inside one unit are already applied within it)."""
    owner = {t: i for i, ts in enumerate(unit_types) for t in ts}
    n = len(unit_types)
    matrix = [[1.0] * n for _ in range(n)]
    for (a, b), value in sel.items():
        i, j = owner.get(a), owner.get(b)
        if i is None or j is None or i == j:
            continue
        matrix[i][j] *= value
        matrix[j][i] *= value
    return tuple(tuple(row) for row in matrix)
