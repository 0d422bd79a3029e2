"""The cases of ``benchmarks/fuzz_commands.py``: a corpus of valid inputs of every kind
made with the library itself (:func:`build_corpus`), one :class:`Template` per command
(:data:`TEMPLATES`: its argv, inputs, outputs and fuzzable options), and :func:`make_case`,
which mutates one input, an option or the output path of a template."""

from __future__ import annotations

import contextlib
import io
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_mutations import (
    HOSTILE_OPTION_VALUES,
    json_bytes,
    mutate_bytes,
    mutate_csv,
    mutate_document,
    mutate_parquet,
    toml_bytes,
)


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
