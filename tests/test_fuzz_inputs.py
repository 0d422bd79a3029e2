"""Fuzzing every input file kind through its command (hypothesis, derandomized).

Each example starts from valid files, breaks one of them in a way that is certain to make it
invalid, runs the command in-process, and holds it to the error promise: exit status 1,
exactly one stderr line ``error: <reason>``, no traceback or internal error, no output and no
temporary file, every input unchanged.

The mutations are chosen to be invalid whatever hypothesis picks: a value replaced by one of
another JSON type (every value of inev's files is typed, and a node id of another type names
no node), NaN or an infinity where a number is, a required key removed, a value nested
1,000 deep, invalid UTF-8 bytes, a JSON text cut short before its last brace. Result folders
get a dropped or retyped column, a truncated Parquet file or a broken ``spec.json``. Traces
(CSV and Parquet) go through every command that reads one (``match``, ``simulate --trace``,
``network from-trace``, ``workload estimate``) with a line that is not UTF-8, a time that is
no finite number, an empty field, a field too many, an unbalanced quote, a repeated id, a
required column missing or the file cut short; estimated workloads (``where_selectivity``,
``estimated_from``) go through ``plan``; the trace commands' options get hostile values.
``benchmarks/fuzz_commands.py`` runs the same kind of search at a larger scale, with
mutations that may also stay valid.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import make_inputs, snapshot

EXAMPLES = 250
REUSED_FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
"""run_cli reads (and so empties) the captured output on every call: safe to share."""
_counter = itertools.count()

REQUIRED = {
    "net": [("nodes",), ("links",), ("event_types",)],
    "wl": [("window",), ("queries",), ("queries", 0, "pattern")],
    "plan": [("vertices",), ("sinks",), ("projections",), ("type_rates",), ("method",),
             ("vertices", 0, "cost"), ("vertices", 0, "node")],
    "changes": [("changes",), ("changes", 0, "kind"), ("changes", 0, "rate")],
    "est_wl": [("window",), ("queries",), ("queries", 0, "where"), ("estimated_from", "trace"),
               ("estimated_from", "events"), ("estimated_from", "pairs", "k: B C", "method")],
}  # fmt: skip
OTHER_TYPE = {
    "number": ["x", "", [], {}, [1], {"a": 1}, True],
    "string": [7, 1.5, {}, True, -1],
    "list": ["x", 7, True, 0.5],
    "object": ["x", 7, [], True, [{}]],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Valid inputs of every kind (as bytes), made once for the module."""
    from inev.common.cli import main

    def run_cli(*args):
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            return (exc.code, "", "")
        return (0, "", "")

    folder = tmp_path_factory.mktemp("corpus")
    paths = make_inputs(run_cli, folder / "in")
    files = {name: path.read_bytes() for name, path in paths.items()}
    results = folder / "results"
    results.mkdir()
    table = pa.table({"task_id": ["a", "b"], "method": ["inev", "inev"], "error": [None, None],
                      "skew": [1.1, 1.3], "ratio": [0.5, 0.25], "cost": [2.0, 1.0]})  # fmt: skip
    pq.write_table(table, results / "results.parquet")
    spec = {"format": "inev-sweep/1", "spec": {"axes": {"skew": [1.1, 1.3]}}}
    (results / "spec.json").write_text(json.dumps(spec))
    files["results/results.parquet"] = (results / "results.parquet").read_bytes()
    files["results/spec.json"] = (results / "spec.json").read_bytes()
    root = folder / "cases"
    root.mkdir()
    return Corpus((files, root))


class Corpus(tuple):
    """The valid files and the cases folder (shown briefly in hypothesis's reports)."""

    def __repr__(self) -> str:
        return "corpus"


def kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def paths_in(document: Any, prefix: tuple = ()) -> list[tuple]:
    """Paths to every value below the root, except the format."""
    out = []
    items = document.items() if isinstance(document, dict) else enumerate(document)
    for key, value in items:
        if prefix == () and key == "format":
            continue
        out.append((*prefix, key))
        if isinstance(value, dict | list):
            out += paths_in(value, (*prefix, key))
    return out


