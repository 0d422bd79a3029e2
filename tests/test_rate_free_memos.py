"""The rate-free memos of issue 46's rate kicks: restrictions per (pattern, type set),
negation-closed subsets per query, Alg. 2's order store shared by every prelude, and the
hash that Operator and Query keep. Each memo must give what the uncached computation
gives, stay within its bound, and the kept hashes must not travel in pickles."""

from __future__ import annotations

import itertools
import math
import os
import pickle
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner import prelude, projections
from inev.planner.alg1_combination import COVERS_KEPT, _cover, _kept_cover, min_cover
from inev.planner.combination_model import inputs_first
from inev.planner.projections import (
    RESTRICTIONS_KEPT,
    _closed_subsets,
    _restrict,
    all_projections,
    negation_closed,
    negation_ties,
    restrict,
)
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload
from inev.workloads.pattern import Operator, Primitive, leaf_types
from inev.workloads.rates import strip_kleene
from inev.workloads.workload import Query

workloads = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10_000),
        "types": st.integers(3, 7),
        "length": st.integers(2, 6),
        "kleene": st.integers(0, 1),
        "negation": st.integers(0, 2),
    }
)


def make_queries(spec) -> list[Query]:
    net = generate_network(nodes=8, event_types=spec["types"], seed=spec["seed"])
    length = min(spec["length"], spec["types"])
    negation = min(spec["negation"], length // 3)
    wl = generate_workload(
        net,
        queries=3,
        length=length,
        kleene=min(spec["kleene"], length - negation),
        negation=negation,
        seed=spec["seed"],
    )
    out = list(wl.queries)
    for q in wl.queries:  # a NOT(Z) inside a SEQ too (the generator makes NSEQ only)
        kids = q.pattern.children if isinstance(q.pattern, Operator) else (q.pattern,)
        at = spec["seed"] % (len(kids) + 1)
        neg = Operator("NOT", (Primitive("Z"),))
        out.append(Query(q.name + "n", Operator("SEQ", (*kids[:at], neg, *kids[at:]))))
    return out


def rebuilt(pattern):
    """An equal pattern made of new objects (nothing kept on them yet)."""
    if isinstance(pattern, Primitive):
        return Primitive(pattern.type, pattern.stream)
    return Operator(pattern.kind, tuple(rebuilt(c) for c in pattern.children), pattern.bounds)


@settings(max_examples=60, deadline=None)
@given(workloads)
def test_a_remembered_restriction_equals_the_uncached_one(spec):
    for query in make_queries(spec):
        for pattern in (query.pattern, strip_kleene(query.pattern)):
            names = leaf_types(pattern)
            for size in range(0, len(names) + 1):
                for subset in itertools.combinations(names, size):
                    expected = _restrict.__wrapped__(rebuilt(pattern), frozenset(subset))
                    first = restrict(pattern, list(subset))
                    again = restrict(rebuilt(pattern), set(subset))  # a hit by value
                    assert first == expected and again == expected
                    assert str(first) == str(expected)


def test_a_hand_checked_restriction_is_remembered():
    pattern = Operator(
        "SEQ", (Primitive("A"), Operator("NOT", (Primitive("D"),)), Primitive("B"), Primitive("C"))
    )
    assert str(restrict(pattern, {"A", "B", "D"})) == "SEQ(A, NOT(D), B)"
    before = _restrict.cache_info().hits
    assert str(restrict(rebuilt(pattern), ("D", "B", "A"))) == "SEQ(A, NOT(D), B)"
    assert _restrict.cache_info().hits == before + 1
    assert restrict(pattern, {"D"}) is None


def test_the_restriction_memo_is_bounded():
    assert _restrict.cache_info().maxsize == RESTRICTIONS_KEPT == 65_536
    pattern = Operator("AND", tuple(Primitive(f"T{i}") for i in range(20)))
    names = [f"T{i}" for i in range(20)]
    for subset in itertools.islice(itertools.combinations(names, 10), RESTRICTIONS_KEPT + 500):
        restrict(pattern, subset)
    assert _restrict.cache_info().currsize <= RESTRICTIONS_KEPT


@settings(max_examples=40, deadline=None)
@given(workloads)
def test_the_closed_subsets_are_every_negation_closed_subset(spec):
    for query in make_queries(spec):
        base = strip_kleene(query.pattern)
        names = tuple(leaf_types(base))
        ties = negation_ties(query)
        brute = [
            s
            for size in range(2, len(names) + 1)
            for s in itertools.combinations(names, size)
            if negation_closed(base, s, ties)
        ]
        assert list(_closed_subsets(query, base, names)) == brute
        assert list(_closed_subsets(query, base, names)) == brute  # remembered
        # under other rates the projections are made over the same subsets
        for scale in (1.0, 3.0):
            rates = {t: scale * (1 + i) for i, t in enumerate(names)}
            made = all_projections(query, rates)
            assert [tuple(t for t in names if t in p.types) for p in made] == brute


def test_the_closed_subset_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(projections, "CLOSED_SUBSETS_KEPT", 3)
    monkeypatch.setattr(projections, "_CLOSED", type(projections._CLOSED)())
    queries = [Query.build(f"q{i}", f"SEQ(A, B, C{i})") for i in range(6)]
    for q in queries:
        base = strip_kleene(q.pattern)
        _closed_subsets(q, base, tuple(leaf_types(base)))
        assert len(projections._CLOSED) <= 3
    assert list(projections._CLOSED) == queries[-3:]  # the most recently asked are kept
    # A, B, C_i: the pairs and the whole query (no negation: every subset is closed)
    assert projections._CLOSED[queries[-1]] == (
        ("A", "B"),
        ("A", "C5"),
        ("B", "C5"),
        ("A", "B", "C5"),
    )


def test_the_shared_order_store_gives_inputs_first_and_is_bounded(monkeypatch):
    from inev.planner.combination_model import Combination
    from inev.planner.projections import make_projection, primitive_projection
    from inev.topologies.network import Network

    net = Network.build(
        range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (2.0, [2]), "C": (3.0, [1])}
    )
    q = Query.build("q", "SEQ(A, B, C)", {"A B": 0.1, "B C": 0.2})
    rates = net.global_rates()
    ab, abc = (make_projection(q, s, rates, 1.0) for s in (("A", "B"), ("A", "B", "C")))
    ps = {t: primitive_projection(t, rates[t]) for t in "ABC"}
    monkeypatch.setattr(prelude, "MAX_PARTS", 2)
    monkeypatch.setattr(prelude, "ORDERS", {})
    combos = [
        Combination({abc.key: abc, **ps}, {abc.key: ("A", "B", "C")}, {}, {}),
        Combination(
            {abc.key: abc, ab.key: ab, **ps}, {abc.key: (ab.key, "C"), ab.key: ("A", "B")}, {}, {}
        ),
        Combination({**ps, abc.key: abc}, {abc.key: ("C", "B", "A")}, {}, {}),
    ]
    for c in combos:
        for parts in (prelude.Preludes(net), prelude.Preludes(net)):  # a second one reuses
            order = parts(c, frozenset())[3]
            assert order == inputs_first(c.projections, c.inputs)
            assert len(prelude.ORDERS) <= 2
    # the sink comes last, every input before its consumer (hand-checked)
    assert inputs_first(combos[1].projections, combos[1].inputs) == ["A", "B", "C", ab.key, abc.key]


