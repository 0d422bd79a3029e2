"""Scenes as one self-contained, interactive HTML page (``inev draw … -o page.html``).

The page holds its data (the scene as JSON), its script and its style inline: nothing is
loaded from anywhere, so the file can be mailed or opened offline. The script
(``page/page.js``) draws each view into an SVG and makes it explorable:

- **zoom and pan** (wheel, drag, double-click to fit), with markers, lines and labels
  keeping their size on screen;
- **hover details**: a node's projections (pattern, partition), roles and, for a group of
  nodes, its members and what travels inside it; a link's latency and every input crossing
  it with its rate, direction and the types it carries;
- **highlighting**: click an input to see its tree alone, a query to see the inputs and
  projections its matches depend on; a box per input shows or hides it;
- **link widths by rate** (linear when the rates span less than 20×, else logarithmic; the
  side panel shows the scale), a legend of the marks, the figures and the aliases;
- **labels placed without overlap**: a label goes beside its marker where it hides no
  marker and no other label, else it is left out (hover the marker); the centralized
  node's frame is drawn last, so no label ever hides it.

Tabs: the topology; the projection graph (:mod:`inev.experiments.scene_logical`) when given;
for ``--vs`` the difference and the two plans side by side; and the tables of the text form
(figures, legend, nodes, every overlay's links and senders).

>>> from inev.experiments.scene import NodeMark, Overlay, Scene
>>> scene = Scene("plan", "p", (NodeMark(0, 0, 0, "P1"), NodeMark(1, 1, 0)), ((0, 1),),
...               (Overlay("A", "A events", ((0, 1, 2.0),), "events / time unit"),))
>>> page = scene_html(scene)
>>> page.startswith("<!DOCTYPE html>"), "<script src" in page, page_data(page)["tabs"][0]["name"]
(True, False, 'Topology')
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from inev.experiments.scene import Overlay, Scene, element_id
from inev.experiments.scene_logical import LogicalScene

PALETTE10 = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
"""matplotlib's ``tab10`` (the PNG and SVG drawings use the same colours)."""
PALETTE20 = (
    "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
    "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7",
    "#bcbd22", "#dbdb8d", "#17becf", "#9edae5",
)  # fmt: skip
"""matplotlib's ``tab20``, for more than ten drawn overlays."""
LOCAL = "#9aa3ad"
"""The colour of an input that crosses no link."""


def _e(text: object) -> str:
    return html.escape(str(text))


def _asset(name: str) -> str:
    return resources.files("inev.experiments").joinpath("page", name).read_text(encoding="utf-8")


def _number(value: Any) -> Any:
    """A JSON-safe number: None for NaN and infinities (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def overlay_colours(overlays: Sequence[Overlay]) -> dict[str, str]:
    """``{overlay key: colour}``: drawn overlays in palette order, the others grey.

    >>> overlay_colours([Overlay("A", "A", ((0, 1, 1.0),)), Overlay("B", "B", ())])
    {'A': '#1f77b4', 'B': '#9aa3ad'}
    """
    drawn = [o for o in overlays if o.links]
    palette = PALETTE10 if len(drawn) <= 10 else PALETTE20
    out = {o.key: o.colour or palette[i % len(palette)] for i, o in enumerate(drawn)}
    out.update({o.key: LOCAL for o in overlays if not o.links})
    return out


def topology_data(scene: Scene, name: str = "Topology") -> dict[str, Any]:
    """What the page's script draws of ``scene``: nodes by index, links, overlays."""
    index = {m.node: i for i, m in enumerate(scene.nodes)}
    colours = overlay_colours(scene.overlays)
    return {
        "type": "topology",
        "name": name,
        "title": scene.title,
        "kind": scene.kind,
        "nodes": [_node_data(m) for m in scene.nodes],
        "links": [[index[u], index[v]] for u, v in scene.links if u in index and v in index],
        "overlays": [_overlay_data(o, index, colours) for o in scene.overlays if o.links],
        "local": [_overlay_data(o, index, colours) for o in scene.overlays if not o.links],
        "queries": {
            q: {
                "inputs": list(view.inputs),
                "projections": list(view.projections),
                "sinks": [index[s] for s in view.sinks if s in index],
            }
            for q, view in scene.queries.items()
        },
        "sink_of": _sinks_named(scene),
        "figures": [
            [f.label, f.text(), f.unit if f.value is not None else ""]
            for f in scene.figures
            if f.in_line
        ],
        "legend": [line for line in scene.legend if line.split(":", 1)[0] not in scene.queries],
        "notes": list(scene.notes),
    }


