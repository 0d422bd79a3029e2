"""Child processes: find every process this one started, and end them for good.

inev starts processes only through Spark: the Java gateway (``spark-submit`` replaced by the
JVM), which starts PySpark's worker daemon, which forks one Python worker per task slot. The
daemon makes its own process group and the JVM ignores SIGINT, so neither Ctrl-C in a
terminal nor the death of inev reaches all of them, and a JVM cut off in the middle of its
start can outlive the command (it did: still there 81 s later). :func:`descendants` lists the
whole tree while it is still one tree (a process whose parent dies is handed to the system and
can no longer be told from a stranger), and :func:`end_processes` ends a list of them and
waits until they are gone.

A process whose parent ends is handed to the nearest *subreaper* above it;
:func:`adopt_orphans` makes this process one (Linux), so that a Spark worker whose JVM ended
first is still found below it. Processes are read from ``/proc`` (Linux); elsewhere
:func:`descendants` finds none and the tools' own shutdown (the JVM exits when its standard
input closes) is all there is.

>>> import subprocess, sys
>>> child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
>>> child.pid in descendants() or not Path("/proc").is_dir()
True
>>> end_processes([child.pid]), child.wait()
([], -9)
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")
_PR_SET_CHILD_SUBREAPER = 36


def parent_of(pid: int) -> int | None:
    """The parent process id of ``pid`` from ``/proc/<pid>/stat`` (``None`` if gone).

    >>> parent_of(os.getpid()) == os.getppid() or not PROC.is_dir()
    True
    """
    try:
        text = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # "pid (command name, which may hold spaces and parentheses) state ppid ..."
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _state(pid: int) -> str | None:
    try:
        text = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    rest = text[text.rfind(")") + 2 :].split()
    return rest[0] if rest else None


def descendants(pid: int | None = None) -> list[int]:
    """Every living process below ``pid`` (this process by default), parents first.

    >>> descendants(2**22 + 1)  # no such process
    []
    """
    root = os.getpid() if pid is None else pid
    if not PROC.is_dir():
        return []
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        parent = parent_of(int(entry.name))
        if parent is not None:
            children.setdefault(parent, []).append(int(entry.name))
    out: list[int] = []
    frontier = [root]
    while frontier:
        found = sorted(c for p in frontier for c in children.get(p, []))
        out.extend(found)
        frontier = found
    return out


def adopt_orphans() -> bool:
    """Make this process the subreaper of its descendants (Linux ``prctl``); whether it is.

    >>> adopt_orphans() or not sys.platform.startswith("linux")
    True
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not).

    >>> alive(os.getpid()), alive(2**22 + 1)
    (True, False)
    """
    if PROC.is_dir():
        state = _state(pid)
        return state is not None and state not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def end_processes(
    pids: Iterable[int], grace: float = 5.0, first: signal.Signals = signal.SIGKILL
) -> list[int]:
    """Send ``first`` to each process of ``pids`` that still runs, SIGKILL to any left after
    ``grace`` seconds, and wait (at most 2 more seconds) until they are gone; return those
    still running then (none, unless the system refuses).
    """
    pending = [p for p in pids if p != os.getpid() and alive(p)]
    for pid in pending:
        with contextlib.suppress(OSError):
            os.kill(pid, first)
    deadline = time.monotonic() + (grace if first != signal.SIGKILL else 0.0)
    while True:
        pending = [p for p in pending if alive(p)]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    for pid in pending:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while pending and time.monotonic() < deadline:
        pending = [p for p in pending if alive(p)]
        if pending:
            time.sleep(0.05)
    return pending
