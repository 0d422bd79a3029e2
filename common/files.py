"""Reading versioned JSON documents and writing any output file atomically."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from inev.common.errors import InevError


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    A failure inside the ``with`` block removes the temporary file, so no half-written
    output is ever left behind.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_output(d / "x.txt") as f:
    ...     _ = f.write("hello")
    >>> (d / "x.txt").read_text()
    'hello'
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InevError(f"output folder {str(directory)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_document(path: str | os.PathLike[str], document: dict[str, Any]) -> None:
    """Write ``document`` as indented UTF-8 JSON, atomically, with a trailing newline."""
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)
    with atomic_output(path) as handle:
        handle.write(text + "\n")


def read_json_document(path: str | os.PathLike[str], expected_format: str) -> dict[str, Any]:
    """Read a JSON object whose ``format`` key must equal ``expected_format``.

    Raises :class:`InevError` with a one-line reason for a missing file, invalid JSON,
    a non-object document or a different format.
    """
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        raise InevError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InevError(f"{name}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise InevError(f"{name}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InevError(f"{name}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(document, dict):
        raise InevError(f"{name}: expected a JSON object with a 'format' key")
    found = document.get("format")
    if found != expected_format:
        raise InevError(f"{name}: format is {found!r}, expected {expected_format!r}")
    return document
