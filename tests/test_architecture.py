"""Seams the house keeps (issue 47), checked on the source by AST.

- **One builder of simulation results**: a :class:`~inev.simulator.simulation_result.SimulationResult`
  is constructed only by :func:`inev.simulator.measurer.measure` (every simulation, whatever its
  event source) and by the file reader ``result_from_dict``; a second builder would measure a
  run its own way (the streamed replay once had its own reference, counts and model).
- **No import cycle in the engine, annotations included**: the modules of ``simulator/engine/``
  and their imports, also those under ``if TYPE_CHECKING:`` and inside functions, form no
  cycle (the re-optimisation, outputs and branches once imported the engine for its type while
  the engine imported them: a cycle of five modules).
- **OR split in two places**: :func:`~inev.workloads.pattern.split_or` is called only by
  :attr:`Query.branches <inev.workloads.workload.Query.branches>` (cached on the query; the
  OR-free workload, the prepared instance and the trace checks read it) and by the engine's
  constructor (the engine works alone on a pattern tree), besides its own recursion; the
  planner, repair, simulator and measurement once split again at 17 call sites.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["common", "topologies", "workloads", "planner", "simulator", "experiments"]

RESULT_MAKERS = {
    "simulator/measurer.py": "measure",
    "simulator/simulation_result.py": "result_from_dict",
}
"""The files that may construct a ``SimulationResult``, each in one function only."""


def _sources(root: Path) -> list[Path]:
    return [path for layer in LAYERS for path in sorted((root / layer).rglob("*.py"))]


def constructions(root: Path, cls: str) -> list[str]:
    """Every call of ``cls(...)`` (also ``module.cls(...)`` and ``cls`` imported under another
    name) in the package under ``root``, as ``file:line:function`` (the enclosing function's
    name, ``-`` at module level)."""
    found = []
    for path in _sources(root):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(), filename=str(path))
        names = {cls} | {
            a.asname
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom | ast.Import)
            for a in node.names
            if a.name.rsplit(".", 1)[-1] == cls and a.asname
        }
        owner: dict[int, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    line = getattr(inner, "lineno", None)
                    # the innermost function wins: ast.walk visits outer functions first
                    if line is not None:
                        owner[line] = node.name
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in names:
                found.append(f"{where}:{node.lineno}:{owner.get(node.lineno, '-')}")
    return found


def stray_results(root: Path) -> list[str]:
    """The ``SimulationResult(...)`` constructions outside :data:`RESULT_MAKERS`, and a maker
    that constructs more than once."""
    sites = constructions(root, "SimulationResult")
    stray = [s for s in sites if RESULT_MAKERS.get(s.split(":")[0]) != s.split(":")[2]]
    for where, function in RESULT_MAKERS.items():
        mine = [s for s in sites if s.startswith(f"{where}:") and s.endswith(f":{function}")]
        if len(mine) > 1:
            stray += mine
    return stray


def test_one_function_builds_every_simulation_result():
    assert stray_results(ROOT) == []
    sites = constructions(ROOT, "SimulationResult")
    assert sorted(s.split(":")[2] for s in sites) == ["measure", "result_from_dict"]


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for layer in LAYERS:
        (tmp_path / layer).mkdir()
    for source, text in files.items():
        path = tmp_path / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


MEASURE = "def measure(run):\n    return SimulationResult(**run)\n"


@pytest.mark.parametrize(
    ("files", "bad"),
    [
        # the streamed replay used to build its own result
        (
            {
                "simulator/measurer.py": MEASURE,
                "simulator/trace_replay.py": "def replay_stream(s):\n    return SimulationResult(1)\n",
            },
            True,
        ),
        # under another name, or through the module
        (
            {
                "simulator/measurer.py": MEASURE,
                "simulator/x.py": "from inev.simulator.simulation_result import SimulationResult as R\nR(1)\n",
            },
            True,
        ),
        ({"simulator/measurer.py": MEASURE, "experiments/x.py": "m.SimulationResult(**d)\n"}, True),
        # twice in the measurer
        (
            {"simulator/measurer.py": MEASURE + "    SimulationResult(**run)\n"},
            True,
        ),
        # the measurer's helper is not the measurer
        ({"simulator/measurer.py": "def _fields(r):\n    return SimulationResult(**r)\n"}, True),
        ({"simulator/measurer.py": MEASURE}, False),
        (
            {
                "simulator/simulation_result.py": (
                    "def result_from_dict(d):\n    return SimulationResult(**d)\n"
                )
            },
            False,
        ),
        # a replace() or a docstring's example is not a construction
        (
            {"simulator/x.py": 'def f(r):\n    """SimulationResult(1)"""\n    return replace(r)\n'},
            False,
        ),
    ],
)
def test_a_planted_result_construction_is_caught(tmp_path, files, bad):
    assert bool(stray_results(_plant(tmp_path, files))) == bad


ENGINE = "simulator/engine"


def engine_graph(root: Path) -> nx.DiGraph:
    """The modules of ``simulator/engine/`` and every import between them: top level, inside
    functions, relative, and under ``if TYPE_CHECKING:``."""
    folder = root / ENGINE
    names = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(["inev", *parts])] = path
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                # from a package import a module: the module; else the package itself
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in names else module
                    for a in node.names
                ]
            for target in targets:
                if target in names and target != name:
                    graph.add_edge(name, target)
    return graph


def engine_cycles(root: Path) -> list[list[str]]:
    """The import cycles among the engine's modules (each as its modules, sorted)."""
    return sorted(sorted(c) for c in nx.simple_cycles(engine_graph(root)))


