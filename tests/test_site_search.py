"""The search over a regional placement's sites (issue 45): prices, moves, budget."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_regional import AND_AB, STARS  # two stars of five A sources, B between the hubs

from inev.planner import site_search
from inev.planner.alg2_placement import place, placement_cost
from inev.planner.assemble import build_plan
from inev.planner.cost_model import vertex_cost_from_plan
from inev.planner.paper_designs import combine_workload
from inev.planner.regions import cells
from inev.planner.site_search import SitePricer, Target, best_sites, search_sites, site_budget
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload


def _pricer(net: Network, partner_rate: float) -> SitePricer:
    """The price of A's sites for AND(A, B) alone (B the partner, no output: a sink)."""
    return SitePricer(net, Target("A", {}, (("B", partner_rate),), ()), {})


def _regional_combination(net: Network, wl: Workload, sites):
    """Alg. 1's combination of AND(A, B) with its sink partitioned by A at ``sites``."""
    combination, _ = combine_workload(net, wl)
    (sink,) = combination.sinks.values()
    assert set(combination.inputs[sink]) == {"A", "B"}
    return replace(
        combination, multi_node={sink: "A"}, regional={sink: cells(net, "A", tuple(sites))}
    )


def test_the_price_of_the_hub_sites_is_the_plans_psi_by_hand():
    # by hand: at the hubs each A event crosses one leaf link (10 x 1), B the three links
    # between the hubs (2 x 3): 16. At hub 0 alone: the right star's events cross 4 links
    # (5 x 4) and the left's one (5), B one link (2): 27
    pricer = _pricer(STARS, 2.0)
    assert pricer.price((0, 6)) == pytest.approx(16.0)
    assert pricer.price((6, 0), exact=True) == pytest.approx(16.0)
    assert pricer.price((0,)) == pytest.approx(27.0)
    combination = _regional_combination(STARS, AND_AB, (0, 6))
    plan = build_plan(STARS, combination, place(STARS, combination), "inev")
    assert sum(vertex_cost_from_plan(plan, v) for v in plan.vertices) == pytest.approx(16.0)
    assert plan.psi == pytest.approx(16.0)


def test_the_search_splits_hub_zero_and_walks_the_new_site_to_hub_six():
    # from hub 0 alone (27): a site at the farthest source, leaf 7 (left star 5, leaves 8-11
    # two hops each 8, B over 0-12-13-6-7 2 x 4: 21), then shifted to hub 6 (16); every
    # other site set costs more (each A event crosses at least one link unless its leaf is a
    # site, and a site at a leaf adds a tree link for B worth 2 to save 1)
    pricer = _pricer(STARS, 2.0)
    assert pricer.price((0, 7)) == pytest.approx(21.0)
    assert search_sites(pricer, (0,), 100) == ((0, 6), pytest.approx(16.0))


@st.composite
def _instances(draw):
    nodes = draw(st.integers(6, 24))
    seed = draw(st.integers(0, 10_000))
    top = generate_network(nodes=nodes, event_types=1, out_degree=2, seed=seed)
    order = list(top.nodes)
    a = draw(st.lists(st.sampled_from(order), min_size=2, max_size=nodes, unique=True))
    b = draw(st.lists(st.sampled_from(order), min_size=1, max_size=4, unique=True))
    types = {
        "A": (draw(st.floats(0.1, 10.0)), sorted(a, key=order.index)),
        "B": (draw(st.floats(0.1, 10.0)), sorted(b, key=order.index)),
    }
    net = Network.build(order, [(u, v) for u, v, _ in top.links], types)
    start = draw(st.lists(st.sampled_from(order), min_size=1, max_size=5, unique=True))
    return net, tuple(start), draw(st.integers(1, 60))


@settings(max_examples=40, deadline=None)
@given(_instances())
def test_the_local_search_never_raises_the_price_nor_exceeds_its_budget(instance):
    net, start, budget = instance
    pricer = _pricer(net, net.global_rates()["B"])
    before = pricer.price(pricer.kept(start))
    pricer.priced = 0
    sites, value = search_sites(pricer, start, budget)
    assert pricer.priced <= max(1, budget)
    assert value <= before * (1 + 1e-12)
    assert value == pytest.approx(pricer.price(sites))
    assert len(set(sites)) == len(sites)


@settings(max_examples=25, deadline=None)
@given(_instances())
def test_the_searched_sites_cost_what_alg2_places_for_them(instance):
    # the price with the planner's own tree is ψ of Alg. 2's grown forwarding graphs (the
    # plan it writes out on a small network only has shorter trees)
    net, start, budget = instance
    wl = Workload.build(1.0, [Query.build("q", "AND(A, B)", {"A B": 0.1})])
    pricer = _pricer(net, net.global_rates()["B"])
    sites, _ = search_sites(pricer, start, budget)
    combination = _regional_combination(net, wl, sites)
    grown = placement_cost(net, combination, tight=False)
    assert pricer.price(sites, exact=True) == pytest.approx(grown)
    plan = build_plan(net, combination, place(net, combination), "inev")
    assert plan.psi <= grown * (1 + 1e-9)


def _heaviest_pair() -> tuple[Network, Target]:
    """A 60-node network and the target of its heaviest type with the next one as partner."""
    net = generate_network(nodes=60, event_types=3, skew=1.3, node_ratio=0.5, seed=3)
    heavy, partner = sorted(net.types, key=lambda t: -net.rate(t))[:2]
    return net, Target(heavy, {}, ((partner, net.rate(partner)),), ())


def test_best_sites_prices_within_its_budget(monkeypatch):
    net, found = _heaviest_pair()
    calls = []
    price = SitePricer.price

    def counted(self, sites, exact=False):
        calls.append(exact)
        return price(self, sites, exact)

    monkeypatch.setattr(SitePricer, "price", counted)
    for budget in (1, 7, 50):
        monkeypatch.setattr(site_search, "SITE_PRICES", budget)
        calls.clear()
        assert best_sites(net, found, {}, 3, psi=1.0, effort=1.0) is not None
        starts = len(site_search.GROWTH)
        # the budget, at least two per start; one price for the stake; one exact per start
        assert calls.count(False) <= max(site_budget(net), 2 * starts) + 1 + starts
        assert calls.count(True) <= starts


def test_effort_scales_the_site_searchs_budget(monkeypatch):
    # --effort multiplies every local search's budget; the site search's climbs get their
    # shares of effort x site_budget prices (psi unbounded: no stake)
    net, found = _heaviest_pair()
    shares = []
    climb = site_search.search_sites

    def recorded(pricer, start, budget, deadline):
        shares.append(budget)
        return climb(pricer, start, budget, deadline)

    monkeypatch.setattr(site_search, "search_sites", recorded)
    monkeypatch.setattr(site_search, "SITE_PRICES", 60)
    first = {}
    for effort in (1.0, 3.0):
        shares.clear()
        assert best_sites(net, found, {}, 3, effort=effort) is not None
        first[effort] = shares[0]
    # 60 prices over the starts (at most 6, each dividing 60): three times as many at effort 3
    assert first[1.0] > 2
    assert first[3.0] == 3 * first[1.0]


def test_a_passed_deadline_stops_the_climb_at_its_start():
    # the climb from hub 0 alone reaches the hubs (see above); past its deadline (a plan's
    # --time-budget) it prices the start only and keeps it
    pricer = _pricer(STARS, 2.0)
    assert search_sites(pricer, (0,), 100, deadline=0.0) == ((0,), pytest.approx(27.0))
    assert pricer.priced == 1
