"""Every command's ``--help`` ends with examples, and every example parses with the command's
own options and arguments (issue 30)."""

from __future__ import annotations

import shlex
import warnings

import click
import pytest

from inev.common.cli import COMMANDS, cli, load_command
from inev.common.help_text import example_lines


def _commands() -> dict[str, click.Command]:
    """``{"inev plan": command, "inev network generate": command, ...}``, groups included."""
    found: dict[str, click.Command] = {"inev": cli}
    for name in COMMANDS:
        command = load_command(name)
        found[f"inev {name}"] = command
        if isinstance(command, click.Group):
            for sub, inner in command.commands.items():
                found[f"inev {name} {sub}"] = inner
    return found


def _rest(ctx: click.Context) -> list[str]:
    """A group's words after its own options (click 8 keeps the first apart)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [*getattr(ctx, "protected_args", []), *ctx.args]


def _parse(line: str) -> click.Command:
    """Parse an example line down to its command, as the shell and click would (no run)."""
    words = shlex.split(line)
    assert words[0] == "inev"
    ctx = cli.make_context("inev", words[1:])
    command: click.Command = cli
    rest = _rest(ctx)
    while isinstance(command, click.Group):
        name, command, rest = command.resolve_command(ctx, rest)
        try:
            ctx = command.make_context(name, rest, parent=ctx)
        except click.exceptions.Exit as done:  # an eager flag (--list) answered: it parsed
            assert done.exit_code == 0
            return command
        rest = _rest(ctx)
    return command


@pytest.mark.parametrize("path", sorted(_commands()))
def test_every_command_has_examples_that_parse(path, run_cli):
    command = _commands()[path]
    lines = example_lines(command.epilog)
    assert lines, f"{path} --help has no examples"
    for line in lines:
        assert _parse(line) is not None
    code, out, _ = run_cli(*path.split()[1:], "--help")
    assert code == 0 and "Examples:" in out and lines[0] in out


def test_an_example_with_a_typo_would_not_parse():
    with pytest.raises(click.UsageError):
        _parse("inev plan net.json wl.json --outt plan.json")
    with pytest.raises(click.UsageError):
        _parse("inev network generate --topology star -o net.json")


def test_every_option_has_help_text():
    for path, command in _commands().items():
        for param in command.params:
            if isinstance(param, click.Option) and param.name != "help":
                assert param.help, f"{path} {param.opts[0]} has no help text"
