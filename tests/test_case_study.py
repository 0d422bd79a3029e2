"""The INEv paper's case study on the authors' file layout (experiments/case_study.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from inev.common.cli import cli, main
from inev.common.errors import InevError
from inev.experiments.case_study import (
    authors_combination,
    case_study,
    find_datasets,
    parse_plan_file,
    step_pairs,
    trace_counts,
)

PLAN = """~~
node0
--
Forward rules:
G - [ETB:(G: node0) FROM:[node0] TO:[node1]]
--
Projections to process:
SELECT AND(G, H) FROM G; H WITH selectionRate= 0.02
SELECT AND(F, G, H) FROM AND(G, H); F WITH selectionRate= 0.001
SELECT AND(F, H)|FGH FROM F|FGH; H|FGH WITH selectionRate= 1
~~
node1
--
Projections to process:
SELECT AND(G, H) FROM H; G WITH selectionRate= 0.02
SELECT AND(F, G, H) FROM AND(G, H); F WITH selectionRate= 0.5
~~
node2
--
Projections to process:
SELECT AND(F, G, H) FROM AND(G, H); F WITH selectionRate=0.001
"""


def _authors_folder(root: Path) -> Path:
    """A citi_bike folder in the authors' layout: one plan file, three nodes' traces."""
    folder = root / "DCEP_Engine" / "inputexamples" / "citi_bike"
    folder.mkdir(parents=True)
    (folder / "Q1.txt").write_text(PLAN)
    lines = {
        0: [f"{h}:00:00,F" for h in range(0, 48)] + ["3:00:00,G", "30:00:00,G"],
        1: [f"{h}:30:00,F" for h in range(0, 48, 2)] + ["5:10:00,H"],
        2: ["1:00:00,H", "47:59:00,H", "10:00:00,E"],
    }
    for node, rows in lines.items():
        (folder / f"hm_input_{node}.txt").write_text("\n".join(rows) + "\n")
    return root


def test_step_pairs_are_the_pairs_that_neither_input_holds() -> None:
    assert step_pairs("SEQ(A, B, C, D)", "SEQ(A, B)", "SEQ(C, D)") == [
        ("A", "C"),
        ("A", "D"),
        ("B", "C"),
        ("B", "D"),
    ]
    assert step_pairs("AND(A, B)", "A", "B") == [("A", "B")]


def test_selectivities_solve_the_steps_with_the_median_over_nodes() -> None:
    (query,) = parse_plan_file(PLAN)
    assert str(query.pattern) == "AND(F, G, H)"
    assert query.selectivity_of("G", "H") == pytest.approx(0.02)
    # The F step is 0.001 on two nodes and 0.5 on one: the median 0.001 is the product of
    # its two pairs, which no other step separates, so least squares splits it evenly.
    fg, fh = query.selectivity_of("F", "G"), query.selectivity_of("F", "H")
    assert fg * fh == pytest.approx(0.001)
    assert fg == pytest.approx(math.sqrt(0.001))


def test_a_workload_file_gives_one_query_per_root() -> None:
    text = (
        "SELECT SEQ(A, B) FROM A; B WITH selectionRate= 0.1\n"
        "SELECT AND(C, D) FROM C; D WITH selectionRate= 0.2\n"
        "SELECT AND(C, D, E) FROM AND(C, D); E WITH selectionRate= 0.3\n"
    )
    queries = parse_plan_file(text)
    assert [str(q.pattern) for q in queries] == ["SEQ(A, B)", "AND(C, D, E)"]
    assert queries[1].selectivity_of("C", "D") == pytest.approx(0.2)


def test_bad_plan_files_are_refused() -> None:
    with pytest.raises(InevError, match="no 'SELECT"):
        parse_plan_file("nothing here")
    with pytest.raises(InevError, match="not in \\(0, 1\\]"):
        parse_plan_file("SELECT AND(A, B) FROM A; B WITH selectionRate= 2")


def test_the_partition_is_the_input_that_does_not_travel() -> None:
    combination = authors_combination(PLAN, {"F": 100.0, "G": 1.0, "H": 2.0})
    # G is forwarded whole, so AND(G, H) is partitioned by H; AND(F, G, H) by F, its only
    # primitive input; both are processed at more than one node.
    assert combination == {
        "AND(G, H)": {"inputs": ["G", "H"], "partition": "H"},
        "AND(F, G, H)": {"inputs": ["AND(G, H)", "F"], "partition": "F"},
    }
    single = authors_combination("SELECT AND(A, B) FROM A; B WITH selectionRate= 0.1", {})
    assert single == {"AND(A, B)": {"inputs": ["A", "B"], "partition": None}}


def test_trace_counts_and_bad_times(tmp_path: Path) -> None:
    (tmp_path / "hm_input_3.txt").write_text("1:02:30,A\n\n2:00:00,B\n")
    counts, start, end = trace_counts(tmp_path)
    assert counts == {("A", 3): 1, ("B", 3): 1}
    assert (start, end) == (62.5, 120.0)
    (tmp_path / "hm_input_4.txt").write_text("noon,A\n")
    with pytest.raises(InevError, match=r"hm_input_4\.txt:1: time 'noon'"):
        trace_counts(tmp_path)


def test_the_study_plans_every_file_and_no_plan_beats_the_bound(tmp_path: Path) -> None:
    root = _authors_folder(tmp_path)
    assert set(find_datasets(root)) == {"citi_bike"}
    (row,) = case_study(root, seeds=(0, 1))
    assert (row.dataset, row.query, row.patterns, row.paper) == (
        "Citi Bike",
        "Q1",
        ("AND(F, G, H)",),
        0.00007,
    )
    assert len(row.ratios) == len(row.authors) == len(row.bounds) == 2
    for ratio, authors, bound in zip(row.ratios, row.authors, row.bounds, strict=True):
        assert 0 < bound <= ratio <= 1 + 1e-9
        assert bound <= authors + 1e-12


def test_the_command_refuses_a_folder_without_the_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "table.md"
    with pytest.raises(SystemExit) as exc:
        main(["case-study", str(tmp_path), "-o", str(out)])
    assert exc.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: ") and "samieze/INEv" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_the_table(tmp_path: Path) -> None:
    root = _authors_folder(tmp_path / "repo")
    out = tmp_path / "table.md"
    result = CliRunner().invoke(cli, ["case-study", str(root), "--seeds", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("| dataset | query |")
    assert "| Citi Bike | Q1 | AND(F, G, H) | 0.007 % |" in text
