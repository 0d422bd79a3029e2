"""The layers are a checked contract: imports point only down the data flow.

``common`` -> ``topologies`` -> ``workloads`` -> ``planner`` -> ``simulator`` ->
``experiments``: a module may import its own layer and the layers before it, never a later
one. ``workloads`` may use ``topologies`` (a workload's rates live on a network's nodes);
the reverse is refused, so the two never form a cycle. The local CEP engine
(``simulator/engine/``) works alone: it may import ``common``, ``topologies``, ``workloads``
and itself, never the rest of the simulator nor the planner. Every import counts, also one
inside a function (the lazy imports that keep the command line fast) and relative ones.
The root command ``common/cli.py`` registers every layer's commands by module *name*
(strings), which is not an import and so not an arrow; it imports nothing but ``common``.

More rules keep the house easy to change:

- **No cycles.** The modules and their imports (again every one, lazy ones inside functions
  too, and those under ``if TYPE_CHECKING:``) form no cycle: a lazy import hides a cycle from
  Python, an annotation-only one from the interpreter, neither from a reader (issue 47). A
  module's figures name what they read of the model with a protocol
  (:class:`inev.planner.figures.PlanLike`), since the model's ``summary()`` imports them.
  :data:`CYCLES_LEFT` lists cycles left while they are removed (none now).
- **A command module imports library code** (and shared ``click_options``), never another
  command module, not even in its own layer (a group takes its sub-commands from its own
  module; ``inev simulate`` takes the engine's flags from ``engine/click_options.py``).
- **No command imports another layer's command module** (``<layer>/cli.py``,
  ``<layer>/*_cli.py``, the engine's ``cli.py`` counting as the simulator's): what two layers'
  commands share lives in a library module. Within a layer a command module may use another
  (the simulator's ``simulate`` takes the engine's shedding options).
- **No private names across layers**: ``from inev.x.y import _name`` or an import of a
  private module ``inev.x._y`` from another layer than ``x``.
- **No command-line vocabulary in the library** (``tests/test_vocabulary.py``).
- **One maker of plans**: a :class:`~inev.planner.inev_graph.Plan` is constructed only by
  ``planner/assemble.py`` (``build_plan``, for every method) and by the plan file reader
  (``plan_from_dict`` in ``planner/inev_graph.py``); a method that called ``Plan(...)`` itself
  could drift from the others' records and figures (it happened to PPoP and the isolated join).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["common", "topologies", "workloads", "planner", "simulator", "experiments"]
ENGINE = "inev.simulator.engine"
ENGINE_MAY_USE = {"common", "topologies", "workloads"}
CYCLES_LEFT: set[frozenset[str]] = set()
"""Import cycles left while their modules' owner removes them, listed by their modules so that
a new one fails; one no longer found fails too, so the list only shrinks (empty since
``Target``, which ``site_search`` named from ``regional`` while ``regional`` imports
``site_search``, moved to ``site_search``)."""


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


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """The lines inside ``if TYPE_CHECKING:`` blocks (imports there never run)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def import_names(root: Path, path: Path) -> list[tuple[int, str, str | None, bool]]:
    """Every ``inev`` import of the file as ``(line, module, name, runs)``.

    ``name`` is the imported name of a ``from`` import (None for ``import inev.x``); ``runs``
    is false for an import under ``if TYPE_CHECKING:``.
    """
    name = module_name(root, path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    typing_only = _type_checking_lines(tree)
    found: list[tuple[int, str, str | None, bool]] = []
    for node in ast.walk(tree):
        runs = getattr(node, "lineno", 0) not in typing_only
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None, runs) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found += [(node.lineno, target, alias.name, runs) for alias in node.names]
    return [item for item in found if item[1].startswith("inev.")]


def all_modules(root: Path) -> dict[str, Path]:
    """Every module of the tree under ``root`` by its dotted name."""
    return {
        module_name(root, path): path
        for layer in LAYERS
        for path in sorted((root / layer).rglob("*.py"))
    }


