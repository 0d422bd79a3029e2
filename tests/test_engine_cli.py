"""``inev match`` and trace reading."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from inev.common.cli import cli
from inev.common.errors import InevError
from inev.simulator.engine.trace import read_trace
from inev.workloads.io import save_workload
from inev.workloads.workload import Query, Workload


@pytest.fixture
def workload(tmp_path):
    wl = Workload.build(
        window=3.0,
        queries=[
            Query.build("q1", "SEQ(A, B)"),
            Query.build("q2", "NSEQ(A, N, C)", where="C.v > 1"),
        ],
    )
    path = tmp_path / "wl.json"
    save_workload(wl, path)
    return path


TRACE = "time,type,node,id,v\n1,A,0,1,0\n2,B,1,2,0\n3,X,0,3,0\n4,C,2,4,5\n5,N,1,5,0\n6,C,0,6,9\n"


def test_match_writes_matches_per_query(tmp_path, workload):
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    out = tmp_path / "m.jsonl"
    result = CliRunner().invoke(cli, ["match", str(workload), str(trace), "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    # q1: A1 B2; q2: A1 C4 (span 3, no N between); A1 C6 is outside the window
    assert sorted((x["query"], tuple(x["events"])) for x in lines) == [
        ("q1", (1, 2)),
        ("q2", (1, 4)),
    ]
    assert "1 of unknown types ignored" in result.output
    assert "events/s" in result.output


def test_match_reads_parquet_and_unsorted_traces(tmp_path, workload):
    table = pa.table(
        {
            "time": [2.0, 1.0, 4.0],
            "type": ["B", "A", "C"],
            "node": [0, 0, 0],
            "id": ["b", "a", "c"],
            "v": [0, 0, 3],
        }
    )
    trace = tmp_path / "t.parquet"
    pq.write_table(table, trace)
    out = tmp_path / "m.jsonl"
    for plan, adaptive in (("greedy", "off"), ("zstream", "invariant")):
        result = CliRunner().invoke(
            cli,
            [
                "match",
                str(workload),
                str(trace),
                "-o",
                str(out),
                "--engine-plan",
                plan,
                "--adaptive",
                adaptive,
            ],
        )
        assert result.exit_code == 0, result.output
        lines = sorted(out.read_text().splitlines())
        assert lines == [
            '{"query": "q1", "events": ["a", "b"]}',
            '{"query": "q2", "events": ["a", "c"]}',
        ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("time,type,node\n1,A,0\n", "missing column(s) id"),
        ("time,type,node,id\n1,A,0,1\nx,B,0,2\n", "line 3: time 'x' is not a number"),
        ("time,type,node,id\n1,A,0,1,9\n", "line 2 has 5 fields"),
        ("", "empty"),
    ],
)
def test_bad_traces_name_the_row(tmp_path, text, message):
    trace = tmp_path / "bad.csv"
    trace.write_text(text)
    with pytest.raises(InevError) as info:
        list(read_trace(trace))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_match_cli_error_leaves_no_output(tmp_path, workload):
    from inev.common.cli import main

    trace = tmp_path / "bad.csv"
    trace.write_text("time,type,node,id\nnope,A,0,1\n")
    out = tmp_path / "m.jsonl"
    with pytest.raises(SystemExit) as info:
        main(["match", str(workload), str(trace), "-o", str(out)])
    assert info.value.code == 1
    assert not out.exists()
