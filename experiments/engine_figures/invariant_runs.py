"""Timed runs of the adaptive engine over a drifting stream, the adaptation methods compared
in one process (the invariant paper, seeds 000/001, §5): the library behind
``benchmarks/bench_invariant_paper.py`` and the ``inv*`` figures of ``inev reproduce``.

Each method runs a fresh engine over the same events; CPU time (``time.process_time``) is
taken around the pushes only, the garbage collector runs before each timed run and the engine
is released after it, so no method pays for the previous one's cyclic garbage. With
``rounds`` > 1 the methods are interleaved and each keeps its least CPU time (this machine is
shared). Every method must find the same matches (adaptation changes the plan, never the
result); a difference is an error, not a figure.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Mapping
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.drift_streams import DriftStream
from inev.simulator.engine.engine import Adaptation
from inev.simulator.engine.predicates import compiled_source

THRESHOLDS = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
"""The constant-threshold method's grid; its best-tuned threshold is the one of least CPU."""


def methods(thresholds: tuple[float, ...] = THRESHOLDS) -> dict[str, Adaptation]:
    """The compared methods by label (each with the engine's default check period).

    >>> list(methods((0.5,)))
    ['static', 'invariant (defaults)', 'invariant d=0.5', 'invariant d=average', 'invariant select=gap', 'always', 'threshold t=0.5']
    """
    out = {
        "static": Adaptation("off"),
        "invariant (defaults)": Adaptation("invariant"),
        "invariant d=0.5": Adaptation("invariant", distance=0.5),
        "invariant d=average": Adaptation("invariant", distance="average"),
        "invariant select=gap": Adaptation("invariant", selection="gap"),
        "always": Adaptation("always"),
    }
    for t in thresholds:
        out[f"threshold t={t}"] = Adaptation("threshold", threshold=t)
    return out


def run_once(
    stream: DriftStream, plan: str, adaptation: Adaptation, cold: bool = True
) -> dict[str, Any]:
    """One fresh engine over the stream: CPU seconds, matches and the engine's counters.

    With ``cold`` (the default) the process's cache of compiled join code
    (:func:`inev.simulator.engine.predicates.compiled_source`) is emptied first, so every
    method pays for its own plan changes' compilations as in a process of its own, whatever
    ran before it; ``cold=False`` measures a long-running process where the code is reused.

    >>> from inev.simulator.engine.drift_streams import rate_swap
    >>> r = run_once(rate_swap(500, seed=1), "greedy", Adaptation("off"))
    >>> r["events"], r["plan_changes"], r["cpu"] >= 0
    (500, 0, True)
    """
    engine = stream.engine(plan, adaptation)
    push = engine.push
    matches = 0
    if cold:
        compiled_source.cache_clear()
    gc.collect()  # the previous engine's cyclic garbage is not this method's cost
    begin = time.process_time()
    for e in stream.events:
        found = push(e)
        if found:
            matches += len(found)
    matches += len(engine.flush())
    cpu = time.process_time() - begin
    engine.release()
    return {"cpu": cpu, "matches": matches, **engine.counters}


def compare(
    stream: DriftStream,
    plan: str,
    rounds: int,
    chosen: Mapping[str, Adaptation],
    cold: bool = True,
) -> dict[str, dict[str, Any]]:
    """Every method of ``chosen`` over ``stream``, interleaved, ``rounds`` times; the run of
    least CPU time of each (``cold`` as in :func:`run_once`). Raises :class:`InevError` if
    two methods' matches differ.

    >>> from inev.simulator.engine.drift_streams import rate_swap
    >>> found = compare(rate_swap(400, seed=1), "greedy", 1, {"static": Adaptation("off")})
    >>> list(found)
    ['static']
    """
    found: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        for label, adaptation in chosen.items():
            r = run_once(stream, plan, adaptation, cold)
            if label not in found or r["cpu"] < found[label]["cpu"]:
                found[label] = r
    counts = {label: r["matches"] for label, r in found.items()}
    if len(set(counts.values())) > 1:
        raise InevError(f"adaptation changed the matches on {stream.name}: {counts}")
    return found


def best_threshold(found: Mapping[str, Mapping[str, Any]], key: str = "cpu") -> str:
    """The label of the threshold method of least ``key`` (the best-tuned threshold).

    >>> best_threshold({"threshold t=0.1": {"cpu": 2.0}, "threshold t=1.0": {"cpu": 1.0},
    ...                 "static": {"cpu": 0.5}})
    'threshold t=1.0'
    """
    labels = [k for k in found if k.startswith("threshold")]
    if not labels:
        raise InevError("no threshold method among the runs")
    return min(labels, key=lambda k: found[k][key])
