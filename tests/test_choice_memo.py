"""The memo of Alg. 1's placement options (inev.planner.choice_memo): Alg. 1 runs sharing
one memo, over query orders and networks whose rates are kicked as the search kicks them,
must make exactly the choices and options that runs without a memo make (items in the same
order, costs bit for bit), and a key must change with anything the enumeration reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner.alg1_combination import Choice, Params, choose_options
from inev.planner.choice_memo import MAX_KEPT, ChoiceMemo
from inev.planner.paper_designs import run_alg1
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload

specs = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10_000),
        "types": st.integers(3, 6),
        "length": st.integers(2, 5),
        "kleene": st.integers(0, 1),
        "negation": st.integers(0, 1),
        "tau": st.sampled_from([float("inf"), 4.0]),
    }
)


def _same(a: Choice, b: Choice) -> bool:
    """Equal as values and in the order of their items (which fixes float sums)."""
    return a == b and tuple(a.items.items()) == tuple(b.items.items())


def _runs(spec: dict):
    net = generate_network(nodes=8, event_types=spec["types"], seed=spec["seed"])
    length = min(spec["length"], spec["types"])
    negation = min(spec["negation"], length // 3)
    wl = generate_workload(net, queries=3, length=length, negation=negation, seed=spec["seed"],
                           kleene=min(spec["kleene"], length - negation))  # fmt: skip
    names = [q.name for q in wl.queries]
    t = sorted(net.types)[spec["seed"] % len(net.types)]
    nets = [net, net.with_rates({t: net.rate(t) * 10}), net.with_rates({t: net.rate(t) / 10})]
    for n in nets:
        for order in (names, names[::-1]):
            yield n, wl, order


@settings(max_examples=25, deadline=None)
@given(specs)
def test_shared_memo_gives_the_fresh_choices(spec):
    memo = ChoiceMemo()
    for net, wl, order in _runs(spec):
        fresh = run_alg1(net, wl, tau=spec["tau"], order=order, slack=4.0)
        kept = run_alg1(net, wl, tau=spec["tau"], order=order, slack=4.0, memo=memo)
        assert list(fresh.choices) == list(kept.choices)
        assert all(_same(fresh.choices[k], kept.choices[k]) for k in fresh.choices)
        assert list(fresh.options) == list(kept.options)
        for k, found in fresh.options.items():
            assert len(found) == len(kept.options[k])
            assert all(_same(a, b) for a, b in zip(found, kept.options[k], strict=True))
        assert fresh.paid == kept.paid and list(fresh.paid) == list(kept.paid)
        assert fresh.sinks == kept.sinks and fresh.theta == kept.theta


def _instance():
    net = Network.build(range(4), [(0, 1), (1, 2), (2, 3)],
                        {"A": (1.0, [0]), "B": (2.0, [3]), "C": (5.0, [1, 2])})  # fmt: skip
    wl = generate_workload(net, queries=1, length=3, seed=3)
    state = run_alg1(net, wl)
    (sink,) = state.sinks.values()
    return net, state, state.projections[sink]


def test_key_follows_what_the_enumeration_reads():
    net, state, p = _instance()
    pre = [state.projections[t] for t in sorted(p.types)]
    choices = {t: Choice(t, (), None, {}, 0.0) for t in p.types}
    memo = ChoiceMemo()
    params = Params(delta=net.mean_hops)
    base = memo.key(net, p, pre, choices, params, {}, frozenset(), True, frozenset())
    assert base == memo.key(net, p, pre, dict(choices), params, {}, frozenset(), True,
                            frozenset())  # fmt: skip
    # a paid transport this enumeration looks up, a kicked rate, another order of the inputs,
    # another input's choice, other parameters: each changes the key
    paid = {("send", pre[0].key, p.key): 1.0}
    assert memo.key(net, p, pre, choices, params, paid, frozenset(), True, frozenset()) != base
    t = sorted(p.types)[0]
    kicked = net.with_rates({t: net.rate(t) * 10})
    assert memo.key(kicked, p, pre, choices, params, {}, frozenset(), True, frozenset()) != base
    assert memo.key(net, p, pre[::-1], choices, params, {}, frozenset(), True,
                    frozenset()) != base  # fmt: skip
    other = {**choices, t: Choice(t, (), None, {("send", "X", "Y"): 1.0}, 0.0)}
    assert memo.key(net, p, pre, other, params, {}, frozenset(), True, frozenset()) != base
    assert memo.key(net, p, pre, choices, Params(delta=9.0), {}, frozenset(), True,
                    frozenset()) != base  # fmt: skip
    # a paid item the enumeration never looks up leaves it unchanged
    unread = {("send", "Z", "W"): 1.0}
    assert memo.key(net, p, pre, choices, params, unread, frozenset(), True, frozenset()) == base
    # a kept answer is the enumeration's, as a new list each time
    found = choose_options(net, p, pre, choices, params, {}, is_sink=True)
    kept = choose_options(net, p, pre, choices, params, {}, is_sink=True, memo=memo)
    again = choose_options(net, p, pre, choices, params, {}, is_sink=True, memo=memo)
    assert found == kept == again and again is not kept and len(memo.kept) == 1


def test_numbers_name_values_and_the_memo_is_bounded():
    a = Choice("A", (), None, {("send", "A", "AB"): 1.0, ("fwd", "A", "B"): 2.0}, 0.0)
    b = Choice("A", (), None, {("fwd", "A", "B"): 2.0, ("send", "A", "AB"): 1.0}, 0.0)
    memo = ChoiceMemo()
    assert a == b and memo.choice_number(a) != memo.choice_number(b)  # the items' order counts
    net, state, p = _instance()
    pre = [state.projections[t] for t in sorted(p.types)]
    choices = {t: Choice(t, (), None, {}, 0.0) for t in p.types}
    params = Params(delta=net.mean_hops)
    for i in range(MAX_KEPT):
        memo.put((i,), [])
    key = memo.key(net, p, pre, choices, params, {}, frozenset(), True, frozenset())
    memo.put(key, [])
    assert len(memo.kept) == 1 and memo.get(key) == []
