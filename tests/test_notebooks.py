"""The example notebooks run from top to bottom, and are stored without outputs (issue 30).

Each ``examples/*.ipynb`` is executed with nbclient in a kernel of this Python, in a folder of
its own; every code cell must run without error. What a plan, a simulation and a sweep show
in Jupyter (their ``_repr_html_``) is checked on the executed cells' outputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_is_a_notebook():
    assert [p.name for p in NOTEBOOKS] == ["walkthrough.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_run_without_error(path, tmp_path, monkeypatch):
    # the kernel inherits TMPDIR: the walkthrough's mkdtemp folder stays inside tmp_path
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the cell on any error
    html = {
        cell.source.splitlines()[-1]: "".join(
            o.get("data", {}).get("text/html", "") for o in cell.outputs
        )
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source
    }
    assert html["plan"].count("<svg") == 1 and "transmission cost ψ" in html["plan"]
    assert "arrow-" in html["plan"]  # the drawing shows the flow
    assert "per query" in html["result"] and "equal to centralized" in html["result"]
    assert "<svg" in html["outcome"] and "INEv" in html["outcome"]
    assert html["figure"].count("<svg") == 1
