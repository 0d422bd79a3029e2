"""Selectivities of a workload's ``where`` predicates, measured on a trace (``inev workload estimate``).

The planner's rate model (INEv §3.2) needs a pairwise selectivity σ(a, b) for every pair of
types a predicate relates; the paper derived them from the data. For each query and each pair
of its types that ``where`` conjuncts relate (conjuncts naming exactly those two types, no
``NEXT``), σ(a, b) is the share of the pairs (x of type a, y of type b) *within the window*
(|t_x - t_y| <= window) that satisfy every such conjunct:

* **candidates**: the number N of pairs within the window is counted exactly (a binary search
  per event over the sorted times of the other type);
* **a key** (a conjunct ``a.x == b.y``): the pairs within the window that share the key are
  counted exactly too, per key value; the selectivity of a bike-id join is then exact
  however small (1/10,000 for 10,000 bikes, which no affordable sample would see);
* **other conjuncts** are evaluated on every candidate pair (keyed pairs, if there is a key)
  when there are at most ``exact_limit`` of them, else on ``sample`` pairs drawn uniformly
  among them (seeded); the estimate states which, and the sample size.

A pair never within one window has no estimate and is left out; a pair whose conjuncts no
checked pair satisfied gets 1/(2n) for n pairs checked (an estimate needs a positive value,
and a smaller one would claim more than the data says). Pairs with a declared selectivity
keep it. Conjuncts over one type (filters) or over three or more types are not pairwise and
are not measured (the rate model has no place for them); the report says so.

The measured values go into each query's ``where_selectivity``: the planner uses them, and
evaluation leaves them to the ``where`` clause (:mod:`inev.workloads.workload`).

>>> import tempfile, pathlib
>>> from inev.workloads.workload import Query, Workload
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> rows = "".join(f"{i},{'AB'[i % 2]},0,{i},{i // 4}\\n" for i in range(8))
>>> _ = p.write_text("time,type,node,id,k\\n" + rows)
>>> wl = Workload.build(10.0, [Query.build("q", "SEQ(A, B)", where="A.k == B.k")])
>>> result = estimate_selectivities(wl, p)
>>> result.workload.queries[0].where_selectivity
{('A', 'B'): 0.5}
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from inev.common.errors import InevError
from inev.common.traces import REQUIRED, IdLedger, TraceFile
from inev.workloads.expressions import (
    Attr,
    Compare,
    Condition,
    condition_attributes,
    conjuncts,
    evaluate,
)
from inev.workloads.rates import Pair, pair
from inev.workloads.workload import Workload

SAMPLE = 100_000
EXACT_LIMIT = 200_000
MAX_SAMPLE = 10_000_000
"""The largest sample per pair (the pairs drawn are held as a list)."""
MAX_EVENTS = 20_000_000
"""Events of the measured types held at once (about 150 MB per million); above, refused."""


@dataclass(frozen=True)
class PairEstimate:
    """How one pair's selectivity was measured."""

    query: str
    pair: Pair
    candidates: int
    keyed: int | None
    checked: int
    held: int
    sampled: bool
    selectivity: float | None
    note: str = ""

    @property
    def method(self) -> str:
        """``exact``, ``key exact``, ``sampled (n=…)`` or a reason for no estimate."""
        if self.selectivity is None:
            return self.note
        if self.sampled:
            return f"sampled (n={self.checked})"
        return "exact" if self.keyed is None else "exact (key)"


