"""The layers are a checked contract: imports point only down the data flow.

``common`` -> ``topologies`` -> ``workloads`` -> ``planner`` -> ``simulator`` ->
``experiments``: a module may import its own layer and the layers before it, never a later
one. ``workloads`` may use ``topologies`` (a workload's rates live on a network's nodes);
the reverse is refused, so the two never form a cycle. The local CEP engine
(``simulator/engine/``) works alone: it may import ``common``, ``topologies``, ``workloads``
and itself, never the rest of the simulator nor the planner. Every import counts, also one
inside a function (the lazy imports that keep the command line fast) and relative ones.
``experiments/cli.py`` registers every layer's commands by module *name* (strings), which is
not an import and so not an arrow; it sits on the top layer anyway.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["common", "topologies", "workloads", "planner", "simulator", "experiments"]
ENGINE = "inev.simulator.engine"
ENGINE_MAY_USE = {"common", "topologies", "workloads"}


def module_name(root: Path, path: Path) -> str:
    """``inev.<dotted path>`` of a source file under ``root`` (a package is its ``__init__``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["inev", *parts])


def imports(root: Path, path: Path) -> list[tuple[int, str]]:
    """Every ``inev`` module the file imports, with its line: top-level, nested, relative."""
    name = module_name(root, path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return [(line, target) for line, target in found if target.startswith("inev.")]


def violation(source: str, target: str) -> str | None:
    """Why the arrow ``source -> target`` breaks the contract, or None when it keeps it."""
    src_layer, dst_layer = source.split(".")[1], target.split(".")[1]
    if dst_layer not in LAYERS:
        return f"unknown layer {dst_layer!r}"
    if LAYERS.index(dst_layer) > LAYERS.index(src_layer):
        return f"{src_layer} must not import the later layer {dst_layer}"
    in_engine = source == ENGINE or source.startswith(ENGINE + ".")
    target_in_engine = target == ENGINE or target.startswith(ENGINE + ".")
    if in_engine and not target_in_engine and dst_layer not in ENGINE_MAY_USE:
        return "the engine must work alone (no simulator or planner imports)"
    return None


def violations(root: Path) -> list[str]:
    """Every arrow against the contract in the tree under ``root``, as ``file:line a -> b``."""
    found = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            source = module_name(root, path)
            for line, target in imports(root, path):
                reason = violation(source, target)
                if reason:
                    rel = path.relative_to(root)
                    found.append(f"{rel}:{line} {source} -> {target}: {reason}")
    return found


def test_the_package_keeps_the_layers():
    assert violations(ROOT) == []


def test_the_walk_sees_every_module():
    # The walk reaches every layer's files, nested packages included.
    names = {module_name(ROOT, p) for layer in LAYERS for p in (ROOT / layer).rglob("*.py")}
    assert "inev.simulator.engine.greta" in names
    assert "inev.simulator.engine.shedding.shedders" in names
    assert {n.split(".")[1] for n in names} == set(LAYERS)


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        ("planner/x.py", "from inev.simulator.run import simulate\n", True),
        ("planner/x.py", "def f():\n    import inev.experiments.cli\n", True),
        ("topologies/x.py", "from inev.workloads.query import Primitive\n", True),
        ("workloads/x.py", "from inev.topologies.network import Network\n", False),
        ("simulator/engine/x.py", "from inev.simulator.capacity import f\n", True),
        ("simulator/engine/x.py", "from ..run import simulate\n", True),
        ("simulator/engine/x.py", "from inev.planner.inev_graph import Plan\n", True),
        ("simulator/engine/x.py", "from .events import Event\n", False),
        ("simulator/engine/greta/x.py", "from ..events import Event\n", False),
        ("simulator/engine/greta/x.py", "from ...network import f\n", True),
        ("simulator/x.py", "from inev.planner.inev_graph import Plan\n", False),
        ("experiments/x.py", "from inev.simulator.run import simulate\n", False),
        ("common/x.py", "import json\n", False),
    ],
)
def test_a_planted_arrow_is_caught(tmp_path, source, text, bad):
    for layer in LAYERS:
        (tmp_path / layer).mkdir()
    path = tmp_path / source
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert bool(violations(tmp_path)) == bad
