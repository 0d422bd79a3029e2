"""An OR branch's input units and the routes that bring an engine's items to them.

A *unit* is one input of a branch's evaluation plan: a primitive type, a Kleene type, a
Kleene closure over a composite (its leaves' events feed a sub-engine) or a sub-projection
whose matches arrive as tuples (:class:`inev.simulator.engine.plan_runner.Unit`). Negated
types are no units: their events go to the branch's negation buffers.

The engine's :class:`Routes` own its routing tables and compile each branch into them
(:meth:`Routes.add_branch`): the engine reads the tables, nothing else writes them.
"""

from __future__ import annotations

from collections.abc import Callable

from inev.common.errors import InevError
from inev.simulator.engine.branch import Branch, SubEngine, monitored_pairs
from inev.simulator.engine.constraints import Constraints, build_constraints
from inev.simulator.engine.engine_options import EngineSettings
from inev.simulator.engine.plan_runner import Unit
from inev.simulator.engine.statistics import Statistics
from inev.workloads.pattern import Pattern, Primitive, leaf_types, negated_types


class Routes:
    """An engine's routing tables: which branch units each event type reaches (``types``),
    which each sub-projection match reaches, by its set of types (``matches``), and the
    buffers of negated types that the branches' negations share (``negations``).

    >>> from inev.simulator.engine.engine import Engine
    >>> engine = Engine("SEQ(A, NSEQ(B, C, D))", window=5.0)
    >>> sorted(engine.routes), sorted(engine.neg_buffers)
    (['A', 'B', 'D'], ['C'])
    """

    def __init__(self, settings: EngineSettings, make_child: Callable[..., SubEngine]) -> None:
        self.settings = settings
        self.make_child = make_child
        self.types: dict[str, list[tuple[Branch, int]]] = {}
        self.matches: dict[frozenset[str], list[tuple[Branch, int]]] = {}
        self.negations: dict[str, tuple[list, list]] = {}

    def add_branch(self, variant: Pattern) -> Branch:
        """Compile the OR-free ``variant`` into a :class:`Branch`, register its routes and
        statistics, and return it."""
        s = self.settings
        constraints = build_constraints(
            variant, s.window, s.selectivities, s.where, s.ties, s.streams
        )
        negation_buffers: dict[int, tuple[list, list]] = {}
        units = self._units(variant, constraints, negation_buffers)
        branch = Branch(s, self.make_child, variant, constraints, units, negation_buffers)
        self._route(branch, constraints, units)
        branch.statistics = Statistics(
            [u.label for u in units],
            s.adaptation.span or 10.0 * s.window,
            s.adaptation.sample_every,
        )
        branch.counts = branch.statistics.counts
        branch.monitored = monitored_pairs(branch, s.selectivity_seed)
        return branch

    def _units(
        self,
        variant: Pattern,
        constraints: Constraints,
        negation_buffers: dict[int, tuple[list, list]],
    ) -> list[Unit]:
        """The branch's units in slot order; negated inputs fill ``negation_buffers``."""
        branch_types = set(leaf_types(variant))
        position = {t: i for i, t in enumerate(constraints.types)}
        inner_slot = {
            t: slot
            for slot, composite in constraints.composites.items()
            for t in leaf_types(composite.pattern)
        }
        units: list[Unit] = []
        for p in self.settings.input_patterns:
            if not set(leaf_types(p)) & branch_types:
                continue
            if not isinstance(p, Primitive):
                units.append(self._match_unit(p, variant, position, inner_slot))
            elif p.type in negated_types(variant):
                self._negation_input(p.type, constraints, negation_buffers)
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
        self,
        t: str,
        constraints: Constraints,
        negation_buffers: dict[int, tuple[list, list]],
    ) -> None:
        """Share the engine's buffer of negated type ``t`` with the negations that read it."""
        buffers = self.negations.setdefault(t, ([], []))
        for i, n in enumerate(constraints.negations):
            if n.type == t:
                negation_buffers[i] = buffers

    def _match_unit(
        self,
        p: Pattern,
        variant: Pattern,
        position: dict[str, int],
        inner_slot: dict[str, str],
    ) -> Unit:
        """The unit of the sub-projection input ``p`` (its positive types in slot order)."""
        types = leaf_types(p)
        if not set(types) <= set(leaf_types(variant)):
            raise InevError(f"input {p} straddles the OR branches of {self.settings.pattern}")
        if set(types) & set(inner_slot):
            raise InevError(
                f"input {p}: a Kleene closure over a composite takes its events, not "
                "sub-projection matches"
            )
        negated = negated_types(variant)
        positive = tuple(t for t in types if t not in negated)
        return Unit(str(p), tuple(sorted(positive, key=position.get)), "match", frozenset(types))

    def _route(self, branch: Branch, constraints: Constraints, units: list[Unit]) -> None:
        """Register which event types and which sub-projection matches (by their set of
        types) reach which unit of ``branch``."""
        for i, u in enumerate(units):
            if u.kind == "match":
                self.matches.setdefault(frozenset(u.types), []).append((branch, i))
            elif u.kind == "composite":
                leaves = leaf_types(constraints.composites[u.types[0]].pattern)
                for t in dict.fromkeys(leaves):
                    self.types.setdefault(t, []).append((branch, i))
            else:
                self.types.setdefault(u.types[0], []).append((branch, i))
