"""The INEv paper's claims, figure by figure, and how a sweep's rows are checked against them.

The claims live in one data file, ``experiments/claims.toml``: per figure its id, the preset
that reproduces it, the paper's section, the claim in one line, and one or more checks. A
check names a metric (of the ``inev`` rows unless ``method`` says otherwise), an optional
``where`` filter, a statistic, and a comparison with a tolerance written into the check:

``kind = "stat"`` (default)
    ``stat`` (median, mean, max, min, or ``share_below`` with ``below``: the share of rows
    under a threshold) of ``metric``, per group of the ``per`` columns; ``op`` (``<=``,
    ``>=`` or ``between``) with ``value``; ``over = "all"`` (default: every group must pass)
    or ``"any"`` (one group suffices, e.g. "up to eight orders of magnitude").
``kind = "trend"``
    the median at the largest ``x`` against the median at the smallest, per group:
    ``op = "up"`` (last above first) or ``"down"``.
``kind = "spread"``
    the largest median over ``x`` divided by the smallest, per group, ``op`` (``<=`` or
    ``>=``) ``value``.
``kind = "argmax"`` / ``"argmin"``
    the ``x`` value whose median is largest / smallest must be ``value``.
``kind = "correlation"``
    Spearman's rho between ``metric`` and ``against`` over the rows, ``op`` ``value``.

``where`` maps a column to a value, a list of values, or ``{min = .., max = ..}`` bounds.
A check without rows to look at does not hold (and says so): a claim is never passed by
default.

>>> rows = [{"method": "inev", "error": None, "q": q, "ratio": r}
...         for q, r in [(5, 0.2), (5, 0.4), (20, 0.95), (20, 1.0)]]
>>> evaluate({"metric": "ratio", "where": {"q": 20}, "op": ">=", "value": 0.9}, rows).holds
True
>>> evaluate({"kind": "trend", "metric": "ratio", "x": "q", "op": "up"}, rows).measured
'median 0.3 at q=5, 0.975 at q=20'
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

KINDS = ("stat", "trend", "spread", "argmax", "argmin", "correlation")
STATS = ("median", "mean", "max", "min", "share_below")
OPS = ("<=", ">=", "between", "up", "down")


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


@dataclass(frozen=True)
class Outcome:
    """What one check found: the measured numbers in words, and whether the claim holds."""

    text: str
    measured: str
    holds: bool


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
        figures.append(
            Figure(
                entry["id"],
                entry["preset"],
                entry["section"],
                entry["claim"],
                tuple(entry["check"]),
                entry.get("known", ""),
            )
        )
    return figures


def _check_check(figure: str, check: Mapping[str, Any]) -> None:
    kind = check.get("kind", "stat")
    if kind not in KINDS:
        raise InevError(f"claims: figure {figure}: unknown check kind {kind!r}")
    if "metric" not in check or "text" not in check:
        raise InevError(f"claims: figure {figure}: a check needs metric and text")
    if kind == "stat" and check.get("stat", "median") not in STATS:
        raise InevError(f"claims: figure {figure}: unknown stat {check.get('stat')!r}")
    if check.get("op", "<=") not in OPS:
        raise InevError(f"claims: figure {figure}: unknown op {check.get('op')!r}")
    if kind in ("trend", "spread", "argmax", "argmin") and "x" not in check:
        raise InevError(f"claims: figure {figure}: a {kind} check needs x")


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
    method = check.get("method", "inev")
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
    metric = check["metric"]
    text = check.get("text", metric)
    chosen = selected(check, rows)
    if not chosen:
        return Outcome(text, "no rows to check (none error-free with this metric)", False)
    per = list(check.get("per", []))
    if kind == "correlation":
        return _correlation(check, chosen, text)
    if kind == "stat":
        return _stat(check, chosen, per, text)
    x = check["x"]
    parts, passes = [], []
    for key, group in _groups(chosen, per).items():
        medians = {
            k[0]: statistics.median(float(r[metric]) for r in g)
            for k, g in _groups(group, [x]).items()
        }
        xs = list(medians)
        head = f"{_label(per, key)}: " if per else ""
        if len(xs) < 2:
            parts.append(f"{head}only {x}={fmt(xs[0])} has rows: nothing to compare")
            passes.append(False)
            continue
        if kind == "trend":
            first, last = medians[xs[0]], medians[xs[-1]]
            ok = last > first if check.get("op", "up") == "up" else last < first
            parts.append(
                f"{head}median {fmt(first)} at {x}={fmt(xs[0])}, {fmt(last)} at {x}={fmt(xs[-1])}"
            )
        elif kind == "spread":
            low, high = min(medians.values()), max(medians.values())
            spread = high / low if low > 0 else math.inf
            ok = _compare(spread, check.get("op", "<="), check["value"])
            parts.append(f"{head}medians {fmt(low)} - {fmt(high)} ({fmt(spread)}x)")
        else:
            pick = max if kind == "argmax" else min
            best = pick(xs, key=lambda k: medians[k])
            ok = _close(best, check["value"])
            shown = ", ".join(f"{fmt(k)}: {fmt(medians[k])}" for k in xs)
            parts.append(f"{head}{kind[3:]} of the medians at {x}={fmt(best)} ({shown})")
        passes.append(ok)
    return Outcome(text, "; ".join(parts), all(passes))


def _stat(check: Mapping[str, Any], rows: list[dict], per: list[str], text: str) -> Outcome:
    stat = check.get("stat", "median")
    below = check.get("below")
    parts, passes = [], []
    for key, group in _groups(rows, per).items():
        value = _statistic([float(r[check["metric"]]) for r in group], stat, below)
        passes.append(_compare(value, check.get("op", "<="), check["value"]))
        name = f"share below {fmt(below)}" if stat == "share_below" else stat
        head = f"{_label(per, key)}: " if per else ""
        parts.append(f"{head}{name} {fmt(value)} (n={len(group)})")
    holds = any(passes) if check.get("over", "all") == "any" else all(passes)
    return Outcome(text, "; ".join(parts), holds)


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
    return Outcome(
        text, f"Spearman rho({against}, {check['metric']}) = {fmt(rho)} (n={len(pairs)})", holds
    )
