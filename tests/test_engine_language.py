"""The CEP language of issue 31 against the brute-force oracle: pattern variables, NOT first,
last, between and inside AND, Kleene size bounds and positions, Kleene over a SEQ or an
AND, both tie rules; with and without keyed joins, static and adaptive plans, every plan,
and shuffled input under a watermark."""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter

import pytest
from engine_oracle import oracle, random_language_pattern, random_language_where, random_stream
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.evaluation_plans import OrderPlan, TreePlan, all_orders, all_trees
from inev.simulator.engine.events import make_event
from inev.simulator.engine.streams import leaf_routes, relabel
from inev.workloads.expressions import parse_condition
from inev.workloads.pattern import leaf_types
from inev.workloads.syntax import parse_pattern


def _instance(seed: int, horizon: int = 10):
    rng = random.Random(seed)
    pattern, streams = random_language_pattern(rng, rng.randint(2, 5))
    types = sorted(set(streams.values()) | {t for t in leaf_types(pattern) if t not in streams})
    composite = "KL(SEQ" in str(pattern) or "KL(AND" in str(pattern)
    n = rng.randint(5, 8) if composite else rng.randint(6, 13)  # the oracle enumerates sets
    events = random_stream(rng, types, n, horizon)
    window = float(rng.randint(2, 6))
    where = random_language_where(rng, pattern) if rng.random() < 0.7 else None
    ties = rng.choice(["strict", "any"])
    return rng, pattern, streams, events, window, where, ties


def _feed(engine: Engine, events, streams) -> Counter:
    routes = leaf_routes(leaf_types(engine.pattern), {**engine.streams, **streams})
    out = []
    for e in events:
        for x in relabel(e, routes.get(e.type, ())):
            out.extend(engine.push(x))
    out.extend(engine.flush())
    return Counter(tuple(e.id for e in m) for m in out)


def _expected(pattern, events, window, where, ties, streams):
    cond = parse_condition(where) if where else None
    return oracle(pattern, events, window, None, cond, ties=ties, streams=streams, multiset=True)


def _engine(pattern, window, where, ties, streams, **options) -> Engine:
    return Engine(pattern, window, where=where, ties=ties, streams=streams, **options)


@settings(max_examples=250, deadline=None)
@given(seed=st.integers(0, 10**9), plan=st.sampled_from(["greedy", "zstream"]))
def test_language_equals_oracle(seed, plan):
    _, pattern, streams, events, window, where, ties = _instance(seed)
    got = _feed(_engine(pattern, window, where, ties, streams, plan=plan), events, streams)
    assert got == _expected(pattern, events, window, where, ties, streams), str(pattern)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_language_every_plan_equals_oracle(seed):
    rng, pattern, streams, events, window, where, ties = _instance(seed)
    expected = _expected(pattern, events, window, where, ties, streams)
    probe = _engine(pattern, window, where, ties, streams)
    n = len(probe.branches[0].units)
    plans = [OrderPlan(o) for o in all_orders(n)] + [TreePlan(t) for t in all_trees(n)]
    for plan in rng.sample(plans, min(6, len(plans))):
        got = _feed(_engine(pattern, window, where, ties, streams, plan=plan), events, streams)
        assert got == expected, (str(pattern), plan)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), kind=st.sampled_from(["always", "invariant"]))
def test_language_adaptive_equals_oracle(seed, kind):
    _, pattern, streams, events, window, where, ties = _instance(seed)
    adaptation = Adaptation(kind, distance=0.0, check_every=2, span=3.0, sample_every=1)
    engine = _engine(pattern, window, where, ties, streams, adaptation=adaptation)
    got = _feed(engine, events, streams)
    assert got == _expected(pattern, events, window, where, ties, streams)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), lateness=st.integers(0, 3))
