"""How much the local search may spend: counts of placed designs, and the vertices they place.

The search's budgets are counts, not seconds, so that plans are reproducible: a local search
from a design may place :func:`evaluations` designs, each of :func:`vertices` vertices, and
the whole search on a large network spends from one :class:`~inev.planner.paper_designs.Work`.
"""

from __future__ import annotations

from inev.planner.improve import Design
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import Space
from inev.topologies.network import Network

EVALUATIONS = 60
"""Designs the local search may place at effort 1, plus :data:`PER_PROJECTION` per composite
projection of the starting design (a count, not seconds, so that plans are reproducible)."""
PER_PROJECTION = 12
WORK = 400_000
"""At effort 1 one local search places at most this many vertices in all (evaluations times
the vertices of a plan), so that searches on large networks stay bounded."""
WORK_TOTAL = 200_000
"""At effort 1 the whole search (every local search, and the queries planned alone for the
isolated candidate) on a network of more than :data:`WORK_CAP_FROM` nodes places at most this
many vertices beyond the paper's designs (about 80 µs each on 10,000 nodes), so that time
grows with the network, not faster: on 10,000 nodes at node ratio 0.05 (18,000 vertices a
plan) that is some fifteen placed designs. Smaller networks keep the search of issue 13 (each
local search bounded by :data:`WORK` alone), whose plan quality is measured."""
WORK_CAP_FROM = 100
"""Networks above this many nodes get the whole-search budget :data:`WORK_TOTAL`."""


def vertices(design: Design, space: Space, network: Network) -> int:
    """The number of vertices Alg. 2 places for ``design``."""
    reached = design.reached()
    combination = design.combination(space.pool)
    total = sum(len(network.sources(k)) for k in reached if space.pool[k].is_primitive)
    total += sum(
        combination.regional[k].count
        if k in combination.regional
        else len(network.sources(combination.multi_node[k]))
        if k in combination.multi_node
        else 1
        for k in reached
        if not space.pool[k].is_primitive
    )
    return total


def evaluations(design: Design, space: Space, options: PlanOptions, network: Network) -> int:
    """The search's budget: a count of placed designs, smaller for larger plans."""
    composite = sum(1 for k in design.reached() if not space.pool[k].is_primitive)
    count_placed = vertices(design, space, network)
    count = min(EVALUATIONS + PER_PROJECTION * composite, WORK // max(count_placed, 1))
    return int(options.effort * max(count, 10))
