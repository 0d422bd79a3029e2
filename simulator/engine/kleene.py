"""Kleene closure rules: how a trend grows, and when it may join a match.

The evaluation plan keeps every trend of a Kleene leaf (:mod:`.plan_runner`); a
:class:`KleeneRule` says which trends a new element extends and which trends the plan may
use. The default rule (one or more events, strictly increasing times, no positional
condition) has no rule object at all: the plan runs its original fast loop.

* **Ties**: under the workload's tie rule ``any`` an element may follow one of equal time.
* **Size bounds** ``KL(X){low,high}``: a trend of ``high`` elements is not extended; one of
  fewer than ``low`` is kept (a later element may extend it) but not used.
* **Positions** (``X[2].a``, ``FIRST``, ``LAST``) of conditions over the Kleene leaf alone
  decide on a whole trend, so they filter like ``low`` does.
* **Iterations** of a Kleene over a composite (:class:`Iterations`): each element is a
  match of the sub-pattern ``(earliest time, latest time, events)``; consecutive iterations
  are ordered (a SEQ: each ends before the next starts) or not (an AND), and never share an
  event; ``NEXT`` and positions compare the iterations' leaves (:func:`iteration_checks`).

See :mod:`.constraints` for the semantics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from inev.simulator.engine.constraints import Composite
from inev.workloads.expressions import Condition, condition_attributes, evaluate

Trend = tuple
Check = Callable[[Any], bool]


@dataclass(frozen=True)
class KleeneRule:
    """How trends of one Kleene leaf grow (see the module docstring).

    ``follows(previous, new)`` checks consecutive elements (NEXT conditions); ``accept``
    checks a whole trend before the plan may use it (size ``low``, positions).
    """

    strict: bool = True
    low: int = 1
    high: int | None = None
    follows: Callable[[tuple[Any, Any]], bool] | None = None
    accept: Check | None = None
    iterations: Iterations | None = None

    @property
    def separate(self) -> bool:
        """Whether some trend is kept for growing but not used (size ``low``, positions)."""
        return self.low > 1 or self.accept is not None


@dataclass(frozen=True)
class Iterations:
    """What a Kleene over a composite needs beyond :class:`KleeneRule`: whether the
    iterations are chained (SEQ) and the streams of its leaves (for distinct events)."""

    composite: Composite
    streams: Mapping[str, str]

    def ids(self, iteration: tuple) -> frozenset:
        """The events of one iteration, as (stream, id)."""
        get = self.streams.get
        return frozenset((get(e[1], e[1]), e[3]) for e in iteration[2])

    def fits(self, trend: Trend, new: tuple, strict: bool) -> bool:
        """Whether iteration ``new`` may follow ``trend``: after its last iteration when
        chained, and sharing no event with any of them."""
        if self.composite.chained:
            end = trend[-1][1]
            if (end >= new[0]) if strict else (end > new[0]):
                return False
            if strict:  # strictly after: no shared event possible
                return True
        ids = self.ids(new)
        return all(not (ids & self.ids(it)) for it in trend)


def iteration(events: Sequence[Any]) -> tuple:
    """One iteration of a Kleene over a composite: ``(earliest, latest, events)``."""
    times = [e[0] for e in events]
    return (min(times), max(times), tuple(events))


def iteration_order(element: tuple) -> tuple:
    """The order of iterations in a trend: latest time, earliest time, then the ids."""
    return (element[1], element[0], tuple(e[3] for e in element[2]))


def with_iteration(trend: Trend, element: tuple, chained: bool) -> Trend:
    """``trend`` with ``element`` added: appended when chained (it ends last), else at its
    place in :func:`iteration_order` (an AND's iterations complete in any order)."""
    if chained:
        return (*trend, element)
    return tuple(sorted((*trend, element), key=iteration_order))


def iteration_checks(
    composite: Composite, conditions: Iterable[Condition]
) -> tuple[Check | None, Check | None]:
    """``(follows, accept)`` of the conjuncts over a composite's leaves that compare
    iterations: ``NEXT(a)`` reads the next iteration's ``a`` (other leaves the current one),
    ``a[i]``/``FIRST(a)``/``LAST(a)`` the ``a`` of one iteration. Evaluated by
    :func:`inev.workloads.expressions.evaluate` (a composite's iterations are few)."""
    from inev.workloads.pattern import leaf_types

    leaves = leaf_types(composite.pattern)
    index = {t: i for i, t in enumerate(leaves)}
    nexts = [c for c in conditions if any(a.next for a in condition_attributes(c))]
    fixed = [c for c in conditions if any(a.position is not None for a in condition_attributes(c))]

    def fields(iteration_: tuple, t: str) -> dict[str, Any]:
        e = iteration_[2][index[t]]
        return {"time": e[0], "node": e[2], "id": e[3], **e[4]}

    def follows(pair: tuple[tuple, tuple]) -> bool:
        current, following = pair
        for c in nexts:
            used = condition_attributes(c)
            binding = {a.type: fields(current, a.type) for a in used if not a.next}
            ahead = {a.type: fields(following, a.type) for a in used if a.next}
            if not evaluate(c, binding, ahead):
                return False
        return True

    def accept(trend: Trend) -> bool:
        # over an AND the order is known only for the whole set
        if nexts and not composite.chained and not all(map(follows, pairwise(trend))):
            return False
        for c in fixed:
            binding: dict[Any, Any] = {}
            for a in condition_attributes(c):
                if a.position is None:
                    continue
                k = a.position
                if k > len(trend):
                    return False
                binding[(a.type, k)] = fields(trend[k - 1 if k > 0 else -1], a.type)
            plain = [a for a in condition_attributes(c) if a.position is None]
            for it in trend if plain else (None,):
                extra = {a.type: fields(it, a.type) for a in plain} if it is not None else {}
                if not evaluate(c, {**binding, **extra}):
                    return False
        return True

    chained_follows = follows if nexts and composite.chained else None
    return chained_follows, (accept if fixed or (nexts and not composite.chained) else None)
