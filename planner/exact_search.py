"""Branch and bound over the exact planner's design space: the design of least ψ.

The search fixes one projection at a time, from the query sinks down (a projection is fixed
only once every projection that could consume it is fixed: larger projections first, Kleene
sinks before their q_nKL twin of the same size). Fixing a projection p chooses its inputs
and placement (:meth:`~inev.planner.exact_space.DesignSpace.choices`, one node or the
sources of its partitioning type) and its output selector; its consumers are then all known,
so its own vertices' cost is final, and its inputs gain p's nodes as destinations.

**Bound.** The cost of a partial design is Σ over the fixed projections of their vertices'
cost plus Σ over event types of the cost of reaching the destinations known so far. Every
term only grows as more projections are fixed (a Steiner tree over more terminals is never
smaller, and fixed rates do not change), so this sum is a lower bound on every completion;
each unfixed projection adds the least cost its own vertices can have with the destinations
it already has. A branch is cut when its bound reaches the best design found so far.

**Why the result is optimal in the space.** Every design of the space is a sequence of such
choices in the search's order (the order depends only on projection sizes, and a design's
projections each take one choice, placement and selector), so every design is a leaf of the
search tree, and a branch is cut only when its bound, a lower bound on all of its leaves, is
no better than a design already found. The best leaf found is therefore a design of least ψ,
up to the relative tolerance :data:`TOLERANCE` of floating-point sums.

Work is counted in *steps* (one tentative choice applied and undone); past ``budget`` steps
the search stops with :class:`ExactTooLarge`, so it never runs unbounded.
:func:`search_within` is the same search as an *anytime* one (issue 32, item 6): past its
budget it returns the best design found so far, marked as not proved.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.exact_space import DesignSpace
>>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (9.0, [2])})
>>> space = DesignSpace.build(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]))
>>> best = least_cost_design(space, math.inf)
>>> best.cost  # A's events walk to B's source, where the query sits
2.0
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from inev.common.errors import InevError
from inev.planner.exact_space import Choice, DesignSpace, Placed

TOLERANCE = 1e-9
"""Relative tolerance: a design must beat the best by this share to replace it."""
BUDGET = 3_000_000
"""Default number of search steps before the search gives up (about a minute)."""
MEMO_ROWS = 400_000
"""Bounds remembered per search (each row some 200 bytes)."""


DEADLINE_EVERY = 1024
"""Steps between two looks at the clock (a step is some 10-30 µs: the deadline is kept to a
few tens of milliseconds)."""


class ExactTooLarge(InevError):
    """The exact search would take more steps than its budget allows."""


class ExactOutOfTime(ExactTooLarge):
    """The exact search reached its wall-clock deadline (a ``--time-budget``)."""


@dataclass
class Limits:
    """What several searches of one ``--method exact`` run share: ``steps`` in all (each
    search gets what the earlier ones left) and a wall-clock ``deadline``
    (``time.perf_counter()`` seconds). ``spent`` counts the steps taken so far.

    >>> limits = Limits(steps=10)
    >>> limits.left
    10
    """

    steps: float = BUDGET
    deadline: float = math.inf
    spent: int = 0

    @property
    def left(self) -> float:
        """Steps the next search may take."""
        return max(self.steps - self.spent, 0)


@dataclass(frozen=True)
class Decision:
    """What the search fixed for one projection."""

    choice: Choice
    placed: Placed
    output: tuple[str, ...] | None


@dataclass(frozen=True)
class ExactDesign:
    """The design of least ψ found, its ψ and the search steps it took."""

    decisions: dict[str, Decision]
    sinks: dict[str, str]
    cost: float
    steps: int


@dataclass(frozen=True)
class Outcome:
    """What an anytime search (:func:`search_within`) ended with."""

    design: ExactDesign | None
    """The cheapest design found below the bound (None: none found)."""
    proved: bool
    """True when the search finished: ``design`` is then a least-ψ design of the space, or
    (None) no design of the space costs less than the bound."""
    steps: int
    work: int
    """Steps plus the bounds of sub-designs computed (not remembered): what the budget counts."""


def least_cost_design(
    space: DesignSpace, bound: float, budget: int | Limits = BUDGET
) -> ExactDesign | None:
    """The design of least ψ below ``bound`` (None: none costs less than ``bound``).

    Raises :class:`ExactTooLarge` after ``budget`` steps, or after what a shared
    :class:`Limits` has left (:class:`ExactOutOfTime` at its deadline).
    """
    return limited_search(space, bound, budget if isinstance(budget, Limits) else Limits(budget))[0]


def limited_search(
    space: DesignSpace, bound: float, limits: Limits
) -> tuple[ExactDesign | None, bool]:
    """The search of :func:`least_cost_design` within ``limits``: the best design found and
    whether the search finished. Past the steps left it raises :class:`ExactTooLarge`; at
    the deadline it returns the best design found so far, not proved (``False``). The
    steps taken are added to ``limits.spent``."""
    search = _Search(space, bound, limits.left, deadline=limits.deadline)
    try:
        search.run()
    except ExactOutOfTime:
        return search.design(), False
    finally:
        limits.spent += search.steps
    return search.design(), True


def search_within(space: DesignSpace, bound: float, budget: int) -> Outcome:
    """The search of :func:`least_cost_design`, stopped after ``budget`` units of work with
    the best design found so far instead of an error.

    A unit is a step or one sub-design's bound computed afresh (:meth:`_Search._subtree`): a
    step's bound may take from one to hundreds of those, so counting them keeps the time a
    budget buys within a few times of its mean (5-10 µs a unit here), and, unlike a clock,
    gives the same result on every machine.

    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (9.0, [2])})
    >>> space = DesignSpace.build(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]))
    >>> search_within(space, 5.0, budget=1000).design.cost
    2.0
    >>> out = search_within(space, 2.0, budget=1000)  # nothing costs less than 2
    >>> out.design is None and out.proved
    True
    """
    search = _Search(space, bound, math.inf, work_budget=budget)
    try:
        search.run()
    except ExactTooLarge:
        return Outcome(search.design(), False, search.steps, search.work)
    return Outcome(search.design(), True, search.steps, search.work)


class _Search:
    """The state of one branch and bound (module docstring)."""

    def __init__(
        self,
        space: DesignSpace,
        bound: float,
        budget: float,
        work_budget: float = math.inf,
        deadline: float = math.inf,
    ) -> None:
        self.space = space
        self.budget = budget
        self.deadline = deadline
        self.work_budget = work_budget
        self.steps = 0
        self.work = 0
        self.best_cost = bound
        self.best: dict[str, Decision] | None = None
        self.mask: dict[str, int] = {}
        self.term: dict[str, float] = {}
        self.fixed: dict[str, Decision] = {}
        self.consumers: dict[str, list[str]] = {}
        self.frontier: set[str] = set(space.sinks.values())
        self.rank = {
            k: (-len(p.types), 0 if k in space.kleene_sinks else 1, k)
            for k, p in space.projections.items()
        }
        self.own_floor: dict[tuple, float] = {}
        self.subtree_memo: dict[tuple, float] = {}
        self.templates: dict[str, list] = {}
        self.shares: dict[tuple, list[frozenset[str]]] = {}
        self.all_types = frozenset(t for p in space.projections.values() for t in p.types)

    def design(self) -> ExactDesign | None:
        """The best design found so far (None: none below the bound)."""
        if self.best is None:
            return None
        return ExactDesign(self.best, dict(self.space.sinks), self.best_cost, self.steps)

    # ------------------------------------------------------------------ bookkeeping
    def _grow(self, item: str, extra: int, undo: list) -> None:
        """Add destinations ``extra`` to ``item`` (a type or a fixed projection)."""
        old = self.mask.get(item, 0)
        new = old | extra
        if new == old:
            return
        undo.append((item, old, self.term.get(item)))
        self.mask[item] = new
        if self.space.is_type(item):
            value = self.space.type_cost(item, new)
        elif item in self.fixed:
            d = self.fixed[item]
            value = self.space.key_cost(item, d.placed, d.output, new)
        else:
            return
        self.term[item] = value

    def _apply(self, key: str, decision: Decision) -> tuple[list, list[str]]:
        space = self.space
        undo: list = []
        added: list[str] = []
        self.fixed[key] = decision
        self.frontier.discard(key)
        value = space.key_cost(key, decision.placed, decision.output, self.mask.get(key, 0))
        undo.append((key, self.mask.get(key, 0), self.term.get(key)))
        self.term[key] = value
        here = space.nodes_mask(decision.placed)
        part = decision.placed.partition
        for i in decision.choice.inputs:
            if i == part:
                continue
            if not space.is_type(i):
                assert i not in self.fixed, (key, i)
                self.consumers.setdefault(i, []).append(key)
                if i not in self.frontier:
                    self.frontier.add(i)
                    added.append(i)
            self._grow(i, here, undo)
        if decision.output is not None:
            missing = space.types_of(key) - set(decision.output)
            for j in self.consumers.get(key, ()):
                dj = self.fixed[j]
                there = space.nodes_mask(dj.placed)
                for t in sorted(missing):
                    if t not in dj.choice.inputs:
                        self._grow(t, there, undo)
        return undo, added

    def _revert(self, key: str, decision: Decision, undo: list, added: list[str]) -> None:
        for item, old, term in reversed(undo):
            self.mask[item] = old
            if term is None:
                self.term.pop(item, None)
            else:
                self.term[item] = term
        for i in decision.choice.inputs:
            if i != decision.placed.partition and not self.space.is_type(i):
                self.consumers[i].pop()
        for i in added:
            self.frontier.discard(i)
        del self.fixed[key]
        self.frontier.add(key)

    # ------------------------------------------------------------------ bounds
    def _own_floor(self, key: str, placed: Placed, mask: int) -> float:
        """The least cost of ``key``'s own vertices at ``placed`` with destinations ``mask``."""
        if not mask:
            return 0.0
        memo = (key, placed, mask)
        found = self.own_floor.get(memo)
        if found is None:
            found = min(
                self.space.key_cost(key, placed, out, mask)
                for out in self.space.selectors(key, placed)
            )
            self.own_floor[memo] = found
        return found

    def _bound(self) -> float:
        """A lower bound on every completion of the current partial design.

        The fixed terms, plus per unfixed projection f (larger first) ``_subtree(f)``. Its
        event types are shared out among the unfixed projections (each type to one of them:
        its *anchor* type, the most frequent, to each projection first, then the rest to the
        first one holding it), and so among the inputs below (:meth:`_share`); a type is
        charged only where it was given, by how much its destinations grow beyond those
        already counted, and a projection's own vertices only where its anchor was given.
        Two places of the same projection get disjoint types, so nothing is counted twice,
        and the sum never exceeds the cost of any completion.
        """
        total = math.fsum(self.term.values())
        frontier = sorted(self.frontier, key=self.rank.__getitem__)
        for key, mine in zip(frontier, self._share(tuple(frontier), self.all_types), strict=True):
            if mine:
                own = self.space.anchor(key) in mine
                total += self._subtree(key, self.mask.get(key, 0) if own else 0, mine, own)
        return total

    def _share(self, keys: tuple[str, ...], types: frozenset[str]) -> list[frozenset[str]]:
        """``types`` shared out among ``keys``: anchors first, then to the first holder."""
        memo = (keys, types)
        found = self.shares.get(memo)
        if found is None:
            found = self.shares[memo] = self._shared_out(keys, types)
        return found

    def _shared_out(self, keys: tuple[str, ...], types: frozenset[str]) -> list[frozenset[str]]:
        space = self.space
        given: list[set[str]] = [set() for _ in keys]
        left = set(types)
        for n, k in enumerate(keys):
            if not space.is_type(k):
                a = space.anchor(k)
                if a in left:
                    given[n].add(a)
                    left.discard(a)
        for n, k in enumerate(keys):
            mine = left & space.types_of(k)
            given[n] |= mine
            left -= mine
        return [frozenset(g) for g in given]

    def _subtree(self, key: str, mask: int, types: frozenset[str], own: bool) -> float:
        """min over the decisions of ``key`` of (its own cost when ``own``) + the growth of the
        event costs of ``types`` at the inputs they are given to, and the same below each
        composite input (its own cost counted when its anchor was given to it)."""
        current = self.mask
        memo = (key, mask, types, own, tuple(current.get(t, 0) for t in sorted(types)))
        found = self.subtree_memo.get(memo)
        if found is not None:
            return found
        self.work += 1
        type_cost = self.space.type_cost
        anchor = self.space.anchor
        best = math.inf
        for placed, here, inputs, keys in self._templates(key):
            value = self._own_floor(key, placed, mask) if own and mask else 0.0
            if value >= best:
                continue
            for (i, _, is_type, moves), mine in zip(inputs, self._share(keys, types), strict=True):
                if not mine or not moves:
                    continue
                if is_type:
                    now = current.get(i, 0)
                    value += type_cost(i, now | here) - type_cost(i, now)
                elif anchor(i) in mine:
                    value += self._subtree(i, here, mine, True)
                else:
                    value += self._subtree(i, 0, mine, False)
                if value >= best:
                    break
            if value < best:
                best = value
        if len(self.subtree_memo) > MEMO_ROWS:
            self.subtree_memo.clear()
        self.subtree_memo[memo] = best
        return best

    def _templates(self, key: str) -> list[tuple[Placed, int, tuple]]:
        """Per (choice, placement) of ``key``: the placement, its nodes and its inputs as
        (input, its types, whether a type, whether it moves), cached."""
        found = self.templates.get(key)
        if found is None:
            space = self.space
            found = []
            for choice in space.choices(key):
                inputs = tuple(
                    (i, space.types_of(i), space.is_type(i), i != choice.partition)
                    for i in choice.inputs
                )
                if choice.partition is None:
                    places = [Placed(n, None) for n in space.network.nodes]
                else:
                    places = [Placed(None, choice.partition)]
                keys = choice.inputs
                for placed in places:
                    found.append((placed, space.nodes_mask(placed), inputs, keys))
            self.templates[key] = found
        return found

    # ------------------------------------------------------------------ search
    def _decisions(self, key: str) -> list[Decision]:
        space = self.space
        consumed = bool(self.consumers.get(key))
        out = []
        for choice in space.choices(key):
            if choice.partition is None:
                places = [Placed(n, None) for n in space.network.nodes]
            else:
                places = [Placed(None, choice.partition)]
            for placed in places:
                outputs = space.selectors(key, placed) if consumed else [None]
                out.extend(Decision(choice, placed, o) for o in outputs)
        return out

    def run(self) -> None:
        """Search from the empty design (module docstring)."""
        if not self.frontier:
            return
        key = min(self.frontier, key=self.rank.__getitem__)
        scored = []
        for decision in self._decisions(key):
            self._step()
            undo, added = self._apply(key, decision)
            value = self._bound()
            self._revert(key, decision, undo, added)
            if value < self.best_cost * (1 - TOLERANCE):
                scored.append((value, len(scored), decision))
        scored.sort(key=lambda t: (t[0], t[1]))
        for value, _, decision in scored:
            if value >= self.best_cost * (1 - TOLERANCE):
                break
            undo, added = self._apply(key, decision)
            if not self.frontier:
                cost = math.fsum(self.term.values())
                if cost < self.best_cost * (1 - TOLERANCE):
                    self.best_cost = cost
                    self.best = dict(self.fixed)
            else:
                self.run()
            self._revert(key, decision, undo, added)

    def _step(self) -> None:
        self.steps += 1
        self.work += 1
        if self.steps > self.budget or self.work > self.work_budget:
            what = f"{self.budget:,} steps" if self.steps > self.budget else "its budget"
            raise ExactTooLarge(f"the exact search needs more than {what} on this instance")
        if not self.steps % DEADLINE_EVERY and time.perf_counter() > self.deadline:
            raise ExactOutOfTime("the exact search reached its time budget")
