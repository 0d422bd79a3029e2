"""Sweep specifications (TOML) and their expansion into tasks (grid point × seed).

A sweep file names a base configuration, the axes to vary, the methods to compare and the
number of seeds per point::

    name = "skew"
    seeds = 10                      # seeds 0 … 9 (``first_seed`` shifts them)
    methods = ["inev", "centralized", "ppop"]

    [base]                          # any key of DEFAULTS; the rest keep their defaults
    nodes = 20
    selectivity = 0.1

    [axes]                          # each axis: a list, or {start, stop, step} (stop included)
    skew = {start = 1.1, stop = 1.9, step = 0.2}
    selectivity = [0.1, 0.01, 0.001]

    [plot]                          # defaults for ``inev plot`` and the summary table
    x = "skew"
    lines = "selectivity"

The ``[plot]`` table (checked when the sweep starts, see :data:`PLOT_KEYS`): ``x`` and
``lines`` name parameters, ``y`` a metric or a list of metrics (the sweep's summary table
shows them), ``methods`` a subset of the sweep's methods, ``log`` and ``log_x`` log scales
for the vertical and horizontal axis, ``integer_x`` integer ticks on the horizontal axis
(default: for count parameters such as ``nodes`` or ``queries``), ``title`` and ``y_label``
text.

Every task is one grid point and one seed; the network and the workload of a task are
generated from that seed alone, so a row can be reproduced with ``inev network generate
--seed`` and ``inev workload generate --seed``, and the same spec gives the same numbers with
any parallelism.

>>> spec = parse_spec({"seeds": 2, "axes": {"skew": [1.1, 1.9]}})
>>> [(t.point["skew"], t.seed) for t in expand(spec)]
[(1.1, 0), (1.1, 1), (1.9, 0), (1.9, 1)]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError

DEFAULTS: dict[str, Any] = {
    # event network (INEv paper §7.1 defaults)
    "nodes": 20,
    "out_degree": 3.0,
    "event_types": 6,
    "skew": 1.3,
    "node_ratio": 0.5,
    "topology": "degree",
    # workload
    "queries": 1,
    "length": 6,
    "kleene": 0,
    "negation": 0,
    "selectivity": 0.1,
    "window": 1.0,
    # planning
    "latency_factor": 0.0,
    # dynamics (0 = none): share of types whose rates are swapped, relative rate noise,
    # links and nodes removed after planning
    "rate_swap": 0.0,
    "rate_variance": 0.0,
    "links_removed": 0,
    "nodes_removed": 0,
    # simulation (false = planning metrics only): the plans are also executed by the network
    # simulator for ``duration`` time units, on the network with its rates rescaled (same
    # proportions) so that the workload's types produce ``sim_rate`` events per time unit
    "simulate": False,
    "duration": 20.0,
    "sim_rate": 20.0,
    # overload (simulated rows only; 0 = off): every node gets ``capacity`` work units per
    # time unit, or, with ``overload``, the capacity that puts the busiest node of the
    # unlimited run at that share (capacity = auto:1/overload); ``latency_bound`` per node and
    # the ``shed`` strategy (none, pspice, random-pm, random-event, type-utility);
    # ``capacity_from = "centralized"``: ``overload`` is relative to the busiest node of the
    # centralized plan's unlimited run, and every method gets that same capacity
    "capacity": 0.0,
    "overload": 0.0,
    "capacity_from": "self",
    "latency_bound": 0.0,
    "shed": "none",
}
"""Every configuration key with its default; ``latency_factor = 0`` means no latency bound
for planning, ``capacity = overload = 0`` no processing capacity."""

PLOT_KEYS = {
    "x": "a parameter",
    "y": "a metric or a list of metrics",
    "lines": "a parameter",
    "methods": "a list of the sweep's methods",
    "log": "true or false",
    "log_x": "true or false",
    "integer_x": "true or false",
    "title": "text",
    "y_label": "text",
}
"""The keys of the ``[plot]`` table and what each takes."""

METHODS = ("inev", "centralized", "ppop", "isolated", "lower_bound")
"""Methods a sweep can compare (``lower_bound`` is the §7.2 bound, not a plan)."""


@dataclass(frozen=True)
class Task:
    """One grid point and one seed."""

    index: int
    point: dict[str, Any]
    seed: int
    methods: tuple[str, ...]
    task_id: str = field(default="")

    def config(self) -> dict[str, Any]:
        """The full configuration of the task (defaults, then the point)."""
        return {**DEFAULTS, **self.point}


@dataclass(frozen=True)
class SweepSpec:
    """A parsed sweep: base configuration, axes, methods, seeds and plot defaults."""

    name: str
    base: dict[str, Any]
    axes: dict[str, list[Any]]
    methods: tuple[str, ...]
    seeds: int
    first_seed: int = 0
    plot: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of tasks (points × seeds)."""
        return math.prod(len(v) for v in self.axes.values()) * self.seeds


