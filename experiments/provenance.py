"""Which code computed a sweep's rows: ``provenance.jsonl`` in the sweep's folder.

A sweep resumes its finished tasks (:mod:`inev.experiments.sweep_folder`), so a folder filled
over several runs may hold rows computed by different versions of inev; a report built from
it would then silently mix planners. Each run therefore appends one JSON line naming the code
it ran (:func:`code_version`), when, and the ids of the tasks it finished; a report states per
figure which code computed how many of its tasks (:func:`describe_versions`), so a mix is
visible and a figure can be re-run whole when it matters.

The record is written by the driver (the process that starts the sweep), not by the
executors: on a cluster the executors run a zipped copy of the package without its git
history, and the driver's code is what they were given.

Choice: the version is ``git describe --always --dirty`` of the checkout inev runs from
(a commit, with ``-dirty`` when the working tree has uncommitted changes), and ``inev <version>``
when inev is not run from a git checkout (an installed wheel). A commit names the code exactly;
a package version does not, and the text says which of the two it is.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

PROVENANCE_FILE = "provenance.jsonl"
UNRECORDED = "unrecorded"
"""The version of tasks finished before runs recorded their code (older folders)."""


@functools.cache
def code_version() -> str:
    """The version of the code this process runs (see the module docstring), read once per
    process: a sweep asks as it starts, so a commit made while it runs is not credited.

    >>> v = code_version()
    >>> isinstance(v, str) and len(v) > 0
    True
    """
    root = Path(__file__).resolve().parent.parent
    if (root / ".git").exists():
        try:
            done = subprocess.run(
                ["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=10"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            )
            if done.stdout.strip():
                return done.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"inev {version('inev')}"
    except PackageNotFoundError:
        return "inev (unknown version)"


def record_run(
    folder: str | os.PathLike[str], task_ids: Iterable[str], code: str | None = None
) -> None:
    """Append to ``folder``'s record that ``code`` (this process's by default) finished
    ``task_ids`` now; nothing is written when no task finished.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     record_run(d, ["b", "a"], code="abc")
    ...     record_run(d, [], code="def")
    ...     task_versions(d)
    {'a': 'abc', 'b': 'abc'}
    """
    ids = sorted(set(task_ids))
    if not ids:
        return
    line = {"code": code or code_version(), "finished": time.strftime("%Y-%m-%d"), "tasks": ids}
    with open(Path(folder) / PROVENANCE_FILE, "a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")


def task_versions(folder: str | os.PathLike[str]) -> dict[str, str]:
    """``{task id: code}`` from ``folder``'s record (a later line wins; a torn last line,
    left by a run killed while writing it, is skipped)."""
    path = Path(folder) / PROVENANCE_FILE
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(text)
            code, tasks = str(line["code"]), list(line["tasks"])
        except (ValueError, KeyError, TypeError):
            continue
        out.update(dict.fromkeys(map(str, tasks), code))
    return out


def version_counts(versions: Mapping[str, str], task_ids: Iterable[str]) -> Counter[str]:
    """How many of ``task_ids`` each code computed (:data:`UNRECORDED` for unknown ones)."""
    return Counter(versions.get(t, UNRECORDED) for t in task_ids)


def describe_versions(counts: Mapping[str, int]) -> str:
    """The counts as a sentence: one code, or the mix, largest first.

    >>> describe_versions({"78fe274": 550})
    'all 550 tasks computed by 78fe274'
    >>> describe_versions({"a1": 300, "b2": 250})
    '**mixed code**: 300 tasks computed by a1, 250 by b2'
    """
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) == 1:
        code, n = ranked[0]
        return f"all {n} tasks computed by {code}"
    first, *rest = ranked
    tail = ", ".join(f"{n} by {code}" for code, n in rest)
    return f"**mixed code**: {first[1]} tasks computed by {first[0]}, {tail}"
