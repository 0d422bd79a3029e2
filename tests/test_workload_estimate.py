"""Where-selectivities measured on a trace, and how planning and evaluation use them."""

from __future__ import annotations

import doctest
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inev.workloads.estimate as estimate_module
from inev.common.errors import InevError
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import make_event
from inev.workloads.estimate import estimate_selectivities
from inev.workloads.expressions import conjuncts, evaluate, parse_condition
from inev.workloads.io import load_workload, workload_from_dict, workload_to_dict
from inev.workloads.workload import Query, Workload


def test_docstring_examples_run():
    assert doctest.testmod(estimate_module).failed == 0


def _write(path, rows):
    path.write_text(
        "time,type,node,id,k,v\n"
        + "".join(f"{t},{y},0,{i},{k},{v}\n" for i, (t, y, k, v) in enumerate(rows))
    )


def _brute(rows, a, b, where, window):
    cond = parse_condition(where)
    xs = [(i, r) for i, r in enumerate(rows) if r[1] == a]
    ys = [(i, r) for i, r in enumerate(rows) if r[1] == b]
    total = held = 0
    for (i, x), (j, y) in itertools.product(xs, ys):
        if abs(x[0] - y[0]) <= window:
            total += 1
            fx = {"time": float(x[0]), "node": 0, "id": i, "k": x[2], "v": x[3]}
            fy = {"time": float(y[0]), "node": 0, "id": j, "k": y[2], "v": y[3]}
            held += all(evaluate(c, {a: fx, b: fy}) for c in conjuncts(cond))
    return total, held


@settings(max_examples=40)
@given(seed=st.integers(0, 10**9))
def test_exact_counts_equal_brute_force(tmp_path_factory, seed):
    rng = random.Random(seed)
    rows = sorted(
        (rng.randint(0, 30), rng.choice("AB"), rng.randrange(4), rng.randint(0, 5))
        for _ in range(rng.randint(4, 40))
    )
    where = rng.choice(["A.k == B.k", "A.k == B.k AND A.v < B.v", "B.v > A.v + 1", "A.k == B.v"])
    window = float(rng.randint(1, 10))
    path = tmp_path_factory.mktemp("t") / "t.csv"
    _write(path, rows)
    wl = Workload.build(window, [Query.build("q", "AND(A, B)", where=where)])
    result = estimate_selectivities(wl, path)
    total, held = _brute(rows, "A", "B", where, window)
    (found,) = result.pairs
    assert found.candidates == total
    assert not found.sampled
    if total == 0:
        assert found.selectivity is None
        assert result.workload.queries[0].measured == frozenset()
    elif held == 0:
        assert found.selectivity == pytest.approx(0.5 / found.checked)
    else:
        assert found.selectivity == pytest.approx(held / total)
        assert result.workload.queries[0].where_selectivity == {("A", "B"): found.selectivity}


def test_large_candidate_sets_are_sampled_and_say_how_many(tmp_path):
    rng = random.Random(1)
    rows = sorted(
        (rng.uniform(0, 100), rng.choice("AB"), 0, rng.randint(0, 9)) for _ in range(3000)
    )
    path = tmp_path / "t.csv"
    _write(path, rows)
    wl = Workload.build(100.0, [Query.build("q", "AND(A, B)", where="A.v < B.v")])
    result = estimate_selectivities(wl, path, sample=5000, exact_limit=1000, seed=3)
    (found,) = result.pairs
    assert found.sampled and found.checked == 5000 and found.method == "sampled (n=5000)"
    assert found.selectivity == pytest.approx(0.45, abs=0.03)  # P(v_a < v_b), v uniform 0..9
    # the same seed gives the same estimate
    again = estimate_selectivities(wl, path, sample=5000, exact_limit=1000, seed=3)
    assert again.pairs[0].selectivity == found.selectivity


def test_keyed_pairs_with_other_conjuncts_multiply_the_key_share(tmp_path):
    # within the window: 4 pairs, 2 share a key, of which 1 has A.v < B.v
    rows = [(0, "A", 1, 1), (1, "A", 2, 5), (2, "B", 1, 3), (3, "B", 3, 0)]
    path = tmp_path / "t.csv"
    _write(path, rows)
    wl = Workload.build(10.0, [Query.build("q", "SEQ(A, B)", where="A.k == B.k AND A.v < B.v")])
    (found,) = estimate_selectivities(wl, path).pairs
    assert (found.candidates, found.keyed, found.held) == (4, 1, 1)
    assert found.selectivity == pytest.approx(1 / 4)


def test_declared_pairs_are_kept_and_other_shapes_noted(tmp_path):
    path = tmp_path / "t.csv"
    _write(path, [(0, "A", 1, 1), (1, "B", 1, 1), (2, "C", 1, 1)])
    q = Query.build(
        "q", "SEQ(A, B, C)", selectivity={"A B": 0.3}, where="A.k == B.k AND C.v > 0 AND B.k == C.k"
    )
    result = estimate_selectivities(Workload.build(5.0, [q]), path)
    out = result.workload.queries[0]
    assert out.selectivity == {("A", "B"): 0.3, ("B", "C"): 1.0}
    assert out.realised_selectivity == {("A", "B"): 0.3}
    assert any("keeps its declared selectivity" in n for n in result.notes)
    assert any("C.v > 0" in n and "not between two types" in n for n in result.notes)


