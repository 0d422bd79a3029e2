"""The lazy facades (``common/facade.py``) name what they export twice: in the run-time map
``_EXPORTS`` ({name: module}) and under ``if TYPE_CHECKING:`` for type checkers and editors.
The layers test reads imports, so it cannot see the strings of the map: these tests hold the
two lists together, keep the map's modules within the layer rules, and load every name."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest
from test_layers import violation

ROOT = Path(__file__).resolve().parent.parent
FACADES = {
    "inev.topologies": "topologies/__init__.py",
    "inev.workloads": "workloads/__init__.py",
    "inev.simulator": "simulator/__init__.py",
    "inev.simulator.engine": "simulator/engine/__init__.py",
    "inev.experiments": "experiments/__init__.py",
}


def type_checking_imports(source: str) -> dict[str, str]:
    """``{name: module}`` imported under ``if TYPE_CHECKING:`` in ``source``."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    out.update({a.asname or a.name: stmt.module for a in stmt.names})
    return out


def disagreements(exports: dict[str, str], typed: dict[str, str], facade: str) -> list[str]:
    """How the run-time map and the typed imports of ``facade`` differ, and layer breaks."""
    out = [f"{n}: only in _EXPORTS" for n in sorted(set(exports) - set(typed))]
    out += [f"{n}: only under TYPE_CHECKING" for n in sorted(set(typed) - set(exports))]
    out += [
        f"{n}: {exports[n]} in _EXPORTS, {typed[n]} under TYPE_CHECKING"
        for n in sorted(set(exports) & set(typed))
        if exports[n] != typed[n]
    ]
    for name, module in sorted(exports.items()):
        if module == f"{facade}.{name}":  # importing the submodule rebinds the package's name
            out.append(f"{name}: shadowed by the submodule {module} once that is imported")
        why = violation(facade, module)
        if why:
            out.append(f"{name} from {module}: {why}")
    return out


@pytest.mark.parametrize("facade", sorted(FACADES))
def test_a_facades_two_lists_agree_keep_the_layers_and_load(facade):
    module = importlib.import_module(facade)
    exports = dict(module._EXPORTS)
    source = (ROOT / FACADES[facade]).read_text(encoding="utf-8")
    assert disagreements(exports, type_checking_imports(source), facade) == []
    assert sorted(module.__all__) == sorted(exports)
    # a submodule of the same name would replace the export once anything imports it
    assert [n for n in exports if importlib.util.find_spec(f"{facade}.{n}")] == []
    for name in exports:
        assert getattr(module, name) is getattr(importlib.import_module(exports[name]), name)


def test_every_lazy_facade_is_checked():
    lazy = {
        str(p.relative_to(ROOT))
        for p in ROOT.glob("*/**/__init__.py")
        if ".venv" not in p.parts and "lazy_exports(" in p.read_text(encoding="utf-8")
    }
    assert lazy == set(FACADES.values())


def test_planted_disagreements_are_caught():
    typed = type_checking_imports(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from inev.simulator.run import simulate\n"
        "    from inev.simulator.options import SimulationOptions as Options\n"
    )
    assert typed == {"simulate": "inev.simulator.run", "Options": "inev.simulator.options"}
    good = {"simulate": "inev.simulator.run", "Options": "inev.simulator.options"}
    assert disagreements(good, typed, "inev.simulator") == []
    assert disagreements({"simulate": "inev.simulator.run"}, typed, "inev.simulator") == [
        "Options: only under TYPE_CHECKING"
    ]
    moved = {**good, "simulate": "inev.simulator.trace_replay"}
    assert disagreements(moved, typed, "inev.simulator") == [
        "simulate: inev.simulator.trace_replay in _EXPORTS, inev.simulator.run under TYPE_CHECKING"
    ]
    shadowed = {"measure": "inev.experiments.measure"}
    assert disagreements(shadowed, {"measure": "inev.experiments.measure"}, "inev.experiments") == [
        "measure: shadowed by the submodule inev.experiments.measure once that is imported"
    ]
    upward = {"run_sweep": "inev.experiments.sweep"}
    assert any("later layer" in d for d in disagreements(upward, {}, "inev.simulator"))
    engine = {"simulate": "inev.simulator.run"}
    assert any(
        "engine must work alone" in d for d in disagreements(engine, {}, "inev.simulator.engine")
    )
