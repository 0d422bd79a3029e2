"""Lazy public facades: a layer's ``__init__`` names its public API without importing it.

``inev.simulator``, ``inev.experiments``, ``inev.topologies`` and ``inev.workloads`` list their
public names and the modules that define them; a name is imported on first use
(:pep:`562`). So ``import inev.simulator.engine.cli`` (``inev match``) or ``inev --help`` does
not pay for SimPy, Spark or pyarrow, yet ``from inev.simulator import simulate`` works.

>>> import types
>>> module = types.ModuleType("demo")
>>> module.__getattr__, module.__dir__ = lazy_exports(vars(module), {"sqrt": "math"})
>>> module.sqrt(9.0), dir(module)
(3.0, ['sqrt'])
>>> module.cbrt
Traceback (most recent call last):
AttributeError: module 'demo' has no attribute 'cbrt'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_exports(
    namespace: MutableMapping[str, Any], names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` for ``names`` ({public name: module}).

    ``namespace`` is the facade module's ``globals()``: a name, once imported, is stored
    there, so later lookups are plain attribute reads.
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
