"""The design space of the exact planner: every INEv graph the planner's moves can build.

A *design* fixes, for every projection its query sinks reach (§3.3, §5.2):

* its inputs λ(p): projections or event types whose types cover E(p) (:func:`covers`);
* its placement: one node, or multi-node at the sources of a partitioning type c ∈ λ(p);
* its output selector (§5.1): ≡ (matches) or a set S of its positive types; every type of p
  outside S (negated ones included) then reaches each consumer directly, as an input of its
  own (λ extended, Alg. 2 line 7);

and every vertex forwards over a *minimum* Steiner tree joining its node and its consumers'
nodes (:mod:`inev.planner.steiner_table`). ψ is then a sum of table lookups
(:meth:`DesignSpace.type_cost`, :meth:`DesignSpace.key_cost`): the events of a type reach
the same consumer nodes from each of its sources, and a projection's vertices reach its
consumers' nodes.

**What the space holds.** Projections are every negation-closed projection of each query
(:func:`inev.planner.projections.all_projections`, not only the suitable ones), the query
sinks (Kleene sinks under their own key) and q_nKL as a Kleene sink's input; a projection is
shared by every query whose projection over the same types has the same pattern and
predicates (one key, as in the planner), and may take as input another query's projection
over a subset of its types whose pattern is its own restricted to them and whose predicates
are among its own (the consumer applies the rest; the search's *merge* move). A multi-node
placement partitioned by c takes c and a cover of E(p) \\ {c} by inputs without c; a Kleene
sink is never partitioned by a Kleene type. Selectors are any set of positive types.

**What it leaves out, and why nothing cheaper is lost.**

* Non-minimal covers (an input that can be removed with the rest still covering E(p)):
  removing it only removes destinations from vertices (ψ is monotone in destination sets,
  a Steiner tree over fewer terminals is no larger) and possibly whole vertices.
* Empty selectors: a projection that sends nothing is the same as its consumers taking its
  types directly, without the projection's own inputs (never cheaper).
* A selector S whose selected events cost at least the matches at every vertex of the
  placement: ≡ sends fewer events over the same tree and adds no input to any consumer.
* The planner's heuristics Θ (§6.3) and DissEv-based selectors restrict choices the space
  allows anyway, so every design the planner can place is in the space, and its Alg. 2
  forwarding graphs are trees spanning the same terminals, never smaller than the minimum.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (9.0, [2])})
>>> space = DesignSpace.build(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]))
>>> space.sinks
{'q': 'SEQ(A, B)'}
>>> [(c.inputs, c.partition) for c in space.choices("SEQ(A, B)")]
[(('A', 'B'), None), (('A', 'B'), 'A'), (('A', 'B'), 'B')]
>>> space.type_cost("A", space.table.mask([2]))  # A's one event per time unit crosses 2 links
2.0
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from inev.planner.alg2_placement import send_rate
from inev.planner.baselines import sink_projection
from inev.planner.inev_graph import Node
from inev.planner.projections import (
    Projection,
    all_projections,
    own_key,
    primitive_projection,
    restrict,
)
from inev.planner.steiner_table import SteinerTable
from inev.topologies.network import Network
from inev.workloads.rates import strip_kleene
from inev.workloads.workload import Workload

MEMO_ROWS = 500_000
"""Costs remembered per space and kind (each row some 150 bytes)."""


@dataclass(frozen=True)
class Choice:
    """Inputs of a projection and its partitioning type (None: a single node)."""

    inputs: tuple[str, ...]
    partition: str | None


@dataclass(frozen=True)
class Placed:
    """Where a projection's vertices sit: one ``node``, or the sources of ``partition``."""

    node: Node | None
    partition: str | None


