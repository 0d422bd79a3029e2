"""What an :class:`~inev.simulator.engine.engine.Engine` is told, checked: how it re-optimises
(:class:`Adaptation`), its plan generator or explicit plan, output selector, pairwise
selectivities and input units (types and sub-projection patterns).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.evaluation_plans import Plan, TreePlan
from inev.workloads.pattern import (
    Operator,
    Pattern,
    Primitive,
    leaf_types,
)
from inev.workloads.rates import pair
from inev.workloads.syntax import parse_pattern

DEFAULT_ENGINE_PLAN = "greedy"
"""The plan generator of an engine not told another (greedy ordering; ``zstream`` the other)."""
DEFAULT_ADAPTATION = "invariant"
"""How the engines of a match or a simulation re-optimise unless told (the invariant method);
an :class:`~inev.simulator.engine.engine.Engine` built alone does not (its ``adaptation`` is
``"off"``, :class:`Adaptation`'s ``kind``)."""


def plan_choice(plan: str | Plan) -> tuple[str, Plan | None]:
    """The plan generator's name, and the explicit plan if one is given instead."""
    if isinstance(plan, str):
        if plan not in ("greedy", "zstream"):
            raise InevError(f"unknown plan {plan!r} (greedy, zstream)")
        return plan, None
    return ("zstream" if isinstance(plan, TreePlan) else "greedy"), plan


def output_selector(output: str | Iterable[str] | None, tree: Pattern) -> frozenset[str] | None:
    """The output selector's types (``None``: whole matches), checked against the pattern."""
    if output is None or output == "all":
        return None
    selected = frozenset([output] if isinstance(output, str) else output)
    unknown = selected - set(leaf_types(tree))
    if unknown:
        raise InevError(f"output selector names types {sorted(unknown)} not in {tree}")
    return selected


@dataclass(frozen=True)
class Adaptation:
    """How the engine re-optimises: decision ``kind`` (off, invariant, always, threshold),
    K (``None``: :func:`invariant_k`) and distance d of the invariant method (a number,
    ``"auto"`` or ``"average"``:
    :class:`~inev.simulator.engine.invariants.InvariantDecision`), the threshold baseline's
    relative t, the number of processed items between checks, the statistics span
    (default: 10 windows), the sampling period of predicate selectivities and the
    invariant selection (``auto``, ``gap`` or ``probability``, §3.5)."""

    kind: str = "off"
    k: int | None = None
    distance: float | str = "auto"
    threshold: float = 0.5
    check_every: int = 256
    span: float | None = None
    sample_every: int = 4
    selection: str = "auto"


BASIC_K = 1
"""K of the basic invariant method (§3.1): the invariant method's on greedy plans unless told."""
ZSTREAM_K = 2
"""K of the invariant method on ZStream's tree plans unless told."""


def invariant_k(k: int | None, plan_kind: str) -> int:
    """The K of the K-invariant method: ``k`` if given, else :data:`BASIC_K` (1) for greedy
    plans and :data:`ZSTREAM_K` for ZStream's (paper 000, §4.2: a tree's block has many candidate
    subtrees, so "picking only one comparison as an invariant and dismissing the rest of the
    candidates may create a problem of false negatives, and K-invariant method is
    recommended instead"; the paper gives no K, 2 is the smallest).

    Measured (``inev reproduce inv7``, traffic-like stream, 20,000 events): with K = 1 the
    invariant method never re-optimised at 7 types, both rate changes missed (work 1.0x the
    static plan's, throughput 0.43x the best threshold's), and kept 1.4-1.7x the best
    threshold's work at 6 and 8; K = 2 and 3 re-planned there (work at 7 types 0.14x the
    static plan's) and changed nothing on the stocks-like stream.

    >>> invariant_k(None, "greedy"), invariant_k(None, "zstream"), invariant_k(3, "zstream")
    (1, 2, 3)
    """
    if k is not None:
        return k
    return ZSTREAM_K if plan_kind == "zstream" else BASIC_K


def selectivity_pairs(selectivities: Mapping[Any, float] | None) -> dict[tuple[str, str], float]:
    """Pairwise selectivities keyed ``(a, b)`` in canonical order (keys ``"A B"`` or pairs)."""
    out: dict[tuple[str, str], float] = {}
    for key, value in (selectivities or {}).items():
        parts = key.split() if isinstance(key, str) else list(key)
        if len(parts) != 2:
            raise InevError(f"selectivity key {key!r} must name two types")
        out[pair(parts[0], parts[1])] = float(value)
    return out


def input_patterns(
    pattern: Pattern, inputs: Sequence[str | Pattern] | None, all_types: tuple[str, ...]
) -> list[Pattern]:
    """The engine's input units as patterns: each type, or the given types and
    sub-projection patterns, checked to cover the pattern's types once, without OR."""
    if inputs is None:
        return [Primitive(t) for t in all_types]
    out: list[Pattern] = []
    seen: set[str] = set()
    for item in inputs:
        p = parse_pattern(item) if isinstance(item, str) else item
        if isinstance(p, Operator) and p.kind == "KL" and isinstance(p.children[0], Primitive):
            p = p.children[0]
        types = set(leaf_types(p))
        if any(str(p) == str(q) for q in out):
            raise InevError(f"input {p} is given twice for {pattern}")
        if not types <= set(all_types):
            raise InevError(f"input {p} has types outside the pattern {pattern}")
        if isinstance(p, Operator) and any(
            isinstance(n, Operator) and n.kind == "OR" for n in _walk(p)
        ):
            raise InevError(f"input {p}: OR in a sub-projection input is not supported")
        seen |= types
        out.append(p)
    missing = set(all_types) - seen
    if missing:
        raise InevError(f"inputs of {pattern} miss the types {sorted(missing)}")
    return out


def _walk(p: Pattern) -> Iterator[Pattern]:
    yield p
    if isinstance(p, Operator):
        for c in p.children:
            yield from _walk(c)


@dataclass(frozen=True)
class EngineSettings:
    """What an engine's collaborators read of it, fixed once the engine is built: its whole
    ``pattern``, ``window``, realised pairwise ``selectivities``, ``where`` condition, tie
    rule, ``streams`` (variable -> type), the seed of its hash predicates, the plan
    generator (``plan_kind``), its ``input_patterns``, the ``adaptation`` and the first
    plan's ``initial_rates`` and ``estimated`` selectivities (see
    :class:`~inev.simulator.engine.engine.Engine`)."""

    pattern: Pattern
    window: float
    selectivities: Mapping[tuple[str, str], float]
    where: Any
    ties: str
    streams: Mapping[str, str]
    selectivity_seed: int
    plan_kind: str
    input_patterns: Sequence[Pattern]
    adaptation: Adaptation
    initial_rates: Mapping[str, float]
    estimated: Mapping[tuple[str, str], float]
