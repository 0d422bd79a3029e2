"""The ZStream tree-plan generator (adaptive-CEP paper §4.2, Algorithm 3).

A dynamic programme over contiguous ranges of the units (in pattern order):
``Cost(leaf) = r``, ``Cost(T) = Cost(L) + Cost(R) + Card(T)`` with
``Card(T) = Π r · Π sel`` over the range. For every range the cheapest split is kept (ties:
the leftmost split). Each comparison "chosen split ≤ other split" of a range that ends up
as an inner node of the plan is a deciding condition of that block.

Deviation from the paper, on purpose: the paper freezes the costs of the subtrees in an
invariant as constants; here both sides are re-evaluated with the current statistics, the
alternative side with the subtrees the programme had chosen for it. The re-evaluated
alternative is an upper bound of what a new run would find for that split, so a violated
invariant proves that a new run builds a different subtree: Theorem 1 holds exactly.

>>> from inev.simulator.engine.statistics import Stats
>>> plan, _ = zstream_plan(Stats((1.0, 1.0, 100.0), ((1, 1, 1),) * 3))
>>> plan.tree
((0, 1), 2)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from inev.simulator.engine.evaluation_plans import Tree, TreePlan
from inev.simulator.engine.invariant_noise import pair_index
from inev.simulator.engine.invariants import DecidingCondition
from inev.simulator.engine.statistics import Stats


def cardinality(units: tuple[int, ...], stats: Stats) -> float:
    """Expected number of partial matches over ``units``: Π r · Π sel."""
    v = 1.0
    for i, u in enumerate(units):
        v *= stats.rates[u]
        row = stats.sel[u]
        for w in units[:i]:
            v *= row[w]
    return v


def tree_cost(tree: Tree, stats: Stats) -> float:
    """Cost of a tree under the statistics (leaves cost their rate)."""
    if isinstance(tree, int):
        return stats.rates[tree]
    return tree_cost(tree[0], stats) + tree_cost(tree[1], stats) + cardinality(_leaves(tree), stats)


def _leaves(tree: Tree) -> tuple[int, ...]:
    return (tree,) if isinstance(tree, int) else _leaves(tree[0]) + _leaves(tree[1])


class SplitCosts:
    """The costs of the trees of one generation's deciding conditions over ``n`` units, as
    :func:`tree_cost` computes them, to the same float, but cheaper.

    Every subtree is interned once as a flat step ``(a, b, card)``: its children (a unit
    ``u >= 0``, or ``~k`` for the ``k``-th interned subtree) and the factors of its
    cardinality in :func:`cardinality`'s order, as indices into the rates followed by the
    selectivity rows (``u`` for ``r_u``, ``n + u·n + w`` for ``sel(u, w)``), multiplied left
    to right in C by ``math.prod``. The cost of a subtree is kept per statistics object
    (the last 64, held, so that an ``id`` is never reused while it keys a cost): the sides
    of a block's conditions and of its parent's share their subtrees, so a check, or a
    reset's noise estimate over each perturbed statistic, costs each subtree once. Exact:
    a kept cost is the float its recomputation would give (a ``Stats`` is immutable).

    >>> costs = SplitCosts(3)
    >>> costs.intern(((0, 1), 2))
    -2
    >>> costs.steps
    [(0, 1, (0, 1, 6)), (-1, 2, (0, 1, 6, 2, 9, 10))]
    >>> s = Stats((1.0, 1.0, 100.0), ((1, 1, 1),) * 3)
    >>> costs.cost(-2, s) == tree_cost(((0, 1), 2), s) == 203.0
    True
    """

    KEPT = 64
    """Statistics objects whose subtree costs are kept."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ids: dict[Tree, int] = {}
        self.steps: list[tuple[int, int, tuple[int, ...]]] = []
        self.kept: dict[int, tuple[Stats, list[float], dict[int, float]]] = {}

    def intern(self, tree: Tree) -> int:
        """``tree``'s reference: its unit if a leaf, else ``~k`` for its step ``k``."""
        if isinstance(tree, int):
            return tree
        k = self.ids.get(tree)
        if k is None:
            a, b = self.intern(tree[0]), self.intern(tree[1])
            units, n = _leaves(tree), self.n
            card = [
                x for i, u in enumerate(units) for x in (u, *(n + u * n + w for w in units[:i]))
            ]
            self.steps.append((a, b, tuple(card)))
            k = self.ids[tree] = len(self.steps) - 1
        return ~k

    def cost(self, ref: int, stats: Stats) -> float:
        """The cost of the tree of ``ref`` (:meth:`intern`) under ``stats``."""
        entry = self.kept.get(id(stats))
        if entry is None or entry[0] is not stats:
            if len(self.kept) >= self.KEPT:
                self.kept.clear()
            flat = list(stats.rates)
            for row in stats.sel:
                flat += row
            entry = self.kept[id(stats)] = (stats, flat, {})
        return self._value(ref, entry[1], entry[2])

    def _value(self, ref: int, flat: list[float], values: dict[int, float]) -> float:
        if ref >= 0:
            return flat[ref]
        k = ~ref
        v = values.get(k)
        if v is None:
            a, b, card = self.steps[k]
            x = flat[a] if a >= 0 else self._value(a, flat, values)
            y = flat[b] if b >= 0 else self._value(b, flat, values)
            v = values[k] = x + y + math.prod(map(flat.__getitem__, card), start=1.0)
        return v


