"""Sweep plots: zeros on a log axis, bands and bars, human labels, subtitle, ticks, options."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from inev.common.errors import InevError
from inev.experiments.columns import METRICS, PARAMETERS, axis_label
from inev.experiments.plot import PlotOptions, plot, setup_text
from inev.experiments.results import SCHEMA, rows_to_table
from inev.experiments.spec import DEFAULTS, parse_spec

SVG = "{http://www.w3.org/2000/svg}"


def table_of(values: dict[tuple, list[float]], x: str = "skew", lines: str | None = None):
    """Rows ``{(x value, line value, method): [metric per seed]}`` as a results table."""
    rows = []
    for (xv, line, method), seeds in values.items():
        for seed, value in enumerate(seeds):
            row = {
                **DEFAULTS,
                "task_id": f"{xv}-{line}-{seed}",
                "task_index": len(rows),
                "seed": seed,
                "method": method,
                x: xv,
                "ratio": value,
            }
            if lines:
                row[lines] = line
            rows.append(row)
    return rows_to_table(rows)


def texts(path) -> list[str]:
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def ids(path) -> set[str]:
    root = ET.parse(path).getroot()
    return {e.get("id") for e in root.iter() if e.get("id")}


def test_zeros_on_a_log_axis_are_drawn_at_the_floor_with_a_note(tmp_path):
    table = table_of(
        {
            (1.1, None, "inev"): [0.0, 0.0, 0.0],
            (1.5, None, "inev"): [0.01, 0.02, 0.03],
            (1.9, None, "inev"): [0.1, 0.2, 0.3],
        }
    )
    path = plot(table, tmp_path / "z.svg", x="skew")
    found = ids(path)
    assert {"line-0", "band-0", "floor-0"} <= found
    root = ET.parse(path).getroot()
    line = next(e for e in root.iter() if e.get("id") == "line-0")
    # all three medians are drawn (the zero one at the floor), none is dropped
    d = line.find(f"{SVG}path").get("d")
    assert d.count("L") == 2
    floor = next(e for e in root.iter() if e.get("id") == "floor-0")
    assert len(floor.findall(f".//{SVG}path")) + len(floor.findall(f".//{SVG}use")) >= 1
    assert any("1 point with median ≤ 0, drawn at the floor" in t for t in texts(path))


def test_two_bands_then_error_bars_and_human_names(tmp_path):
    values = {}
    for method in ("inev", "lower_bound"):
        for sel in (0.1, 0.01):
            for xv in (1.1, 1.5):
                values[(xv, sel, method)] = [0.1, 0.2, 0.4]
    table = table_of(values, lines="selectivity")
    path = plot(table, tmp_path / "b.svg", x="skew", lines="selectivity", title="T")
    found = ids(path)
    assert {f"band-{i}" for i in range(4)} & found == {"band-0", "band-1"}
    assert {f"bars-{i}" for i in range(4)} & found == {"bars-2", "bars-3"}
    shown = texts(path)
    assert "event skew (Zipf exponent)" in shown
    assert "transmission ratio (ψ / centralized)" in shown
    assert "INEv, selectivity scale = 0.1" in shown
    assert "provable lower bound, selectivity scale = 0.01" in shown
    assert not any("lower_bound" in t or t.startswith("inev") for t in shown)
    assert any("n = 3 seeds per point" in t for t in shown)


def test_count_axes_get_integer_ticks_and_log_x_is_an_option(tmp_path):
    table = table_of({(n, None, "inev"): [0.5, 0.6] for n in (2, 3, 5)}, x="queries")
    path = plot(table, tmp_path / "q.svg", x="queries", log=False)
    ticks = [t for t in texts(path) if t.strip().lstrip("−-").replace(".", "").isdigit()]
    xticks = [t for t in ticks if "." not in t]
    assert xticks and all(t.isdigit() for t in xticks)
    assert {"2", "3", "4", "5"} <= set(xticks)
    logged = plot(table, tmp_path / "l.svg", x="queries", log=False, log_x=True)
    assert logged.read_text() != path.read_text()


def test_setup_subtitle_names_the_constant_parameters():
    table = table_of({(1.1, None, "inev"): [0.1, 0.2], (1.3, None, "inev"): [0.1]})
    text = setup_text(table, PlotOptions(x="skew"))
    assert text.startswith("20 nodes, out-degree 3, 6 event types")
    assert "skew" not in text and "simulated" not in text
    assert text.endswith("n = 1–2 seeds per point")


def test_same_table_gives_the_same_svg_bytes(tmp_path):
    table = table_of({(1.1, None, "inev"): [0.1, 0.2], (1.3, None, "inev"): [0.3]})
    a = plot(table, tmp_path / "a.svg", x="skew").read_bytes()
    b = plot(table, tmp_path / "b.svg", x="skew").read_bytes()
    assert a == b


def test_every_column_has_a_label_and_the_schema_follows_the_table():
    assert set(DEFAULTS) <= set(PARAMETERS)
    assert [n for n in SCHEMA.names if n in METRICS] == list(METRICS)
    assert axis_label("sim_latency_p99") == "detection latency p99 (time units)"
    assert axis_label("latency").startswith("model latency")


@pytest.mark.parametrize(
    ("plot_table", "message"),
    [
        ({"y": "ration"}, "unknown metric 'ration' (did you mean 'ratio'?)"),
        ({"x": "skwe"}, "unknown parameter 'skwe' (did you mean 'skew'?)"),
        ({"lines": "nodes", "logx": True}, "unknown [plot] key 'logx' (did you mean 'log_x'?)"),
        ({"methods": ["ppop"]}, "unknown method of this sweep 'ppop'"),
        ({"log": "yes"}, "[plot] log must be true or false"),
    ],
)
def test_plot_keys_are_checked_when_the_sweep_is_read(plot_table, message):
    with pytest.raises(InevError) as info:
        parse_spec({"axes": {"skew": [1.1]}, "plot": plot_table})
    assert message in str(info.value)


def test_plot_command_on_a_missing_folder_says_so(run_cli, tmp_path):
    code, _, err = run_cli("plot", tmp_path / "nothing", "-o", tmp_path / "p.png")
    assert code == 1 and "no such file or folder" in err and "--x" not in err


def test_infinite_values_are_counted_in_a_note(tmp_path):
    table = table_of({(1.1, None, "inev"): [0.5, float("inf")], (1.3, None, "inev"): [0.2, 0.3]})
    path = plot(table, tmp_path / "i.svg", x="skew")
    assert any("1 infinite value left out" in t for t in texts(path))


def _axes_of(path) -> dict[str, str]:
    """``{artist id: id of the axes group holding it}`` of an SVG plot."""
    root = ET.parse(path).getroot()
    out = {}
    for group in root.iter(f"{SVG}g"):
        if (group.get("id") or "").startswith("axes_"):
            for e in group.iter():
                if e.get("id") and e is not group:
                    out[e.get("id")] = group.get("id")
    return out


def test_a_bound_decades_below_gets_a_panel_of_its_own(tmp_path):
    table = table_of(
        {
            (1.3, None, "inev"): [1e-3, 2e-3, 3e-3, 4e-3, 5e-3],
            (1.7, None, "inev"): [0.1, 0.2, 0.3, 0.4, 0.5],
            (1.3, None, "lower_bound"): [1e-21, 2e-21, 3e-21, 4e-21, 5e-21],
            (1.7, None, "lower_bound"): [1e-22, 2e-22, 3e-22, 4e-22, 5e-22],
        }
    )
    path = plot(table, tmp_path / "b.svg", x="skew")
    where = _axes_of(path)
    assert where["line-0"] != where["line-1"]  # INEv above, the bound below
    assert "band-1" in where  # each panel bands its own first lines
    assert any("decades below" in t for t in texts(path))
    # lines within a few decades of each other stay in one panel
    near = table_of(
        {
            (1.3, None, "inev"): [1e-3] * 5,
            (1.7, None, "inev"): [0.1] * 5,
            (1.3, None, "lower_bound"): [1e-5] * 5,
            (1.7, None, "lower_bound"): [1e-4] * 5,
        }
    )
    where = _axes_of(plot(near, tmp_path / "n.svg", x="skew"))
    assert where["line-0"] == where["line-1"]


def test_sparse_lines_are_dashed_and_say_their_seeds(tmp_path):
    table = table_of(
        {
            (1.3, None, "inev"): [1e-3, 2e-3],
            (1.7, None, "inev"): [0.1, 0.2, 0.3],
        }
    )
    path = plot(table, tmp_path / "s.svg", x="skew")
    root = ET.parse(path).getroot()
    line = next(e for e in root.iter() if e.get("id") == "line-0")
    assert "stroke-dasharray" in ET.tostring(line, encoding="unicode")
    found = ids(path)
    assert {"seeds-0-0", "seeds-0-1"} <= found  # n varies: each point says its own
    shown = texts(path)
    assert "n=2" in shown and "n=3" in shown
    assert any(
        "dashed: 1 line with fewer than 5 seeds per point (n at each point)" in t for t in shown
    )
    dense = table_of({(1.3, None, "inev"): [0.1] * 5, (1.7, None, "inev"): [0.2] * 5})
    root = ET.parse(plot(dense, tmp_path / "d.svg", x="skew")).getroot()
    line = next(e for e in root.iter() if e.get("id") == "line-0")
    assert "stroke-dasharray" not in ET.tostring(line, encoding="unicode")


def test_a_log_axis_of_few_decades_is_ticked_in_plain_numbers(tmp_path):
    table = table_of(
        {(x, None, "inev"): [0.1 * x, 0.2 * x, 0.3 * x, 0.4 * x, 0.5 * x] for x in (1, 2, 3)},
        x="nodes",
    )
    shown = texts(plot(table, tmp_path / "t.svg", x="nodes"))
    assert {"0.1", "0.2", "0.5", "1"} <= set(shown)