@dataclass
class DesignSpace:
    """The projections, their choices and the cost terms of one instance (module docstring)."""

    network: Network
    table: SteinerTable
    projections: dict[str, Projection]
    """Composite projections by key (sinks and their possible inputs)."""
    sinks: dict[str, str]
    kleene_sinks: dict[str, frozenset[str]]
    """Kleene sinks and their Kleene types (never partitioned by them)."""
    twins: dict[str, str] = field(default_factory=dict)
    """Per Kleene sink, its q_nKL projection over all its types."""
    _choices: dict[str, list[Choice]] = field(default_factory=dict)
    _type_memo: dict[tuple[str, int], float] = field(default_factory=dict)
    _key_memo: dict[tuple, float] = field(default_factory=dict)
    _rates: dict[tuple, tuple[float, ...]] = field(default_factory=dict)
    _anchors: dict[str, str] = field(default_factory=dict)
    _selectors: dict[tuple, list] = field(default_factory=dict)

    @classmethod
    def build(cls, network: Network, workload: Workload) -> DesignSpace:
        """The space of an OR-free workload, checked against the network."""
        glob = network.global_rates()
        pool: dict[str, Projection] = {}
        sinks: dict[str, str] = {}
        kleene: dict[str, frozenset[str]] = {}
        twins: dict[str, str] = {}
        for q in workload.queries:
            for p in all_projections(q, glob, workload.window):
                p = own_key(p, pool, q.name)
                pool.setdefault(p.key, p)
            sink = own_key(sink_projection(q, glob, workload.window), pool, q.name)
            pool.setdefault(sink.key, sink)
            sinks[q.name] = sink.key
            if q.kleene:
                kleene[sink.key] = q.kleene
                twins[sink.key] = p.key  # the last projection: q_nKL over all types
        return cls(network, SteinerTable.of(network), pool, sinks, kleene, twins)

    # ------------------------------------------------------------------ structure
    def types_of(self, key: str) -> frozenset[str]:
        """E(p) of a composite key or an event type."""
        p = self.projections.get(key)
        return p.types if p is not None else frozenset((key,))

    def anchor(self, key: str) -> str:
        """The positive type of ``key`` of highest global rate (ties: the first by name)."""
        found = self._anchors.get(key)
        if found is None:
            glob = self.network.global_rates()
            names = sorted(self.projections[key].positive) if key in self.projections else [key]
            found = self._anchors[key] = max(names, key=lambda t: (glob[t], [-ord(c) for c in t]))
        return found

    def is_type(self, key: str) -> bool:
        """Whether ``key`` names an event type (not a composite projection)."""
        return key not in self.projections

    def candidates(self, key: str) -> list[str]:
        """Composite projections ``key`` may take as inputs (see the module docstring)."""
        p = self.projections[key]
        base = strip_kleene(p.pattern)
        own_sel, own_cond = set(p.selectivity), set(p.conditions)
        out = []
        for k, c in self.projections.items():
            if k == key or not c.types <= p.types or k in self.kleene_sinks:
                continue
            if c.types == p.types and key not in self.kleene_sinks:
                continue
            restricted = restrict(base, c.types)
            if restricted is None or str(restricted) != str(c.pattern):
                continue
            if set(c.selectivity) <= own_sel and set(c.conditions) <= own_cond:
                out.append(k)
        return sorted(out, key=lambda k: (-len(self.projections[k].types), k))

    def choices(self, key: str) -> list[Choice]:
        """Every (minimal cover, partitioning type) of ``key`` (cached)."""
        found = self._choices.get(key)
        if found is None:
            found = self._choices[key] = list(self._enumerate(key))
        return found

    def _enumerate(self, key: str) -> Iterator[Choice]:
        p = self.projections[key]
        composite = self.candidates(key)
        if self._twin_alone(key):
            yield Choice((self.twins[key],), None)
        else:
            for cover in covers(p.types, composite, self.types_of):
                yield Choice(_ordered(cover, self.types_of), None)
        banned = self.kleene_sinks.get(key, frozenset())
        for c in sorted(p.positive - banned):
            rest = p.types - {c}
            usable = [k for k in composite if c not in self.projections[k].types]
            for cover in covers(rest, usable, self.types_of):
                yield Choice(_ordered((*cover, c), self.types_of), c)

    def _twin_alone(self, key: str) -> bool:
        """Whether ``key`` is a Kleene sink whose q_nKL twin nothing else can use: then on one
        node it takes the twin only. Any other inputs I at node m cost what the twin at m
        with inputs I costs (the twin's matches stay at m), and the twin is free to take
        them, as no other projection or query depends on its choice."""
        twin = self.twins.get(key)
        if twin is None or twin in self.sinks.values():
            return False
        return all(twin not in self.candidates(k) for k in self.projections if k not in (key, twin))

    # ------------------------------------------------------------------ costs
    def nodes_mask(self, placed: Placed) -> int:
        """The nodes of a placement as a bit mask."""
        if placed.partition is None:
            return self.table.bit[placed.node]
        return self.table.mask(self.network.sources(placed.partition))

    def type_cost(self, name: str, mask: int) -> float:
        """Σ_n r(e, n) · |ST({n} ∪ mask)|: the events of ``name`` reaching the nodes ``mask``."""
        memo = (name, mask)
        found = self._type_memo.get(memo)
        if found is None:
            sizes, bit = self.table.sizes, self.table.bit
            found = math.fsum(
                r * sizes[mask | bit[n]]
                for n, r in zip(
                    self.network.sources(name), self.network.source_rates(name), strict=True
                )
            )
            if len(self._type_memo) > MEMO_ROWS:
                self._type_memo.clear()
            self._type_memo[memo] = found
        return found

    def vertex_rates(self, key: str, placed: Placed, output: tuple[str, ...] | None) -> tuple:
        """What each vertex of the placement sends per link (:func:`send_rate`)."""
        memo = (key, placed.partition, placed.node if placed.partition is None else None, output)
        found = self._rates.get(memo)
        if found is None:
            p = self.projections[key]
            if placed.partition is None:
                found = (send_rate(self.network, p, placed.node, None, output),)
            else:
                found = tuple(
                    send_rate(self.network, p, n, placed.partition, output)
                    for n in self.network.sources(placed.partition)
                )
            self._rates[memo] = found
        return found

    def key_cost(
        self, key: str, placed: Placed, output: tuple[str, ...] | None, mask: int
    ) -> float:
        """Σ over the vertices of ``key`` of rate · |ST({node} ∪ mask)| (``mask``: consumers)."""
        if not mask:
            return 0.0
        memo = (key, placed, output, mask)
        found = self._key_memo.get(memo)
        if found is None:
            sizes, bit = self.table.sizes, self.table.bit
            rates = self.vertex_rates(key, placed, output)
            if placed.partition is None:
                found = rates[0] * sizes[mask | bit[placed.node]]
            else:
                found = math.fsum(
                    r * sizes[mask | bit[n]]
                    for n, r in zip(self.network.sources(placed.partition), rates, strict=True)
                )
            if len(self._key_memo) > MEMO_ROWS:
                self._key_memo.clear()
            self._key_memo[memo] = found
        return found

    def selectors(self, key: str, placed: Placed) -> list[tuple[str, ...] | None]:
        """≡ (None) and every non-empty set of positive types that is cheaper than the
        matches at some vertex of the placement (the others are dominated by ≡); cached."""
        found = self._selectors.get((key, placed))
        if found is None:
            found = self._selectors[(key, placed)] = self._selector_sets(key, placed)
        return found

    def _selector_sets(self, key: str, placed: Placed) -> list[tuple[str, ...] | None]:
        p = self.projections[key]
        matches = self.vertex_rates(key, placed, None)
        out: list[tuple[str, ...] | None] = [None]
        names = sorted(p.positive)
        for size in range(1, len(names) + 1):
            for chosen in itertools.combinations(names, size):
                rates = self.vertex_rates(key, placed, chosen)
                if any(r < m for r, m in zip(rates, matches, strict=True)):
                    out.append(chosen)
        return out

    def primitive(self, name: str) -> Projection:
        """The projection of one event type."""
        return primitive_projection(name, self.network.global_rate(name))


