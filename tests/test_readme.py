"""The README's walk-through runs as written and prints what it says (see readme_walkthrough)."""

from __future__ import annotations

from readme_walkthrough import README, check, fits, parse, prepare


def test_the_walkthrough_runs_as_written_and_prints_what_it_says(tmp_path):
    steps = parse(README.read_text(encoding="utf-8").splitlines())
    assert steps[0].activates  # the first line is run too, in the empty folder
    commands = [s.command.split()[0] for s in steps]
    assert commands.count("inev") >= 20 and sum(len(s.expected) for s in steps) >= 10
    walk = prepare(tmp_path)
    problems = check(steps, walk)
    assert not problems, "\n".join(problems)
    for name in ("plan.html", "sim.png", "skew.png", "matches.jsonl", "repaired.json"):
        assert (walk / name).stat().st_size > 0


def test_expected_lines_match_exactly_except_for_the_ellipsis():
    assert fits("a=1 b=2", "a=1  b=2")
    assert not fits("a=1 b=2", "a=1 b=3")
    assert fits("in … s -> r", "in 0.8 s -> r")
    assert not fits("x -> r", "x -> r2")
