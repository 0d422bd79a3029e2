"""Alg. 2's prelude from per-projection parts (planner/prelude.py) against Alg. 2's own
derivation: a hand-checked combination, and every combination a search asks about."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from inev.planner import improve, prelude
from inev.planner.alg2_placement import _multi_node_targets, _outputs_and_inputs
from inev.planner.combination_model import Combination, inputs_first
from inev.planner.planning import plan_workload
from inev.planner.projections import make_projection, primitive_projection
from inev.topologies.network import Network
from inev.workloads.workload import Query
from tests.test_incremental import build, instances


def _alg2(network, combination, keep_matches):
    projections, outputs, extended = _outputs_and_inputs(network, combination, keep_matches)
    order = inputs_first(projections, extended)
    return (
        projections,
        outputs,
        extended,
        order,
        _multi_node_targets(network, combination, extended),
    )


def _hand_case():
    # path 0-1-2-3: A at 0, C at 1, B at 2 and 3; SEQ(A, B) partitioned by B feeds the sink
    net = Network.build(
        range(4),
        [(0, 1), (1, 2), (2, 3)],
        {"A": (10.0, [0]), "B": (10.0, [2, 3]), "C": (1.0, [1])},
    )
    q = Query.build("q", "SEQ(A, B, C)")
    rates = net.global_rates()
    ab = make_projection(q, {"A", "B"}, rates)
    sink = make_projection(q, {"A", "B", "C"}, rates)
    prims = {t: primitive_projection(t, rates[t]) for t in "ABC"}
    comb = Combination(
        {**prims, ab.key: ab, sink.key: sink},
        {ab.key: ("A", "B"), sink.key: (ab.key, "C")},
        {ab.key: "B"},
        {"q": sink.key},
    )
    return net, comb, ab, sink


def test_hand_checked_prelude():
    net, comb, ab, sink = _hand_case()
    parts = prelude.Preludes(net)
    projections, outputs, extended, order, spread = parts(comb, frozenset())
    # DissEv = {A} (the multi-node projection's non-partitioning event input), so SEQ(A, B)'s
    # candidate selector is {B}: its vertices send their local B events (20 per time unit in
    # all) instead of R(SEQ(A, B)) = 20 · 20 · window matches, and the sink then needs A too
    assert ab.rate > 20
    assert outputs == {"A": None, "B": None, "C": None, ab.key: ("B",), sink.key: None}
    assert extended == {ab.key: ("A", "B"), sink.key: (ab.key, "C", "A")}
    assert order == ["A", "B", "C", ab.key, sink.key]
    # A travels to every source of B, the partitioning type of its multi-node consumer
    assert spread == {"A": frozenset({2, 3})}
    assert projections.keys() == comb.projections.keys()
    # the sink sending its matches (keep_matches) changes nothing; SEQ(A, B) doing so drops
    # the selector and the extra input A
    assert parts(comb, frozenset({sink.key}))[1] == outputs
    kept = parts(comb, frozenset({ab.key}))
    assert kept[1][ab.key] is None
    assert kept[2] == {ab.key: ("A", "B"), sink.key: (ab.key, "C")}
    # the second call reuses the parts and gives the same prelude as Alg. 2 derives it
    assert parts(comb, frozenset()) == _alg2(net, comb, frozenset())


class CheckedPreludes(prelude.Preludes):
    """Every prelude compared with Alg. 2's own derivation."""

    calls = 0

    def __call__(self, combination, keep_matches):
        found = super().__call__(combination, keep_matches)
        fresh = _alg2(self.network, combination, keep_matches)
        assert found[:4] == fresh[:4]
        assert found[4].keys() == fresh[4].keys()
        for key, nodes in found[4].items():
            assert nodes is fresh[4][key]  # the same interned set: caches compare identity
        CheckedPreludes.calls += 1
        return found


@settings(max_examples=12, deadline=None)
@given(instances)
def test_every_prelude_a_search_asks_for_is_alg2s(spec):
    before = CheckedPreludes.calls
    net, wl = build(spec)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(improve, "INCREMENTAL", True)
        m.setattr("inev.planner.incremental.Preludes", CheckedPreludes)
        plan_workload(net, wl)
    assert CheckedPreludes.calls > before
