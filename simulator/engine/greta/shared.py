"""One GRETA graph shared by all sliding windows (GRETA paper §6 "Sub-Graph Sharing", §7).

The per-window graph (:class:`.graph.Graph`) is the replication the paper calls naive:
every event is stored once in every window it falls into, and its predecessors are looked
up once per window. :class:`SharedGraph` stores each event once, finds its predecessors
once per stored time pane, and carries one aggregate per window (the paper's Window Hash
Table); a window's final aggregate (the Results Hash Table) is read when it closes.

How the paper's §7 is read here, where it is vague:

- **Time panes.** The paper cuts the stream into panes "such that each query window is
  composed of several panes" without fixing their size. A pane here is a maximal interval
  of times that fall into the same set of windows (between two consecutive window starts
  or ends; ``[k*slide, (k+1)*slide)`` when the window is a multiple of the slide). So all
  vertices of a pane belong to the same windows, and a pane's aggregate vectors are aligned
  without padding: a vertex's vector is its per-window vectors concatenated in window
  order (the Window Hash Table with the perfect hash ``window - first window of the pane``).
- **Vertex trees.** Each pane keeps, per template transition, one predecessor store
  (:mod:`.predecessors`, the paper's Vertex Tree per pane and type) over those
  concatenated vectors; a range or partition store then answers all windows of the pane
  with one lookup (one bisect, one sum per window component).
- **A new event** ``e`` in windows ``W`` asks every live pane ``p``; the answer for a
  window ``w`` in ``W`` and in ``p``'s windows is the combined ``w``-aggregate of ``e``'s
  predecessors in ``p`` (a vertex of ``p`` is in ``w`` exactly when ``w`` is one of
  ``p``'s windows). ``e.count_w`` is the sum over those panes (Algorithm 2 line 10, per
  ``wid``); ``e`` is stored when some window gives it a non-empty vector, in the newest
  pane (the one of its windows).
- **Purging.** A pane is dropped whole when the last of its windows closes (§7: "a whole
  pane with its associated data structures is deleted after the pane has contributed to all
  windows to which it belongs"); no single vertex is ever removed, so stores keep no
  removal log. A closed window's aggregates stay in the vectors of the panes that outlive
  it (they are read by nobody): cutting them out would rewrite every block of every store.
- **Scope.** Positive patterns only (no negation): a negative trend invalidates the
  predecessors of a guarded transition per window, which the per-window graph already
  does; those queries keep :class:`.graph.Graph` (see :class:`.graph.GroupGraphs`).

The same results as the per-window graph, exactly: a window's vector reads only the
aggregates of its own windows' vertices, in the same combination (sums of Python integers
are exact; float sums may add in another order).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import add
from typing import Any

from .aggregates import SUM, AggregateSpec, Vector
from .predecessors import (
    PartitionStore,
    RangeStore,
    ScanStore,
    TotalStore,
    make_store,
    narrow_store,
)
from .template import Template
from .trend_predicates import Predicates

Store = TotalStore | RangeStore | ScanStore | PartitionStore


class Pane:
    """The vertices of one time interval whose events fall into the same ``windows``."""

    __slots__ = ("stores", "windows")

    def __init__(self, windows: range) -> None:
        self.windows = windows
        self.stores: dict[tuple[str, str], Store] = {}


class SharedGraph:
    """The positive GRETA graph of one group, shared by all windows (see the module docstring).

    >>> from inev.workloads.syntax import parse_pattern
    >>> from inev.workloads.expressions import Aggregate
    >>> from .aggregates import aggregate_spec
    >>> from .template import build_template
    >>> from .trend_predicates import classify_predicates
    >>> t = build_template(parse_pattern("KL(A)"))
    >>> g = SharedGraph(t, classify_predicates(None, t, "q"),
    ...                 aggregate_spec(Aggregate("COUNT", None, None)))
    >>> g.add("A", {}, 0.0, range(0, 1))   # window 0 only
    >>> g.add("A", {}, 1.0, range(0, 2))   # windows 0 and 1: 2 trends in 0, 1 in 1
    >>> g.size(), g.aggregates()
    (2, 3)
    >>> g.close(0), g.close(1), g.size()
    ((3,), (1,), 0)
    """

    def __init__(self, template: Template, predicates: Predicates, spec: AggregateSpec) -> None:
        self.template = template
        self.predicates = predicates
        self.spec = spec
        self.width = len(spec.ops)
        self.incoming = {
            t: [(x.source, x.target) for x in template.incoming(t)] for t in template.types
        }
        self.outgoing = {
            t: [(x.source, x.target) for x in template.outgoing(t)] for t in template.types
        }
        self.count_only = spec.aggregate.function == "COUNT" and spec.ops == (SUM,)
        self.panes: list[Pane] = []
        self.final: dict[int, list[Vector]] = {}
        self.specs: dict[int, AggregateSpec] = {}  # the spec of m windows' vectors

    def _spec(self, m: int) -> AggregateSpec:
        """The layout of ``m`` windows' vectors concatenated."""
        spec = self.specs.get(m)
        if spec is None:
            spec = self.specs[m] = AggregateSpec(self.spec.aggregate, self.spec.ops * m)
        return spec

    def vectors(
        self, type_name: str, attributes: Mapping[str, Any], windows: range
    ) -> list[Vector | None] | None:
        """Per window of ``windows``, the vector of a new event (``None``: no trend there);
        ``None`` when it has no vector in any window (it is not stored)."""
        n = len(windows)
        if not n:
            return None
        incoming = self.incoming[type_name]
        count_only, c, spec = self.count_only, self.width, self.spec
        e0, e1 = windows.start, windows.stop
        sums: list[Any] = [0] * n if count_only else [spec.identity] * n
        for pane in self.panes:
            p0 = pane.windows.start
            lo, hi = max(e0, p0), min(e1, pane.windows.stop)
            if lo >= hi:
                continue
            for key in incoming:
                store = pane.stores.get(key)
                if store is None:
                    continue
                found = store.query(attributes)
                if count_only:  # one slice addition (C level) for all common windows
                    sums[lo - e0 : hi - e0] = map(
                        add, sums[lo - e0 : hi - e0], found[lo - p0 : hi - p0]
                    )
                else:
                    for w in range(lo, hi):
                        j = (w - p0) * c
                        sums[w - e0] = spec.combine(sums[w - e0], found[j : j + c])
        start = type_name in self.template.starts
        if count_only:
            out: list[Vector | None] = [(s + 1,) if start else (s,) if s else None for s in sums]
        else:
            out = [spec.vertex(s, start, type_name, attributes) for s in sums]
        return out if any(v is not None for v in out) else None

    def insert(
        self,
        type_name: str,
        attributes: Mapping[str, Any],
        time: float,
        windows: range,
        vectors: list[Vector | None],
    ) -> None:
        """Store a vertex once, with its per-window ``vectors`` (from :meth:`vectors`)."""
        panes = self.panes
        if not panes or panes[-1].windows != windows:
            panes.append(Pane(windows))
        pane = panes[-1]
        identity = self.spec.identity
        flat = tuple(x for v in vectors for x in (identity if v is None else v))
        spec = self._spec(len(windows))
        for key in self.outgoing[type_name]:
            store = pane.stores.get(key)
            if store is None:
                store = pane.stores[key] = make_store(
                    spec, self.predicates.edges.get(key), removable=False
                )
            store.add(time, attributes, flat)
        if type_name in self.template.ends:
            w = windows.start
            for v in vectors:
                w += 1
                if v is not None:
                    ends = self.final.get(w - 1)
                    if ends is None:
                        self.final[w - 1] = [v]
                    else:
                        ends.append(v)

    def add(
        self, type_name: str, attributes: Mapping[str, Any], time: float, windows: range
    ) -> None:
        """Compute and store one event alone at its time stamp."""
        vectors = self.vectors(type_name, attributes, windows)
        if vectors is not None:
            self.insert(type_name, attributes, time, windows, vectors)

    def batch(
        self, time: float, events: list[tuple[str, Mapping[str, Any]]], windows: range
    ) -> None:
        """All events of one time stamp: vectors against the graph before them, then stored
        (adjacent events of a trend need strictly increasing times)."""
        pending = [(t, a, self.vectors(t, a, windows)) for t, a in events]
        for t, a, vectors in pending:
            if vectors is not None:
                self.insert(t, a, time, windows, vectors)

    def close(self, window: int) -> Vector:
        """Return a window's final vector; drop the panes whose windows have all closed.

        Windows close in increasing order (the runtime closes them by end time).
        """
        panes = [p for p in self.panes if p.windows.stop > window + 1]
        c = self.width
        for pane in panes:
            w0, w1 = pane.windows.start, pane.windows.stop
            drop = min(window + 1, w1) - w0
            if drop > 0:  # cut the closed windows' aggregates out of the pane
                spec = self._spec(w1 - w0 - drop)
                for key, store in pane.stores.items():
                    narrow_store(store, spec, drop * c, self.predicates.edges.get(key))
                pane.windows = range(w0 + drop, w1)
        self.panes = panes
        return self.spec.combine_all(self.final.pop(window, ()))

    def open_windows(self) -> list[int]:
        """Ids of the windows that still have panes or final vectors."""
        ids = {w for p in self.panes for w in p.windows} | set(self.final)
        return sorted(ids)

    def size(self) -> int:
        """Number of stored vertex entries (over panes and transitions)."""
        return sum(len(s) for p in self.panes for s in p.stores.values())

    def aggregates(self) -> int:
        """Number of stored per-window aggregate vectors (entries times pane windows)."""
        return sum(len(s) * len(p.windows) for p in self.panes for s in p.stores.values())
