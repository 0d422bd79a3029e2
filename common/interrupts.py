"""Interrupts: SIGINT and SIGTERM end a run cleanly, with no temporary file left behind.

Python turns SIGINT (Ctrl-C) into :class:`KeyboardInterrupt`, which unwinds every ``with``
block, so :func:`inev.common.files.atomic_output` removes its temporary file. SIGTERM (``kill``,
a job scheduler's time limit) would end the process at once and leave it; inside
:func:`clean_exit_on_signals` it raises :class:`Terminated` instead, which unwinds the same way.
Whatever is still registered as a live temporary file when the block ends is removed too.

One signal is enough: after the first, the run is stopping, and further SIGINTs and SIGTERMs
are ignored until the block ends, so that the cleanup (ending Spark, keeping a sweep's
finished tasks) is not cut in the middle into a traceback. ``timeout -s INT`` sends its signal
twice (to the command and to its process group); a user may press Ctrl-C twice. The cleanup
itself is bounded in time.

SIGKILL cannot be caught: the temporaries it leaves carry the dead process's id in their name,
and the next run writing the same output removes them
(:func:`inev.common.files.remove_stale_temporaries`).

Some work must not be cut in the middle: starting Spark is a conversation with a JVM being
born, and an exception raised inside it leaves a half-started JVM that outlives inev and
prints Java and py4j traces. Within :func:`deferred_signals` a SIGINT or SIGTERM is noted, a
callback runs at once (it ends the half-started processes, which makes the work fail fast),
and the interrupt is raised when the block ends, in place of whatever the block raised.

>>> import os, signal
>>> try:
...     with deferred_signals(lambda: print("stopping the child processes")):
...         os.kill(os.getpid(), signal.SIGINT)
...         print("the block runs to its end")
... except KeyboardInterrupt:
...     print("then the interrupt")
stopping the child processes
the block runs to its end
then the interrupt
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from inev.common.files import remove_live_temporaries

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_stopping: dict[str, Any] = {"armed": False, "signal": None}
"""Within :func:`clean_exit_on_signals`: whether it is active, and the first signal seen."""


class Terminated(BaseException):
    """SIGTERM arrived (a :class:`BaseException`, like :class:`KeyboardInterrupt`, so that
    ``except Exception`` clauses do not swallow it)."""


def _as_exception(signum: int) -> BaseException:
    return Terminated(signum) if signum == signal.SIGTERM else KeyboardInterrupt()


def _first_signal_raises(signum: int, frame: FrameType | None) -> None:
    if _stopping["signal"] is not None:
        return  # already stopping (module docstring)
    _stopping["signal"] = signum
    raise _as_exception(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install(handler: Any) -> dict[int, Any]:
    previous = {s: signal.getsignal(s) for s in _SIGNALS}
    for s in _SIGNALS:
        signal.signal(s, handler)
    return previous


def _restore(previous: dict[int, Any]) -> None:
    for s, handler in previous.items():
        if handler is not None:  # None: a handler not set from Python, nothing to restore
            signal.signal(s, handler)


@contextlib.contextmanager
def clean_exit_on_signals() -> Iterator[None]:
    """Within the block SIGINT raises :class:`KeyboardInterrupt` and SIGTERM
    :class:`Terminated`, the first of them only; on leaving it, live temporary files are
    removed (see the module docstring). Outside the main thread it only cleans up.
    """
    main = _main_thread()
    previous = _install(_first_signal_raises) if main else {}
    if main:
        _stopping.update(armed=True, signal=None)
    try:
        yield
    finally:
        if main:
            _restore(previous)
            _stopping.update(armed=False, signal=None)
        remove_live_temporaries()


@contextlib.contextmanager
def deferred_signals(on_signal: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends (module docstring); ``on_signal`` runs
    when the first one arrives. Outside the main thread the block runs as it is.
    """
    if not _main_thread():
        yield
        return
    arrived: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        if arrived or _stopping["signal"] is not None:
            return
        arrived.append(signum)
        if on_signal is not None:
            on_signal()

    previous = _install(note)
    try:
        yield
    except Exception:
        if not arrived:
            raise
    finally:
        _restore(previous)
    if arrived:
        if _stopping["armed"]:
            _stopping["signal"] = arrived[0]
        raise _as_exception(arrived[0])
