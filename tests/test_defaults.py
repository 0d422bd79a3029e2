"""Each default is written once (issue 47): a setting's default value lives in its home, and
every other place (the generator's signature, the command's ``--flag``, the sweep's
``DEFAULTS``) names it from there.

:data:`SETTINGS` lists the settings held to this and their homes: the network generator's
(:data:`inev.topologies.generator_options.NETWORK_DEFAULTS`), the trace generator's
(:data:`inev.topologies.trace_generator.TRACE_DEFAULTS`), the workload generator's
(:data:`inev.workloads.generator_options.WORKLOAD_DEFAULTS`, and ``VARIANT_DEFAULTS`` of the
paper figures' workload variants; a workload's tie rule in :mod:`inev.workloads.workload`), the
planner's (:data:`inev.planner.options.PLAN_DEFAULTS`) and a sweep task's own
(:class:`inev.experiments.sweep_parameters.TaskConfig`: dynamics, simulation, overload; its
fields are the task's configuration, read as ``config.overload``), the
simulator's ``duration``, the engine's re-optimisation knobs (:data:`ENGINE_ADAPTATION`), the
engines' plan generator and re-optimisation kind (:mod:`inev.simulator.engine.engine_options`),
the node queue's cost per work unit (:mod:`inev.simulator.engine.shedding`) and the Spark master
(:mod:`inev.experiments.spark`). A *definition* of a setting is a literal value given to its
name: a function parameter's default (``nodes: int = 20``), a class field (``nodes: int = 20``),
a dict entry (``"nodes": 20``), a command option's default (``click.option("--nodes",
default=20)``), a lookup's fallback (``config.get("nodes", 20)``) or a module constant
(``DEFAULT_NODES = 20`` or ``NODES = 20`` define ``nodes``). A setting may go by two names
(:data:`ALIASES`). A definition of a listed setting with its default value outside its home
fails: it is a second source that can drift (save :data:`MIRRORS`). A definition with another
value is another setting of the same name (the trace's ``skew`` 0.5 is not the network's 1.3)
and is left alone.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

from inev.experiments.plot_options import DEFAULT_Y
from inev.experiments.spark import DEFAULT_MASTER
from inev.experiments.sweep_parameters import DEFAULTS as SWEEP_DEFAULTS
from inev.planner.options import DEFAULT_METHOD, PLAN_DEFAULTS
from inev.simulator.engine.engine_options import (
    BASIC_K,
    DEFAULT_ADAPTATION,
    DEFAULT_ENGINE_PLAN,
    ZSTREAM_K,
    Adaptation,
)
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.options import SimulationOptions
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.trace_generator import TRACE_DEFAULTS
from inev.workloads.generator_options import VARIANT_DEFAULTS, WORKLOAD_DEFAULTS
from inev.workloads.workload import DEFAULT_SELECTIVITY_SEED, DEFAULT_TIES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["common", "topologies", "workloads", "planner", "simulator", "experiments"]
UNLISTED = {"seed"}
"""Names too common to hold to one value (``seed: int = 0`` is every generator's)."""
ENGINE_ADAPTATION = {
    f.name: f.default
    for f in dataclasses.fields(Adaptation)
    if f.name not in ("kind", "span")  # "off" and None: not a value held by a name alone
}
"""The engine's re-optimisation knobs (K, distance, threshold, checks, sampling, selection):
their defaults live in :class:`~inev.simulator.engine.engine_options.Adaptation`."""
ALIASES = {"plan": "engine_plan", "adaptive": "adaptation"}
"""Other names of a listed setting: the engine's ``plan`` is the simulator's ``engine_plan``,
and the commands' ``--adaptive`` flag the options' ``adaptation``."""
MIRRORS = {
    ("simulator/capacity.py", "shed"),
    ("simulator/engine/shedding/shedders.py", "threshold"),
    ("planner/repair_search.py", "regional"),
    ("experiments/case_study.py", "out_degree"),
    ("experiments/sweep_parameters.py", "operator_share"),
    ("simulator/engine/events.py", "selectivity_seed"),
}
"""``(file, name)`` of definitions that mirror a later layer's home and cannot name it: the
simulator's ``CapacityOptions.shed`` is the sweep task's ``shed`` default, but the simulator
may not import ``experiments`` (and the sweep's naming it from ``CapacityOptions`` would load
the engine, 0.19 s, with every sweep file read). And definitions of another setting that has
the same name and value: pSPICE's retraining ``threshold`` 0.5 is not the threshold
re-optimisation's; the repair's ``REGIONAL`` step (whether it runs the regional pass) is not
the planner's ``regional`` option, and the case study's ``OUT_DEGREE`` is the paper's §7.3
network, held at 3 whatever the generator's default; the sweep's ``LIMITS["operator_share"]``
1.0 is the largest share a task may ask for, not its default. The engine's
``DEFAULT_SELECTIVITY_SEED`` mirrors the workload's: the engine works alone and imports no
workload."""


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same kind (``True`` is not ``1``; ``3`` is ``3.0``)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _settings() -> dict[str, list[tuple[str, Any]]]:
    """``{name: [(home, default), ...]}`` of every listed setting (the trace's node count and
    node ratio are the network's, so their home is the network's)."""
    found: dict[str, list[tuple[str, Any]]] = {}
    for home, defaults in (
        ("topologies/generator_options.py", NETWORK_DEFAULTS),
        ("topologies/trace_generator.py", TRACE_DEFAULTS),
        ("workloads/generator_options.py", WORKLOAD_DEFAULTS),
        ("workloads/generator_options.py", VARIANT_DEFAULTS),
        (
            "workloads/workload.py",
            {"ties": DEFAULT_TIES, "selectivity_seed": DEFAULT_SELECTIVITY_SEED},
        ),
        ("planner/options.py", PLAN_DEFAULTS),
        ("planner/options.py", {"method": DEFAULT_METHOD}),
        ("experiments/plot_options.py", {"y": DEFAULT_Y}),
        ("experiments/sweep_parameters.py", SWEEP_DEFAULTS),
        ("simulator/options.py", {"duration": SimulationOptions.duration}),
        ("simulator/engine/engine_options.py", ENGINE_ADAPTATION),
        (
            "simulator/engine/engine_options.py",
            {"engine_plan": DEFAULT_ENGINE_PLAN, "adaptation": DEFAULT_ADAPTATION},
        ),
        ("simulator/engine/engine_options.py", {"basic_k": BASIC_K, "zstream_k": ZSTREAM_K}),
        ("simulator/engine/shedding/__init__.py", {"cost_per_unit": DEFAULT_COST_PER_UNIT}),
        ("experiments/spark.py", {"master": DEFAULT_MASTER}),
    ):
        values = (
            defaults
            if isinstance(defaults, dict)
            else {f.name: getattr(defaults, f.name) for f in dataclasses.fields(defaults)}
        )
        for name, value in values.items():
            if value is None:  # "not set" (no latency bound, no budget): not a value to hold
                continue
            listed = [v for _, v in found.get(name, [])]
            if name not in UNLISTED and not any(_same(value, v) for v in listed):
                found.setdefault(name, []).append((home, value))
    for alias, name in ALIASES.items():
        found[alias] = found[name]
    return found


SETTINGS = _settings()


def _value(node: ast.AST) -> tuple[bool, Any]:
    """``(True, value)`` of a literal (numbers, text, and arithmetic on them), else ``(False,
    None)``."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        ok, v = _value(node.operand)
        return (ok, -v) if ok and isinstance(v, int | float) else (False, None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Div):
        (ok_l, left), (ok_r, right) = _value(node.left), _value(node.right)
        if ok_l and ok_r and all(isinstance(v, int | float) for v in (left, right)):
            op = {ast.Mult: lambda a, b: a * b, ast.Add: lambda a, b: a + b}
            return True, op.get(type(node.op), lambda a, b: a / b)(left, right)
    return False, None


def _constant(name: str) -> str | None:
    """The setting a module constant defines (``DEFAULT_MASTER``, ``MASTER``: ``master``)."""
    if not name.isupper():
        return None
    return name.removeprefix("DEFAULT_").lower()


def definitions(code: str) -> list[tuple[int, str, Any]]:
    """``(line, name, value)`` of every literal definition in ``code`` (module docstring)."""
    found = []
    tree = ast.parse(code)
    for node in ast.walk(tree):
        pairs: list[tuple[str, ast.AST]] = []
        if isinstance(node, ast.Module):
            for item in node.body:
                targets = (
                    item.targets
                    if isinstance(item, ast.Assign)
                    else [item.target]
                    if isinstance(item, ast.AnnAssign) and item.value is not None
                    else []
                )
                for target in targets:
                    name = _constant(target.id) if isinstance(target, ast.Name) else None
                    if name is not None:
                        pairs.append((name, item.value))  # type: ignore[union-attr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs += zip(
                [a.arg for a in positional[len(positional) - len(args.defaults) :]],
                args.defaults,
                strict=True,
            )
            pairs += [
                (a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d
            ]
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    if item.value is not None:
                        pairs.append((item.target.id, item.value))
                elif isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                    pairs.append((item.targets[0].id, item.value))
        elif isinstance(node, ast.Dict):
            pairs += [
                (k.value, v)
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
        elif isinstance(node, ast.Call):
            first = node.args[0] if node.args else None
            flag = first.value if isinstance(first, ast.Constant) else None
            if isinstance(flag, str) and flag.startswith("--"):
                name = flag.split("/")[0].lstrip("-").replace("-", "_")
                pairs += [(name, k.value) for k in node.keywords if k.arg == "default"]
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and len(node.args) == 2
                and isinstance(flag, str)
            ):
                pairs.append((flag, node.args[1]))
        for name, value_node in pairs:
            ok, value = _value(value_node)
            if ok:
                found.append((getattr(value_node, "lineno", 0), name, value))
    return found


def second_definitions(
    sources: dict[str, str], settings: dict[str, list[tuple[str, Any]]] = SETTINGS
) -> list[str]:
    """The definitions of a listed setting's default outside its home, as ``file:line``."""
    out = []
    for path, code in sources.items():
        for line, name, value in definitions(code):
            for home, default in settings.get(name, ()):
                if path != home and _same(value, default) and (path, name) not in MIRRORS:
                    out.append(f"{path}:{line}: {name} = {value!r} (written in {home})")
    return out


def package_sources() -> dict[str, str]:
    """``{path: source}`` of every module of the package."""
    return {
        p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
        for package in PACKAGES
        for p in sorted((ROOT / package).rglob("*.py"))
    }


def test_each_listed_default_is_written_once():
    assert second_definitions(package_sources()) == []


def test_the_homes_define_them():
    sources = package_sources()
    for name, homes in SETTINGS.items():
        for home, default in homes:
            defined = {(ALIASES.get(n, n), v) for _, n, v in definitions(sources[home])}
            assert (ALIASES.get(name, name), default) in defined, name


def test_the_listed_settings():
    assert SETTINGS["nodes"] == [("topologies/generator_options.py", 20)]
    assert ("topologies/generator_options.py", 1.3) in SETTINGS["skew"]
    assert ("topologies/trace_generator.py", 0.5) in SETTINGS["skew"]
    assert "seed" not in SETTINGS
    assert SETTINGS["selectivity"] == [("workloads/generator_options.py", 0.1)]
    assert SETTINGS["effort"] == [("planner/options.py", 1.0)]
    assert SETTINGS["kicks"] == [("planner/options.py", True)]
    assert ("planner/options.py", 0.0) not in SETTINGS["latency_factor"]  # None: not set
    # a sweep task's own settings (its 0 = off; the planner's latency_factor None = not set)
    assert SETTINGS["latency_factor"] == [("experiments/sweep_parameters.py", 0.0)]
    assert SETTINGS["overload"] == [("experiments/sweep_parameters.py", 0.0)]
    assert SETTINGS["shed"] == [("experiments/sweep_parameters.py", "none")]
    assert ("experiments/sweep_parameters.py", 20.0) in SETTINGS["duration"]
    assert SETTINGS["nodes"] == [("topologies/generator_options.py", 20)]  # named, not listed
    assert ("simulator/options.py", 100.0) in SETTINGS["duration"]
    # K: None in Adaptation (per plan generator), its two values named constants
    assert "k" not in SETTINGS
    assert SETTINGS["basic_k"] == [("simulator/engine/engine_options.py", 1)]
    assert SETTINGS["zstream_k"] == [("simulator/engine/engine_options.py", 2)]
    assert SETTINGS["check_every"] == [("simulator/engine/engine_options.py", 256)]
    assert "kind" not in SETTINGS and "span" not in SETTINGS
    assert SETTINGS["operator_type"] == [("workloads/generator_options.py", "random")]
    assert SETTINGS["min_length"] == [("workloads/generator_options.py", 0)]
    assert SETTINGS["ties"] == [("workloads/workload.py", "strict")]
    assert SETTINGS["selectivity_seed"] == [("workloads/workload.py", 0)]
    assert SETTINGS["method"] == [("planner/options.py", "inev")]
    assert SETTINGS["y"] == [("experiments/plot_options.py", "ratio")]
    assert SETTINGS["master"] == [("experiments/spark.py", "local[*]")]
    assert SETTINGS["cost_per_unit"] == [("simulator/engine/shedding/__init__.py", 1.0)]
    engine = "simulator/engine/engine_options.py"
    assert SETTINGS["engine_plan"] == SETTINGS["plan"] == [(engine, "greedy")]
    assert SETTINGS["adaptation"] == SETTINGS["adaptive"] == [(engine, "invariant")]


PLANTED = [
    ("def generate(nodes: int = 20):\n    pass\n", ["x.py:1: nodes = 20"]),
    ("def generate(*, skew=1.3):\n    pass\n", ["x.py:1: skew = 1.3"]),
    ("class Options:\n    out_degree: float = 3\n", ["x.py:2: out_degree = 3"]),
    ('DEFAULTS = {"event_types": 6, "queries": 1}\n', ["x.py:1: event_types", "x.py:1: queries"]),
    ('import click\nclick.option("--node-ratio", default=0.5)\n', ["x.py:2: node_ratio = 0.5"]),
    ('def f(config):\n    return config.get("topology", "degree")\n', ["x.py:2: topology ="]),
    ("def f(duration=30 * 86_400.0):\n    pass\n", ["x.py:1: duration = 2592000.0"]),
    # named from the home, another value (another setting of that name), a call: no definition
    ("def generate(nodes: int = NETWORK_DEFAULTS.nodes):\n    pass\n", []),
    ("def generate(nodes: int = 200, skew: float = 2.0):\n    pass\n", []),
    ("generate_network(nodes=20)\n", []),
    ("def f(nodes=True):\n    pass\n", []),
    ('click.option("--kicks/--no-kicks", default=True)\n', ["x.py:1: kicks = True"]),
    (
        "def plan(window: float = 1.0, effort=1.0):\n    pass\n",
        ["x.py:1: window", "x.py:1: effort"],
    ),
    ('click.option("--window", default=2.0)\n', []),
    # a sweep task read with its own fallback (measure.py did, for every dynamics setting)
    ('def f(config):\n    return config.get("overload", 0.0)\n', ["x.py:2: overload = 0.0"]),
    ('def f(config):\n    return config.get("overload", DEFAULTS["overload"])\n', []),
    # module constants, the Spark master, the engines' defaults under either name
    ('DEFAULT_MASTER = "local[*]"\n', ["x.py:1: master = 'local[*]'"]),
    ("COST_PER_UNIT: float = 1.0\n", ["x.py:1: cost_per_unit = 1.0"]),
    ('Default_master = "local[*]"\nMASTER = DEFAULT_MASTER\n', []),
    ('def run(spec, master: str = "local[*]"):\n    pass\n', ["x.py:1: master"]),
    ('click.option("--master", default="local[*]")\n', ["x.py:1: master"]),
    ('def run(master="local[2]"):\n    pass\n', []),
    ('class MatchOptions:\n    plan: str = "greedy"\n', ["x.py:2: plan = 'greedy'"]),
    (
        'FLAGS = {"engine_plan": "greedy", "adaptive": "invariant"}\n',
        ["x.py:1: engine_plan", "x.py:1: adaptive"],
    ),
    ('def simulate(adaptation="invariant", plan="zstream"):\n    pass\n', ["x.py:1: adaptation"]),
    ('def engine(plan=DEFAULT_ENGINE_PLAN, adaptation="off"):\n    pass\n', []),
    ('click.option("--cost-per-unit", type=float, default=1.0)\n', ["x.py:1: cost_per_unit"]),
    # the paper figures' workload variants (paper_variants.py read the sweep's DEFAULTS)
    ('def f(config):\n    return config.get("min_length", 0)\n', ["x.py:2: min_length = 0"]),
    ('def read(document):\n    return document.get("ties", "strict")\n', ["x.py:2: ties"]),
    # a workload's predicate seed, the planner a caller gets, the metric a plot shows
    ('def read(document):\n    return document.get("selectivity_seed", 0)\n', ["x.py:2: selec"]),
    ("class Engine:\n    selectivity_seed: int = 0\n", ["x.py:2: selectivity_seed = 0"]),
    ('def plan_workload(network, workload, method="inev"):\n    pass\n', ["x.py:1: method"]),
    ('def selected(check):\n    return check.get("method", "inev")\n', ["x.py:2: method"]),
    ('def f(method="centralized"):\n    pass\n', []),
    ('def summary(plot):\n    return plot.get("y", "ratio")\n', ["x.py:2: y = 'ratio'"]),
    ('click.option("--y", default="ratio")\n', ["x.py:1: y = 'ratio'"]),
]


def test_a_planted_second_default_is_found():
    for code, expected in PLANTED:
        found = second_definitions({"x.py": code})
        assert len(found) == len(expected), (code, found)
        for line, prefix in zip(found, expected, strict=True):
            assert line.startswith(prefix), (code, line)


def test_the_svg_settings_are_written_once():
    """Every SVG inev writes uses :data:`inev.experiments.plot_options.SVG_SETTINGS` (a second
    copy of the hash salt would let one figure's bytes drift)."""
    holders = [path for path, code in package_sources().items() if "svg.hashsalt" in code]
    assert holders == ["experiments/plot_options.py"]
