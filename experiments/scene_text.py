"""The text form of a :class:`~inev.experiments.scene.Scene` (``inev draw --text``).

Everything in full, nothing cut short: the figures, the legend (aliases and queries), each
node with what it hosts (nodes in order: numbers by value, then names), each overlay with
every link and its figure, and for a plan each sending vertex's forwarding paths in hop
order, one per destination (``to 8: 13 → 9 → 8``), senders in node order.

>>> from inev.experiments.scene import NodeMark, Overlay, Scene
>>> scene = Scene("plan", "p", (NodeMark(0, 0, 0, "P1", detail=("P1 = SEQ(A, B)",)),),
...               ((0, 1),), (Overlay("A", "A events", ((0, 1, 2.0),), "events / time unit"),))
>>> print(scene_text(scene))
p
<BLANKLINE>
nodes:
  0: P1 = SEQ(A, B)
<BLANKLINE>
forwarding, events / time unit per link:
  A events: 2 in all over 1 link
    0-1 2
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from inev.common.words import plural
from inev.experiments.scene import Scene


def _link(u: object, v: object) -> str:
    return f"{u}-{v}"


def scene_text(scene: Scene) -> str:
    """All of ``scene`` as plain text lines (see the module docstring)."""
    lines = [scene.title]
    lines += [f"  ({note})" for note in scene.notes]
    lines += _figure_lines(scene)
    if scene.legend:
        lines += ["", "legend:"]
        lines += [f"  {line}" for line in scene.legend]
    marked = sorted((m for m in scene.nodes if m.detail), key=lambda m: node_order(m.node))
    if marked:
        lines += ["", "nodes:"]
        lines += [f"  {m.node}: " + "; ".join(m.detail) for m in marked]
    lines += _overlay_lines(scene)
    for name, rows in scene.tables.items():
        lines += _table_lines(name, rows)
    return "\n".join(lines)


def _figure_lines(scene: Scene) -> list[str]:
    """A blank line and one line per figure (label, value, unit), or nothing without figures."""
    if not scene.figures:
        return []
    lines = [""]
    for f in scene.figures:
        unit = f" {f.unit}" if f.unit and f.value is not None else ""
        lines.append(f"  {f.label}: {f.text()}{unit}")
    return lines


def _overlay_lines(scene: Scene) -> list[str]:
    """Under one header, each overlay's total, every link with its figure, and each sender's
    destinations and links."""
    if not scene.overlays:
        return []
    header = "forwarding" if scene.kind == "plan" else "links"
    first = scene.overlays[0]
    unit = f", {first.unit} per link" if first.unit else ""
    lines = ["", f"{header}{unit}:"]
    for overlay in scene.overlays:
        if not overlay.links:
            lines.append(f"  {overlay.name}: none sent, {overlay.note}")
            continue
        lines.append(
            f"  {overlay.name}: {overlay.total:.6g} in all over {plural(len(overlay.links), 'link')}"
        )
        lines.append(
            "    " + ", ".join(f"{_link(u, v)} {value:.6g}" for u, v, value in overlay.links)
        )
        for node, destinations, links in sorted(overlay.senders, key=lambda s: node_order(s[0])):
            found = hop_paths(node, destinations, links)
            paths = "; ".join(f"to {d}: " + " → ".join(map(str, path)) for d, path in found)
            on_paths = {frozenset(p) for _, path in found for p in itertools.pairwise(path)}
            extra = [_link(u, v) for u, v in links if frozenset((u, v)) not in on_paths]
            also = f"; also over {', '.join(extra)}" if extra else ""
            lines.append(f"    from node {node}: {paths or 'no destination'}{also}")
    return lines


def node_order(node: object) -> tuple:
    """Nodes in order: numbers by value, then names.

    >>> sorted([10, "b", 2, "a"], key=node_order)
    [2, 10, 'a', 'b']
    """
    if isinstance(node, int | float) and not isinstance(node, bool):
        return (0, node, "")
    return (1, 0, str(node))


def hop_paths(
    node: object, destinations: Sequence[object], links: Sequence[tuple[object, object]]
) -> list[tuple[object, list[object]]]:
    """Per destination (in node order), the path from ``node`` to it over ``links`` (a
    forwarding tree), hop by hop; a destination the links do not reach gets its node alone.

    >>> hop_paths(1, [3, 0, 1], [(0, 1), (1, 2), (2, 3)])
    [(0, [1, 0]), (1, [1]), (3, [1, 2, 3])]
    """
    around: dict[object, list[object]] = {}
    for u, v in links:
        around.setdefault(u, []).append(v)
        around.setdefault(v, []).append(u)
    parent: dict[object, object] = {node: node}
    frontier = [node]
    while frontier:
        step = []
        for a in frontier:
            for b in sorted(around.get(a, ()), key=node_order):
                if b not in parent:
                    parent[b] = a
                    step.append(b)
        frontier = step
    out = []
    for d in sorted(set(destinations), key=node_order):
        path = [d]
        while d in parent and parent[d] != d:
            d = parent[d]
            path.append(d)
        out.append((path[0], path[::-1] if path[-1] == node else path[:1]))
    return out


def _table_lines(name: str, rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Table ``name`` with its columns aligned (nothing for a header alone).

    >>> _table_lines("t", [("a", "bb"), ("ccc", "d")])
    ['', 't:', '  a    bb', '  ccc  d']
    """
    if len(rows) <= 1:
        return []
    lines = ["", f"{name}:"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        lines.append(
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        )
    return lines
