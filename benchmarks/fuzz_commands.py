"""Fuzz every command: seeded mutations of every input file and hostile option values.

For each case the script writes a set of input files (valid ones, one of them mutated, or a
hostile option value, or an output path that collides with an input), runs one ``inev``
command on them in a forked child of this process (so the import cost is paid once), and
checks the promise of the team's definition of done:

- a refused case (non-zero exit) prints exactly one non-empty stderr line ``error: ...``, no
  traceback (an ``internal error`` line counts as one), leaves no output and no temporary file,
  and leaves every input byte-identical;
- an accepted case (exit 0) leaves no temporary file and no input changed;
- no case runs longer than ``--timeout`` seconds (a hang).

Mutations of JSON inputs work on the parsed document (delete a key, replace a value by a
hostile one: wrong types, 401-digit integers, NaN and infinities, lists nested 1,000 deep, names
that exist elsewhere, duplicated list items ...), and on the bytes (truncation, invalid UTF-8, a
byte-order mark, deep nesting). TOML specs, CSV and Parquet traces and result folders have their
own mutations. Cross-file cases give a plan made for another network or workload.

Each child runs with an address-space limit (``--memory``), so a case that tries to exhaust the
machine ends in a MemoryError instead (which is then counted by how it was reported).

Every ``--chain-every``-th case (default 4) is instead a chain of :mod:`fuzz_language`: a
generated workload in the whole query language planned, then simulated, repaired, drawn,
shown and matched in one folder, each step a row of its own ("chain plan", ...); a step that
refuses the plan ``inev plan`` just wrote counts as "own plan refused".

Run: ``python benchmarks/fuzz_commands.py [--cases 2400] [--seed 1] [--timeout 60]``; it prints
one row per command and the total, and with ``--show N`` the first N failing cases.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import io
import json
import math
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz_language import language_chain

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HOSTILE_SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**64,
    10**400,
    -(10**400),
    0.0,
    -0.5,
    1e308,
    1e-320,
    "",
    "x",
    "A",
    "SEQ(A, B)",
    "é\u0000\ud7ff",
    "x" * 5000,
    [],
    {},
    [[]],
    {"": None},
]
HOSTILE_OPTION_VALUES = [
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "99999999999999999999999",
    "",
    "abc",
    "0.0000001",
    "9223372036854775807",
]


def _deep_list(depth: int) -> Any:
    """A JSON value nested ``depth`` lists deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


DEEP_100 = "__DEEP_100__"
DEEP_1000 = "__DEEP_1000__"
"""Placeholders for values nested 100 and 1,000 lists deep (spliced into the file's text)."""


def deep_pattern(depth: int) -> str:
    """A pattern nested ``depth`` SEQs deep."""
    return "SEQ(" * depth + "A, B" + ")" * depth


