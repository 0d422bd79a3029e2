"""Keyed joins: equality predicates partition the engine's buffers (issue 14, item 4)."""

from __future__ import annotations

import doctest
import itertools
import random
from collections import Counter

import pytest
from engine_oracle import oracle
from hypothesis import given, settings
from hypothesis import strategies as st

import inev.simulator.engine.keys as keys_module
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.evaluation_plans import OrderPlan, TreePlan, all_orders, all_trees
from inev.simulator.engine.events import make_event
from inev.simulator.engine.keys import equality_classes, join_keys
from inev.workloads.expressions import conjuncts, parse_condition
from inev.workloads.syntax import parse_pattern


def _run(engine: Engine, events) -> Counter:
    out = []
    for e in events:
        out.extend(engine.push(e))
    out.extend(engine.flush())
    return Counter(tuple(e.id for e in m) for m in out)


def test_docstring_examples_run():
    assert doctest.testmod(keys_module).failed == 0


def test_chain_keys_a_join_of_types_no_conjunct_names_together():
    c = conjuncts(parse_condition("A.b == B.b AND B.b == C.b AND C.v > 1"))
    assert [(str(x), str(y)) for x, y in join_keys(c, {"A"}, {"C"})] == [("A.b", "C.b")]
    assert [(str(x), str(y)) for x, y in join_keys(c, {"A", "B"}, {"C"})] == [("A.b", "C.b")]
    # a Kleene type is never a key: its slot holds a whole trend
    assert join_keys(c, {"A"}, {"C"}, excluded={"C"}) == []
    # expressions over one side each key too; NEXT never does
    e = conjuncts(parse_condition("A.x + 1 == B.y * 2 AND NEXT(K).x == A.x"))
    assert [(str(x), str(y)) for x, y in join_keys(e, {"B"}, {"A"})] == [("(B.y * 2)", "(A.x + 1)")]
    assert equality_classes(e) == []


def test_hand_checked_keyed_sequence_and_its_work():
    # bike ids 1 and 2; SEQ(A, B, C) on the same bike within 10
    rows = [
        (1, "A", 1),
        (2, "A", 2),
        (3, "B", 1),
        (4, "B", 2),
        (5, "C", 2),
        (6, "C", 1),
        (7, "C", 3),
        (20, "C", 1),
    ]
    events = [make_event(t, ty, 0, i, {"bid": b}) for i, (t, ty, b) in enumerate(rows)]
    engine = Engine("SEQ(A, B, C)", 10.0, where="A.bid == B.bid AND B.bid == C.bid")
    found = _run(engine, events)
    assert found == Counter({(0, 2, 5): 1, (1, 3, 4): 1})
    plain = Engine("SEQ(A, B, C)", 10.0, where="NOT (A.bid != B.bid) AND NOT (B.bid != C.bid)")
    assert _run(plain, events) == found  # same matches, found by scanning the buffers


def _keyed_instance(seed: int):
    rng = random.Random(seed)
    types = ["A", "B", "C", "D"][: rng.randint(2, 4)]
    kind = rng.choice(["SEQ", "AND"])
    pattern = f"{kind}({', '.join(types)})"
    keys = rng.randint(1, 4)
    events = sorted(
        (
            make_event(
                float(rng.randint(0, 12)),
                rng.choice(types),
                0,
                i,
                {"k": rng.randrange(keys), "v": rng.randint(0, 3)}
                if rng.random() < 0.95
                else {"v": 1},  # no key: it can never satisfy the equality
            )
            for i in range(rng.randint(6, 16))
        ),
        key=lambda e: e.time,
    )
    chain = [f"{a}.k == {b}.k" for a, b in itertools.pairwise(rng.sample(types, len(types)))]
    if rng.random() < 0.3:
        chain.append(f"{types[0]}.v != {types[-1]}.v")
    return rng, pattern, events, float(rng.randint(2, 8)), " AND ".join(chain)


@settings(max_examples=120)
@given(seed=st.integers(0, 10**9))
def test_keyed_plans_equal_the_brute_force_oracle(seed):
    rng, pattern, events, window, where = _keyed_instance(seed)
    expected = oracle(parse_pattern(pattern), events, window, None, parse_condition(where))
    n = len(parse_pattern(pattern).children)
    plans = [OrderPlan(o) for o in all_orders(n)] + [TreePlan(t) for t in all_trees(n)]
    for plan in ["greedy", *rng.sample(plans, min(4, len(plans)))]:
        got = _run(Engine(pattern, window, where=where, plan=plan), events)
        assert set(got) == expected, plan
        assert all(v == 1 for v in got.values())


def test_keyed_joins_examine_only_their_key():
    rng = random.Random(5)
    events = [
        make_event(float(i), rng.choice("ABC"), 0, i, {"k": rng.randrange(100)})
        for i in range(3000)
    ]
    keyed = Engine("SEQ(A, B, C)", 200.0, where="A.k == B.k AND B.k == C.k")
    plain = Engine("SEQ(A, B, C)", 200.0, where="NOT (A.k != B.k) AND NOT (B.k != C.k)")
    assert _run(keyed, events) == _run(plain, events)
    # 100 keys: the keyed joins examine about a hundredth of the pairs
    assert keyed.counters["work"] * 20 < plain.counters["work"]


