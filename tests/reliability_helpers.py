"""Small valid inputs for the error-promise tests, and the promise itself as an assertion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx


def make_inputs(run_cli, folder: Path) -> dict[str, Path]:
    """A network, workload, plan, changes, traces (CSV and Parquet, with a key ``bike``), a
    keyed workload with its estimated twin, and a sweep spec in ``folder`` (all valid)."""
    f = folder
    f.mkdir(parents=True, exist_ok=True)
    commands = [
        ("network", "generate", "--nodes", "8", "--event-types", "4", "--skew", "1.9",
         "--seed", "3", "-o", f / "net.json"),
        ("network", "generate", "--nodes", "8", "--event-types", "4", "--skew", "1.9",
         "--seed", "4", "-o", f / "other-net.json"),
        ("workload", "generate", "--network", f / "net.json", "--queries", "2", "--length", "3",
         "--selectivity", "0.5", "--seed", "3", "-o", f / "wl.json"),
        ("workload", "generate", "--network", f / "net.json", "--queries", "1", "--length", "4",
         "--seed", "5", "-o", f / "other-wl.json"),
        ("plan", f / "net.json", f / "wl.json", "-o", f / "plan.json"),
        ("trace", "generate", "--network", f / "net.json", "--duration", "5", "--keys", "5",
         "--key-name", "bike", "--seed", "1", "-o", f / "trace.csv"),
        ("trace", "generate", "--network", f / "net.json", "--duration", "5", "--keys", "5",
         "--key-name", "bike", "--seed", "2", "-o", f / "trace-pq.parquet"),
    ]  # fmt: skip
    for args in commands:
        code, _, err = run_cli(*args)
        assert code == 0, err
    keyed = {"format": "inev-workload/1", "window": 1.0, "queries": [
        {"name": "k", "pattern": "SEQ(B, C)", "where": "B.bike == C.bike"}]}  # fmt: skip
    write(f / "keyed-wl.json", keyed)
    code, _, err = run_cli(
        "workload", "estimate", f / "keyed-wl.json", f / "trace.csv", "-o", f / "est-wl.json"
    )
    assert code == 0, err
    network = json.loads((f / "net.json").read_text())
    graph = nx.Graph(tuple(link[:2]) for link in network["links"])
    removable = next(e for e in graph.edges if nx.is_connected(nx.restricted_view(graph, [], [e])))
    types = list(network["event_types"])
    write(
        f / "changes.json",
        {
            "format": "inev-changes/1",
            "changes": [
                {"time": 1.0, "kind": "set-rate", "type": types[0], "rate": 2.0},
                {"time": 2.0, "kind": "link-down", "link": list(removable)},
            ],
        },
    )
    (f / "sweep.toml").write_text(
        'name = "t"\nseeds = 1\nmethods = ["inev"]\n'
        "[base]\nnodes = 8\nevent_types = 4\nlength = 3\n[axes]\nskew = [1.5, 1.9]\n"
    )
    return {p.stem.replace("-", "_"): p for p in f.iterdir()}


def write(path: Path, document: Any) -> Path:
    """Write a JSON document (NaN allowed, as a hostile user could)."""
    path.write_text(json.dumps(document))
    return path


def edit(path: Path, change) -> Path:
    """Apply ``change(document)`` to the JSON file at ``path`` in place."""
    document = json.loads(path.read_text())
    result = change(document)
    write(path, document if result is None else result)
    return path


def assert_refused(result: tuple[int, str, str], folder: Path, before: dict[str, bytes]) -> str:
    """The error promise: exit status 1, one non-empty ``error:`` line, no traceback, no new
    file (output or temporary) in ``folder``, every file of ``before`` unchanged."""
    code, _, err = result
    lines = err.splitlines()
    assert code == 1, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0][7:].strip(), err
    assert "Traceback" not in err and "internal error" not in err, err
    assert snapshot(folder) == before
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
