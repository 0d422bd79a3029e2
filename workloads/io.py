"""Reading and writing workloads (``inev-workload/1`` JSON)."""

from __future__ import annotations

import os
from typing import Any

from inev.common.errors import InevError
from inev.common.files import read_json_document, write_json_document
from inev.common.validation import validate_document
from inev.workloads.schema import WorkloadDocument
from inev.workloads.workload import DEFAULT_SELECTIVITY_SEED, DEFAULT_TIES, Query, Workload

FORMAT = "inev-workload/1"
_QUERY_KEYS = {
    "name",
    "pattern",
    "selectivity",
    "where_selectivity",
    "where",
    "return",
    "group_by",
    "weight",
}


def workload_to_dict(workload: Workload) -> dict[str, Any]:
    """The ``inev-workload/1`` document of ``workload`` (optional keys only when set)."""
    document: dict[str, Any] = {"format": FORMAT, "window": workload.window}
    if workload.slide is not None:
        document["slide"] = workload.slide
    document["selectivity_seed"] = workload.selectivity_seed
    if workload.ties != DEFAULT_TIES:
        document["ties"] = workload.ties
    queries = []
    for q in workload.queries:
        entry: dict[str, Any] = {
            "name": q.name,
            "pattern": str(q.pattern),
            "selectivity": {
                f"{a} {b}": s for (a, b), s in q.selectivities if (a, b) not in q.measured
            },
        }
        if q.where is not None:
            entry["where"] = str(q.where)
        if q.measured:
            entry["where_selectivity"] = {
                f"{a} {b}": s for (a, b), s in q.selectivities if (a, b) in q.measured
            }
        if q.returns is not None:
            entry["return"] = str(q.returns)
        if q.group_by:
            entry["group_by"] = list(q.group_by)
        if q.weight != 1.0:
            entry["weight"] = q.weight
        queries.append(entry)
    document["queries"] = queries
    return document


def workload_from_dict(document: dict[str, Any], origin: str = "workload") -> Workload:
    """Validate an ``inev-workload/1`` document and build the :class:`Workload`."""
    if isinstance(document, dict) and "window" not in document:
        raise InevError(f"{origin}: missing key 'window'")
    validate_document(WorkloadDocument, document, origin)
    if "window" not in document:
        raise InevError(f"{origin}: missing key 'window'")
    raw_queries = document.get("queries")
    if not isinstance(raw_queries, list):
        raise InevError(f"{origin}: 'queries' must be a list")
    queries = []
    for position, entry in enumerate(raw_queries):
        if not isinstance(entry, dict):
            raise InevError(f"{origin}: query #{position + 1} must be an object")
        unknown = set(entry) - _QUERY_KEYS
        if unknown:
            raise InevError(
                f"{origin}: query #{position + 1} has unknown key {sorted(unknown)[0]!r}"
            )
        if "pattern" not in entry:
            raise InevError(f"{origin}: query #{position + 1} has no 'pattern'")
        selectivity = entry.get("selectivity", {})
        if not isinstance(selectivity, dict):
            raise InevError(f"{origin}: query #{position + 1} 'selectivity' must be an object")
        measured = entry.get("where_selectivity", {})
        if not isinstance(measured, dict):
            raise InevError(
                f"{origin}: query #{position + 1} 'where_selectivity' must be an object"
            )
        group_by = entry.get("group_by", [])
        if not isinstance(group_by, list):
            raise InevError(f"{origin}: query #{position + 1} 'group_by' must be a list")
        try:
            queries.append(
                Query.build(
                    name=entry.get("name", f"q{position + 1}"),
                    pattern=entry["pattern"],
                    selectivity=selectivity,
                    where=entry.get("where"),
                    returns=entry.get("return"),
                    group_by=group_by,
                    weight=entry.get("weight", 1.0),
                    where_selectivity=measured,
                )
            )
        except InevError as exc:
            raise InevError(f"{origin}: {exc}") from None
    try:
        return Workload.build(
            window=document["window"],
            queries=queries,
            slide=document.get("slide"),
            selectivity_seed=document.get("selectivity_seed", DEFAULT_SELECTIVITY_SEED),
            ties=document.get("ties", DEFAULT_TIES),
        )
    except InevError as exc:
        raise InevError(f"{origin}: {exc}") from None


def load_workload(path: str | os.PathLike[str]) -> Workload:
    """Load and validate an ``inev-workload/1`` file.

    Parameters
    ----------
    path : str or path-like
        The file; a bad one is an :class:`InevError` naming it and the entry.

    Returns
    -------
    Workload

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> wl = Workload.build(3.0, [Query.build("q", "SEQ(A, B)", {"A B": 0.25})])
    >>> save_workload(wl, folder / "w.json")
    >>> load_workload(folder / "w.json") == wl
    True
    >>> shutil.rmtree(folder)
    """
    return workload_from_dict(read_json_document(path, FORMAT), origin=os.fspath(path))


def save_workload(workload: Workload, path: str | os.PathLike[str]) -> None:
    """Write ``workload`` as ``inev-workload/1`` JSON, atomically.

    Parameters
    ----------
    workload : Workload
    path : str or path-like
        The file written (replaced only once it is complete).

    Returns
    -------
    None

    Examples
    --------
    >>> import json, pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> save_workload(Workload.build(3.0, [Query.build("q", "SEQ(A, B)")]), folder / "w.json")
    >>> document = json.loads((folder / "w.json").read_text())
    >>> document["format"], document["window"], document["queries"][0]["pattern"]
    ('inev-workload/1', 3.0, 'SEQ(A, B)')
    >>> shutil.rmtree(folder)
    """
    write_json_document(path, workload_to_dict(workload))
