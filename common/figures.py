"""Named figures with units, printed as one ``key=value`` line or as a table.

A command's summary is a list of :class:`Figure`: a machine key for the one-line form, a
human label and a unit for the table. :func:`echo_summary` prints the table (rich) when
standard output is a terminal and the line when it is piped, so scripts read ``key=value``
pairs and people read a table with units. ``None`` is printed as ``n/a``.

A figure with a ``unit_key`` states its unit in the line too, once per key after the
figures (``rate_unit=events/time_unit``: spaces dropped, so that a script splitting the line
on spaces reads one token per key).

>>> figures = [Figure("psi", "transmission cost ψ", 12.5, "events / time unit", unit_key="rate_unit"),
...            Figure("lower_bound", "lower bound", 3.0, "events / time unit", unit_key="rate_unit"),
...            Figure("model_latency", "model latency ℓ(I)", None, "hops")]
>>> summary_line(figures)
'psi=12.5 lower_bound=3 model_latency=n/a rate_unit=events/time_unit'
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
    unit_key: str = ""
    """The key under which the one-line form states the unit (empty: the key's name says it,
    or the figure has none)."""

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
    """The one-line form: ``key=value`` pairs separated by spaces, then the units of the
    figures that have a ``unit_key`` (once per key, in order of first use)."""
    shown = [f for f in figures if f.in_line]
    units = {f.unit_key: unit_token(f.unit) for f in shown if f.unit_key and f.unit}
    return " ".join([f"{f.key}={f.text()}" for f in shown] + [f"{k}={u}" for k, u in units.items()])


def unit_token(unit: str) -> str:
    """A unit as one token of the line: no spaces, ASCII.

    >>> unit_token("events / time unit"), unit_token("hops + ξ·pm (§5.4)")
    ('events/time_unit', 'hops+xi*pm')
    """
    text = unit.split(" (")[0].replace(" / ", "/").replace(" + ", "+").replace("ξ", "xi")
    return text.replace("·", "*").replace(" ", "_")


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