# --------------------------------------------------------------------------- mutations
def paths_of(document: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indices) to a value inside ``document``."""
    out = [prefix]
    if len(prefix) > 12:
        return out
    if isinstance(document, dict):
        for key, value in document.items():
            out += paths_of(value, (*prefix, key))
    elif isinstance(document, list):
        for i, value in enumerate(document[:50]):
            out += paths_of(value, (*prefix, i))
    return out


def get_at(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


def set_at(document: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = get_at(document, path[:-1])
    parent[path[-1]] = value
    return document


def delete_at(document: Any, path: tuple) -> Any:
    if not path:
        return {}
    parent = get_at(document, path[:-1])
    del parent[path[-1]]
    return document


def strings_in(document: Any) -> list[Any]:
    """Strings and numbers found in the document (names to swap in elsewhere)."""
    found = []
    for path in paths_of(document):
        value = get_at(document, path)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            found.append(value)
        if path and isinstance(path[-1], str):
            found.append(path[-1])
    return found


def mutate_document(rng: random.Random, document: Any) -> Any:
    """One to three structural mutations of a parsed JSON (or TOML) document."""
    document = copy.deepcopy(document)
    names = strings_in(document)
    for _ in range(rng.randint(1, 3)):
        paths = paths_of(document)
        path = rng.choice(paths[1:] if len(paths) > 1 else paths)
        action = rng.random()
        try:
            if action < 0.2 and path:
                document = delete_at(document, path)
            elif action < 0.55:
                document = set_at(document, path, copy.deepcopy(rng.choice(HOSTILE_SCALARS)))
            elif action < 0.7 and names:
                document = set_at(document, path, rng.choice(names))
            elif action < 0.75:
                document = set_at(document, path, rng.choice([DEEP_100, DEEP_1000]))
            elif action < 0.8:
                document = set_at(document, path, rng.choice([math.nan, math.inf, -math.inf]))
            elif action < 0.9:
                value = get_at(document, path)
                if isinstance(value, list) and value:
                    value.append(copy.deepcopy(rng.choice(value)))
                elif isinstance(value, dict):
                    value[rng.choice(names) if names else "extra"] = rng.choice(HOSTILE_SCALARS)
                elif isinstance(value, int | float) and not isinstance(value, bool):
                    document = set_at(document, path, value * rng.choice([-1, 0, 1e6, 1e300]))
                else:
                    document = set_at(document, path, [value, value])
            else:
                value = get_at(document, path)
                if isinstance(value, str):
                    document = set_at(
                        document, path, rng.choice([value * 2, value[:-1], deep_pattern(1000)])
                    )
                else:
                    document = set_at(document, path, str(value))
        except (KeyError, IndexError, TypeError):
            continue
    return document


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """A byte-level mutation: truncation, invalid UTF-8, a BOM, deep nesting, junk."""
    action = rng.randrange(7)
    if action == 0:
        return data[: rng.randrange(max(1, len(data)))]
    if action == 1:
        at = rng.randrange(max(1, len(data)))
        return data[:at] + b"\xff\xfe\xc3" + data[at:]
    if action == 2:
        return b"\xef\xbb\xbf" + data
    if action == 3:
        return b"[" * 100_000 + b"]" * 100_000
    if action == 4:
        return b""
    if action == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    return data.replace(b"1", b"1" * 500, 1)


def json_bytes(document: Any) -> bytes:
    text = json.dumps(document, allow_nan=True)
    for marker, depth in ((DEEP_100, 100), (DEEP_1000, 1000)):
        text = text.replace(json.dumps(marker), "[" * depth + "1" + "]" * depth)
    return text.encode("utf-8", "surrogatepass")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if value in (DEEP_100, DEEP_1000):
        depth = 100 if value == DEEP_100 else 1000
        return "[" * depth + "1" + "]" * depth
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
            + "}"
        )
    return '""'


def toml_bytes(document: dict[str, Any]) -> bytes:
    """A TOML text of a document (top-level tables written as ``[table]``)."""
    lines, tables = [], []
    for key, value in document.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{json.dumps(str(key))} = {toml_value(value)}")
    for key, table in tables:
        lines.append(f"[{json.dumps(str(key))}]")
        for k, v in table.items():
            if v is not None:
                lines.append(f"{json.dumps(str(k))} = {toml_value(v)}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def mutate_csv(rng: random.Random, text: str) -> bytes:
    """Line and cell mutations of a CSV trace."""
    lines = text.splitlines()
    action = rng.randrange(9)
    if action == 0:
        lines[0] = lines[0].replace(rng.choice(["time", "type", "node", "id"]), "zz")
    elif action == 1:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(",")
        cells[rng.randrange(len(cells))] = rng.choice(["nan", "inf", "", '"', "1e400", "-1"])
        lines[i] = ",".join(cells)
    elif action == 2:
        lines.insert(rng.randrange(1, len(lines)), lines[rng.randrange(1, len(lines))])
    elif action == 3:
        lines = [lines[0]] + [",".join([c.split(",")[0], "A", "0", "1"]) for c in lines[1:]]
    elif action == 4:
        i = rng.randrange(1, len(lines))
        lines[i] = lines[i] + ',"unbalanced'
    elif action == 5:
        return b"\xef\xbb\xbf" + "\n".join(lines).encode()
    elif action == 6:
        return "\n".join(lines).encode() + b"\n\xff\xfe,1,2\n"
    elif action == 7:
        lines[0] = lines[0] + ",time"
    else:
        random_rows = [
            f"{rng.choice(['0', '-5', '1e9', 'x'])},{rng.choice(['A', 'B', '', 'ZZ'])},"
            f"{rng.choice(['0', '99', 'n'])},{rng.randrange(3)}"
            for _ in range(rng.randrange(1, 30))
        ]
        lines = [lines[0], *random_rows]
    return ("\n".join(lines) + "\n").encode()


# --------------------------------------------------------------------------- the corpus
def build_corpus(folder: Path) -> dict[str, bytes]:
    """Valid inputs of every kind, made with the library itself."""
    import networkx as nx
    import pyarrow as pa
    import pyarrow.parquet as pq

    from inev.common.cli import main

    def run(*args: str) -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                main(list(args))
            except SystemExit as exc:
                if exc.code:
                    raise RuntimeError(f"corpus command failed: {args}") from None

    folder.mkdir(parents=True, exist_ok=True)
    f = str(folder)
    run(
        "network",
        "generate",
        "--nodes",
        "8",
        "--event-types",
        "4",
        "--skew",
        "1.9",
        "--seed",
        "3",
        "-o",
        f"{f}/net.json",
    )
    run(
        "network",
        "generate",
        "--nodes",
        "8",
        "--event-types",
        "4",
        "--skew",
        "1.9",
        "--seed",
        "4",
        "-o",
        f"{f}/other-net.json",
    )
    run(
        "workload",
        "generate",
        "--network",
        f"{f}/net.json",
        "--queries",
        "2",
        "--length",
        "3",
        "--selectivity",
        "0.5",
        "--seed",
        "3",
        "-o",
        f"{f}/wl.json",
    )
    run(
        "workload",
        "generate",
        "--network",
        f"{f}/net.json",
        "--queries",
        "1",
        "--length",
        "4",
        "--kleene",
        "1",
        "--negation",
        "0",
        "--seed",
        "5",
        "-o",
        f"{f}/other-wl.json",
    )
    run("plan", f"{f}/net.json", f"{f}/wl.json", "-o", f"{f}/plan.json")
    run("plan", f"{f}/other-net.json", f"{f}/wl.json", "-o", f"{f}/plan-other-net.json")
    run("plan", f"{f}/net.json", f"{f}/other-wl.json", "-o", f"{f}/plan-other-wl.json")
    network = json.loads(Path(f"{f}/net.json").read_text())
    types = list(network["event_types"])
    graph = nx.Graph()
    graph.add_edges_from(tuple(link[:2]) for link in network["links"])
    removable = next(
        (list(e) for e in graph.edges if nx.is_connected(nx.restricted_view(graph, [], [e]))),
        list(next(iter(graph.edges))),
    )
    changes = {
        "format": "inev-changes/1",
        "changes": [
            {"time": 1.0, "kind": "set-rate", "type": types[0], "rate": 2.0},
            {"time": 2.0, "kind": "swap-rates", "types": types[:2]},
            {"time": 3.0, "kind": "link-down", "link": removable},
        ],
    }
    Path(f"{f}/changes.json").write_text(json.dumps(changes))
    rng = random.Random(7)
    wl_types = sorted(
        {
            t
            for q in json.loads(Path(f"{f}/wl.json").read_text())["queries"]
            for t in __import__("re").findall(r"[A-Z][A-Za-z0-9_]*", q["pattern"])
            if t not in ("SEQ", "AND", "OR", "KL", "NSEQ")
        }
    )
    rows = []
    for i in range(60):
        t = rng.choice(wl_types)
        node = rng.choice(network["event_types"][t]["sources"]) if t in types else 0
        rows.append((round(i * 0.25, 3), t, node, i, rng.randrange(10)))
    Path(f"{f}/trace.csv").write_text(
        "time,type,node,id,v\n" + "".join(f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e in rows)
    )
    pq.write_table(
        pa.table(
            {k: [r[i] for r in rows] for i, k in enumerate(("time", "type", "node", "id", "v"))}
        ),
        f"{f}/trace.parquet",
    )
    Path(f"{f}/topology.txt").write_text("0 1\n1 2\n2 3 2.5\n3 0\n")
    # traces (issue 14): a keyed workload over the trace's attribute v, its estimated twin
    # and a plan for it, a generated trace with a key pool, the network's own topology
    x, y = wl_types[:2]
    keyed = {
        "format": "inev-workload/1",
        "window": 2.0,
        "queries": [{"name": "k", "pattern": f"SEQ({x}, {y})", "where": f"{x}.v == {y}.v"}],
    }
    Path(f"{f}/keyed-wl.json").write_text(json.dumps(keyed))
    run("workload", "estimate", f"{f}/keyed-wl.json", f"{f}/trace.csv", "-o", f"{f}/est-wl.json")
    run("plan", f"{f}/net.json", f"{f}/est-wl.json", "-o", f"{f}/plan-est.json")
    run(
        "trace",
        "generate",
        "--network",
        f"{f}/net.json",
        "--duration",
        "4",
        "--keys",
        "5",
        "--key-name",
        "v",
        "-o",
        f"{f}/generated.parquet",
    )
    Path(f"{f}/net-topology.txt").write_text(
        "".join(f"{u} {v}\n" for u, v in (link[:2] for link in network["links"]))
    )
    sweep = (
        'name = "fuzz"\nseeds = 1\nmethods = ["inev", "centralized"]\n'
        "[base]\nnodes = 8\nevent_types = 4\nlength = 3\n"
        '[axes]\nskew = [1.5, 1.9]\n[plot]\nx = "skew"\n'
    )
    Path(f"{f}/sweep.toml").write_text(sweep)
    run("sweep", f"{f}/sweep.toml", "-o", f"{f}/results", "--master", "serial")
    corpus = {}
    for path in Path(f).rglob("*"):
        if path.is_file():
            corpus[str(path.relative_to(f))] = path.read_bytes()
    return corpus


# --------------------------------------------------------------------------- cases
@dataclass
class Case:
    """One run: the command, the files to write and what was mutated."""

    command: str
    argv: list[str]
    files: dict[str, bytes]
    outputs: list[str]
    what: str


@dataclass
class Template:
    """A command, its argv with ``{name}`` placeholders, its inputs and its outputs."""

    command: str
    argv: list[str]
    inputs: dict[str, str]  # placeholder -> corpus file (or folder prefix)
    outputs: list[str]
    options: list[int] = field(default_factory=list)  # argv positions of fuzzable values


TEMPLATES = [
    Template(
        "network generate",
        [
            "network",
            "generate",
            "--nodes",
            "6",
            "--event-types",
            "3",
            "--skew",
            "1.5",
            "--seed",
            "1",
            "-o",
            "out.json",
        ],
        {},
        ["out.json"],
        [3, 5, 7, 9],
    ),
    Template(
        "network generate",
        ["network", "generate", "--from-file", "{topo}", "--event-types", "3", "-o", "out.json"],
        {"topo": "topology.txt"},
        ["out.json"],
        [5],
    ),
    Template("network show", ["network", "show", "{net}"], {"net": "net.json"}, []),
    Template(
        "workload generate",
        [
            "workload",
            "generate",
            "--network",
            "{net}",
            "--queries",
            "2",
            "--length",
            "3",
            "--kleene",
            "1",
            "--seed",
            "1",
            "-o",
            "out.json",
        ],
        {"net": "net.json"},
        ["out.json"],
        [5, 7, 9, 11],
    ),
    Template(
        "workload show",
        ["workload", "show", "{wl}", "--network", "{net}"],
        {"wl": "wl.json", "net": "net.json"},
        [],
    ),
    Template(
        "plan",
        ["plan", "{net}", "{wl}", "-o", "out.json", "--latency-factor", "1"],
        {"net": "net.json", "wl": "wl.json"},
        ["out.json"],
        [6],
    ),
    Template(
        "repair",
        ["repair", "{plan}", "{net}", "{wl}", "--changes", "{changes}", "-o", "out.json"],
        {"plan": "plan.json", "net": "net.json", "wl": "wl.json", "changes": "changes.json"},
        ["out.json"],
    ),
    Template(
        "simulate",
        ["simulate", "{net}", "{wl}", "{plan}", "--duration", "5", "--seed", "1", "-o", "out.json"],
        {"net": "net.json", "wl": "wl.json", "plan": "plan.json"},
        ["out.json"],
        [5, 7],
    ),
    Template(
        "simulate",
        [
            "simulate",
            "{net}",
            "{wl}",
            "{plan}",
            "--duration",
            "5",
            "--changes",
            "{changes}",
            "-o",
            "out.json",
        ],
        {"net": "net.json", "wl": "wl.json", "plan": "plan.json", "changes": "changes.json"},
        ["out.json"],
    ),
    Template(
        "simulate",
        ["simulate", "{net}", "{wl}", "{plan}", "--trace", "{trace}", "-o", "out.json"],
        {"net": "net.json", "wl": "wl.json", "plan": "plan.json", "trace": "trace.csv"},
        ["out.json"],
    ),
    Template(
        "match",
        ["match", "{wl}", "{trace}", "-o", "out.jsonl"],
        {"wl": "wl.json", "trace": "trace.csv"},
        ["out.jsonl"],
    ),
    Template(
        "match",
        ["match", "{wl}", "{trace}", "-o", "out.jsonl", "--capacity", "5", "--latency-bound", "1"],
        {"wl": "wl.json", "trace": "trace.parquet"},
        ["out.jsonl"],
        [6, 8],
    ),
    Template(
        "match",
        ["match", "{wl}", "{trace}", "-o", "out.jsonl"],
        {"wl": "keyed-wl.json", "trace": "generated.parquet"},
        ["out.jsonl"],
    ),
    Template(
        "simulate",
        ["simulate", "{net}", "{wl}", "{plan}", "--trace", "{trace}", "-o", "out.json"],
        {"net": "net.json", "wl": "est-wl.json", "plan": "plan-est.json", "trace": "trace.parquet"},
        ["out.json"],
    ),
    Template(
        "plan",
        ["plan", "{net}", "{wl}", "-o", "out.json"],
        {"net": "net.json", "wl": "est-wl.json"},
        ["out.json"],
    ),
    Template(
        "network from-trace",
        ["network", "from-trace", "{trace}", "-o", "out.json"],
        {"trace": "trace.csv"},
        ["out.json"],
    ),
    Template(
        "network from-trace",
        [
            "network",
            "from-trace",
            "{trace}",
            "--out-degree",
            "2",
            "--seed",
            "1",
            "--link-latency",
            "0.5",
            "--duration",
            "20",
            "-o",
            "out.json",
        ],
        {"trace": "generated.parquet"},
        ["out.json"],
        [4, 6, 8, 10],
    ),
    Template(
        "network from-trace",
        ["network", "from-trace", "{trace}", "--topology", "{topo}", "-o", "out.json"],
        {"trace": "trace.csv", "topo": "net-topology.txt"},
        ["out.json"],
    ),
    Template(
        "workload estimate",
        ["workload", "estimate", "{wl}", "{trace}", "-o", "out.json", "--sample", "50"],
        {"wl": "keyed-wl.json", "trace": "trace.csv"},
        ["out.json"],
        [7],
    ),
    Template(
        "workload estimate",
        ["workload", "estimate", "{wl}", "{trace}", "-o", "out.json", "--seed", "3"],
        {"wl": "est-wl.json", "trace": "generated.parquet"},
        ["out.json"],
        [7],
    ),
    Template(
        "trace generate",
        [
            "trace",
            "generate",
            "--nodes",
            "5",
            "--types",
            "3",
            "--events",
            "200",
            "--duration",
            "10",
            "--keys",
            "4",
            "--key-name",
            "bike",
            "--profile",
            "bursty",
            "--period",
            "2",
            "--seed",
            "1",
            "--skew",
            "1",
            "--spread",
            "1",
            "--node-ratio",
            "0.5",
            "--key-skew",
            "1",
            "-o",
            "out.csv",
        ],
        {},
        ["out.csv"],
        [3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27],
    ),
    Template(
        "trace generate",
        ["trace", "generate", "--network", "{net}", "--duration", "3", "-o", "out.parquet"],
        {"net": "net.json"},
        ["out.parquet"],
        [5],
    ),
    Template(
        "sweep",
        ["sweep", "{spec}", "-o", "out", "--master", "serial", "--yes"],
        {"spec": "sweep.toml"},
        ["out"],
    ),
    Template("plot", ["plot", "{results}", "-o", "out.png"], {"results": "results/"}, ["out.png"]),
    Template("show", ["show", "{plan}"], {"plan": "plan.json"}, []),
    Template("show", ["show", "{results}"], {"results": "results/"}, []),
    Template(
        "draw",
        ["draw", "{plan}", "--network", "{net}", "-o", "out.svg"],
        {"plan": "plan.json", "net": "net.json"},
        ["out.svg"],
    ),
    Template(
        "draw",
        ["draw", "{plan}", "--network", "{net}", "--text"],
        {"plan": "plan.json", "net": "net.json"},
        [],
    ),
    Template(
        "plot",
        ["plot", "{results}", "-o", "out.png", "--y", "ratio"],
        {"results": "results/"},
        ["out.png"],
        [5],
    ),
]
CROSS = {  # plans made for another network or workload
    "plan-other-net.json": "a plan made for another network",
    "plan-other-wl.json": "a plan made for another workload",
}


def make_case(rng: random.Random, template: Template, corpus: dict[str, bytes]) -> Case:
    """A case of ``template``: one input mutated, or an option, or the output path."""
    files: dict[str, bytes] = {}
    mapping: dict[str, str] = {}
    for placeholder, source in template.inputs.items():
        if source.endswith("/"):
            for name, data in corpus.items():
                if name.startswith(source):
                    files[name] = data
            mapping[placeholder] = source.rstrip("/")
        else:
            files[source] = corpus[source]
            mapping[placeholder] = source
    argv = [a.format(**mapping) if "{" in a else a for a in template.argv]
    outputs = list(template.outputs)
    choice = rng.random()
    mutable = list(template.inputs)
    if (choice < 0.1 or not mutable) and template.options:
        position = rng.choice(template.options)
        argv[position] = rng.choice(HOSTILE_OPTION_VALUES)
        what = f"option {argv[position - 1]} = {argv[position]!r}"
    elif choice < 0.16 and mutable and template.outputs:
        victim = mapping[rng.choice(mutable)]
        index = argv.index(template.outputs[0])
        spellings = (
            [victim] if victim == "results" else [victim, f"./{victim}", f"../case/{victim}"]
        )
        argv[index] = rng.choice(spellings)
        outputs = []
        what = f"-o equal to input {victim}"
    elif choice < 0.19 and template.outputs:
        index = argv.index(template.outputs[0])
        files["existing-folder/keep"] = b""
        argv[index] = rng.choice(["existing-folder", "missing/out.json"])
        outputs = []
        what = f"-o {argv[index]}"
    elif choice < 0.24 and "plan" in template.inputs:
        source = rng.choice(list(CROSS))
        files["plan.json"] = corpus[source]
        what = CROSS[source]
    elif choice < 0.27:
        placeholder = rng.choice(mutable)
        argv = [a if a != mapping[placeholder] else "missing-file.json" for a in argv]
        what = f"missing {placeholder}"
    else:
        placeholder = rng.choice(mutable)
        name = mapping[placeholder]
        if name == "results":
            name = rng.choice([n for n in files if n.startswith("results/")])
        data = files[name]
        what = f"{name}: "
        if name.endswith(".json") and rng.random() < 0.8:
            document = json.loads(data)
            files[name] = json_bytes(mutate_document(rng, document))
            what += "document mutation"
        elif name.endswith(".toml") and rng.random() < 0.8:
            import tomllib

            document = tomllib.loads(data.decode())
            mutated = mutate_document(rng, document)
            files[name] = toml_bytes(mutated if isinstance(mutated, dict) else {"x": mutated})
            what += "document mutation"
        elif name.endswith(".csv") and rng.random() < 0.8:
            files[name] = mutate_csv(rng, data.decode())
            what += "csv mutation"
        elif name.endswith(".parquet") and rng.random() < 0.5:
            files[name] = mutate_parquet(rng, data)
            what += "parquet mutation"
        else:
            files[name] = mutate_bytes(rng, data)
            what += "byte mutation"
    return Case(template.command, argv, files, outputs, what)


def mutate_parquet(rng: random.Random, data: bytes) -> bytes:
    """Drop, retype or poison a column of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(data))
    name = rng.choice(table.column_names)
    action = rng.randrange(4)
    if action == 0:
        table = table.drop_columns([name])
    elif action == 1:
        table = table.set_column(
            table.column_names.index(name),
            name,
            pa.array([str(v) + "x" for v in table.column(name).to_pylist()]),
        )
    elif action == 2:
        values = table.column(name).to_pylist()
        table = table.set_column(
            table.column_names.index(name),
            name,
            pa.array([None] * len(values), type=table.schema.field(name).type),
        )
    else:
        values = table.column(name).to_pylist()
        poison = [math.nan if isinstance(v, float) else v for v in values]
        table = table.set_column(table.column_names.index(name), name, pa.array(poison))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


