"""Traces: content checks of the reader, the generator, and networks measured from traces."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import inev.common.progress as progress_module
import inev.common.traces as traces_module
import inev.simulator.engine.trace as engine_trace_module
import inev.topologies.from_trace as from_trace_module
import inev.topologies.trace_generator as generator_module
from inev.common.errors import InevError
from inev.common.traces import TraceFile, scan_trace
from inev.simulator.engine.trace import event_chunks, read_trace
from inev.topologies.generate import generate_network
from inev.topologies.io import load_network
from inev.topologies.trace_generator import (
    TraceOptions,
    generate_trace,
    network_rates,
    random_rates,
)


@pytest.mark.parametrize(
    "module",
    [traces_module, engine_trace_module, progress_module, from_trace_module, generator_module],
)
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"time,type,node,id\n1,A,0,1\nnan,A,0,2\n", "line 3: time nan is not finite"),
        (b"time,type,node,id\n1,A,0,1\ninf,A,0,2\n", "line 3: time inf is not finite"),
        (b"time,type,node,id\n1,A,0,1\n,A,0,2\n", "line 3: time '' is not a number"),
        (b"time,type,node,id\n1,A,0,\xff\n", "line 2 is not UTF-8 text"),
        (b"\xfftime,type,node,id\n1,A,0,1\n", "line 1 is not UTF-8 text"),
        (b"time,type,node,id\n1, ,0,1\n", "line 2: empty event type"),
        (b"time,type,node,id\n1,A,0,\n", "line 2: empty id"),
        (b"time,type,time,id\n1,A,0,1\n", "column 'time' appears twice"),
        (b"time,type,node,id\n1,A,0,1\n2,B,0\n", "line 3 has 3 fields, the header has 4"),
        # an unbalanced quote: the Python csv module swallowed every later row into one field
        (
            b'time,type,node,id,v\n1,A,0,1,x\n2,B,1,2,"y\n3,A,0,3,z\n4,A,0,4,w\n',
            "line 3: field 'v' runs over the end of the line (an unbalanced quote?)",
        ),
    ],
)
def test_bad_csv_content_is_refused_naming_the_line(tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    with pytest.raises(InevError) as info:
        list(read_trace(path))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_byte_order_mark_and_empty_lines_are_skipped_and_counted(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbftime, type ,node,id,v\n1,A,0,1,3\n\n2,B,x,2,\n\n")
    trace = TraceFile(path)
    events = [e for chunk in event_chunks(trace) for e in chunk]
    assert [(e.time, e.type, e.node, e.id, dict(e.attrs)) for e in events] == [
        (1.0, "A", 0, 1, {"v": 3}),
        (2.0, "B", "x", 2, {}),
    ]
    assert trace.skipped == 2


def test_cells_keep_the_per_cell_reading_across_chunks(tmp_path):
    # ints stay ints, '2.5' a float, text text; a column may mix them (chunks of 2 rows)
    path = tmp_path / "t.csv"
    path.write_text("time,type,node,id,v\n1,A,0,1,3\n2,A,0,2,4\n3,A,0,3,2.5\n4,A,0,4,abc\n")
    values = [e.attrs.get("v") for c in event_chunks(path, chunk_rows=2) for e in c]
    assert values == [3, 4, 2.5, "abc"]
    assert [type(v) for v in values] == [int, int, float, str]


def test_duplicate_ids_within_a_type_are_refused_by_the_scan(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("time,type,node,id\n1,A,0,7\n2,B,0,7\n3,A,1,7\n")
    with pytest.raises(InevError, match="id 7 of type A appears 2 times"):
        scan_trace(path)
    ok = tmp_path / "ok.csv"
    ok.write_text("time,type,node,id\n1,A,0,7\n2,B,0,7\n")
    assert scan_trace(ok).rows == 2  # the same id in two types names two events


def test_scan_counts_span_order_and_busiest_window(tmp_path):
    path = tmp_path / "t.csv"
    rows = [(0.5, "A", 0, 1), (1.2, "A", 1, 2), (1.4, "B", 1, 3), (1.3, "A", 0, 4), (7, "A", 0, 5)]
    path.write_text(
        "time,type,node,id,k\n" + "".join(f"{t},{y},{n},{i},{i % 2}\n" for t, y, n, i in rows)
    )
    scan = scan_trace(path, window=1.0, keys={"A": ["k"]})
    assert scan.rows == 5 and (scan.start, scan.end) == (0.5, 7.0)
    assert scan.counts == {"A": 4, "B": 1}
    assert scan.sources == {("A", 0): 3, ("A", 1): 1, ("B", 1): 1}
    assert scan.unsorted == "trace t.csv: line 5"
    # bins [0, 1) and [1, 2) hold 1 and 2 A events: a window can hold at most 3
    assert scan.busiest == {"A": 3, "B": 1}
    assert scan.keys[("A", "k")] == {1: 2, 0: 2}


def test_parquet_traces_with_timestamps_and_nested_columns(tmp_path):
    path = tmp_path / "t.parquet"
    table = pa.table(
        {
            "time": pa.array([1_000, 3_000], type=pa.timestamp("ms")),
            "type": ["A", "B"],
            "node": ["0", "n"],
            "id": [1, 2],
            "v": [1.5, None],
        }
    )
    pq.write_table(table, path)
    assert [(e.time, e.node, dict(e.attrs)) for e in read_trace(path)] == [
        (1.0, 0, {"v": 1.5}),
        (3.0, "n", {}),
    ]
    nested = tmp_path / "n.parquet"
    pq.write_table(table.append_column("l", pa.array([[1], [2]])), nested)
    with pytest.raises(InevError, match="nested type"):
        TraceFile(nested)
    nan = tmp_path / "nan.parquet"
    pq.write_table(table.set_column(0, "time", pa.array([1.0, float("nan")])), nan)
    with pytest.raises(InevError, match="row 2: time nan is not finite"):
        list(read_trace(nan))


# ---------------------------------------------------------------------- generator


def test_same_seed_same_file_and_rates_within_poisson_noise(tmp_path):
    options = TraceOptions(nodes=6, types=3, events=20_000, duration=1000.0, keys=50, seed=4)
    rates = random_rates(options)
    a = generate_trace(rates, options.duration, keys=50, seed=4)
    b = generate_trace(rates, options.duration, keys=50, seed=4)
    assert a.equals(b)
    assert a.column("time").to_numpy().tolist() == sorted(a.column("time").to_numpy().tolist())
    assert a.column("id").to_pylist() == list(range(a.num_rows))
    counts = {}
    for t, n in zip(a.column("type").to_pylist(), a.column("node").to_pylist(), strict=True):
        counts[(t, n)] = counts.get((t, n), 0) + 1
    for source, rate in rates.items():
        expected = rate * options.duration
        assert abs(counts.get(source, 0) - expected) <= 5 * np.sqrt(expected) + 1
    # sources differ widely: log-normal weights of spread 1.5
    many = random_rates(TraceOptions(nodes=400, types=1, node_ratio=1.0, spread=1.5, seed=1))
    assert np.std(np.log(list(many.values()))) == pytest.approx(1.5, rel=0.15)


@pytest.mark.parametrize("profile", ["diurnal", "bursty"])
def test_diurnal_and_bursty_profiles_keep_the_mean_and_follow_the_day(profile):
    table = generate_trace({("A", 0): 5.0}, duration=200.0, profile=profile, period=10.0, seed=2)
    times = table.column("time").to_numpy()
    assert abs(len(times) - 1000) < (250 if profile == "bursty" else 120)
    # the first half of each day (sin > 0) holds most events
    first_half = np.mean((times % 10.0) < 5.0)
    assert first_half > 0.65


def test_generator_from_a_network_uses_its_per_source_rates():
    net = generate_network(nodes=6, event_types=2, skew=1.5, seed=3)
    assert network_rates(net) == {
        (t, n): r
        for t in net.types
        for n, r in zip(net.sources(t), net.source_rates(t), strict=True)
    }


def test_trace_generate_and_network_from_trace_cli(tmp_path, run_cli):
    trace = tmp_path / "t.csv"
    code, out, err = run_cli(
        "trace", "generate", "--nodes", "8", "--types", "3", "--events", "30000",
        "--duration", "1000", "--keys", "20", "--key-name", "bid", "--seed", "5", "-o", trace,
    )  # fmt: skip
    assert code == 0, err
    again = tmp_path / "again.csv"
    run_cli(
        "trace", "generate", "--nodes", "8", "--types", "3", "--events", "30000",
        "--duration", "1000", "--keys", "20", "--key-name", "bid", "--seed", "5", "-o", again,
    )  # fmt: skip
    assert trace.read_bytes() == again.read_bytes()
    net_file = tmp_path / "net.json"
    code, out, err = run_cli("network", "from-trace", trace, "--seed", "2", "-o", net_file)
    assert code == 0, err
    net = load_network(net_file)
    rates = random_rates(
        TraceOptions(nodes=8, types=3, events=30000, duration=1000.0, keys=20, seed=5)
    )
    assert sorted(net.types) == ["A", "B", "C"]
    for (t, n), r in rates.items():
        assert abs(net.rate_at(t, n) - r) <= 5 * np.sqrt(r * 1000.0) / 1000.0 + 1e-3
    assert "events" in out and "-> " in out
    document = json.loads(net_file.read_text())
    assert "rates" in document["event_types"]["A"]


def test_network_from_trace_refusals(tmp_path, run_cli):
    trace = tmp_path / "t.csv"
    trace.write_text("time,type,node,id\n1,A,0,1\n2,B,5,2\n")
    topo = tmp_path / "topo.txt"
    topo.write_text("0 1\n1 2\n")
    code, _, err = run_cli("network", "from-trace", trace, "--topology", topo, "-o", tmp_path / "n")
    assert (
        code == 1
        and err.startswith("error: ")
        and "node 5 of the trace is not in the topology" in err
    )
    same = tmp_path / "same.csv"
    same.write_text("time,type,node,id\n1,A,0,1\n1,B,0,2\n")
    code, _, err = run_cli("network", "from-trace", same, "-o", tmp_path / "n")
    assert code == 1 and "give --duration" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("time,type,node,id\n1,trip start,0,1\n2,B,0,2\n")
    code, _, err = run_cli("network", "from-trace", bad, "-o", tmp_path / "n")
    assert code == 1 and "event type name 'trip start'" in err
    assert not (tmp_path / "n").exists()
