"""Queries and workloads: pattern, window, pairwise selectivities, predicates, aggregates.

A pair's selectivity comes from one of two places. **Declared** (``selectivity`` in the
file): a predicate the workload only describes by its selectivity; simulation realises it
by the deterministic hash predicate of :mod:`inev.simulator.engine.events`. **Measured**
(``where_selectivity``): the selectivity of the ``where`` conjuncts between the two types,
measured on a trace (``inev workload estimate``); the ``where`` clause itself decides in
evaluation, so no hash predicate is added. The planner's rate model uses both
(:attr:`Query.selectivity`); a pair is in one of them at most.

>>> w = Workload.build(window=1.0, queries=[
...     Query.build("q1", "SEQ(A, B)", selectivity={"A B": 0.1})])
>>> w.queries[0].selectivity_of("B", "A")
0.1
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from inev.common.errors import InevError
from inev.common.words import listing
from inev.topologies.network import Network
from inev.topologies.network_entries import check_type_name
from inev.workloads.expressions import (
    Aggregate,
    Compare,
    Condition,
    Logic,
    Not,
    condition_attributes,
    conjuncts,
    parse_aggregate,
    parse_condition,
)
from inev.workloads.pattern import (
    Operator,
    Pattern,
    Primitive,
    event_types,
    kleene_types,
    negated_types,
    split_or,
    streams,
    validate_pattern,
)
from inev.workloads.rates import Pair, log2_rate, pair, rate, windowed_rate
from inev.workloads.syntax import parse_pattern


def _positive_number(value: object, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise InevError(f"{what} must be a positive number, got {value!r}")
    return float(value)


def _check_where(label: str, condition: Condition, tree: Pattern) -> None:
    """A where clause names only the pattern's types, and NEXT only of Kleene types."""
    types, kleene = set(event_types(tree)), kleene_types(tree)
    for attribute in condition_attributes(condition):
        if attribute.type not in types:
            raise InevError(f"{label}: where clause names type {attribute.type} not in the pattern")
        if attribute.next and attribute.type not in kleene:
            raise InevError(f"{label}: NEXT({attribute.type}) needs {attribute.type} under KL")
        if attribute.position is not None and attribute.type not in kleene:
            raise InevError(f"{label}: {attribute} needs {attribute.type} under KL")
    for item in conjuncts(condition):
        found = condition_attributes(item)
        if any(a.next for a in found) and any(a.position is not None for a in found):
            raise InevError(
                f"{label}: where conjunct {item} compares consecutive elements (NEXT) and fixed "
                "positions at once; write them as two conjuncts"
            )


def _check_variables(label: str, tree: Pattern) -> None:
    """A variable's name is no event type of the query (it would read that type's stream)."""
    found = streams(tree)
    read = {node.event_type for node in _leaves(tree)}
    for variable, stream in found.items():
        check_type_name(stream, where=f"{label}: event type")
        if variable in read:
            raise InevError(
                f"{label}: variable {variable} has the name of an event type the query reads; "
                "rename it"
            )


def _leaves(tree: Pattern) -> list[Primitive]:
    out: list[Primitive] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Primitive):
            out.append(node)
        else:
            stack.extend(node.children)
    return out


def _check_return(label: str, aggregate: Aggregate, tree: Pattern) -> None:
    """A return clause aggregates a type of the pattern that is not negated."""
    if aggregate.type is None:
        return
    if aggregate.type not in set(event_types(tree)):
        raise InevError(f"{label}: return clause names type {aggregate.type} not in the pattern")
    if aggregate.type in negated_types(tree):
        raise InevError(f"{label}: return clause aggregates the negated type {aggregate.type}")


def _selectivities(
    label: str, given: Mapping[Any, float] | None, types: set[str]
) -> dict[Pair, float]:
    pairs: dict[Pair, float] = {}
    if given is not None and not isinstance(given, Mapping):
        raise InevError(f"{label}: selectivities must be an object")
    for key, value in (given or {}).items():
        if isinstance(key, str):
            parts = key.split()
        elif isinstance(key, tuple):
            parts = list(key)
        else:
            raise InevError(f"{label}: selectivity key {key!r} must be 'A B'")
        if len(parts) != 2 or parts[0] == parts[1]:
            raise InevError(f"{label}: selectivity key {key!r} must name two different types")
        for t in parts:
            if t not in types:
                raise InevError(f"{label}: selectivity {key!r} names type {t} not in the pattern")
        if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value <= 1):
            raise InevError(f"{label}: selectivity {key!r} = {value!r} is outside (0, 1]")
        k = pair(parts[0], parts[1])
        if k in pairs:
            raise InevError(f"{label}: selectivity of {' '.join(k)} is given twice")
        pairs[k] = float(value)
    return pairs


