"""The settings table of ``inev reproduce``: the INEv paper's settings next to the presets'.

``experiments/settings.toml`` holds one row per setting: the figures it applies to, the
paper's setting in its words, inev's (read from each figure's preset by ``key``, or given in
words as ``preset``), whether inev follows the paper (``same``) and why a difference
remains. :func:`settings_rows` reads it and fills in the presets' values;
:func:`settings_problems` says what would make the table incomplete: a figure without a
row of its own, a difference without a reason, an unknown figure or key.

>>> rows = settings_rows()
>>> row = next(r for r in rows if r.setting == "per-hop delay")
>>> row.figures, row.preset
(('12b',), 'link_latency = 0.001, 0.1, 0.2')
>>> settings_problems(rows)
[]
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from inev.common.errors import InevError
from inev.experiments.claims import Figure, load_claims
from inev.experiments.spec import DEFAULTS


@dataclass(frozen=True)
class SettingRow:
    """One row of the settings table, with inev's value filled in."""

    figures: tuple[str, ...]
    setting: str
    paper: str
    preset: str
    same: bool
    why: str
    key: str = ""


def _document(figure: Figure) -> dict[str, Any]:
    path = resources.files("inev.experiments") / "presets" / f"{figure.preset}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def preset_value(document: dict[str, Any], key: str) -> str:
    """A configuration key's value in a preset: its axis values, its base value, or the
    default (marked so).

    >>> preset_value({"axes": {"skew": [1.1, 1.5]}}, "skew")
    '1.1, 1.5'
    >>> preset_value({"base": {"length": 5}}, "length"), preset_value({}, "nodes")
    ('5', '20 (default)')
    """
    if key not in DEFAULTS:
        raise InevError(f"settings: unknown configuration key {key!r}")
    axes, base = document.get("axes", {}), document.get("base", {})
    if key in axes:
        raw = axes[key]
        if isinstance(raw, dict):
            return f"{_num(raw['start'])} to {_num(raw['stop'])} in steps of {_num(raw['step'])}"
        return ", ".join(_num(v) for v in raw)
    if key in base:
        return _num(base[key])
    return f"{_num(DEFAULTS[key])} (default)"


def _num(value: Any) -> str:
    """A setting's value as written: ``10,000``, ``0.001``, ``0.333``, ``true``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def settings_rows(
    text: str | None = None, figures: Sequence[Figure] | None = None
) -> list[SettingRow]:
    """The rows of ``experiments/settings.toml`` (or of ``text``) with the presets' values."""
    if text is None:
        text = (resources.files("inev.experiments") / "settings.toml").read_text(encoding="utf-8")
    known = {f.id: f for f in (figures if figures is not None else load_claims())}
    out = []
    for entry in tomllib.loads(text).get("setting", []):
        for field in ("figures", "setting", "paper"):
            if field not in entry:
                raise InevError(f"settings: a row lacks {field!r}")
        ids = tuple(known) if entry["figures"] == ["all"] else tuple(entry["figures"])
        for figure in ids:
            if figure not in known:
                raise InevError(f"settings: {entry['setting']}: no figure {figure!r}")
        key = entry.get("key", "")
        if key:
            values = {f: preset_value(_document(known[f]), key) for f in ids}
            distinct = list(dict.fromkeys(values.values()))
            preset = (
                distinct[0]
                if len(distinct) == 1
                else "; ".join(f"{f}: {v}" for f, v in values.items())
            )
            preset = f"{key} = {preset}"
        else:
            preset = entry.get("preset", "")
        out.append(
            SettingRow(
                figures=("all",) if entry["figures"] == ["all"] else ids,
                setting=entry["setting"],
                paper=entry["paper"],
                preset=preset,
                same=bool(entry.get("same", False)),
                why=entry.get("why", ""),
                key=key,
            )
        )
    return out


def settings_problems(
    rows: Sequence[SettingRow], figures: Sequence[Figure] | None = None
) -> list[str]:
    """What keeps the table from being complete (empty: nothing)."""
    known = [f.id for f in (figures if figures is not None else load_claims())]
    problems = []
    covered = {f for r in rows if r.figures != ("all",) for f in r.figures}
    problems += [f"figure {f} has no setting of its own" for f in known if f not in covered]
    for r in rows:
        if not r.preset:
            problems.append(f"{r.setting}: no preset value")
        if not r.same and not r.why:
            problems.append(f"{r.setting} ({', '.join(r.figures)}): a difference without a reason")
        if "not stated" in r.paper and not r.why:
            problems.append(f"{r.setting}: the paper states none, inev's choice needs a reason")
    return problems


def settings_table(rows: Sequence[SettingRow]) -> list[str]:
    """The Markdown table of the report."""
    lines = [
        "| figures | setting | the paper | inev's preset | why a difference remains |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        why = r.why or ("the same" if r.same else "")
        if r.same and r.why:
            why = f"the same. {r.why}"
        cells = [", ".join(r.figures), r.setting, r.paper, r.preset, why]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines
