"""What the commands print (issue 48): every figure with its unit, the 0-match warning,
``inev draw --text`` in order, and plots of the mean with confidence intervals and the bound.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from test_plot import table_of, texts

from inev.common.figures import summary_line
from inev.common.stats import mean_interval, median_interval
from inev.experiments.plot import plot, series
from inev.experiments.scene import plan_scene
from inev.experiments.scene_text import hop_paths, node_order, scene_text
from inev.planner import figures as plan_figures_module
from inev.planner.figures import PlanLike, plan_figures, transmission_hops
from inev.planner.planning import plan_workload
from inev.simulator import figures as simulation_figures_module
from inev.simulator.figures import SimulationResultLike, run_warnings, simulation_figures
from inev.simulator.run import simulate
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload

SVG = "{http://www.w3.org/2000/svg}"
COUNTS = {"method", "equal", "shed", "kept"}
"""Figures that are names or truth values: no unit."""


@pytest.fixture(scope="module")
def line_network():
    """A on both ends of a line, a rare B between (the facade's example), with latencies."""
    net = Network.build(
        range(5), [(0, 1, 2.0), (1, 2), (2, 3), (3, 4, 5.0)], {"A": (5.0, [0, 4]), "B": (0.2, [2])}
    )
    wl = Workload.build(1.0, [Query.build("q", "SEQ(B, A)")])
    return net, wl, plan_workload(net, wl)


def test_every_plan_figure_has_a_unit_and_the_line_states_them(line_network):
    net, _, plan = line_network
    figures = plan_figures(plan, net)
    assert [f.key for f in figures if not f.unit] == ["method", "kept"]
    line = summary_line(figures)
    assert line.endswith(" rate_unit=events/time_unit model_latency_unit=hops+xi*pm")
    assert re.search(r" lower_bound=\S+ ", line)
    by_key = {f.key: f for f in figures}
    assert by_key["lower_bound"].unit == by_key["psi"].unit == "events / time unit"
    # the network has latencies 2 and 5, which the model does not count: the unit says so
    assert "link latencies are not counted" in by_key["model_latency"].unit
    assert "not counted" not in plan_figures(plan)[7].unit  # unknown network: plain unit


def test_the_model_latency_counts_hops_not_link_latencies(line_network):
    _, wl, plan = line_network
    flat = Network.build(
        range(5), [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (5.0, [0, 4]), "B": (0.2, [2])}
    )
    same = plan_workload(flat, wl)
    assert (same.psi, same.latency) == (plan.psi, plan.latency)
    # B is sent from node 2 to both A sources: two hops each way, one forwarding graph
    assert transmission_hops(plan) == 2.0


def test_every_simulation_figure_has_a_unit_and_no_matches_warns(line_network):
    net, wl, plan = line_network
    result = simulate(net, wl, plan, duration=50.0, seed=1)
    figures = simulation_figures(result)
    assert {f.key for f in figures if not f.unit} <= COUNTS
    assert summary_line(figures).endswith(" latency_unit=time_units")
    assert sum(result.matches.values()) > 0 and run_warnings(result) == []
    empty = simulate(net, wl, plan, duration=0.01, seed=1)
    assert sum(empty.matches.values()) == sum(empty.centralized_matches.values()) == 0
    assert empty.equal_to_centralized
    assert run_warnings(empty) == [
        "the run measured 0 matches at the sinks and 0 at the centralized check, so "
        "equal=true compares nothing; a longer duration, higher rates (a total rate) or "
        "larger selectivities give the queries matches"
    ]


def _members(protocol: type) -> set[str]:
    return set(protocol.__annotations__) | {
        name for name, value in vars(protocol).items() if isinstance(value, property)
    }


def _read(module: object, name: str) -> set[str]:
    """The attributes the module's code reads of a variable called ``name``."""
    return {
        node.attr
        for node in ast.walk(ast.parse(inspect.getsource(module)))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        if node.value.id == name
    }


def test_the_figures_protocols_are_what_they_read_of_the_models(line_network):
    # the figures name a plan and a result by protocols, not by the models' classes (the
    # models import the figures: no import cycle, issue 47); each protocol lists what its
    # figures read, and the model has every member (a field's with the field's type)
    net, wl, plan = line_network
    result = simulate(net, wl, plan, duration=5.0, seed=1)
    cases = [
        (PlanLike, plan, plan_figures_module, "plan"),
        (SimulationResultLike, result, simulation_figures_module, "result"),
    ]
    for protocol, model, module, name in cases:
        members = _members(protocol)
        assert _read(module, name) == members
        assert [m for m in members if not hasattr(model, m)] == []
        types = {f.name: f.type for f in dataclasses.fields(model)}
        assert {m: t for m, t in protocol.__annotations__.items() if types[m] != t} == {}


def test_simulate_and_show_print_the_warning(line_network, run_cli, tmp_path):
    from inev.planner.inev_graph import save_plan
    from inev.topologies.io import save_network
    from inev.workloads.io import save_workload

    net, wl, plan = line_network
    save_network(net, tmp_path / "n.json")
    save_workload(wl, tmp_path / "w.json")
    save_plan(plan, tmp_path / "p.json")
    files = [tmp_path / "n.json", tmp_path / "w.json", tmp_path / "p.json"]
    code, out, err = run_cli("simulate", *files, "--duration", "0.01", "-o", tmp_path / "s.json")
    assert code == 0 and "matches=0 equal=true" in out
    assert err.count("warning: the run measured 0 matches") == 1
    code, out, _ = run_cli("show", tmp_path / "s.json")
    assert code == 0 and "warning: the run measured 0 matches" in out
    code, out, err = run_cli("simulate", *files, "--duration", "50", "-o", tmp_path / "t.json")
    assert code == 0 and "warning" not in err
    code, out, _ = run_cli(
        "repair", tmp_path / "p.json", tmp_path / "n.json", tmp_path / "w.json",
        "--changes", _changes(tmp_path), "-o", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 0 and out.strip().endswith("rate_unit=events/time_unit")


def _changes(folder):
    path = folder / "c.json"
    path.write_text(
        '{"format": "inev-changes/1", "changes": [{"time": 1, "kind": "set-rate", '
        '"type": "B", "rate": 0.4}]}',
        encoding="utf-8",
    )
    return path


# ---------------------------------------------------------------------- --text order
def test_text_lists_nodes_in_order_and_paths_hop_by_hop():
    net = Network.build(
        ["x", 10, 2, 0, 1],
        [("x", 10), (10, 2), (2, 0), (0, 1)],
        {"A": (1.0, ["x"]), "B": (0.1, [1])},
    )
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    plan = plan_workload(net, wl, "centralized")
    text = scene_text(plan_scene(plan, net))
    listed = re.findall(r"^  (\S+): ", text.split("nodes:")[1], re.MULTILINE)
    assert listed == sorted(listed, key=lambda n: node_order(int(n) if n.isdigit() else n))
    centre = plan.centralized_node
    for v in plan.vertices:
        if v.forwarding:
            line = next(
                line for line in text.splitlines() if line.startswith(f"    from node {v.node}:")
            )
            path = line.split(": ", 2)[2].split(" → ")
            assert path[0] == str(v.node) and path[-1] == str(centre)
            assert all(  # each step is a link of the tree
                frozenset(step) in {frozenset(map(str, e)) for e in v.forwarding}
                for step in itertools.pairwise(path)
            )


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10_000))
def test_hop_paths_follow_the_tree(size, seed):
    rng = np.random.default_rng(seed)
    links = [(int(rng.integers(0, i)), i) for i in range(1, size)]  # a random tree
    start = int(rng.integers(0, size))
    targets = sorted({int(t) for t in rng.integers(0, size, 3)})
    import networkx as nx

    graph = nx.Graph(links)
    for d, path in hop_paths(start, targets, links):
        assert path == nx.shortest_path(graph, start, d)