def covers(
    universe: frozenset[str], composite: list[str], types_of: Mapping[str, frozenset[str]] | object
) -> list[tuple[str, ...]]:
    """Every minimal cover of ``universe`` by ``composite`` keys and single types.

    A cover is minimal when no member can be left out with the rest still covering. Found by
    covering the first uncovered type (in name order) by each candidate holding it, so every
    minimal cover appears (its member holding that type is tried), once as a set.

    >>> covers(frozenset("AB"), [], lambda k: frozenset(k))
    [('A', 'B')]
    >>> sorted(covers(frozenset("ABC"), ["AB", "BC"], lambda k: frozenset(k)))
    [('A', 'B', 'C'), ('A', 'BC'), ('AB', 'BC'), ('AB', 'C')]
    """
    get = types_of if callable(types_of) else types_of.__getitem__  # type: ignore[union-attr]
    sets = {k: get(k) for k in composite}
    sets.update({t: frozenset((t,)) for t in universe})
    names = sorted(universe)
    found: dict[frozenset[str], None] = {}

    def grow(chosen: tuple[str, ...], covered: frozenset[str]) -> None:
        missing = [t for t in names if t not in covered]
        if not missing:
            if _minimal(chosen, sets, universe):
                found.setdefault(frozenset(chosen), None)
            return
        first = missing[0]
        for k, s in sets.items():
            if first in s and k not in chosen and s <= universe:
                grow((*chosen, k), covered | s)

    grow((), frozenset())
    return [tuple(sorted(c)) for c in found]


def _minimal(chosen: tuple[str, ...], sets: Mapping[str, frozenset[str]], universe) -> bool:
    for k in chosen:
        rest = frozenset().union(*(sets[o] for o in chosen if o != k))
        if rest >= universe:
            return False
    return True


def _ordered(keys: tuple[str, ...], types_of) -> tuple[str, ...]:
    """Inputs in a canonical order: composite projections (larger first), then types."""
    return tuple(sorted(keys, key=lambda k: (-len(types_of(k)), k)))
