"""Overload axes in sweeps: parsing, the sim_* overload columns, shared capacity (Fig. 11)."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from inev.common.errors import InevError
from inev.experiments.measure import measure
from inev.experiments.results import rows_to_table
from inev.experiments.spec import expand, parse_spec
from inev.experiments.sweep_parameters import TaskConfig

OVERLOAD_COLUMNS = (
    "sim_load",
    "sim_utilisation",
    "sim_queue_latency",
    "sim_false_negatives",
    "sim_false_negative_share",
    "sim_false_positives",
    "sim_bound_violations",
    "sim_bound_forced",
    "sim_shed_partial_matches",
    "sim_shed_events",
)
SMALL = TaskConfig(
    nodes=7,
    skew=3.0,
    length=3,
    selectivity=0.5,
    simulate=True,
    duration=5.0,
    sim_rate=40.0,
)


def test_overload_axes_parse_and_expand():
    spec = parse_spec(
        {
            "seeds": 1,
            "base": {"simulate": True, "latency_bound": 0.5},
            "axes": {"overload": [1.2, 1.8], "shed": ["pspice", "random-pm"]},
        }
    )
    points = [(t.point["overload"], t.point["shed"]) for t in expand(spec)]
    assert points == [(1.2, "pspice"), (1.2, "random-pm"), (1.8, "pspice"), (1.8, "random-pm")]
    assert all(t.point["latency_bound"] == 0.5 for t in expand(spec))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"base": {"simulate": True, "overload": 1.5, "latency_bound": 1.0, "shed": "x"}}, "shed"),
        ({"base": {"simulate": True, "overload": 1.5}, "axes": {"shed": ["pspice"]}}, "latency"),
        ({"base": {"simulate": True, "shed": "none", "latency_bound": 1.0}}, "capacity"),
        ({"base": {"simulate": True, "overload": 1.5, "capacity": 10.0}}, "not both"),
        ({"base": {"overload": 1.5}}, "simulate"),
        ({"base": {"simulate": True, "overload": 1.5, "capacity_from": "x"}}, "capacity_from"),
    ],
)
def test_inconsistent_overload_settings_are_refused(document, message):
    with pytest.raises(InevError, match=message):
        parse_spec(document)


def test_a_tiny_overload_row_has_the_new_columns():
    config = replace(SMALL, overload=1.5, latency_bound=0.5, shed="pspice")
    rows = measure(config, 1, ("inev",))
    row = rows["inev"]
    for column in OVERLOAD_COLUMNS:
        assert row[column] is not None, column
    # auto:1/1.5 puts the busiest node of the unlimited run at 150 %
    assert row["sim_load"] == pytest.approx(1.5)
    assert row["sim_false_positives"] == 0
    assert 0.0 <= row["sim_false_negative_share"] <= 1.0
    table = rows_to_table([{"task_id": "t", "method": "inev", **asdict(config), **row}])
    assert table.column("sim_load").to_pylist() == [pytest.approx(1.5)]
    plain = measure(SMALL, 1, ("inev",))["inev"]
    assert all(column not in plain for column in OVERLOAD_COLUMNS)


def test_capacity_from_centralized_gives_every_method_the_same_capacity():
    # the unlimited centralized node needs N work units per time unit; every node of both
    # plans gets N / 2: the centralized node runs at 200 %, INEv's busiest node below it
    config = replace(SMALL, overload=2.0, capacity_from="centralized")
    for seed in range(3):
        rows = measure(config, seed, ("inev", "centralized"))
        assert rows["centralized"]["sim_load"] == pytest.approx(2.0)
        assert rows["inev"]["sim_load"] <= 2.0 + 1e-9
        own = measure(replace(config, capacity_from="self"), seed, ("inev",))
        assert own["inev"]["sim_load"] == pytest.approx(2.0)
