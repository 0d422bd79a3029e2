"""Predecessor stores of one GRETA transition (GRETA paper §7, "Vertex Trees").

A store holds the vertices of a transition's source type (in one window of one group)
and answers, for a new event of the target type, the combined aggregate vector of its
*valid* predecessors. Vertices are removed from the front in time order when a finished
negative trend invalidates them (§5.2) or when they expire. Three kinds:

- :class:`TotalStore`: no edge predicate; every stored vertex is a predecessor, so the
  answer is a running total (O(1) per event).
- :class:`RangeStore`: one range-indexed edge predicate ``key(prev) op key(next)``; the
  vertices are kept sorted by ``key(prev)`` in blocks with per-block totals (a square-root
  decomposition standing in for the paper's B-tree), O(sqrt n) per event. Chosen over a
  pure-Python balanced tree for simplicity: its inner loops are C-level ``sum``/``bisect``.
- :class:`PartitionStore`: an equality edge predicate ``key(prev) == key(next)`` (the
  paper's equivalence predicates): one inner store (total or range) per key value.
- :class:`ScanStore`: any other edge predicates; each stored vertex is tested (O(n)).

Min/max components cannot be subtracted, so removing a vertex recomputes them over the
affected block (range) or the remaining vertices (total); removals are rare.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from .aggregates import MIN, SUM, AggregateSpec, Vector
from .trend_predicates import EdgePredicate, EqualKey, RangeKey

# Smallest block size of the range store. A block splits when it holds more than twice
# max(LOAD, sqrt(n)) keys (n: the store's size at the last split), so a query adds up
# O(sqrt n) totals and values. Measured on the GRETA benchmark's stores (100 to 10k
# vertices): 64 beats 8-32 and the former fixed 256 (about 20-30% faster per event at 1k-10k).
LOAD = 64


def _reduce(op: str, values: list[Any]) -> Any:
    if op == SUM:
        return sum(values)
    if op == MIN:
        return min(values, default=math.inf)
    return max(values, default=-math.inf)


class TotalStore:
    """All stored vertices are predecessors: a running total."""

    __slots__ = ("entries", "spec", "total")

    def __init__(self, spec: AggregateSpec) -> None:
        self.spec = spec
        self.total: Vector = spec.identity
        self.entries: deque[tuple[float, Vector]] = deque()

    def add(self, time: float, attributes: Mapping[str, Any], vector: Vector) -> None:
        """Store a vertex."""
        self.entries.append((time, vector))
        self.total = self.spec.combine(self.total, vector)

    def query(self, attributes: Mapping[str, Any]) -> Vector:
        """The combined vector of the predecessors of an event with ``attributes``."""
        return self.total

    def remove_before(self, time: float) -> None:
        """Drop the vertices older than ``time``."""
        entries = self.entries
        if not entries or entries[0][0] >= time:
            return
        ops = self.spec.ops
        total = list(self.total)
        while entries and entries[0][0] < time:
            _, vector = entries.popleft()
            for i, o in enumerate(ops):
                if o == SUM:
                    total[i] -= vector[i]
        for i, o in enumerate(ops):
            if o != SUM:
                total[i] = _reduce(o, [v[i] for _, v in entries])
        self.total = tuple(total)

    def narrow(self, spec: AggregateSpec, drop: int) -> None:
        """Drop the first ``drop`` vector components (``spec``: the remaining layout)."""
        self.spec = spec
        self.total = self.total[drop:]
        self.entries = deque((t, v[drop:]) for t, v in self.entries)

    def __len__(self) -> int:
        return len(self.entries)


class ScanStore:
    """Predecessors are the stored vertices satisfying the edge predicates."""

    __slots__ = ("edge", "entries", "spec")

    def __init__(self, spec: AggregateSpec, edge: EdgePredicate) -> None:
        self.spec = spec
        self.edge = edge
        self.entries: deque[tuple[float, Mapping[str, Any], Vector]] = deque()

    def add(self, time: float, attributes: Mapping[str, Any], vector: Vector) -> None:
        """Store a vertex."""
        self.entries.append((time, attributes, vector))

    def query(self, attributes: Mapping[str, Any]) -> Vector:
        """The combined vector of the predecessors of an event with ``attributes``."""
        combine, holds = self.spec.combine, self.edge.holds
        total = self.spec.identity
        for _, prev, vector in self.entries:
            if holds(prev, attributes):
                total = combine(total, vector)
        return total

    def remove_before(self, time: float) -> None:
        """Drop the vertices older than ``time``."""
        entries = self.entries
        while entries and entries[0][0] < time:
            entries.popleft()

    def narrow(self, spec: AggregateSpec, drop: int) -> None:
        """Drop the first ``drop`` vector components (``spec``: the remaining layout)."""
        self.spec = spec
        self.entries = deque((t, a, v[drop:]) for t, a, v in self.entries)

    def __len__(self) -> int:
        return len(self.entries)


class RangeStore:
    """Predecessors are the stored vertices whose key is in range: sorted blocks with totals."""

    __slots__ = (
        "all_sum",
        "blocks",
        "components",
        "keys",
        "left",
        "limit",
        "log",
        "maxes",
        "next_key",
        "ops",
        "prefix",
        "prev_key",
        "range",
        "removable",
        "seq",
        "spec",
        "totals",
    )

    def __init__(self, spec: AggregateSpec, range_key: RangeKey, removable: bool = True) -> None:
        self.spec = spec
        self.ops = spec.ops
        self.range = range_key
        # Without removals (a window's stores are dropped whole) neither the time log nor
        # the seq column is kept: two list operations less per vertex (speed).
        self.removable = removable
        self.limit = 2 * LOAD  # a block splits above this many keys
        self.keys: list[list[Any]] = []  # per block, sorted keys
        # per block, one column of values per component, then (removable) a column of seqs
        self.blocks: list[list[list[Any]]] = []
        self.totals: list[list[Any]] = [[] for _ in spec.ops]  # per component, per block
        self.maxes: list[Any] = []  # last key of each block
        self.log: deque[tuple[float, Any, int]] = deque()  # (time, key, seq) in time order
        self.seq = 0
        self.all_sum = spec.all_sum
        self.components = range(len(spec.ops))
        self.prefix = range_key.op in ("<", "<=")
        self.left = range_key.op in ("<", ">=")  # the bound itself is excluded
        self.prev_key, self.next_key = range_key.prev_key, range_key.next_key

    def add(self, time: float, attributes: Mapping[str, Any], vector: Vector) -> None:
        """Store a vertex under ``prev_key(attributes)`` (not stored when undefined)."""
        key = self.prev_key(attributes)
        if key is None:
            return
        removable = self.removable
        if removable:
            self.seq += 1
            self.log.append((time, key, self.seq))
        if not self.keys:
            self.keys.append([key])
            self.blocks.append([*([v] for v in vector), *([[self.seq]] if removable else [])])
            for c, v in enumerate(vector):
                self.totals[c].append(v)
            self.maxes.append(key)
            return
        b = bisect_right(self.maxes, key)
        if b == len(self.maxes):
            b -= 1
            self.maxes[b] = key
        keys = self.keys[b]
        i = bisect_right(keys, key)
        keys.insert(i, key)
        block = self.blocks[b]
        if self.all_sum:
            totals = self.totals
            for c in self.components:
                v = vector[c]
                block[c].insert(i, v)
                totals[c][b] += v
            if removable:
                block[-1].insert(i, self.seq)
            if len(keys) > self.limit:
                self._split(b)
            return
        for c, o in enumerate(self.ops):
            v = vector[c]
            block[c].insert(i, v)
            totals = self.totals[c]
            t = totals[b]
            if o == SUM:
                totals[b] = t + v
            elif (v < t) if o == MIN else (v > t):
                totals[b] = v
        if removable:
            block[-1].insert(i, self.seq)
        if len(keys) > self.limit:
            self._split(b)

    def _split(self, b: int) -> None:
        self.limit = 2 * max(LOAD, math.isqrt(sum(map(len, self.keys))))
        keys, block = self.keys[b], self.blocks[b]
        half = len(keys) // 2
        self.keys[b : b + 1] = [keys[:half], keys[half:]]
        left = [col[:half] for col in block]
        right = [col[half:] for col in block]
        self.blocks[b : b + 1] = [left, right]
        for c, o in enumerate(self.ops):
            self.totals[c][b : b + 1] = [_reduce(o, left[c]), _reduce(o, right[c])]
        self.maxes[b : b + 1] = [keys[half - 1], keys[-1]]

    def query(self, attributes: Mapping[str, Any]) -> Vector:
        """The combined vector of the stored vertices whose key is in range of the event's.

        A measured hot path, once per event and range predicate (``benchmarks/bench_greta.py``
        times it: its up-trend predicate ``S.price * 1.05 < NEXT(S).price`` is answered
        here, once per event): the event's block and position, then one call to the sums
        (:meth:`_sums`) or to the other reductions (:meth:`_reduced`).
        """
        x = self.next_key(attributes)
        if x is None or not self.keys:
            return self.spec.identity
        if self.left:
            b = bisect_left(self.maxes, x)
            i = bisect_left(self.keys[b], x) if b < len(self.keys) else 0
        else:
            b = bisect_right(self.maxes, x)
            i = bisect_right(self.keys[b], x) if b < len(self.keys) else 0
        inside = b < len(self.blocks)
        if self.all_sum and inside:
            return self._sums(b, i)
        return self._reduced(b, i, inside)

    def _sums(self, b: int, i: int) -> Vector:
        """:meth:`query` when every component is a sum and position ``i`` of block ``b``
        splits the range: within the block, add up the shorter side of ``i`` (speed); only
        for integer totals, so float sums keep their order of additions."""
        prefix = self.prefix
        totals, block = self.totals, self.blocks[b]
        short = 2 * i <= len(block[0])
        if len(totals) == 1:  # COUNT(*): the same without a list (speed)
            t, col = totals[0], block[0]
            if prefix:
                if short or t[b].__class__ is not int:
                    return (sum(t[:b]) + sum(col[:i]),)
                return (sum(t[: b + 1]) - sum(col[i:]),)
            if not short or t[b].__class__ is not int:
                return (sum(t[b + 1 :]) + sum(col[i:]),)
            return (sum(t[b:]) - sum(col[:i]),)
        found = []
        for c in self.components:
            t, col = totals[c], block[c]
            if prefix:
                if short or t[b].__class__ is not int:
                    found.append(sum(t[:b]) + sum(col[:i]))
                else:
                    found.append(sum(t[: b + 1]) - sum(col[i:]))
            elif not short or t[b].__class__ is not int:
                found.append(sum(t[b + 1 :]) + sum(col[i:]))
            else:
                found.append(sum(t[b:]) - sum(col[:i]))
        return tuple(found)

    def _reduced(self, b: int, i: int, inside: bool) -> Vector:
        """:meth:`query` component by component (sums, minima, maxima) from the block totals
        on the range's side of block ``b`` and, when ``inside``, the block's own values on
        the range's side of position ``i``."""
        prefix = self.prefix
        out = []
        for c, o in enumerate(self.ops):
            if prefix:
                whole = self.totals[c][:b]
                part = self.blocks[b][c][:i] if inside else []
            else:
                whole = self.totals[c][b + 1 :]
                part = self.blocks[b][c][i:] if inside else []
            if o == SUM:
                out.append(sum(whole) + sum(part))
            elif o == MIN:
                out.append(min(min(whole, default=math.inf), min(part, default=math.inf)))
            else:
                out.append(max(max(whole, default=-math.inf), max(part, default=-math.inf)))
        return tuple(out)

    def remove_before(self, time: float) -> None:
        """Drop the vertices older than ``time``."""
        if not self.removable:
            raise RuntimeError("this range store was built without removals")
        log = self.log
        while log and log[0][0] < time:
            _, key, seq = log.popleft()
            self._remove(key, seq)

    def _remove(self, key: Any, seq: int) -> None:
        b = bisect_left(self.maxes, key)
        i = bisect_left(self.keys[b], key)
        seqs = self.blocks[b][-1]
        while seqs[i] != seq:
            i += 1
            if i == len(seqs):
                b, i = b + 1, 0
                seqs = self.blocks[b][-1]
        keys, block = self.keys[b], self.blocks[b]
        del keys[i]
        del block[-1][i]
        for c, o in enumerate(self.ops):
            v = block[c].pop(i)
            totals = self.totals[c]
            if o == SUM:
                totals[b] -= v
            elif v == totals[b]:
                totals[b] = _reduce(o, block[c])
        if not keys:
            del self.keys[b], self.blocks[b], self.maxes[b]
            for totals in self.totals:
                del totals[b]
        else:
            self.maxes[b] = keys[-1]

    def narrow(self, spec: AggregateSpec, drop: int) -> None:
        """Drop the first ``drop`` vector components (``spec``: the remaining layout)."""
        self.spec, self.ops, self.all_sum = spec, spec.ops, spec.all_sum
        self.components = range(len(spec.ops))
        for block in self.blocks:
            del block[:drop]
        del self.totals[:drop]

    def __len__(self) -> int:
        return len(self.log) if self.removable else sum(map(len, self.keys))


