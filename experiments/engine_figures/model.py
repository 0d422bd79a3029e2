"""An engine paper's figure as ``inev reproduce`` runs it: what it claims, how it is computed
and how its numbers are judged (:class:`EngineFigure`), and one run of it (:class:`EngineResult`).

An engine figure is not a sweep of the planner: its computation is one library function
(``compute(quick)`` returning a :class:`Measured` table), its verdict a pure function of that
table (``judge``, a list of :class:`Verdict`), and where a claim fails, ``cause`` states the
measured reason from the same table. Throughput is only ever a ratio of CPU times between
methods of one run (the machine is shared); never an absolute target.

>>> rows = ({"method": "a", "x": 2.0}, {"method": "b", "x": 1.0})
>>> m = Measured(("method", "x"), rows, "toy scale")
>>> fig = EngineFigure("toy", "paper", "§1, Fig. 1", "a beats b", "x", "toy stream",
...                    lambda quick: m, lambda m: [ratio_verdict("a over b", 2.0, ">=", 1.5)],
...                    lambda m: "")
>>> result = EngineResult(fig, m, fig.judge(m), 0.1)
>>> result.holds, result.verdicts[0].measured
(True, '2 (needs >= 1.5)')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Measured:
    """A figure's numbers: a table (its column names and rows) and the scale it ran at."""

    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    scale: str
    """What was run, in words (events, sizes, rounds)."""


@dataclass(frozen=True)
class Verdict:
    """One check of a claim: what it asks, what was measured, and whether it holds."""

    text: str
    measured: str
    holds: bool


@dataclass(frozen=True)
class EngineFigure:
    """One figure of an engine paper (module docstring)."""

    id: str
    paper: str
    """The paper, with its seed number (``/work/shared/seeds/``)."""
    section: str
    """Section and figure number in the paper."""
    claim: str
    """The claim, in the paper's words."""
    statistic: str
    """The statistic the paper plots and the one judged here."""
    setting: str
    """How the run differs from the paper's (streams, scale, methods)."""
    compute: Callable[[bool], Measured]
    """``compute(quick)``: the figure's table, at ``--quick`` scale when ``quick``."""
    judge: Callable[[Measured], list[Verdict]]
    cause: Callable[[Measured], str]
    """The measured reason a claim fails, from the same table ("" when none is found)."""


@dataclass(frozen=True)
class EngineResult:
    """One run of an engine figure."""

    figure: EngineFigure
    measured: Measured
    verdicts: list[Verdict]
    seconds: float

    @property
    def holds(self) -> bool:
        """Whether every check holds (a figure without checks does not)."""
        return bool(self.verdicts) and all(v.holds for v in self.verdicts)


def fmt(value: float) -> str:
    """A number in 3 significant digits.

    >>> fmt(2.0), fmt(0.123456), fmt(12345.6)
    ('2', '0.123', '1.23e+04')
    """
    return f"{value:.3g}"


def ratio_verdict(text: str, value: float, op: str, bound: float) -> Verdict:
    """``value op bound`` (``>=``, ``<=``, ``>``, ``<``) as a verdict.

    >>> ratio_verdict("x", 0.9, ">=", 1.0)
    Verdict(text='x', measured='0.9 (needs >= 1)', holds=False)
    """
    holds = {">=": value >= bound, "<=": value <= bound, ">": value > bound, "<": value < bound}
    return Verdict(text, f"{fmt(value)} (needs {op} {fmt(bound)})", holds[op])


def every_verdict(text: str, values: dict[str, float], op: str, bound: float) -> Verdict:
    """``value op bound`` at every labelled point; the measured text names each point and
    the verdict fails on none (nothing to judge is not a pass).

    >>> every_verdict("ratio", {"n=4": 1.2, "n=5": 0.8}, ">=", 1.0).holds
    False
    >>> every_verdict("ratio", {"n=4": 1.2}, ">=", 1.0).measured
    'n=4: 1.2 (needs >= 1 at every point)'
    >>> every_verdict("ratio", {}, ">=", 1.0).holds
    False
    """
    if not values:
        return Verdict(text, "no points to judge", False)
    checks = [ratio_verdict(text, v, op, bound).holds for v in values.values()]
    shown = ", ".join(f"{k}: {fmt(v)}" for k, v in values.items())
    return Verdict(text, f"{shown} (needs {op} {fmt(bound)} at every point)", all(checks))


def any_verdict(text: str, values: dict[str, float], op: str, bound: float) -> Verdict:
    """``value op bound`` at one labelled point at least ("up to ..." claims).

    >>> any_verdict("peak", {"n=4": 1.2, "n=5": 6.5}, ">=", 6.0).holds
    True
    """
    if not values:
        return Verdict(text, "no points to judge", False)
    hit = any(ratio_verdict(text, v, op, bound).holds for v in values.values())
    shown = ", ".join(f"{k}: {fmt(v)}" for k, v in values.items())
    return Verdict(text, f"{shown} (needs {op} {fmt(bound)} at one point at least)", hit)


def select(rows: Sequence[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
    """The rows whose columns equal ``where``.

    >>> select([{"a": 1, "b": 2}, {"a": 2, "b": 2}], a=2)
    [{'a': 2, 'b': 2}]
    """
    return [r for r in rows if all(r.get(k) == v for k, v in where.items())]
