"""Local search over complete INEv graph designs, judged by the exact ψ of the placed graph.

Alg. 1 chooses each projection's inputs and placement with *estimated* costs (δ hops per
input, Eq. 1's tree sizes); Alg. 2 then places the combination exactly. Estimates err, so
:func:`improve` takes a complete design and tries its neighbours, keeping a neighbour only if
Alg. 2's placement of it costs less (:func:`inev.planner.alg2_placement.placement_cost`):

* **switch**: give a projection another of the options Alg. 1 evaluated for it (single node,
  or multi-node at another partitioning type, each with its own best inputs); the sink of a
  query is a projection too, so this re-roots it;
* **drop**: a projection's consumers take its inputs instead (§6.6's repair of a harmful
  projection, tried everywhere);
* **merge**: a projection takes, in place of the inputs whose types some other evaluated
  projection covers, that projection (one stream of matches from one place can cost fewer
  links than several inputs from many sources); only a projection that is the consumer's own
  pattern restricted to those types, with no predicate the consumer lacks, qualifies;
* **gather**: a multi-node projection goes to a single node with the same inputs;
* **partition**: a projection goes multi-node at the sources of any of its positive types,
  including those Eq. 1's estimate turned down for Alg. 1 (the estimate prices the other
  inputs' dissemination as if nothing else sent them there; another projection may already
  send them to those sources, so the partition costs nothing more): the inputs without the
  type stay, the type's own events join them, and types only the dropped inputs held come
  directly (a regional placement goes to every source of its type); and a merge whose covering projection is at once partitioned at one of its
  types (one move: the merge alone may cost more). These are tried only in a final pass of
  the search (``repartition``, :func:`inev.planner.search.search`) from its best design,
  alone (then the other moves again from what they reach): every earlier pass runs as
  before, so the plan is never costlier than it was without them (offered from the start
  they led the regional pass elsewhere: the planner gate's p3 rose from 0.715 to 0.788),
  and the pass adds few placements;
* **flatten**: a projection takes its event types directly instead of sub-projections;
* **co-locate**: a single-node projection is pinned where another one sits (Alg. 2 places
  them one at a time, so two consumers of the same events may sit apart where together they
  would share the events' way), or moved alone or with another one that shares an input type
  to a node the cost could favour: the rate-weighted 1-median of their input types' sources;
* **matches**: a projection sends its matches although its output selector would pay locally
  (the selector makes its consumers receive the other types' events, which may cost more).

The first improving neighbour is taken (projections tried in order of their share of ψ), and
the search stops when a full round finds none or the budget of evaluations or seconds is
spent. Every design is valid by construction: options come from Alg. 1, and a drop keeps the
consumer's inputs covering its types.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from inev.planner import progress
from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import placement_cost, uses_selectors
from inev.planner.baselines import centralized_node
from inev.planner.combination_model import Combination
from inev.planner.incremental import Placer
from inev.planner.inev_graph import Node
from inev.planner.merge_candidates import merge_candidates
from inev.planner.projections import Projection
from inev.planner.regions import Regions
from inev.topologies.network import Network
from inev.workloads.pattern import kleene_types

MAX_COMBINATIONS = 20_000
"""Combinations an evaluator keeps (:meth:`Evaluator.combination`) before it drops them."""
INCREMENTAL = True
"""Whether evaluators place designs incrementally (:mod:`inev.planner.incremental`: the same
ψ and nodes as Alg. 2 from scratch, bit for bit; off only to compare the two)."""


@dataclass(frozen=True)
class Design:
    """A complete plan decision: a choice per projection, the query sinks, pins, overrides."""

    choices: Mapping[str, Choice]
    sinks: Mapping[str, str]
    pinned: Mapping[str, Node] = field(default_factory=dict)
    keep_matches: frozenset[str] = frozenset()
    regional: Mapping[str, Regions] = field(default_factory=dict)
    """Regional placements (:mod:`inev.planner.regional`); an entry holds only while the
    projection's choice is partitioned by the regions' type (a move that changes the
    partition or gathers the projection drops it)."""

    def reached(self) -> list[str]:
        """The projections the sinks reach through the chosen inputs (inputs first)."""
        found = self.__dict__.get("_reached")
        if found is None:  # a design's mappings are never changed: kept on the instance
            seen: dict[str, None] = {}
            stack = list(self.sinks.values())
            while stack:
                key = stack.pop()
                if key in seen:
                    continue
                seen[key] = None
                stack.extend(self.choices[key].inputs)
            found = tuple(seen)
            object.__setattr__(self, "_reached", found)
        return list(found)

    def alike(
        self,
        *,
        pinned: Mapping[str, Node] | None = None,
        keep_matches: frozenset[str] | None = None,
    ) -> Design:
        """This design with other pins or selector overrides: the same choices, sinks and
        regions, so it takes :meth:`reached` and :meth:`shape` as they are, if known."""
        other = replace(
            self,
            pinned=self.pinned if pinned is None else pinned,
            keep_matches=self.keep_matches if keep_matches is None else keep_matches,
        )
        for name in ("_reached", "_shape"):
            if name in self.__dict__:
                other.__dict__[name] = self.__dict__[name]
        return other

    def signature(self) -> tuple:
        """What determines the placed graph: chosen inputs and partitions, pins, overrides."""
        found = self.__dict__.get("_signature")
        if found is None:
            keys = self.reached()
            found = (
                self.shape(),
                tuple(sorted((k, str(n)) for k, n in self.pinned.items())),
                tuple(sorted(self.keep_matches & set(keys))),
            )
            object.__setattr__(self, "_signature", found)
        return found

    def shape(self) -> tuple:
        """The part of :meth:`signature` that determines :meth:`combination`: chosen inputs
        and partitions, sinks, regional placements."""
        found = self.__dict__.get("_shape")
        if found is None:
            keys = self.reached()  # distinct keys: sorting them alone orders the tuples
            choices, sinks = self.choices, self.sinks
            regions = self.regions_in(keys)
            found = (
                tuple((k, choices[k].inputs, choices[k].partition or "") for k in sorted(keys)),
                tuple((k, sinks[k]) for k in sorted(sinks)),
                tuple((k, regions[k].sites) for k in sorted(regions)),
            )
            object.__setattr__(self, "_shape", found)
        return found

    def regions_in(self, keys: list[str]) -> dict[str, Regions]:
        """The regional placements that hold among ``keys`` (see :attr:`regional`)."""
        return {
            k: r
            for k, r in self.regional.items()
            if k in keys and self.choices[k].partition == r.partition
        }

    def combination(self, pool: Mapping[str, Projection]) -> Combination:
        """The combination this design describes (only what the sinks reach)."""
        keys = self.reached()
        chosen = {k: self.choices[k] for k in keys}
        return Combination(
            projections={k: pool[k] for k in keys},
            inputs={k: c.inputs for k, c in chosen.items() if c.inputs},
            multi_node={k: c.partition for k, c in chosen.items() if c.partition},
            sinks=dict(self.sinks),
            regional=self.regions_in(keys),
        )


@dataclass
class Budget:
    """How many designs the search may place, and until when."""

    evaluations: int
    deadline: float = math.inf
    used: int = 0

    def spent(self) -> bool:
        """Whether no evaluation is left."""
        return self.used >= self.evaluations or time.perf_counter() >= self.deadline


class Evaluator:
    """ψ of designs under Alg. 2's placement, each distinct design placed once.

    **Output selectors by their whole effect.** Alg. 2 gives a projection an output selector
    when its selected events cost less than its matches at its own vertices; the selector
    also makes every consumer receive the unselected types' events, which may cost more than
    it saves (issue 32: a selector turned a 1.93 design into a 4.27 one). So a design with
    selectors is also placed with none (every projection sends its matches), and the cheaper
    of the two is the design's ψ (:meth:`variant` names it); the search's *matches* move
    then turns single selectors off or on.

    **Grown forwarding graphs.** Designs are compared by ψ with Alg. 2's grown forwarding
    graphs, not the minimum trees :func:`~inev.planner.alg2_placement.place` writes out on
    small networks (:mod:`inev.planner.tight_trees`): the search takes the same path as
    without them, and the plan it returns only costs less (compared by the tight ψ the search
    ended once 0.01 % higher, bench_optimality #36).
    """

    def __init__(self, network: Network, pool: Mapping[str, Projection]) -> None:
        self.network = network
        self.pool = pool
        self.memo: dict[tuple, float] = {}
        """ψ per design (the cheaper of it and its selector-free twin)."""
        self.exact: dict[tuple, float] = {}
        """ψ of each design's own placement."""
        self.bounds: dict[tuple, float] = {}
        """A lower bound of ψ of a design's own placement, where the search needed no more
        (``below``); a design in none of the three was never placed."""
        self.nodes: dict[tuple, dict[str, Node]] = {}
        """The node of every single-node projection, per placed design."""
        self.median_memo: dict[tuple, list[Node]] = {}
        self.merge_memo: dict[tuple[str, int], list[Projection]] = {}
        self.combinations: dict[tuple, Combination] = {}
        self.selectors: dict[tuple, bool] = {}
        self.variants: dict[tuple, Design] = {}
        """Per design, the cheaper of it and its selector-free twin (when that is cheaper)."""
        self.placer = Placer(network) if INCREMENTAL else None
        """Alg. 2 re-placing only what a design changes (:mod:`inev.planner.incremental`)."""

    def __call__(
        self, design: Design, budget: Budget | None = None, below: float = math.inf
    ) -> float:
        """ψ of ``design`` (a new design uses one evaluation of ``budget``); with ``below``,
        a value of at least ``below`` may stand for any ψ that is not below it (the local
        search keeps only cheaper designs; see :meth:`Placer.bounded`), else ψ exactly.

        With selectors the design's ψ is the cheaper of its own and its twin's, either of
        which may be a bound (at least ``below``): the twin's exact ψ below the design's
        bound wins; a design's exact ψ below ``below`` wins over the twin's bound; a twin's
        exact ψ below ``below`` but not below the design's bound takes the design's ψ
        exactly; anything else is not below ``below``. Only exact answers are kept in
        :attr:`memo`, and the budget is charged once per design, as without bounds."""
        key = design.signature()
        found = self.memo.get(key)
        if found is not None:
            return found
        found = self._place(design, budget, below)
        if not self._selectors(design):
            if key in self.exact:
                self.memo[key] = found
            return found
        twin = design.alike(keep_matches=frozenset(design.reached()))
        twin_key = twin.signature()
        value = self._place(twin, None, below)
        if twin_key in self.exact and key not in self.exact:
            if value < found * (1 - 1e-12):  # cheaper than the design's bound: the twin wins
                return self._chosen(key, value, twin, twin_key)
            if value < below:  # which is cheaper takes the design's ψ
                found = self._place(design, None)
        if key in self.exact and twin_key not in self.exact and found < below:
            self.memo[key] = found  # the twin's bound is not below ``below``: it cannot win
            return found
        if key not in self.exact or twin_key not in self.exact:
            return min(found, value)  # neither is below ``below``
        if value < found * (1 - 1e-12):
            return self._chosen(key, value, twin, twin_key)
        self.memo[key] = found
        return found

    def _chosen(self, key: tuple, value: float, twin: Design, twin_key: tuple) -> float:
        """The selector-free ``twin`` (ψ ``value``) stands for the design ``key``."""
        self.variants[key] = twin
        self.nodes[key] = self.nodes[twin_key]
        self.memo[key] = value
        return value

    def _place(self, design: Design, budget: Budget | None, below: float = math.inf) -> float:
        """ψ of ``design``'s own placement (its first placement uses one evaluation of
        ``budget``); with ``below`` possibly only a bound of at least ``below``."""
        key = design.signature()
        found = self.memo.get(key)
        if found is None:
            found = self.exact.get(key)
        if found is not None:
            return found
        bound = self.bounds.get(key)
        if bound is not None:
            if bound >= below:
                return bound
        else:
            if budget is not None:
                budget.used += 1
            progress.advance()
        combination = self.combination(design)
        if self.placer is not None and below < math.inf:
            found, nodes = self.placer.bounded(
                combination, design.pinned, frozenset(design.keep_matches), below
            )
        elif self.placer is not None:
            found, nodes = self.placer(combination, design.pinned, frozenset(design.keep_matches))
        else:
            found, nodes = placement_cost(
                self.network,
                combination,
                design.pinned,
                frozenset(design.keep_matches),
                with_nodes=True,
                tight=False,
            )
        if nodes is None:
            self.bounds[key] = found
            return found
        self.bounds.pop(key, None)
        self.exact[key] = found
        self.nodes[key] = nodes
        return found

    def combination(self, design: Design) -> Combination:
        """``design.combination(pool)``, one object for every design of the same
        :meth:`Design.shape` (designs that differ by pins or selectors share it, and so
        does the placer's work that depends on it alone, :meth:`Placer.bounded`)."""
        shape = design.shape()
        found = self.combinations.get(shape)
        if found is None:
            if len(self.combinations) >= MAX_COMBINATIONS:
                self.combinations.clear()
            found = self.combinations[shape] = design.combination(self.pool)
        return found

    def _selectors(self, design: Design) -> bool:
        """Whether Alg. 2 gives a projection of ``design`` an output selector (kept per
        design without its pins, on which it does not depend)."""
        shape, _, keep = design.signature()
        found = self.selectors.get((shape, keep))
        if found is None:
            if len(self.selectors) >= MAX_COMBINATIONS:
                self.selectors.clear()
            combination = self.combination(design)
            keep = frozenset(design.keep_matches)
            if self.placer is not None and not combination.regional:
                found = self.placer.selects(combination, keep)  # from the placement's prelude
            else:
                found = uses_selectors(self.network, combination, keep)
            self.selectors[(shape, keep)] = found
        return found

    def medians(self, types: frozenset[str], alone: bool = True) -> list[Node]:
        """The rate-weighted 1-median of the sources of ``types`` together and, with
        ``alone``, of each type's own sources (cached; first in node order on ties)."""
        key = (types, alone)
        found = self.median_memo.get(key)
        if found is None:
            groups = [sorted(types)] + ([[t] for t in sorted(types)] if alone else [])
            found = list(dict.fromkeys(centralized_node(self.network, g)[0] for g in groups))
            self.median_memo[key] = found
        return found

    def mergeable(self, key: str) -> list[Projection]:
        """:func:`_mergeable` of the pool for ``key``, kept per pool size (a pool only
        grows: the searches add projections, never change or drop one)."""
        ck = (key, len(self.pool))
        found = self.merge_memo.get(ck)
        if found is None:
            found = self.merge_memo[ck] = merge_candidates(self.pool, key)
        return found

    def variant(self, design: Design) -> Design:
        """The design whose placement gives ``design``'s ψ (itself or its selector-free twin)."""
        return self.variants.get(design.signature(), design)


def improve(
    evaluate: Evaluator,
    options: Mapping[str, list[Choice]],
    start: Design,
    budget: Budget,
    repartition: bool = False,
    focus: frozenset[str] | None = None,
) -> tuple[Design, float]:
    """The best design reached from ``start`` by first-improvement local search, and its ψ;
    with ``repartition`` by the *partition* moves alone; with ``focus`` only moves of those
    projections (the incremental repair, :mod:`inev.planner.repair_search`)."""
    cost = evaluate(start, budget)
    current = evaluate.variant(start)
    while not budget.spent():
        nodes = evaluate.nodes.get(current.signature(), {})
        moves = _neighbours(evaluate, options, current, nodes, repartition, focus)
        for neighbour in moves:
            if budget.spent():
                break
            value = evaluate(neighbour, budget, cost * (1 - 1e-9))
            if value < cost * (1 - 1e-9):
                current, cost = evaluate.variant(neighbour), value
                break
        else:
            break
    return current, cost


def _neighbours(
    evaluate: Evaluator,
    options: Mapping[str, list[Choice]],
    design: Design,
    nodes: Mapping[str, Node],
    repartition: bool = False,
    focus: frozenset[str] | None = None,
) -> Iterator[Design]:
    """Neighbouring designs, move by move (switch, drop, merge, gather, flatten, matches,
    co-locate; with ``repartition`` partition alone; see the module docstring), the
    projections with the most expensive inputs first within each move; with ``focus``
    only moves that change those projections."""
    pool = evaluate.pool
    keys = [k for k in design.reached() if design.choices[k].inputs]
    if focus is not None:
        keys = [k for k in keys if k in focus]
    weight = {k: sum(pool[i].rate for i in design.choices[k].inputs) for k in keys}
    keys.sort(key=lambda k: -weight[k])
    if repartition:
        yield from _repartitions(evaluate, design, keys)
        return
    yield from _switches(options, design, keys)
    yield from _drops(design, keys)
    for key in keys:
        yield from _merges(pool, design, key, evaluate.mergeable(key))
    yield from _gathers(design, keys)
    yield from _flattens(pool, design, keys)
    for key in keys:
        yield design.alike(keep_matches=frozenset(design.keep_matches ^ {key}))
    singles = [k for k in keys if k in nodes]
    yield from _colocations(design, singles, nodes)
    yield from _medians(evaluate, design, singles, nodes)


def _switches(
    options: Mapping[str, list[Choice]], design: Design, keys: list[str]
) -> Iterator[Design]:
    """Each projection with each other option Alg. 1 found for it."""
    for key in keys:
        current = design.choices[key]
        for option in options.get(key, ()):
            if (option.inputs, option.partition) != (current.inputs, current.partition):
                yield _with(design, key, option)


def _drops(design: Design, keys: list[str]) -> Iterator[Design]:
    """Each non-sink projection dropped (its consumers take its inputs)."""
    sinks = set(design.sinks.values())
    for key in keys:
        if key not in sinks:
            dropped = _drop(design, key)
            if dropped is not None:
                yield dropped


def _gathers(design: Design, keys: list[str]) -> Iterator[Design]:
    """Each multi-node projection placed on a single node instead."""
    for key in keys:
        current = design.choices[key]
        if current.partition is not None:
            yield _with(design, key, replace(current, partition=None))


def _repartitions(evaluate: Evaluator, design: Design, keys: list[str]) -> Iterator[Design]:
    """The *partition* moves: each projection at another partitioning type, then each merge
    with its covering projection partitioned at each of its types (a merge that pays only
    with its input multi-node is two moves, the first uphill)."""
    pool = evaluate.pool
    yield from _partitions(pool, design, keys)
    for key in keys:
        for merged in _merges(pool, design, key, evaluate.mergeable(key)):
            yield from _partitions(pool, merged, [merged.choices[key].inputs[-1]])


def _partitions(
    pool: Mapping[str, Projection], design: Design, keys: list[str]
) -> Iterator[Design]:
    """Each projection partitioned by each positive type it is not partitioned by (a query's
    sink never by a Kleene type, as in Alg. 1): inputs without the type, the type, and the
    types only the dropped inputs covered; a regional placement at every source instead."""
    sinks = set(design.sinks.values())
    for key in keys:
        current = design.choices[key]
        p = pool[key]
        banned = kleene_types(p.pattern) if key in sinks else frozenset()
        for c in sorted(p.positive - banned):
            if c == current.partition and key in design.regional:  # regional -> every source
                yield replace(
                    design, regional={k: r for k, r in design.regional.items() if k != key}
                )
            if c == current.partition or c not in design.choices:
                continue
            kept = [i for i in current.inputs if c not in pool[i].types]
            covered = {t for i in kept for t in pool[i].types} | {c}
            missing = sorted(p.types - covered)
            if not all(t in design.choices for t in missing):
                continue
            inputs = (*kept, *missing, c)
            yield _with(design, key, replace(current, inputs=inputs, partition=c, items={}))


def _flattens(pool: Mapping[str, Projection], design: Design, keys: list[str]) -> Iterator[Design]:
    """Each projection taking its primitive types directly."""
    for key in keys:
        current = design.choices[key]
        flat = tuple(sorted(pool[key].types))
        if set(current.inputs) != set(flat) and all(t in design.choices for t in flat):
            yield _with(design, key, replace(current, inputs=flat, items={}))


def _colocations(design: Design, singles: list[str], nodes: Mapping[str, Node]) -> Iterator[Design]:
    """Each single-node projection pinned to another single-node projection's node."""
    for key in singles:
        for other in singles:
            if other != key and nodes[other] != nodes[key]:
                yield design.alike(pinned={**design.pinned, key: nodes[other]})


def _medians(
    evaluate: Evaluator, design: Design, singles: list[str], nodes: Mapping[str, Node]
) -> Iterator[Design]:
    """Single-node projections moved, alone or two at a time, to a node the cost could
    favour that no projection holds yet: the rate-weighted 1-median of the sources of each
    of their input types and of all of them together (for two projections, of the types of
    both). Two consumers of the same events may do best together at a third node."""
    types = {k: _input_types(evaluate.pool, design, k) for k in singles}
    for key in singles:
        for m in evaluate.medians(types[key]):
            if m != nodes[key]:
                yield design.alike(pinned={**design.pinned, key: m})
    for i, a in enumerate(singles):
        for b in singles[i + 1 :]:
            if not types[a] & types[b]:
                continue
            for m in evaluate.medians(types[a] | types[b], alone=False):
                if m != nodes[a] or m != nodes[b]:
                    yield design.alike(pinned={**design.pinned, a: m, b: m})


def _input_types(pool: Mapping[str, Projection], design: Design, key: str) -> frozenset[str]:
    """The event types of a projection's inputs (all of its types, as its inputs cover it)."""
    return frozenset(t for i in design.choices[key].inputs for t in pool[i].types)


def _with(design: Design, key: str, choice: Choice) -> Design:
    choices = dict(design.choices)
    choices[key] = choice
    pinned = {k: v for k, v in design.pinned.items() if k != key}
    return replace(design, choices=choices, pinned=pinned)


def _merges(pool: Mapping[str, Projection], design: Design, key: str,
            candidates: list[Projection] | None = None) -> Iterator[Design]:  # fmt: skip
    """Designs where ``key`` takes one covering projection for several (or wider) inputs
    (``candidates``: :func:`_mergeable`'s, if known)."""
    choice = design.choices[key]
    for p in merge_candidates(pool, key) if candidates is None else candidates:
        if choice.partition in p.types or p.key in choice.inputs:
            continue
        covered = [i for i in choice.inputs if i != choice.partition and pool[i].types <= p.types]
        if not covered:
            continue
        if p.key not in design.choices:
            continue
        inputs = (*(i for i in choice.inputs if i not in covered), p.key)
        yield _with(design, key, replace(choice, inputs=inputs, items={}))


def _drop(design: Design, key: str) -> Design | None:
    """Consumers of ``key`` take its inputs instead (None if ``key`` has no consumer)."""
    inner = design.choices[key].inputs
    choices = dict(design.choices)
    touched = False
    for other in design.reached():
        ch = choices[other]
        if key not in ch.inputs:
            continue
        merged = [i for i in ch.inputs if i != key]
        merged += [i for i in inner if i not in merged and i != ch.partition]
        if ch.partition is not None and ch.partition not in merged:
            merged.append(ch.partition)
        choices[other] = replace(ch, inputs=tuple(merged), items={})
        touched = True
    if not touched:
        return None
    return replace(design, choices=choices)
