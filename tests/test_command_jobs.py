"""``inev simulate`` and ``inev match`` are thin: the library jobs do what the commands do.

The command's output file equals the library job's on the same input (exact and shed
``match``, ``simulate`` with a seed); bad flag combinations are refused by the request
builders (the command's with the flags' names, the library's in its own words) with one line
before any file is written; ``--seed`` and ``--capacity`` mean one
thing in every command that takes them.
"""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from inev.common.cli import COMMANDS, load_command
from inev.common.errors import InevError
from inev.common.option_names import command_line
from inev.simulator import SimulationOptions, open_simulation, simulate_request
from inev.simulator.cli import request_from_flags
from inev.simulator.engine.api import MatchOptions, SheddingOptions
from inev.simulator.engine.cli import request_from_flags as match_flags
from inev.simulator.engine.match_job import MatchSummary, ShedSummary, match_request, open_match
from inev.simulator.engine.selection import parse_selection
from inev.simulator.engine.tables import summary_line
from inev.topologies import Network, save_network
from inev.workloads import Query, Workload, save_workload


@pytest.fixture
def files(tmp_path):
    net = Network.build(
        range(5), [(0, 1), (1, 2), (2, 3), (3, 4)], {"A": (5.0, [0, 4]), "B": (0.2, [2])}
    )
    save_network(net, tmp_path / "net.json")
    save_workload(Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]), tmp_path / "wl.json")
    rows = ["time,type,node,id"] + [f"{i * 0.25},{'AB'[i % 2]},0,{i}" for i in range(40)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    return tmp_path


def _cli(name: str, args: list) -> None:
    run = CliRunner().invoke(load_command(name), [str(a) for a in args])
    assert run.exit_code == 0, run.output


@pytest.mark.parametrize("flags", [[], ["--capacity", "auto:0.5", "--latency-bound", "1"]])
def test_match_command_writes_what_the_job_writes(files, flags):
    _cli("match", [files / "wl.json", files / "t.csv", "-o", files / "cli.jsonl", *flags])
    shedding = SheddingOptions("auto:0.5", 1.0, "pspice") if flags else None
    request = match_request(files / "wl.json", files / "t.csv", files / "lib.jsonl", None, shedding)
    summary = open_match(request).run()
    assert (files / "cli.jsonl").read_text() == (files / "lib.jsonl").read_text()
    lines = (files / "lib.jsonl").read_text().splitlines()
    if flags:
        assert isinstance(summary, ShedSummary)
        assert json.loads(lines[-1])["shedding"]["load"] == summary.figures["load"]
    else:
        # 20 B's at 0.25, 0.75, …, 9.75, A's at 0, 0.5, …, 9.5: each B pairs with the two A's
        # 0.25 and 0.75 after it (window 1), but B at 9.25 sees one A and B at 9.75 none
        assert isinstance(summary, MatchSummary) and summary.matches == {"q": 18 * 2 + 1}
        assert len(lines) == 37 and summary.events == 40
        assert summary_line(summary).startswith("match: 37 matches, 40 events")


def test_simulate_command_writes_what_the_job_writes(files):
    common = [files / "net.json", files / "wl.json", "--method", "inev", "--duration", "30"]
    _cli("simulate", [*common, "--seed", "3", "-o", files / "cli.json"])
    paths = {"network": files / "net.json", "workload": files / "wl.json"}
    options = SimulationOptions(duration=30.0, seed=3)
    request = simulate_request(
        paths, files / "lib.json", options, method="inev", duration_given=True
    )
    result = open_simulation(request).run()
    cli, lib = (json.loads((files / f).read_text()) for f in ("cli.json", "lib.json"))
    for doc in (cli, lib):
        doc.pop("wall_seconds", None), doc.pop("check_seconds", None)
    assert cli == lib
    assert result.matches == result.centralized_matches and result.messages == lib["messages"]


def test_a_trace_sets_the_duration_unless_one_is_given(files):
    paths = {"network": files / "net.json", "workload": files / "wl.json", "trace": files / "t.csv"}
    for given, duration in ((False, 9.75), (True, 30.0)):
        options = SimulationOptions(duration=30.0)
        request = simulate_request(
            paths, files / "o.json", options, method="centralized", duration_given=given
        )
        job = open_simulation(request)
        assert job.options.duration == duration


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"safety": 0.1}, "--safety needs --capacity"),
        ({"capacity": "2", "strategy": "next"}, "skip-till-any-match only"),
        ({"capacity": "0"}, "capacity must be positive"),
        ({"capacity": "2", "shed": "pspice"}, "--shed pspice needs --latency-bound"),
        ({"latency_bound": 1.0}, "need --capacity"),
        ({"capacity": "2", "latency_bound": -1.0}, "latency bound must be positive"),
        ({"distance": "far"}, "--distance must be a number"),
    ],
)
def test_the_match_command_refuses_bad_flags_by_their_names(files, flags, message):
    with command_line(), pytest.raises(InevError, match=message):  # as `inev match` runs it
        match_flags(files / "wl.json", files / "t.csv", files / "o.jsonl", flags)
    assert not (files / "o.jsonl").exists()


