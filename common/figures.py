"""Named figures with units, printed as one ``key=value`` line or as a table.

A command's summary is a list of :class:`Figure`: a machine key for the one-line form, a
human label and a unit for the table. :func:`echo_summary` prints the table (rich) when
standard output is a terminal and the line when it is piped, so scripts read ``key=value``
pairs and people read a table with units. ``None`` is printed as ``n/a``.

>>> figures = [Figure("psi", "transmission cost ψ", 12.5, "events / time unit"),
...            Figure("model_latency", "model latency ℓ(I)", None, "hops")]
>>> summary_line(figures)
'psi=12.5 model_latency=n/a'
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One figure of a summary: ``key=value`` in the line, ``label  value unit`` in the table."""

    key: str
    label: str
    value: Any
    unit: str = ""
    digits: int = 6
    """Significant digits of a float."""
    in_line: bool = True
    """Whether the one-line form shows it (wall times stay out, so equal runs print equal lines)."""

    def text(self) -> str:
        """The value as printed: ``n/a`` for ``None``, ``true``/``false``, ``inf``, ``%g``.

        >>> Figure("x", "x", 0.1234567).text(), Figure("y", "y", True).text()
        ('0.123457', 'true')
        """
        value = self.value
        if value is None:
            return "n/a"
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            if math.isinf(value):
                return "inf" if value > 0 else "-inf"
            return f"{value:.{self.digits}g}"
        return str(value)


def summary_line(figures: Sequence[Figure]) -> str:
    """The one-line form: ``key=value`` pairs separated by spaces."""
    return " ".join(f"{f.key}={f.text()}" for f in figures if f.in_line)


def summary_table(figures: Sequence[Figure], title: str | None = None) -> Any:
    """The table form (a ``rich.table.Table``): label, value and unit per figure."""
    from rich.table import Table

    table = Table("", "value", "unit", title=title, title_justify="left", show_header=False)
    for f in figures:
        table.add_row(f.label, f.text(), f.unit)
    return table


def to_terminal() -> bool:
    """Whether standard output is a terminal (people) rather than a pipe or file (scripts)."""
    stream = sys.stdout
    return bool(getattr(stream, "isatty", None) and stream.isatty())


def echo_summary(
    figures: Sequence[Figure], title: str | None = None, extra: Sequence[Any] = ()
) -> None:
    """Print a summary: a table in a terminal, else the one line.

    ``extra`` are further rich renderables (tables) printed after the summary table in a
    terminal only.
    """
    if not to_terminal():
        print(summary_line(figures), flush=True)
        return
    from rich.console import Console

    console = Console()
    console.print(summary_table(figures, title))
    for item in extra:
        console.print(item)