def import_graph(root: Path) -> nx.DiGraph:
    """Modules and every import between them, those under ``if TYPE_CHECKING:`` too (``from
    inev.x import y`` reaching the module ``inev.x.y`` when there is one, else ``inev.x``);
    edges carry the file and line, marked ``(annotation)`` for an import that never runs."""
    modules = all_modules(root)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for source, path in modules.items():
        for line, target, name, runs in import_names(root, path):
            sub = f"{target}.{name}" if name else target
            target = sub if sub in modules else target
            if target in modules and target != source:
                mark = "" if runs else " (annotation)"
                graph.add_edge(source, target, where=f"{path.relative_to(root)}:{line}{mark}")
    return graph


def cycle_groups(root: Path) -> set[frozenset[str]]:
    """The modules of each import cycle under ``root`` (its strongly connected groups)."""
    groups = nx.strongly_connected_components(import_graph(root))
    return {frozenset(g) for g in groups if len(g) > 1}


def cycles(root: Path, left: set[frozenset[str]] | None = None) -> list[str]:
    """Every import cycle under ``root`` but those in ``left``: one line per strongly
    connected group of modules, with one cycle through it spelled out file by file."""
    graph = import_graph(root)
    found = []
    for group in nx.strongly_connected_components(graph):
        if len(group) > 1 and frozenset(group) not in (left or set()):
            loop = nx.find_cycle(graph.subgraph(group))
            steps = ", ".join(f"{graph.edges[a, b]['where']} -> {b}" for a, b in loop)
            found.append(f"cycle among {sorted(group)}: {steps}")
    return sorted(found)


def is_cli(module: str) -> bool:
    """Whether ``module`` is a command module: ``cli`` or ``*_cli`` by name."""
    last = module.rsplit(".", 1)[-1]
    return last == "cli" or last.endswith("_cli")


def is_private(name: str) -> bool:
    """``_x`` is private, ``__x__`` (a dunder) is not."""
    return name.startswith("_") and not name.endswith("__")


def crossings(root: Path) -> list[str]:
    """Imports of another layer's command module or private names, as ``file:line a -> b``."""
    modules = all_modules(root)
    found = []
    for source, path in modules.items():
        layer = source.split(".")[1]
        for line, target, name, _ in import_names(root, path):
            if target.split(".")[1] == layer:
                continue
            sub = f"{target}.{name}" if name else target
            module = sub if sub in modules else target
            where = f"{path.relative_to(root)}:{line} {source} -> {sub}"
            if is_cli(module) or is_cli(sub):
                found.append(f"{where}: imports another layer's command module")
            if any(is_private(part) for part in sub.split(".")[1:]):
                found.append(f"{where}: reaches a private name of another layer")
    return found


def is_options(module: str) -> bool:
    """Whether ``module`` holds click options several commands share (``click_options``):
    command-line code by design, without being a command."""
    return module.rsplit(".", 1)[-1] == "click_options"


def command_imports(root: Path) -> list[str]:
    """Imports of a command module by another command module, as ``file:line a -> b``:
    a command imports library code and shared click options only."""
    modules = all_modules(root)
    found = []
    for source, path in modules.items():
        if not is_cli(source):
            continue
        for line, target, name, _ in import_names(root, path):
            sub = f"{target}.{name}" if name else target
            module = sub if sub in modules else target
            if module != source and is_cli(module):
                found.append(f"{path.relative_to(root)}:{line} {source} -> {module}")
    return found


PLAN_MAKERS = {"planner/assemble.py": None, "planner/inev_graph.py": "plan_from_dict"}
"""Files that may construct a ``Plan``: anywhere in the file (None), or in that function only."""


