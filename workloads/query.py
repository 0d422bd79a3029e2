"""The old name of :mod:`inev.workloads.pattern`, kept so that existing imports still work.

Patterns (primitives, operators and the functions over them) moved to
:mod:`inev.workloads.pattern` (issue 47: this module's name said *query* while it held
patterns; :class:`~inev.workloads.workload.Query` lives in :mod:`inev.workloads.workload`).
Every public name of the new module is importable from here and is the same object.

>>> from inev.workloads.query import Operator, split_or
>>> from inev.workloads import pattern
>>> Operator is pattern.Operator and split_or is pattern.split_or
True
"""

from inev.workloads.pattern import *  # noqa: F403
