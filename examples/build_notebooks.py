"""Run the example notebooks and store them with their outputs.

    python examples/build_notebooks.py [NOTEBOOK ...]

Each ``examples/*.ipynb`` (or the ones named) is executed top to bottom in a fresh kernel of
this Python (nbclient), in a folder of its own, and written back with what every cell shows,
so that a reader on GitHub sees the drawings, tables and plots without running anything.
The notebook's metadata records a digest of its code cells (``inev.sources``):
``tests/test_notebooks.py`` fails when a cell was edited without running this script again.
Paths of the temporary folder the notebooks write into are replaced by ``$TMPDIR``, and no
timing is recorded, so that a second run changes only what really changed (wall times
printed by a cell aside).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent


def sources_digest(notebook) -> str:
    """The digest of a notebook's code cells, in order (what its outputs were made from)."""
    digest = hashlib.sha256()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            digest.update(cell.source.encode("utf-8") + b"\0")
    return digest.hexdigest()


def _scrub(value, folder: str):
    """``value`` (an output's data) with the temporary folder written ``$TMPDIR``."""
    if isinstance(value, str):
        return value.replace(folder, "$TMPDIR")
    if isinstance(value, list):
        return [_scrub(v, folder) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, folder) for k, v in value.items()}
    return value


def build(path: Path, timeout: int = 600) -> None:
    """Execute ``path`` and write it back with its outputs and digest."""
    import nbclient
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    with tempfile.TemporaryDirectory(prefix="inev-notebooks-") as folder:
        before = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = folder  # the kernel inherits it: mkdtemp lands inside
        try:
            client = nbclient.NotebookClient(
                notebook,
                timeout=timeout,
                kernel_name="python3",
                record_timing=False,
                resources={"metadata": {"path": folder}},
            )
            client.execute()
        finally:
            if before is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = before
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs = [
                    nbformat.from_dict(_scrub(_scrub(o, os.path.realpath(folder)), folder))
                    for o in cell.outputs
                ]
    notebook.metadata["inev"] = {"sources": sources_digest(notebook)}
    nbformat.validate(notebook)
    nbformat.write(notebook, path)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(EXAMPLES.glob("*.ipynb"))
    for path in paths:
        build(path)
        print(f"built {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
