"""The settings table of the reproduction: every figure's preset in it, a reason for every
difference, and the presets' values read from the presets themselves."""

from __future__ import annotations

import pytest

from inev.common.errors import InevError
from inev.experiments.claims import load_claims
from inev.experiments.paper_settings import (
    preset_value,
    settings_problems,
    settings_rows,
    settings_table,
)
from inev.experiments.sweep_presets import preset_names


def test_every_figure_preset_has_rows_and_every_difference_a_reason():
    rows = settings_rows()
    assert settings_problems(rows) == []
    figures = load_claims()
    covered = {f for r in rows if r.figures != ("all",) for f in r.figures}
    assert covered == {f.id for f in figures}
    presets = {f.preset for f in figures}
    assert presets == {p for p in preset_names() if p.startswith("fig")}  # no preset left out
    for row in rows:
        assert row.same or row.why, row.setting
        if "not stated" in row.paper:
            assert row.why, row.setting


def test_preset_values_come_from_the_presets():
    rows = {(r.setting, r.figures): r for r in settings_rows()}
    assert rows[("x axis: events per window", ("4b",))].preset == (
        "events_per_window = 2, 5, 10, 50, 100"
    )
    assert rows[("x axis: network size", ("8c",))].preset == "nodes = 5, 20, 50, 100, 150, 200"
    assert rows[("selectivity range", ("9a", "9b", "9c", "9d"))].preset == (
        "selectivity = 9a: 0.1; 9b: 0.1; 9c: 0.001; 9d: 0.001"
    )
    assert preset_value({"axes": {"skew": {"start": 1.1, "stop": 1.9, "step": 0.1}}}, "skew") == (
        "1.1 to 1.9 in steps of 0.1"
    )
    assert preset_value({"base": {"exact_optimum": True}}, "exact_optimum") == "true"
    with pytest.raises(InevError, match="unknown configuration key 'skw'"):
        preset_value({}, "skw")


def test_an_incomplete_table_is_found_out():
    figures = load_claims()
    text = """
[[setting]]
figures = ["4a"]
setting = "x"
paper = "not stated"
preset = "something"

[[setting]]
figures = ["all"]
setting = "y"
paper = "1"
preset = "2"
same = true
"""
    problems = settings_problems(settings_rows(text, figures), figures)
    assert "figure 4b has no setting of its own" in problems
    assert "figure 4a has no setting of its own" not in problems
    assert "x (4a): a difference without a reason" in problems
    assert "x: the paper states none, inev's choice needs a reason" in problems
    with pytest.raises(InevError, match="no figure '99'"):
        settings_rows('[[setting]]\nfigures = ["99"]\nsetting = "s"\npaper = "p"\n', figures)
    table = settings_table(settings_rows(text, figures))
    assert table[2] == "| 4a | x | not stated | something |  |"
    assert table[3] == "| all | y | 1 | 2 | the same |"
