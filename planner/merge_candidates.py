"""The projections a *merge* move (:mod:`inev.planner.improve`) may give a consumer, whatever
the design: those whose pattern is the consumer's own restricted to their types, with no
predicate the consumer lacks. What the design adds (the consumer's inputs and partition)
is checked by the move itself; the search keeps these per pool size
(:meth:`inev.planner.improve.Evaluator.mergeable`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from inev.planner.projections import Projection, restrict
from inev.workloads.pattern import Pattern
from inev.workloads.rates import strip_kleene


def merge_candidates(pool: Mapping[str, Projection], key: str) -> list[Projection]:
    """The projections of ``pool`` that may stand for inputs of ``key`` (in pool order),
    whatever the design: the consumer's own pattern restricted to their types, no
    predicate the consumer lacks.

    >>> from inev.planner.projections import make_projection
    >>> from inev.workloads.workload import Query
    >>> q = Query.build("q", "SEQ(A, B, C)")
    >>> rates = {"A": 1.0, "B": 2.0, "C": 3.0}
    >>> pool = {p.key: p for p in (make_projection(q, ts, rates) for ts in ("AB", "AC", "ABC"))}
    >>> [p.key for p in merge_candidates(pool, "SEQ(A, B, C)")]
    ['SEQ(A, B)', 'SEQ(A, C)']
    """
    consumer = pool[key]
    own_sel = set(consumer.selectivity)
    own_conditions = set(consumer.conditions)
    found = []
    for p in pool.values():
        if (
            p.is_primitive
            or p.key == key
            or not p.types < consumer.types
            or not set(p.selectivity) <= own_sel
            or not set(p.conditions) <= own_conditions
        ):
            continue
        if _restricts_to(consumer.pattern, p.types, p.pattern):
            found.append(p)
    return found


@lru_cache(maxsize=1 << 16)
def _restricts_to(pattern: Pattern, types: frozenset[str], other: Pattern) -> bool:
    """Whether ``pattern`` (Kleene closures stripped) restricted to ``types`` is ``other``
    (or prints as it); kept per value: the rate kicks' pools ask the same pairs again."""
    restricted = restrict(strip_kleene(pattern), types)
    return restricted is not None and (restricted == other or str(restricted) == str(other))
