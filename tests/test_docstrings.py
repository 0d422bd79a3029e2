"""The docstring examples of the modules that print, draw and sweep run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "inev.common.figures",
    "inev.common.words",
    "inev.topologies.network",
    "inev.topologies.cli",
    "inev.planner.figures",
    "inev.simulator.result",
    "inev.experiments.cli",
    "inev.experiments.columns",
    "inev.experiments.spec",
    "inev.experiments.sweep",
    "inev.experiments.sweep_folder",
    "inev.experiments.spark",
    "inev.experiments.plot",
    "inev.experiments.scene",
    "inev.experiments.scene_figure",
    "inev.experiments.scene_html",
    "inev.experiments.scene_text",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), report=False)
    assert result.failed == 0
