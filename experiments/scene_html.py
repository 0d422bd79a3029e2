"""A :class:`~inev.experiments.scene.Scene` as one self-contained HTML page.

The page holds the SVG drawing inline (no image file beside it), a check box per overlay that
shows or hides it in the drawing, and the text form's content as tables: figures, legend,
nodes, every overlay's links and senders. No script, style or font is loaded from anywhere:
the file can be mailed or opened offline.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from inev.experiments.scene import Overlay, Scene
from inev.experiments.scene_figure import scene_svg

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1200px; }
svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.15em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
details { margin: 0.3em 0; }
.toggles label { margin-right: 1em; white-space: nowrap; }
"""

_SCRIPT = """
for (const box of document.querySelectorAll("input[data-target]")) {
  box.addEventListener("change", () => {
    const group = document.getElementById(box.dataset.target);
    if (group) group.style.display = box.checked ? "" : "none";
    for (const kind of ["value-", "arrow-"]) {
      for (const mark of document.querySelectorAll("[id^='" + kind + box.dataset.key + "-']")) {
        mark.style.display = box.checked ? "" : "none";
      }
    }
  });
}
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _table(rows: list[tuple[object, ...]], header: tuple[str, ...] | None = None) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header) if header else ""
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{'<tr>' + head + '</tr>' if head else ''}{body}</table>"


def inline_svg(svg: str) -> str:
    """The ``<svg>`` element of an SVG document, without XML declaration, DOCTYPE and
    ``<metadata>``.

    >>> inline_svg('<?xml version="1.0"?>\\n<!DOCTYPE svg>\\n<svg x="1"><metadata>m'
    ...            '</metadata></svg>\\n')
    '<svg x="1"></svg>'
    """
    start = svg.find("<svg")
    body = svg[start:].strip() if start >= 0 else svg
    return re.sub(r"\s*<metadata>.*?</metadata>", "", body, flags=re.DOTALL)


def scene_html(scene: Scene) -> str:
    """The page of ``scene`` (see the module docstring)."""
    svg = inline_svg(scene_svg(scene))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(scene.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(scene.title)}</h1>",
    ]
    if scene.overlays:
        parts.append(_toggles(scene.overlays))
    parts.append(f'<div class="drawing">{svg}</div>')
    if scene.figures:
        rows = [(f.label, f.text(), f.unit if f.value is not None else "") for f in scene.figures]
        parts += ["<h2>Figures</h2>", _table(rows)]
    if scene.legend:
        parts += ["<h2>Legend</h2><ul>"] + [f"<li>{_e(line)}</li>" for line in scene.legend]
        parts.append("</ul>")
    marked = [m for m in scene.nodes if m.detail]
    if marked:
        parts += [
            "<h2>Nodes</h2>",
            _table([(m.node, "; ".join(m.detail)) for m in marked], ("node", "")),
        ]
    if scene.overlays:
        parts.append("<h2>Links</h2>")
        parts += [_overlay_details(o) for o in scene.overlays]
    for name, rows in scene.tables.items():
        if len(rows) > 1:
            parts += [f"<h2>{_e(name.capitalize())}</h2>", _table(list(rows[1:]), rows[0])]
    parts += [f"<script>{_SCRIPT}</script>", "</body></html>", ""]
    return "\n".join(parts)


def _toggles(overlays: Sequence[Overlay]) -> str:
    """A paragraph with one check box per overlay, naming the drawing's group it shows."""
    boxes = []
    for o in overlays:
        if not o.links:
            continue
        target = o.group
        boxes.append(
            f'<label><input type="checkbox" checked data-target="{_e(target)}" '
            f'data-key="{_e(re.sub(r"[^A-Za-z0-9_.-]", "_", o.key))}"> {_e(o.name)}</label>'
        )
    return '<p class="toggles">Show: ' + " ".join(boxes) + "</p>"


def _overlay_details(o: Overlay) -> str:
    """A collapsible block with the overlay's total, its links and (if any) its senders."""
    unit = f" ({o.unit})" if o.unit else ""
    if not o.links:
        return f"<details><summary>{_e(o.name)}: none sent, {_e(o.note)}</summary></details>"
    parts = [
        f"<details><summary>{_e(o.name)}: {o.total:.6g}{_e(unit)} over "
        f"{len(o.links)} links</summary>",
        _table(
            [(f"{u}-{v}", f"{value:.6g}") for u, v, value in o.links],
            ("link", o.unit or "value"),
        ),
    ]
    if o.senders:
        rows = [
            (node, ", ".join(map(str, to)), ", ".join(f"{u}-{v}" for u, v in links))
            for node, to, links in o.senders
        ]
        parts.append(_table(rows, ("from node", "to", "links")))
    parts.append("</details>")
    return "\n".join(parts)
