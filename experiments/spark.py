"""Running sweep tasks on Spark (PySpark), embedded local mode by default.

:func:`spark_session` starts (or reuses) a quiet session: no UI, no console progress, Spark's
own logging at ERROR. On a cluster (any master that is not ``local…``) the ``inev`` package is
zipped and shipped to the executors with ``SparkContext.addPyFile``; its dependencies
(networkx, numpy, scipy, simpy, pyarrow) must be installed on the worker machines.

:func:`run_tasks` spreads the tasks over partitions of at most :data:`PART_TASKS` tasks each
(a few tasks per partition keep Spark's per-task overhead small), runs them in the executors,
writes each finished partition as a Parquet part file into the output folder from the executor
(so an interrupted sweep keeps nearly all it finished: on a cluster the folder must be on a
file system the executors share) and advances the driver's progress bar as partitions finish.
Ctrl-C cancels the running jobs with Spark's logging switched off, so the driver says one line
(the sweep's summary) instead of pages of Java and py4j traces. No Spark process outlives
inev and none writes into the output folder after an interrupt, at any moment of it
(:mod:`inev.experiments.spark_shutdown`); a local session keeps its temporary files in a
private folder removed at exit.

>>> import inev.experiments.spark as s
>>> s.is_local("local[2]"), s.is_local("spark://host:7077")
(True, False)
>>> s.check_master("local[*]"), s.check_master("spark://a:7077,b:7077")
('local[*]', 'spark://a:7077,b:7077')
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.interrupts import Terminated, deferred_signals
from inev.common.option_names import option
from inev.experiments import spark_shutdown
from inev.experiments.spec import Task

DEFAULT_MASTER = "local[*]"
"""The Spark master a sweep, a reproduction or a what-if study runs on unless told: embedded
local mode with one thread per core."""
SUBPACKAGES = ("common", "topologies", "workloads", "planner", "simulator", "experiments")
_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.spark.name = org.apache.spark
logger.spark.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
"""


_MASTER = re.compile(
    r"serial|local|yarn"
    r"|local\[\s*(?P<threads>\d+|\*)\s*(,\s*\d+\s*)?\]"
    r"|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
    r"|(spark|k8s)://\S+"
)
"""The master URLs Spark's ``SparkContext`` accepts (its ``SparkMasterRegex``), and ``serial``."""


def check_master(master: str) -> str:
    """``master`` if it is a Spark master URL or ``serial``; else :class:`InevError`.

    Checked before a sweep starts, so that a typo is one line, not the Java gateway's
    stack trace after the output folder was made. Whether a ``spark://`` or ``k8s://``
    cluster answers is found out only when Spark connects.

    >>> check_master("local[0]")
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: master local[0]: local mode needs at least one thread
    """
    found = _MASTER.fullmatch(master)
    if found is None:
        raise InevError(
            f"{option('master')} {master}: not a Spark master URL (local, local[N], local[*], "
            "local[N,F], local-cluster[N,C,M], spark://HOST:PORT, k8s://URL, yarn) "
            "nor 'serial'"
        )
    if found["threads"] is not None and found["threads"] != "*" and int(found["threads"]) < 1:
        raise InevError(f"{option('master')} {master}: local mode needs at least one thread")
    return master


def is_local(master: str) -> bool:
    """Whether ``master`` runs executors inside this machine's Spark (local mode)."""
    return master.startswith("local")


def package_zip(folder: str | os.PathLike[str]) -> Path:
    """Zip the installed ``inev`` sub-packages as ``inev/<sub>/…`` for the executors."""
    target = Path(folder) / "inev.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inev/__init__.py", '"""inev, shipped to Spark executors."""\n')
        for sub in SUBPACKAGES:
            root = Path(import_module(f"inev.{sub}").__path__[0])
            for path in sorted(root.rglob("*")):
                if (
                    path.suffix in (".py", ".toml", ".properties")
                    and "__pycache__" not in path.parts
                ):
                    archive.write(path, f"inev/{sub}/{path.relative_to(root)}")
    return target