@dataclass
class Estimate:
    """The workload with measured selectivities, one entry per measured pair, and notes."""

    workload: Workload
    pairs: list[PairEstimate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    events: int = 0

    def provenance(self, trace: str) -> dict[str, Any]:
        """What the file records about the measurement (``estimated_from``)."""
        return {
            "trace": trace,
            "events": self.events,
            "window": self.workload.window,
            "pairs": {
                f"{p.query}: {p.pair[0]} {p.pair[1]}": {
                    "candidates": p.candidates,
                    "keyed": p.keyed,
                    "checked": p.checked,
                    "held": p.held,
                    "method": p.method,
                }
                for p in self.pairs
            },
        }


def _pair_conditions(
    conditions: Sequence[Condition], types: set[str]
) -> tuple[dict[Pair, list[Condition]], list[str]]:
    by_pair: dict[Pair, list[Condition]] = {}
    skipped: list[str] = []
    for c in conditions:
        attrs = condition_attributes(c)
        scope = {a.type for a in attrs}
        if any(a.next for a in attrs) or len(scope) != 2 or not scope <= types:
            skipped.append(str(c))
            continue
        a, b = sorted(scope)
        by_pair.setdefault(pair(a, b), []).append(c)
    return by_pair, skipped


def _key(conditions: Sequence[Condition], a: str, b: str) -> tuple[Attr, Attr] | None:
    """An equality ``a.x == b.y`` among the conjuncts, as (a's attribute, b's)."""
    for c in conditions:
        if isinstance(c, Compare) and c.op == "==":
            left, right = c.left, c.right
            if isinstance(left, Attr) and isinstance(right, Attr):
                if left.type == a and right.type == b:
                    return left, right
                if left.type == b and right.type == a:
                    return right, left
    return None


@dataclass
class _Events:
    """The events of one type: times (sorted) and the attribute columns read."""

    time: np.ndarray
    node: list[Any]
    id: list[Any]
    attrs: dict[str, list[Any]]

    def fields(self, i: int) -> dict[str, Any]:
        out = {"time": float(self.time[i]), "node": self.node[i], "id": self.id[i]}
        for name, values in self.attrs.items():
            if values[i] is not None:
                out[name] = values[i]
        return out

    def values(self, name: str) -> list[Any]:
        if name == "time":
            return self.time.tolist()
        if name in ("node", "id"):
            return getattr(self, name)
        return self.attrs[name]


def _load(trace: TraceFile, wanted: Mapping[str, set[str]]) -> dict[str, _Events]:
    attributes = sorted({a for names in wanted.values() for a in names if a not in REQUIRED})
    for a in attributes:
        if a not in trace.columns:
            raise InevError(f"trace {trace.name}: no column {a!r} (named in a where clause)")
    parts: dict[str, list[tuple[np.ndarray, list, list, dict[str, list]]]] = {t: [] for t in wanted}
    held = 0
    ids = IdLedger(trace.name)  # a repeated id is refused here as by every trace reader
    for batch in trace.batches(attributes):
        ids.add(batch.type, batch.id)
        types = np.asarray(batch.type, dtype=object)
        for t in wanted:
            rows = np.flatnonzero(types == t)
            if not rows.size:
                continue
            held += rows.size
            if held > MAX_EVENTS:
                raise InevError(
                    f"trace {trace.name}: more than {MAX_EVENTS:,} events of the types the "
                    "where clauses name would be held to measure their selectivities: "
                    "estimate on a part of the trace (a week measures what a month does)"
                )
            picked = rows.tolist()
            parts[t].append(
                (
                    batch.time[rows],
                    [batch.node[i] for i in picked],
                    [batch.id[i] for i in picked],
                    {a: [batch.attrs[a][i] for i in picked] for a in wanted[t] if a in batch.attrs},
                )
            )
    ids.check()
    return {t: _merged(chunks, wanted[t]) for t, chunks in parts.items()}


def _merged(
    chunks: list[tuple[np.ndarray, list, list, dict[str, list]]], names: set[str]
) -> _Events:
    """One type's events of every batch in one time-ordered :class:`_Events`."""
    if not chunks:
        return _Events(np.empty(0), [], [], {a: [] for a in names if a not in REQUIRED})
    time = np.concatenate([c[0] for c in chunks])
    order = np.argsort(time, kind="stable")
    nodes = [n for c in chunks for n in c[1]]
    ids = [i for c in chunks for i in c[2]]
    attrs = {a: [v for c in chunks for v in c[3][a]] for a in chunks[0][3]}
    take = order.tolist()
    return _Events(
        time[order],
        [nodes[i] for i in take],
        [ids[i] for i in take],
        {a: [v[i] for i in take] for a, v in attrs.items()},
    )


def _windows(x: np.ndarray, y: np.ndarray, window: float) -> tuple[np.ndarray, np.ndarray]:
    """For each time in ``x``, the index range in sorted ``y`` within ``window``."""
    lo = np.searchsorted(y, x - window, side="left")
    hi = np.searchsorted(y, x + window, side="right")
    return lo, hi


def _measure(
    name: str,
    a: str,
    b: str,
    conditions: list[Condition],
    data: Mapping[str, _Events],
    window: float,
    sample: int,
    exact_limit: int,
    rng: np.random.Generator,
) -> PairEstimate:
    ea, eb = data[a], data[b]
    lo, hi = _windows(ea.time, eb.time, window)
    candidates = int((hi - lo).sum())
    if candidates == 0:
        return PairEstimate(name, (a, b), 0, None, 0, 0, False, None, "never within a window")
    key = _key(conditions, a, b)
    rest = [c for c in conditions if key is None or c not in _equalities(key)]
    if key is not None:
        # pairs within the window that share the key, per key value
        groups_a = _group(ea.values(key[0].name))
        groups_b = _group(eb.values(key[1].name))
        keyed = 0
        for value, rows_a in groups_a.items():
            rows_b = groups_b.get(value)
            if rows_b is not None:
                klo, khi = _windows(ea.time[rows_a], eb.time[rows_b], window)
                keyed += int((khi - klo).sum())
        if not rest:
            return _result(name, (a, b), candidates, keyed, candidates, keyed, False)
        if keyed == 0:
            return _result(name, (a, b), candidates, 0, candidates, 0, False)
        chosen = _choose_keyed(groups_a, groups_b, ea, eb, window, keyed, sample, exact_limit, rng)
        held = sum(1 for i, j in chosen if _holds(rest, a, b, ea, eb, i, j))
        sampled = keyed > exact_limit
        share = held / len(chosen)
        value = keyed / candidates * share
        return _result(name, (a, b), candidates, keyed, len(chosen), held, sampled, value)
    chosen = _choose(lo, hi, candidates, sample, exact_limit, rng)
    held = sum(1 for i, j in chosen if _holds(conditions, a, b, ea, eb, i, j))
    return _result(name, (a, b), candidates, None, len(chosen), held, candidates > exact_limit)


def _equalities(key: tuple[Attr, Attr]) -> tuple[Compare, Compare]:
    """The key's conjunct, written either way round."""
    return Compare("==", key[0], key[1]), Compare("==", key[1], key[0])


def _result(
    name: str,
    p: Pair,
    candidates: int,
    keyed: int | None,
    checked: int,
    held: int,
    sampled: bool,
    value: float | None = None,
) -> PairEstimate:
    if value is None:
        value = held / checked
    if value <= 0.0:
        return PairEstimate(
            name, p, candidates, keyed, checked, held, sampled, 0.5 / checked,
            f"no pair held: 1/(2 x {checked})",
        )  # fmt: skip
    return PairEstimate(name, p, candidates, keyed, checked, held, sampled, min(value, 1.0))


def _group(values: list[Any]) -> dict[Any, np.ndarray]:
    groups: dict[Any, list[int]] = {}
    for i, v in enumerate(values):
        if v is None:
            continue
        try:
            groups.setdefault(v, []).append(i)
        except TypeError:  # an unhashable value joins nothing on a key
            continue
    return {k: np.asarray(v, dtype=np.int64) for k, v in groups.items()}


def _choose(
    lo: np.ndarray,
    hi: np.ndarray,
    total: int,
    sample: int,
    exact_limit: int,
    rng: np.random.Generator,
) -> list[tuple[int, int]]:
    """Every pair ``(i, j)`` with ``lo[i] <= j < hi[i]``, or ``sample`` of them uniformly."""
    counts = hi - lo
    if total <= exact_limit:
        rows = np.repeat(np.arange(lo.size), counts)
        offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        return list(zip(rows.tolist(), (np.repeat(lo, counts) + offsets).tolist(), strict=True))
    picks = np.sort(rng.integers(0, total, size=sample))
    ends = np.cumsum(counts)
    rows = np.searchsorted(ends, picks, side="right")
    offsets = picks - (ends[rows] - counts[rows])
    return list(zip(rows.tolist(), (lo[rows] + offsets).tolist(), strict=True))


def _choose_keyed(
    groups_a: Mapping[Any, np.ndarray],
    groups_b: Mapping[Any, np.ndarray],
    ea: _Events,
    eb: _Events,
    window: float,
    total: int,
    sample: int,
    exact_limit: int,
    rng: np.random.Generator,
) -> list[tuple[int, int]]:
    """The keyed pairs within the window (all, or ``sample`` uniformly), as event indices."""
    rows_a: list[np.ndarray] = []
    rows_b: list[np.ndarray] = []
    los: list[np.ndarray] = []
    his: list[np.ndarray] = []
    for value, ra in groups_a.items():
        rb = groups_b.get(value)
        if rb is None:
            continue
        klo, khi = _windows(ea.time[ra], eb.time[rb], window)
        keep = khi > klo
        if keep.any():
            rows_a.append(ra[keep])
            rows_b.append(rb)
            los.append(klo[keep])
            his.append(khi[keep])
    # flatten: one row per a-event with its key's b rows offset into one array
    offsets = np.cumsum([0] + [len(r) for r in rows_b[:-1]]) if rows_b else np.empty(0)
    flat_b = np.concatenate(rows_b) if rows_b else np.empty(0, dtype=np.int64)
    a_idx = np.concatenate(rows_a) if rows_a else np.empty(0, dtype=np.int64)
    lo = np.concatenate([lo_ + off for lo_, off in zip(los, offsets, strict=True)])
    hi = np.concatenate([hi_ + off for hi_, off in zip(his, offsets, strict=True)])
    chosen = _choose(lo, hi, total, sample, exact_limit, rng)
    return [(int(a_idx[i]), int(flat_b[j])) for i, j in chosen]


def _holds(
    conditions: Sequence[Condition],
    a: str,
    b: str,
    ea: _Events,
    eb: _Events,
    i: int,
    j: int,
) -> bool:
    binding = {a: ea.fields(i), b: eb.fields(j)}
    return all(evaluate(c, binding) for c in conditions)


def _measured_pairs(q: Any, notes: list[str]) -> dict[Pair, list[Condition]]:
    """The type pairs of ``q``'s where conjuncts to measure, with their conjuncts; what is
    not measured (a conjunct not between two types, a declared selectivity) goes to notes."""
    if q.where is None:
        return {}
    by_pair, skipped = _pair_conditions(conjuncts(q.where), set(q.types))
    for text in skipped:
        notes.append(f"{q.name}: '{text}' is not between two types; not measured")
    for p in list(by_pair):
        if p in q.selectivity and p not in q.measured:
            notes.append(f"{q.name}: {p[0]} {p[1]} keeps its declared selectivity")
            del by_pair[p]
    return by_pair


def _with_measured(
    q: Any,
    by_pair: Mapping[Pair, list[Condition]],
    measure: Callable[[Any, str, str, list[Condition]], PairEstimate],
) -> Any:
    """``q`` with the selectivities ``measure`` finds for its pairs (declared ones kept)."""
    if not by_pair:
        return q
    measured: dict[Pair, float] = {}
    for (a, b), conditions in sorted(by_pair.items()):
        found = measure(q, a, b, conditions)
        if found.selectivity is not None:
            measured[(a, b)] = found.selectivity
    declared = {k: v for k, v in q.selectivities if k not in q.measured}
    sel = tuple(sorted({**declared, **measured}.items()))
    return replace(q, selectivities=sel, measured=frozenset(measured))


def estimate_selectivities(
    workload: Workload,
    trace: str | os.PathLike[str],
    sample: int = SAMPLE,
    exact_limit: int = EXACT_LIMIT,
    seed: int = 0,
) -> Estimate:
    """Measure the pairwise selectivities of every query's ``where`` conjuncts (module doc)."""
    if isinstance(sample, bool) or not isinstance(sample, int) or not 1 <= sample <= MAX_SAMPLE:
        raise InevError(f"sample size must be an integer from 1 to {MAX_SAMPLE:,}, got {sample!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InevError(f"seed must be a non-negative integer (64 bits), got {seed!r}")
    source = TraceFile(trace)
    notes: list[str] = []
    plans = [(q, _measured_pairs(q, notes)) for q in workload.queries]
    wanted: dict[str, set[str]] = {}
    for _, by_pair in plans:
        for conditions in by_pair.values():
            for c in conditions:
                for attr in condition_attributes(c):
                    wanted.setdefault(attr.type, set()).add(attr.name)
    data = _load(source, wanted) if wanted else {}
    rng = np.random.default_rng(seed)
    result = Estimate(workload, notes=notes, events=sum(len(d.time) for d in data.values()))
    seen: dict[tuple[str, str, tuple[str, ...]], PairEstimate] = {}

    def measure(q: Any, a: str, b: str, conditions: list[Condition]) -> PairEstimate:
        key = (a, b, tuple(sorted(str(c) for c in conditions)))
        if key not in seen:  # queries sharing a predicate share its measurement
            seen[key] = _measure(
                q.name, a, b, conditions, data, workload.window, sample, exact_limit, rng
            )
        found = replace(seen[key], query=q.name)
        result.pairs.append(found)
        return found

    queries = [_with_measured(q, by_pair, measure) for q, by_pair in plans]
    result.workload = replace(workload, queries=tuple(queries))
    return result
