"""Ending Spark: no process outlives inev, no trace reaches the terminal, no folder is left.

A local Spark session is three kinds of processes below inev: the JVM (PySpark's gateway,
which ignores SIGINT), PySpark's worker daemon in a process group of its own, and its Python
workers. Left to themselves they end some time after inev does (the JVM when its standard
input closes), or never (a JVM killed in the middle of its start, a worker still writing a
Parquet part into a folder that inev is removing). So inev ends them itself, at three moments:

- **during the start** (:func:`kill_all`): a SIGINT or SIGTERM while Spark starts kills the
  processes started so far at once (SIGKILL: a JVM being born has nothing to save), the start
  fails fast, and the interrupt is raised when it has
  (:func:`inev.common.interrupts.deferred_signals`);
- **after an interrupt of a run** (:func:`stop_workers`): the jobs are cancelled with Spark's
  logging off, the Python workers are ended and the context stopped, before the sweep reads its
  folder, so nothing writes into it afterwards;
- **at exit** (:func:`shutdown`, registered with :mod:`atexit` by the first session): the
  context stops, the JVM's standard input is closed so that it exits as it was built to (its
  shutdown hooks remove Spark's temporary folders), and whatever still runs after
  :data:`EXIT_GRACE` seconds is killed; then the session's private temporary folder is removed.

py4j reports a broken connection by logging tracebacks on Python's root logger; once a session
exists those records are dropped (:func:`quiet_py4j`), since the exception itself still
reaches inev and becomes its one error line (``INEV_DEBUG=1`` keeps them).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import threading
import warnings
from pathlib import Path
from typing import Any

from inev.common.processes import adopt_orphans, descendants, end_processes

EXIT_GRACE = 10.0
"""Seconds the JVM gets to stop at exit before it is killed."""
STOP_TIMEOUT = 15.0
"""Seconds ``SparkContext.stop()`` gets (it waits for its task threads) before inev goes on."""

_registered: dict[str, Any] = {}


def _quiet_record(record: logging.LogRecord) -> bool:
    return f"{os.sep}py4j{os.sep}" not in record.pathname


def quiet_py4j() -> None:
    """Drop py4j's tracebacks of broken connections (module docstring), unless INEV_DEBUG."""
    if os.environ.get("INEV_DEBUG") or _registered.get("quiet"):
        return
    logging.getLogger().addFilter(_quiet_record)
    logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)
    _registered["quiet"] = True


def register(local_dir: Path | None) -> None:
    """Have :func:`shutdown` run at exit (once) and remove ``local_dir`` after the JVM ends;
    adopt Spark's orphaned processes (:func:`inev.common.processes.adopt_orphans`)."""
    adopt_orphans()
    if local_dir is not None:
        _registered.setdefault("folders", []).append(local_dir)
    if not _registered.get("atexit"):
        atexit.register(shutdown)
        _registered["atexit"] = True


def kill_all() -> None:
    """Kill every process below this one (Spark's, in the middle of its start)."""
    end_processes(descendants())


def _gateway() -> subprocess.Popen[bytes] | None:
    """PySpark's Popen of its JVM, if this process launched it."""
    from pyspark import SparkContext

    gateway = getattr(SparkContext, "_gateway", None)
    return getattr(gateway, "proc", None) if gateway is not None else None


def _below_gateway() -> list[int]:
    """Every process below this one but the JVM (PySpark's daemon and workers, adopted ones
    included)."""
    proc = _gateway()
    return [p for p in descendants() if proc is None or p != proc.pid]


def _stop_context(sc: Any) -> None:
    """``sc.stop()`` with Spark's logging off, given at most :data:`STOP_TIMEOUT` seconds."""
    silence(sc)
    with contextlib.suppress(Exception):
        sc.cancelAllJobs()

    def stop() -> None:
        with contextlib.suppress(Exception), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Unable to cleanly shutdown Spark JVM process"
            sc.stop()

    thread = threading.Thread(target=stop, daemon=True)
    thread.start()
    thread.join(STOP_TIMEOUT)


def silence(sc: Any) -> None:
    """Switch every logger of Spark's JVM off (``sc.setLogLevel`` sets the root logger only,
    and inev's configuration gives Spark's and Hadoop's loggers levels of their own)."""
    quiet_accumulators(sc)
    with contextlib.suppress(Exception):
        jvm = sc._jvm
        off = jvm.org.apache.logging.log4j.Level.OFF
        jvm.org.apache.logging.log4j.core.config.Configurator.setAllLevels("", off)
    with contextlib.suppress(Exception):
        sc.setLogLevel("OFF")


def quiet_accumulators(sc: Any) -> None:
    """Say nothing when a worker's connection to the driver's accumulator server breaks.

    Each Python worker keeps a connection to it; a worker that ends (stopped by an interrupt,
    or by the JVM at exit) breaks it in the middle of a read, which the server would report
    with a traceback, from a thread of its own, even after the context has stopped.
    """
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, address: None


def stop_workers(sc: Any) -> None:
    """After an interrupt: cancel the jobs, end the Python workers, stop the context."""
    silence(sc)
    with contextlib.suppress(Exception):
        sc.cancelAllJobs()
    end_processes(_below_gateway(), grace=2.0, first=signal.SIGTERM)
    _stop_context(sc)
    end_processes(_below_gateway(), grace=2.0, first=signal.SIGTERM)


def shutdown() -> None:
    """At exit: stop the context and the JVM, kill what is left, remove the private folders.

    Signals are ignored meanwhile (each step has a time limit), so a second Ctrl-C cannot cut
    it short into a traceback.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    for s in previous:
        signal.signal(s, signal.SIG_IGN)
    try:
        _shutdown()
    finally:
        for s, handler in previous.items():
            if handler is not None:
                signal.signal(s, handler)


def _shutdown() -> None:
    from pyspark import SparkContext

    proc = _gateway()
    sc = SparkContext._active_spark_context
    if sc is not None:
        _stop_context(sc)
    if proc is not None:
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()  # PySpark's gateway exits when its input closes
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(EXIT_GRACE)
    end_processes(descendants(), grace=0.0)  # orphans are adopted (register)
    for folder in _registered.pop("folders", []):
        shutil.rmtree(folder, ignore_errors=True)
