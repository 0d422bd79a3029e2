"""Event networks (INEv paper §3.1, §7.1): nodes, links, latencies and rates r(e, n).

Public API (imported on first use): ``Network`` (:mod:`inev.topologies.network`),
``generate_network`` (:mod:`inev.topologies.generate`), ``load_network`` and
``save_network`` (the ``inev-network/1`` file, :mod:`inev.topologies.io`).

>>> from inev.topologies import Network
>>> Network.build(range(3), [(0, 1), (1, 2)], {"A": (2.0, [0, 2])}).global_rate("A")
4.0
"""

from typing import TYPE_CHECKING

from inev.common.facade import lazy_exports

_EXPORTS = {
    "Network": "inev.topologies.network",
    "generate_network": "inev.topologies.generate",
    "load_network": "inev.topologies.io",
    "save_network": "inev.topologies.io",
}
__all__ = [
    "Network",
    "generate_network",
    "load_network",
    "save_network",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from inev.topologies.generate import generate_network
    from inev.topologies.io import load_network, save_network
    from inev.topologies.network import Network
