"""Checking a command's input and output paths before any work.

Every command calls :func:`check_paths` first, so that the problems a path can have are
reported the same way everywhere, in one line, before anything is read or written:

- a missing input: ``<path>: no such file`` (``no such file or folder`` where a folder is also
  accepted);
- an input that is a folder where a file is needed: ``<path>: is a folder, not a file``;
- an output that is an existing folder where a file is written:
  ``<path>: is a folder; the output must be a file name``;
- an output folder that does not exist: ``output folder '<folder>' does not exist``;
- an output equal to one of the inputs (the same file under any spelling, a symbolic or hard
  link included): ``-o <path> is also the <what> input; write the output to another file``.
  Without this check ``inev plan n.json w.json -o n.json`` would replace the network by a plan.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); (d / "n.json").write_text("{}")
2
>>> check_paths({"network": d / "n.json"}, output=d / "plan.json")
>>> try:
...     check_paths({"network": d / "n.json"}, output=d / "." / "n.json")
... except Exception as exc:
...     print(str(exc).split(" is ")[1])
also the network input; write the output to another file
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from inev.common.errors import InevError

PathLike = str | os.PathLike[str]


def missing(path: PathLike, folder_too: bool = False) -> InevError:
    """The one error for a missing input (``folder_too``: a folder would also do)."""
    what = "no such file or folder" if folder_too else "no such file"
    return InevError(f"{os.fspath(path)}: {what}")


def require_file(path: PathLike, folder_too: bool = False) -> Path:
    """``path`` as a :class:`Path` if it names an existing file (or folder, with
    ``folder_too``); else :class:`InevError` in the wording of the module docstring."""
    p = Path(path)
    if not p.exists():
        raise missing(path, folder_too)
    if p.is_dir() and not folder_too:
        raise InevError(f"{os.fspath(path)}: is a folder, not a file")
    return p


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name the same file (existing: same inode; else the same real path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_paths(
    inputs: Mapping[str, PathLike | None],
    output: PathLike | None = None,
    *,
    folders: tuple[str, ...] = (),
    output_folder: bool = False,
) -> None:
    """Check a command's inputs and output as the module docstring says.

    ``inputs`` maps what an input is (``"network"``) to its path (``None``: not given);
    inputs named in ``folders`` may also be folders. ``output_folder``: the output is a
    folder (a sweep's results), which must not be an existing file.
    """
    given = {what: path for what, path in inputs.items() if path is not None}
    for what, path in given.items():
        require_file(path, folder_too=what in folders)
    if output is None:
        return
    out = Path(output)
    name = os.fspath(output)
    if not name:
        raise InevError("-o needs a file name")
    for what, path in given.items():
        if same_file(path, out) or _inside(out, path, what in folders):
            raise InevError(
                f"-o {name} is also the {what} input; write the output to another "
                f"{'folder' if output_folder else 'file'}"
            )
    if output_folder:
        if out.exists() and not out.is_dir():
            raise InevError(f"{name}: exists and is not a folder")
        return
    if out.is_dir():
        raise InevError(f"{name}: is a folder; the output must be a file name")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise InevError(f"output folder {str(parent)!r} does not exist")


def _inside(output: Path, source: PathLike, is_folder: bool) -> bool:
    """Whether ``output`` would overwrite a file of the input folder's own (results)."""
    if not is_folder or not Path(source).is_dir():
        return False
    return same_file(output, Path(source) / "results.parquet")