def _node_data(m: Any) -> dict[str, Any]:
    return {
        "id": str(m.node),
        "key": element_id("n", m.node)[2:],
        "x": _number(m.x),
        "y": _number(m.y),
        "name": m.name,
        "label": m.label,
        "roles": sorted(m.roles),
        "size": m.size,
        "detail": list(m.detail),
        "region": m.region,
        "hosts": list(m.hosts),
        "members": len(m.members) or 1,
    }


def _overlay_data(o: Overlay, index: Mapping[Any, int], colours: Mapping[str, str]) -> dict:
    inside = [(u, v, x) for u, v, x in o.links if u in index and v in index]
    return {
        "key": o.key,
        "name": o.name,
        "group": o.group,
        "unit": o.unit,
        "colour": colours[o.key],
        "total": _number(o.total),
        "links": [[index[u], index[v], _number(x)] for u, v, x in inside],
        "dirs": sorted([index[a], index[b]] for a, b in o.directions if {a, b} <= index.keys()),
        "note": o.note,
        "forwarded": o.forwarded,
    }


def _sinks_named(scene: Scene) -> dict[str, str]:
    """Per query, the alias of its sink projection (from the legend's ``q: matches from P``)."""
    out = dict.fromkeys(scene.queries, "")
    for line in scene.legend:
        query, _, rest = line.partition(": matches from ")
        if query in out:
            out[query] = rest
    return out


def logical_data(
    view: LogicalScene, colours: Mapping[str, str], name: str = "Projection graph"
) -> dict[str, Any]:
    """What the page's script draws of a projection graph; ``colours`` are the topology's
    overlay colours (by alias or type), so an input has one colour in both views."""
    title_of = {b.key: b.title for b in view.boxes}
    boxes = [
        {
            "key": b.key,
            "id": element_id("b", b.title)[2:],
            "title": b.title,
            "lines": list(b.lines),
            "kind": b.kind,
            "layer": b.layer,
            "order": b.order,
            "multi": b.multi,
            "regional": b.regional,
            "sink": list(b.sinks),
            "detail": list(b.detail),
            "input": b.title,
            "colour": colours.get(b.title, "#39424c") if b.kind == "input" else "#39424c",
        }
        for b in view.boxes
    ]
    edges = []
    for a in view.arrows:
        source = title_of.get(a.source, a.source)
        what = a.forwarded.replace(f" of {source} matches", "").replace(f"whole {source} ", "")
        label = f"{a.rate:.3g}/tu · {what}" + (" · local" if a.local else "")
        detail = [
            f"sends {a.forwarded}: {a.rate:.6g} events / time unit",
            "not sent: used where it is made"
            if a.local
            else f"its transmission cost: {a.cost:.6g} events / time unit (all its consumers)",
        ]
        edges.append(
            {
                "source": a.source,
                "target": a.target,
                "source_label": source,
                "target_label": title_of.get(a.target, a.target),
                "rate": _number(a.rate),
                "label": label,
                "local": a.local,
                "detail": detail,
                "colour": colours.get(source, "#555c66"),
            }
        )
    sources = {a.source for a in view.arrows}
    inputs = [
        {"key": b.title, "name": b.title, "colour": colours.get(b.title, LOCAL), "note": b.lines[0]}
        for b in view.boxes
        if b.key in sources
    ]
    legend = [f"{b.title} = {b.key}" for b in view.boxes if b.kind == "projection"]
    return {
        "type": "logical",
        "name": name,
        "title": view.title,
        "boxes": boxes,
        "edges": edges,
        "inputs": inputs,
        "queries": {q: list(keys) for q, keys in view.queries.items()},
        "sink_of": {q: b.title for b in view.boxes for q in b.sinks},
        "legend": legend,
        "figures": [],
        "notes": [
            "boxes: event types (round) and projections; a stack: multi-node; dashed: "
            "regional; thick: a query's sink; arrows: rate and what travels"
        ],
    }