def at(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


@st.composite
def broken_json(draw, data: bytes, kind: str) -> bytes:
    """A JSON file made certainly invalid (see the module docstring)."""
    document = json.loads(data)
    how = draw(st.sampled_from(["type", "type", "type", "nan", "missing", "deep", "bytes", "cut"]))
    if how in ("type", "nan", "deep"):
        paths = paths_in(document)
        if how == "nan":
            paths = [p for p in paths if kind_of(at(document, p)) == "number"]
        path = draw(st.sampled_from(paths))
        parent = at(document, path[:-1])
        old = parent[path[-1]]
        if how == "type":
            parent[path[-1]] = draw(st.sampled_from(OTHER_TYPE[kind_of(old)]))
        elif how == "nan":
            parent[path[-1]] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        else:
            parent[path[-1]] = "__DEEP__"
        text = json.dumps(document).replace('"__DEEP__"', "[" * 1000 + "]" * 1000)
        return text.encode()
    if how == "missing":
        path = draw(st.sampled_from(REQUIRED[kind]))
        del at(document, path[:-1])[path[-1]]
        return json.dumps(document).encode()
    if how == "bytes":
        at_byte = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80\x80"]))
        return data[:at_byte] + junk + data[at_byte:]
    return data[: draw(st.integers(0, data.rindex(b"}") - 1))]


COMMANDS = {
    "net": ["plan", "{net}", "{wl}", "-o", "out.json"],
    "wl": ["plan", "{net}", "{wl}", "-o", "out.json"],
    "plan": ["simulate", "{net}", "{wl}", "{plan}", "--duration", "1", "-o", "out.json"],
    "changes": ["repair", "{plan}", "{net}", "{wl}", "--changes", "{changes}", "-o", "out.json"],
    "est_wl": ["plan", "{net}", "{est_wl}", "-o", "out.json"],
}


def run_case(run_cli, corpus, files: dict[str, bytes], argv: list[str]) -> None:
    """Write the case, run it and check the error promise; remove the case afterwards."""
    _, root = corpus
    case = root / f"case-{next(_counter)}"
    case.mkdir()
    try:
        for name, data in files.items():
            (case / name).parent.mkdir(parents=True, exist_ok=True)
            (case / name).write_bytes(data)
        before = snapshot(case)
        names = {Path(name).stem: str(case / name) for name in files}
        args = [a.format(**names) if "{" in a else a for a in argv]
        args = [str(case / a) if a.startswith("out") else a for a in args]
        code, _, err = run_cli(*args)
        lines = err.splitlines()
        assert code == 1, err
        assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0][7:].strip(), err
        assert "Traceback" not in err and "internal error" not in err, err
        assert snapshot(case) == before
    finally:
        shutil.rmtree(case, ignore_errors=True)


@pytest.mark.parametrize("kind", list(COMMANDS))
@settings(max_examples=EXAMPLES, suppress_health_check=REUSED_FIXTURES)
@given(data=st.data())
def test_a_broken_json_input_is_one_line(run_cli, corpus, kind, data):
    valid, _ = corpus
    files = {f"{name}.json": valid[name] for name in ("net", "wl", "plan", "changes", "est_wl")}
    files[f"{kind}.json"] = data.draw(broken_json(valid[kind], kind))
    run_case(run_cli, corpus, files, COMMANDS[kind])


