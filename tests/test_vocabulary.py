"""No command-line vocabulary in the library: a module that is not a command module (``cli.py``,
``*_cli.py``, and the ``click_options.py`` modules, the options several commands share) neither
imports click nor names a ``--flag`` in its code (docstrings aside, and a message quoting a
whole command line such as ``inev draw sim.json --timeline`` aside: it tells the user what to
run). A library function is called from notebooks and other layers, where no flag exists; the
command checks its flags and hands the library an options object. :data:`SPOKEN` lists the
modules that still speak it, and what they say: a new flag name, a new module, or click in a
library module fails, and so does an entry that is no longer true (the list only shrinks).

The modules and their command modules are those of ``tests/test_layers.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_layers import ROOT, _plant, all_modules, is_cli, is_options

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A long option as a user types it: ``--total-rate``."""


COMMAND_LINE = re.compile(r"\binev [a-z]")
"""A quoted command line (``inev draw x --text``): a hint to the user, not a flag."""


SPOKEN: dict[str, set[str]] = {
    # messages naming the flag that would help (the library was the command once)
    "topologies/from_trace.py": {"--duration"},
    "topologies/io.py": {"--largest-component"},
    "topologies/trace_generator.py": {"--period"},
    # the engine figures' report says at which scale it ran (`inev reproduce --quick`)
    "experiments/engine_figures/model.py": {"--quick"},
    "experiments/engine_figures/report.py": {"--quick"},
    "planner/exact.py": {"--latency-bound", "--latency-factor", "--method", "--time-budget"},
    "planner/exact_search.py": {"--time-budget"},
    "planner/repair.py": {"--best", "--replan"},
    "planner/last_passes.py": {"--effort", "--time-budget"},
    "planner/search.py": {"--effort", "--estimated-latency"},
    "simulator/engine/engine.py": {"--consume", "--freeze"},
    "simulator/engine/match_job.py": {"--consume", "--freeze"},
    "simulator/engine/matching.py": {"--check-every", "--distance", "--invariants"},
    "simulator/engine/selection.py": {"--strategy"},
    "simulator/engine/shedding/node_queue.py": {"--capacity", "--latency-bound", "--shed"},
    "simulator/engine/size.py": {"--no-size-check"},
    "simulator/estimate.py": {"--method", "--total-rate"},
    "simulator/figures.py": {"--duration", "--total-rate"},
    "experiments/plot_data.py": {"--bound"},
    "experiments/reproduce.py": {"--force", "--quick", "--seeds"},
    "experiments/results.py": {"--y"},
    "experiments/scene.py": {"--query"},
    "experiments/scene_figure.py": {"--input"},
    "experiments/scene_scale.py": {"--around", "--input", "--query"},
    "experiments/spark.py": {"--master"},
    "experiments/sweep_folder.py": {"--force"},
    "experiments/whatif.py": {"--swap-shares"},
    "experiments/whatif_run.py": {"--force"},
    # the drawing modes refuse files of the wrong kind naming the mode's flag
    "experiments/draw.py": {"--logical", "--network", "--timeline", "--vs"},
    # not inev's flags: the arguments of `git describe`
    "experiments/provenance.py": {"--abbrev", "--always", "--dirty"},
}
"""Library modules that still name command-line flags (or import click), and which."""


def _docstring_nodes(tree: ast.Module) -> set[int]:
    """The ``id`` of every docstring constant of a module, class or function."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _texts(tree: ast.Module) -> list[str]:
    """The string literals of the code, an f-string as one text (its constant parts)."""
    skip = _docstring_nodes(tree)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v for v in node.values if isinstance(v, ast.Constant)]
            skip.update(id(v) for v in parts)
            texts.append("{}".join(str(v.value) for v in parts))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts.append(node.value)
    return texts


def vocabulary(root: Path) -> dict[str, set[str]]:
    """Per library module (``layer/x.py``), the flags its code names and ``click`` if it
    imports click; modules that speak none are left out."""
    found: dict[str, set[str]] = {}
    for name, path in all_modules(root).items():
        if is_cli(name) or is_options(name):
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        words = {
            flag
            for text in _texts(tree)
            if not COMMAND_LINE.search(text)
            for flag in FLAG.findall(text)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(
                a.name.split(".")[0] == "click" for a in node.names
            ):
                words.add("click")
            if (
                isinstance(node, ast.ImportFrom)
                and not node.level
                and (node.module or "").split(".")[0] == "click"
            ):
                words.add("click")
        if words:
            found[path.relative_to(root).as_posix()] = words
    return found


def new_vocabulary(root: Path, known: dict[str, set[str]]) -> list[str]:
    """What library modules say beyond ``known``, as ``file: words``."""
    return [
        f"{where}: {', '.join(sorted(words - known.get(where, set())))}"
        for where, words in sorted(vocabulary(root).items())
        if words - known.get(where, set())
    ]


def test_library_modules_speak_no_new_command_line():
    assert new_vocabulary(ROOT, SPOKEN) == []


def test_the_list_of_modules_speaking_the_command_line_only_shrinks():
    # an entry no longer true is struck off, so the list cannot hide a new word later
    spoken = vocabulary(ROOT)
    stale = {k: v - spoken.get(k, set()) for k, v in SPOKEN.items() if v - spoken.get(k, set())}
    assert stale == {}


@pytest.mark.parametrize(
    ("source", "text", "bad"),
    [
        # simulate_job.simulate_request used to check a dict of flags ("--total-rate needs --method")
        (
            "simulator/simulate_job.py",
            'def f(flags):\n    raise ValueError("--total-rate needs --method")\n',
            True,
        ),
        ("planner/x.py", "def f(n):\n    return f'--nodes {n} is too many'\n", True),
        ("planner/x.py", "import click\n", True),
        ("experiments/x.py", "from click import echo\n", True),
        ("planner/x.py", "def f():\n    import click.testing\n", True),
        # command modules and the shared click options speak it by design
        ("planner/cli.py", "import click\nHELP = '--effort 0 is the paper'\n", False),
        ("workloads/estimate_cli.py", "import click\n", False),
        ("common/click_options.py", "import click\nX = '--seed'\n", False),
        ("experiments/click_options.py", "import click\nX = '--master'\n", False),
        # docstrings, quoted command lines, and a dash in prose are not flags
        ("planner/x.py", 'def f():\n    """Like --effort."""\n', False),
        ("simulator/x.py", "def f(p):\n    return f'(inev draw {p} --text lists them)'\n", False),
        ("planner/x.py", "X = 'a -- b, rate--limited, -o out'\n", False),
    ],
)
def test_a_planted_command_line_word_is_caught(tmp_path, source, text, bad):
    assert bool(new_vocabulary(_plant(tmp_path, {source: text}), {})) == bad
