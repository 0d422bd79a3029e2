"""Incremental placement (planner/incremental.py) against Alg. 2 from scratch: every design
a search places gets the same ψ and nodes bit for bit, and the plans are the same."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner import improve
from inev.planner.alg2_placement import placement_cost
from inev.planner.inev_graph import plan_to_dict
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload

instances = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10_000),
        "nodes": st.integers(5, 25),
        "types": st.integers(4, 8),
        "skew": st.sampled_from([1.1, 1.3, 1.6, 2.0]),
        "queries": st.integers(1, 4),
        "length": st.integers(2, 5),
        "kleene": st.integers(0, 1),
        "negation": st.integers(0, 1),
        "selectivity": st.sampled_from([0.1, 0.01, 1.0]),
    }
)


def build(spec):
    net = generate_network(
        nodes=spec["nodes"], event_types=spec["types"], skew=spec["skew"], seed=spec["seed"]
    )
    length = min(spec["length"], spec["types"])
    wl = generate_workload(
        net,
        queries=spec["queries"],
        length=length,
        kleene=spec["kleene"],
        negation=spec["negation"] if length >= 3 else 0,
        selectivity=spec["selectivity"],
        seed=spec["seed"],
    )
    return net, wl


class CheckedPlacer(improve.Placer):
    """The incremental placer, each answer compared with Alg. 2 from scratch."""

    calls = 0

    def __call__(self, combination, pinned, keep_matches):
        found = super().__call__(combination, pinned, keep_matches)
        fresh = placement_cost(
            self.network, combination, pinned, keep_matches, with_nodes=True, tight=False
        )
        assert found[0] == fresh[0]  # bit for bit, not close
        assert found[1] == fresh[1]
        CheckedPlacer.calls += 1
        return found


def _plan(net, wl, incremental, monkeypatch, options=None):
    monkeypatch.setattr(improve, "INCREMENTAL", incremental)
    doc = plan_to_dict(plan_workload(net, wl, options=options))
    doc.pop("planning_seconds")
    return doc


@settings(max_examples=40, deadline=None)
@given(instances)
def test_every_placed_design_costs_what_alg2_from_scratch_says(spec):
    before = CheckedPlacer.calls
    net, wl = build(spec)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(improve, "Placer", CheckedPlacer)
        m.setattr(improve, "INCREMENTAL", True)
        plan_workload(net, wl)
    assert CheckedPlacer.calls > before


@settings(max_examples=30, deadline=None)
@given(instances)
def test_plans_are_the_same_with_and_without_incremental_placement(spec):
    net, wl = build(spec)
    with pytest.MonkeyPatch.context() as m:
        assert _plan(net, wl, True, m) == _plan(net, wl, False, m)


def test_a_pinned_latency_bound_plan_is_the_same(monkeypatch):
    """A latency-bounded plan (the search pins and re-roots) on a 30-node network."""
    net = generate_network(nodes=30, event_types=6, skew=1.3, seed=3)
    wl = generate_workload(net, queries=3, length=4, selectivity=0.1, seed=3)
    options = PlanOptions(latency_factor=1.5)
    on = _plan(net, wl, True, monkeypatch, options)
    assert on == _plan(net, wl, False, monkeypatch, options)


class BoundedChecked(improve.Placer):
    """The placer's bounded answers compared with Alg. 2 from scratch: a finished placement
    is exact, a stopped one says ``below`` and ψ is not below it."""

    finished = stopped = 0

    def bounded(self, combination, pinned, keep_matches, below=float("inf")):
        found = super().bounded(combination, pinned, keep_matches, below)
        psi, nodes = placement_cost(
            self.network, combination, pinned, keep_matches, with_nodes=True, tight=False
        )
        if found[1] is None:
            assert found[0] == below and psi >= below
            BoundedChecked.stopped += 1
        else:
            assert found == (psi, nodes)
            BoundedChecked.finished += 1
        return found


@settings(max_examples=25, deadline=None)
@given(instances)
def test_a_bounded_placement_is_exact_or_not_below_its_bound(spec):
    net, wl = build(spec)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(improve, "Placer", BoundedChecked)
        m.setattr(improve, "INCREMENTAL", True)
        plan_workload(net, wl)


def test_the_local_search_stops_placements_early():
    """On the default 20-node, 5-query instance most rejected neighbours stop early."""
    net = generate_network(nodes=20, event_types=6, skew=1.3, seed=1)
    wl = generate_workload(net, queries=3, length=5, selectivity=0.1, seed=1)
    before = BoundedChecked.stopped
    with pytest.MonkeyPatch.context() as m:
        m.setattr(improve, "Placer", BoundedChecked)
        m.setattr(improve, "INCREMENTAL", True)
        plan_workload(net, wl)
    assert BoundedChecked.stopped > before
