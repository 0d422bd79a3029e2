"""The local adaptive CEP engine of one simulated node (adaptive-CEP paper §2-§4, INEv §3.2, §5.1).

Its public API is :mod:`inev.simulator.engine.api` (compile a workload, feed events, read
matches, GRETA aggregates and shedding reports); one query's engine is
:class:`inev.simulator.engine.engine.Engine`. The modules are: ``api``,
``events`` (event model, deterministic selectivity predicate), ``constraints`` (a pattern as
slots and constraints), ``predicates`` (compiled checks), ``evaluation_plans`` (order- and
tree-based plans), ``plan_runner`` (running one plan), ``greedy`` / ``zstream`` (plan
generation), ``statistics``, ``invariants`` (decision functions: invariants and baselines),
``reoptimization`` (Algorithm 1: checks and plan replacement), ``engine`` (with ``branch``:
one OR branch's compiled checks, plans and statistics, ``branch_units``: its inputs and
routes, ``outputs``: held and emitted matches, and ``engine_options``), ``trace`` and ``cli``;
the sub-package ``greta`` aggregates Kleene trends without building them (GRETA), and
``shedding`` holds pSPICE (``node_queue``: a node's FIFO queue, ``detector``, ``pspice_model``,
``shedders``).
"""
