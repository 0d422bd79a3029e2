"""Sweep specifications (TOML) and their expansion into tasks (grid point × seed).

A sweep file's keys are the fields of :class:`SweepSpec` (:func:`load_spec` reads one). Every
task is one grid point and one seed; its network and workload are generated from that seed
alone, so a row can be reproduced with ``inev network generate --seed`` and ``inev workload
generate --seed``, and the same spec gives the same numbers with any parallelism."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.files import json_depth
from inev.experiments.plot_options import MAX_PLOT_TEXT, PLOT_KEYS
from inev.experiments.sweep_parameters import (
    CHOICES,
    DEFAULTS,
    LIMITS,
    LOWER,
    MAX_VALUE,
    TaskConfig,
)

MAX_SPEC_BYTES = 1_000_000
"""The largest sweep file read."""


MAX_AXIS_VALUES = 10_000
"""The most values one axis may list or a range may expand to."""
MAX_SEEDS = 1_000_000
"""The most seeds per grid point."""
MAX_TASKS = 1_000_000
"""The most tasks a sweep may have (each task is a row per method in memory and on disk)."""
CONFIRM_TASKS = 10_000
"""Above this many tasks ``inev sweep`` asks first (``--yes`` skips that; the largest preset: 1,500)."""

METHODS = ("inev", "centralized", "ppop", "ppop-flouris", "isolated", "lower_bound")
"""Methods a sweep can compare (``lower_bound`` is the §7.2 bound, not a plan)."""


@dataclass(frozen=True)
class Task:
    """One grid point and one seed."""

    index: int
    point: dict[str, Any]
    seed: int
    methods: tuple[str, ...]
    task_id: str = field(default="")

    def config(self) -> TaskConfig:
        """The full configuration of the task (defaults, then the point)."""
        return TaskConfig.from_mapping(self.point)


@dataclass(frozen=True)
class SweepSpec:
    """A parsed sweep: base configuration, axes, methods, seeds and plot defaults.

    Parameters
    ----------
    name, methods, base, axes : str, tuple of str, dict, dict
        The name (default ``sweep``); methods (:data:`METHODS`); keys of :data:`DEFAULTS` to
        change; per axis its values (a list, or ``{start, stop, step}``, stop included).
    seeds, first_seed, plot : int, int, dict
        Seeds ``first_seed`` … ``first_seed + seeds − 1`` per grid point; the ``[plot]`` table,
        defaults of ``inev plot`` (:data:`~inev.experiments.plot_options.PLOT_KEYS`,
        :func:`check_plot`, docs/spec-extensions.md).

    Examples
    --------
    >>> spec = parse_spec({"seeds": 2, "axes": {"skew": [1.1, 1.9]}})
    >>> [(t.point["skew"], t.seed) for t in expand(spec)], spec.size
    ([(1.1, 0), (1.1, 1), (1.9, 0), (1.9, 1)], 4)
    """

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
    checked = _typed_value(key, value, where)
    limit = LIMITS.get(key, MAX_VALUE)
    if isinstance(checked, int | float) and not isinstance(checked, bool) and checked > limit:
        raise InevError(f"{where}: {key} = {_shown(checked)} is more than the {limit:,g} allowed")
    if isinstance(checked, str) and len(checked) > 1000:
        raise InevError(f"{where}: {key} is longer than 1,000 characters")
    if key in CHOICES and checked not in CHOICES[key]:
        raise InevError(f"{where}: {key} must be one of {', '.join(CHOICES[key])}, got {checked!r}")
    if key in LOWER:
        bound, included = LOWER[key]
        if checked < bound or (checked == bound and not included):
            wanted = f"at least {bound:g}" if included else f"more than {bound:g}"
            raise InevError(f"{where}: {key} must be {wanted}, got {_shown(checked)}")
    return checked


def _shown(value: Any) -> str:
    if isinstance(value, int) and abs(value) > 10**15:
        return f"an integer of {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
    return repr(value)


def _typed_value(key: str, value: Any, where: str) -> Any:
    default = DEFAULTS[key]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InevError(f"{where}: {key} must be true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and 0 <= value <= 2**63:
                return int(value)
            raise InevError(f"{where}: {key} must be an integer, got {_shown(value)}")
        if value < 0:
            raise InevError(f"{where}: {key} must not be negative, got {_shown(value)}")
        return value
    if isinstance(default, float):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, int) and abs(value) > MAX_VALUE)  # isfinite would overflow
            or not math.isfinite(value)
        ):
            raise InevError(f"{where}: {key} must be a finite number, got {_shown(value)}")
        if value < 0:
            raise InevError(f"{where}: {key} must not be negative, got {_shown(value)}")
        return float(value)
    if not isinstance(value, str):
        raise InevError(f"{where}: {key} must be a string, got {value!r}")
    return value


def _axis_values(key: str, raw: Any, where: str) -> list[Any]:
    """The checked, distinct values of axis ``key``: a range table, a list or one value."""
    if isinstance(raw, dict):
        values = _range_values(key, raw, where)
    elif isinstance(raw, list):
        values = raw
        if len(values) > MAX_AXIS_VALUES:
            raise InevError(f"{where}: axis {key} lists more than {MAX_AXIS_VALUES:,} values")
    else:
        values = [raw]
    if not values:
        raise InevError(f"{where}: axis {key} has no values")
    checked = [_check_value(key, v, where) for v in values]
    _check_distinct(key, checked, where)
    return checked


def _range_values(key: str, raw: dict[str, Any], where: str) -> list[Any]:
    """The values of an axis given as ``{start, stop, step}`` (stop included, bounded count)."""
    unknown = set(raw) - {"start", "stop", "step"}
    if unknown:
        raise InevError(f"{where}: axis {key} range has unknown key {sorted(unknown)[0]!r}")
    try:
        start, stop, step = raw["start"], raw["stop"], raw["step"]
    except KeyError as exc:
        raise InevError(
            f"{where}: axis {key} range needs start, stop and step ({exc} missing)"
        ) from None
    if not all(
        isinstance(v, int | float) and not isinstance(v, bool) and abs(v) <= MAX_VALUE
        for v in (start, stop, step)
    ) or not all(math.isfinite(v) for v in (start, stop, step)):
        raise InevError(
            f"{where}: axis {key} range bounds must be finite numbers of at most {MAX_VALUE:g}"
        )
    if not step > 0 or stop < start:
        raise InevError(f"{where}: axis {key} range needs step > 0 and stop >= start")
    span = (stop - start) / step
    if span >= MAX_AXIS_VALUES:
        raise InevError(f"{where}: axis {key} range has more than {MAX_AXIS_VALUES:,} values")
    count = math.floor(span + 1e-9) + 1
    values = [start + i * step for i in range(count)]
    if all(isinstance(v, int) for v in (start, stop, step)):
        return [int(v) for v in values]
    return [round(v, 10) for v in values]


def _check_distinct(key: str, checked: list[Any], where: str) -> None:
    """Refuse an axis listing a value twice (one table row would stand for two runs)."""
    seen: set[Any] = set()
    for value in checked:
        if value in seen:
            raise InevError(f"{where}: axis {key} lists {value!r} twice")
        seen.add(value)


_DOCUMENT_KEYS = (
    "name",
    "seeds",
    "first_seed",
    "methods",
    "base",
    "axes",
    "plot",
    "metrics",
    "note",
    "quick",
)


def parse_spec(document: dict[str, Any], origin: str = "sweep") -> SweepSpec:
    """Validate a sweep document (as read from TOML) into a :class:`SweepSpec`.

    The checks run in a fixed order (keys, parameters, overload corners, note, ``[quick]``,
    name, methods, seeds, plot, task count), so a document with several faults always
    gets the same first error.

    Parameters
    ----------
    document : dict
    origin : str

    Returns
    -------
    SweepSpec

    Examples
    --------
    >>> parse_spec({"methods": ["inev", "fast"]}, "s.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    inev.common.errors.InevError: s.toml: unknown method 'fast' (known: inev, ...)
    """
    unknown = set(document) - set(_DOCUMENT_KEYS)
    if unknown:
        known = ", ".join(sorted(_DOCUMENT_KEYS))
        raise InevError(f"{origin}: unknown key {sorted(unknown)[0]!r} (known: {known})")
    base, axes = _parameters(document, origin)
    for point in _corners(base, axes):
        check_overload(point, origin)
    _check_epochs(base, axes, origin)
    note = document.get("note", "")
    if not isinstance(note, str) or len(note) > 5_000:
        raise InevError(f"{origin}: note must be text of at most 5,000 characters")
    if "quick" in document:
        parse_spec(quick_document(document, origin), origin=f"{origin} [quick]")
    name = document.get("name", "sweep")
    if not isinstance(name, str) or not name or len(name) > 200:
        raise InevError(f"{origin}: name must be a string of 1 to 200 characters")
    methods = _methods(document, origin)
    seeds, first = _seeds(document, origin)
    plot = document.get("plot", {})
    if not isinstance(plot, dict):
        raise InevError(f"{origin}: [plot] must be a table")
    check_plot(plot, methods, origin)
    _check_tasks(axes, seeds, origin)
    return SweepSpec(
        name=name,
        base=base,
        axes=axes,
        methods=tuple(dict.fromkeys(methods)),
        seeds=seeds,
        first_seed=first,
        plot=plot,
    )


def _parameters(
    document: dict[str, Any], origin: str
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The checked ``[base]`` values and ``[axes]`` value lists of a sweep document."""
    base_raw = document.get("base", {})
    axes_raw = document.get("axes", {})
    if not isinstance(base_raw, dict) or not isinstance(axes_raw, dict):
        raise InevError(f"{origin}: [base] and [axes] must be tables")
    base = {}
    for key, value in base_raw.items():
        _known_parameter(key, "base", origin)
        base[key] = _check_value(key, value, origin)
    axes = {}
    for key, value in axes_raw.items():
        _known_parameter(key, "axes", origin)
        axes[key] = _axis_values(key, value, origin)
    return base, axes


def _known_parameter(key: str, table: str, origin: str) -> None:
    """Refuse a parameter the sweep does not know, with the closest known one and all of them.

    >>> _known_parameter("skw", "axes", "s.toml")
    Traceback (most recent call last):
    inev.common.errors.InevError: s.toml: unknown parameter 'skw' in [axes] (did you mean 'skew'?); known: ...
    """
    if key in DEFAULTS:
        return
    hint = _suggestion(key, list(DEFAULTS))
    raise InevError(
        f"{origin}: unknown parameter {_clipped(key)} in [{table}]"
        + (f" ({hint})" if hint else "")
        + f"; known: {', '.join(sorted(DEFAULTS))}"
    )


def _methods(document: dict[str, Any], origin: str) -> list[str]:
    """The document's methods as a non-empty list of known method names (one name allowed)."""
    methods = document.get("methods", ["inev", "centralized"])
    if isinstance(methods, str):
        methods = [methods]
    if not isinstance(methods, list) or not methods:
        raise InevError(f"{origin}: methods must be a non-empty list")
    for m in methods:
        if not isinstance(m, str) or m not in METHODS:
            shown = m if isinstance(m, str) else type(m).__name__
            raise InevError(f"{origin}: unknown method {shown!r} (known: {', '.join(METHODS)})")
    return methods


def _seeds(document: dict[str, Any], origin: str) -> tuple[int, int]:
    """The document's ``seeds`` (1 to :data:`MAX_SEEDS`) and ``first_seed`` (non-negative)."""
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
    if seeds > MAX_SEEDS:
        raise InevError(f"{origin}: seeds = {_shown(seeds)} is more than the {MAX_SEEDS:,} allowed")
    if first + seeds > 2**63:
        raise InevError(f"{origin}: first_seed + seeds must stay below 2^63")
    return seeds, first


def _check_tasks(axes: dict[str, list[Any]], seeds: int, origin: str) -> None:
    """Refuse a sweep of more than :data:`MAX_TASKS` tasks (grid points x seeds)."""
    tasks = math.prod(len(v) for v in axes.values()) * seeds
    if tasks > MAX_TASKS:
        raise InevError(
            f"{origin}: {tasks:,} tasks (grid points x seeds) are more than the {MAX_TASKS:,} "
            "a sweep may have"
        )


def quick_document(document: dict[str, Any], origin: str = "sweep") -> dict[str, Any]:
    """The sweep document at its ``[quick]`` scale (for tests and ``inev reproduce --quick``).

    The ``[quick]`` table may set ``seeds``, and ``base`` and ``axes`` tables whose keys
    replace those of the document (an axis listed there replaces the whole axis). A document
    without it is returned unchanged.

    >>> doc = {"seeds": 50, "axes": {"skew": [1.1, 1.5, 1.9]}, "quick": {"seeds": 2,
    ...        "axes": {"skew": [1.1, 1.9]}}}
    >>> quick = quick_document(doc)
    >>> quick["seeds"], quick["axes"], "quick" in quick
    (2, {'skew': [1.1, 1.9]}, False)
    """
    quick = document.get("quick")
    out = {k: v for k, v in document.items() if k != "quick"}
    if quick is None:
        return out
    if not isinstance(quick, dict):
        raise InevError(f"{origin}: [quick] must be a table")
    unknown = set(quick) - {"seeds", "base", "axes"}
    if unknown:
        raise InevError(f"{origin}: unknown [quick] key {sorted(unknown)[0]!r} (seeds, base, axes)")
    for part in ("base", "axes"):
        if not isinstance(quick.get(part, {}), dict) or not isinstance(out.get(part, {}), dict):
            raise InevError(f"{origin}: [quick.{part}] and [{part}] must be tables")
        if part in quick:
            out[part] = {**out.get(part, {}), **quick[part]}
    if "seeds" in quick:
        out["seeds"] = quick["seeds"]
    return out


def check_plot(plot: Any, methods: Sequence[str], origin: str = "sweep") -> None:
    """Refuse a ``[plot]`` table with an unknown key or a value of the wrong kind.

    Names (``x``, ``lines``, ``y``, ``methods``) must be known columns, metrics or methods of
    the sweep (a misspelling gets a suggestion); ``y`` may be one metric or a non-empty list,
    ``methods`` is a list; text is at most
    :data:`~inev.experiments.plot_options.MAX_PLOT_TEXT` characters. Both the sweep and ``inev
    plot`` (on the spec stored in a results folder) check the table here.

    >>> check_plot({"x": "skew", "y": ["ratio", "sim_ratio"], "log_x": True}, ["inev"])
    >>> check_plot({"y": "ration"}, ["inev"])
    Traceback (most recent call last):
    inev.common.errors.InevError: sweep: [plot] y: unknown metric 'ration' (did you mean 'ratio'?)
    """
    if not isinstance(plot, dict):
        raise InevError(f"{origin}: [plot] must be a table")
    for key, value in plot.items():
        _check_plot_kind(key, value, origin)
        listed = value if isinstance(value, list) else [value]
        names, known, what = _plot_names(key, value, listed, plot, methods)
        for name in names:
            if not isinstance(name, str) or name not in known:
                hint = _suggestion(name, known)
                hint = f" ({hint})" if hint else ""
                raise InevError(f"{origin}: [plot] {key}: unknown {what} {_clipped(name)}{hint}")


def _suggestion(name: Any, known: Sequence[str]) -> str:
    """``did you mean 'x'?`` for the closest of ``known`` to ``name``, or empty text."""
    import difflib

    close = difflib.get_close_matches(str(name)[:MAX_PLOT_TEXT], known, n=1)
    return f"did you mean {close[0]!r}?" if close else ""


def _check_plot_kind(key: Any, value: Any, origin: str) -> None:
    """Refuse an unknown ``[plot]`` key or a value of the wrong kind or length."""
    if key not in PLOT_KEYS:
        hint = _suggestion(key, list(PLOT_KEYS)) or f"known: {', '.join(PLOT_KEYS)}"
        raise InevError(f"{origin}: unknown [plot] key {_clipped(key)} ({hint})")
    wanted = PLOT_KEYS[key]
    if wanted == "true or false" and not isinstance(value, bool):
        raise InevError(f"{origin}: [plot] {key} must be true or false, got {_clipped(value)}")
    if wanted == "text" and not isinstance(value, str):
        raise InevError(f"{origin}: [plot] {key} must be text, got {_clipped(value)}")
    if key in ("stat", "interval") and value not in wanted.split(" or "):
        raise InevError(f"{origin}: [plot] {key} must be {wanted}, got {_clipped(value)}")
    if key == "methods" and not isinstance(value, list):
        raise InevError(f"{origin}: [plot] methods must be a list, got {_clipped(value)}")
    if key == "y" and value == []:
        raise InevError(f"{origin}: [plot] y must name at least one metric")
    listed = value if isinstance(value, list) else [value]
    if any(isinstance(v, str) and len(v) > MAX_PLOT_TEXT for v in listed):
        raise InevError(f"{origin}: [plot] {key} is longer than {MAX_PLOT_TEXT} characters")


def _plot_names(
    key: str, value: Any, listed: list[Any], plot: dict[str, Any], methods: Sequence[str]
) -> tuple[list[Any], list[str], str]:
    """The names a ``[plot]`` entry gives, the names it may give, and what they are."""
    from inev.experiments.columns import METRICS as METRIC_COLUMNS

    if key == "x" and plot.get("scatter"):
        return [value], [*DEFAULTS, *METRIC_COLUMNS], "parameter or metric"
    if key in ("x", "lines"):
        return [value], [*DEFAULTS, "seed", "method"], "parameter"
    if key == "y":
        return listed, list(METRIC_COLUMNS), "metric"
    if key == "methods":
        return listed, list(methods), "method of this sweep"
    return [], [], ""


def _clipped(value: Any) -> str:
    """``repr(value)`` cut to 60 characters (a message stays one short line)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**15 else _shown(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _corners(base: dict[str, Any], axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the overload keys' values (the other keys do not interact)."""
    keys = [
        k for k in ("capacity", "overload", "latency_bound", "shed", "capacity_from") if k in axes
    ]
    out = []
    for values in itertools.product(*(axes[k] for k in keys)):
        out.append({**DEFAULTS, **base, **dict(zip(keys, values, strict=True))})
    return out


def _check_epochs(base: dict[str, Any], axes: dict[str, list[Any]], origin: str) -> None:
    """Refuse rates varying over the run by more than their estimate (a negative rate).

    >>> _check_epochs({"variance_epochs": 10}, {"rate_variance": [0.5, 1.5]}, "s")
    Traceback (most recent call last):
    inev.common.errors.InevError: s: with variance_epochs, rate_variance is a share of the estimate: at most 1, got 1.5
    """
    epochs = axes.get("variance_epochs", [base.get("variance_epochs", DEFAULTS["variance_epochs"])])
    variances = axes.get("rate_variance", [base.get("rate_variance", DEFAULTS["rate_variance"])])
    if max(epochs) > 0 and max(variances) > 1:
        raise InevError(
            f"{origin}: with variance_epochs, rate_variance is a share of the estimate: "
            f"at most 1, got {max(variances)!r}"
        )


def check_overload(point: dict[str, Any], origin: str = "sweep") -> None:
    """Refuse an unknown strategy, shedding without bound or capacity, capacity with overload."""
    from inev.simulator.engine.shedding.shedders import STRATEGIES

    task = {**DEFAULTS, **point}  # a key the point leaves out takes the task's default
    shed, bound = task["shed"], task["latency_bound"]
    if shed not in STRATEGIES:
        raise InevError(f"{origin}: unknown shed strategy {shed!r} ({', '.join(STRATEGIES)})")
    if task["capacity_from"] not in ("self", "centralized"):
        raise InevError(f"{origin}: capacity_from must be self or centralized")
    capacity, overload = task["capacity"], task["overload"]
    if capacity > 0 and overload > 0:
        raise InevError(f"{origin}: give capacity or overload, not both")
    limited = capacity > 0 or overload > 0
    if (shed != "none" or bound > 0) and not limited:
        raise InevError(f"{origin}: shed and latency_bound need capacity or overload")
    if shed != "none" and not bound > 0:
        raise InevError(f"{origin}: shed {shed} needs latency_bound > 0")
    if limited and not task["simulate"]:
        raise InevError(f"{origin}: capacity and overload need simulate = true")


def read_spec_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML document of a sweep file (one-line :class:`InevError` if unreadable: missing,
    a folder, over a megabyte, not UTF-8, invalid TOML, nested too deeply)."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            raw = handle.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise InevError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InevError(f"{name}: is a folder, not a file") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise InevError(f"{name}: a sweep file may have at most {MAX_SPEC_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InevError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    return parse_spec_text(text, name)


def parse_spec_text(text: str, origin: str) -> dict[str, Any]:
    """The TOML document of a sweep file's text (see :func:`read_spec_document`)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InevError(f"{origin}: invalid TOML: {exc}") from None
    except RecursionError:
        raise InevError(f"{origin}: nested too deeply") from None
    except ValueError as exc:  # an integer longer than Python converts
        raise InevError(f"{origin}: invalid TOML: {str(exc).splitlines()[0]}") from None
    if json_depth(document, 10) > 10:
        raise InevError(f"{origin}: nested too deeply (a sweep file needs 3 levels)")
    return document


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep TOML file.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    SweepSpec

    Examples
    --------
    >>> import pathlib, tempfile
    >>> text = '''name = "skew"
    ... axes = {skew = {start = 1.1, stop = 1.9, step = 0.4}}'''
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = pathlib.Path(folder, "skew.toml").write_text(text)
    ...     spec = load_spec(pathlib.Path(folder, "skew.toml"))
    >>> spec.name, spec.axes, spec.size     # 10 seeds by default
    ('skew', {'skew': [1.1, 1.5, 1.9]}, 30)
    """
    return parse_spec(read_spec_document(path), origin=os.fspath(path))


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
