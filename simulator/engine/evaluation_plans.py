"""Evaluation plans (adaptive-CEP paper §2.2): order-based and tree-based.

A plan ranges over the engine's *units* (its inputs: a primitive type, a Kleene type, or a
sub-projection whose matches arrive as tuples), numbered 0…n-1.

* :class:`TreePlan` (ZStream): a binary tree whose leaves buffer the units' items and whose
  inner nodes join partial matches; every predicate is checked at the lowest node that
  holds all the types it reads.
* :class:`OrderPlan` (lazy chain): an order of the units, the rarest first. It is run as the
  left-deep tree over the order: partial matches grow along the chain, an item of a later
  unit joins the stored prefixes and a new prefix scans back over the buffered items of the
  next unit. This is exactly the lazy NFA's behaviour with every prefix stored, and lets one
  evaluator (:mod:`.plan_runner`) run both kinds of plan.

A tree is an ``int`` leaf or a ``(left, right)`` pair.

>>> OrderPlan((2, 0, 1)).tree
((2, 0), 1)
>>> len(all_trees(4))
5
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TypeAlias

Tree: TypeAlias = int | tuple["Tree", "Tree"]


@dataclass(frozen=True)
class OrderPlan:
    """An order-based plan: the processing order of the units."""

    order: tuple[int, ...]

    @property
    def tree(self) -> Tree:
        """The left-deep tree that runs the order."""
        return left_deep(self.order)

    def __str__(self) -> str:
        return "order" + str(self.order)


@dataclass(frozen=True)
class TreePlan:
    """A tree-based (ZStream) plan."""

    tree: Tree

    def __str__(self) -> str:
        return "tree" + str(self.tree)


Plan: TypeAlias = OrderPlan | TreePlan


def left_deep(order: tuple[int, ...] | list[int]) -> Tree:
    """The left-deep tree ``((o0, o1), o2)…`` over an order."""
    tree: Tree = order[0]
    for unit in order[1:]:
        tree = (tree, unit)
    return tree


def leaves(tree: Tree) -> tuple[int, ...]:
    """The units of a tree, left to right."""
    if isinstance(tree, int):
        return (tree,)
    return leaves(tree[0]) + leaves(tree[1])


def check_tree(tree: Tree, units: int) -> None:
    """Raise ``ValueError`` unless the tree holds every unit 0…units-1 exactly once."""
    if sorted(leaves(tree)) != list(range(units)):
        raise ValueError(f"plan {tree} must use each of the {units} units exactly once")


def all_trees(n: int, items: tuple[int, ...] | None = None) -> list[Tree]:
    """Every binary tree over the units in the given order (the ZStream search space)."""
    seq = tuple(range(n)) if items is None else items
    if len(seq) == 1:
        return [seq[0]]
    out: list[Tree] = []
    for k in range(1, len(seq)):
        for left in all_trees(0, seq[:k]):
            for right in all_trees(0, seq[k:]):
                out.append((left, right))
    return out


def all_orders(n: int) -> list[tuple[int, ...]]:
    """Every processing order of ``n`` units."""
    return list(itertools.permutations(range(n)))
