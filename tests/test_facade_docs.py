"""Every public function and class a facade exports carries a numpydoc docstring (issue 47).

A facade is a layer's ``__init__`` (:data:`FACADES`; ``inev`` itself is a namespace package
without one, so the root folder's facade is ``inev.common``). Each callable name of its
``__all__`` (constants such as ``METHODS`` are skipped), unwrapped if decorated, needs a
one-line summary, ``Parameters`` when it takes arguments, ``Returns`` (functions; ``Yields``
for generators; classes may skip it) and an ``Examples`` section with a doctest. numpydoc is
not a dependency, so the sections are found by their headers (:data:`HEADER`). The examples
run where the suite runs every module's (``--doctest-modules`` over the layer folders,
``pyproject.toml``); a test here checks the doctest finder sees each one in its module.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import re
import sys
import tomllib
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FACADES = [
    "inev.common",
    "inev.topologies",
    "inev.workloads",
    "inev.planner",
    "inev.simulator",
    "inev.simulator.engine",
    "inev.experiments",
]
COLLECTED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
    "ini_options"
]["testpaths"]
"""The folders whose modules' doctests the suite runs."""
HEADER = re.compile(r"^(\w+)\n-{3,}$", re.MULTILINE)
"""A numpydoc section header: its name on one line, underlined by dashes."""


def exported(facades: list[str] = FACADES) -> list[str]:
    """``"facade.name"`` of every name in the facades' ``__all__`` (nothing lazy is loaded)."""
    return [f"{f}.{name}" for f in facades for name in importlib.import_module(f).__all__]


def resolve(qualified: str) -> object | None:
    """The function or class a qualified facade name stands for (None: a constant)."""
    facade, _, name = qualified.rpartition(".")
    obj = getattr(importlib.import_module(facade), name)
    return obj if inspect.isclass(obj) or inspect.isfunction(inspect.unwrap(obj)) else None


def facade_names(facades: list[str] = FACADES) -> dict[str, object]:
    """``{"facade.name": object}`` of every function and class in the facades' ``__all__``."""
    return {q: obj for q in exported(facades) if (obj := resolve(q)) is not None}


def sections(doc: str) -> dict[str, str]:
    """``{header: body}`` of the numpydoc sections of ``doc`` (cleaned, as ``inspect.getdoc``)."""
    marks = list(HEADER.finditer(doc))
    ends = [m.start() for m in marks[1:]] + [len(doc)]
    return {
        m.group(1): doc[m.end() : end] for m, end in zip(marks, ends[: len(marks)], strict=True)
    }


def takes_arguments(obj: object) -> bool:
    """Whether ``obj`` (a class: its constructor) takes public arguments besides ``self``."""
    try:
        params = inspect.signature(obj).parameters.values()
    except ValueError:  # a builtin's constructor, as an exception's: it takes a message
        return True
    return any(p.name not in ("self", "cls") and not p.name.startswith("_") for p in params)


def missing_sections(obj: object) -> list[str]:
    """What the docstring of ``obj`` lacks, one word each (empty: a full numpydoc docstring)."""
    target = obj if inspect.isclass(obj) else inspect.unwrap(obj)
    doc = inspect.getdoc(target) or ""
    lines = doc.splitlines()
    found = sections(doc)
    missing = []
    if not lines or not lines[0].strip() or (len(lines) > 1 and lines[1].strip()):
        missing.append("summary")
    if takes_arguments(target) and "Parameters" not in found:
        missing.append("Parameters")
    if not inspect.isclass(target):
        wanted = "Yields" if inspect.isgeneratorfunction(target) else "Returns"
        if wanted not in found:
            missing.append(wanted)
    if ">>> " not in found.get("Examples", ""):
        missing.append("Examples")
    return missing


def report(names: dict[str, object]) -> list[str]:
    """``"name: missing sections"`` for each name whose docstring is not complete."""
    return [f"{n}: {', '.join(m)}" for n, obj in names.items() if (m := missing_sections(obj))]


def test_every_facade_name_has_numpydoc_sections():
    names = facade_names()
    assert len(names) >= 60  # the walk found the facades' names (65 on 2026-12-03)
    assert report(names) == []


def test_the_walk_skips_constants_and_keeps_wrapped_functions():
    names = facade_names(["inev.planner", "inev.simulator"])
    assert "inev.planner.METHODS" not in names
    simulate = names["inev.simulator.simulate"]
    assert inspect.unwrap(simulate) is not simulate  # wrapped by a contextlib decorator
    assert missing_sections(simulate) == []


@pytest.mark.parametrize("qualified", exported())
def test_the_suite_collects_each_facade_example(qualified):
    """``--doctest-modules`` finds the name's examples in the module that defines it, which
    lies in one of the folders the suite collects (``testpaths``)."""
    obj = resolve(qualified)
    if obj is None:
        pytest.skip("a constant")
    module = inspect.getmodule(inspect.unwrap(obj))
    path = Path(module.__file__).resolve().relative_to(ROOT).as_posix()
    assert path.split("/")[0] in COLLECTED, f"{qualified}: {path} is not collected"
    tests = {t.name: t for t in doctest.DocTestFinder().find(module)}
    found = tests.get(f"{module.__name__}.{obj.__name__}")
    assert found is not None and found.examples, f"{qualified}: no doctest in {path}"


# Planted cases: docstrings lacking a section must be reported.


def _undocumented(x: int) -> int:
    return x


def _full(x: int) -> int:
    """Double a number.

    Parameters
    ----------
    x : int
        The number.

    Returns
    -------
    int

    Examples
    --------
    >>> _full(2)
    4
    """
    return 2 * x


def _no_returns(x: int) -> int:
    """Double a number.

    Parameters
    ----------
    x : int

    Examples
    --------
    >>> _no_returns(2)
    4
    """
    return 2 * x


def _two_line_summary() -> None:
    """Do nothing
    at length.

    Returns
    -------
    None

    Examples
    --------
    >>> _two_line_summary()
    """


def _generator(n: int) -> Iterator[int]:
    """Count up.

    Parameters
    ----------
    n : int

    Returns
    -------
    iterator

    Examples
    --------
    >>> list(_generator(2))
    [0, 1]
    """
    yield from range(n)


@dataclass
class _Options:
    """Options.

    Examples
    --------
    The example has no doctest.
    """

    size: int = 1


@contextlib.contextmanager
def _managed(x: int) -> Iterator[int]:
    """Hold ``x``.

    Returns
    -------
    int

    Examples
    --------
    >>> with _managed(1) as v:
    ...     v
    1
    """
    yield x


def _wrapper_of(function: Callable) -> Callable:
    """A decorated ``function`` whose wrapper has a full docstring of its own."""

    def wrapper(*args, **kwargs):
        """Wrap.

        Parameters
        ----------
        args, kwargs
            Passed on.

        Returns
        -------
        object

        Examples
        --------
        >>> 1
        1
        """
        return function(*args, **kwargs)

    wrapper.__wrapped__ = function
    return wrapper


@pytest.mark.parametrize(
    ("planted", "missing"),
    [
        (_full, []),
        (_undocumented, ["summary", "Parameters", "Returns", "Examples"]),
        (_no_returns, ["Returns"]),
        (_two_line_summary, ["summary"]),
        (_generator, ["Yields"]),
        (_Options, ["Parameters", "Examples"]),
        (_managed, ["Parameters", "Yields"]),  # a context manager's generator yields
        (_wrapper_of(_no_returns), ["Returns"]),  # the wrapped function's docstring counts
    ],
)
def test_a_planted_missing_section_is_reported(planted, missing):
    assert missing_sections(planted) == missing


def test_a_planted_facade_is_walked_and_reported(monkeypatch):
    fake = types.ModuleType("fake_facade")
    fake.LIMIT, fake.double, fake.half, fake.Options = 3, _full, _no_returns, _Options
    fake.wrapped = _wrapper_of(_full)
    fake.__all__ = ["LIMIT", "Options", "double", "half", "wrapped"]
    monkeypatch.setitem(sys.modules, "fake_facade", fake)
    names = facade_names(["fake_facade"])
    assert sorted(names) == [f"fake_facade.{n}" for n in ("Options", "double", "half", "wrapped")]
    assert report(names) == [
        "fake_facade.Options: Parameters, Examples",
        "fake_facade.half: Returns",
    ]


def test_the_report_names_the_planted_function():
    assert report({"fake._no_returns": _no_returns, "fake._full": _full}) == [
        "fake._no_returns: Returns"
    ]