def plan_constructions(root: Path) -> list[str]:
    """Every ``Plan(...)`` call (also ``module.Plan(...)`` and ``Plan`` imported under another
    name) outside :data:`PLAN_MAKERS`, as ``file:line``."""
    found = []
    for path in all_modules(root).values():
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(), filename=str(path))
        names = {"Plan"} | {
            a.asname
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom | ast.Import)
            for a in node.names
            if a.name.rsplit(".", 1)[-1] == "Plan" and a.asname
        }
        allowed = _allowed_lines(tree, where)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in names and node.lineno not in allowed:
                found.append(f"{where}:{node.lineno}: constructs a Plan (use assemble.build_plan)")
    return found


def _allowed_lines(tree: ast.Module, where: str) -> set[int]:
    """The lines of ``tree`` where :data:`PLAN_MAKERS` lets the file construct a plan."""
    if where not in PLAN_MAKERS:
        return set()
    function = PLAN_MAKERS[where]
    return {
        getattr(inner, "lineno", 0)
        for node in ast.walk(tree)
        if function is None or (isinstance(node, ast.FunctionDef) and node.name == function)
        for inner in ast.walk(node)
    }


def test_command_modules_import_no_command_module():
    assert command_imports(ROOT) == []


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        # inev show took the file's kind from the draw command's module
        (
            "experiments/show_cli.py",
            "def f():\n    from inev.experiments.draw_cli import x\n",
            True,
        ),
        ("workloads/cli.py", "from .estimate_cli import estimate_command\n", True),
        ("simulator/cli.py", "from inev.simulator.engine.cli import engine_options\n", True),
        ("simulator/cli.py", "from inev.simulator.engine.click_options import f\n", False),
        ("experiments/show_cli.py", "from inev.common.files import file_format\n", False),
        ("experiments/sweep.py", "from inev.experiments.sweep_cli import x\n", False),
    ],
)
def test_a_planted_command_import_is_caught(tmp_path, source, text, bad):
    assert bool(command_imports(_plant(tmp_path, {source: text}))) == bad


def test_the_package_keeps_the_layers():
    assert violations(ROOT) == []


def test_the_package_has_no_import_cycles_even_for_annotations():
    assert cycles(ROOT, CYCLES_LEFT) == []


def test_the_cycles_left_are_still_there():
    gone = CYCLES_LEFT - cycle_groups(ROOT)
    assert gone == set(), f"no longer a cycle: strike {gone} off CYCLES_LEFT"


def test_no_command_or_private_name_crosses_a_layer():
    assert crossings(ROOT) == []


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
        ("planner/x.py", "def f():\n    import inev.experiments.show_cli\n", True),
        ("topologies/x.py", "from inev.workloads.pattern import Primitive\n", True),
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


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for layer in LAYERS:
        (tmp_path / layer).mkdir()
    for source, text in files.items():
        path = tmp_path / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("files", "bad"),
    [
        # the cost_model -> baselines kind: a lazy import closes the loop
        (
            {
                "planner/a.py": "from inev.planner.b import f\n",
                "planner/b.py": "def f():\n    from inev.planner.a import g\n",
            },
            True,
        ),
        # three modules, relative imports, one of them through a package's name
        (
            {
                "planner/a.py": "from . import b\n",
                "planner/b.py": "from .c import x\n",
                "planner/c.py": "import inev.planner.a\n",
            },
            True,
        ),
        # a package's __init__ and its module importing the facade back
        (
            {
                "planner/__init__.py": "from inev.planner.a import f\n",
                "planner/a.py": "def f():\n    from inev.planner import g\n",
            },
            True,
        ),
        # one way only: no cycle
        (
            {"planner/a.py": "from inev.planner.b import f\n", "planner/b.py": "import json\n"},
            False,
        ),
        # an annotation-only import back closes a cycle too (the figures and their model)
        (
            {
                "planner/a.py": "def f():\n    from inev.planner.b import g\n",
                "planner/b.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from inev.planner.a import Plan\n"
                ),
            },
            True,
        ),
        # ... and a protocol in the module read, instead of the import back, ends it
        (
            {
                "planner/a.py": "def f():\n    from inev.planner.b import g\n",
                "planner/b.py": "from typing import Protocol\nclass PlanLike(Protocol): ...\n",
            },
            False,
        ),
    ],
)
def test_a_planted_cycle_is_caught(tmp_path, files, bad):
    found = cycles(_plant(tmp_path, files))
    assert bool(found) == bad
    if bad:
        assert "planner/" in found[0] and "cycle among" in found[0]