# ---------------------------------------------------------------------- plot statistics
def test_the_mean_interval_is_students_t():
    values = [0.2, 0.4, 0.5, 0.9, 1.6]
    low, mean, high = mean_interval(values)
    half = stats.t.ppf(0.975, 4) * np.std(values, ddof=1) / math.sqrt(5)
    assert (low, mean, high) == pytest.approx((0.72 - half, 0.72, 0.72 + half))
    assert mean_interval([3.0]) == (3.0, 3.0, 3.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 30))
def test_the_median_interval_is_the_narrowest_pair_covering_95_percent(n):
    values = [float(v) for v in range(n)]
    low, median, high, coverage = median_interval(values)
    assert median == np.median(values)

    def cover(j, k):  # P(x_(j) <= median < x_(k)), 1-based ranks, by enumeration
        return sum(math.comb(n, i) for i in range(j, k)) / 2**n

    pairs = [(j, n + 1 - j) for j in range(1, n // 2 + 1) if cover(j, n + 1 - j) >= 0.95]
    if pairs:
        j, k = max(pairs)
        assert (low, high) == (values[j - 1], values[k - 1])
        assert coverage == pytest.approx(cover(j, k), abs=1e-4)
    else:
        assert (low, high) == (values[0], values[-1])


def test_plot_stat_mean_draws_the_mean_with_its_interval(tmp_path):
    values = {(1.1, None, "inev"): [0.1, 0.2, 0.9], (1.5, None, "inev"): [0.3, 0.3, 0.6]}
    table = table_of(values)
    data = series(table, "skew", "ratio", stat="mean", spread="ci")
    (points,) = data.values()
    for (_, low, centre, high, n), seeds in zip(points, values.values(), strict=True):
        assert (low, centre, high) == pytest.approx(mean_interval(seeds)) and n == 3
    path = plot(table, tmp_path / "m.svg", x="skew", stat="mean", log=False)
    assert "mean, 95 % confidence interval" in texts(path)
    medians = plot(table, tmp_path / "d.svg", x="skew", log=False)
    assert "median, inter-quartile range" in texts(medians)
    root = ET.parse(path).getroot()
    line = next(e for e in root.iter() if e.get("id") == "line-0")
    assert line is not None


def test_plot_command_takes_stat_and_bound(tmp_path, run_cli):
    from inev.experiments.results import write_results

    rows = table_of({(1.1, None, "inev"): [0.1, 0.2], (1.5, None, "inev"): [0.3, 0.4]})
    rows = rows.to_pylist()
    for row in rows:
        row["centralized_cost"], row["lower_bound"] = 10.0, 0.5
    from inev.experiments.results import rows_to_table

    table = rows_to_table(rows)
    path = write_results(tmp_path, table)
    code, _, err = run_cli(
        "plot", path, "-o", tmp_path / "p.svg", "--x", "skew", "--stat", "mean", "--bound"
    )
    assert code == 0, err
    shown = texts(tmp_path / "p.svg")
    assert "provable lower bound" in shown and "mean, 95 % confidence interval" in shown
    code, _, err = run_cli("plot", path, "-o", tmp_path / "q.svg", "--x", "skew", "--y",
                           "latency", "--bound")  # fmt: skip
    assert code == 1 and "--bound draws the lower bound of ratio or cost" in err
