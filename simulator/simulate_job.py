"""``inev simulate`` as library functions: files and options to one checked request, then a result.

The command (:mod:`inev.simulator.cli`) parses and checks its flags, builds the
:class:`~inev.simulator.options.SimulationOptions` (with the
:class:`~inev.simulator.capacity.CapacityOptions` of ``--capacity``) and prints; the job
lives here, so a notebook or a test runs the same job without click (and without flags):

:func:`simulate_request`
    The files, the result file, the options and how to get the plan (a file or a method)
    checked and turned into one :class:`SimulateRequest`; a bad combination is one
    :class:`~inev.common.errors.InevError` before any file is read.
:func:`open_simulation`
    The network, workload and plan read and checked against each other (or the plan made on
    the fly), a trace scanned, changes read: a :class:`SimulationJob` with the notes to show
    before the run and its simulated duration (for a progress bar).
:meth:`SimulationJob.run`
    The simulation run and its ``inev-sim/1`` file written; it returns the
    :class:`~inev.simulator.simulation_result.SimulationResult`.

Examples
--------
>>> import tempfile, pathlib
>>> from inev.topologies.io import save_network
>>> from inev.topologies.network import Network
>>> from inev.workloads.io import save_workload
>>> from inev.workloads.workload import Query, Workload
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> save_network(Network.build(range(3), [(0, 1), (1, 2)],
...                            {"A": (1.0, [0]), "B": (1.0, [2])}), tmp / "net.json")
>>> save_workload(Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]), tmp / "wl.json")
>>> from inev.simulator.options import SimulationOptions
>>> request = simulate_request(
...     {"network": tmp / "net.json", "workload": tmp / "wl.json"}, tmp / "sim.json",
...     SimulationOptions(duration=20.0, seed=1), method="inev")
>>> result = open_simulation(request).run()
>>> result.matches["q"] == result.centralized_matches["q"], (tmp / "sim.json").exists()
(True, True)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from inev.common.errors import InevError
from inev.common.paths import check_paths
from inev.planner import METHODS, Plan, load_plan, plan_workload
from inev.planner.changes import apply_changes, load_changes
from inev.planner.fingerprint import check_plan_for
from inev.simulator.aggregation import size_workload
from inev.simulator.engine.replay import absent_types, ordered_chunks, prepare
from inev.simulator.options import SimulationOptions
from inev.simulator.run import TraceStream, simulate
from inev.simulator.simulation_result import SimulationResult, save_result
from inev.simulator.sources import rescale_rates
from inev.topologies.io import load_network
from inev.topologies.network import Network
from inev.workloads.io import load_workload
from inev.workloads.workload import Workload

Path = str | os.PathLike[str]
FILES = ("network", "workload", "plan", "trace", "changes")
"""The files a simulation reads (network and workload always; the rest optional)."""


@dataclass(frozen=True)
class SimulateRequest:
    """One checked ``inev simulate`` job; build it with :func:`simulate_request`.

    Parameters
    ----------
    files : dict of str to path
        ``network`` and ``workload``, and any of ``plan``, ``trace``, ``changes``.
    out : path
        The ``inev-sim/1`` result file.
    options : SimulationOptions
        How to simulate (duration, seed, links, engines, size check, capacity).
    method : str or None
        Plan on the fly with this method instead of reading ``files["plan"]``.
    total_rate : float or None
        Rescale the network's rates to this many events per time unit (with ``method``).
    force : bool
        Run a plan made for another network or workload (it must still fit).
    duration_given : bool
        Whether ``options.duration`` was asked for; a replayed trace extends it to its last
        event, else the trace's span is the duration.
    force_option : str or None
        How the caller spells ``force`` (a command's flag), named when a plan does not fit.

    Examples
    --------
    :func:`open_simulation`'s example runs one; made by hand (no file is checked):

    >>> request = SimulateRequest({"network": "n.json", "workload": "w.json"}, "r.json",
    ...                           SimulationOptions(duration=5.0), method="centralized")
    >>> request.options.duration, request.method, request.force
    (5.0, 'centralized', False)
    """

    files: Mapping[str, Path]
    out: Path
    options: SimulationOptions
    method: str | None = None
    total_rate: float | None = None
    force: bool = False
    duration_given: bool = False
    force_option: str | None = None


def simulate_request(
    files: Mapping[str, Path | None],
    out: Path,
    options: SimulationOptions | None = None,
    *,
    method: str | None = None,
    total_rate: float | None = None,
    force: bool = False,
    duration_given: bool = False,
    force_option: str | None = None,
) -> SimulateRequest:
    """The checked :class:`SimulateRequest` of a simulation's files, result file and options.

    Parameters
    ----------
    files : mapping
        Paths by :data:`FILES` name (``None`` or absent: not given).
    out : path
        The result file (checked: not one of the inputs).
    options : SimulationOptions, optional
        How to simulate (default: ``SimulationOptions()``).
    method : str, optional
        Plan on the fly with this method (one of ``METHODS``) instead of reading a plan.
    total_rate : float, optional
        Rescale the network's rates to this total (with ``method`` only).
    force : bool
        Run a plan made for another network or workload.
    duration_given : bool
        Whether ``options.duration`` was asked for (a trace then only extends it).
    force_option : str, optional
        How the caller spells ``force``, named when a plan does not fit (a command's flag).

    Returns
    -------
    SimulateRequest

    Examples
    --------
    >>> simulate_request({"network": "n", "workload": "w", "plan": "p"}, "o", method="inev")
    Traceback (most recent call last):
    inev.common.errors.InevError: give either a plan file or a planning method, not both
    """
    unknown = set(files) - set(FILES)
    if unknown:
        raise TypeError(f"simulate_request: unknown files {', '.join(sorted(unknown))}")
    given = {k: v for k, v in files.items() if v is not None}
    if "plan" in given and method:
        raise InevError("give either a plan file or a planning method, not both")
    if total_rate is not None and not method:
        raise InevError(
            "a total rate needs a planning method (a plan file was made for other rates)"
        )
    if "plan" not in given and not method:
        raise InevError("give a plan file or a planning method to plan on the fly")
    if method is not None and method not in METHODS:
        raise InevError(f"unknown planning method {method!r} ({', '.join(METHODS)})")
    check_paths({k: files.get(k) for k in FILES}, out)
    return SimulateRequest(
        files=given,
        out=out,
        options=options or SimulationOptions(),
        method=method,
        total_rate=total_rate,
        force=force,
        duration_given=duration_given,
        force_option=force_option,
    )


@dataclass(frozen=True)
class SimulationJob:
    """A request with its files read and checked; :meth:`run` simulates and writes.

    Build one with :func:`open_simulation`.

    Parameters
    ----------
    request : SimulateRequest
    network, workload, plan
        As read (the plan made on the fly if the request names a method).
    options : SimulationOptions
        The request's, with the run's duration (a trace's span when none was asked for).
    trace : TraceStream or None
        A recorded trace, scanned.
    changes : list
        ``inev-changes/1`` entries.
    notes : list of str
        For the user (query types a trace never holds).

    Examples
    --------
    Only B is sent, each B event over both links:

    >>> import pathlib, tempfile
    >>> from inev.topologies.io import save_network
    >>> from inev.workloads.io import save_workload
    >>> from inev.workloads.workload import Query
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> folder = tempfile.TemporaryDirectory()
    >>> files = {"network": pathlib.Path(folder.name, "n.json"),
    ...          "workload": pathlib.Path(folder.name, "w.json")}
    >>> save_network(net, files["network"])
    >>> save_workload(Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]), files["workload"])
    >>> out = pathlib.Path(folder.name, "r.json")
    >>> job = open_simulation(simulate_request(files, out, method="inev"))
    >>> result = job.run()
    >>> by_link = result.messages_by_link
    >>> result.messages == result.messages_by_type["B"], by_link["0 1"] == by_link["1 2"]
    (True, True)
    >>> result.missing, result.extra, out.exists()
    (0, 0, True)
    >>> folder.cleanup()
    """

    request: SimulateRequest
    network: Network
    workload: Workload
    plan: Plan
    options: SimulationOptions
    trace: TraceStream | None = None
    changes: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def run(self, progress: Callable[[float], None] | None = None) -> SimulationResult:
        """Simulate and write the result file; ``progress(t)`` gets the simulated time."""
        result = simulate(
            self.network,
            self.workload,
            self.plan,
            self.options,
            trace=self.trace,
            changes=self.changes,
            progress=progress,
        )
        save_result(result, self.request.out)
        return result


def open_simulation(request: SimulateRequest) -> SimulationJob:
    """Read and check the files of ``request``; plan on the fly if asked.

    Parameters
    ----------
    request : SimulateRequest
        From :func:`simulate_request`.

    Returns
    -------
    SimulationJob
        Its ``options.duration`` is the run's (a trace's span when no duration was asked
        for); its ``notes`` (query types a trace never holds) are for the user.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from inev.topologies.io import save_network
    >>> from inev.workloads.io import save_workload
    >>> from inev.workloads.workload import Query
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> folder = tempfile.TemporaryDirectory()
    >>> files = {"network": pathlib.Path(folder.name, "n.json"),
    ...          "workload": pathlib.Path(folder.name, "w.json")}
    >>> save_network(net, files["network"])
    >>> save_workload(Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]), files["workload"])
    >>> out = pathlib.Path(folder.name, "r.json")
    >>> job = open_simulation(simulate_request(files, out, method="inev"))
    >>> job.plan.psi, job.options.duration, out.exists()       # nothing run yet
    (0.4, 100.0, False)
    >>> folder.cleanup()
    """
    files, options = request.files, request.options
    network = load_network(files["network"])
    workload = load_workload(files["workload"])
    workload.check_network(network, (files["workload"], files["network"]))
    if request.total_rate is not None:
        network = rescale_rates(network, workload.or_free.types, request.total_rate)
    if "plan" in files:
        plan = load_plan(files["plan"])
        names = (files["plan"], files["network"], files["workload"])
        check_plan_for(
            plan,
            network,
            workload,
            names=names,
            force=request.force,
            force_option=request.force_option,
        )
    else:
        plan = plan_workload(network, workload, request.method)
    trace, notes = None, []
    if "trace" in files:
        # sinks of return queries aggregate alone (no trends) unless capacity or changes
        # need their matches: size those queries as the run evaluates them
        alone = options.capacity is None and "changes" not in files
        sized = size_workload(workload) if alone else workload
        trace, notes = _trace_stream(sized, files["trace"], options.check)
        end = trace.end
        duration = max(options.duration, end) if request.duration_given else end
        options = replace(options, duration=duration)
    changes = load_changes(files["changes"]) if "changes" in files else []
    if changes:
        apply_changes(network, changes, files["changes"])  # a bad entry: refused naming the file
    return SimulationJob(request, network, workload, plan, options, trace, changes, notes)


def _trace_stream(workload: Workload, trace_file: Path, check: bool) -> tuple[TraceStream, list]:
    """A recorded trace, scanned and checked, as a stream; and its notes."""
    prepared = prepare(workload, trace_file, check=check)
    scan = prepared.scan
    # an empty trace (a header alone) spans no time: its scan's first and last times are
    # +inf and -inf, which would make the model's ψ × span -inf
    start, end = (scan.start, scan.end) if scan.rows else (0.0, 0.0)
    stream = TraceStream(lambda: ordered_chunks(prepared), end, scan.rows, scan.skipped, start)
    return stream, absent_types(workload, scan)
