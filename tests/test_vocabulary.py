"""No command-line vocabulary in the library: a module that is not a command module (``cli.py``,
``*_cli.py``, and the ``click_options.py`` modules, the options several commands share) neither
imports click nor names a ``--flag`` in its code (docstrings aside, and a message quoting a
whole command line such as ``inev draw sim.json --timeline`` aside: it tells the user what to
run). A library function is called from notebooks and other layers, where no flag exists; the
command checks its flags and hands the library an options object. A library message that names
a setting writes :func:`inev.common.option_names.option` of its keyword name, which reads as
the flag while a command runs; every name so given must be a flag of some command
(:func:`test_every_option_a_message_names_is_a_flag`). :data:`SPOKEN` lists the modules that
still speak it, and what they say: a new flag name, a new module, or click in a library module
fails, and so does an entry that is no longer true (the list only shrinks).

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
    # not inev's flags: the arguments of `git describe`
    "experiments/provenance.py": {"--abbrev", "--always", "--dirty"},
}
"""Library modules that still name command-line flags (or import click), and which."""


def _docstring_nodes(tree: ast.Module) -> set[int]:
    """The ``id`` of every docstring constant: of a module, class or function, and an
    attribute's (a string statement right after an assignment, as Sphinx reads it)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
            for before, item in zip(node.body, node.body[1:], strict=False):
                if (
                    isinstance(before, ast.Assign | ast.AnnAssign)
                    and isinstance(item, ast.Expr)
                    and isinstance(item.value, ast.Constant)
                    and isinstance(item.value.value, str)
                ):
                    found.add(id(item.value))
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


def _flags_of_every_command() -> set[str]:
    """Every long option of every ``inev`` command and subcommand."""
    import click

    from inev.common.cli import COMMANDS, load_command

    found: set[str] = set()
    todo: list[click.Command] = [load_command(name) for name in COMMANDS]
    while todo:
        command = todo.pop()
        if isinstance(command, click.Group):
            todo.extend(command.commands.values())
        for param in command.params:
            found.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return found


def named_options(root: Path) -> dict[str, set[str]]:
    """Per library module, the flags its :func:`~inev.common.option_names.option` calls name
    (literal arguments: ``option("total_rate")`` names ``--total-rate``, ``option(x, "best")``
    and ``option(x, flag="best")`` ``--best``)."""
    found: dict[str, set[str]] = {}
    for name, path in all_modules(root).items():
        code = path.read_text()
        if "from inev.common.option_names import option" not in code:
            continue
        tree = ast.parse(code, filename=str(path))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "option"
            ):
                continue
            given = {k.arg: k.value for k in node.keywords}
            spelled = given.get("flag", node.args[-1] if node.args else None)
            assert isinstance(spelled, ast.Constant), f"{name}:{node.lineno}: name the flag"
            flag = "--" + str(spelled.value).replace("_", "-")
            found.setdefault(path.relative_to(root).as_posix(), set()).add(flag)
    return found


def test_every_option_a_message_names_is_a_flag():
    flags = _flags_of_every_command()
    named = named_options(ROOT)
    assert len(named) >= 20  # the messages of some 25 library modules
    unknown = {k: v - flags for k, v in named.items() if v - flags}
    assert unknown == {}


def test_a_message_naming_a_setting_reads_as_its_flag_only_on_the_command_line(run_cli, tmp_path):
    from inev.common.errors import InevError
    from inev.experiments.reproduce import parse_seeds

    with pytest.raises(InevError, match=r"^seeds must be between 1 and 1,000, got 0$"):
        parse_seeds(["0"])
    folder = tmp_path / "report"
    code, out, err = run_cli("reproduce", "4a", "--seeds", "0", "-o", folder)
    assert code != 0 and out == ""
    assert err.strip() == "error: --seeds must be between 1 and 1,000, got 0"
    assert not folder.exists()


def test_a_planted_unknown_flag_is_caught(tmp_path):
    planted = _plant(
        tmp_path,
        {
            "planner/x.py": "from inev.common.option_names import option\n"
            "def f():\n    return f'{option(\"no_such_flag\")} x'\n"
        },
    )
    assert named_options(planted) == {"planner/x.py": {"--no-such-flag"}}
    assert not {"--no-such-flag"} <= _flags_of_every_command()
