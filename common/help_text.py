"""Examples for the commands' ``--help``: an epilog click prints as written.

Click rewraps help paragraphs unless their first line is ``\\b``; :func:`examples` builds such
a paragraph, one command per line, so ``inev plan --help`` ends with lines a user can copy.
``tests/test_help.py`` checks that every command has one and that every example line parses
with the command's own options.

>>> print(examples("inev plan net.json wl.json -o plan.json"))
\b
Examples:
  inev plan net.json wl.json -o plan.json
"""

from __future__ import annotations

PREFIX = "Examples:"


def examples(*lines: str, then: str = "") -> str:
    """An epilog of example command lines (module docstring), followed by ``then`` (another
    epilog paragraph) if given."""
    text = "\b\n" + PREFIX + "\n" + "\n".join(f"  {line}" for line in lines)
    return f"{text}\n\n{then}" if then else text


def example_lines(epilog: str | None) -> list[str]:
    """The command lines of an epilog made by :func:`examples` (none for another epilog).

    >>> example_lines(examples("inev show net.json", "inev show results"))
    ['inev show net.json', 'inev show results']
    """
    if not epilog or PREFIX not in epilog:
        return []
    block = epilog.split(PREFIX, 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines() if line.strip().startswith("inev")]
