"""The INEv paper's claims, figure by figure, and how a sweep's rows are checked against them.

The claims live in one data file, ``experiments/claims.toml``: per figure its id, the preset
that reproduces it, the paper's section, the claim in the paper's words, the paper's
statistic, and one or more checks. A check names a metric (of the ``inev`` rows unless
``method`` says otherwise), an optional ``where`` filter, a statistic, and a comparison with
a tolerance written into the check.

**The statistic.** The paper averages 50 runs per point (§7.1), so every check is judged on
the **mean** per point unless it says otherwise (``stat``); the median and the quartiles are
printed beside it, so a mean carried by a few outliers shows as such.

``kind = "stat"`` (default)
    ``stat`` (mean by default; median, max, min, or ``share_below`` with ``below``: the
    share of rows under a threshold) of ``metric``, per group of the ``per`` columns; ``op``
    (``<=``, ``>=`` or ``between``) with ``value``; ``over = "all"`` (default: every group
    must pass) or ``"any"`` (one group suffices, e.g. "up to eight orders of magnitude").
``kind = "versus"``
    the statistic of ``metric`` for ``method`` over the same statistic for the method
    ``versus``, per group, ``op`` ``value``: two of the paper's curves compared point by
    point (e.g. "PPoP and INEv perform similarly": the mean ratio of one over the other's).
``kind = "trend"``
    the statistic at every ``x`` of each group, in increasing ``x``, must move ``op`` (``up``
    or ``down``) at every step within ``tolerance`` (relative, default 0) and end beyond
    where it started (:func:`inev.experiments.trends.monotone`).
``kind = "slope"``
    the least-squares slope of the statistic over ``x`` (``log = true``: of its log10,
    ``log_x = true``: over log10 x) must have the sign of ``op``
    (:func:`inev.experiments.trends.slope`).
``kind = "spread"``
    the largest statistic over ``x`` divided by the smallest, per group, ``op`` (``<=`` or
    ``>=``) ``value``.
``kind = "argmax"`` / ``"argmin"``
    the ``x`` value whose statistic is largest / smallest must be ``value``, per group.
``kind = "correlation"``
    Spearman's rho between ``metric`` and ``against`` over the rows, ``op`` ``value``.

``where`` maps a column to a value, a list of values, or ``{min = .., max = ..}`` bounds.
A check without rows to look at does not hold (and says so): a claim is never passed by
default. Rows of the check's method and filter whose metric is missing (a ratio over a 0,
a simulation without matches) are left out and counted in the measured text. A figure's ``[[figure.diagnostic]]`` entries are stat checks without a verdict:
their numbers back the figure's ``cause`` (why inev differs from the paper), measured on the
same rows every time the report is written.

>>> rows = [{"method": "inev", "error": None, "q": q, "ratio": r}
...         for q, r in [(5, 0.2), (5, 0.4), (20, 0.95), (20, 1.0)]]
>>> evaluate({"metric": "ratio", "where": {"q": 20}, "op": ">=", "value": 0.9}, rows).holds
True
>>> evaluate({"kind": "trend", "metric": "ratio", "x": "q", "op": "up"}, rows).measured
'q=5: mean 0.3 (median 0.3), q=20: 0.975 (0.975); every step a rise'
"""

from __future__ import annotations

import math
import statistics
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from inev.common.errors import InevError
from inev.common.stats import quantiles
from inev.experiments.trends import monotone, slope
from inev.planner.options import DEFAULT_METHOD

KINDS = ("stat", "versus", "trend", "slope", "spread", "argmax", "argmin", "correlation")
STATS = ("mean", "median", "max", "min", "share_below")
OPS = ("<=", ">=", "between", "up", "down")
PAPER_STATISTIC = "mean of 50 runs per point (§7.1)"
"""The paper's statistic where a figure does not name another."""
_POINT_KINDS = ("trend", "slope", "spread", "argmax", "argmin")


@dataclass(frozen=True)
class Figure:
    """One figure of the paper: its claim and checks, and the preset that reproduces it."""

    id: str
    preset: str
    section: str
    claim: str
    checks: tuple[dict[str, Any], ...]
    known: str = ""
    """inev's analysis of an expected disagreement, with numbers (printed in the report)."""
    statistic: str = PAPER_STATISTIC
    """The statistic the paper reports for this figure."""
    cause: str = ""
    """When the claim does not hold: which step of inev's planner or model differs."""
    diagnostics: tuple[dict[str, Any], ...] = ()
    """Stat checks without a verdict whose numbers back :attr:`cause`."""


@dataclass(frozen=True)
class Outcome:
    """What one check found: the measured numbers in words, and whether the claim holds."""

    text: str
    measured: str
    holds: bool
    headline: str = ""
    """The deciding numbers in a few words (mean and median), for the report's summary."""


