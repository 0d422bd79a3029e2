"""Selection strategies and consumption policies of the engine (beyond skip-till-any-match).

The engine's default is **skip-till-any-match** (INEv §3.2): every combination of events
that satisfies the pattern is a match. That is what the planner's rate model counts, and
the only strategy ``inev simulate`` runs. ``inev match`` and :class:`.engine.Engine` also
take (a :class:`Selection`):

* ``contiguous`` (**strict contiguity**): a match's events are consecutive in the engine's
  input, the events of the query's event types in stream order (no event of those types
  lies between them; an event read by two variables counts once);
* ``partition:ATTR`` (**partition contiguity**): the match's events share their value of
  attribute ``ATTR`` and are consecutive among the events with that value;
* ``next`` (**skip-till-next-match**): order a match's events by their place in the input;
  each event after the first is the *first* event of its leaf's type, after the event
  before it, that satisfies every predicate between its leaf and the leaves bound before
  it (and the window): irrelevant events are skipped, relevant ones never are. Patterns
  with a Kleene closure are refused (a trend would take every relevant event);
* ``consume`` (leaves, or ``all``): an event bound to one of these leaves is part of one
  match at most, the first emitted (matches completed by one event are taken in the order
  of their events' places in the input);
* ``freeze`` (leaves; OpenCEP's policy): while an event of a freezing leaf is neither in an
  emitted match nor older than the window, new events of that leaf and of the leaves the
  pattern orders before it are ignored.

The strategies are checked on the matches the engine builds under skip-till-any-match (a
filter: they select among its matches, so its partial matches are built first);
consumption and freezing act as matches are emitted. Under ``ties: any`` the input order
of events of equal time is the order they reach the engine.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.workloads.expressions import condition_attributes, evaluate

STRATEGIES = ("any", "next", "contiguous", "partition")


@dataclass(frozen=True)
class Selection:
    """Which matches the engine keeps (module docstring). ``strategy`` is ``any``,
    ``next``, ``contiguous`` or ``partition`` (with the ``partition`` attribute);
    ``consume`` the leaves whose events serve one match (``{"*"}``: every leaf);
    ``freeze`` the freezing leaves."""

    strategy: str = "any"
    partition: str | None = None
    consume: frozenset[str] = frozenset()
    freeze: frozenset[str] = frozenset()

    @property
    def default(self) -> bool:
        """Whether this is plain skip-till-any-match."""
        return self.strategy == "any" and not self.consume and not self.freeze


def parse_selection(
    strategy: str = "any", consume: Iterable[str] = (), freeze: Iterable[str] = ()
) -> Selection:
    """The :class:`Selection` of ``--strategy``, ``--consume`` and ``--freeze``.

    >>> parse_selection("partition:bid", ["b"]).partition
    'bid'
    >>> parse_selection("sometimes")
    Traceback (most recent call last):
    inev.common.errors.InevError: strategy must be any, next, contiguous or partition:ATTR, got 'sometimes'
    """
    name, _, attribute = strategy.partition(":")
    if name not in STRATEGIES or (name == "partition") != bool(attribute):
        raise InevError(
            f"{option('strategy')} must be any, next, contiguous or partition:ATTR, got "
            + repr(strategy)
        )
    leaves = frozenset(consume)
    if "all" in leaves:
        leaves = frozenset({"*"})
    return Selection(name, attribute or None, leaves, frozenset(freeze))


@dataclass
class Selector:
    """One engine's selection state: input places, consumed events, active freezers."""

    selection: Selection
    window: float
    streams: Mapping[str, str]
    order: Mapping[str, frozenset[str]]
    """Per freezing leaf, the leaves it freezes (itself and those ordered before it)."""
    places: dict[tuple[str, Any], tuple[float, int, Any]] = field(default_factory=dict)
    position: int = 0
    last: Any = None
    partitions: dict[Any, int] = field(default_factory=dict)
    consumed: dict[tuple[str, Any], float] = field(default_factory=dict)
    freezers: list[Any] = field(default_factory=list)
    history: dict[str, tuple[list[float], list[Any]]] = field(default_factory=dict)
    next_purge: float = float("-inf")

    def key(self, event: Any) -> tuple[str, Any]:
        """An event's identity: its stream and id (a variable's copy is the same event)."""
        return (self.streams.get(event[1], event[1]), event[3])

    # ------------------------------------------------------------------ input
    def drop(self, event: Any) -> bool:
        """Whether an arriving event is ignored (a freezer holds its leaf); registers it
        as a freezer otherwise, when its leaf freezes."""
        if not self.selection.freeze:
            return False
        t = event[0]
        window = self.window
        self.freezers = [f for f in self.freezers if t - f[0] <= window]
        leaf = event[1]
        if any(leaf in self.order.get(f[1], ()) for f in self.freezers):
            return True
        if leaf in self.selection.freeze:
            self.freezers.append(event)
        return False

    def see(self, event: Any) -> None:
        """Record an arriving event's place in the input (and its partition's)."""
        t = event[0]
        key = self.key(event)
        if key != self.last:
            self.last = key
            self.position += 1
            part = None
            if self.selection.partition is not None:
                part = _attribute(event, self.selection.partition)
                self.partitions[part] = self.partitions.get(part, 0) + 1
                place = self.partitions[part]
            else:
                place = self.position
            self.places[key] = (t, place, part)
            if self.selection.strategy == "next":
                stream = key[0]
                times, events = self.history.setdefault(stream, ([], []))
                times.append(t)
                events.append(event)
        if t >= self.next_purge:
            self._purge(t)

    def _purge(self, t: float) -> None:
        cutoff = t - 2 * self.window
        self.places = {k: v for k, v in self.places.items() if v[0] >= cutoff}
        self.consumed = {k: v for k, v in self.consumed.items() if v >= cutoff}
        for times, events in self.history.values():
            i = bisect.bisect_left(times, cutoff)
            del times[:i]
            del events[:i]
        self.next_purge = t + self.window

    # ------------------------------------------------------------------ output
    def keep(self, events: tuple, check: Any) -> bool:
        """Whether a match (its events and the leaf of each) is kept: strategy first,
        then consumption; a kept match consumes its events and releases its freezers.
        An event's type is its leaf's name (variables arrive relabelled)."""
        leaves = tuple(e[1] for e in events)
        strategy = self.selection.strategy
        if strategy in ("contiguous", "partition") and not self._contiguous(events):
            return False
        if strategy == "next" and not check(events, leaves, self):
            return False
        consume = self.selection.consume
        if consume:
            used = [(self.key(e), e[0]) for e in events if "*" in consume or e[1] in consume]
            if any(k in self.consumed for k, _ in used):
                return False
            self.consumed.update(used)
        if self.freezers:
            bound = {self.key(e) for e in events}
            self.freezers = [f for f in self.freezers if self.key(f) not in bound]
        return True

    def _contiguous(self, events: tuple) -> bool:
        places = [self.places.get(self.key(e)) for e in events]
        if any(p is None for p in places):
            return False
        if len({p[2] for p in places}) > 1:  # partition contiguity: one partition
            return False
        numbers = sorted({p[1] for p in places})
        return numbers[-1] - numbers[0] + 1 == len(numbers)

    def order_key(self, events: tuple) -> tuple[int, ...]:
        """Matches completed by one event are taken in this order (their input places)."""
        return tuple(sorted(self.place(e) for e in events))

    def place(self, event: Any) -> int:
        """The input place of an event (0 if unknown)."""
        found = self.places.get(self.key(event))
        return found[1] if found is not None else 0