@pytest.mark.parametrize(
    ("options", "shedding", "message"),
    [
        (None, SheddingOptions(0), "capacity must be positive"),
        (None, SheddingOptions(2, -1.0, "pspice"), "latency bound must be positive"),
        (
            MatchOptions(selection=parse_selection("next", (), ())),
            SheddingOptions(2),
            "skip-till-any-match only",
        ),
    ],
)
def test_match_request_refuses_bad_options_without_flags(files, options, shedding, message):
    with pytest.raises(InevError, match=message) as refused:
        match_request(files / "wl.json", files / "t.csv", files / "o.jsonl", options, shedding)
    assert "--" not in str(refused.value)
    assert not (files / "o.jsonl").exists()


@pytest.mark.parametrize(
    ("names", "flags", "message"),
    [
        (("plan",), {"method": "inev"}, "either a plan file or --method"),
        ((), {}, "give a plan file or --method"),
        ((), {"method": "inev", "safety": 0.1}, "--safety needs --capacity"),
        ((), {"total_rate": 3.0}, "--total-rate needs --method"),
        (
            (),
            {"method": "inev", "capacity": ("2",), "safety": 5.0, "latency_bound": 1.0},
            "0, bound",
        ),
        ((), {"method": "inev", "capacity": ("=2",)}, "node missing"),
    ],
)
def test_the_command_refuses_bad_flags_by_their_names(files, names, flags, message):
    paths = {"network": files / "net.json", "workload": files / "wl.json"}
    paths |= {n: files / "net.json" for n in names}
    with pytest.raises(InevError, match=message):
        request_from_flags(paths, files / "o.json", flags)
    assert not (files / "o.json").exists()


@pytest.mark.parametrize(
    ("names", "knobs", "message"),
    [
        (("plan",), {"method": "inev"}, "either a plan file or a planning method"),
        ((), {}, "give a plan file or a planning method"),
        ((), {"total_rate": 3.0}, "a total rate needs a planning method"),
        ((), {"method": "best"}, "unknown planning method"),
    ],
)
def test_simulate_request_refuses_bad_requests_without_flags(files, names, knobs, message):
    paths = {"network": files / "net.json", "workload": files / "wl.json"}
    paths |= {n: files / "net.json" for n in names}
    with pytest.raises(InevError, match=message) as refused:
        simulate_request(paths, files / "o.json", SimulationOptions(), **knobs)
    assert "--" not in str(refused.value)  # the library speaks of options, not of flags
    assert not (files / "o.json").exists()


def _options(name: str) -> list[tuple[str, click.Option]]:
    command = load_command(name)
    groups = command.commands.values() if isinstance(command, click.Group) else [command]
    return [
        (f"{name} {c.name}", p) for c in groups for p in c.params if isinstance(p, click.Option)
    ]


def test_seed_and_capacity_mean_one_thing_in_every_command():
    seeds, capacities = [], []
    for name in COMMANDS:
        for where, option in _options(name):
            if "--seed" in option.opts:
                seeds.append((where, option))
            if "--capacity" in option.opts:
                capacities.append((where, option))
    assert {w for w, _ in seeds} >= {
        "network generate",
        "workload generate",
        "simulate simulate",
        "match match",
        "trace generate",
    }
    for where, option in seeds:
        # one range on every path (issue 43): 0 to the generators' 64-bit limit
        assert isinstance(option.type, click.IntRange) and option.default == 0, where
        assert (option.type.min, option.type.max) == (0, 2**63 - 1), where
        assert option.help.startswith("Seed of ") and "same seed" in option.help, where
    assert {w for w, _ in capacities} == {"simulate simulate", "match match"}
    for where, option in capacities:
        assert option.help.startswith("Processing capacity of "), where
        assert "auto:F (F times what" in option.help and "unshedded run" in option.help, where