class PartitionStore:
    """Predecessors share the event's equality key: one inner store per key value."""

    __slots__ = ("equal", "inner", "parts", "size")

    def __init__(self, equal: EqualKey, inner: Callable[[], TotalStore | RangeStore]) -> None:
        self.equal = equal
        self.inner = inner
        self.parts: dict[Any, TotalStore | RangeStore] = {}

    def add(self, time: float, attributes: Mapping[str, Any], vector: Vector) -> None:
        """Store a vertex in the part of its key (not stored when the key is undefined)."""
        key = self.equal.prev_key(attributes)
        if key is None:
            return
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = self.inner()
        part.add(time, attributes, vector)

    def query(self, attributes: Mapping[str, Any]) -> Vector:
        """The combined vector of the predecessors in the event's part."""
        part = self.parts.get(self.equal.next_key(attributes))
        if part is None:
            return self.inner().spec.identity
        return part.query(attributes)

    def remove_before(self, time: float) -> None:
        """Drop the vertices older than ``time`` (and empty parts)."""
        for key in list(self.parts):
            part = self.parts[key]
            part.remove_before(time)
            if not len(part):
                del self.parts[key]

    def narrow(
        self,
        spec: AggregateSpec,
        drop: int,
        inner: Callable[[], TotalStore | RangeStore] | None = None,
    ) -> None:
        """Drop the first ``drop`` vector components of every part; ``inner`` makes new
        parts of the remaining layout."""
        for part in self.parts.values():
            part.narrow(spec, drop)
        if inner is not None:
            self.inner = inner

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts.values())


def narrow_store(store: Any, spec: AggregateSpec, drop: int, edge: EdgePredicate | None) -> None:
    """Drop the first ``drop`` components of every vector in ``store`` (made by
    :func:`make_store` with ``edge`` and ``removable=False``); ``spec`` is the layout left."""
    if isinstance(store, PartitionStore):
        fresh = make_store(spec, edge, removable=False)
        store.narrow(spec, drop, fresh.inner if isinstance(fresh, PartitionStore) else None)
    else:
        store.narrow(spec, drop)


def make_store(
    spec: AggregateSpec, edge: EdgePredicate | None, removable: bool = True
) -> TotalStore | RangeStore | ScanStore | PartitionStore:
    """The store fitting a transition's edge predicates (``removable``: ``remove_before``
    may be called on it)."""
    if edge is None:
        return TotalStore(spec)
    if edge.equal is not None:
        range_key = edge.range
        if range_key is None:
            return PartitionStore(edge.equal, lambda: TotalStore(spec))
        return PartitionStore(edge.equal, lambda: RangeStore(spec, range_key, removable))
    if edge.range is not None:
        return RangeStore(spec, edge.range, removable)
    return ScanStore(spec, edge)