@dataclass(frozen=True)
class Query:
    """One CEP query: an operator tree with pairwise selectivities, predicates and weight.

    Build one with :meth:`Query.build`, which parses and validates.

    Parameters
    ----------
    name : str
    pattern : Pattern
        The operator tree (SEQ, AND, OR, KL, NSEQ over primitive types).
    selectivities : tuple of ((str, str), float)
        Pairwise selectivities; a pair left out is 1.
    where, returns : Condition or Aggregate, optional
        The ``where`` predicate and the ``return`` aggregate.
    group_by : tuple of str
    weight : float
        The query's weight in weighted figures (false negatives under shedding).
    measured : frozenset of (str, str)
        Pairs of ``selectivities`` measured from the ``where`` clause.

    Examples
    --------
    r(q) of the paper's rate model (:mod:`inev.workloads.rates`): a SEQ of two types is
    σ · r(A) · r(B) = 0.5 · 2 · 3, an AND counts both orders, twice that.

    >>> q = Query.build("q", "SEQ(A, B)", {"A B": 0.5})
    >>> q.types, q.selectivity_of("B", "A"), q.rate({"A": 2.0, "B": 3.0})
    (('A', 'B'), 0.5, 3.0)
    >>> Query.build("q", "AND(A, B)", {"A B": 0.5}).rate({"A": 2.0, "B": 3.0})
    6.0
    """

    name: str
    pattern: Pattern
    selectivities: tuple[tuple[Pair, float], ...] = ()
    where: Condition | None = None
    returns: Aggregate | None = None
    group_by: tuple[str, ...] = ()
    weight: float = 1.0
    measured: frozenset[Pair] = frozenset()
    """Pairs of ``selectivities`` measured from the ``where`` clause (module docstring)."""
    _sel: dict[Pair, float] = field(default_factory=dict, init=False, repr=False, compare=False)
    _types: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _streams: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sel", dict(self.selectivities))
        object.__setattr__(self, "_types", event_types(self.pattern))
        object.__setattr__(self, "_streams", streams(self.pattern))

    def __hash__(self) -> int:
        """The dataclass hash of the compared fields, computed once: queries key the
        planner's memos (projections, shapes), whose look-ups would otherwise hash the
        whole pattern, selectivities and predicates each time."""
        found = self.__dict__.get("_hash")
        if found is None:
            found = hash(
                (
                    self.name,
                    self.pattern,
                    self.selectivities,
                    self.where,
                    self.returns,
                    self.group_by,
                    self.weight,
                    self.measured,
                )
            )
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict:
        """The fields without the kept hash (string hashes differ between processes)."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @classmethod
    def build(
        cls,
        name: str,
        pattern: str | Pattern,
        selectivity: Mapping[str, float] | Mapping[Pair, float] | None = None,
        where: str | Condition | None = None,
        returns: str | Aggregate | None = None,
        group_by: Iterable[str] = (),
        weight: float = 1.0,
        where_selectivity: Mapping[str, float] | Mapping[Pair, float] | None = None,
    ) -> Query:
        """Parse and validate a query; selectivity keys are ``"A B"`` strings or pairs.

        ``where_selectivity`` holds measured selectivities of the ``where`` conjuncts between
        two types (see the module docstring); a pair may not be in both.
        """
        if not isinstance(name, str) or not name.strip():
            raise InevError(f"query name must be a non-empty string, got {name!r}")
        where_label = f"query {name}"
        for label, value, kinds in (
            ("pattern", pattern, (str, Primitive, Operator)),
            ("where clause", where, (str, Compare, Logic, Not, type(None))),
            ("return clause", returns, (str, Aggregate, type(None))),
        ):
            if not isinstance(value, kinds):
                raise InevError(
                    f"{where_label}: {label} must be a string, got {type(value).__name__}"
                )
        tree = parse_pattern(pattern) if isinstance(pattern, str) else pattern
        validate_pattern(tree, where=f"query {name}", aggregation=returns is not None)
        for t in event_types(tree):
            check_type_name(t, where=f"query {name}: event type")
        _check_variables(f"query {name}", tree)
        types = set(event_types(tree))
        pairs = _selectivities(where_label, selectivity, types)
        measured = _selectivities(where_label, where_selectivity, types)
        for k in measured:
            if k in pairs:
                raise InevError(
                    f"{where_label}: pair {' '.join(k)} has both a declared and a where"
                    " selectivity; keep one"
                )
        condition = parse_condition(where) if isinstance(where, str) else where
        if measured and condition is None:
            raise InevError(f"{where_label}: where_selectivity needs a where clause")
        pairs.update(measured)
        if condition is not None:
            _check_where(where_label, condition, tree)
        aggregate = parse_aggregate(returns) if isinstance(returns, str) else returns
        if aggregate is not None:
            _check_return(where_label, aggregate, tree)
        groups = tuple(group_by)
        for g in groups:
            if not isinstance(g, str) or not g:
                raise InevError(
                    f"{where_label}: group_by entries must be attribute names, got {g!r}"
                )
        return cls(
            name=name,
            pattern=tree,
            selectivities=tuple(sorted(pairs.items())),
            where=condition,
            returns=aggregate,
            group_by=groups,
            weight=_positive_number(weight, f"{where_label}: weight"),
            measured=frozenset(measured),
        )

    # ------------------------------------------------------------------ views
    @property
    def types(self) -> tuple[str, ...]:
        """E(q): the event types of the query, left to right (computed once)."""
        return self._types

    @property
    def streams(self) -> dict[str, str]:
        """``{variable: event type}`` of the pattern's variables (``GOOG a``); a leaf that is
        no variable reads its own type's stream."""
        return self._streams

    def stream_of(self, name: str) -> str:
        """The event type whose events the leaf ``name`` matches."""
        return self._streams.get(name, name)

    @property
    def event_types(self) -> tuple[str, ...]:
        """The event types whose events the query reads (each once, in first-use order)."""
        return tuple(dict.fromkeys(self.stream_of(t) for t in self._types))

    @cached_property
    def negated(self) -> frozenset[str]:
        """The leaves that must be absent (:func:`~inev.workloads.pattern.negated_types` of
        the pattern), computed once per query.

        Choice: a cached attribute rather than the function's cache keyed on the pattern,
        which hashes the whole tree on each call (about 50 times the attribute's cost on a
        ten-leaf pattern, measured with ``timeit``).

        >>> Query.build("q", "SEQ(A, NOT(B), C)").negated
        frozenset({'B'})
        """
        return negated_types(self.pattern)

    @cached_property
    def kleene(self) -> frozenset[str]:
        """The leaves under a KL operator (:func:`~inev.workloads.pattern.kleene_types` of
        the pattern), computed once per query (see :attr:`negated`).

        >>> sorted(Query.build("q", "SEQ(A, KL(B), C)").kleene)
        ['B']
        """
        return kleene_types(self.pattern)

    @cached_property
    def branches(self) -> tuple[Pattern, ...]:
        """The OR-free patterns of the query (§3.2, :func:`~inev.workloads.pattern.split_or`),
        computed once per query: the one place a query's OR is split (see :attr:`negated`);
        :attr:`Workload.or_free` and the trace checks read it.

        >>> [str(p) for p in Query.build("q", "SEQ(A, OR(B, KL(C)))").branches]
        ['SEQ(A, B)', 'SEQ(A, KL(C))']
        """
        return tuple(split_or(self.pattern))

    @property
    def selectivity(self) -> dict[Pair, float]:
        """Pairwise selectivities keyed by sorted pairs (missing pairs are 1.0)."""
        return self._sel

    @property
    def realised_selectivity(self) -> dict[Pair, float]:
        """The declared selectivities only: those simulation realises by a hash predicate."""
        if not self.measured:
            return self._sel
        return {k: v for k, v in self._sel.items() if k not in self.measured}

    @property
    def where_selectivity(self) -> dict[Pair, float]:
        """The measured selectivities of the ``where`` conjuncts."""
        return {k: v for k, v in self._sel.items() if k in self.measured}

    def selectivity_of(self, a: str, b: str) -> float:
        """Selectivity of the predicate between types ``a`` and ``b`` (1.0 if none)."""
        return self._sel.get(pair(a, b), 1.0)

    def rate(self, rates: Mapping[str, float]) -> float:
        """r(q) under per-type rates (local rates give r(q), global rates R(q))."""
        return rate(self.pattern, rates, self._sel)

    def log2_rate(self, rates: Mapping[str, float]) -> float:
        """log2 of :meth:`rate`, exact for Kleene patterns whose rate overflows a float."""
        return log2_rate(self.pattern, rates, self._sel)

    def __str__(self) -> str:
        return f"{self.name}: {self.pattern}"


