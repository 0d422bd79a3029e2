"""A lock on a folder, so that two runs never write into it at the same time.

:func:`folder_lock` takes an exclusive ``fcntl.flock`` on ``<folder>/.inev.lock`` without
waiting: a second run into the same folder stops at once with one line naming the process that
holds it (its id is written into the lock file). The operating system releases the lock when
the holder exits, however it exits (a crash or SIGKILL included), so a stale lock never blocks
a later run; the small lock file itself stays in the folder.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> with folder_lock(folder, "sweep"):
...     try:
...         with folder_lock(folder, "sweep"):
...             pass
...     except Exception as exc:
...         print(f"(process {os.getpid()})" in str(exc))
True
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from inev.common.errors import InevError

LOCK_NAME = ".inev.lock"
"""The lock file's name inside the locked folder."""


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str], what: str = "run") -> Iterator[None]:
    """Hold the folder's lock for the block (module docstring); ``what`` names the run."""
    path = Path(folder) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise InevError(
                f"{os.fspath(folder)}: another {what} is writing into this folder (process "
                f"{holder}); wait for it to finish or choose another folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
