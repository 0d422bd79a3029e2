"""The README's walk-through, run as written: its commands, and the lines it says they print.

The walk-through is the first ``sh`` block under ``## A walk-through`` in README.md. Every
command in it runs in order in an empty folder ``walk`` inside a stand-in for the clone
(:func:`prepare`: its ``.venv`` is this Python's venv): the first line, which activates the
venv, runs with bash there and must leave ``inev`` on the ``PATH`` (:func:`activate`);
``inev …`` commands run through the command's own entry point (in this process, with the
same arguments a shell would pass), anything else (``cat > file <<'EOF'`` here-documents,
redirections) with bash, with this Python's ``bin`` first on the ``PATH``. A comment
``#    -> text`` after a command
(continued by lines ``#       text``) is a line the command prints: it must equal one of the
command's output lines, where ``…`` stands for anything (wall times, throughput).

``python tests/readme_walkthrough.py --update`` runs the walk-through and rewrites those
lines in README.md from what the commands print now, keeping each ``…`` where the new line
still fits it and masking wall times otherwise; ``tests/test_readme.py`` runs the same and
compares, so the README cannot go stale.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
EXPECTED = "#    -> "
CONTINUED = "#       "
WIDTH = 96
VOLATILE = [
    (re.compile(r"in [\d.]+ s, [\d,]+ events/s"), "in …"),
    (re.compile(r"in [\d.]+ s ->"), "in … s ->"),
]
"""Wall-clock parts of output lines, and what the README writes instead."""


ACTIVATE = ". ../.venv/bin/activate"
"""How the walk-through's first line starts (the venv of the clone, one folder up)."""


@dataclass
class Step:
    """One command of the walk-through and the lines it should print."""

    command: str
    line: int
    """Index of the command's first line in the README."""
    expected: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    """README line ranges [start, end) of each expected line."""

    @property
    def activates(self) -> bool:
        """Whether this is the line that activates the venv."""
        return self.command.startswith(ACTIVATE)


def prepare(root: Path) -> Path:
    """A stand-in for the clone in ``root``: ``root/.venv`` is this Python's venv, and the
    empty folder ``root/walk`` where the walk-through runs (returned)."""
    venv = Path(sys.prefix)
    if not (venv / "bin" / "activate").is_file():
        raise RuntimeError(f"{venv} is not a venv: run the tests with the venv's python")
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    walk = root / "walk"
    walk.mkdir()
    return walk


def activate(step: Step, folder: Path) -> str:
    """Run the activating first line with bash in ``folder``; it must put the venv's
    ``inev`` first on the ``PATH`` (and ``inev --version`` must run)."""
    script = f"{step.command}\ncommand -v inev\ninev --version"
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=folder,
        env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"{step.command!r} exited {done.returncode}: {done.stderr.strip()}")
    found = Path(done.stdout.splitlines()[0]).resolve()
    if found != (Path(sys.prefix) / "bin" / "inev").resolve():
        raise AssertionError(f"{step.command!r} left {found} first on the PATH, not the venv's")
    return ""


def walkthrough_block(lines: list[str]) -> tuple[int, int]:
    """(first, end) indexes of the walk-through's ``sh`` block body in README lines."""
    heading = next(i for i, x in enumerate(lines) if x.startswith("## A walk-through"))
    start = next(i for i in range(heading, len(lines)) if lines[i].startswith("```sh")) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    return start, end


def parse(lines: list[str]) -> list[Step]:
    """The steps of the walk-through block."""
    start, end = walkthrough_block(lines)
    steps: list[Step] = []
    i = start
    while i < end:
        text = lines[i]
        stripped = text.strip()
        if stripped.startswith(EXPECTED.strip()) and text.startswith(EXPECTED):
            first = i
            value = text[len(EXPECTED) :].strip()
            i += 1
            while i < end and lines[i].startswith(CONTINUED) and not lines[i].startswith(EXPECTED):
                value += " " + lines[i][len(CONTINUED) :].strip()
                i += 1
            steps[-1].expected.append(value)
            steps[-1].spans.append((first, i))
            continue
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        first = i
        command = text
        if "<<'EOF'" in text:
            i += 1
            while lines[i].strip() != "EOF":
                command += "\n" + lines[i]
                i += 1
            command += "\nEOF"
        while command.rstrip().endswith("\\"):
            i += 1
            command = command.rstrip()[:-1] + " " + lines[i].strip()
        steps.append(Step(command, first))
        i += 1
    return steps


def run(step: Step, folder: Path) -> str:
    """Run one step in ``folder``; return what it printed (standard output)."""
    if step.activates:
        return activate(step, folder)
    words = shlex.split(step.command, comments=True) if "<<" not in step.command else []
    lexer = shlex.shlex(step.command, posix=True, punctuation_chars=True)
    lexer.commenters = "#"
    plain = not {">", ">>", "<", "|", "&&", "||", ";"} & set(lexer) if words else False
    if plain and words[0] == "inev":
        from inev.common.cli import main

        out, err = io.StringIO(), io.StringIO()
        here = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    main(words[1:])
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os.chdir(here)
        if code != 0:
            raise AssertionError(f"{step.command!r} exited {code}: {err.getvalue().strip()}")
        return out.getvalue()
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", step.command],
        cwd=folder,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"{step.command!r} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def _normal(text: str) -> str:
    return " ".join(text.split())


def fits(expected: str, printed: str) -> bool:
    """Whether an output line equals the expected one (``…`` stands for anything)."""
    parts = [re.escape(p) for p in _normal(expected).split("…")]
    return re.fullmatch(".*?".join(parts), _normal(printed)) is not None


def check(steps: list[Step], folder: Path) -> list[str]:
    """Run every step; return the mismatches (empty when the README is right)."""
    problems = []
    for step in steps:
        printed = run(step, folder).splitlines()
        for expected in step.expected:
            if not any(fits(expected, line) for line in printed):
                shown = "\n    ".join(printed[-5:])
                problems.append(
                    f"{step.command.splitlines()[0]!r}: README says\n    {expected}\n"
                    f"  the command printed (last lines)\n    {shown}"
                )
    return problems


def _mask(line: str) -> str:
    for pattern, replacement in VOLATILE:
        line = pattern.sub(replacement, line)
    return line


def _wrapped(text: str) -> list[str]:
    pieces = textwrap.wrap(
        text, WIDTH - len(EXPECTED), break_long_words=False, break_on_hyphens=False
    )
    return [EXPECTED + pieces[0]] + [CONTINUED + p for p in pieces[1:]]


def update(readme: Path = README) -> int:
    """Rewrite the README's expected lines from what the commands print now; return how
    many lines changed."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    steps = parse(lines)
    replacements: list[tuple[tuple[int, int], list[str]]] = []
    with tempfile.TemporaryDirectory() as root:
        folder = prepare(Path(root))
        for step in steps:
            printed = run(step, folder).splitlines()
            for expected, span in zip(step.expected, step.spans, strict=True):
                if any(fits(expected, line) for line in printed):
                    continue
                key = _normal(expected).split(" ")[0]
                candidates = [p for p in printed if _normal(p).split(" ")[0] == key]
                if not candidates:
                    raise SystemExit(f"{step.command!r} printed no line starting {key!r}")
                replacements.append((span, _wrapped(_mask(_normal(candidates[-1])))))
    for (start, end), new in sorted(replacements, reverse=True):
        lines[start:end] = new
    readme.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(replacements)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/readme_walkthrough.py --update")
    print(f"README.md: {update()} expected lines rewritten")
