"""Bytes per buffered partial match, the figure the size checks price memory with.

For patterns ``SEQ(A, B, …)`` of 3 to 8 types, with and without a chain of key equalities
(``A.x == B.x AND B.x == C.x …``: keyed buffers keep an index entry per partial match too),
an engine with a window longer than the stream is fed events in type order (the first sixth
A, the next sixth B, …, attribute ``x`` in 0..2), so its inner buffers fill with partial
matches. ``tracemalloc`` reads the memory the engine holds after the feed (events and
bindings included: they are what a partial match keeps alive); the script prints it per
partial match held, and :func:`inev.simulator.engine.size.bytes_per_partial_match`'s line.

    python benchmarks/bench_partial_match_bytes.py
    python benchmarks/bench_partial_match_bytes.py --held 100000
"""

from __future__ import annotations

import argparse
import gc
import random
import tracemalloc

from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import make_event
from inev.simulator.engine.size import bytes_per_partial_match


def measure(types: int, keyed: bool, held: int) -> tuple[int, float]:
    """(partial matches held, bytes per partial match) for one pattern."""
    names = "ABCDEFGH"[:types]
    pattern = f"SEQ({', '.join(names)})"
    where = (
        " AND ".join(f"{names[i]}.x == {names[i + 1]}.x" for i in range(types - 1))
        if keyed
        else None
    )
    rng = random.Random(1)
    events = [
        make_event(
            i * 0.001, names[min(i * types // 6000, types - 1)], 0, i, {"x": rng.randrange(3)}
        )
        for i in range(6000)
    ]
    gc.collect()
    tracemalloc.start()
    engine = Engine(pattern, 1000.0, where=where)
    base = tracemalloc.get_traced_memory()[0]
    for event in events:
        engine.push(event)
        if engine.partial_match_count() > held:
            break
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    count = engine.partial_match_count()
    return count, used / count


def main() -> None:
    """Print one row per pattern."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held", type=int, default=300_000, help="partial matches to fill")
    args = parser.parse_args()
    print(f"{'types':>5} {'keys':>6} {'held':>9} {'bytes/PM':>9} {'size model':>10}")
    for types in (3, 4, 6, 8):
        for keyed in (False, True):
            count, per = measure(types, keyed, args.held)
            model = bytes_per_partial_match(types)
            print(
                f"{types:>5} {'keyed' if keyed else 'plain':>6} {count:>9,} {per:>9.0f} {model:>10.0f}"
            )


if __name__ == "__main__":
    main()
