"""The old module name ``query`` of ``inev.workloads`` (now ``pattern``) still serves imports."""

from __future__ import annotations

from pathlib import Path

from inev.workloads import pattern, query

ROOT = Path(__file__).resolve().parent.parent


def test_every_public_name_of_pattern_is_the_same_object_in_query():
    public = [n for n in vars(pattern) if not n.startswith("_")]
    own = {n for n in public if getattr(vars(pattern)[n], "__module__", "") == pattern.__name__}
    assert {"Operator", "Primitive", "split_or", "leaf_types", "validate_pattern"} <= own
    assert all(getattr(query, n) is getattr(pattern, n) for n in public)


def test_no_module_of_the_project_imports_the_old_name():
    old = "inev.workloads." + "query"
    offenders = [
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.py")
        if not {".venv", "build"} & set(p.parts)
        and p != ROOT / "workloads" / "query.py"
        and old in p.read_text(encoding="utf-8")
    ]
    assert offenders == []
