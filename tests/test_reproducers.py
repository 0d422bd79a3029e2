"""The reliability reproducers of 2026-12-01 (issue 43), each as its README's "expected" says.

The inputs are copies of ``../shared/reproducers/2026-12-01/`` (``tests/fixtures/reproducers``,
README there), so that a fresh clone runs them. Every command runs in-process in a folder of
its own; a refusal must be one ``error:`` line and leave no output.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "reproducers"


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A folder holding a copy of every reproducer input, as the working directory."""
    for path in FIXTURES.iterdir():
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "internal error" not in lines[0], err
    return lines[0]


def test_1_a_plan_of_pattern_variables_simulates_and_repairs(here, run_cli):
    code, _, err = run_cli("plan", "n5.json", "var_wl.json", "-o", "p.json")
    assert code == 0, err
    code, _, err = run_cli("simulate", "n5.json", "var_wl.json", "p.json", "--duration", "5",
                             "-o", "s.json")  # fmt: skip
    assert code == 0, err
    assert json.loads((here / "s.json").read_text())["equal_to_centralized"] is True
    code, _, err = run_cli("repair", "p.json", "n5.json", "var_wl.json", "--changes",
                             "linkdown.json", "-o", "r.json")  # fmt: skip
    assert code == 0, err
    repaired = json.loads((here / "r.json").read_text())
    down = {frozenset(link) for link in [[5, 6]]}
    assert not any(
        frozenset(link) in down for v in repaired["vertices"] for link in v.get("forwarding", [])
    )


def test_1_a_variable_follows_its_type_through_a_rate_change(here, run_cli, write_json):
    """``a`` reads C's events: after C's rate is set, the re-plan prices a at the new rate."""
    code, _, err = run_cli("plan", "n5.json", "var_wl.json", "-o", "p.json")
    assert code == 0, err
    write_json("set.json", {"format": "inev-changes/1",
                            "changes": [{"kind": "set-rate", "type": "C", "rate": 7.0}]})  # fmt: skip
    code, _, err = run_cli("repair", "p.json", "n5.json", "var_wl.json", "--changes", "set.json",
                           "-o", "r.json", "--replan")  # fmt: skip
    assert code == 0, err
    rates = json.loads((here / "r.json").read_text())["type_rates"]
    assert (
        rates["a"][0] == 7.0
        and rates["D"][0] == json.loads((here / "p.json").read_text())["type_rates"]["D"][0]
    )


def test_2_a_header_only_trace_is_a_result_with_no_events(here, run_cli):
    code, _, err = run_cli("simulate", "n5.json", "w5.json", "p5.json", "--duration", "10",
                           "--trace", "header_only.csv", "-o", "s.json")  # fmt: skip
    assert code == 0, err
    result = json.loads((here / "s.json").read_text())
    assert result["events"] == 0 and result["messages"] == 0 and result["model_messages"] == 0


@pytest.mark.parametrize("seed", ["-1", "99999999999999999999"])
@pytest.mark.parametrize("source", [["--from-file", "triangle.txt"], ["--nodes", "5"]])
def test_3_one_seed_check_on_every_path(here, run_cli, seed, source):
    code, _, err = run_cli("network", "generate", *source, "--event-types", "3", "--seed", seed,
                           "-o", "g.json")  # fmt: skip
    assert code != 0
    assert "--seed" in one_error_line(err)
    assert not (here / "g.json").exists()


@pytest.mark.parametrize(
    ("command", "field"),
    [
        (["show", "sim_mbt_str.json"], "messages_by_type"),
        (["show", "sim_reopt_float.json"], "reoptimizations"),
        (["draw", "sim_mbt_str.json", "--network", "n5.json", "--plan", "p5.json", "-o", "d.html"],
         "messages_by_type"),
    ],
)  # fmt: skip
def test_4_a_field_of_the_wrong_type_is_one_line_naming_it(here, run_cli, command, field):
    code, _, err = run_cli(*command)
    assert code != 0
    line = one_error_line(err)
    assert field in line and command[1] in line
    assert not (here / "d.html").exists()


def test_5_many_leaves_over_one_stream_are_sized_in_seconds(here, run_cli):
    start = time.process_time()
    code, _, err = run_cli("match", "many_vars30.json", "one_event.csv", "-o", "m.jsonl")
    assert code == 0, err
    assert time.process_time() - start < 30  # was minutes; the bound itself takes milliseconds
    assert (here / "m.jsonl").read_text() == ""


def test_6_a_query_of_fifty_leaves_is_refused_before_any_enumeration(here, run_cli):
    code, _, err = run_cli("plan", "n5.json", "many_vars50_plan.json", "-o", "p.json")
    assert code != 0
    line = one_error_line(err)
    assert "query many" in line and "2^50" in line
    assert not (here / "p.json").exists()


def test_7_the_exact_method_honours_its_time_budget(here, run_cli):
    start = time.perf_counter()
    code, _, err = run_cli("plan", "n5.json", "exact_kv.json", "-o", "pe.json", "--method",
                           "exact", "--time-budget", "2")  # fmt: skip
    seconds = time.perf_counter() - start
    assert code == 0, err
    plan = json.loads((here / "pe.json").read_text())
    assert any("not proved optimal" in n for n in plan["notes"]), plan["notes"]
    # the planning itself within 1.5x the budget (the reproducer ran on far past it; at
    # 10 % a loaded machine overshot by 20 µs between two budget checks); files on top
    assert plan["planning_seconds"] <= 3.0 and seconds < 10


def test_8_distinct_bindings_keep_a_sizable_run_from_a_refusal(here, run_cli):
    code, _, err = run_cli("match", "many_vars20.json", "trace25.csv", "-o", "m.jsonl")
    assert code == 0, err  # 9 C events cannot bind 20 leaves: 0 matches, nothing to refuse


def test_9_an_unsupported_query_is_refused_naming_it_before_the_trace(here, run_cli):
    code, _, err = run_cli("match", "nestnext.json", "noA.csv", "-o", "m.jsonl")
    assert code != 0
    line = one_error_line(err)
    assert line.startswith("error: nestnext.json: query k: ")
    assert "note" not in err and not (here / "m.jsonl").exists()