def _attribute(event: Any, name: str) -> Any:
    if name == "id":
        return event[3]
    if name == "node":
        return event[2]
    return event[4].get(name)


def next_match_check(
    conditions: Iterable[Any], pairs: Iterable[tuple[str, str, float]], window: float, seed: int
) -> Any:
    """The skip-till-next-match test of a match (module docstring), over its events in
    input order: no earlier relevant event of each leaf's type was skipped."""
    from inev.simulator.engine.events import pair_holds

    conds = list(conditions)
    pair_list = list(pairs)

    def fields(e: Any) -> dict[str, Any]:
        return {"time": e[0], "node": e[2], "id": e[3], **e[4]}

    def relevant(candidate: Any, leaf: str, bound: dict[str, Any], first: float) -> bool:
        if candidate[0] - first > window:
            return False
        trial = {**bound, leaf: candidate}
        for a, b, s in pair_list:
            if (
                leaf in (a, b)
                and a in trial
                and b in trial
                and not pair_holds(trial[a]._replace(type=a), trial[b]._replace(type=b), s, seed)
            ):
                return False
        for c in conds:
            scope = {x.type for x in condition_attributes(c)}
            if (
                leaf in scope
                and scope <= set(trial)
                and not evaluate(c, {t: fields(trial[t]) for t in scope})
            ):
                return False
        return True

    def check(events: tuple, leaves: tuple[str, ...], selector: Selector) -> bool:
        ordered = sorted(zip(events, leaves, strict=True), key=lambda x: selector.place(x[0]))
        first = min(e[0] for e in events)
        bound = {ordered[0][1]: ordered[0][0]}
        for (previous, _), (event, leaf) in pairwise(ordered):
            stream = selector.streams.get(leaf, leaf)
            times, history = selector.history.get(stream, ([], []))
            low, high = selector.place(previous), selector.place(event)
            i = bisect.bisect_left(times, previous[0])
            while i < len(times) and times[i] <= event[0]:
                candidate = history[i]
                i += 1
                where = selector.place(candidate)
                if not low < where < high:
                    continue
                if relevant(candidate._replace(type=leaf), leaf, bound, first):
                    return False
            bound[leaf] = event
        return True

    return check
