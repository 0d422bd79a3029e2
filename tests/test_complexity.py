"""Size floors of the package, measured with radon's API (``radon cc -s -n D`` lists the same).

- At most :data:`MAX_COMPLEX` functions or methods have a cyclomatic complexity above
  :data:`COMPLEXITY` (radon's rank D and worse); each of them is a measured hot path whose
  docstring says why it stays one function and names the benchmark that times it
  (``benchmarks/...``), save the ones in :data:`UNANNOTATED`.
- No module has more than :data:`MAX_LINES` lines: the package's, and the scripts and tests
  around it (:data:`LINE_FOLDERS`), save the ones in :data:`LONG` while they are being split.

Each check runs on the tree and on planted sources that must fail it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from radon.visitors import ComplexityVisitor, Function

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["common", "topologies", "workloads", "planner", "simulator", "experiments"]
COMPLEXITY = 20
MAX_COMPLEX = 2
"""Functions above :data:`COMPLEXITY` the package may hold (issue 47: at most 2, each naming
its benchmark): the planner's two layouts, alg2's ``_layout`` and the incremental
``Placer.bounded`` (the local search's hot path, its running bound kept in locals). The
engine's ``_feed_ruled``, the predecessors' ``RangeStore.query`` and two-step's ``_trends``
were split into workers with one job each (one loop per kind of element, no call per partial
match or trend), at their benchmarks' speed."""
MAX_LINES = 600
LINE_FOLDERS = [*PACKAGES, "benchmarks", "tests", "examples"]
"""Folders whose modules keep :data:`MAX_LINES` (the complexity bound is the package's only:
a benchmark or a test may be one long loop)."""
LONG: dict[str, int] = {}
"""Modules above :data:`MAX_LINES` with the lines they may have at most, listed by name so that
a new one fails and a listed one cannot grow; an entry no longer needed fails too, so the list
only shrinks (empty since ``planner/search.py`` was split by job into ``search``,
``last_passes`` and ``search_budget``, issue 47)."""
UNANNOTATED: set[str] = set()
"""Functions above the bound whose docstrings do not name a benchmark yet, listed by name so
that a new one fails (empty since alg2's ``_layout`` names its benchmark and exact's
``_placement`` was split)."""


def package_sources(folders: list[str] = PACKAGES) -> dict[str, str]:
    """``{path relative to the repository: source}`` of every module under ``folders``
    (default: the package's)."""
    return {
        p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
        for folder in folders
        for p in sorted((ROOT / folder).rglob("*.py"))
    }


def long_modules(sources: dict[str, str], allowed: dict[str, int] | None = None) -> list[str]:
    """The modules above :data:`MAX_LINES` lines (or above their entry in ``allowed``), one
    line each (empty: none)."""
    allowed = {} if allowed is None else allowed
    out = []
    for path, code in sources.items():
        lines = len(code.splitlines())
        if lines > allowed.get(path, MAX_LINES):
            out.append(f"{path}: {lines} lines (at most {allowed.get(path, MAX_LINES)})")
    return out


def over_complex(sources: dict[str, str]) -> list[tuple[str, int, str]]:
    """``(path:function, complexity, docstring)`` of the functions and methods above
    :data:`COMPLEXITY`, most complex first."""
    found = []
    for path, code in sources.items():
        docs = {
            (node.name, node.lineno): ast.get_docstring(node) or ""
            for node in ast.walk(ast.parse(code))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for block in ComplexityVisitor.from_code(code).blocks:
            if isinstance(block, Function) and block.complexity > COMPLEXITY:
                doc = docs.get((block.name, block.lineno), "")
                found.append((f"{path}:{block.name}", block.complexity, doc))
    return sorted(found, key=lambda f: (-f[1], f[0]))


def violations(sources: dict[str, str]) -> list[str]:
    """What breaks the floors, one line each (empty: none)."""
    out = []
    complex_ = over_complex(sources)
    if len(complex_) > MAX_COMPLEX:
        listed = ", ".join(f"{name} {cc}" for name, cc, _ in complex_)
        out.append(f"{len(complex_)} functions above complexity {COMPLEXITY}: {listed}")
    for name, cc, doc in complex_:
        if name not in UNANNOTATED and "benchmarks/" not in doc:
            out.append(f"{name} (complexity {cc}): its docstring names no benchmark")
    return out


def _branchy(name: str, branches: int, doc: str = "") -> str:
    """A function of complexity ``branches + 1``."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(branches))
    return f'def {name}(x):\n    """{doc}"""\n{body}    return -1\n'


def test_the_package_keeps_its_size_floors():
    assert violations(package_sources()) == []


def test_no_module_is_too_long():
    assert long_modules(package_sources(LINE_FOLDERS), LONG) == []


def test_the_long_modules_are_still_long():
    sources = package_sources(LINE_FOLDERS)
    lines = {path: len(sources[path].splitlines()) for path in LONG if path in sources}
    short = {path for path in LONG if lines.get(path, 0) <= MAX_LINES}
    assert short == set(), f"at most {MAX_LINES} lines now: strike {short} off LONG"


def test_the_exemptions_are_still_needed():
    names = {name for name, _, _ in over_complex(package_sources())}
    assert names >= UNANNOTATED, f"no longer above {COMPLEXITY}: {UNANNOTATED - names}"


def test_planted_complex_functions_fail():
    timed = "Kept whole: timed by benchmarks/bench_x.py."
    allowed = {f"m{i}.py": _branchy(f"f{i}", COMPLEXITY, timed) for i in range(MAX_COMPLEX)}
    assert violations(allowed) == []
    assert [cc for _, cc, _ in over_complex(allowed)] == [COMPLEXITY + 1] * MAX_COMPLEX
    one_more = {**allowed, "extra.py": _branchy("g", COMPLEXITY, timed)}
    assert violations(one_more)[0].startswith(f"{MAX_COMPLEX + 1} functions above complexity")
    method = "class K:\n" + "".join(
        "    " + line + "\n" for line in _branchy("m", COMPLEXITY, timed).splitlines()
    )
    assert len(violations({**allowed, "k.py": method})) == 1  # methods count too
    silent = {"s.py": _branchy("quiet", COMPLEXITY + 3)}
    assert violations(silent) == ["s.py:quiet (complexity 24): its docstring names no benchmark"]
    assert violations({"ok.py": _branchy("small", COMPLEXITY - 1)}) == []


def test_a_planted_long_module_fails():
    assert long_modules({"long.py": "x = 1\n" * MAX_LINES}) == []
    assert long_modules({"long.py": "x = 1\n" * (MAX_LINES + 1)}) == [
        f"long.py: {MAX_LINES + 1} lines (at most {MAX_LINES})"
    ]
    # a listed module may keep its size, not grow; the others keep the bound
    listed = {"old.py": MAX_LINES + 50}
    grown = {"old.py": "x = 1\n" * (MAX_LINES + 51), "new.py": "x = 1\n" * (MAX_LINES + 1)}
    assert long_modules({"old.py": "x = 1\n" * (MAX_LINES + 50)}, listed) == []
    assert long_modules(grown, listed) == [
        f"old.py: {MAX_LINES + 51} lines (at most {MAX_LINES + 50})",
        f"new.py: {MAX_LINES + 1} lines (at most {MAX_LINES})",
    ]


def test_the_line_check_sees_the_scripts_and_tests():
    sources = package_sources(LINE_FOLDERS)
    assert "benchmarks/fuzz_commands.py" in sources
    assert "tests/test_complexity.py" in sources
    assert "examples/build_notebooks.py" in sources
