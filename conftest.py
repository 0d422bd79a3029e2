"""Run the package's docstring examples against the installed ``inev`` modules.

The test command collects the docstring examples of every module (``--doctest-modules`` over
the layer folders, see ``[tool.pytest.ini_options]``). The folders are the packages
``inev.common`` ... ``inev.experiments`` (a package-dir mapping), so pytest, which names a
file after its path, would import ``simulator/run.py`` a second time as ``simulator.run``:
a copy whose classes differ from ``inev.simulator.run``'s, and an example mixing the two
fails (``isinstance`` and ``match`` see strangers). This finder makes the path names
aliases: importing ``simulator.run`` returns the module object ``inev.simulator.run``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

LAYERS = ("common", "topologies", "workloads", "planner", "simulator", "experiments")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # The import system stamped the alias's spec on the module; give it its own back
        # (importlib.resources reads package data through it).
        module.__spec__ = self.spec
        module.__loader__ = self.spec.loader


class _InevAliases(importlib.abc.MetaPathFinder):
    """``<layer>.x.y`` -> the module ``inev.<layer>.x.y`` (one object under two names)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in LAYERS:
            return None
        real = importlib.util.find_spec("inev." + fullname)
        if real is None:
            return None
        spec = importlib.util.spec_from_loader(
            fullname, _AliasLoader("inev." + fullname), origin=real.origin
        )
        spec.submodule_search_locations = real.submodule_search_locations
        return spec


sys.meta_path.insert(0, _InevAliases())
