"""The prepared instance: a network and its OR-free workload, prepared once and handed on.

Every layer after this one works on the same three values: the network as given, the
workload with OR split (§3.2, :attr:`~inev.workloads.workload.Workload.or_free`, split once
per workload) and the
*planning network*, the network in which each pattern variable (``GOOG a``) is a stream of
its own with its type's sources and rates
(:meth:`~inev.topologies.network.Network.with_streams`). :func:`prepare_instance` builds
them at a public entry (planning, repair, simulation, measurement); the functions below it
take the :class:`Instance` (or its parts) instead of splitting again.

Choice: the instance checks nothing. What is bad input depends on the consumer (the
planner refuses a single-type query, a plan's fit check lists problems instead of raising),
so each entry runs its own checks on the prepared value. The planning network is computed
on first use (it may raise for a variable named like a network type, and the consumers
check the workload against the network first, which names the problem better).

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0]), "B": (2.0, [1]), "C": (1.0, [1])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, OR(B, KL(C)))")])
>>> inst = prepare_instance(net, wl)
>>> [str(q) for q in inst.workload.queries]
['q/1: SEQ(A, B)', 'q/2: SEQ(A, KL(C))']
>>> inst.planning_network is net  # no pattern variables: the network itself
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from inev.topologies.network import Network
from inev.workloads.workload import Workload


@dataclass(frozen=True)
class Instance:
    """A network and an OR-free workload on it (see the module docstring).

    ``workload`` must be OR-free: build an instance from a workload as the user gave it
    with :func:`prepare_instance`.
    """

    network: Network
    workload: Workload

    @cached_property
    def planning_network(self) -> Network:
        """The network the planner plans on: each pattern variable a stream of its own
        (``network`` itself when there are none); computed once."""
        return self.network.with_streams(self.workload.streams)


def prepare_instance(network: Network, workload: Workload) -> Instance:
    """The :class:`Instance` of ``network`` and ``workload`` (OR split once, here).

    Parameters
    ----------
    network : Network
        The event network as given.
    workload : Workload
        The workload as given (it may hold OR).

    Returns
    -------
    Instance
        ``network`` with the OR-free workload; nothing is checked (module docstring).

    Examples
    --------
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build([0], [], {"A": (1.0, [0]), "B": (1.0, [0])})
    >>> wl = Workload.build(1.0, [Query.build("q", "OR(A, B)")])
    >>> [q.name for q in prepare_instance(net, wl).workload.queries]
    ['q/1', 'q/2']
    """
    return Instance(network, workload.or_free)
