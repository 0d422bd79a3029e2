"""inev's local CEP engine against OpenCEP, the engine's speed anchor, on the same streams.

Run: ``python benchmarks/bench_engine_vs_opencep.py --opencep-git GITDIR [--events 20000]``
(``GITDIR`` is the git directory ``fetch github:ilya-kolchinsky/OpenCEP`` returns, or set
``OPENCEP_GIT``). Prints, per pattern, events per second of each engine, their ratio, the
number of matches of each and whether both found the same matches (as sets of event ids).

The stream is Poisson over the types A-D at one event per type and time unit, each event
with an attribute ``v`` uniform in 0-9; times are whole milliseconds and windows end half a
millisecond past a whole one, so no match sits exactly on the window's edge (both engines
keep a match whose latest minus earliest time is at most the window). No two events share
a time: there the engines differ by design (OpenCEP's SEQ takes events of equal time in
either order; inev's SEQ needs strictly increasing times, the order the pattern states).

OpenCEP runs its default configuration (tree-based evaluation, trivial left-deep tree,
skip-till-any-match) in a child process on the snapshot's Python files, extracted to a
temporary folder. Its time is what ``CEP.run`` returns less the time of turning the raw
lines into events (measured apart on the same lines; both figures are printed), so both
engines are timed from ready events to matches. inev's time covers ``Engine.push`` and
``flush``, with the greedy (static) plan and with adaptive invariant-based
re-optimisation. Each figure is the best of three runs (the machine is shared). Nothing is
asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import make_event

Stream = list[tuple[str, int, int, int]]
"""Events as (type, time in ms, v, id), in time order."""

PATTERNS = [
    # (label, inev pattern, inev where, OpenCEP structure, OpenCEP condition, window)
    (
        "SEQ(A, B, C), A.v < B.v",
        "SEQ(A, B, C)",
        "A.v < B.v",
        'SeqOperator(P("A", "a"), P("B", "b"), P("C", "c"))',
        'SmallerThanCondition(Variable("a", V), Variable("b", V))',
        2.0005,
    ),
    (
        "AND(A, B, C, D), A.v == D.v",
        "AND(A, B, C, D)",
        "A.v == D.v",
        'AndOperator(P("A", "a"), P("B", "b"), P("C", "c"), P("D", "d"))',
        'EqCondition(Variable("a", V), Variable("d", V))',
        1.0005,
    ),
    (
        "SEQ(A, B, C, D), A.v < B.v, C.v < D.v",
        "SEQ(A, B, C, D)",
        "A.v < B.v AND C.v < D.v",
        'SeqOperator(P("A", "a"), P("B", "b"), P("C", "c"), P("D", "d"))',
        'AndCondition(SmallerThanCondition(Variable("a", V), Variable("b", V)), '
        'SmallerThanCondition(Variable("c", V), Variable("d", V)))',
        5.0005,
    ),
    (
        "NSEQ(A, B, C): no B between A and C",
        "NSEQ(A, B, C)",
        None,
        'SeqOperator(P("A", "a"), NegationOperator(P("B", "b")), P("C", "c"))',
        "None",
        2.0005,
    ),
    (
        "SEQ(A, KL(B), C), A.v < C.v",
        "SEQ(A, KL(B), C)",
        "A.v < C.v",
        'SeqOperator(P("A", "a"), KleeneClosureOperator(P("B", "b")), P("C", "c"))',
        'SmallerThanCondition(Variable("a", V), Variable("c", V))',
        1.5005,
    ),
]

_DRIVER = r"""
import collections, collections.abc, json, sys
for _name in collections.abc.__all__:  # OpenCEP predates Python 3.10's removal of these
    setattr(collections, _name, getattr(collections.abc, _name))
from datetime import datetime, timedelta
from CEP import CEP
from base.DataFormatter import DataFormatter, EventTypeClassifier
from base.Pattern import Pattern
from base.PatternStructure import (AndOperator, KleeneClosureOperator, NegationOperator,
    SeqOperator, PrimitiveEventStructure as P)
from condition.BaseRelationCondition import EqCondition, SmallerThanCondition
from condition.CompositeCondition import AndCondition
from condition.Condition import Variable
from stream.Stream import InputStream, OutputStream

V = lambda x: x["v"]
ORIGIN = datetime(2026, 1, 1)

class ByType(EventTypeClassifier):
    def get_event_type(self, payload):
        return payload["type"]

class Lines(DataFormatter):
    def __init__(self):
        super().__init__(ByType())
    def parse_event(self, raw):
        kind, ms, v, ident = raw.split(",")
        return {"type": kind, "ms": int(ms), "v": int(v), "id": int(ident)}
    def get_event_timestamp(self, payload):
        return ORIGIN + timedelta(milliseconds=payload["ms"])

class Given(InputStream):
    def __init__(self, lines):
        super().__init__()
        for line in lines:
            self._stream.put(line)
        self.close()

job = json.load(sys.stdin)
pattern = Pattern(eval(job["structure"]), eval(job["condition"]),
                  timedelta(seconds=job["window"]))
out = OutputStream()
seconds = CEP([pattern]).run(Given(job["lines"]), out, Lines())
out.close()
from base.Event import Event
import time
begin = time.perf_counter()
for line in job["lines"]:  # what turning the lines into events costs, timed apart
    Event(line, Lines())
