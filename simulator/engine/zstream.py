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

from collections.abc import Callable

from inev.simulator.engine.evaluation_plans import Tree, TreePlan
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


def _split_cost(left: Tree, right: Tree) -> Callable[[Stats], float]:
    def cost(stats: Stats) -> float:
        return (
            tree_cost(left, stats)
            + tree_cost(right, stats)
            + cardinality(_leaves(left) + _leaves(right), stats)
        )

    return cost


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
        for left, right in recorded[(i, j)]:
            if (left, right) != node:
                conditions.append(
                    DecidingCondition(
                        block=block,
                        chosen=_split_cost(node[0], node[1]),
                        alternative=_split_cost(left, right),
                        label=f"{node} cheaper than {(left, right)}",
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
