"""A headless Chromium for the drawing page's tests and benchmarks: the page's DOM after its
script ran, parsed into the marks the tests look at.

The browser is found as ``$INEV_CHROMIUM``, ``chromium``, ``chromium-browser`` or
``google-chrome``; without one, :func:`dump_dom` returns None and the tests that need it
skip. It runs with a fresh profile and no network (the page needs none).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def chromium() -> str | None:
    """The browser's path, or None."""
    named = os.environ.get("INEV_CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def run(page: Path, *what: str, address: str = "", size: str = "1600,1000") -> str | None:
    """Chromium on ``page`` (``address``: the part after ``#``) with ``what`` (e.g.
    ``--dump-dom`` or ``--screenshot=out.png``); its standard output, None without one."""
    browser = chromium()
    if browser is None:
        return None
    with tempfile.TemporaryDirectory(prefix="inev-chromium-") as profile:
        url = Path(page).resolve().as_uri() + (f"#{address}" if address else "")
        done = subprocess.run(
            [
                browser,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={size}",
                "--virtual-time-budget=10000",
                *what,
                url,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return done.stdout


def dump_dom(page: Path, address: str = "", size: str = "1600,1000") -> str | None:
    """The page's DOM after its script ran (None without a browser)."""
    return run(page, "--dump-dom", address=address, size=size)


@dataclass
class Marks:
    """What the page drew, read from its DOM (screen pixels)."""

    labels: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Each visible label box: x0, y0, x1, y1."""
    frames: list[tuple[float, float, float, float]] = field(default_factory=list)
    """The centralized node's frames."""
    markers: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    """Each node's marker box, by the node group's id."""
    groups: dict[str, int] = field(default_factory=dict)
    """Per ``<g id>``: how many ``<line>`` it holds directly."""
    boxes: list[str] = field(default_factory=list)
    """The ids of the projection graph's boxes."""
    body: dict[str, str] = field(default_factory=dict)
    """The attributes of ``<body>`` (``data-ready``, ``data-draw-ms``)."""


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.marks = Marks()
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: v or "" for k, v in attrs}
        parent = self.stack[-1] if self.stack else ""
        if tag == "body":
            self.marks.body = a
        if tag == "g":
            self.stack.append(a.get("id", ""))
            if a.get("id", "").startswith("box-"):
                self.marks.boxes.append(a["id"])
            if a.get("id"):
                self.marks.groups.setdefault(a["id"], 0)
            return
        if tag == "line" and parent:
            self.marks.groups[parent] = self.marks.groups.get(parent, 0) + 1
        if tag == "rect" and "labelbox" in a.get("class", "") and a.get("visibility") == "visible":
            self.marks.labels.append(_box(a))
        if tag == "rect" and parent == "marks":
            self.marks.frames.append(_box(a))
        if parent.startswith("node-") and parent not in self.marks.markers:
            if tag == "circle" and "r" in a:
                x, y, r = (float(a[k]) for k in ("cx", "cy", "r"))
                self.marks.markers[parent] = (x - r, y - r, x + r, y + r)
            elif tag == "polygon" and "points" in a:
                points = [tuple(map(float, p.split(","))) for p in a["points"].split()]
                xs, ys = [p[0] for p in points], [p[1] for p in points]
                self.marks.markers[parent] = (min(xs), min(ys), max(xs), max(ys))

    def handle_endtag(self, tag: str) -> None:
        if tag == "g" and self.stack:
            self.stack.pop()


def _box(a: dict[str, str]) -> tuple[float, float, float, float]:
    x, y, w, h = (float(a[k]) for k in ("x", "y", "width", "height"))
    return (x, y, x + w, y + h)


def marks(dom: str) -> Marks:
    """The marks of a dumped DOM."""
    reader = _Reader()
    reader.feed(dom)
    return reader.marks


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes (x0, y0, x1, y1) share more than a hairline."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5