def test_a_replaced_buffer_list_rebuilds_its_key_index():
    # load shedding replaces buffer lists; the key index must follow the new list
    engine = Engine("SEQ(A, B)", 10.0, where="A.k == B.k")
    engine.push(make_event(1.0, "A", 0, 1, {"k": 7}))
    engine.push(make_event(2.0, "A", 0, 2, {"k": 7}))
    assert len(engine.push(make_event(3.0, "B", 0, 3, {"k": 7}))) == 2
    runner = engine.branches[0].runners[0]
    leaf = runner.plan.leaf_node[0]
    runner.buffers[leaf] = [x for x in runner.buffers[leaf] if x[3][0][3] != 1]  # shed id 1
    found = engine.push(make_event(4.0, "B", 0, 4, {"k": 7}))
    assert [tuple(e.id for e in m) for m in found] == [(2, 4)]


def test_unhashable_keys_fall_back_to_a_scan():
    engine = Engine("SEQ(A, B)", 10.0, where="A.k == B.k")
    engine.push(make_event(1.0, "A", 0, 1, {"k": [1, 2]}))
    found = engine.push(make_event(2.0, "B", 0, 2, {"k": [1, 2]}))
    assert [tuple(e.id for e in m) for m in found] == [(1, 2)]


@pytest.mark.parametrize("pattern", ["SEQ(A, KL(B), C)", "AND(A, KL(B))"])
def test_kleene_types_stay_unkeyed_and_correct(pattern):
    rng = random.Random(3)
    events = [
        make_event(float(i), rng.choice("ABC"), 0, i, {"k": rng.randrange(2)}) for i in range(14)
    ]
    where = "A.k == B.k" + (" AND B.k == C.k" if "C" in pattern else "")
    got = _run(Engine(pattern, 6.0, where=where), events)
    assert set(got) == oracle(parse_pattern(pattern), events, 6.0, None, parse_condition(where))


# ---------------------------------------------------------------------- GRETA key partitions

# each with a != predicate on one transition: that edge scans its predecessors, which is
# where GRETA partitions by the key
GRETA_PATTERNS = {
    "SEQ(A, B)": "A.k == B.k AND A.v != B.v",
    "SEQ(A, KL(B))": "A.k == B.k AND B.k == NEXT(B).k AND B.v != NEXT(B).v",
    "SEQ(KL(A), B, C)": "A.k == NEXT(A).k AND A.k == B.k AND B.k == C.k AND B.v != C.v",
    "KL(A)": "A.k == NEXT(A).k AND A.v != NEXT(A).v",
}


@settings(max_examples=60)
@given(seed=st.integers(0, 10**9))
def test_greta_key_partitions_give_the_unpartitioned_aggregates(seed):
    from dataclasses import replace

    from inev.simulator.engine.greta import GretaQuery, compile_query
    from inev.simulator.engine.greta.event_rows import as_event
    from inev.workloads.workload import Query

    rng = random.Random(seed)
    pattern = rng.choice(sorted(GRETA_PATTERNS))
    where = GRETA_PATTERNS[pattern]
    types = sorted(set(pattern) & set("ABC"))
    if rng.random() < 0.4:
        where += f" AND {types[0]}.v > 1"
    if rng.random() < 0.3 and len(types) > 1:
        where += f" AND {types[0]}.v <= {types[1]}.v"
    returns = rng.choice(["COUNT(*)", "SUM({t}.v)", "MIN({t}.v)", "MAX({t}.v)", "AVG({t}.v)"])
    query = Query.build(
        "q",
        pattern,
        where=where,
        returns=returns.format(t=rng.choice(types)),
        group_by=("g",) if rng.random() < 0.3 else (),
    )
    compiled = compile_query(query, float(rng.randint(2, 6)), rng.choice([None, 1.0]))
    assert compiled.trend_key == "k"
    events = []
    for i in range(rng.randint(5, 40)):
        attrs = {"v": rng.randint(0, 4), "g": rng.randint(0, 1)}
        if rng.random() < 0.9:
            attrs["k"] = rng.randint(0, 3)
        events.append(make_event(float(rng.randint(0, 15)), rng.choice(types), 0, i, attrs))
    events.sort(key=lambda e: e.time)

    def run(c):
        runner = GretaQuery(c)
        out = [r for e in events for r in runner.push(as_event(e))]
        return out + runner.finish()

    assert run(compiled) == run(replace(compiled, trend_key=None))


def test_greta_partitions_only_when_every_transition_shares_the_key():
    from inev.simulator.engine.greta import compile_query
    from inev.workloads.workload import Query

    def key(pattern, where):
        return compile_query(Query.build("q", pattern, where=where, returns="COUNT(*)"), 1.0)

    scan = " AND B.v != C.v"  # an edge GRETA cannot index: it scans its predecessors
    assert key("SEQ(A, B, C)", "A.k == B.k AND B.k == C.k" + scan).trend_key == "k"
    assert key("SEQ(A, B, C)", "A.k == B.k AND B.k == C.k").trend_key is None  # all indexed
    assert key("SEQ(A, B, C)", "A.k == B.k AND B.u == C.u" + scan).trend_key is None
    assert key("SEQ(A, KL(B))", "A.k == B.k AND A.v != B.v").trend_key is None  # B -> B
    assert key("NSEQ(A, B, C)", "A.k == C.k AND A.v != C.v").trend_key is None  # negation
