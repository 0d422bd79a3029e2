"""Real topologies from files (GraphML, as in the Internet Topology Zoo): disconnected ones
are refused with the way forward, and load with ``--largest-component``.

The Zoo itself (276 topologies, 23 of them disconnected) is loaded and planned by
``benchmarks/bench_topology_zoo.py``; CI has no network, so the test carries a small
disconnected file of its own making.
"""

from __future__ import annotations

import json
from pathlib import Path

ISLANDS = Path(__file__).parent / "fixtures" / "topologies" / "two_islands.graphml"


def test_a_disconnected_topology_is_refused_naming_the_file_and_the_option(run_cli, tmp_path):
    out = tmp_path / "net.json"
    code, stdout, err = run_cli("network", "generate", "--from-file", ISLANDS, "-o", out)
    assert code == 1 and stdout == ""
    assert err == (
        f"error: {ISLANDS}: topology is disconnected (3 components: 5, 2 and 1 nodes); "
        "--largest-component keeps the largest\n"
    )
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_largest_component_keeps_the_five_connected_cities_and_plans(run_cli, tmp_path):
    net, wl, plan = tmp_path / "net.json", tmp_path / "wl.json", tmp_path / "plan.json"
    command = ["network", "generate", "--from-file", ISLANDS, "--largest-component"]
    code, stdout, err = run_cli(*command, "--event-types", "3", "--seed", "2", "-o", net)
    assert code == 0, err
    assert stdout.startswith("network: 5 nodes (largest component; 3 nodes left out), 6 links")
    document = json.loads(net.read_text())
    assert sorted(document["nodes"]) == [0, 1, 2, 3, 4]
    code, _, err = run_cli("workload", "generate", "--network", net, "--length", "3", "-o", wl)
    assert code == 0, err
    code, stdout, err = run_cli("plan", net, wl, "-o", plan)
    assert code == 0 and stdout.startswith("method=inev psi="), err


def test_largest_component_is_for_topology_files_only(run_cli, tmp_path):
    code, _, err = run_cli(
        "network", "generate", "--largest-component", "-o", tmp_path / "net.json"
    )
    assert code == 1
    assert err == "error: --largest-component applies to --from-file topologies only\n"
