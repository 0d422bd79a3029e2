"""``inev match`` with the language of issue 31: variables, ties, selection flags, refusals."""

from __future__ import annotations

import json

import pytest

TRACE = "time,type,node,id,peak\n0,X,0,9,0\n1,G,0,1,10\n1,A,0,2,5\n2,G,0,3,12\n3,G,0,4,11\n"


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_match_variables_ties_and_a_leading_negation(run_cli, tmp_path, write_json):
    workload = write_json(
        "w.json",
        {
            "format": "inev-workload/1",
            "window": 5.0,
            "ties": "any",
            "queries": [
                {"name": "up", "pattern": "SEQ(G a, G b)", "where": "a.peak < b.peak"},
                # A at the time of G 1: in either order under ties "any"
                {"name": "tie", "pattern": "SEQ(G g, A)"},
                {"name": "clear", "pattern": "SEQ(NOT(X), G a, G b)"},
            ],
        },
    )
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    code, _out, err = run_cli("match", workload, trace, "-o", tmp_path / "m.jsonl")
    assert code == 0, err
    found = {}
    for r in _lines(tmp_path / "m.jsonl"):
        found.setdefault(r["query"], []).append(r["events"])
    assert sorted(found["up"]) == [[1, 3], [1, 4]]  # 10 < 12, 10 < 11; not 12 < 11
    assert found["tie"] == [[1, 2]]
    # X at 0 lies within the window before every first G: no match
    assert "clear" not in found


def test_match_selection_flags(run_cli, tmp_path, write_json):
    workload = write_json(
        "w.json",
        {"format": "inev-workload/1", "window": 5.0, "queries": [{"pattern": "SEQ(G a, G b)"}]},
    )
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    code, _out, err = run_cli(
        "match", workload, trace, "-o", tmp_path / "m.jsonl", "--strategy", "contiguous"
    )
    assert code == 0, err
    # among the events of type G (the query's): 1-3 and 3-4 are next to each other
    assert sorted(r["events"] for r in _lines(tmp_path / "m.jsonl")) == [[1, 3], [3, 4]]
    code, _out, err = run_cli(
        "match", workload, trace, "-o", tmp_path / "n.jsonl", "--consume", "a"
    )
    assert code == 0, err
    # G 1 starts one match at most (the first, with G 3), G 3 the next
    assert sorted(r["events"] for r in _lines(tmp_path / "n.jsonl")) == [[1, 3], [3, 4]]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--strategy", "sometimes"], "--strategy must be any, next, contiguous or partition"),
        (["--consume", "zz"], "no query has a leaf zz"),
    ],
)
def test_match_refuses_bad_selection_flags(run_cli, tmp_path, write_json, flags, message):
    workload = write_json(
        "w.json",
        {"format": "inev-workload/1", "window": 5.0, "queries": [{"pattern": "SEQ(G a, G b)"}]},
    )
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    code, _out, err = run_cli("match", workload, trace, "-o", tmp_path / "m.jsonl", *flags)
    assert code == 1
    assert err.strip().startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "m.jsonl").exists()


def test_aggregation_refuses_what_greta_does_not_define():
    from inev.common.errors import InevError
    from inev.simulator.engine.greta import compile_query
    from inev.simulator.engine.matching import match_workload
    from inev.workloads.workload import Query, Workload

    positions = Query.build("q", "SEQ(A, KL(B))", where="B[2].v > 1", returns="COUNT(*)")
    with pytest.raises(InevError, match="reads a position of a trend"):
        compile_query(positions, 5.0)
    # inev match then writes the query's matches, with a note saying why
    run = match_workload(Workload.build(5.0, [positions]), [[]])
    assert "q" in run.engines and "position" in run.notes[0]
    with pytest.raises(InevError, match=r"size bounds .* are not defined by GRETA"):
        Query.build("q", "SEQ(A, KL(B){2,})", returns="COUNT(*)")
    counted = Query.build("q", "SEQ(A, B)", returns="COUNT(*)")
    with pytest.raises(InevError, match="ties 'any' with the return clause"):
        Workload.build(5.0, [counted], ties="any")
