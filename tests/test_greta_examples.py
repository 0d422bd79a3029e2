"""Hand-checked GRETA examples (the paper's Figures 4-7 style), language rules, big counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inev.common.errors import InevError
from inev.simulator.engine.greta import (
    GretaQuery,
    TrendLimitExceeded,
    build_template,
    compile_query,
    greta_aggregates,
    greta_event,
    two_step_aggregates,
)
from inev.simulator.engine.trace import read_trace
from inev.workloads.syntax import parse_pattern
from inev.workloads.workload import Query

# Figure 4's stream I = {a1, b2, c2, a3, e3, a4, c5, d6, b7, a8, b9}
FIGURE4 = [
    greta_event(float(t), ty, i)
    for i, (ty, t) in enumerate(
        [
            *[("A", 1), ("B", 2), ("C", 2), ("A", 3), ("E", 3), ("A", 4)],
            *[("C", 5), ("D", 6), ("B", 7), ("A", 8), ("B", 9)],
        ]
    )
]


def values(pattern: str, events, window=20.0, slide=None, **kw) -> list:
    query = Query.build("q", pattern, returns=kw.pop("returns", "COUNT(*)"), **kw)
    return [r["value"] for r in greta_aggregates(query, events, window, slide)]


def test_figure4a_kleene_over_a_counts_nonempty_subsets() -> None:
    # four a's (a1, a3, a4, a8): every non-empty subset is a trend
    assert values("KL(A)", FIGURE4) == [2**4 - 1]


def test_figure4b_seq_kleene_then_b() -> None:
    # b2: {a1}; b7: subsets of {a1, a3, a4}; b9: subsets of {a1, a3, a4, a8}
    assert values("SEQ(KL(A), B)", FIGURE4) == [1 + 7 + 15]


def test_figure4c_nested_kleene_counts_43() -> None:
    # intermediate counts by hand, as in the paper's Figure 4(c)
    a1 = 1
    b2 = a1
    a3 = 1 + a1 + b2
    a4 = 1 + a1 + b2 + a3
    b7 = a1 + a3 + a4
    a8 = 1 + a1 + b2 + a3 + a4 + b7
    b9 = a1 + a3 + a4 + a8
    assert (a4, b7, b2 + b7 + b9) == (6, 10, 43)
    assert values("KL(SEQ(KL(A), B))", FIGURE4) == [43]


def test_figure4d_nested_negation_invalidates_predecessors() -> None:
    # e3 kills (c2, d6); (c5, d6) invalidates a1, a3, a4 for b's after 6: b7 gets no
    # predecessor, b9 only a8; a8 still extends every earlier a and b2.
    a1 = 1
    b2 = a1
    a3 = 1 + a1 + b2
    a4 = 1 + a1 + b2 + a3
    a8 = 1 + a1 + b2 + a3 + a4  # b7 was never inserted
    b9 = a8
    pattern = "KL(SEQ(KL(A), NOT(SEQ(C, NOT(E), D)), B))"
    assert values(pattern, FIGURE4) == [b2 + b9] == [13]
    # without e3 the negative trend (c2, d6) also invalidates a1 before b7/b9: same here
    no_e = [e for e in FIGURE4 if e.type != "E"]
    assert values(pattern, no_e) == [13]
    # NSEQ is the same negation
    assert values("SEQ(KL(A), NOT(C), B)", FIGURE4) == values("NSEQ(KL(A), C, B)", FIGURE4)


def test_figure6_sliding_windows_share_one_graph() -> None:
    # window 10 sliding by 3: [0,10) holds all (43); [3,13) holds a3, a4, b7, a8, b9
    a3 = 1
    a4 = 1 + a3
    b7 = a3 + a4
    a8 = 1 + a3 + a4 + b7
    b9 = a3 + a4 + a8
    # [6,16) holds b7 (no predecessor), a8, b9; [9,19) holds only b9 (no trend)
    assert values("KL(SEQ(KL(A), B))", FIGURE4, 10.0, 3.0) == [43, b7 + b9, 1, 0]
    results = list(
        greta_aggregates(Query.build("q", "KL(A)", returns="COUNT(*)"), FIGURE4, 10.0, 3.0)
    )
    assert [(r["window_start"], r["window_end"]) for r in results] == [
        (0.0, 10.0),
        (3.0, 13.0),
        (6.0, 16.0),
    ]


def test_figure7_edge_predicate_and_all_aggregates() -> None:
    # KL(A) with A.v < NEXT(A).v over values 3, 1, 2, 4: increasing subsequences
    events = [greta_event(float(i + 1), "A", i, None, {"v": v}) for i, v in enumerate([3, 1, 2, 4])]
    trends = [(3,), (1,), (2,), (4,), (3, 4), (1, 2), (1, 4), (2, 4), (1, 2, 4)]
    where = "A.v < NEXT(A).v"
    flat = [v for t in trends for v in t]
    assert values("KL(A)", events, where=where) == [len(trends)] == [9]
    assert values("KL(A)", events, where=where, returns="COUNT(A)") == [len(flat)]
    assert values("KL(A)", events, where=where, returns="SUM(A.v)") == [sum(flat)] == [38]
    assert values("KL(A)", events, where=where, returns="MIN(A.v)") == [1]
    assert values("KL(A)", events, where=where, returns="MAX(A.v)") == [4]
    assert values("KL(A)", events, where=where, returns="AVG(A.v)") == [38 / 15]


def test_grouping_partitions_the_stream() -> None:
    # Q1 style: count down-trends per sector
    prices = {"x": [5, 4, 3], "y": [1, 2, 0]}
    events = [
        greta_event(float(t), "S", None, None, {"sector": s, "price": p})
        for s, ps in prices.items()
        for t, p in enumerate(ps)
    ]
    events.sort(key=lambda e: e.time)
    query = Query.build(
        "q1", "KL(S)", where="S.price > NEXT(S).price", returns="COUNT(*)", group_by=["sector"]
    )
    out = list(greta_aggregates(query, events, 10.0))
    # x: every non-empty subset of a strictly falling series (7); y: 1,2,0 -> 3 + (1,0),(2,0)
    assert [(r["group"], r["value"]) for r in out] == [(["x"], 7), (["y"], 5)]


def test_equal_time_stamps_are_never_adjacent() -> None:
    events = [greta_event(1.0, "A"), greta_event(1.0, "A"), greta_event(2.0, "A")]
    # trends: each single a (3), and (a, a3) for both a's at time 1
    assert values("KL(A)", events) == [5]


def test_trend_count_beyond_10_to_15_is_exact() -> None:
    n = 400
    events = [greta_event(float(i), "A", i, None, {"v": i}) for i in range(n)]
    # KL(A): 2^n - 1 trends; each event lies in 2^(n-1) of them
    assert values("KL(A)", events, 1000.0) == [2**n - 1]
    assert values("KL(A)", events, 1000.0, returns="SUM(A.v)") == [2 ** (n - 1) * sum(range(n))]
    # SEQ(A, KL(B), C) over a^k b^m c^l (in that order): k * (2^m - 1) * l
    k, m, l_ = 50, 120, 30
    stream = [greta_event(float(i), "A") for i in range(k)]
    stream += [greta_event(float(k + i), "B") for i in range(m)]
    stream += [greta_event(float(k + m + i), "C") for i in range(l_)]
    assert values("SEQ(A, KL(B), C)", stream, 1000.0) == [k * (2**m - 1) * l_]
    assert 2**n - 1 > 10**15


def test_kleene_under_a_range_predicate_counts_chains() -> None:
    # A.v * 2 <= NEXT(A).v over values 1, 2, 3, 4, 8: chains where each at least doubles
    events = [greta_event(float(i), "A", i, None, {"v": v}) for i, v in enumerate([1, 2, 3, 4, 8])]
    pairs = [(1, 2), (1, 3), (1, 4), (1, 8), (2, 4), (2, 8), (3, 8), (4, 8)]
    triples = [(1, 2, 4), (1, 2, 8), (1, 3, 8), (1, 4, 8), (2, 4, 8)]
    quads = [(1, 2, 4, 8)]
    chains = 5 + len(pairs) + len(triples) + len(quads)
    assert values("KL(A)", events, where="A.v * 2 <= NEXT(A).v") == [chains] == [19]


def test_two_step_stops_cleanly_past_its_limit() -> None:
    query = Query.build("q", "KL(A)", returns="COUNT(*)")
    events = [greta_event(float(i), "A") for i in range(30)]
    with pytest.raises(TrendLimitExceeded):
        list(two_step_aggregates(query, events, 100.0, limit=1000))
    assert [r["value"] for r in two_step_aggregates(query, events[:10], 100.0)] == [1023]


def test_template_of_nested_pattern() -> None:
    t = build_template(parse_pattern("KL(SEQ(KL(A), NOT(SEQ(C, NOT(E), D)), B))"))
    assert t.starts == {"A"} and t.ends == {"B"}
    assert {(x.source, x.target, x.guard) for x in t.transitions} == {
        ("A", "A", None),
        ("A", "B", 0),
        ("B", "A", None),
    }
    (n,) = t.negations
    assert n.types == ("C", "D") and n.negations[0].types == ("E",)
    assert {(x.source, x.target, x.guard) for x in n.transitions} == {("C", "D", 0)}


@pytest.mark.parametrize(
    ("pattern", "returns", "message"),
    [
        ("SEQ(A, SEQ(NOT(B), C))", "COUNT(*)", "only in the outermost SEQ"),
        ("KL(NOT(A))", "COUNT(*)", "Kleene over a negation"),
        ("NOT(A)", "COUNT(*)", "outermost"),
        ("SEQ(A, NOT(B), NOT(C), D)", "COUNT(*)", "adjacent negations"),
        ("KL(SEQ(A, B))", "SUM(C.v)", "not in the pattern"),
        ("SEQ(A, NOT(B), C)", "SUM(B.v)", "negated type"),
    ],
)
def test_invalid_aggregation_queries_are_refused(pattern: str, returns: str, message: str) -> None:
    with pytest.raises(InevError, match=message):
        Query.build("q", pattern, returns=returns)


def test_and_is_accepted_in_the_workload_but_refused_by_greta() -> None:
    query = Query.build("q", "SEQ(A, AND(B, C), KL(D))", returns="COUNT(*)")
    with pytest.raises(InevError, match="AND is not supported by GRETA"):
        compile_query(query, 1.0)


def test_aggregation_relaxation_only_with_a_return_clause() -> None:
    # queries that build matches take Kleene over composites and NOT anywhere too (issue
    # 31), but a negated sub-pattern only with a return clause (GRETA)
    with pytest.raises(InevError, match="NOT negates one event type"):
        Query.build("q", "SEQ(A, NOT(SEQ(C, D)), B)")
    assert str(Query.build("q", "KL(SEQ(KL(A), B))").pattern) == "KL(SEQ(KL(A), B))"
    assert str(Query.build("q", "SEQ(A, NOT(SEQ(C, D)), B)", returns="COUNT(*)").pattern) == (
        "SEQ(A, NOT(SEQ(C, D)), B)"
    )
    assert str(Query.build("q", "SEQ(A, NOT(C), B)", returns="COUNT(*)").pattern) == (
        "SEQ(A, NOT(C), B)"
    )


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("A.v < C.v", "never adjacent"),
        ("A.v < NEXT(A).v AND B.v > 1 AND A.v + B.v + C.v > 0", "neither a vertex nor an edge"),
        ("NEXT(B).v > B.v", "needs"),
    ],
)
def test_predicates_greta_cannot_place_are_refused(where: str, message: str) -> None:
    with pytest.raises(InevError, match=message):
        query = Query.build("q", "SEQ(KL(A), B, C)", where=where, returns="COUNT(*)")
        compile_query(query, 10.0)


def test_events_out_of_time_order_are_refused() -> None:
    runner = GretaQuery(compile_query(Query.build("q", "KL(A)", returns="COUNT(*)"), 10.0))
    runner.push(greta_event(2.0, "A"))
    with pytest.raises(InevError, match="arrives after"):
        runner.push(greta_event(1.0, "A"))


def test_csv_trace_and_result_lines(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    path.write_text("time,type,node,id,price\n0,S,1,1,10\n1,S,1,2,11\n2,S,2,3,9\n3,S,1,4,12\n")
    query = Query.build("q", "KL(S)", where="S.price < NEXT(S).price", returns="COUNT(*)")
    (result,) = greta_aggregates(query, read_trace(path), 10.0)
    # increasing runs over 10, 11, 9, 12: 4 singles, (10,11)(10,12)(11,12)(9,12), (10,11,12)
    assert result == {
        "query": "q",
        "window_start": 0.0,
        "window_end": 10.0,
        "group": [],
        "value": 4 + 4 + 1,
    }


def test_binomial_count_for_seq_of_kleene() -> None:
    # SEQ(KL(A), KL(B)) over 3 a's then 4 b's: (2^3 - 1) * (2^4 - 1)
    events = [greta_event(float(i), "A") for i in range(3)] + [
        greta_event(float(3 + i), "B") for i in range(4)
    ]
    assert values("SEQ(KL(A), KL(B))", events) == [7 * 15]
    # COUNT(B): each b is in half of the non-empty B-subsets containing it: 7 * 4 * 2^3
    assert values("SEQ(KL(A), KL(B))", events, returns="COUNT(B)") == [7 * 4 * 2**3]


def test_memory_stays_bounded_by_the_window() -> None:
    # 40 tumbling windows of 50 events each; the graphs hold at most one window's events
    query = Query.build(
        "q", "SEQ(KL(A), NOT(C), B)", where="A.v < NEXT(A).v", returns="COUNT(*)", group_by=["g"]
    )
    runner = GretaQuery(compile_query(query, 50.0))
    sizes = []
    results = []
    for i in range(2000):
        event = greta_event(float(i), "ACB"[i % 3], i, None, {"v": (i * 7) % 11, "g": i % 2})
        results += runner.push(event)
        sizes.append(sum(g.size() for g in runner.groups.values()))
    results += runner.finish()
    assert len(results) == 40 * 2
    # a window holds at most 17 A's, each stored twice (stores A->A and A->B); B's start
    # nothing and C's form a one-type negative graph without stores: without purging, the
    # graphs would hold all 667 A's twice by the end
    assert max(sizes) <= 2 * 17
    assert runner.groups == {}


def test_workload_runs_every_aggregation_query_with_its_slide() -> None:
    from inev.simulator.engine.greta import greta_workload
    from inev.workloads.workload import Workload

    workload = Workload.build(
        window=4.0,
        slide=2.0,
        queries=[
            Query.build("count", "KL(A)", returns="COUNT(*)"),
            Query.build("plain", "SEQ(A, B)"),
            Query.build("total", "SEQ(A, B)", returns="SUM(B.x)"),
        ],
    )
    events = [
        greta_event(1.0, "A"),
        greta_event(2.0, "B", None, None, {"x": 5}),
        greta_event(3.0, "A"),
        greta_event(5.0, "B", None, None, {"x": 7}),
    ]
    got = {(r["query"], r["window_start"]): r["value"] for r in greta_workload(workload, events)}
    # windows [0,4): a1 b2 a3; [2,6): b2 a3 b5; [4,8): b5
    assert got == {
        ("count", 0.0): 3,  # a1, a3, (a1, a3)
        ("count", 2.0): 1,
        ("total", 0.0): 5,  # (a1, b2)
        ("total", 2.0): 7,  # (a3, b5)
        ("total", 4.0): 0,  # b5 alone: no trend
    }


def test_q3_leading_negation_per_sliding_window() -> None:
    # Q3 style: slowing cars with no accident before them in the window
    speeds = {1: 50, 2: 40, 4: 30, 5: 20}
    events = [greta_event(float(t), "P", None, None, {"speed": v}) for t, v in speeds.items()]
    events.insert(2, greta_event(3.0, "A"))
    query = Query.build(
        "q3", "SEQ(NOT(A), KL(P))", where="P.speed > NEXT(P).speed", returns="COUNT(*)"
    )
    got = [(r["window_start"], r["value"]) for r in greta_aggregates(query, events, 10.0, 2.0)]
    # [0,10): trends must start at p1 or p2 (a3 precedes p4, p5): 15 subsets - 3 = 12
    # [2,12): must start at p2: {p2} x subsets of {p4, p5}: 4
    # [4,14): the accident is outside the window: all 3 subsets of {p4, p5}
    assert got == [(0.0, 12), (2.0, 4), (4.0, 3)]
    # a trailing negation drops trends followed by an accident in the window
    trailing = Query.build("t", "SEQ(KL(P), NOT(A))", returns="COUNT(*)")
    got = [(r["window_start"], r["value"]) for r in greta_aggregates(trailing, events, 10.0, 2.0)]
    # [0,10): all 15 subsets but the 3 of {p1, p2} (they end before a3);
    # [2,12): the 7 subsets of {p2, p4, p5} but {p2}; [4,14): the 3 subsets of {p4, p5}
    assert got == [(0.0, 12), (2.0, 6), (4.0, 3)]
