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


Program = tuple[tuple[int, int, tuple[int, ...]], ...]
"""A tree's cost as flat steps (:func:`tree_program`)."""


def tree_program(tree: Tree, n: int) -> Program:
    """The inner nodes of ``tree`` (over ``n`` units) in post-order, each ``(a, b, card)``:
    its children (a unit ``u >= 0``, or ``~k`` for the ``k``-th inner node) and the factors
    of its cardinality in :func:`cardinality`'s order, as indices into the rates followed by
    the selectivity rows (``u`` for ``r_u``, ``n + u·n + w`` for ``sel(u, w)``).
    :func:`run_program` evaluates it with the operations of :func:`tree_cost` in the same
    order, so to the same float.

    >>> tree_program(((0, 1), 2), 3)
    ((0, 1, (0, 1, 6)), (-1, 2, (0, 1, 6, 2, 9, 10)))
    """
    steps: list[tuple[int, int, tuple[int, ...]]] = []

    def visit(node: Tree) -> tuple[int, tuple[int, ...]]:
        if isinstance(node, int):
            return node, (node,)
        (a, left), (b, right) = visit(node[0]), visit(node[1])
        units = left + right  # _leaves(node)
        card = [x for i, u in enumerate(units) for x in (u, *(n + u * n + w for w in units[:i]))]
        steps.append((a, b, tuple(card)))
        return ~(len(steps) - 1), units

    visit(tree)
    return tuple(steps)


def run_program(program: Program, stats: Stats) -> float:
    """The cost of the tree of ``program`` (:func:`tree_program`) under ``stats``: the
    products in C (``math.prod`` multiplies left to right, as :func:`cardinality` does).

    >>> s = Stats((1.0, 1.0, 100.0), ((1, 1, 1),) * 3)
    >>> run_program(tree_program(((0, 1), 2), 3), s) == tree_cost(((0, 1), 2), s) == 203.0
    True
    """
    flat = list(stats.rates)
    for row in stats.sel:
        flat += row
    get = flat.__getitem__
    costs: list[float] = []
    for a, b, card in program:
        x = flat[a] if a >= 0 else costs[~a]
        y = flat[b] if b >= 0 else costs[~b]
        costs.append(x + y + math.prod(map(get, card), start=1.0))
    return costs[-1]


def _split_cost(left: Tree, right: Tree, n: int) -> Callable[[Stats], float]:
    """``tree_cost((left, right))`` as a function: evaluated from its flat program (a
    ZStream check evaluates two per invariant; the recursion with its tuple concatenations
    cost about 10 % of the CPU time of the traffic-like stream at 8 units)."""
    program: list[Program] = []  # built at the first call: most conditions are never read

    def cost(stats: Stats) -> float:
        if not program:
            program.append(tree_program((left, right), n))
        return run_program(program[0], stats)

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
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            card = cardinality(tuple(range(i, j)), stats)
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
    for block, (i, j, node) in enumerate(_inner_nodes(plan_tree)):
        # every split of a range reads the same values
        reads = functools.partial(split_reads, node[0], node[1], n)
        chosen = _split_cost(node[0], node[1], n)  # one for the block: its program built once
        for left, right in recorded[(i, j)]:
            if (left, right) != node:
                conditions.append(
                    DecidingCondition(
                        block=block,
                        chosen=chosen,
                        alternative=_split_cost(left, right, n),
                        label=f"{node} cheaper than {(left, right)}",
                        reads=reads,
                    )
                )
    return TreePlan(plan_tree), conditions


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
