"""GRETA at simulator sinks: distributed aggregates equal centralized GRETA over the trace."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.planner.planning import plan_workload
from inev.simulator.aggregation import SinkInput, aggregate_query, match_cells
from inev.simulator.engine.events import make_event
from inev.simulator.engine.greta import compile_query
from inev.simulator.estimate import check_size
from inev.simulator.run import simulate
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.pattern import kleene_types, leaf_types, negated_types
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Query, Workload

LINE = Network.build(
    [0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (1.0, [2]), "C": (1.0, [1])}
)


def _trace():
    rows = [
        (1.0, "A", 0, 2),
        (2.0, "A", 0, 3),
        (3.0, "B", 2, 0),
        (4.0, "A", 0, 5),
        (5.0, "B", 2, 0),
    ]
    return [make_event(t, x, n, i, {"v": v}) for i, (t, x, n, v) in enumerate(rows)]


@pytest.mark.parametrize("method", ["centralized", "inev", "isolated", "ppop"])
def test_kleene_counts_and_sums_by_hand(method):
    # SEQ(KL(A), B): the trends ending at B@3 are the non-empty subsets of {A1, A2} (3),
    # those ending at B@5 the non-empty subsets of {A1, A2, A3} (7): 10 trends in [0, 10).
    # SUM(A.v): each A is in half of the subsets: (2+3)*2 + (2+3+5)*4 = 10 + 40 = 50.
    # MAX(A.v) over all trends: 5. AVG(A.v) = SUM(A.v) / COUNT(A), and COUNT(A) adds the
    # subset sizes: 2 A's in 2 subsets each (4) + 3 A's in 4 subsets each (12) = 16.
    returns = {"c": "COUNT(*)", "s": "SUM(A.v)", "m": "MAX(A.v)", "a": "AVG(A.v)"}
    wl = Workload.build(
        10.0, [Query.build(name, "SEQ(KL(A), B)", returns=r) for name, r in returns.items()]
    )
    plan = plan_workload(LINE, wl, method)
    result = simulate(LINE, wl, plan, duration=10.0, trace=_trace())
    values = {q: [row["value"] for row in rows] for q, rows in result.aggregates.items()}
    assert values == {"c": [10], "s": [50], "m": [5], "a": [50 / 16]}
    assert result.aggregates == result.centralized_aggregates
    assert result.aggregates_equal_to_centralized is True
    assert result.aggregate_differences == {"c": 0, "s": 0, "m": 0, "a": 0}
    assert {a["mode"] for a in result.aggregation.values()} == {"sinks"}
    assert "aggregates=4 aggregates_equal=true" in result.summary()
    document = json.loads(json.dumps(result.to_dict()))
    assert document["aggregates_equal_to_centralized"] is True
    assert document["aggregates"]["c"] == [
        {"window_start": 0.0, "window_end": 10.0, "group": [], "value": 10}
    ]


def test_sliding_windows_and_negation_by_hand():
    # NSEQ(A, C, B) with window 4, slide 2: windows [0,4), [2,6), [4,8).
    # Trace: A@1, A@2, B@3, C@3.5 (at node 1), A@4, B@5.
    # [0,4): A1-B3, A2-B3 = 2.  [2,6): A2-B3 (C@3.5 is after B3) = 1; A2-B5 and nothing
    # else before C... C@3.5 lies between A2 and B5: invalid; A4-B5 valid: 2 in total.
    # [4,8): A4-B5 = 1.
    wl = Workload.build(4.0, [Query.build("q", "NSEQ(A, C, B)", returns="COUNT(*)")], slide=2.0)
    rows = [
        (1.0, "A", 0),
        (2.0, "A", 0),
        (3.0, "B", 2),
        (3.5, "C", 1),
        (4.0, "A", 0),
        (5.0, "B", 2),
    ]
    trace = [make_event(t, x, n, i) for i, (t, x, n) in enumerate(rows)]
    for method in ("centralized", "inev", "ppop"):
        result = simulate(LINE, wl, plan_workload(LINE, wl, method), duration=8.0, trace=trace)
        got = [(r["window_start"], r["value"]) for r in result.aggregates["q"]]
        assert got == [(0.0, 2), (2.0, 2), (4.0, 1)], method
        assert result.aggregates_equal_to_centralized is True


def test_and_falls_back_to_matches_with_a_note():
    wl = Workload.build(10.0, [Query.build("q", "AND(A, B)", returns="COUNT(*)")])
    result = simulate(LINE, wl, plan_workload(LINE, wl, "centralized"), trace=_trace())
    assert result.aggregation["q"]["mode"] == "refused"
    assert "AND" in result.aggregation["q"]["note"]
    assert result.aggregates == {} and result.aggregates_equal_to_centralized is None
    assert result.matches == {"q": 6} and result.equal_to_centralized


def test_queries_without_return_add_nothing():
    wl = Workload.build(10.0, [Query.build("q", "SEQ(A, B)")])
    result = simulate(LINE, wl, plan_workload(LINE, wl, "centralized"), trace=_trace())
    assert result.aggregation == {} and result.aggregates_equal_to_centralized is None
    assert "aggregates" not in result.summary()


PATTERNS = (
    "SEQ(A, B)",
    "SEQ(KL(A), B)",
    "SEQ(A, KL(B), C)",
    "SEQ(A, KL(B))",
    "NSEQ(A, B, C)",
    "SEQ(KL(A), NSEQ(B, C, D))",
    "SEQ(A, NSEQ(B, C, D))",
    "SEQ(A, B, C, D)",
)
AGGREGATES = ("COUNT(*)", "COUNT({t})", "SUM({t}.v)", "MIN({t}.v)", "MAX({t}.v)", "AVG({t}.v)")


def _instance(seed: int, queries: int):
    rng = np.random.default_rng(seed)
    net = generate_network(nodes=int(rng.integers(4, 9)), event_types=5, seed=seed, skew=1.5)
    net = net.with_rates({t: float(rng.choice([0.5, 1.0, 2.0])) for t in net.types})
    names = list(net.types)
    out = []
    for k in range(queries):
        pattern = PATTERNS[int(rng.integers(len(PATTERNS)))]
        letters = rng.permutation(names)[:4]
        rename = dict(zip("ABCD", letters, strict=True))
        pattern = re.sub(r"\b[ABCD]\b", lambda m, r=rename: r[m.group(0)], pattern)
        tree = parse_pattern(pattern)
        positive = sorted(set(leaf_types(tree)) - negated_types(tree))
        t = positive[int(rng.integers(len(positive)))]
        returns = AGGREGATES[int(rng.integers(len(AGGREGATES)))].format(t=t)
        group_by = ("g",) if rng.random() < 0.3 else ()
        # where conjuncts on which GRETA and the engine agree: a local predicate, and a
        # NEXT predicate between adjacent events of a Kleene type
        where = []
        if rng.random() < 0.3:
            where.append(f"{positive[int(rng.integers(len(positive)))]}.w > 30")
        kleene = sorted(kleene_types(tree))
        if kleene and rng.random() < 0.4:
            where.append(f"{kleene[0]}.w < NEXT({kleene[0]}).w")
        out.append(
            Query.build(
                f"q{k}",
                pattern,
                returns=returns,
                group_by=group_by,
                where=" AND ".join(where) or None,
            )
        )
    slide = None if rng.random() < 0.5 else 0.5
    return net, Workload.build(1.0, out, slide=slide)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    queries=st.integers(1, 2),
    method=st.sampled_from(["inev", "centralized", "isolated", "ppop"]),
)
def test_distributed_aggregates_equal_centralized_greta(seed, queries, method):
    net, wl = _instance(seed, queries)
    try:
        plan = plan_workload(net, wl, method)
        check_size(net, wl, 5.0, max_partial_matches=20_000, max_matches=100_000)
    except InevError as exc:
        event(f"refused: {str(exc)[:40]}")
        return
    result = simulate(net, wl, plan, duration=5.0, seed=seed)
    for q in wl.queries:
        sinks = plan.sink_vertices(q.name)
        event(f"mode {result.aggregation[q.name]['mode']}")
        if len(sinks) > 1:
            event("multi-node sink")
    if any(result.aggregates.values()):
        event("some trend")
    if any(q.where is not None for q in wl.queries):
        event("where")
    assert result.equal_to_centralized
    assert result.aggregate_differences == {q.name: 0 for q in wl.queries}
    assert result.aggregates == result.centralized_aggregates
    assert result.aggregates_equal_to_centralized is True


def test_selectivities_below_one_are_reported_not_hidden():
    # GRETA knows no pairwise selectivity predicate: the plan filters A events at the
    # sink's input that centralized GRETA counts; the check must say so.
    wl = Workload.build(
        10.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01}, returns="COUNT(*)")]
    )
    trace = [make_event(0.5 + i * 0.1, "A", 0, i) for i in range(20)]
    trace.append(make_event(5.0, "B", 2, 20))
    plan = plan_workload(LINE, wl, "centralized")
    result = simulate(LINE, wl, plan, duration=10.0, trace=trace)
    assert result.centralized_aggregates["q"][0]["value"] == 20
    found = result.aggregates["q"][0]["value"] if result.aggregates["q"] else 0
    assert result.aggregates_equal_to_centralized is (found == 20)
    assert dataclasses.asdict(result)["aggregate_differences"]["q"] == (0 if found == 20 else 1)


def _query(pattern, returns, group_by=()):
    return Query.build("q", pattern, returns=returns, group_by=group_by)


def test_multi_node_partials_combine_by_hand():
    # SEQ(A, B) partitioned by B over two nodes; every member gets all A events and its own
    # B events. A@1 (v=4), A@2 (v=1); B@3 at node 1, B@4 at node 2 (window 10).
    # Member 1: trends A1-B3, A2-B3; member 2: A1-B4, A2-B4. In total 4 trends.
    # SUM(A.v) = 2 * (4 + 1) = 10, MIN(A.v) = 1, AVG(A.v) = 10 / 4.
    a = [make_event(1.0, "A", 0, 0, {"v": 4}), make_event(2.0, "A", 0, 1, {"v": 1})]
    b1, b2 = make_event(3.0, "B", 1, 2), make_event(4.0, "B", 2, 3)
    members = [
        SinkInput(1, "B", frozenset({"A", "B"}), [*a, b1]),
        SinkInput(2, "B", frozenset({"A", "B"}), [*a, b2]),
    ]
    trace = [*a, b1, b2]
    for returns, want in (("COUNT(*)", 4), ("SUM(A.v)", 10), ("MIN(A.v)", 1), ("AVG(A.v)", 2.5)):
        wl = Workload.build(10.0, [_query("SEQ(A, B)", returns)])
        agg = aggregate_query(wl.queries[0], wl, members, [], trace)
        assert agg.mode == "sinks"
        assert [r["value"] for r in agg.rows()] == [want]
        assert agg.differences() == 0
    # each member alone has half of the trends: combining is needed
    wl = Workload.build(10.0, [_query("SEQ(A, B)", "COUNT(*)")])
    alone = aggregate_query(wl.queries[0], wl, members[:1], [], trace)
    assert [r["value"] for r in alone.rows()] == [2] and alone.differences() == 1


def test_members_partitioned_by_a_kleene_type_are_merged():
    # SEQ(KL(A), B) "partitioned" by A: the trend A1 A2 B mixes both members' A events;
    # the members' events are united: 3 trends (A1 B, A2 B, A1 A2 B).
    a1, a2, b = make_event(1.0, "A", 1, 0), make_event(2.0, "A", 2, 1), make_event(3.0, "B", 0, 2)
    members = [
        SinkInput(1, "A", frozenset({"A", "B"}), [a1, b]),
        SinkInput(2, "A", frozenset({"A", "B"}), [a2, b]),
    ]
    wl = Workload.build(10.0, [_query("SEQ(KL(A), B)", "COUNT(*)")])
    agg = aggregate_query(wl.queries[0], wl, members, [], [a1, a2, b])
    assert agg.mode == "merged" and [r["value"] for r in agg.rows()] == [3]


def test_sink_without_negated_events_aggregates_its_matches_by_hand():
    # NSEQ(A, C, B) at a sink fed with matches only (no C events): GRETA over the events
    # would accept A1-B5 across C@4; the matches (A1-B3, A4.5-B5) are aggregated instead.
    # Windows of 4 sliding by 2: [0,4) holds A1-B3 (SUM 7); [2,6) starts after A1, so it
    # holds only A4.5-B5 (SUM 2); so does [4,8) (SUM 2).
    e = {
        "A1": make_event(1.0, "A", 0, 0, {"v": 7}),
        "B3": make_event(3.0, "B", 0, 1),
        "C4": make_event(4.0, "C", 0, 2),
        "A45": make_event(4.5, "A", 0, 3, {"v": 2}),
        "B5": make_event(5.0, "B", 0, 4),
    }
    sink = SinkInput(0, None, frozenset(), [(e["A1"], e["B3"]), (e["A45"], e["B5"])])
    matches = [((e["A1"], e["B3"]), 1), ((e["A45"], e["B5"]), 1)]
    wl = Workload.build(4.0, [_query("NSEQ(A, C, B)", "SUM(A.v)")], slide=2.0)
    agg = aggregate_query(wl.queries[0], wl, [sink], matches, list(e.values()))
    assert agg.mode == "matches" and "C" in agg.note
    assert [(r["window_start"], r["value"]) for r in agg.rows()] == [(0.0, 7), (2.0, 2), (4.0, 2)]
    assert agg.differences() == 0


def test_grouped_matches_count_only_within_one_group():
    a = make_event(1.0, "A", 0, 0, {"g": 1})
    b_same, b_other = make_event(2.0, "B", 0, 1, {"g": 1}), make_event(3.0, "B", 0, 2, {"g": 2})
    wl = Workload.build(10.0, [_query("SEQ(A, B)", "COUNT(*)", group_by=("g",))])
    compiled = compile_query(wl.queries[0], wl.window, wl.slide)
    cells = match_cells(compiled, [((a, b_same), 1), ((a, b_other), 1)])
    assert cells == {(0.0, 10.0, (1,)): (1,)}


@pytest.mark.parametrize("method", ["inev", "centralized", "isolated", "ppop"])
def test_a_sink_aggregates_alone_where_its_trends_could_never_be_built(method):
    # 60 A events before one B in one window: SEQ(KL(A), B) has 2^60 - 1 trends (every
    # non-empty subset of the A events, in order, followed by B), far too many to build.
    wl = Workload.build(100.0, [Query.build("q", "SEQ(KL(A), B)", returns="COUNT(*)")])
    trace = [make_event(0.5 * (i + 1), "A", 0, i) for i in range(60)]
    trace.append(make_event(40.0, "B", 2, 60))
    plan = plan_workload(LINE, wl, method)
    result = simulate(LINE, wl, plan, duration=100.0, trace=trace)
    assert result.aggregates["q"][0]["value"] == 2**60 - 1
    assert result.aggregates_equal_to_centralized is True
    assert "alone" in result.aggregation["q"]["note"]
    assert "q" not in result.matches and result.equal_to_centralized