def test_where_selectivity_round_trips_and_is_not_realised_as_a_hash_predicate():
    q = Query.build("q", "SEQ(A, B)", where="A.k == B.k", where_selectivity={"A B": 0.001})
    wl = Workload.build(10.0, [q])
    again = workload_from_dict(workload_to_dict(wl))
    assert again.queries[0].where_selectivity == {("A", "B"): 0.001}
    assert workload_to_dict(wl)["queries"][0]["selectivity"] == {}
    # the planner's view holds it; the engine checks the where clause alone
    assert again.queries[0].selectivity_of("A", "B") == 0.001
    engine = Engine.from_query(again.queries[0], again)
    events = [make_event(float(i), "AB"[i % 2], 0, i, {"k": 1}) for i in range(20)]
    found = sum(len(engine.push(e)) for e in events)
    assert found == sum(1 for i in range(0, 20, 2) for j in range(1, 20, 2) if 0 < j - i <= 10)
    with pytest.raises(InevError, match="both a declared and a where selectivity"):
        Query.build(
            "q", "SEQ(A, B)", {"A B": 0.5}, where="A.k == B.k", where_selectivity={"A B": 0.1}
        )
    with pytest.raises(InevError, match="needs a where clause"):
        Query.build("q", "SEQ(A, B)", where_selectivity={"A B": 0.1})


def test_estimate_cli_writes_the_workload_and_how_it_measured(tmp_path, run_cli, write_json):
    path = tmp_path / "t.csv"
    _write(path, [(0, "A", 1, 1), (1, "B", 1, 1), (2, "B", 2, 1)])
    wl = write_json(
        "wl.json",
        {
            "format": "inev-workload/1",
            "window": 5,
            "queries": [{"name": "q", "pattern": "SEQ(A, B)", "where": "A.k == B.k"}],
        },
    )
    out = tmp_path / "est.json"
    code, stdout, err = run_cli("workload", "estimate", wl, path, "-o", out)
    assert code == 0, err
    assert "1 selectivities measured" in stdout
    assert load_workload(out).queries[0].where_selectivity == {("A", "B"): 0.5}
    assert (
        json.loads(out.read_text())["estimated_from"]["pairs"]["q: A B"]["method"] == "exact (key)"
    )
    code, _, err = run_cli("workload", "estimate", wl, tmp_path / "missing.csv", "-o", out)
    assert code == 1 and err == f"error: {tmp_path / 'missing.csv'}: no such file\n"


def test_too_big_a_trace_is_refused_before_memory_runs_out(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    _write(path, [(i, "AB"[i % 2], 0, 0) for i in range(50)])
    monkeypatch.setattr(estimate_module, "MAX_EVENTS", 20)
    wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)", where="A.k == B.k")])
    with pytest.raises(InevError, match="more than 20 events of the types"):
        estimate_selectivities(wl, path)


def test_a_key_written_either_way_round_is_counted_exactly(tmp_path):
    path = tmp_path / "t.csv"
    _write(path, [(0, "A", 1, 1), (1, "A", 2, 5), (2, "B", 1, 3), (3, "B", 3, 0)])
    for where in ("A.k == B.k", "B.k == A.k"):
        wl = Workload.build(10.0, [Query.build("q", "SEQ(A, B)", where=where)])
        (found,) = estimate_selectivities(wl, path).pairs
        assert found.method == "exact (key)" and found.selectivity == pytest.approx(1 / 4)


def test_an_id_repeated_within_a_type_is_refused_as_by_every_trace_reader(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("time,type,node,id,k\n0,A,0,1,3\n1,B,0,1,3\n2,A,0,1,3\n")
    wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)", where="A.k == B.k")])
    with pytest.raises(InevError, match="id 1 of type A appears 2 times"):
        estimate_selectivities(wl, path)
    path.write_text("time,type,node,id,k\n0,A,0,1,3\n1,B,0,1,3\n2,A,0,2,3\n")
    assert estimate_selectivities(wl, path).workload.queries[0].where_selectivity == {
        ("A", "B"): 1.0
    }


def _estimated_document():
    return {
        "format": "inev-workload/1",
        "window": 5,
        "queries": [
            {
                "name": "q",
                "pattern": "SEQ(A, B)",
                "where": "A.k == B.k",
                "where_selectivity": {"A B": 0.5},
            }
        ],
        "estimated_from": {
            "trace": "t.csv",
            "events": 3,
            "window": 5,
            "pairs": {
                "q: A B": {"candidates": 2, "keyed": 1, "checked": 1, "held": 1, "method": "exact"}
            },
        },
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["queries"][0]["where_selectivity"].update({"A B": 1.5}),
         "queries[0].where_selectivity.A B is outside (0, 1] (got 1.5)"),
        (lambda d: d["queries"][0]["where_selectivity"].update({"A B": "0.5"}),
         "queries[0].where_selectivity.A B is outside (0, 1]"),
        (lambda d: d["estimated_from"].update(trace=7),
         "estimated_from.trace should be a valid string (got 7)"),
        (lambda d: d["estimated_from"]["pairs"]["q: A B"].update(candidates=-1),
         "estimated_from.pairs.q: A B.candidates should be greater than or equal to 0"),
        (lambda d: d["estimated_from"].pop("events"), "missing key 'estimated_from.events'"),
        (lambda d: d["estimated_from"].update(window=float("nan")),
         "estimated_from.window must be a finite number (got nan)"),
    ],
)  # fmt: skip
def test_the_validation_layer_checks_the_keys_estimate_writes(change, message):
    assert workload_from_dict(_estimated_document()).queries[0].where_selectivity == {
        ("A", "B"): 0.5
    }
    document = _estimated_document()
    change(document)
    with pytest.raises(InevError) as caught:
        workload_from_dict(document, "wl.json")
    assert str(caught.value).startswith(f"wl.json: {message}")
