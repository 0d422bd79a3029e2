"""Start-up: sub-commands load lazily, and what each command imports stays small."""

from __future__ import annotations

import subprocess
import sys

import pytest

from inev.common.cli import COMMANDS, load_command
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload

HEAVY = ("scipy", "pyarrow", "matplotlib", "pyspark", "simpy", "pandas")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_listed_help_is_the_commands_own_short_help(name):
    command = load_command(name)
    assert command.name == name
    assert COMMANDS[name][1] == command.get_short_help_str(limit=10_000)


def _imported(tmp_path, *args: str) -> set[str]:
    """Top-level packages imported by ``inev ARGS`` run in a fresh interpreter."""
    code = (
        "import sys\n"
        "from inev.common.cli import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return set(run.stderr.split())


def test_help_imports_click_alone(tmp_path):
    loaded = _imported(tmp_path, "--help")
    assert not loaded & {*HEAVY, "numpy", "networkx", "rich"}


def test_plan_imports_no_scipy_pyarrow_matplotlib_or_spark(tmp_path):
    net = generate_network(nodes=20, seed=1)
    save_network(net, tmp_path / "net.json")
    save_workload(generate_workload(net, queries=1, seed=1), tmp_path / "wl.json")
    loaded = _imported(tmp_path, "plan", "net.json", "wl.json", "-o", "plan.json")
    assert (tmp_path / "plan.json").is_file()
    assert not loaded & {*HEAVY, "rich"}  # piped: the one-line summary needs no rich