@dataclass(frozen=True)
class Summary:
    """Mean, median, quartiles and count of one group's values.

    >>> print(Summary.of([1.0, 2.0, 3.0, 10.0]).words())
    mean 4 (median 2.5, quartiles 1.75 – 4.75, n=4)
    """

    mean: float
    median: float
    q1: float
    q3: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Summary:
        """The summary of at least one value."""
        q1, median, q3 = quantiles(values, (0.25, 0.5, 0.75))
        return cls(statistics.fmean(values), median, q1, q3, len(values))

    def get(self, stat: str) -> float:
        """The mean or the median."""
        return self.median if stat == "median" else self.mean

    def words(self, stat: str = "mean") -> str:
        """``mean X (median Y, quartiles a – b, n=N)``, led by ``stat``."""
        other = "median" if stat != "median" else "mean"
        quart = f", quartiles {fmt(self.q1)} – {fmt(self.q3)}" if self.n > 1 else ""
        return f"{stat} {fmt(self.get(stat))} ({other} {fmt(self.get(other))}{quart}, n={self.n})"


def load_claims(text: str | None = None) -> list[Figure]:
    """The figures of ``experiments/claims.toml`` (or of ``text``), checked."""
    if text is None:
        text = (resources.files("inev.experiments") / "claims.toml").read_text(encoding="utf-8")
    document = tomllib.loads(text)
    figures = []
    for entry in document.get("figure", []):
        for key in ("id", "preset", "section", "claim", "check"):
            if key not in entry:
                raise InevError(f"claims: figure {entry.get('id', '?')} lacks {key!r}")
        for check in entry["check"]:
            _check_check(entry["id"], check)
        for check in entry.get("diagnostic", []):
            _check_check(entry["id"], {"op": "<=", **check})
        figures.append(
            Figure(
                entry["id"],
                entry["preset"],
                entry["section"],
                entry["claim"],
                tuple(entry["check"]),
                entry.get("known", ""),
                entry.get("statistic", PAPER_STATISTIC),
                entry.get("cause", ""),
                tuple(entry.get("diagnostic", [])),
            )
        )
    return figures


def _check_check(figure: str, check: Mapping[str, Any]) -> None:
    kind = check.get("kind", "stat")
    if kind not in KINDS:
        raise InevError(f"claims: figure {figure}: unknown check kind {kind!r}")
    if "metric" not in check or "text" not in check:
        raise InevError(f"claims: figure {figure}: a check needs metric and text")
    if check.get("stat", "mean") not in STATS:
        raise InevError(f"claims: figure {figure}: unknown stat {check.get('stat')!r}")
    if kind not in ("stat", "correlation") and check.get("stat", "mean") not in ("mean", "median"):
        raise InevError(f"claims: figure {figure}: a {kind} check takes the mean or the median")
    if check.get("op", "<=") not in OPS:
        raise InevError(f"claims: figure {figure}: unknown op {check.get('op')!r}")
    if kind in ("trend", "slope") and check.get("op", "up") not in ("up", "down"):
        raise InevError(f"claims: figure {figure}: a {kind} check goes up or down")
    if kind in _POINT_KINDS and "x" not in check:
        raise InevError(f"claims: figure {figure}: a {kind} check needs x")
    if kind == "versus" and "versus" not in check:
        raise InevError(f"claims: figure {figure}: a versus check needs the method versus")


def _matches(value: Any, wanted: Any) -> bool:
    if value is None:
        return False
    if isinstance(wanted, Mapping):
        low, high = wanted.get("min", -math.inf), wanted.get("max", math.inf)
        return low <= value <= high
    if isinstance(wanted, list):
        return any(_close(value, w) for w in wanted)
    return _close(value, wanted)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def selected(check: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The error-free rows of the check's method and ``where`` filter with a finite metric."""
    method = check.get("method", DEFAULT_METHOD)
    where = check.get("where", {})
    metric = check["metric"]
    out = []
    for row in rows:
        if row.get("error") is not None or row.get("method") != method:
            continue
        if not all(_matches(row.get(k), v) for k, v in where.items()):
            continue
        value = row.get(metric)
        if value is None or not math.isfinite(float(value)):
            continue
        out.append(dict(row))
    return out


def _groups(rows: list[dict], per: Sequence[str]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in per), []).append(row)
    return dict(sorted(groups.items(), key=lambda kv: tuple(map(_sort_key, kv[0]))))


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))


def _statistic(values: list[float], stat: str, below: float | None) -> float:
    if stat == "median":
        return statistics.median(values)
    if stat == "mean":
        return statistics.fmean(values)
    if stat == "max":
        return max(values)
    if stat == "min":
        return min(values)
    return sum(1 for v in values if below is not None and v < below) / len(values)


