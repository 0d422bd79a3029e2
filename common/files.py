"""Reading versioned JSON documents and writing any output file atomically.

Temporary files. Every output is first written to a temporary file beside its target, named
``.<target name>.<pid>-<random>.tmp``, and renamed over the target only when complete. The
process id in the name makes the name unique per process (two runs writing the same target
never share a temporary file) and lets a later run recognise temporaries whose writer is gone:
:func:`atomic_output` removes those before it writes (a run killed with SIGKILL cannot clean up
after itself; the next run into the same target does). A failure or an interrupt inside the
``with`` block removes the temporary file at once; :func:`remove_live_temporaries` removes the
ones still open (the command line calls it when SIGTERM arrives).

Reading JSON. :func:`read_json_document` refuses, each with one line naming the file: a missing
file or a folder, text that is not UTF-8 (a UTF-8 byte-order mark is skipped), invalid JSON (including ``NaN`` and ``Infinity``,
which Python would accept but JSON does not), integers longer than Python converts (4,300
digits), documents nested deeper than :data:`MAX_JSON_DEPTH`, files larger than
:data:`MAX_JSON_BYTES`, and a ``format`` other than the expected one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from inev.common.errors import InevError

MAX_JSON_DEPTH = 200
"""The deepest nesting of lists and objects a JSON input may have (inev's own files need 6)."""
MAX_JSON_BYTES = 4 * 2**30
"""The largest JSON input read (4 GiB; Python needs about ten times the file size to hold it)."""

_LIVE: set[str] = set()
_LIVE_LOCK = threading.Lock()


def temporary_name(target: str | os.PathLike[str]) -> Path:
    """A fresh per-process temporary path beside ``target`` (see the module docstring).

    >>> name = temporary_name("/tmp/out.json").name
    >>> name.startswith(f".out.json.{os.getpid()}-") and name.endswith(".tmp")
    True
    """
    path = Path(target)
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries of ``target`` left by processes that no longer run.

    Returns the removed paths. Temporaries of live processes (another run writing the same
    target right now) are kept.
    """
    path = Path(target)
    folder = path.parent if str(path.parent) else Path(".")
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(\d+)-[0-9a-f]+\.tmp$")
    removed = []
    try:
        candidates = list(folder.iterdir())
    except OSError:
        return removed
    for candidate in candidates:
        match = pattern.match(candidate.name)
        if match is None or _alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            candidate.unlink()
            removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def register_temporary(path: str | os.PathLike[str]) -> None:
    """Remember a temporary file so that an interrupt removes it (see :func:`unregister_temporary`)."""
    with _LIVE_LOCK:
        _LIVE.add(os.fspath(path))


def unregister_temporary(path: str | os.PathLike[str]) -> None:
    """Forget a temporary file (it was renamed or removed)."""
    with _LIVE_LOCK:
        _LIVE.discard(os.fspath(path))


def remove_live_temporaries() -> int:
    """Remove every temporary file still being written by this process; return how many."""
    with _LIVE_LOCK:
        paths = list(_LIVE)
        _LIVE.clear()
    count = 0
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)
            count += 1
    return count


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    A failure inside the ``with`` block removes the temporary file, so no half-written
    output is ever left behind.

    Parameters
    ----------
    path : str or path-like
        The file to write; its folder must exist.
    mode : str
        ``open`` mode, ``"w"`` (UTF-8 text) or ``"wb"``.

    Yields
    ------
    file object
        The open temporary file.

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_output(d / "x.txt") as f:
    ...     _ = f.write("hello")
    >>> (d / "x.txt").read_text()
    'hello'
    >>> with atomic_output(d / "x.txt") as f:     # a failure keeps the old file, alone
    ...     _ = f.write("half")
    ...     raise KeyError("stop")
    Traceback (most recent call last):
    KeyError: 'stop'
    >>> (d / "x.txt").read_text(), sorted(p.name for p in d.iterdir())
    ('hello', ['x.txt'])
    >>> shutil.rmtree(d)
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InevError(f"output folder {str(directory)!r} does not exist")
    if target.is_dir():
        raise InevError(f"{os.fspath(path)}: is a folder; the output must be a file name")
    remove_stale_temporaries(target)
    tmp = temporary_name(target)
    register_temporary(tmp)
    try:
        encoding = None if "b" in mode else "utf-8"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        unregister_temporary(tmp)


def write_json_document(path: str | os.PathLike[str], document: dict[str, Any]) -> None:
    """Write ``document`` as indented UTF-8 JSON, atomically, with a trailing newline.

    Parameters
    ----------
    path : str or path-like
    document : dict
        JSON values only (no NaN or infinity).

    Returns
    -------
    None

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_json_document(d / "x.json", {"format": "demo/1", "n": 2})
    >>> (d / "x.json").read_text().splitlines()
    ['{', ' "format": "demo/1",', ' "n": 2', '}']
    >>> shutil.rmtree(d)
    """
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)
    with atomic_output(path) as handle:
        handle.write(text + "\n")


def _refuse_constant(name: str) -> Any:
    raise InevError(f"{name} is not a JSON number")


def read_json_document(path: str | os.PathLike[str], expected_format: str) -> dict[str, Any]:
    """Read a JSON object whose ``format`` key must equal ``expected_format``.

    Raises :class:`InevError` with a one-line reason for every problem listed in the module
    docstring.

    Parameters
    ----------
    path : str or path-like
    expected_format : str
        The ``format`` key the document must have, e.g. ``"inev-plan/1"``.

    Returns
    -------
    dict

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_json_document(d / "x.json", {"format": "demo/1", "n": 2})
    >>> read_json_document(d / "x.json", "demo/1")["n"]
    2
    >>> read_json_document(d / "x.json", "demo/2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    inev.common.errors.InevError: .../x.json: format is 'demo/1', expected 'demo/2'
    >>> shutil.rmtree(d)
    """
    name = os.fspath(path)
    document = _load_json(name)
    if not isinstance(document, dict):
        raise InevError(f"{name}: expected a JSON object with a 'format' key")
    found = document.get("format")
    if found != expected_format:
        shown = found if isinstance(found, str) and len(found) < 60 else type(found).__name__
        raise InevError(f"{name}: format is {shown!r}, expected {expected_format!r}")
    return document


def read_json(path: str | os.PathLike[str]) -> Any:
    """Any JSON value of a file, with the checks of :func:`read_json_document` but the
    ``format`` (for readers that find out what a file is from its ``format`` key)."""
    return _load_json(os.fspath(path))


def file_format(path: str | os.PathLike[str]) -> str:
    """The ``format`` key of a JSON file (one-line error if it has none)."""
    name = os.fspath(path)
    document = read_json(name)  # bounded: size, depth, UTF-8, no NaN (common.files)
    found = document.get("format") if isinstance(document, dict) else None
    if not isinstance(found, str):
        raise InevError(f"{name}: no 'format' key, not an inev file")
    return found


def _load_json(name: str) -> Any:
    try:
        with open(name, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_JSON_BYTES:
                raise InevError(
                    f"{name}: {size / 2**30:.1f} GiB is more than the "
                    f"{MAX_JSON_BYTES / 2**30:.0f} GiB a JSON input may have"
                )
            raw = handle.read()
    except FileNotFoundError:
        raise InevError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InevError(f"{name}: is a folder, not a file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InevError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark (some editors write one)
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InevError(f"{name}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except InevError as exc:
        raise InevError(f"{name}: invalid JSON: {exc}") from None
    except RecursionError:
        raise InevError(f"{name}: nested more than {MAX_JSON_DEPTH} levels deep") from None
    except ValueError as exc:  # an integer longer than Python converts
        raise InevError(f"{name}: invalid JSON: {str(exc).splitlines()[0]}") from None
    depth = json_depth(document, MAX_JSON_DEPTH)
    if depth > MAX_JSON_DEPTH:
        raise InevError(f"{name}: nested more than {MAX_JSON_DEPTH} levels deep")
    return document


def json_depth(document: Any, limit: int) -> int:
    """The nesting depth of lists and objects in ``document`` (counting stops past ``limit``).

    Iterative, so a deep document cannot exhaust the stack.

    >>> json_depth({"a": [1, [2]]}, 10)
    3
    """
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest
