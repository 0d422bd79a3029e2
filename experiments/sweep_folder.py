"""A sweep's results folder remembers the sweep it holds (``spec.json``).

Resuming is only safe for the same sweep: task ids cover a task's configuration and seed,
but not the methods, so a folder reused for another spec would mix old rows into the new
summary. :func:`claim_folder` therefore compares the sweep's *identity* (base, axes,
methods, seeds: everything that decides which rows exist and what they hold; not the name
or the ``[plot]`` table) with the one stored in the folder: the same sweep resumes, a
different one is refused unless ``force`` starts over (removing the old parts and results).

Another number of seeds is the same sweep at another scale (:func:`same_but_seeds`): a task's
id is its configuration and seed, so the tasks of the seeds both runs share resume and rows
of seeds no longer asked for are left out of the results (and kept in the parts, for a later
run with more seeds). A sweep of 5 seeds per point grows to 50 without repeating the 5.

>>> from inev.experiments.spec import parse_spec
>>> a = parse_spec({"seeds": 2, "axes": {"skew": [1.1]}})
>>> b = parse_spec({"seeds": 3, "axes": {"skew": [1.1]}})
>>> difference(identity(a), identity(b))
'seeds: 2 there, 3 here'
>>> same_but_seeds(identity(a), identity(b))
True
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.common.files import read_json_document, write_json_document
from inev.common.option_names import option
from inev.experiments.provenance import PROVENANCE_FILE
from inev.experiments.spec import SweepSpec, parse_spec

SPEC_FILE = "spec.json"
FORMAT = "inev-sweep/1"


def identity(spec: SweepSpec) -> dict[str, Any]:
    """What makes two sweeps the same: base, axes, methods, seeds and the first seed."""
    return {
        "base": dict(sorted(spec.base.items())),
        "axes": {k: list(v) for k, v in spec.axes.items()},
        "methods": list(spec.methods),
        "seeds": spec.seeds,
        "first_seed": spec.first_seed,
    }


def difference(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The first difference between two identities, in words (``None`` when equal)."""
    for key in ("methods", "seeds", "first_seed"):
        if old.get(key) != new.get(key):
            return f"{key}: {_short(old.get(key))} there, {_short(new.get(key))} here"
    for part in ("axes", "base"):
        a, b = old.get(part, {}), new.get(part, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return (
                    f"{'axis' if part == 'axes' else 'base'} {key}: "
                    f"{_short(a.get(key))} there, {_short(b.get(key))} here"
                )
    return None


def same_but_seeds(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether two identities differ in the number of seeds at most (see the module)."""
    return {**old, "seeds": None} == {**new, "seeds": None}


def _short(value: Any) -> str:
    if value is None:
        return "absent"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_record(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The record in ``folder/spec.json`` (``None`` when there is none), checked: a JSON
    object of format ``inev-sweep/1`` within the JSON limits of
    :func:`inev.common.files.read_json_document`, whose ``spec`` is a sweep document that
    :func:`inev.experiments.spec.parse_spec` accepts (its ``[plot]`` table included).
    :class:`InevError` in one line otherwise."""
    path = Path(folder) / SPEC_FILE
    if not path.is_file():
        return None
    record = read_json_document(path, FORMAT)
    document = record.get("spec", {})
    if not isinstance(document, dict) or not isinstance(document.get("axes", {}), dict):
        raise InevError(f"{path}: 'spec' must be a sweep document with an [axes] table")
    parse_spec(document, origin=str(path))
    return record


def stored_identity(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The identity recorded in ``folder/spec.json`` (``None`` when there is none)."""
    try:
        record = read_record(folder)
        if record is None:
            return None
        stored = record.get("identity")
        if isinstance(stored, dict):
            return stored
        return identity(parse_spec(record.get("spec", {}), origin=str(Path(folder) / SPEC_FILE)))
    except InevError as exc:
        raise InevError(
            f"unreadable sweep record: {exc}; {option('force')} starts the folder over"
        ) from None


def has_results(folder: str | os.PathLike[str]) -> bool:
    """Whether the folder holds finished rows (parts or a results file)."""
    out = Path(folder)
    return (out / "results.parquet").is_file() or any((out / "parts").glob("part-*.parquet"))


def claim_folder(
    folder: str | os.PathLike[str],
    spec: SweepSpec,
    document: dict[str, Any] | None = None,
    force: bool = False,
) -> None:
    """Make ``folder`` the home of ``spec``: refuse another sweep's folder unless ``force``.

    Writes ``spec.json`` (the raw ``document`` if given, and the identity). With ``force``,
    old parts and results are removed first.
    """
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise InevError(f"{folder}: exists and is not a folder")
    mine = identity(spec)
    if out.is_dir() and not force:
        theirs = stored_identity(out)
        if theirs is None and has_results(out):
            raise InevError(
                f"{folder}: holds results of an unknown sweep; {option('force')} starts over, "
                "or give another -o folder"
            )
        if theirs is not None and has_results(out) and not same_but_seeds(theirs, mine):
            changed = difference(theirs, mine)
            if changed:
                raise InevError(
                    f"{folder}: holds results of a different sweep ({changed}); "
                    f"{option('force')} starts over, or give another -o folder"
                )
    if force:
        shutil.rmtree(out / "parts", ignore_errors=True)
        (out / "results.parquet").unlink(missing_ok=True)
        (out / PROVENANCE_FILE).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    record = {"format": FORMAT, "spec": document or spec_document(spec), "identity": mine}
    write_json_document(out / SPEC_FILE, record)


def spec_document(spec: SweepSpec) -> dict[str, Any]:
    """A spec document (as TOML would give) that parses back to ``spec``."""
    return {
        "name": spec.name,
        "seeds": spec.seeds,
        "first_seed": spec.first_seed,
        "methods": list(spec.methods),
        "base": dict(spec.base),
        "axes": {k: list(v) for k, v in spec.axes.items()},
        "plot": dict(spec.plot),
    }


def stored_document(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The raw spec document recorded in ``folder/spec.json`` (empty when none; checked as
    :func:`read_record` says)."""
    record = read_record(folder)
    return dict(record.get("spec", {})) if record else {}