def _compare(value: float, op: str, target: Any) -> bool:
    if op == "<=":
        return value <= target
    if op == ">=":
        return value >= target
    low, high = target
    return low <= value <= high


def fmt(value: Any) -> str:
    """A number in 3 significant digits (text as it is).

    >>> fmt(0.000123456), fmt(2.0), fmt("max")
    ('0.000123', '2', 'max')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:.3g}"


def _label(per: Sequence[str], key: tuple) -> str:
    return ", ".join(f"{k}={fmt(v)}" for k, v in zip(per, key, strict=True))


def evaluate(check: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Outcome:
    """Check one claim against result rows (see the module docstring)."""
    kind = check.get("kind", "stat")
    text = check.get("text", check["metric"])
    chosen = selected(check, rows)
    if not chosen:
        return Outcome(
            text, "no rows to check (none error-free with this metric and filter)", False
        )
    per = list(check.get("per", []))
    if kind == "correlation":
        found = _correlation(check, chosen, text)
    elif kind == "stat":
        found = _stat(check, chosen, per, text)
    elif kind == "versus":
        found = _versus(check, chosen, selected({**check, "method": check["versus"]}, rows), per)
    else:
        found = _points(check, chosen, per, text)
    dropped = _dropped(check, rows)
    if dropped:
        rows_word = "row" if dropped == 1 else "rows"
        measured = f"{found.measured}; {dropped} {rows_word} without a value left out"
        found = Outcome(found.text, measured, found.holds, found.headline)
    return found


def _dropped(check: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> int:
    """Error-free rows of the check's method and filter whose metric is missing."""
    everything = [{**r, check["metric"]: 0.0} for r in rows if not _has(r, check["metric"])]
    return len(selected(check, everything))


def _has(row: Mapping[str, Any], metric: str) -> bool:
    value = row.get(metric)
    return value is not None and math.isfinite(float(value))


def describe(check: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    """A diagnostic's numbers in words (a stat check without a verdict).

    >>> rows = [{"method": "inev", "error": None, "m": v} for v in (1.0, 3.0)]
    >>> describe({"metric": "m", "text": "m"}, rows)
    'mean 2 (median 2, quartiles 1.5 – 2.5, n=2)'
    """
    return evaluate({"op": ">=", "value": -math.inf, **check}, rows).measured


def _summaries(rows: list[dict], x: str, metric: str) -> dict[Any, Summary]:
    """The summary of ``metric`` per value of ``x``, in increasing ``x``."""
    return {k[0]: Summary.of([float(r[metric]) for r in g]) for k, g in _groups(rows, [x]).items()}


def _points(check: Mapping[str, Any], rows: list[dict], per: list[str], text: str) -> Outcome:
    """Trend, slope, spread and arg checks: one statistic per ``x``, per group."""
    kind, x, metric = check.get("kind"), check["x"], check["metric"]
    stat = check.get("stat", "mean")
    parts, passes, heads = [], [], []
    for key, group in _groups(rows, per).items():
        points = _summaries(group, x, metric)
        xs = list(points)
        head = f"{_label(per, key)}: " if per else ""
        if len(xs) < 2:
            parts.append(f"{head}only {x}={fmt(xs[0])} has rows: nothing to compare")
            passes.append(False)
            continue
        values = [(k, points[k].get(stat)) for k in xs]
        shown = ", ".join(
            f"{x}={fmt(k)}: {stat} {fmt(s.get(stat))} ({_other(stat)} {fmt(s.get(_other(stat)))})"
            if i == 0
            else f"{x}={fmt(k)}: {fmt(s.get(stat))} ({fmt(s.get(_other(stat)))})"
            for i, (k, s) in enumerate(points.items())
        )
        first, last = points[xs[0]], points[xs[-1]]
        heads.append(
            f"{head}{stat} {fmt(first.get(stat))} -> {fmt(last.get(stat))} "
            f"({_other(stat)} {fmt(first.get(_other(stat)))} -> {fmt(last.get(_other(stat)))})"
        )
        ok, verdict = _point_verdict(check, kind, values, x)
        parts.append(f"{head}{shown}; {verdict}")
        passes.append(ok)
    return Outcome(text, "; ".join(parts), all(passes), "; ".join(heads))


def _other(stat: str) -> str:
    return "median" if stat != "median" else "mean"


def _point_verdict(
    check: Mapping[str, Any], kind: str, values: list[tuple[Any, float]], x: str
) -> tuple[bool, str]:
    if kind == "trend":
        found = monotone(values, check.get("op", "up"), float(check.get("tolerance", 0.0)))
        return found.holds, found.text
    if kind == "slope":
        found = slope(
            values,
            check.get("op", "up"),
            log_y=bool(check.get("log", False)),
            log_x=bool(check.get("log_x", False)),
        )
        return found.holds, found.text
    if kind == "spread":
        low, high = min(v for _, v in values), max(v for _, v in values)
        spread = high / low if low > 0 else math.inf
        ok = _compare(spread, check.get("op", "<="), check["value"])
        return ok, f"largest / smallest {fmt(spread)}x"
    pick = max if kind == "argmax" else min
    best = pick(values, key=lambda kv: kv[1])[0]
    return _close(best, check["value"]), f"{kind[3:]} at {x}={fmt(best)}"


def _stat(check: Mapping[str, Any], rows: list[dict], per: list[str], text: str) -> Outcome:
    stat = check.get("stat", "mean")
    below = check.get("below")
    op = check.get("op", "<=")
    parts, passes, found = [], [], []
    for key, group in _groups(rows, per).items():
        values = [float(r[check["metric"]]) for r in group]
        value = _statistic(values, stat, below)
        ok = _compare(value, op, check["value"])
        passes.append(ok)
        head = f"{_label(per, key)}: " if per else ""
        summary = Summary.of(values)
        if stat == "share_below":
            words = f"share below {fmt(below)} {fmt(value)} (n={len(group)})"
        elif stat in ("mean", "median"):
            words = summary.words(stat)
        else:
            words = f"{stat} {fmt(value)} ({summary.words()})"
        parts.append(f"{head}{words}")
        found.append((ok, value, f"{head}{words if stat == 'share_below' else _short(summary)}"))
    holds = any(passes) if check.get("over", "all") == "any" else all(passes)
    return Outcome(text, "; ".join(parts), holds, _deciding(found, check, op))


def _short(summary: Summary) -> str:
    return f"mean {fmt(summary.mean)}, median {fmt(summary.median)}"


def _deciding(found: list[tuple[bool, float, str]], check: Mapping[str, Any], op: str) -> str:
    """The group that decided the verdict: with ``over = "all"`` the worst group by ``op``
    (among the failing ones, if any), with ``"any"`` the best (among the passing ones)."""
    if op == "between":
        return next((f[2] for f in found if not f[0]), found[0][2])
    if check.get("over", "all") == "any":
        pool = [f for f in found if f[0]] or found
        pick = min if op == "<=" else max
    else:
        pool = [f for f in found if not f[0]] or found
        pick = max if op == "<=" else min
    return pick(pool, key=lambda f: f[1])[2]


def _versus(
    check: Mapping[str, Any], mine: list[dict], theirs: list[dict], per: list[str]
) -> Outcome:
    """The statistic of ``check["method"]`` over that of ``check["versus"]``, per group."""
    stat, metric, op = check.get("stat", "mean"), check["metric"], check.get("op", "<=")
    other = _groups(theirs, per)
    parts, found = [], []
    for key, group in _groups(mine, per).items():
        head = f"{_label(per, key)}: " if per else ""
        if key not in other:
            parts.append(f"{head}no {check['versus']} rows")
            found.append((False, math.inf, f"{head}no {check['versus']} rows"))
            continue
        a = Summary.of([float(r[metric]) for r in group])
        b = Summary.of([float(r[metric]) for r in other[key]])
        value = a.get(stat) / b.get(stat) if b.get(stat) > 0 else math.inf
        ok = _compare(value, op, check["value"])
        words = (
            f"{check.get('method', DEFAULT_METHOD)} {stat} {fmt(a.get(stat))} (median {fmt(a.median)}) / "
            f"{check['versus']} {fmt(b.get(stat))} (median {fmt(b.median)}) = {fmt(value)}x"
        )
        parts.append(f"{head}{words}")
        found.append((ok, value, f"{head}{fmt(value)}x: {words}"))
    holds = bool(found) and all(f[0] for f in found)
    return Outcome(check.get("text", metric), "; ".join(parts), holds, _deciding(found, check, op))


def _correlation(check: Mapping[str, Any], rows: list[dict], text: str) -> Outcome:
    from scipy.stats import spearmanr

    against = check["against"]
    pairs = [
        (float(r[against]), float(r[check["metric"]])) for r in rows if r.get(against) is not None
    ]
    if len(pairs) < 3:
        return Outcome(text, f"too few rows ({len(pairs)}) for a correlation", False)
    rho = float(spearmanr([p[0] for p in pairs], [p[1] for p in pairs]).statistic)
    if not math.isfinite(rho):
        return Outcome(text, f"no correlation defined (constant values, n={len(pairs)})", False)
    holds = _compare(rho, check.get("op", ">="), check["value"])
    words = f"Spearman rho({against}, {check['metric']}) = {fmt(rho)} (n={len(pairs)})"
    return Outcome(text, words, holds, words)
