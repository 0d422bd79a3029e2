"""``inev match`` with return clauses: GRETA aggregates per window, hand-checked."""

from __future__ import annotations

import json


def test_match_writes_greta_aggregates_per_sliding_window(run_cli, tmp_path, write_json):
    workload = write_json(
        "w.json",
        {
            "format": "inev-workload/1",
            "window": 10.0,
            "slide": 5.0,
            "queries": [
                {
                    "name": "up",
                    "pattern": "KL(S)",
                    "where": "S.price < NEXT(S).price",
                    "return": "COUNT(*)",
                },
                {"name": "pairs", "pattern": "SEQ(S, T)"},
            ],
        },
    )
    trace = tmp_path / "t.csv"
    trace.write_text(
        "time,type,node,id,price\n1,S,0,1,10\n2,S,0,2,12\n3,T,0,3,1\n4,S,0,4,15\n12,S,0,6,9\n"
    )
    code, _out, err = run_cli("match", workload, trace, "-o", tmp_path / "m.jsonl")
    assert code == 0, err
    lines = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    aggregates = [(r["window_start"], r["value"]) for r in lines if r["query"] == "up"]
    # [0, 10): prices 10, 12, 15 rise in every order-preserving subset: 2^3 - 1 = 7 trends;
    # [5, 15) and [10, 20) hold only the event at 12 (price 9): one trend each
    assert aggregates == [(0.0, 7), (5.0, 1), (10.0, 1)]
    assert sorted(r["events"] for r in lines if r["query"] == "pairs") == [[1, 3], [2, 3]]