# --------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """How one case ended."""

    code: int | None
    stderr: str
    seconds: float
    left: list[str]
    changed: list[str]


def run_case(case: Case, folder: Path, timeout: float, memory: int) -> Outcome:
    """Write the case's files, run it in a forked child, and look at what it left."""
    fresh_folder(folder, case.files)
    return run_argv(case.argv, folder, timeout, memory)


def fresh_folder(folder: Path, files: dict[str, bytes]) -> None:
    """``folder`` emptied and holding ``files``."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def run_argv(argv: list[str], folder: Path, timeout: float, memory: int) -> Outcome:
    """Run one command in ``folder`` in a forked child, and look at what it left."""
    before = {p: h for p, h in snapshot(folder).items()}
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            os.setpgid(0, 0)
            os.chdir(folder)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            out = os.open("stdout.fuzz", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            err = os.open("stderr.fuzz", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(err, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            from inev.common.cli import main

            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    code: int | None = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.perf_counter() - start > timeout:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    seconds = time.perf_counter() - start
    stderr = (folder / "stderr.fuzz").read_text(errors="replace")
    after = snapshot(folder)
    ignore = {"stdout.fuzz", "stderr.fuzz"}
    new = sorted(p for p in after if p not in before and p not in ignore)
    changed = sorted(p for p in before if after.get(p) != before[p] and p not in ignore)
    left = [p for p in new if is_temporary(p)] if code == 0 else new
    return Outcome(code, stderr, seconds, left, changed)


def is_temporary(path: str) -> bool:
    name = Path(path).name
    return name.endswith(".tmp") or ".tmp." in name or name.startswith(".~")


def snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in folder.rglob("*"):
        if path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha1(path.read_bytes()).hexdigest()
        elif path.is_dir() and not any(path.iterdir()):
            out[str(path.relative_to(folder)) + "/"] = "dir"
    return out


def classify(outcome: Outcome) -> list[str]:
    """The broken promises of one case (empty when it kept every promise)."""
    problems = []
    if outcome.code is None:
        return ["hang"]
    err = outcome.stderr
    if "Traceback" in err or "internal error" in err:
        problems.append("traceback")
    if outcome.code != 0:
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: ") or not lines[0][7:].strip():
            problems.append("multi-line or empty error")
        if outcome.left:
            problems.append("files left")
    elif outcome.left:
        problems.append("files left")
    if outcome.changed:
        problems.append("input changed")
    return problems


COLUMNS = (
    "traceback",
    "multi-line or empty error",
    "hang",
    "files left",
    "input changed",
    "own plan refused",
)


def run_chain(
    steps: list[list[str]], files: dict[str, bytes], folder: Path, timeout: float, memory: int
) -> list[tuple[list[str], Outcome, list[str]]]:
    """Run a chain of :mod:`fuzz_language` in one folder: each step with its outcome and its
    broken promises; a step after an accepted ``plan`` that refuses the plan file breaks the
    promise that inev's plans are usable by inev. A refused ``plan`` ends the chain but for
    ``match``, which reads no plan."""
    from fuzz_language import PLAN

    fresh_folder(folder, files)
    out = []
    planned = False
    for argv in steps:
        if argv[0] != "match" and not planned and argv is not steps[0]:
            continue
        outcome = run_argv(argv, folder, timeout, memory)
        problems = classify(outcome)
        if argv is steps[0]:
            planned = outcome.code == 0
        elif outcome.code not in (0, None) and PLAN in argv and PLAN in outcome.stderr:
            problems.append("own plan refused")
        out.append((argv, outcome, problems))
    return out


def main() -> None:
    """Run the cases and print one row per command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2400, help="Cases in all.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="Seconds before a hang.")
    parser.add_argument("--memory", type=float, default=4.0, help="GiB of address space per case.")
    parser.add_argument("--show", type=int, default=0, help="Print the first N failing cases.")
    parser.add_argument("--only", help="Only commands whose name contains this.")
    parser.add_argument(
        "--chain-every",
        type=int,
        default=4,
        help="Every Nth case is a generated-language chain (fuzz_language.py; 0: none).",
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    import inev.common.cli
    import inev.experiments.measure  # noqa: F401

    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="inev-fuzz-"))
    try:
        corpus = build_corpus(work / "corpus")
        templates = [t for t in TEMPLATES if not args.only or args.only in t.command]
        rows: dict[str, Counter] = defaultdict(Counter)
        failures: list[tuple[Case, Outcome, list[str]]] = []
        started = time.perf_counter()
        memory = int(args.memory * 2**30)
        number = draw = 0
        while number < args.cases:
            draw += 1
            if args.chain_every and draw % args.chain_every == 0:
                steps, files = language_chain(rng, corpus)
                ran = run_chain(steps, files, work / "case", args.timeout, memory)
                runs = [(Case(f"chain {a[0]}", a, files, [], "generated language"), o, p)
                        for a, o, p in ran]  # fmt: skip
            else:
                case = make_case(rng, templates[draw % len(templates)], corpus)
                outcome = run_case(case, work / "case", args.timeout, memory)
                runs = [(case, outcome, classify(outcome))]
            for case, outcome, problems in runs:
                row = rows[case.command]
                row["cases"] += 1
                row["accepted" if outcome.code == 0 else "refused"] += 1
                row["over 60 s"] += outcome.seconds > 60
                for p in problems:
                    row[p] += 1
                if problems:
                    row["failing"] += 1
                    failures.append((case, outcome, problems))
                number += 1
        seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = (
        "command",
        "cases",
        "accepted",
        "refused",
        "tracebacks",
        "bad errors",
        "hangs",
        "files left",
        "inputs changed",
        "own plan refused",
        "over 60 s",
    )
    print(
        f"{args.cases} cases, seed {args.seed}, timeout {args.timeout:g} s, {seconds:.0f} s in all"
    )
    print(" | ".join(f"{h:>17}" if i == 0 else f"{h:>8}" for i, h in enumerate(header)))
    total: Counter = Counter()
    for command in sorted(rows):
        row = rows[command]
        total.update(row)
        print_row(command, row)
    print_row("all", total)
    for case, outcome, problems in failures[: args.show]:
        print(f"\n[{case.command}] {case.what}: {', '.join(problems)} (exit {outcome.code})")
        print("  argv:", " ".join(case.argv))
        tail = outcome.stderr.strip().splitlines()[-3:]
        for line in tail:
            print("  |", line[:300])
        if outcome.left:
            print("  left:", outcome.left)
    sys.exit(1 if total["failing"] else 0)


def print_row(command: str, row: Counter) -> None:
    cells = [row["cases"], row["accepted"], row["refused"], *(row[c] for c in COLUMNS)]
    cells.append(row["over 60 s"])
    print(f"{command:>17} | " + " | ".join(f"{c:>8}" for c in cells))


if __name__ == "__main__":
    main()