def test_language_shuffled_input_with_watermark(seed, lateness):
    rng, pattern, streams, events, window, where, ties = _instance(seed, horizon=30)
    # distinct times: under a watermark, events of equal time may be processed in any order
    events = [e._replace(time=float(i)) for i, e in enumerate(events)]
    keyed = sorted(events, key=lambda e: e.time + rng.uniform(0, lateness))
    engine = _engine(pattern, window, where, ties, streams, lateness=float(lateness))
    got = _feed(engine, keyed, streams)
    assert engine.counters["late"] == 0
    assert got == _expected(pattern, events, window, where, ties, streams)


def _ids(pattern, events, window, where=None, ties="strict", streams=None):
    streams = streams if streams is not None else {}
    engine = Engine(pattern, window, where=where, ties=ties, streams=streams)
    return sorted(_feed(engine, events, streams))


def _stream(spec: str):
    """``"A1 B2 A3"``: events type + time, ids 1, 2, … in order."""
    out = []
    for i, word in enumerate(spec.split(), start=1):
        out.append(make_event(float(word[1:]), word[0], 0, i, {"v": i}))
    return out


def test_variables_bind_distinct_events_of_one_stream():
    events = _stream("G1 G2 G3")
    assert _ids("SEQ(G a, G b)", events, 5) == [(1, 2), (1, 3), (2, 3)]
    # AND orders nothing: every ordered pair of distinct events
    got = _ids("AND(G a, G b)", events, 5, streams={"a": "G", "b": "G"})
    assert got == [(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]
    assert _ids("SEQ(G a, G b)", events, 5, where="a.v < b.v", streams={"a": "G", "b": "G"}) == [
        (1, 2),
        (1, 3),
        (2, 3),
    ]


def test_ties_either_order():
    events = _stream("A1 B1 C2")
    assert _ids("SEQ(A, B, C)", events, 5) == []
    assert _ids("SEQ(A, B, C)", events, 5, ties="any") == [(1, 2, 3)]
    # equal times, one stream: both orders, never one event twice
    same = _stream("G1 G1")
    streams = {"a": "G", "b": "G"}
    assert _ids("SEQ(G a, G b)", same, 5, streams=streams) == []
    assert _ids("SEQ(G a, G b)", same, 5, ties="any", streams=streams) == [(1, 2), (2, 1)]


def test_negation_first_last_and_in_and():
    # no X within the window before A
    assert _ids("SEQ(NOT(X), A, B)", _stream("X0 A3 B4"), 3) == [(2, 3)]
    assert _ids("SEQ(NOT(X), A, B)", _stream("X1 A3 B4"), 3) == []
    # no X after B while the window (from A) lasts; held until it has passed
    assert _ids("SEQ(A, B, NOT(X))", _stream("A0 B1 X3"), 3) == []
    assert _ids("SEQ(A, B, NOT(X))", _stream("A0 B1 X4"), 3) == [(1, 2)]
    # no X anywhere in the window
    assert _ids("AND(A, B, NOT(X))", _stream("X0 A2 B3"), 3) == []
    assert _ids("AND(A, B, NOT(X))", _stream("A2 B3 X5"), 3) == []  # in [3 - 3, 2 + 3]
    assert _ids("AND(A, B, NOT(X))", _stream("A2 B3 X6"), 3) == [(1, 2)]
    assert _ids("AND(A, B, NOT(X))", _stream("X0 A2 B3 X7"), 2) == [(2, 3)]
    # ties: a negated event at the time of a bound counts only under "any"
    assert _ids("SEQ(A, NOT(X), B)", _stream("A1 X1 B2"), 3) == [(1, 3)]
    assert _ids("SEQ(A, NOT(X), B)", _stream("A1 X1 B2"), 3, ties="any") == []


def test_held_matches_are_released_by_later_events_and_by_advance():
    engine = Engine("SEQ(A, NOT(X))", 2.0)
    assert engine.push(make_event(0.0, "A", 0, 1)) == []
    assert engine.push(make_event(2.0, "B", 0, 2)) == []  # window [0, 2] not over yet
    assert [m[0].id for m in engine.push(make_event(2.5, "B", 0, 3))] == [1]
    engine = Engine("SEQ(A, NOT(X))", 2.0, lateness=None)
    engine.push(make_event(0.0, "A", 0, 1))
    assert engine.advance(1.0) == []
    assert [m[0].id for m in engine.advance(2.5)] == [1]


def test_kleene_size_bounds_and_positions():
    events = _stream("B1 B2 B3 B4")
    assert len(_ids("KL(B){2,3}", events, 10)) == 6 + 4
    assert _ids("KL(B){3}", events, 10) == [(1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)]
    assert _ids("KL(B){2,}", events, 10, where="B[2].v == 3") == [
        (1, 3),
        (1, 3, 4),
        (2, 3),
        (2, 3, 4),
    ]
    assert _ids("KL(B)", events, 10, where="LAST(B).v == 2 AND FIRST(B).v == 1") == [(1, 2)]


def test_kleene_over_a_sequence_chains_its_iterations():
    events = _stream("A1 B2 A3 B4")
    assert _ids("KL(SEQ(A, B))", events, 10) == [(1, 2), (1, 2, 3, 4), (1, 4), (3, 4)]
    # over an AND the iterations may interleave, but never share an event
    got = _ids("KL(AND(A, B)){2}", events, 10)
    assert got == [(1, 2, 3, 4), (3, 2, 1, 4)]  # iterations in the order they complete


def test_engine_refusals_are_one_line():
    cases = [
        ("SEQ(A, KL(SEQ(B, C)))", "A.v < B.v", "compares a leaf inside a Kleene closure"),
        ("KL(B)", "NEXT(B).v < B[2].v", "NEXT) and fixed positions"),
        ("SEQ(A, B)", "A[2].v > 1", "needs A under KL"),
    ]
    for pattern, where, message in cases:
        with pytest.raises(InevError, match=re.escape(message)) as info:
            Engine(parse_pattern(pattern), 5.0, where=where)
        assert "\n" not in str(info.value)


# ------------------------------------------------------------------ selection strategies
def _plain(pattern) -> bool:
    """No Kleene closure and no negation: each leaf binds one event, emitted when made."""
    text = str(pattern)
    return "KL(" not in text and "NOT(" not in text


def _selected_by_brute_force(pattern, streams, events, window, where, ties, selection):
    """The oracle's matches, then the selection rules applied to them as the module
    :mod:`inev.simulator.engine.selection` states them (input order: the list's)."""
    found = _expected(pattern, events, window, where, ties, streams)
    leaves = list(leaf_types(pattern))
    read = {streams.get(t, t) for t in leaves}
    by_id = {e.id: e for e in events}
    mine = [e for e in events if e.type in read]
    rank = {e.id: i for i, e in enumerate(mine)}
    if selection.strategy == "partition":
        counts: dict = {}
        for e in mine:
            part = e.attrs.get(selection.partition)
            counts[part] = counts.get(part, 0) + 1
            rank[e.id] = (part, counts[part])
    keep = Counter()
    for m, n in found.items():
        if selection.strategy == "contiguous":
            places = sorted({rank[i] for i in m})
            if places[-1] - places[0] + 1 != len(places):
                continue
        if selection.strategy == "partition":
            places = sorted({rank[i] for i in m})
            if len({p for p, _ in places}) > 1 or places[-1][1] - places[0][1] + 1 != len(places):
                continue
        if selection.strategy == "next" and _skipped(
            m, leaves, streams, mine, rank, by_id, where, window
        ):
            continue
        keep[m] = n
    if selection.consume:
        consumed, kept = set(), Counter()
        for m in sorted(keep, key=lambda m: (max(rank[i] for i in m), sorted(rank[i] for i in m))):
            own = {i for i, leaf in zip(m, leaves, strict=True) if leaf in selection.consume}
            if own & consumed:
                continue
            consumed |= own
            kept[m] = keep[m]
        keep = kept
    return keep


def _skipped(m, leaves, streams, mine, rank, by_id, where, window):
    """Whether the match skipped a relevant event (skip-till-next-match's definition)."""
    from inev.workloads.expressions import condition_attributes, conjuncts, evaluate

    items = conjuncts(parse_condition(where)) if where else ()
    pairs = sorted(zip(m, leaves, strict=True), key=lambda x: rank[x[0]])
    first = min(by_id[i].time for i in m)
    bound = {pairs[0][1]: by_id[pairs[0][0]]}
    for (before, _), (ident, leaf) in itertools.pairwise(pairs):
        for x in mine:
            if not rank[before] < rank[x.id] < rank[ident] or x.type != streams.get(leaf, leaf):
                continue
            if x.time - first > window:
                continue
            trial = {**bound, leaf: x}
            fields = {t: {"time": e.time, "id": e.id, **e.attrs} for t, e in trial.items()}
            ok = all(
                evaluate(c, fields)
                for c in items
                if leaf in {a.type for a in condition_attributes(c)}
                and {a.type for a in condition_attributes(c)} <= set(trial)
            )
            if ok:
                return True
        bound[leaf] = by_id[ident]
    return False


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    strategy=st.sampled_from(["contiguous", "partition:v", "next", "any"]),
    consume=st.booleans(),
)
def test_selection_strategies_equal_brute_force(seed, strategy, consume):
    from inev.simulator.engine.selection import parse_selection

    rng, pattern, streams, events, window, where, ties = _instance(seed)
    if not _plain(pattern) and (strategy == "next" or consume):
        return
    # one event per time: the input order of equal times is the engine's arrival order
    events = [e._replace(time=float(i)) for i, e in enumerate(events)]
    leaves = sorted(leaf_types(pattern))
    selection = parse_selection(strategy, [rng.choice(leaves)] if consume else [])
    engine = Engine(pattern, window, where=where, ties=ties, streams=streams, selection=selection)
    got = _feed(engine, events, streams)
    assert got == _selected_by_brute_force(pattern, streams, events, window, where, ties, selection)


