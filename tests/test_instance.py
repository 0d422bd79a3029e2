"""The prepared instance: OR split once per workload, the planning network once, the query's
pattern facts cached; the planner, repair and simulator take it (issue 47)."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.planner.planning import plan_workload, plannable, prepare
from inev.planner.repair import repair_plan
from inev.simulator.run import simulate
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads import workload as workload_module
from inev.workloads.generate import generate_workload
from inev.workloads.instance import Instance, prepare_instance
from inev.workloads.pattern import kleene_types, negated_types
from inev.workloads.workload import Query, Workload

NET = Network.build(
    range(3),
    [(0, 1), (1, 2)],
    {"A": (1.0, [0]), "B": (4.0, [1]), "C": (2.0, [2]), "D": (3.0, [0, 2])},
)


def or_workload() -> Workload:
    return Workload.build(
        2.0,
        [
            Query.build("q", "SEQ(A, OR(B, C), D)", selectivity={"A B": 0.1, "A C": 0.2}),
            Query.build("r", "AND(B, D)"),
        ],
    )


def counting_splits(monkeypatch) -> list[str]:
    """A list of the patterns whose OR is split from now on (one entry per split of a query's
    pattern: the split behind :attr:`Query.branches`)."""
    calls: list[str] = []
    original = workload_module.split_or

    def counted(pattern):
        calls.append(str(pattern))
        return original(pattern)

    monkeypatch.setattr(workload_module, "split_or", counted)
    return calls


def test_prepare_instance_splits_or_by_hand():
    inst = prepare_instance(NET, or_workload())
    names = [q.name for q in inst.workload.queries]
    assert names == ["q/1", "q/2", "r"]  # q's branches named q/1, q/2; r keeps its name
    assert [str(q.pattern) for q in inst.workload.queries] == [
        "SEQ(A, B, D)",
        "SEQ(A, C, D)",
        "AND(B, D)",
    ]
    # each branch keeps only the selectivities over its own types
    assert inst.workload.query("q/1").selectivities == ((("A", "B"), 0.1),)
    assert inst.workload.query("q/2").selectivities == ((("A", "C"), 0.2),)
    assert inst.network is NET and inst.planning_network is NET  # no variables


def test_or_free_splits_each_query_once(monkeypatch):
    wl = or_workload()
    calls = counting_splits(monkeypatch)
    first = wl.or_free
    assert wl.or_free is first and first.or_free is first  # an OR-free workload is its own
    assert prepare_instance(NET, wl).workload is first
    assert calls == ["SEQ(A, OR(B, C), D)", "AND(B, D)"]  # each query's pattern, once
    assert wl.queries[0].branches is wl.queries[0].branches  # cached on the query
    again = or_workload().or_free  # new queries: split anew, to the same value
    assert again == first and len(calls) == 4
    # a new workload value of the same queries is split again, its queries are not
    assert replace(wl).or_free is not first and replace(wl).or_free == first and len(calls) == 4


def test_one_split_per_query_for_plan_simulation_and_repair(monkeypatch):
    """Planning, simulating and repairing one workload value split each query's pattern once
    in all (before the prepared instance: 3 + 3 + 9 splits of this workload, each splitting
    both patterns)."""
    wl = or_workload()
    calls = counting_splits(monkeypatch)
    plan = plan_workload(NET, wl)
    simulate(NET, wl, plan, duration=2.0, seed=1)
    repair_plan(plan, NET, wl, [{"kind": "set-rate", "type": "B", "rate": 8.0}])
    assert calls == ["SEQ(A, OR(B, C), D)", "AND(B, D)"]


def test_planning_network_makes_variables_streams_once():
    net = Network.build([0, 1], [(0, 1)], {"G": (2.0, [1]), "A": (1.0, [0])})
    wl = Workload.build(1.0, [Query.build("q", "SEQ(G a, A, G b)")])
    inst = prepare_instance(net, wl)
    planning = inst.planning_network
    assert inst.planning_network is planning  # computed once
    assert set(planning.event_types) == {"G", "A", "a", "b"}
    assert planning.sources("a") == planning.sources("b") == (1,)
    assert planning.rate("a") == 2.0


def test_the_instance_is_a_value_and_survives_pickling():
    wl = or_workload()
    wl.or_free  # noqa: B018 -- cache it: the pickled workload carries its split
    back = pickle.loads(pickle.dumps(wl))
    assert back == wl and back.or_free == wl.or_free and back.or_free.or_free is back.or_free
    assert Instance(NET, wl.or_free) == prepare_instance(NET, wl)


def test_plannable_refuses_as_prepare_did():
    single = Workload.build(1.0, [Query.build("q", "OR(A, SEQ(B, C))")])  # q/1 is A alone
    for build in (prepare, plannable):
        with pytest.raises(InevError, match="query q/1: a single event type needs no plan"):
            build(NET, single)
    unknown = Workload.build(1.0, [Query.build("q", "SEQ(A, Z)")])
    with pytest.raises(InevError, match="event type Z"):
        plannable(NET, unknown)
    assert plannable(NET, or_workload()).workload == prepare(NET, or_workload())


def test_query_facts_by_hand():
    q = Query.build("q", "SEQ(A, NOT(B), KL(C), NSEQ(D, E, F))")
    assert q.negated == frozenset({"B", "E"})
    assert q.kleene == frozenset({"C"})
    assert q.negated is q.negated  # cached on the query


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 2), st.integers(0, 2))
def test_query_facts_match_the_pattern_functions(seed, kleene, negation):
    net = generate_network(nodes=6, event_types=8, seed=seed % 50)
    wl = generate_workload(net, queries=3, length=6, kleene=kleene, negation=negation, seed=seed)
    for q in (*wl.queries, *wl.or_free.queries):
        assert q.negated == negated_types(q.pattern)
        assert q.kleene == kleene_types(q.pattern)
