"""Memos of issue 46 that rate kicks share: projections made per type subset and the rates
of its types (projections._made), and the projections a merge may take per pool size
(Evaluator.mergeable). Each must give what the uncached computation gives."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner.baselines import centralized_plan
from inev.planner.improve import Evaluator, _merges, _with
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import Space, paper_designs
from inev.planner.projections import _closed_subsets, all_projections, make_projection, restrict
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload
from inev.workloads.pattern import leaf_types
from inev.workloads.rates import strip_kleene


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([10.0, 0.1, 3.0]))
def test_kicked_projections_are_made_anew(seed, factor):
    net = generate_network(nodes=6, event_types=5, seed=seed)
    wl = generate_workload(net, queries=2, length=4, negation=1, seed=seed)
    t = sorted(net.types)[seed % 5]
    for n in (net, net.with_rates({t: net.rate(t) * factor}), net):
        glob = n.global_rates()
        for q in wl.queries:
            base = strip_kleene(q.pattern)
            subsets = _closed_subsets(q, base, tuple(leaf_types(base)))
            fresh = [make_projection(q, s, glob, wl.window) for s in subsets]
            assert all_projections(q, glob, wl.window) == fresh


def _oracle(pool, design, key):
    """The merge move as written before the candidates were kept (one pass over the pool)."""
    consumer, choice = pool[key], design.choices[key]
    base = strip_kleene(consumer.pattern)
    for p in pool.values():
        if (
            p.is_primitive
            or p.key == key
            or not p.types < consumer.types
            or choice.partition in p.types
            or p.key in choice.inputs
            or not set(p.selectivity) <= set(consumer.selectivity)
            or not set(p.conditions) <= set(consumer.conditions)
        ):
            continue
        restricted = restrict(base, p.types)
        if restricted is None or (restricted != p.pattern and str(restricted) != str(p.pattern)):
            continue
        covered = [i for i in choice.inputs if i != choice.partition and pool[i].types <= p.types]
        if covered and p.key in design.choices:
            inputs = (*(i for i in choice.inputs if i not in covered), p.key)
            yield _with(design, key, replace(choice, inputs=inputs, items={}))


def test_merge_candidates_per_pool_size_are_the_uncached_ones():
    net = generate_network(nodes=10, seed=4)
    wl = generate_workload(net, queries=3, seed=4)
    central = centralized_plan(net, wl)
    space = Space()
    designs = paper_designs(net, wl, math.inf, PlanOptions(), central.centralized_node, space)
    evaluate = Evaluator(net, space.pool)
    moves = 0
    for design in designs:
        for key in design.reached():
            if not design.choices[key].inputs:
                continue
            kept = [d.signature() for d in _merges(space.pool, design, key,
                                                   evaluate.mergeable(key))]  # fmt: skip
            assert kept == [d.signature() for d in _oracle(space.pool, design, key)]
            moves += len(kept)
    assert moves > 0 and evaluate.merge_memo