parsing = time.perf_counter() - begin
def ids(event):  # a Kleene closure's events come as one aggregated event
    inner = getattr(event, "primitive_events", None)
    return [i for e in inner for i in ids(e)] if inner is not None else [event.payload["id"]]
matches = sorted(sorted(i for e in m.events for i in ids(e)) for m in out)
print(json.dumps({"seconds": seconds, "parsing": parsing, "matches": matches}))
"""


def stream(n: int, seed: int) -> Stream:
    """``n`` events (type, time in ms, v, id) of a Poisson stream, one per type and unit."""
    rng = random.Random(seed)
    t, ms, out = 0.0, -1, []
    for ident in range(n):
        t += rng.expovariate(4.0)
        ms = max(ms + 1, round(t * 1000))  # no two events at one time (module docstring)
        out.append((rng.choice("ABCD"), ms, rng.randint(0, 9), ident))
    return out


def opencep_folder(git_dir: str, target: Path) -> Path:
    """The snapshot's Python files (its large event files are left out) under ``target``."""
    listed = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0 or "CEP.py" not in listed.stdout.split():
        raise SystemExit(f"error: {git_dir}: not the git directory of an OpenCEP snapshot")
    names = listed.stdout.split()
    code = [n for n in names if n.endswith(".py")]
    archive = subprocess.run(
        ["git", "--git-dir", git_dir, "archive", "HEAD", *code], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run_opencep(
    folder: Path, events: Stream, structure: str, condition: str, window: float
) -> dict:
    """OpenCEP's seconds and matches (sorted id lists) for one pattern, in a child process."""
    job = {
        "structure": structure,
        "condition": condition,
        "window": window,
        "lines": [f"{k},{ms},{v},{i}" for k, ms, v, i in events],
    }
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        input=json.dumps(job),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"error: OpenCEP failed: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout)


def run_inev(
    events: Stream, pattern: str, where: str | None, window: float, adaptation: str
) -> tuple[float, list[list[int]]]:
    """Best events per second of three runs of inev's engine, and its matches."""
    made = [make_event(ms / 1000, k, 0, i, {"v": v}) for k, ms, v, i in events]
    best, matches = 0.0, []
    for _ in range(3):
        engine = Engine(pattern, window, where=where, adaptation=Adaptation(adaptation))
        begin = time.perf_counter()
        found = []
        for event in made:
            found += engine.push(event)
        found += engine.flush()
        best = max(best, len(made) / (time.perf_counter() - begin))
        matches = sorted(sorted(e.id for e in m) for m in found)
    return best, matches


def brute_seq_kl(events: Stream, window: float) -> list[list[int]]:
    """SEQ(A, KL(B), C) with A.v < C.v by enumeration: every A, every later C within the
    window, every non-empty set of the B events strictly between them (skip-till-any-match,
    INEv §3.2). The referee when the engines' Kleene matches differ."""
    found = []
    for i, (kind, start, v, ident) in enumerate(events):
        if kind != "A":
            continue
        between = []
        for other, ms, w, other_id in events[i + 1 :]:
            if (ms - start) / 1000 > window:
                break
            if other == "B":
                between.append(other_id)
            elif other == "C" and v < w:
                for size in range(1, len(between) + 1):
                    for chosen in itertools.combinations(between, size):
                        found.append(sorted([ident, *chosen, other_id]))
    return sorted(found)


def main() -> None:
    """Parse the arguments, run every pattern on both engines and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opencep-git", default=os.environ.get("OPENCEP_GIT"))
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.events < 1:
        raise SystemExit(f"error: --events must be at least 1, got {args.events}")
    if not args.opencep_git:
        raise SystemExit("error: give --opencep-git (or OPENCEP_GIT): the OpenCEP snapshot")
    events = stream(args.events, args.seed)
    print(f"{args.events} events, 4 types at 1 per time unit, seed {args.seed}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = opencep_folder(args.opencep_git, Path(tmp))
        for label, pattern, where, structure, condition, window in PATTERNS:
            runs = [run_opencep(folder, events, structure, condition, window) for _ in range(3)]
            theirs = min(runs, key=lambda r: r["seconds"] - r["parsing"])  # best of three
            rate = len(events) / max(theirs["seconds"] - theirs["parsing"], 1e-9)
            print(
                f"{label}, window {window}: OpenCEP {rate:10,.0f} events/s "
                f"(without its {theirs['parsing']:.2f} s of parsing; "
                f"{len(events) / theirs['seconds']:,.0f} with it)"
            )
            for adaptation in ("off", "invariant"):
                mine, matches = run_inev(events, pattern, where, window, adaptation)
                same = "same matches" if matches == theirs["matches"] else "MATCHES DIFFER"
                if same != "same matches" and "KL" in pattern:
                    brute = brute_seq_kl(events, window)
                    same += (
                        f" (enumeration: {len(brute)}; inev "
                        f"{'equals' if matches == brute else 'DIFFERS FROM'} it, OpenCEP "
                        f"{'equals' if theirs['matches'] == brute else 'differs from'} it)"
                    )
                print(
                    f"  inev {('static' if adaptation == 'off' else 'adaptive'):8s} "
                    f"{mine:10,.0f} events/s  ({mine / rate:5.1f}x OpenCEP)  "
                    f"matches {len(matches)} vs {len(theirs['matches'])}: {same}"
                )


if __name__ == "__main__":
    main()