def toml_text(document: dict[str, Any]) -> str:
    """A TOML text of a sweep document (values as JSON, which TOML mostly shares)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in document.items() if not isinstance(v, dict)]
    for key, table in document.items():
        if isinstance(table, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


@settings(max_examples=EXAMPLES, suppress_health_check=REUSED_FIXTURES)
@given(data=st.data())
def test_a_broken_sweep_spec_is_one_line(run_cli, corpus, data):
    import tomllib

    valid, _ = corpus
    document = tomllib.loads(valid["sweep"].decode())
    how = data.draw(st.sampled_from(["type", "type", "nan", "bytes", "big"]))
    if how == "bytes":
        at_byte = data.draw(st.integers(0, len(valid["sweep"])))
        text = valid["sweep"][:at_byte] + b"\xff\xfe" + valid["sweep"][at_byte:]
    else:
        paths = paths_in(document)
        if how != "type":
            paths = [p for p in paths if kind_of(at(document, p)) == "number"]
        path = data.draw(st.sampled_from(paths))
        parent = at(document, path[:-1])
        old = parent[path[-1]]
        if how == "type":  # (a lone number is a valid axis: lists get other types only)
            others = ["x", True] if isinstance(old, list) else OTHER_TYPE[kind_of(old)]
            parent[path[-1]] = data.draw(st.sampled_from(others))
        elif how == "nan":
            parent[path[-1]] = data.draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        else:
            parent[path[-1]] = data.draw(st.sampled_from([2**63, 10**30, -5]))
        text = toml_text(document).encode()
    files = {"sweep.toml": text}
    run_case(run_cli, corpus, files, ["sweep", "{sweep}", "-o", "out", "--master", "serial"])


@settings(max_examples=EXAMPLES, suppress_health_check=REUSED_FIXTURES)
@given(data=st.data())
def test_broken_results_are_one_line(run_cli, corpus, data):
    valid, _ = corpus
    files = {k: v for k, v in valid.items() if k.startswith("results/")}
    table = pq.read_table(pa.BufferReader(files["results/results.parquet"]))
    how = data.draw(st.sampled_from(["drop", "retype", "cut", "spec", "spec-shape"]))
    if how == "drop":
        table = table.drop_columns([data.draw(st.sampled_from(["method", "error", "ratio"]))])
    elif how == "retype":
        column = data.draw(st.sampled_from(["ratio", "method", "error"]))
        retyped = pa.array([7, 8]) if column != "ratio" else pa.array(["a", "b"])
        table = table.set_column(table.column_names.index(column), column, retyped)
    if how in ("drop", "retype"):
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        files["results/results.parquet"] = sink.getvalue().to_pybytes()
    elif how == "cut":
        data_bytes = files["results/results.parquet"]
        files["results/results.parquet"] = data_bytes[
            : data.draw(st.integers(0, len(data_bytes) - 1))
        ]
    elif how == "spec":
        spec = files["results/spec.json"]
        files["results/spec.json"] = spec[: data.draw(st.integers(0, spec.rindex(b"}") - 1))]
    else:
        broken = data.draw(st.sampled_from([[], "x", 7, {"axes": []}, {"plot": {"x": 7}}]))
        files["results/spec.json"] = json.dumps({"format": "inev-sweep/1", "spec": broken}).encode()
    run_case(run_cli, corpus, files, ["plot", "{results}", "-o", "out.png"])


# ------------------------------------------------------------------ traces (issue 14)
TRACE_COMMANDS = {
    "match": ["match", "{wl}", "{trace}", "-o", "out.jsonl"],
    "simulate": ["simulate", "{net}", "{wl}", "{plan}", "--trace", "{trace}", "-o", "out.json"],
    "from-trace": ["network", "from-trace", "{trace}", "-o", "out.json"],
    "estimate": ["workload", "estimate", "{keyed_wl}", "{trace}", "-o", "out.json"],
}


@st.composite
def broken_csv(draw, data: bytes) -> bytes:
    """A CSV trace made certainly invalid: a line that is not UTF-8, a time that is no finite
    number, an empty type, node or id, a line with a field too many, an unbalanced quote, a
    repeated line (its id repeats within its type), a required column renamed."""
    lines = data.decode().splitlines()
    how = draw(st.sampled_from(["bytes", "time", "empty", "fields", "quote", "repeat", "header"]))
    if how == "bytes":
        at_byte = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80\x80"]))
        return data[:at_byte] + junk + data[at_byte:]
    if how == "header":
        column = draw(st.sampled_from(["time", "type", "node", "id"]))
        lines[0] = lines[0].replace(f'"{column}"', '"zz"')
        return ("\n".join(lines) + "\n").encode()
    row = draw(st.integers(1, len(lines) - 1))
    cells = lines[row].split(",")
    if how == "time":
        cells[0] = draw(st.sampled_from(["nan", "inf", "-inf", "NaN", "x", "", "1e400"]))
    elif how == "empty":
        cells[draw(st.integers(1, 3))] = draw(st.sampled_from(["", '""', " "]))
    elif how == "fields":
        cells.append("1")
    elif how == "quote":
        cells[draw(st.integers(1, len(cells) - 1))] = '"x'
    if how == "repeat":
        lines.insert(row + 1, lines[row])
    else:
        lines[row] = ",".join(cells)
    return ("\n".join(lines) + "\n").encode()


@st.composite
def broken_parquet(draw, data: bytes) -> bytes:
    """A Parquet trace made certainly invalid: a required column dropped, a missing or
    non-finite time, an empty type, a repeated row, or the file cut short."""
    table = pq.read_table(pa.BufferReader(data))
    how = draw(st.sampled_from(["drop", "null", "nan", "type", "repeat", "cut"]))
    if how == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    row = draw(st.integers(0, table.num_rows - 1))
    if how == "drop":
        table = table.drop_columns([draw(st.sampled_from(["time", "type", "node", "id"]))])
    elif how in ("null", "nan"):
        times = table.column("time").to_pylist()
        times[row] = None if how == "null" else draw(st.sampled_from([math.nan, math.inf]))
        table = table.set_column(0, "time", pa.array(times, pa.float64()))
    elif how == "type":
        types = table.column("type").to_pylist()
        types[row] = draw(st.sampled_from(["", " ", None]))
        table = table.set_column(1, "type", pa.array(types, pa.string()))
    else:
        table = pa.concat_tables([table.slice(0, row + 1), table.slice(row)])
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@settings(max_examples=120, suppress_health_check=REUSED_FIXTURES)
@given(data=st.data())
def test_a_broken_trace_is_one_line_in_every_command_that_reads_one(run_cli, corpus, fmt, data):
    valid, _ = corpus
    files = {f"{name}.json": valid[name] for name in ("net", "wl", "plan", "keyed_wl")}
    if fmt == "csv":
        files["trace.csv"] = data.draw(broken_csv(valid["trace"]))
    else:
        files["trace.parquet"] = data.draw(broken_parquet(valid["trace_pq"]))
    command = data.draw(st.sampled_from(sorted(TRACE_COMMANDS)))
    run_case(run_cli, corpus, files, TRACE_COMMANDS[command])


HOSTILE_TRACE_OPTIONS = [
    (["trace", "generate"], "--events", ["0", "-1", "nan", "1e9", "99999999999999999999"]),
    (["trace", "generate"], "--nodes", ["0", "-3", "200001", "9223372036854775808"]),
    (["trace", "generate"], "--types", ["0", "10001"]),
    (["trace", "generate"], "--duration", ["0", "-1", "nan", "inf", "-inf"]),
    (["trace", "generate"], "--keys", ["-1", "10000001", "99999999999999999999"]),
    (["trace", "generate"], "--key-name", ["", "time", "id", "a b", "a,b", "1x", "é"]),
    (["trace", "generate"], "--node-ratio", ["0", "-0.5", "1.5", "nan"]),
    (["trace", "generate"], "--skew", ["-1", "nan", "inf", "1e300"]),
    (["trace", "generate"], "--spread", ["-1", "nan", "inf"]),
    (["trace", "generate"], "--key-skew", ["-1", "nan", "inf"]),
    (["trace", "generate", "--profile", "bursty"], "--period", ["0", "-1", "nan", "1e-9"]),
    (["trace", "generate"], "--seed", ["-1", "9223372036854775808", "abc"]),
    (["trace", "generate"], "--profile", ["", "weekly"]),
    (["network", "from-trace", "{trace}"], "--out-degree", ["0", "-1", "nan", "inf", "1e300"]),
    (["network", "from-trace", "{trace}"], "--link-latency", ["0", "-1", "nan", "inf"]),
    (["network", "from-trace", "{trace}"], "--duration", ["0", "-1", "nan", "inf", "0.001"]),
    (["network", "from-trace", "{trace}"], "--seed", ["-1", "9223372036854775808"]),
    (["workload", "estimate", "{keyed_wl}", "{trace}"], "--sample", ["0", "-1", "10000001"]),
    (["workload", "estimate", "{keyed_wl}", "{trace}"], "--seed", ["-1", "9223372036854775808"]),
]


@settings(max_examples=150, suppress_health_check=REUSED_FIXTURES)
@given(data=st.data())
def test_a_hostile_option_of_a_trace_command_is_one_line(run_cli, corpus, data):
    valid, _ = corpus
    command, option, values = data.draw(st.sampled_from(HOSTILE_TRACE_OPTIONS))
    value = data.draw(st.sampled_from(values))
    files = {"trace.csv": valid["trace"], "keyed_wl.json": valid["keyed_wl"]}
    run_case(run_cli, corpus, files, [*command, f"{option}={value}", "-o", "out.csv"])
