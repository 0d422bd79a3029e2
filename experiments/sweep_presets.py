"""The sweep presets shipped under ``experiments/presets`` and how a name becomes a spec.

``inev sweep NAME``, ``inev reproduce`` and ``inev demo`` name a preset or a TOML file;
:func:`resolve_spec` decides which and parses it (library code: a notebook resolves a
preset the same way).

>>> preset_names()[:3]
['demo', 'fig10a', 'fig10b']
>>> resolve_spec("demo")[0].name == resolve_spec("demo")[1]["name"]
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from typing import Any

from inev.common.errors import InevError
from inev.experiments.spec import SweepSpec, parse_spec, read_spec_document


def preset_names() -> list[str]:
    """Names of the TOML presets shipped under ``experiments/presets``."""
    folder = resources.files("inev.experiments") / "presets"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def preset_titles() -> dict[str, str]:
    """``{preset: its name line}`` (the ``name`` key of each preset)."""
    import tomllib

    folder = resources.files("inev.experiments") / "presets"
    out = {}
    for name in preset_names():
        document = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
        title = str(document.get("name", name))
        out[name] = title.split(": ", 1)[1] if title.startswith(f"{name}: ") else title
    return out


def resolve_spec(
    name: str, notice: Callable[[str], None] | None = None
) -> tuple[SweepSpec, dict[str, Any]]:
    """A sweep spec from a TOML path or a preset name, with its raw document.

    A file of that name wins over a preset; a folder of that name (a sweep's results, say)
    is no sweep file, so the preset is used. When both exist, ``notice`` is told which one was
    used.
    """
    import tomllib

    preset = resources.files("inev.experiments") / "presets" / f"{name}.toml"
    is_preset = "/" not in name and os.sep not in name and preset.is_file()
    if os.path.isfile(name):
        if is_preset and notice:
            notice(f"{name}: using the file {name}, not the preset of the same name")
        document = read_spec_document(name)
        return parse_spec(document, origin=name), document
    if is_preset:
        if os.path.exists(name) and notice:
            notice(f"{name}: is a folder here, not a sweep file; using the preset {name}")
        document = tomllib.loads(preset.read_text(encoding="utf-8"))
        return parse_spec(document, origin=f"preset {name}"), document
    if os.path.isdir(name):
        raise InevError(f"{name}: is a folder, not a file (and no preset has this name)")
    raise InevError(f"{name}: no such file or preset (presets: {', '.join(preset_names())})")