_lock = threading.Lock()


def spark_session(master: str = DEFAULT_MASTER, app_name: str = "inev-sweep") -> Any:
    """A quiet SparkSession for ``master`` (reused if one is already running).

    A SIGINT or SIGTERM while Spark starts ends the processes started so far and is raised
    once the start has failed (:mod:`inev.experiments.spark_shutdown`).
    """
    os.environ.setdefault("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON", "") or _python())
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", _python())
    from pyspark.sql import SparkSession

    with _lock:
        log_folder = Path(tempfile.gettempdir()) / "inev-spark"
        log_folder.mkdir(exist_ok=True)
        log_file = log_folder / "log4j2.properties"
        if not log_file.exists() or log_file.read_text() != _LOG4J:
            log_file.write_text(_LOG4J)
        java_options = (
            f"-Dlog4j2.configurationFile=file:{log_file} -Dlog4j.configurationFile=file:{log_file}"
        )
        fresh = SparkSession.getActiveSession() is None
        local_dir = Path(tempfile.mkdtemp(prefix="inev-spark-")) if fresh else None
        driver_options = f"{java_options} -XX:-UsePerfData"  # no hsperfdata file left
        if local_dir is not None:  # the JVM's temporary files go where shutdown removes them
            driver_options += f" -Djava.io.tmpdir={local_dir}"
        settings = {
            "spark.master": master,
            "spark.app.name": app_name,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.extraJavaOptions": driver_options,
            "spark.executor.extraJavaOptions": java_options,
            "spark.python.worker.reuse": "true",
            "spark.sql.shuffle.partitions": "4",
        }
        if local_dir is not None and is_local(master):
            settings["spark.local.dir"] = str(local_dir)
        builder = SparkSession.builder
        for key, value in settings.items():
            builder = builder.config(key, value)
        spark_shutdown.quiet_py4j()
        spark_shutdown.register(local_dir)
        with deferred_signals(on_signal=spark_shutdown.kill_all):
            session = _start(builder, master, settings)
            session.sparkContext.setLogLevel("ERROR")
            spark_shutdown.quiet_accumulators(session.sparkContext)
            if not is_local(master) and not getattr(session, "_inev_shipped", False):
                zip_dir = Path(tempfile.mkdtemp(prefix="inev-zip-"))
                spark_shutdown.register(zip_dir)
                session.sparkContext.addPyFile(str(package_zip(zip_dir)))
                session._inev_shipped = True
            if fresh:
                slots = session.sparkContext.defaultParallelism
                session.sparkContext.parallelize(range(slots), slots).map(_warm_worker).collect()
        return session


def _start(builder: Any, master: str, settings: dict[str, str] | None = None) -> Any:
    """``builder.getOrCreate()``, with a failure to start Spark said as :class:`InevError`.

    With ``settings`` (the builder's) the JVM is launched first by :func:`_launch`.
    """
    try:
        if settings is not None:
            _launch(settings)
        return builder.getOrCreate()
    except Exception as error:  # py4j and PySpark raise several types for one cause
        # A Java exception's text names only the py4j call; Spark logged the cause above.
        java = hasattr(error, "java_exception")
        first = "" if java else (str(error).strip().splitlines() or [""])[0]
        raise InevError(
            f"{option('master')} {master}: Spark did not start{f' ({first})' if first else ''}; "
            "check the master URL and that Java 17 or later is installed, "
            f"or run with {option('master')} serial"
        ) from error


_JVM_NOISE = ("WARNING: Using incubator modules",)
"""Lines the JVM prints on every start (Spark's launcher always adds an incubator module)."""


def _launch(settings: dict[str, str]) -> None:
    """Launch PySpark's JVM gateway, unless it runs, with its error output read by inev.

    The JVM's standard error goes through :func:`_forward`, which drops :data:`_JVM_NOISE`
    (so a sweep's error output is inev's own lines only) and passes everything else on.
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    conf = SparkConf(loadDefaults=False)
    for key, value in settings.items():
        conf.set(key, value)
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    if gateway.proc is not None and gateway.proc.stderr is not None:
        threading.Thread(target=_forward, args=(gateway.proc.stderr,), daemon=True).start()
    SparkContext._ensure_initialized(gateway=gateway)


def _forward(stream: Any) -> None:
    """Copy the JVM's error output to this process's, less :data:`_JVM_NOISE`."""
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", errors="replace")
        if not line.startswith(_JVM_NOISE):
            sys.stderr.write(line)
            sys.stderr.flush()


def _warm_worker(_: int) -> int:
    """Import the task code once in a Python worker, so the first tasks do not pay for it."""
    import inev.experiments.measure  # noqa: F401

    return 0


def _python() -> str:
    import sys

    return sys.executable


PART_TASKS = 4
"""Most tasks per partition, and so per Parquet part: what an interrupt can lose per slot."""


def batches(
    tasks: Sequence[Task], parallelism: int, per_slot: int = 4, most: int = PART_TASKS
) -> list[list[Task]]:
    """Split tasks into contiguous batches: about ``parallelism * per_slot`` of them, more
    when that would put more than ``most`` tasks in one.

    >>> [len(b) for b in batches(list(range(10)), parallelism=1, per_slot=2, most=4)]
    [4, 3, 3]
    """
    if not tasks:
        return []
    count = max(1, min(len(tasks), max(parallelism * per_slot, -(-len(tasks) // most))))
    size, extra = divmod(len(tasks), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(list(tasks[start:end]))
        start = end
    return out


def run_tasks(
    session: Any,
    tasks: Sequence[Task],
    run_batch: Callable[[list[Task]], list[dict[str, Any]]],
    folder: str,
    parallelism: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    write: Callable[[str, list[dict[str, Any]]], Any] | None = None,
) -> list[dict[str, Any]]:
    """Run ``run_batch`` over batches of ``tasks`` on Spark; return all rows.

    Each batch's rows are also written to ``folder/parts`` by the executor that computed them,
    with ``write(folder, rows)`` (default: :func:`inev.experiments.results.write_part`).
    ``on_progress(n)`` is called on the driver with the number of newly finished tasks.
    """
    from inev.experiments.results import write_part

    writer = write or write_part
    if not tasks:
        return []
    sc = session.sparkContext
    with deferred_signals():  # py4j calls from this thread: not cut in the middle
        slots = parallelism or sc.defaultParallelism
        groups = batches(tasks, slots)
        done = sc.accumulator(0)
        rdd = sc.parallelize(groups, len(groups))
    target = os.path.abspath(folder)

    def compute(batch_iter: Any) -> Any:
        rows: list[dict[str, Any]] = []
        count = 0
        for batch in batch_iter:
            batch_rows = run_batch(batch)
            if batch_rows:
                writer(target, batch_rows)
            rows.extend(batch_rows)
            count += len(batch)
        done.add(count)
        return rows

    result: dict[str, Any] = {}

    def collect() -> None:
        try:
            result["rows"] = rdd.mapPartitions(compute).collect()
        except BaseException as exc:  # re-raised on the driver thread below
            result["error"] = exc

    worker = threading.Thread(target=collect, daemon=True)
    worker.start()
    seen = 0
    try:
        while worker.is_alive():
            worker.join(0.2)
            value = done.value
            if value > seen and on_progress is not None:
                on_progress(value - seen)
            seen = max(seen, value)
    except (KeyboardInterrupt, Terminated):
        spark_shutdown.stop_workers(sc)  # nothing writes into the folder after this
        worker.join(30)
        raise
    if "error" in result:
        raise result["error"]
    if on_progress is not None and len(tasks) > seen:
        on_progress(len(tasks) - seen)
    return result["rows"]