DEFAULT_TIES = "strict"
"""The tie rule of a workload (and an engine) not told another: events of equal time are in no
order."""
DEFAULT_SELECTIVITY_SEED = 0
"""The seed of a workload's predicates (:attr:`Workload.selectivity_seed`) not told another."""
TIES = (DEFAULT_TIES, "any")
"""The tie rules of a workload: events of equal time are in no order (``strict``, the
default) or in either order (``any``); see :mod:`inev.simulator.engine.constraints`."""


@dataclass(frozen=True)
class Workload:
    """A set of queries over one time window (and optional slide).

    Build one with :meth:`Workload.build`, which validates.

    Parameters
    ----------
    window : float
        The time window of every query.
    queries : tuple of Query
    slide : float, optional
        The window's slide (None: a window per event).
    selectivity_seed : int
        Fixes the single selectivities used for output selection.
    ties : str
        The tie rule for events of equal time (see :data:`TIES`).

    Examples
    --------
    >>> wl = Workload.build(2.0, [Query.build("q", "SEQ(A, B)"), Query.build("r", "AND(C, A)")])
    >>> wl.types, str(wl.query("r"))
    (('A', 'B', 'C'), 'r: AND(C, A)')
    >>> Workload.build(2.0, [Query.build("q", "A"), Query.build("q", "B")])
    Traceback (most recent call last):
    inev.common.errors.InevError: workload: query name 'q' is used twice
    """

    window: float
    queries: tuple[Query, ...]
    slide: float | None = None
    selectivity_seed: int = DEFAULT_SELECTIVITY_SEED
    ties: str = DEFAULT_TIES

    @classmethod
    def build(
        cls,
        window: float,
        queries: Iterable[Query],
        slide: float | None = None,
        selectivity_seed: int = DEFAULT_SELECTIVITY_SEED,
        ties: str = DEFAULT_TIES,
    ) -> Workload:
        """Validate a workload: a positive window, unique names, at least one query, a
        known tie rule, and variables that name one event type each across the queries
        (a variable is a stream of its type: the planner plans it under its name)."""
        w = _positive_number(window, "workload window")
        s = None if slide is None else _positive_number(slide, "workload slide")
        qs = tuple(queries)
        if not qs:
            raise InevError("workload has no queries")
        names = [q.name for q in qs]
        for n in names:
            if names.count(n) > 1:
                raise InevError(f"workload: query name {n!r} is used twice")
        if isinstance(selectivity_seed, bool) or not isinstance(selectivity_seed, int):
            raise InevError(
                f"workload: selectivity_seed must be an integer, got {selectivity_seed!r}"
            )
        if ties not in TIES:
            raise InevError(f"workload: ties must be one of {', '.join(TIES)}, got {ties!r}")
        aggregating = [q.name for q in qs if q.returns is not None]
        if ties == "any" and aggregating:
            raise InevError(
                f"workload: ties 'any' with the return clause of query {aggregating[0]}: GRETA "
                "orders a trend's events strictly (its Definition 1), so aggregation keeps "
                "ties 'strict'"
            )
        _check_streams(qs)
        return cls(window=w, queries=qs, slide=s, selectivity_seed=selectivity_seed, ties=ties)

    @property
    def streams(self) -> dict[str, str]:
        """``{variable: event type}`` over every query (one type per variable name)."""
        out: dict[str, str] = {}
        for q in self.queries:
            out.update(q.streams)
        return out

    @property
    def event_types(self) -> tuple[str, ...]:
        """The event types the queries read (variables resolved), in first-use order."""
        return tuple(dict.fromkeys(t for q in self.queries for t in q.event_types))

    @property
    def types(self) -> tuple[str, ...]:
        """Leaf names (event types and variables) used by any query, in first-use order."""
        return tuple(dict.fromkeys(t for q in self.queries for t in q.types))

    def query(self, name: str) -> Query:
        """The query called ``name``."""
        for q in self.queries:
            if q.name == name:
                return q
        raise InevError(f"workload has no query {name!r}")

    def check_network(self, network: Network, files: tuple[str, str] | None = None) -> None:
        """Raise :class:`InevError` if a query uses an event type the network lacks (a
        variable's type included), or names a variable like one of the network's types; the
        message names ``files`` (the workload's and the network's) and the network's types.

        >>> wl = Workload.build(window=1.0, queries=[Query.build("q1", "SEQ(A, Z)")])
        >>> net = Network.build([0], [], {"A": (1.0, [0]), "B": (2.0, [0])})
        >>> wl.check_network(net, ("wl.json", "net.json"))
        Traceback (most recent call last):
        ...
        inev.common.errors.InevError: wl.json: query q1 uses event type Z, which net.json does not have (its types: A, B)
        """
        where, net = (f"{files[0]}: ", files[1]) if files else ("", "the network")
        for q in self.queries:
            for t in q.types:
                stream = q.stream_of(t)
                if stream not in network.event_types:
                    known = listing(sorted(network.event_types), limit=30)
                    raise InevError(
                        f"{where}query {q.name} uses event type {stream}, which {net} does not "
                        f"have (its types: {known})"
                    )
                if t != stream and t in network.event_types:
                    raise InevError(
                        f"{where}query {q.name}: variable {t} has the name of an event type of "
                        f"{net}; rename it"
                    )

    @cached_property
    def or_free(self) -> Workload:
        """The OR-free workload of §3.2, computed once per workload (an OR-free workload's own
        is itself): a query with OR becomes one query per branch (:attr:`Query.branches`),
        named ``q/1``, ``q/2``, … and keeping the selectivities over its own types; queries
        without OR keep their name. Later layers take it from a prepared
        :class:`~inev.workloads.instance.Instance` or read it here.

        >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, OR(B, C))", {"A B": 0.5})])
        >>> [str(q) for q in wl.or_free.queries], wl.or_free.or_free is wl.or_free
        (['q/1: SEQ(A, B)', 'q/2: SEQ(A, C)'], True)
        >>> [q.selectivities for q in wl.or_free.queries]
        [((('A', 'B'), 0.5),), ()]
        """
        out: list[Query] = []
        for q in self.queries:
            variants = q.branches
            if len(variants) == 1:
                out.append(q)
                continue
            for i, variant in enumerate(variants, start=1):
                types = set(event_types(variant))
                sel = tuple((k, v) for k, v in q.selectivities if set(k) <= types)
                out.append(replace(q, name=f"{q.name}/{i}", pattern=variant, selectivities=sel))
        split = replace(self, queries=tuple(out))
        split.__dict__.setdefault("or_free", split)
        return split

    def describe(self, network: Network | None = None) -> list[dict[str, Any]]:
        """One dictionary per query with its pattern and, given a network, its rates."""
        rows = []
        for q in self.queries:
            row: dict[str, Any] = {"name": q.name, "pattern": str(q.pattern), "types": len(q.types)}
            if network is not None:
                local = with_streams(network.local_rates(), q.streams)
                global_ = with_streams(network.global_rates(), q.streams)
                row["rate"] = windowed_rate(q.pattern, local, q.selectivity, self.window)
                row["global_rate"] = windowed_rate(q.pattern, global_, q.selectivity, self.window)
                row["log2_global_rate"] = q.log2_rate(global_)
            rows.append(row)
        return rows


