"""``inev simulate`` as library functions: flags to one checked request, files to a result.

The command (:mod:`inev.simulator.cli`) only parses its flags and prints; what it decides
lives here, so a notebook or a test runs the same job without click:

:func:`simulate_request`
    The command's arguments and flag values checked and turned into one
    :class:`SimulateRequest` (its :class:`~inev.simulator.options.SimulationOptions` with the
    :class:`~inev.simulator.capacity.CapacityOptions` of ``--capacity``); a bad combination is
    one :class:`~inev.common.errors.InevError` before any file is read.
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
>>> request = simulate_request(
...     {"network": tmp / "net.json", "workload": tmp / "wl.json"}, tmp / "sim.json",
...     {"method": "inev", "duration": 20.0, "seed": 1})
>>> result = open_simulation(request).run()
>>> result.matches["q"] == result.centralized_matches["q"], (tmp / "sim.json").exists()
(True, True)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from inev.common.errors import InevError
from inev.common.paths import check_paths
from inev.planner import METHODS, Plan, load_plan, plan_workload
from inev.planner.fingerprint import check_plan_for
from inev.planner.repair import apply_changes, load_changes
from inev.simulator.aggregation import size_workload
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.engine.replay import absent_types, ordered_chunks, prepare
from inev.simulator.engine.shedding.node_queue import shedding_strategy
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

DEFAULT_FLAGS: Mapping[str, Any] = {
    "method": None,
    "total_rate": None,
    "force": False,
    "duration": 100.0,
    "duration_given": False,
    "seed": 0,
    "bandwidth": None,
    "engine_plan": "greedy",
    "adaptive": "invariant",
    "no_size_check": False,
    "capacity": (),
    "latency_bound": None,
    "shed": None,
    "cost_per_unit": 1.0,
    "safety": None,
    "stage_slack": None,
    "timeline_bin": None,
}
"""``inev simulate``'s flag values when none is given (``duration_given``: whether the user
set ``--duration``, which a replayed trace then only extends)."""


@dataclass(frozen=True)
class SimulateRequest:
    """One checked ``inev simulate`` job.

    Attributes
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
    """

    files: Mapping[str, Path]
    out: Path
    options: SimulationOptions
    method: str | None = None
    total_rate: float | None = None
    force: bool = False
    duration_given: bool = False


def simulate_request(
    files: Mapping[str, Path | None], out: Path, flags: Mapping[str, Any]
) -> SimulateRequest:
    """The :class:`SimulateRequest` of ``inev simulate``'s arguments and flag values.

    Parameters
    ----------
    files : mapping
        Paths by :data:`FILES` name (``None`` or absent: not given).
    out : path
        The result file (checked: not one of the inputs).
    flags : mapping
        Flag values by the command's parameter names (:data:`DEFAULT_FLAGS`).

    Returns
    -------
    SimulateRequest

    Examples
    --------
    >>> simulate_request({"network": "n", "workload": "w", "plan": "p"}, "o", {"method": "inev"})
    Traceback (most recent call last):
    inev.common.errors.InevError: give either a plan file or --method, not both
    """
    unknown = (set(flags) - set(DEFAULT_FLAGS)) | (set(files) - set(FILES))
    if unknown:
        raise TypeError(f"simulate_request: unknown names {', '.join(sorted(unknown))}")
    f = {**DEFAULT_FLAGS, **flags}
    given = {k: v for k, v in files.items() if v is not None}
    if "plan" in given and f["method"]:
        raise InevError("give either a plan file or --method, not both")
    if f["total_rate"] is not None and not f["method"]:
        raise InevError("--total-rate needs --method (a plan file was made for other rates)")
    if "plan" not in given and not f["method"]:
        raise InevError("give a plan file or --method to plan on the fly")
    if f["method"] is not None and f["method"] not in METHODS:
        raise InevError(f"unknown planning method {f['method']!r} ({', '.join(METHODS)})")
    check_paths({k: files.get(k) for k in FILES}, out)
    return SimulateRequest(
        files=given,
        out=out,
        options=simulation_options(f),
        method=f["method"],
        total_rate=f["total_rate"],
        force=f["force"],
        duration_given=f["duration_given"],
    )


def simulation_options(flags: Mapping[str, Any]) -> SimulationOptions:
    """The :class:`SimulationOptions` of ``inev simulate``'s flag values (missing: defaults).

    >>> simulation_options({"capacity": ("auto:0.5",), "latency_bound": 2.0}).capacity.shed
    'pspice'
    >>> simulation_options({"safety": 1.0})
    Traceback (most recent call last):
    inev.common.errors.InevError: --safety needs --capacity and --latency-bound
    """
    f = {**DEFAULT_FLAGS, **flags}
    return SimulationOptions(
        duration=f["duration"],
        seed=f["seed"],
        bandwidth=f["bandwidth"],
        engine_plan=f["engine_plan"],
        adaptation=f["adaptive"],
        check=not f["no_size_check"],
        capacity=capacity_options(f),
        timeline_bin=f["timeline_bin"],
    )


def capacity_options(flags: Mapping[str, Any]) -> CapacityOptions | None:
    """The :class:`CapacityOptions` of the flags (``None`` without ``--capacity``); the
    ``--safety`` margin in time units becomes a share of the bound, ``--seed`` seeds the
    random shedders."""
    f = {**DEFAULT_FLAGS, **flags}
    capacity, bound = tuple(f["capacity"]), f["latency_bound"]
    strategy = shedding_strategy(bool(capacity), f["shed"], bound)
    if not capacity:
        if f["safety"] is not None:
            raise InevError("--safety needs --capacity and --latency-bound")
        return None
    share = 0.1
    if f["safety"] is not None:
        if bound is None or not 0 <= f["safety"] < bound:
            raise InevError("--safety needs --latency-bound and must lie in [0, bound)")
        share = f["safety"] / bound
    return CapacityOptions(
        parse_node_capacities(capacity),
        latency_bound=bound,
        shed=strategy,
        cost_per_unit=f["cost_per_unit"],
        stage_slack=f["stage_slack"],
        safety=share,
        seed=f["seed"],
    )


@dataclass(frozen=True)
class SimulationJob:
    """A request with its files read and checked; :meth:`run` simulates and writes."""

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
    """
    files, options = request.files, request.options
    network = load_network(files["network"])
    workload = load_workload(files["workload"])
    workload.check_network(network, (files["workload"], files["network"]))
    if request.total_rate is not None:
        network = rescale_rates(network, workload.split_or().types, request.total_rate)
    if "plan" in files:
        plan = load_plan(files["plan"])
        names = (files["plan"], files["network"], files["workload"])
        check_plan_for(
            plan, network, workload, names=names, force=request.force, force_option="--force"
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
