"""An OR branch's input units and the routes that bring an engine's items to them.

A *unit* is one input of a branch's evaluation plan: a primitive type, a Kleene type, a
Kleene closure over a composite (its leaves' events feed a sub-engine) or a sub-projection
whose matches arrive as tuples (:class:`inev.simulator.engine.plan_runner.Unit`). Negated
types are no units: their events go to the branch's negation buffers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inev.common.errors import InevError
from inev.simulator.engine.branch import Branch, monitored_pairs
from inev.simulator.engine.constraints import Constraints, build_constraints
from inev.simulator.engine.plan_runner import Unit
from inev.simulator.engine.statistics import Statistics
from inev.workloads.query import Pattern, Primitive, event_types, negated_types

if TYPE_CHECKING:
    from inev.simulator.engine.engine import Engine


def add_branch(engine: Engine, variant: Pattern) -> Branch:
    """Compile the OR-free ``variant`` into a :class:`Branch` of ``engine``, register its
    routes and statistics, and return it."""
    constraints = build_constraints(
        variant, engine.window, engine.selectivities, engine.where, engine.ties, engine.streams
    )
    negation_buffers: dict[int, tuple[list, list]] = {}
    units = _units(engine, variant, constraints, negation_buffers)
    branch = Branch(engine, variant, constraints, units, negation_buffers)
    engine.branches.append(branch)
    _route(engine, branch, constraints, units)
    branch.statistics = Statistics(
        [u.label for u in units],
        engine.adaptation.span or 10.0 * engine.window,
        engine.adaptation.sample_every,
    )
    branch.counts = branch.statistics.counts
    branch.monitored = monitored_pairs(branch, engine.selectivity_seed)
    return branch


def _units(
    engine: Engine,
    variant: Pattern,
    constraints: Constraints,
    negation_buffers: dict[int, tuple[list, list]],
) -> list[Unit]:
    """The branch's units in slot order; negated inputs fill ``negation_buffers``."""
    branch_types = set(event_types(variant))
    position = {t: i for i, t in enumerate(constraints.types)}
    inner_slot = {
        t: slot
        for slot, composite in constraints.composites.items()
        for t in event_types(composite.pattern)
    }
    units: list[Unit] = []
    for p in engine.input_patterns:
        if not set(event_types(p)) & branch_types:
            continue
        if not isinstance(p, Primitive):
            units.append(_match_unit(engine, p, variant, position, inner_slot))
        elif p.type in negated_types(variant):
            _negation_input(engine, p.type, constraints, negation_buffers)
        elif p.type in inner_slot:
            slot = inner_slot[p.type]
            if not any(u.types == (slot,) for u in units):
                label = f"KL({constraints.composites[slot].pattern})"
                units.append(Unit(label, (slot,), "composite", frozenset((slot,))))
        else:
            kind = "kleene" if p.type in constraints.kleene else "event"
            units.append(Unit(p.type, (p.type,), kind))
    units.sort(key=lambda u: position[u.types[0]])
    return units


def _negation_input(
    engine: Engine,
    t: str,
    constraints: Constraints,
    negation_buffers: dict[int, tuple[list, list]],
) -> None:
    """Share the engine's buffer of negated type ``t`` with the negations that read it."""
    buffers = engine.neg_buffers.setdefault(t, ([], []))
    for i, n in enumerate(constraints.negations):
        if n.type == t:
            negation_buffers[i] = buffers


def _match_unit(
    engine: Engine,
    p: Pattern,
    variant: Pattern,
    position: dict[str, int],
    inner_slot: dict[str, str],
) -> Unit:
    """The unit of the sub-projection input ``p`` (its positive types in slot order)."""
    types = event_types(p)
    if not set(types) <= set(event_types(variant)):
        raise InevError(f"input {p} straddles the OR branches of {engine.pattern}")
    if set(types) & set(inner_slot):
        raise InevError(
            f"input {p}: a Kleene closure over a composite takes its events, not "
            "sub-projection matches"
        )
    negated = negated_types(variant)
    positive = tuple(t for t in types if t not in negated)
    return Unit(str(p), tuple(sorted(positive, key=position.get)), "match", frozenset(types))


def _route(engine: Engine, branch: Branch, constraints: Constraints, units: list[Unit]) -> None:
    """Register which event types (``engine.routes``) and which sub-projection matches
    (``engine.match_routes``, by their set of types) reach which unit of ``branch``."""
    for i, u in enumerate(units):
        if u.kind == "match":
            engine.match_routes.setdefault(frozenset(u.types), []).append((branch, i))
        elif u.kind == "composite":
            leaves = event_types(constraints.composites[u.types[0]].pattern)
            for t in dict.fromkeys(leaves):
                engine.routes.setdefault(t, []).append((branch, i))
        else:
            engine.routes.setdefault(u.types[0], []).append((branch, i))
