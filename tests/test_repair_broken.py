"""Issue 44 item 2: the broken plan priced on the changed network (detours, cannot run), and
the plan ``inev repair -o`` writes (repaired by default, --replan, --best)."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.cli import main
from inev.common.errors import InevError
from inev.planner.broken import priced_on
from inev.planner.inev_graph import Plan, Vertex, load_plan, save_plan
from inev.planner.planning import plan_workload
from inev.planner.repair import repair_plan
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload
from inev.workloads.workload import Query, Workload


def ring() -> Network:
    """0-1-2-3-4-5-0; A (rate 1) at 0, B (rate 100) at 3."""
    return Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0]), "B": (100.0, [3])}
    )


def seq_ab() -> Workload:
    return Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})])


def a_path(plan: Plan) -> list[tuple[int, int]]:
    (a,) = [v for v in plan.vertices if v.projection == "A"]
    return sorted(a.forwarding)


def test_ring_plan_sends_a_three_hops():
    # by hand: A must reach B's only node 3, three hops from 0 either way round: psi = 3 * 1
    plan = plan_workload(ring(), seq_ab())
    assert plan.psi == pytest.approx(3.0)
    assert len(a_path(plan)) == 3


def test_lost_link_is_priced_with_its_detour():
    plan = plan_workload(ring(), seq_ab())
    middle = a_path(plan)[1]  # (1, 2) or (4, 5): the middle link of A's three
    result = repair_plan(plan, ring(), seq_ab(), [{"kind": "link-down", "link": list(middle)}])
    # by hand: A crosses its first link (1), the lost middle link's detour the other way
    # round the ring (5 links), its last link (1): 7 links at rate 1; B stays at node 3
    assert result.broken.psi == pytest.approx(7.0)
    assert result.cannot_run == ()
    # the repair routes A the other way round: 3 links again
    assert result.repaired.psi == pytest.approx(3.0)
    assert result.summary().startswith("broken=7 repaired=3 (local)")


def test_link_not_used_costs_nothing_more():
    plan = plan_workload(ring(), seq_ab())
    used = set(a_path(plan))
    spare = next(link for link in [(3, 4), (4, 5), (5, 0), (0, 1), (1, 2), (2, 3)]
                 if tuple(sorted(link)) not in used)  # fmt: skip
    result = repair_plan(plan, ring(), seq_ab(), [{"kind": "link-down", "link": list(spare)}])
    assert result.broken.psi == pytest.approx(3.0)
    assert result.cannot_run == ()


def test_a_lost_relay_node_is_routed_around_as_the_simulator_does():
    plan = plan_workload(ring(), seq_ab())
    (a,) = [v for v in plan.vertices if v.projection == "A"]
    assert len(a.forwarding) == 3  # 0-1-2-3 or 0-5-4-3 to the sink at B's node 3
    relay = 1 if (0, 1) in a.forwarding else 5
    result = repair_plan(plan, ring(), seq_ab(), [{"kind": "node-down", "node": relay}])
    assert result.cannot_run == ()
    # by hand: from 0 around the lost relay to the next tree node (4 links the other way
    # round the ring), then its last link to 3: 5 links at rate 1
    assert result.broken.psi == pytest.approx(5.0)
    assert result.repaired.psi == pytest.approx(3.0)


def test_vertex_at_a_lost_node_by_hand():
    # a hand-made plan: A at 0 sent 0-1-2-3 to a single-node sink at 3 and 0-5 to a
    # multi-node vertex at 5; B at 3 and 5
    net = Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0]), "B": (1.0, [3, 5])}
    )
    a = Vertex(
        0, "A", 0, forwarding=((0, 1), (1, 2), (2, 3), (0, 5)), destinations=(3, 5), rate=1.0
    )
    b3 = Vertex(1, "B", 3, destinations=(3,), rate=1.0)
    b5 = Vertex(2, "B", 5, forwarding=((3, 4), (4, 5)), destinations=(3,), rate=2.0)
    sink = Vertex(3, "SEQ(A, B)", 3, inputs=(0, 1, 2), rate=0.5)
    part = Vertex(4, "AND(A, B)", 5, inputs=(2, 0), partition="B", rate=0.5)
    plan = Plan("inev", (a, b3, b5, sink, part), {}, {}, {}, {}, {})
    priced, reasons = priced_on(plan, net.without(nodes=[3]))
    # the sink at 3 stops the plan; the multi-node vertex at 5 and the events at 3 do not
    assert reasons == ("vertex 3 SEQ(A, B) at lost node 3",)
    # A: 0-1, 1-2, then 2-3 dropped (node 3 lost), 0-5: 3 links; B at 5: 5-4, then 4-3
    # dropped: 1 link at rate 2
    assert sorted(v.id for v in priced.vertices) == [0, 2, 4]
    assert priced.psi == pytest.approx(3 * 1.0 + 1 * 2.0)


def test_detour_of_a_lost_link_by_hand():
    # a ladder 0-1-2 over 3-4-5 (rungs 0-3, 1-4, 2-5); A at 0 sent 0-1-2 to node 2
    net = Network.build(
        range(6),
        [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)],
        {"A": (2.0, [0])},
    )
    a = Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,), rate=2.0, cost=4.0)
    sink = Vertex(1, "SEQ(A, A)", 2, inputs=(0,))
    plan = Plan("inev", (a, sink), {}, {}, {}, {}, {}, psi=4.0)
    # 1-2 lost: 0-1 (1 link), then 1-4-5-2 (3 links): 4 links at rate 2
    priced, reasons = priced_on(plan, net.without(links=[(1, 2)]))
    assert (priced.psi, reasons) == (8.0, ())
    # 0-1 lost as well: 0-3-4-1 (3), then 1-4-5-2 (3): 6 links at rate 2
    priced, reasons = priced_on(plan, net.without(links=[(1, 2), (0, 1)]))
    assert (priced.psi, reasons) == (12.0, ())


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_a_lost_link_never_makes_the_old_plan_cheaper(seed):
    net = generate_network(nodes=12, event_types=5, seed=seed)
    wl = generate_workload(net, queries=2, length=3, seed=seed)
    plan = plan_workload(net, wl, options=None)
    bridges = {frozenset(b) for b in nx.bridges(net.graph)}
    removable = [(u, v) for u, v, _ in net.links if frozenset((u, v)) not in bridges]
    if not removable:
        return
    u, v = removable[seed % len(removable)]
    result = repair_plan(plan, net, wl, [{"kind": "link-down", "link": [u, v]}])
    used = any({u, v} == set(e) for w in plan.vertices for e in w.forwarding)
    assert result.cannot_run == ()
    if used:
        assert result.broken.psi > plan.psi * (1 + 1e-9) or any(w.rate == 0 for w in plan.vertices)
    else:
        assert result.broken.psi == pytest.approx(plan.psi)


def test_choose():
    plan = plan_workload(ring(), seq_ab())
    change = [{"kind": "link-down", "link": list(a_path(plan)[1])}]
    default = repair_plan(plan, ring(), seq_ab(), change)
    assert (default.written, default.result) == ("repaired", default.repaired)
    again = repair_plan(plan, ring(), seq_ab(), change, replan=True)
    assert (again.written, again.result) == ("replanned", again.replanned)
    best = repair_plan(plan, ring(), seq_ab(), change, choose="best")
    assert best.result.psi == min(best.repaired.psi, best.replanned.psi)
    assert best.why.startswith('choose="best": the cheapest of repaired 3')
    with pytest.raises(InevError, match="unknown choice"):
        repair_plan(plan, ring(), seq_ab(), change, choose="cheapest")


@pytest.fixture
def files(tmp_path):
    net = ring()
    plan = plan_workload(net, seq_ab())
    save_network(net, tmp_path / "net.json")
    save_workload(seq_ab(), tmp_path / "wl.json")
    save_plan(plan, tmp_path / "plan.json")
    link = list(a_path(plan)[1])
    (tmp_path / "ch.json").write_text(
        json.dumps({"format": "inev-changes/1", "changes": [{"kind": "link-down", "link": link}]})
    )
    return tmp_path


def _repair(files, *extra):
    args = [str(files / n) for n in ("plan.json", "net.json", "wl.json")]
    main(["repair", *args, "--changes", str(files / "ch.json"), "-o", str(files / "r.json"),
          *extra])  # fmt: skip
    return load_plan(str(files / "r.json"))


def test_o_writes_the_repaired_plan(files, capsys):
    written = _repair(files)
    line = capsys.readouterr().out
    assert "broken=7 repaired=3 (local)" in line
    assert "written=repaired (the default: -o is the repaired plan)" in line
    assert written.kept == "local" and written.psi == pytest.approx(3.0)


def test_replan_writes_the_replanned_plan(files, capsys):
    written = _repair(files, "--replan")
    assert "written=replanned (asked for: --replan)" in capsys.readouterr().out
    assert written.kept != "local" and written.psi == pytest.approx(3.0)


def test_best_and_replan_together_are_refused(files, capsys):
    with pytest.raises(SystemExit) as exc:
        _repair(files, "--replan", "--best")
    assert exc.value.code != 0
    assert "error: --replan and --best" in capsys.readouterr().err
