"""Plans against the INEv authors' planner on fixed instances (stated facts, see the fixture).

tests/fixtures/reference_instances.json records, for the 50 instances issue 13 quotes, the
transmission ratio the reference planner printed and the combination it chose (written by
benchmarks/reference_fixtures.py; the file names the reference revision and harness). The
reference is never run here.

Each ratio is under its own planner's cost model: the reference draws single selectivities
whose product is σ(p), so it prices the events an output selector picks below the matches
that hold them, where inev's model prices them as the matches' distinct events
(:mod:`inev.planner.cost_model`). So the plans are compared under one model: inev's ψ against the
reference's own combination, placed and costed by inev (:mod:`inev.planner.external`); inev
must be at or below it on every instance. The ratios each planner prints are quoted for the
record; benchmarks/bench_plan_quality.py reports how they compare.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inev.planner.external import combination_cost
from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload

FIXTURE = Path(__file__).parent / "fixtures" / "reference_instances.json"
ROWS = json.loads(FIXTURE.read_text())["rows"]


def _instance(skew: float, seed: int):
    net = generate_network(
        nodes=20, out_degree=3, event_types=6, skew=skew, node_ratio=0.5, seed=seed
    )
    return net, generate_workload(net, queries=1, length=5, selectivity=0.1, seed=seed)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"skew{r['skew']}-seed{r['seed']}")
def test_never_above_the_reference_plan_under_one_model(row):
    net, wl = _instance(row["skew"], row["seed"])
    plan = plan_workload(net, wl)
    theirs = combination_cost(net, wl, row["reference_combination"])
    assert plan.psi <= theirs * (1 + 1e-9)


def test_the_issues_worst_instance():
    # issue 13: skew 1.3, seed 21; inev printed 0.728 (selected B events at 48.1 per vertex for
    # about 7.4 matches), the reference 0.174 (tests/fixtures/reference_instances.json)
    (row,) = [r for r in ROWS if r["skew"] == 1.3 and r["seed"] == 21]
    net, wl = _instance(1.3, 21)
    plan = plan_workload(net, wl)
    assert plan.ratio <= row["reference_ratio"]
    for v in plan.vertices:
        if v.output is not None:
            matches = plan.projections[v.projection].rate
            assert v.rate <= matches * (1 + 1e-9)
