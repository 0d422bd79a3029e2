"""The example notebooks: committed with their outputs, made from their current cells, on the
public facades only, and they still run (issues 30 and 48).

``python examples/build_notebooks.py`` runs each ``examples/*.ipynb`` and stores its outputs
with a digest of its code cells; a cell edited without running it again fails here. Each
notebook is then executed with nbclient in a kernel of this Python, in a folder of its own;
every code cell must run without error, and what a plan, a simulation, a sweep and a repair
show in Jupyter (their ``_repr_html_``) is checked on the executed cells' outputs.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
FACADES = {
    "inev.topologies",
    "inev.workloads",
    "inev.planner",
    "inev.simulator",
    "inev.simulator.engine",
    "inev.experiments",
}
sys.path.insert(0, str(EXAMPLES))
from build_notebooks import sources_digest  # noqa: E402


def test_there_are_the_two_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["sweep_and_change.ipynb", "walkthrough.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_stored_with_the_outputs_of_their_cells(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata["inev"]["sources"] == sources_digest(notebook), (
        "a cell changed since its outputs were made: python examples/build_notebooks.py"
    )
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    shown = [c for c in code if c.outputs]
    assert len(shown) >= len(code) - 1  # the imports show nothing
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not any("inev-notebooks-" in str(c.outputs) for c in code)  # no temporary paths


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_import_only_the_facades(path):
    notebook = nbformat.read(path, as_version=4)
    imported = set()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.ImportFrom) and node.module:
                    imported.add(node.module)
                elif isinstance(node, ast.Import):
                    imported |= {a.name for a in node.names}
    inev = {m for m in imported if m == "inev" or m.startswith("inev.")}
    assert inev and inev <= FACADES, inev - FACADES


def test_the_facade_check_catches_an_internal_import():
    source = "from inev.planner.planning import plan_workload\nimport inev.simulator.run"
    found = {
        n.module if isinstance(n, ast.ImportFrom) else n.names[0].name
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Import | ast.ImportFrom)
    }
    assert found - FACADES == {"inev.planner.planning", "inev.simulator.run"}


def _html_by_last_line(notebook) -> dict[str, str]:
    return {
        cell.source.splitlines()[-1]: "".join(
            o.get("data", {}).get("text/html", "") for o in cell.outputs
        )
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_run_without_error(path, tmp_path, monkeypatch):
    # the kernel inherits TMPDIR: the notebooks' mkdtemp folders stay inside tmp_path
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the cell on any error
    html = _html_by_last_line(notebook)
    if path.name == "walkthrough.ipynb":
        assert html["plan"].count("<svg") == 1 and "transmission cost ψ" in html["plan"]
        assert "events / time unit" in html["plan"]  # figures with their units
        assert "arrow-" in html["plan"]  # the drawing shows the flow
        assert "box-P1" in html["drawing(plan, logical=True)"]  # the projection graph
        assert "per query" in html["result"] and "equal to centralized" in html["result"]
        assert "<svg" in html["outcome"] and "INEv" in html["outcome"]
        assert html["figure"].count("<svg") == 1
        assert (tmp_path.glob("inev-notebook-*/plan.html")).__next__().stat().st_size > 0
    else:
        assert "repair (§6.6)" in html["repair"]
        assert "gains traffic" in html["drawing(plan, net, vs=repair.result)"]
        assert "changes at run time" in html["result"]