def test_a_listed_cycle_is_left_and_only_it(tmp_path):
    typed = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from inev.planner.{} import T\n"
    )
    root = _plant(
        tmp_path,
        {
            "planner/a.py": "from inev.planner.b import f\n",
            "planner/b.py": typed.format("a"),
            "planner/c.py": "from inev.planner.d import f\n",
            "planner/d.py": typed.format("c"),
        },
    )
    listed = {frozenset({"inev.planner.a", "inev.planner.b"})}
    assert cycle_groups(root) == {*listed, frozenset({"inev.planner.c", "inev.planner.d"})}
    [left] = cycles(root, listed)
    assert left.startswith("cycle among ['inev.planner.c', 'inev.planner.d']")
    assert "planner/d.py:3 (annotation) -> inev.planner.c" in left


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        # experiments/show.py used to take table helpers from three layers' commands
        ("experiments/show.py", "from inev.topologies.cli import network_table\n", True),
        ("experiments/show.py", "def f():\n    from inev.simulator.cli import query_table\n", True),
        ("experiments/x.py", "from inev.simulator.engine.cli import engine_options\n", True),
        ("planner/cli.py", "from inev.workloads.estimate_cli import estimate_command\n", True),
        ("simulator/x.py", "from inev.planner import cli\n", True),
        ("experiments/show.py", "from inev.topologies.tables import network_table\n", False),
        # within one layer a command may use another (simulate takes the engine's options)
        ("simulator/cli.py", "from inev.simulator.engine.cli import engine_options\n", False),
        ("workloads/cli.py", "from .estimate_cli import estimate_command\n", False),
        # private names across layers (simulator/pull.py reached into the planner)
        ("simulator/pull.py", "from inev.planner.baselines import _pull_order\n", True),
        ("simulator/x.py", "def f():\n    from inev.planner.search import _Ranked as R\n", True),
        ("experiments/x.py", "import inev.planner._internal\n", True),
        ("experiments/x.py", "from ..planner.steiner import _tree\n", True),
        ("simulator/x.py", "from inev.simulator.engine.size import _exp2\n", False),
        ("planner/x.py", "from inev.planner.search import _Ranked\n", False),
        ("simulator/x.py", "from inev.planner import __version__\n", False),
        ("simulator/x.py", "from inev.planner.inev_graph import Plan\n", False),
    ],
)
def test_a_planted_crossing_is_caught(tmp_path, source, text, bad):
    assert bool(crossings(_plant(tmp_path, {source: text}))) == bad


def test_only_build_plan_constructs_plans():
    assert plan_constructions(ROOT) == []


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        # PPoP and the isolated join used to build their plans by hand
        (
            "planner/baselines.py",
            "def f(v):\n    return Plan('ppop', v, {}, {}, {}, {}, {})\n",
            True,
        ),
        ("planner/isolated.py", "from inev.planner import inev_graph\ninev_graph.Plan(*a)\n", True),
        ("simulator/x.py", "from inev.planner.inev_graph import Plan as P\nP(*args)\n", True),
        ("planner/inev_graph.py", "def plan_to_dict(p):\n    return Plan(*p)\n", True),
        ("planner/inev_graph.py", "def plan_from_dict(d):\n    return Plan(**d)\n", False),
        ("planner/assemble.py", "def build_plan(g):\n    return Plan(*g)\n", False),
        ("planner/x.py", "def f(plan):\n    return replace(plan, psi=1.0)\n", False),
        ("planner/x.py", "def f():\n    return PushPullPlan(1)\n", False),
    ],
)
def test_a_planted_plan_construction_is_caught(tmp_path, source, text, bad):
    assert bool(plan_constructions(_plant(tmp_path, {source: text}))) == bad
