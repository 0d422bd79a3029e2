"""Query workloads (INEv paper §3.2): SEQ/AND/OR/KL/NSEQ patterns, selectivities, where/return.

Public API (imported on first use): ``Query`` and ``Workload``
(:mod:`inev.workloads.workload`), ``generate_workload`` (:mod:`inev.workloads.generate`),
``load_workload`` and ``save_workload`` (the ``inev-workload/1`` file,
:mod:`inev.workloads.io`).

>>> from inev.workloads import Query, Workload
>>> Workload.build(2.0, [Query.build("q", "SEQ(A, KL(B))")]).types
('A', 'B')
"""

from typing import TYPE_CHECKING

from inev.common.facade import lazy_exports

_EXPORTS = {
    "Query": "inev.workloads.workload",
    "Workload": "inev.workloads.workload",
    "generate_workload": "inev.workloads.generate",
    "load_workload": "inev.workloads.io",
    "save_workload": "inev.workloads.io",
}
__all__ = [
    "Query",
    "Workload",
    "generate_workload",
    "load_workload",
    "save_workload",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from inev.workloads.generate import generate_workload
    from inev.workloads.io import load_workload, save_workload
    from inev.workloads.workload import Query, Workload
