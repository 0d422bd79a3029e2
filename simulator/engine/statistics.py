"""Sliding-window statistics for plan generation (adaptive-CEP paper §2.2, §5.1).

Arrival rates per unit and pass rates of the sampled pairwise predicates are kept as
cumulative counters that the engine's per-item path only increments (one list element per
item, one per sample), and a *mark* (the time and every counter) taken at the engine's
purges (every half window), at most every tenth of the span. The estimate at time ``now``
is the difference of the counters since the oldest mark within the last ``span``, divided
by the time elapsed since it: a sliding window of buckets, like the histograms of the paper's reference [27], exact
up to one bucket. It replaced a deque of arrival times per unit, which cost the engine
12-15 % of its throughput on a stationary stream (``benchmarks/bench_invariant_paper.py``).

Selectivities per type pair are *sampled*: every ``sample_every``-th item of the engine is
checked against the latest event of each type it shares a predicate with, and the share of
passing samples since the reference mark is the estimate (the declared selectivity until a
sample exists).

Each estimate also carries its relative variance (§3.5 of the paper: "the information
regarding the expected variance of a data property … can be calculated"): a rate counted
``n`` times is Poisson, relative variance ``1 / n``; a pass rate ``p`` out of ``m`` samples is
binomial, relative variance ``(1 - p) / (p·m)``.

>>> s = Statistics(["A", "B"], span=10.0)
>>> s.mark(0.0)
>>> for t in range(5):
...     s.counts[0] += 1
>>> s.rates(4.0)[0]
1.25
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from inev.simulator.engine.engine_options import Adaptation


@dataclass(frozen=True)
class Stats:
    """A snapshot: rate per unit and selectivity between every two units, and optionally
    the relative variance of every value of :meth:`values` (``None``: exact, as given)."""

    rates: tuple[float, ...]
    sel: tuple[tuple[float, ...], ...]
    variance: tuple[float, ...] | None = None

    def values(self) -> list[float]:
        """Every monitored value, in a fixed order (for the threshold baseline)."""
        out = list(self.rates)
        n = len(self.rates)
        out += [self.sel[i][j] for i in range(n) for j in range(i + 1, n)]
        return out


class Statistics:
    """Cumulative arrival counts per unit and sampled pass counts per type pair, with marks."""

    def __init__(
        self, labels: list[str], span: float, sample_every: int = Adaptation.sample_every
    ) -> None:
        self.labels = labels
        self.span = float(span)
        self.sample_every = sample_every
        self.counts: list[int] = [0] * len(labels)
        self.pairs: list[tuple[str, str]] = []
        self.sampled: list[int] = []
        self.passed: list[int] = []
        self.marks: deque[tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = deque()
        self.next_mark = -math.inf
        self.reference: tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = (
            None
        )

    def pair_index(self, pair: tuple[str, str]) -> int:
        """The counter index of a sampled type pair (registered on first use)."""
        if pair not in self.pairs:
            self.pairs.append(pair)
            self.sampled.append(0)
            self.passed.append(0)
        return self.pairs.index(pair)

    def mark(self, time: float) -> None:
        """Remember every counter at ``time``, at most every tenth of the span (marks older
        than the span are dropped)."""
        if time < self.next_mark:
            return
        self.next_mark = time + self.span / 10
        marks = self.marks
        marks.append((time, tuple(self.counts), tuple(self.sampled), tuple(self.passed)))
        limit = time - self.span
        while len(marks) > 1 and marks[1][0] <= limit:
            marks.popleft()

    def _since(self, now: float) -> tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """The mark the estimates at ``now`` count from: the oldest within the span (the
        newest before it if none), or a virtual empty mark one span ago."""
        limit = now - self.span
        marks = self.marks
        while len(marks) > 1 and marks[1][0] <= limit:
            marks.popleft()
        ref = None
        for m in marks:
            if m[0] >= now:
                break
            ref = m
            if m[0] >= limit:
                break
        return ref if ref is not None else (limit, (), (), ())

    def rates(self, now: float) -> list[float]:
        """Arrivals per time unit of each unit since the reference mark (one span at most)."""
        ref = self.reference = self._since(now)
        elapsed = now - ref[0]
        old = ref[1] or (0,) * len(self.counts)
        return [(c - o) / elapsed for c, o in zip(self.counts, old, strict=False)]

    def arrivals_since(self) -> list[int]:
        """The arrivals of each unit counted by the last :meth:`rates` call."""
        ref = self.reference
        old = (ref[1] if ref else ()) or (0,) * len(self.counts)
        return [c - o for c, o in zip(self.counts, old, strict=False)]

    def samples_since(self, pair: tuple[str, str]) -> tuple[int, int]:
        """``(samples, passed)`` of a type pair since the last :meth:`rates` reference."""
        if pair not in self.pairs:
            return 0, 0
        i = self.pairs.index(pair)
        ref = self.reference
        m, k = self.sampled[i], self.passed[i]
        if ref is not None and i < len(ref[2]):
            m -= ref[2][i]
            k -= ref[3][i]
        return m, k


def rate_variance(count: int) -> float:
    """Relative variance of a Poisson rate counted ``count`` times (1 when never counted).

    >>> rate_variance(4), rate_variance(0)
    (0.25, 1.0)
    """
    return 1.0 / max(count, 1)


def pass_rate_variance(samples: int, passed: int) -> float:
    """Relative variance of a binomial pass rate (0 without samples: the declared value).

    >>> pass_rate_variance(10, 5)
    0.1
    """
    if samples <= 0:
        return 0.0
    p = passed / samples
    return (1.0 - p) / max(passed, 0.5)


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


def unit_variances(
    unit_types: Sequence[Iterable[str]],
    rate_var: Sequence[float],
    sel_var: Mapping[tuple[str, str], float],
) -> tuple[float, ...]:
    """Relative variances in :meth:`Stats.values` order: the rates', then each unit pair's
    (the sum over the type pairs charged to it: the relative variance of a product).

    >>> unit_variances([("A",), ("B",)], [0.1, 0.2], {("A", "B"): 0.05})
    (0.1, 0.2, 0.05)
    """
    owner = {t: i for i, ts in enumerate(unit_types) for t in ts}
    n = len(unit_types)
    pair_var = [[0.0] * n for _ in range(n)]
    for (a, b), value in sel_var.items():
        i, j = owner.get(a), owner.get(b)
        if i is None or j is None or i == j:
            continue
        pair_var[min(i, j)][max(i, j)] += value
    return tuple(rate_var) + tuple(pair_var[i][j] for i in range(n) for j in range(i + 1, n))
