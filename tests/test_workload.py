"""Workloads: validation, file round trips, OR splitting, the generator."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload
from inev.workloads.io import load_workload, save_workload, workload_from_dict, workload_to_dict
from inev.workloads.pattern import Operator, kleene_types, negated_types, walk
from inev.workloads.workload import Query, Workload

SPEC_WORKLOAD = {
    "format": "inev-workload/1",
    "window": 1.0,
    "queries": [
        {
            "name": "q1",
            "pattern": "SEQ(A, AND(B, C), KL(D), NSEQ(E, F, G))",
            "selectivity": {"A B": 0.05, "B C": 0.2},
            "where": "A.id == B.id AND C.v > 10",
            "return": "COUNT(*)",
        }
    ],
}


def test_spec_example_loads_and_round_trips(tmp_path):
    workload = workload_from_dict(SPEC_WORKLOAD)
    q = workload.queries[0]
    assert q.selectivity_of("B", "A") == 0.05
    assert q.selectivity_of("A", "G") == 1.0
    assert str(q.where) == "(A.id == B.id AND C.v > 10)"
    assert str(q.returns) == "COUNT(*)"
    save_workload(workload, tmp_path / "w.json")
    again = load_workload(tmp_path / "w.json")
    assert again == workload


def query(**changes):
    entry = {"name": "q1", "pattern": "SEQ(A, B, C)", "selectivity": {"A B": 0.5}}
    entry.update(changes)
    return {"format": "inev-workload/1", "window": 2.0, "queries": [entry]}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (query(pattern="SEQ(A, B, A)"), "event type A is used twice"),
        (query(pattern="SEQ(A, XOR(B, C))"), "unknown operator 'XOR'"),
        (query(pattern="SEQ(A, KL(AND(B, NOT(C))))"), "Kleene over a negation"),
        (query(pattern="SEQ(GOOG a, AAPL GOOG)"), "variable GOOG has the name of an event type"),
        (query(pattern="NSEQ(A, B)"), "NSEQ needs three children"),
        (query(selectivity={"A B": 0}), "outside (0, 1]"),
        (query(selectivity={"A B": 1.5}), "outside (0, 1]"),
        (query(selectivity={"A B": "x"}), "outside (0, 1]"),
        (query(selectivity={"A Z": 0.5}), "names type Z not in the pattern"),
        (query(selectivity={"A A": 0.5}), "two different types"),
        (query(selectivity={"A B": 0.5, "B A": 0.4}), "given twice"),
        (query(where="Z.v > 1"), "where clause names type Z"),
        (query(where="NEXT(A).v > A.v"), "NEXT(A) needs A under KL"),
        (query(where="A.v >"), "expected a value"),
        (query(**{"return": "SUM(Z.v)"}), "return clause names type Z"),
        (query(weight=-1), "weight must be a positive number"),
        (query(colour="red"), "unknown key 'colour'"),
        ({"format": "inev-workload/1", "window": 0, "queries": query()["queries"]}, "window"),
        ({"format": "inev-workload/1", "window": 1, "queries": []}, "no queries"),
        ({"format": "inev-workload/1", "queries": []}, "missing key 'window'"),
    ],
)
def test_invalid_workloads_are_refused(document, message):
    with pytest.raises(InevError) as info:
        workload_from_dict(document, origin="wl.json")
    text = str(info.value)
    assert message in text
    assert text.startswith("wl.json: ")
    assert "\n" not in text


def test_duplicate_query_names_are_refused():
    q = Query.build("q", "SEQ(A, B)")
    with pytest.raises(InevError, match="used twice"):
        Workload.build(1.0, [q, q])


def test_unknown_event_type_for_the_network():
    net = generate_network(event_types=3, seed=1)
    workload = Workload.build(1.0, [Query.build("q1", "SEQ(A, Q)")])
    with pytest.raises(InevError) as caught:
        workload.check_network(net)
    assert str(caught.value) == (
        "query q1 uses event type Q, which the network does not have (its types: A, B, C)"
    )
    with pytest.raises(InevError, match=r"^wl.json: query q1 uses event type Q, which net.json"):
        workload.check_network(net, ("wl.json", "net.json"))


def test_or_free_keeps_the_relevant_selectivities():
    w = Workload.build(1.0, [Query.build("q", "SEQ(A, OR(B, C))", {"A B": 0.5, "A C": 0.25})])
    split = w.or_free
    assert [q.name for q in split.queries] == ["q/1", "q/2"]
    assert split.queries[0].selectivity == {("A", "B"): 0.5}
    assert split.queries[1].selectivity == {("A", "C"): 0.25}


@given(
    length=st.integers(1, 8),
    kleene=st.integers(0, 3),
    negation=st.integers(0, 2),
    seed=st.integers(0, 10_000),
)
def test_generated_queries_have_exactly_the_requested_shape(length, kleene, negation, seed):
    net = generate_network(event_types=10, seed=seed)
    if 3 * negation > length or kleene > length - negation:
        with pytest.raises(InevError):
            generate_workload(net, 2, length, kleene, negation, seed=seed)
        return
    workload = generate_workload(net, 2, length, kleene, negation, seed=seed)
    for q in workload.queries:
        assert len(q.types) == length == len(set(q.types))
        ops = Counter(n.kind for n in walk(q.pattern) if isinstance(n, Operator))
        assert ops["KL"] == kleene
        assert ops["NSEQ"] == negation
        assert len(kleene_types(q.pattern)) == kleene
        assert not (kleene_types(q.pattern) & negated_types(q.pattern))
        assert set(ops) <= {"SEQ", "AND", "KL", "NSEQ"}
        for node in walk(q.pattern):  # operators alternate: no SEQ directly under SEQ
            if isinstance(node, Operator) and node.kind in ("SEQ", "AND"):
                assert all(
                    not (isinstance(c, Operator) and c.kind == node.kind) for c in node.children
                )


def test_selectivities_are_shared_and_in_range():
    net = generate_network(event_types=8, seed=3)
    values, free, total = [], 0, 0
    for seed in range(30):
        workload = generate_workload(net, queries=4, length=5, selectivity=0.1, seed=seed)
        seen = {}
        for q in workload.queries:
            for key, value in q.selectivity.items():
                assert seen.setdefault(key, value) == value  # one value per pair, every query
                assert 0.01 <= value <= 0.1
                values.append(value)
            total += len(q.types) * (len(q.types) - 1) // 2
            free += len(q.types) * (len(q.types) - 1) // 2 - len(q.selectivity)
    assert free / total == pytest.approx(1 / 3, abs=0.05)
    assert statistics.mean(values) == pytest.approx(0.055, abs=0.005)


def test_generator_refuses_impossible_requests():
    net = generate_network(event_types=4, seed=1)
    with pytest.raises(InevError, match="exceeds the network's 4 event types"):
        generate_workload(net, length=5)
    with pytest.raises(InevError, match="selectivity scale"):
        generate_workload(net, length=3, selectivity=0)


def test_same_seed_same_workload_file(tmp_path):
    net = generate_network(seed=1)
    save_workload(generate_workload(net, 3, 5, 1, 1, seed=9), tmp_path / "a.json")
    save_workload(generate_workload(net, 3, 5, 1, 1, seed=9), tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert workload_to_dict(load_workload(tmp_path / "a.json"))["queries"]
