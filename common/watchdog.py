"""A memory watchdog: stop a run with a clear message before it exhausts the machine.

Size estimates refuse the runs known to be too big before they start (the simulator's size
check, the sweep's task count); the watchdog catches the rest. While a
:func:`watch_memory` block runs, a daemon thread reads the process's resident memory every
quarter second. Past the limit it interrupts the main thread, and the block ends with
:class:`MemoryLimitExceeded` (an :class:`~inev.common.errors.InevError`, so the command line
prints one ``error:`` line and every ``with`` block on the way out removes its temporary files).
A main thread stuck in one long C call cannot be interrupted; if it has not stopped
:data:`GRACE_SECONDS` after the interrupt, the watchdog removes the live temporary files,
prints the same line and ends the process with exit status 1. The interrupt is delivered
through SIGINT's Python handler, and a process started in the background by a shell without
job control (``cmd &`` in a script) begins with SIGINT ignored, where the interrupt would do
nothing: for the block, :func:`watch_memory` then installs Python's default handler (as the
command line's own handler does) and puts the previous disposition back after it.

The limit is ``INEV_MAX_MEMORY`` when set (bytes, or with a suffix ``K``, ``M``, ``G``: ``8G``;
``0`` turns the watchdog off), else :func:`default_limit`: what the process holds now plus
90 % of the memory the system reports available when the block starts (``MemAvailable`` of
``/proc/meminfo``). The available memory, not the total, because the machine may be shared.

Resident memory is read from ``/proc/self/statm`` (Linux); where that file does not exist the
watchdog does nothing (psutil would cover more systems, but it is one more dependency for a
guard that matters on the Linux machines inev runs on).

>>> parse_size("1.5G") == int(1.5 * 2**30)
True
>>> with watch_memory(limit=2**50):
...     total = sum(range(1000))
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from inev.common.errors import InevError
from inev.common.files import remove_live_temporaries

SIZE_SHARE = 0.5
"""Share of the memory limit that the size checks let a run's estimated state take (the rest
is for the interpreter, the trace being read, matches in flight and the estimate's error)."""
FALLBACK_LIMIT = 8 * 2**30
"""The limit the size checks assume where memory cannot be read or INEV_MAX_MEMORY is 0."""
GRACE_SECONDS = 10.0
"""How long the main thread may take to stop after the interrupt before the process ends."""
INTERVAL_SECONDS = 0.25
"""Time between two readings of the resident memory."""
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class MemoryLimitExceeded(InevError):
    """The run held more memory than the watchdog's limit and was stopped."""


def parse_size(text: str) -> int:
    """Bytes of a size such as ``512M``, ``8G`` or ``1000000`` (InevError if malformed)."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = cleaned[-1:] if cleaned[-1:] in _UNITS else ""
    number = cleaned[: len(cleaned) - len(unit)]
    try:
        value = float(number)
    except ValueError:
        raise InevError(f"INEV_MAX_MEMORY {text!r} is not a size such as 8G or 512M") from None
    if not 0 <= value < 2**63 / _UNITS[unit]:
        raise InevError(f"INEV_MAX_MEMORY {text!r} must be a non-negative size")
    return int(value * _UNITS[unit])


def resident_bytes() -> int | None:
    """The process's resident memory in bytes (``None`` where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def available_bytes() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (``None`` where it cannot be read)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def default_limit() -> int | None:
    """The limit when ``INEV_MAX_MEMORY`` is not set (module docstring); ``None``: no watch."""
    held, available = resident_bytes(), available_bytes()
    if held is None or available is None:
        return None
    return held + int(0.9 * available)


def configured_limit() -> int | None:
    """``INEV_MAX_MEMORY`` if set (``None`` for ``0``), else :func:`default_limit`."""
    text = os.environ.get("INEV_MAX_MEMORY", "").strip()
    if text:
        value = parse_size(text)
        return value or None
    return default_limit()


def size_budget(limit: int | None = None) -> int:
    """Bytes the size checks let a run's estimated state take: :data:`SIZE_SHARE` of the
    configured limit (:func:`configured_limit`: ``INEV_MAX_MEMORY``, else what the process
    holds plus 90 % of the available memory), or of :data:`FALLBACK_LIMIT` where there is
    none; ``limit`` (bytes) replaces the configured one. Setting ``INEV_MAX_MEMORY`` moves
    the watchdog and the size checks together.

    >>> size_budget(limit=2 * 2**30) == 2**30
    True
    """
    if limit is None:
        limit = configured_limit()
    return int(SIZE_SHARE * (limit or FALLBACK_LIMIT))


def show_bytes(value: float) -> str:
    """A size for a message: ``1.5 GiB``, ``300 MiB``, ``12 KiB``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def _gib(value: int) -> str:
    return f"{value / 2**30:.2f} GiB"


class _Watch:
    def __init__(self, limit: int, interval: float) -> None:
        self.limit = limit
        self.interval = interval
        self.peak = 0
        self.tripped = False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="inev-memory-watchdog", daemon=True)

    def message(self) -> str:
        return (
            f"memory use reached {_gib(self.peak)}, over the limit of {_gib(self.limit)}; the run "
            "was stopped (make the input smaller, or set INEV_MAX_MEMORY, e.g. 16G, 0 for none)"
        )

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            held = resident_bytes()
            if held is None or held <= self.limit:
                continue
            self.peak = max(self.peak, held)
            self.tripped = True
            _thread.interrupt_main()
            if self.stop.wait(GRACE_SECONDS):
                return
            remove_live_temporaries()
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.write(f"error: {self.message()}\n")
                sys.stderr.flush()
            os._exit(1)


@contextlib.contextmanager
def watch_memory(limit: int | None = None, interval: float = INTERVAL_SECONDS) -> Iterator[None]:
    """Run the block under the watchdog (module docstring); ``limit`` in bytes overrides the
    configured one. Outside the main thread, or where memory cannot be read, it only runs
    the block."""
    chosen = configured_limit() if limit is None else limit
    main = threading.current_thread() is threading.main_thread()
    if not chosen or not main or resident_bytes() is None:
        yield
        return
    watch = _Watch(chosen, interval)
    ignored = signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL)
    if ignored:  # the interrupt needs a Python handler (module docstring)
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watch.thread.start()
    try:
        yield
    except KeyboardInterrupt:
        if watch.tripped:
            raise MemoryLimitExceeded(watch.message()) from None
        raise
    finally:
        watch.stop.set()
        watch.thread.join(timeout=max(1.0, interval * 4))
        if ignored:
            signal.signal(signal.SIGINT, previous)