def with_streams(rates: Mapping[str, float], variables: Mapping[str, str]) -> dict[str, float]:
    """``rates`` per event type, with each variable given its type's rate (a variable is a
    stream of its type).

    >>> with_streams({"GOOG": 2.0}, {"a": "GOOG"})
    {'GOOG': 2.0, 'a': 2.0}
    """
    out = dict(rates)
    for variable, stream in variables.items():
        if stream in rates:
            out[variable] = rates[stream]
    return out


def _check_streams(queries: tuple[Query, ...]) -> None:
    """One event type per variable name across queries, and no variable named like a type
    another query reads."""
    bound: dict[str, tuple[str, str]] = {}
    read: dict[str, str] = {}
    for q in queries:
        for t in q.event_types:
            read.setdefault(t, q.name)
        for variable, stream in q.streams.items():
            other = bound.setdefault(variable, (stream, q.name))
            if other[0] != stream:
                raise InevError(
                    f"workload: variable {variable} is {other[0]} in query {other[1]} and "
                    f"{stream} in query {q.name}; a variable names one event type in a "
                    "workload (it is planned as a stream of that type)"
                )
    for variable, (_, name) in bound.items():
        if variable in read:
            raise InevError(
                f"workload: variable {variable} of query {name} has the name of an event type "
                f"query {read[variable]} reads; rename it"
            )