def test_the_engine_has_no_import_cycle_even_for_annotations():
    assert engine_cycles(ROOT) == []


@pytest.mark.parametrize(
    ("files", "bad"),
    [
        # the engine's collaborators named Engine for their annotations
        (
            {
                f"{ENGINE}/engine.py": "from inev.simulator.engine.outputs import Outputs\n",
                f"{ENGINE}/outputs.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from inev.simulator.engine.engine import Engine\n"
                ),
            },
            True,
        ),
        (
            {
                f"{ENGINE}/a.py": "from . import b\n",
                f"{ENGINE}/b.py": "def f():\n    from .c import x\n",
                f"{ENGINE}/c.py": "import inev.simulator.engine.a\n",
            },
            True,
        ),
        (
            {
                f"{ENGINE}/engine.py": "from inev.simulator.engine.outputs import Outputs\n",
                f"{ENGINE}/outputs.py": "from inev.simulator.engine.events import Event\n",
            },
            False,
        ),
    ],
)
def test_a_planted_engine_cycle_is_caught(tmp_path, files, bad):
    assert bool(engine_cycles(_plant(tmp_path, files))) == bad


OR_SPLITTERS = {
    "workloads/workload.py:branches",
    "simulator/engine/engine.py:__init__",
    "workloads/pattern.py:split_or",  # its own recursion
}
"""``file:function`` of the places that may call ``split_or``."""


def or_splits(root: Path) -> list[str]:
    """The calls of ``split_or`` (also ``x.split_or(...)``) outside :data:`OR_SPLITTERS`."""
    return [
        site
        for site in constructions(root, "split_or")
        if ":".join(site.split(":")[::2]) not in OR_SPLITTERS
    ]


def test_or_is_split_in_two_places():
    assert or_splits(ROOT) == []
    callers = {":".join(s.split(":")[::2]) for s in constructions(ROOT, "split_or")}
    assert callers == OR_SPLITTERS


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        # repair and the simulator split the workload again before the prepared instance
        ("planner/repair.py", "def repair(wl):\n    return wl.split_or()\n", True),
        ("simulator/run.py", "def f(q):\n    return split_or(q.pattern)\n", True),
        ("simulator/engine/replay.py", "def f(q):\n    return pattern.split_or(q)\n", True),
        ("workloads/workload.py", "def branches(self):\n    return split_or(self.p)\n", False),
        ("planner/repair.py", "def repair(wl):\n    return wl.or_free\n", False),
    ],
)
def test_a_planted_or_split_is_caught(tmp_path, source, text, bad):
    assert bool(or_splits(_plant(tmp_path, {source: text}))) == bad