def test_equal_queries_hash_equal_and_pickles_keep_the_hash():
    q = Query.build("q", "SEQ(A, AND(B, C), NOT(D), E)", {"A B": 0.5, "C E": 0.1})
    twin = Query.build("q", "SEQ(A, AND(B, C), NOT(D), E)", {"A B": 0.5, "C E": 0.1})
    assert q == twin and hash(q) == hash(twin)
    assert hash(q.pattern) == hash(twin.pattern)
    assert hash(q) == hash(
        (q.name, q.pattern, q.selectivities, q.where, q.returns, q.group_by, q.weight, q.measured)
    )  # the dataclass's own hash of the compared fields
    data = pickle.dumps(q)
    assert b"_hash" not in data
    back = pickle.loads(data)
    assert back == q and hash(back) == hash(q)
    assert {q: 1}[back] == 1
    other = Query.build("q", "SEQ(A, AND(B, C), NOT(D), E)", {"A B": 0.4, "C E": 0.1})
    assert other != q


def test_a_query_pickled_by_another_process_hashes_as_one_made_here():
    """Spark ships queries between processes whose string hashes differ: a hash kept by
    the sender must not arrive (it would file the query under the wrong bucket)."""
    code = (
        "import pickle, sys\n"
        "from inev.workloads.workload import Query\n"
        "q = Query.build('q', 'SEQ(A, AND(B, C), NOT(D), E)', {'A B': 0.5})\n"
        "hash(q); hash(q.pattern)\n"
        "sys.stdout.write(pickle.dumps(q).hex())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    back = pickle.loads(bytes.fromhex(out))
    here = Query.build("q", "SEQ(A, AND(B, C), NOT(D), E)", {"A B": 0.5})
    assert hash(back) == hash(here) and hash(back.pattern) == hash(here.pattern)
    assert {here: "found"}[back] == "found"


covers = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.just((1 << n) - 1),
        st.lists(
            st.tuples(st.integers(1, (1 << n) - 1), st.sampled_from([0.0, 0.25, 0.5, 1.0, 3.0])),
            max_size=8,
        ),
    )
)


@settings(max_examples=200, deadline=None)
@given(covers)
def test_a_remembered_cover_equals_the_uncached_one(case):
    universe, candidates = case
    expected = min_cover(universe, candidates)
    first = _kept_cover(universe, list(candidates))
    again = _kept_cover(universe, list(candidates))
    assert first == expected and again == expected
    assert again[1] is not first[1]  # a new list each call, as min_cover gives
    # the cover is a cover, and no single candidate set is cheaper (hand-checkable floor)
    if expected[1]:
        mask = 0
        for i in expected[1]:
            mask |= candidates[i][0]
        assert mask & universe == universe
        assert expected[0] == sum(candidates[i][1] for i in expected[1]) or math.isclose(
            expected[0], sum(candidates[i][1] for i in expected[1])
        )


def test_the_cover_memo_is_bounded():
    assert _cover.cache_info().maxsize == COVERS_KEPT == 65_536
    assert _kept_cover(0b111, [(0b011, 1.0), (0b110, 1.0), (0b100, 0.25)]) == (1.25, [0, 2])