def _split_cost(left: Tree, right: Tree, costs: SplitCosts) -> Callable[[Stats], float]:
    """``tree_cost((left, right))`` as a function, from ``costs`` (a ZStream check evaluates
    two per invariant; the recursion with its tuple concatenations cost about 10 % of the
    CPU time of the traffic-like stream at 8 units). The tree is interned at the first call:
    only the invariant method reads the conditions."""
    ref: list[int] = []

    def cost(stats: Stats) -> float:
        if not ref:
            ref.append(costs.intern((left, right)))
        return costs.cost(ref[0], stats)

    return cost


def split_reads(left: Tree, right: Tree, n: int) -> frozenset[int]:
    """The value indices (:meth:`Stats.values` order) a split's cost reads: the rate of
    every unit under it and the selectivity of every two of them.

    >>> sorted(split_reads(0, (1, 2), 4))
    [0, 1, 2, 4, 5, 7]
    """
    units = _leaves(left) + _leaves(right)
    pairs = {pair_index(u, w, n) for i, u in enumerate(units) for w in units[:i]}
    return frozenset(units) | frozenset(pairs)


def zstream_plan(stats: Stats) -> tuple[TreePlan, list[DecidingCondition]]:
    """Algorithm 3: the cheapest tree and the deciding conditions of its inner nodes."""
    n = len(stats.rates)
    best: dict[tuple[int, int], tuple[float, Tree]] = {
        (i, i + 1): (stats.rates[i], i) for i in range(n)
    }
    recorded: dict[tuple[int, int], list[tuple[Tree, Tree]]] = {}
    cards = _range_cardinalities(stats)
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            card = cards[(i, j)]
            options = []
            for k in range(i + 1, j):
                cost = best[(i, k)][0] + best[(k, j)][0] + card
                options.append((cost, k))
            cost, k = min(options)
            tree: Tree = (best[(i, k)][1], best[(k, j)][1])
            best[(i, j)] = (cost, tree)
            recorded[(i, j)] = [(best[(i, m)][1], best[(m, j)][1]) for _, m in options]
    plan_tree = best[(0, n)][1]
    conditions: list[DecidingCondition] = []
    costs = SplitCosts(n)  # shared by the conditions' sides
    for block, (i, j, node) in enumerate(_inner_nodes(plan_tree)):
        # every split of a range reads the same values
        reads = functools.partial(split_reads, node[0], node[1], n)
        chosen = _split_cost(node[0], node[1], costs)  # one for the block
        for left, right in recorded[(i, j)]:
            if (left, right) != node:
                conditions.append(
                    DecidingCondition(
                        block=block,
                        chosen=chosen,
                        alternative=_split_cost(left, right, costs),
                        label=f"{node} cheaper than {(left, right)}",
                        reads=reads,
                    )
                )
    return TreePlan(plan_tree), conditions


def _range_cardinalities(stats: Stats) -> dict[tuple[int, int], float]:
    """:func:`cardinality` of every range ``(i, j)`` of units, each extending the one before:
    the loop over ``i .. j`` runs the same multiplications as the loop over ``i .. j - 1``
    first, so each value is the float :func:`cardinality` gives (in O(n³), not O(n⁴)).

    >>> s = Stats((2.0, 3.0, 5.0), ((1, 0.5, 1), (0.5, 1, 0.1), (1, 0.1, 1)))
    >>> c = _range_cardinalities(s)
    >>> c[(0, 3)] == cardinality((0, 1, 2), s) == 1.5, c[(1, 3)] == cardinality((1, 2), s)
    (True, True)
    """
    rates, sel = stats.rates, stats.sel
    n = len(rates)
    out: dict[tuple[int, int], float] = {}
    for i in range(n):
        v = 1.0
        for j in range(i, n):
            v *= rates[j]
            row = sel[j]
            for w in range(i, j):
                v *= row[w]
            out[(i, j + 1)] = v
    return out


def _inner_nodes(tree: Tree) -> list[tuple[int, int, tuple]]:
    """Inner nodes bottom-up (post-order) with their unit range."""
    out: list[tuple[int, int, tuple]] = []

    def visit(node: Tree) -> None:
        if isinstance(node, int):
            return
        visit(node[0])
        visit(node[1])
        units = _leaves(node)
        out.append((min(units), max(units) + 1, node))

    visit(tree)
    return out
