"""The README's Python API section runs as written and uses only the layers' facades."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
FACADES = {
    "inev.topologies",
    "inev.workloads",
    "inev.planner",
    "inev.simulator",
    "inev.simulator.engine",
    "inev.experiments",
}


def python_blocks() -> list[str]:
    """The ```python blocks of the README's "## Python API" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_python_api_section_has_its_examples():
    blocks = python_blocks()
    assert len(blocks) >= 3
    modules = {m for b in blocks for m in re.findall(r"^from (inev[\w.]*) import", b, re.M)}
    assert modules == FACADES  # every facade shown, nothing behind one


def test_the_python_blocks_run(tmp_path, capsys):
    for i, block in enumerate(python_blocks()):
        script = tmp_path / f"block{i}.py"
        script.write_text(block)
        runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "True" in out  # the simulation's matches equal centralized evaluation's
    assert "centralized" in out and "skew" in out  # the sweep's table