def _check_value(key: str, value: Any, where: str) -> Any:
    default = DEFAULTS[key]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InevError(f"{where}: {key} must be true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise InevError(f"{where}: {key} must be an integer, got {value!r}")
        if value < 0:
            raise InevError(f"{where}: {key} must not be negative, got {value!r}")
        return value
    if isinstance(default, float):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise InevError(f"{where}: {key} must be a number, got {value!r}")
        if value < 0:
            raise InevError(f"{where}: {key} must not be negative, got {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise InevError(f"{where}: {key} must be a string, got {value!r}")
    return value


def _axis_values(key: str, raw: Any, where: str) -> list[Any]:
    if isinstance(raw, dict):
        try:
            start, stop, step = raw["start"], raw["stop"], raw["step"]
        except KeyError as exc:
            raise InevError(
                f"{where}: axis {key} range needs start, stop and step ({exc} missing)"
            ) from None
        if not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in (start, stop, step)
        ):
            raise InevError(f"{where}: axis {key} range bounds must be numbers")
        if step <= 0 or stop < start:
            raise InevError(f"{where}: axis {key} range needs step > 0 and stop >= start")
        count = math.floor((stop - start) / step + 1e-9) + 1
        values = [start + i * step for i in range(count)]
        if all(isinstance(v, int) for v in (start, stop, step)):
            values = [int(v) for v in values]
        else:
            values = [round(v, 10) for v in values]
    elif isinstance(raw, list):
        values = raw
    else:
        values = [raw]
    if not values:
        raise InevError(f"{where}: axis {key} has no values")
    return [_check_value(key, v, where) for v in values]


def parse_spec(document: dict[str, Any], origin: str = "sweep") -> SweepSpec:
    """Validate a sweep document (as read from TOML) into a :class:`SweepSpec`."""
    allowed = {"name", "seeds", "first_seed", "methods", "base", "axes", "plot", "metrics"}
    unknown = set(document) - allowed
    if unknown:
        raise InevError(
            f"{origin}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(allowed))})"
        )
    base_raw = document.get("base", {})
    axes_raw = document.get("axes", {})
    if not isinstance(base_raw, dict) or not isinstance(axes_raw, dict):
        raise InevError(f"{origin}: [base] and [axes] must be tables")
    base = {}
    for key, value in base_raw.items():
        if key not in DEFAULTS:
            raise InevError(f"{origin}: unknown parameter {key!r} in [base]")
        base[key] = _check_value(key, value, origin)
    axes = {}
    for key, value in axes_raw.items():
        if key not in DEFAULTS:
            raise InevError(f"{origin}: unknown parameter {key!r} in [axes]")
        axes[key] = _axis_values(key, value, origin)
    for point in _corners(base, axes):
        check_overload(point, origin)
    methods = document.get("methods", ["inev", "centralized"])
    if isinstance(methods, str):
        methods = [methods]
    if not isinstance(methods, list) or not methods:
        raise InevError(f"{origin}: methods must be a non-empty list")
    for m in methods:
        if m not in METHODS:
            raise InevError(f"{origin}: unknown method {m!r} (known: {', '.join(METHODS)})")
    seeds = document.get("seeds", 10)
    first = document.get("first_seed", 0)
    for key, value in (("seeds", seeds), ("first_seed", first)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < (1 if key == "seeds" else 0)
        ):
            raise InevError(
                f"{origin}: {key} must be a {'positive' if key == 'seeds' else 'non-negative'} integer"
            )
    plot = document.get("plot", {})
    if not isinstance(plot, dict):
        raise InevError(f"{origin}: [plot] must be a table")
    check_plot(plot, methods, origin)
    return SweepSpec(
        name=str(document.get("name", "sweep")),
        base=base,
        axes=axes,
        methods=tuple(dict.fromkeys(methods)),
        seeds=seeds,
        first_seed=first,
        plot=plot,
    )


def check_plot(plot: dict[str, Any], methods: list[str], origin: str = "sweep") -> None:
    """Refuse a ``[plot]`` table with an unknown key or a value of the wrong kind.

    >>> check_plot({"x": "skew", "y": ["ratio", "sim_ratio"], "log_x": True}, ["inev"])
    >>> check_plot({"y": "ration"}, ["inev"])
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: sweep: [plot] y: unknown metric 'ration' (did you mean 'ratio'?)
    """
    import difflib

    from inev.experiments.columns import METRICS as METRIC_COLUMNS

    for key, value in plot.items():
        if key not in PLOT_KEYS:
            close = difflib.get_close_matches(key, PLOT_KEYS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(PLOT_KEYS)}"
            raise InevError(f"{origin}: unknown [plot] key {key!r} ({hint})")
        wanted = PLOT_KEYS[key]
        if wanted == "true or false" and not isinstance(value, bool):
            raise InevError(f"{origin}: [plot] {key} must be true or false, got {value!r}")
        if wanted == "text" and not isinstance(value, str):
            raise InevError(f"{origin}: [plot] {key} must be text, got {value!r}")
        names: list[Any] = []
        if key in ("x", "lines"):
            names, known, what = [value], [*DEFAULTS, "seed", "method"], "parameter"
        elif key == "y":
            names = value if isinstance(value, list) else [value]
            known, what = list(METRIC_COLUMNS), "metric"
        elif key == "methods":
            names = value if isinstance(value, list) else [value]
            known, what = list(methods), "method of this sweep"
        for name in names:
            if not isinstance(name, str) or name not in known:
                close = difflib.get_close_matches(str(name), known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InevError(f"{origin}: [plot] {key}: unknown {what} {name!r}{hint}")


def _corners(base: dict[str, Any], axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the overload keys' values (the other keys do not interact)."""
    keys = [
        k for k in ("capacity", "overload", "latency_bound", "shed", "capacity_from") if k in axes
    ]
    out = []
    for values in itertools.product(*(axes[k] for k in keys)):
        out.append({**DEFAULTS, **base, **dict(zip(keys, values, strict=True))})
    return out


def check_overload(point: dict[str, Any], origin: str = "sweep") -> None:
    """Refuse inconsistent overload settings (unknown strategy, shedding without a bound or
    a capacity, both ``capacity`` and ``overload``)."""
    from inev.simulator.engine.shedding.shedders import STRATEGIES

    shed = point.get("shed", "none")
    if shed not in STRATEGIES:
        raise InevError(f"{origin}: unknown shed strategy {shed!r} ({', '.join(STRATEGIES)})")
    if point.get("capacity_from", "self") not in ("self", "centralized"):
        raise InevError(f"{origin}: capacity_from must be self or centralized")
    capacity, overload = point.get("capacity", 0.0), point.get("overload", 0.0)
    if capacity > 0 and overload > 0:
        raise InevError(f"{origin}: give capacity or overload, not both")
    limited = capacity > 0 or overload > 0
    if (shed != "none" or point.get("latency_bound", 0.0) > 0) and not limited:
        raise InevError(f"{origin}: shed and latency_bound need capacity or overload")
    if shed != "none" and not point.get("latency_bound", 0.0) > 0:
        raise InevError(f"{origin}: shed {shed} needs latency_bound > 0")
    if limited and not point.get("simulate", False):
        raise InevError(f"{origin}: capacity and overload need simulate = true")


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep TOML file."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError:
        raise InevError(f"{name}: no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InevError(f"{name}: invalid TOML: {exc}") from None
    return parse_spec(document, origin=name)


def task_id(point: dict[str, Any], seed: int) -> str:
    """A stable identifier of (configuration, seed): resumed runs recognise finished tasks."""
    text = json.dumps({"point": {**DEFAULTS, **point}, "seed": seed}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand(spec: SweepSpec) -> list[Task]:
    """All tasks of the sweep: the cartesian product of the axes (in file order) × seeds."""
    keys = list(spec.axes)
    tasks = []
    for values in itertools.product(*(spec.axes[k] for k in keys)):
        point = {**DEFAULTS, **spec.base, **dict(zip(keys, values, strict=True))}
        for seed in range(spec.first_seed, spec.first_seed + spec.seeds):
            tasks.append(Task(len(tasks), point, seed, spec.methods, task_id(point, seed)))
    return tasks