def page(
    title: str,
    tabs: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    headline: str = "",
    details: str = "",
) -> str:
    """One HTML page with ``tabs`` (name, views) drawn by the script, and ``details`` (HTML
    tables) in a last tab."""
    data = {"tabs": [{"name": name, "views": list(views)} for name, views in tabs]}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_asset('page.css')}</style></head><body>",
        f'<header><h1>{_e(title)}</h1><span class="headline">{headline}</span>'
        '<nav class="tabs"></nav></header>',
        "<main></main>",
        f'<section class="details" id="details" hidden>{details}</section>' if details else "",
        '<div class="tip" id="tip" hidden></div>',
        f'<script type="application/json" id="inev-data">{text}</script>',
        f"<script>{_asset('page.js')}</script>",
        "</body></html>",
        "",
    ]
    return "\n".join(p for p in parts if p)


def page_data(text: str) -> dict[str, Any]:
    """The data block of a page written by :func:`page` (tests, tools)."""
    found = re.search(r'<script type="application/json" id="inev-data">(.*?)</script>', text, re.S)
    if found is None:
        raise ValueError("not an inev drawing page")
    return json.loads(found.group(1))


def headline(scene: Scene) -> str:
    """The scene's first few figures, for the page's header."""
    shown = [f for f in scene.figures if f.in_line and f.key != "method"][:4]
    return " · ".join(
        f"{_e(f.label)} <b>{_e(f.text())}</b>" + (f" {_e(f.unit)}" if f.unit else "") for f in shown
    )


def scene_html(scene: Scene, logical: LogicalScene | None = None) -> str:
    """The page of ``scene``, with a tab for the projection graph when ``logical`` is given."""
    tabs: list[tuple[str, list[dict[str, Any]]]] = [("Topology", [topology_data(scene)])]
    if logical is not None:
        colours = overlay_colours(scene.overlays)
        tabs.append(("Projection graph", [logical_data(logical, colours)]))
    return page(scene.title, tabs, headline(scene), details_html(scene))


def logical_html(logical: LogicalScene, scene: Scene | None = None) -> str:
    """The page of a projection graph first (``inev draw --logical -o page.html``), with the
    topology as its second tab when ``scene`` is given."""
    colours = overlay_colours(scene.overlays) if scene is not None else {}
    tabs: list[tuple[str, list[dict[str, Any]]]] = [
        ("Projection graph", [logical_data(logical, colours)])
    ]
    if scene is not None:
        tabs.append(("Topology", [topology_data(scene)]))
    return page(logical.title, tabs, "", details_html(scene) if scene is not None else "")


def comparison_html(difference: Scene, first: Scene, second: Scene) -> str:
    """The page of ``inev draw A --vs B``: the difference, then both plans side by side."""
    tabs = [
        ("Difference", [topology_data(difference, "difference")]),
        ("Side by side", [topology_data(first, first.title), topology_data(second, second.title)]),
    ]
    return page(difference.title, tabs, headline(difference), details_html(difference))


# ---------------------------------------------------------------------- details tab
def _table(rows: list[tuple[object, ...]], header: tuple[str, ...] | None = None) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header) if header else ""
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{'<tr>' + head + '</tr>' if head else ''}{body}</table>"


def details_html(scene: Scene) -> str:
    """The text form's content as HTML tables: figures, legend, nodes, links, tables."""
    parts = []
    if scene.figures:
        rows = [(f.label, f.text(), f.unit if f.value is not None else "") for f in scene.figures]
        parts += ["<h2>Figures</h2>", _table(rows)]
    if scene.legend:
        parts += ["<h2>Legend</h2><ul>"] + [f"<li>{_e(line)}</li>" for line in scene.legend]
        parts.append("</ul>")
    marked = [m for m in scene.nodes if m.detail]
    if marked:
        rows = [(m.node, m.name, "; ".join(m.detail)) for m in marked]
        parts += ["<h2>Nodes</h2>", _table(rows, ("node", "name", ""))]
    if scene.overlays:
        parts.append("<h2>Links</h2>")
        parts += [_overlay_details(o) for o in scene.overlays]
    for name, rows in scene.tables.items():
        if len(rows) > 1:
            parts += [f"<h2>{_e(name.capitalize())}</h2>", _table(list(rows[1:]), rows[0])]
    return "\n".join(parts)


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