def test_freeze_blocks_leaves_until_matched_or_expired():
    from inev.simulator.engine.selection import parse_selection

    # OpenCEP's freeze example: after A1 nothing of a or before it is read until A1 is
    # matched or older than the window
    events = _stream("A0 A1 B2 C3 A6 B7 C8")
    pattern = "SEQ(A a, B b, C c)"
    selection = parse_selection("any", freeze=["a"])
    engine = Engine(pattern, 5.0, selection=selection)
    assert sorted(_feed(engine, events, {})) == [(1, 3, 4), (5, 6, 7)]
    selection = parse_selection("any", freeze=["b"])
    engine = Engine(pattern, 5.0, selection=selection)
    got = sorted(_feed(engine, events, {}))
    assert got == [(1, 3, 4), (2, 3, 4), (5, 6, 7)]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    case=st.sampled_from(
        [
            ("KL(SEQ(A, B))", None),
            ("SEQ(C, KL(SEQ(A, B)))", None),
            ("KL(SEQ(A, KL(B)))", None),
            ("SEQ(KL(SEQ(A, B)), C)", "A.v <= B.v"),
            ("SEQ(NOT(C), A, KL(B))", None),
            ("SEQ(A, KL(B), NOT(C))", None),
        ]
    ),
)
def test_kleene_over_a_sequence_counts_as_greta_aggregates_them(seed, case):
    # within one tumbling window of GRETA's, the engine's trends are GRETA's trends (its
    # Definition 1: each iteration ends before the next starts; a leading or trailing
    # negation reaches to the window's edge), so COUNT(*) equals the number of matches
    from inev.simulator.engine.greta import greta_aggregates
    from inev.workloads.workload import Query

    pattern, where = case
    rng = random.Random(seed)
    events = sorted(
        (
            make_event(rng.uniform(0.0, 4.9), rng.choice("ABC"), 0, i, {"v": rng.randint(0, 3)})
            for i in range(rng.randint(3, 9))
        ),
        key=lambda e: e.time,
    )
    engine = Engine(pattern, 5.0, where=where)
    count = sum(_feed(engine, events, {}).values())
    query = Query.build("q", pattern, where=where, returns="COUNT(*)")
    cells = list(greta_aggregates(query, events, 5.0))
    assert sum(c["value"] for c in cells) == count
