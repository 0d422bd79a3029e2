"""Rich display in terminals and notebooks: rich tables, HTML tables for inev's objects, and a
registry of renderers.

Every view of a file (``inev show``, ``inev network show``, …) is a list of items, lines and
rich tables, that :func:`print_items` prints; the views themselves live in the layer that
owns the file's format (``topologies/tables.py`` for networks, ``planner/tables.py`` for
plans' placements and changes, and so on).

IPython shows an object by its ``_repr_html_``. inev's objects live in layers that may not
import the layers above them: a plan (``planner/``) cannot import the drawing code
(``experiments/``). So a plan's ``_repr_html_`` first asks this registry (:func:`rendered`);
:mod:`inev.experiments.notebook` registers the drawing when it is imported, and without it
the plan shows its figures as a table (:func:`figures_table`).

>>> from inev.common.figures import Figure
>>> print(figures_table([Figure("psi", "transmission cost ψ", 12.5, "events / time unit")]))
<table class="inev"><tr><th style="text-align:left">transmission cost ψ</th><td>12.5</td><td>events / time unit</td></tr></table>
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from inev.common.figures import Figure

_RENDERERS: dict[type, Callable[[Any], str]] = {}


def rich_table(*columns: str, title: str | None = None, caption: str | None = None) -> Any:
    """A rich table with these columns, its title on the left (rich is imported on first use)."""
    from rich.table import Table

    return Table(*columns, title=title, title_justify="left", caption=caption)


def terminal_console(width: int | None = None) -> Any:
    """A rich console for a command's output: the terminal's width in a terminal, else
    ``width`` or ``$COLUMNS`` (120 when unset), so that piped output is not cut at 80."""
    import os

    from rich.console import Console

    if Console().is_terminal:
        return Console()
    return Console(width=width or int(os.environ.get("COLUMNS", 120)))


def show_view(items: Sequence[Any]) -> None:
    """Print a file's view (:func:`print_items`) on a :func:`terminal_console`: what
    ``inev show``, ``inev network show`` and ``inev workload show`` share."""
    print_items(items, terminal_console())


def print_items(items: Sequence[Any], console: Any) -> None:
    """Print a view's items on a rich ``console``: strings as they are (no markup, no
    highlighting), anything else (tables) as rich renders it."""
    for item in items:
        if isinstance(item, str):
            console.print(item, markup=False, highlight=False)
        else:
            console.print(item)


def register(kind: type, renderer: Callable[[Any], str]) -> None:
    """Have objects of ``kind`` (and its subclasses) shown by ``renderer(obj) -> HTML``."""
    _RENDERERS[kind] = renderer


def rendered(obj: Any) -> str | None:
    """The registered renderer's HTML for ``obj``, or ``None`` when none is registered."""
    for kind in type(obj).__mro__:
        if kind in _RENDERERS:
            return _RENDERERS[kind](obj)
    return None


def escape(value: Any) -> str:
    """``value`` as HTML text.

    >>> escape("a < b")
    'a &lt; b'
    """
    return html.escape(str(value))


def figures_table(figures: Sequence[Figure], title: str | None = None) -> str:
    """An HTML table of figures: label, value, unit (as ``inev plan`` prints in a terminal)."""
    rows = "".join(
        f'<tr><th style="text-align:left">{escape(f.label)}</th><td>{escape(f.text())}</td>'
        f"<td>{escape(f.unit if f.value is not None else '')}</td></tr>"
        for f in figures
    )
    caption = f"<caption>{escape(title)}</caption>" if title else ""
    return f'<table class="inev">{caption}{rows}</table>'


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], title: str | None = None) -> str:
    """An HTML table with a header row.

    >>> table([("q1", 3)], ("query", "matches"))
    '<table class="inev"><tr><th>query</th><th>matches</th></tr><tr><td>q1</td><td>3</td></tr></table>'
    """
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    caption = f"<caption>{escape(title)}</caption>" if title else ""
    return f'<table class="inev">{caption}{head}{body}</table>'
