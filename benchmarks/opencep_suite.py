"""OpenCEP's own test suite, written in inev's query language and run by ``inev match``.

Run: ``python benchmarks/opencep_suite.py --opencep-git GITDIR [--verbose]`` (``GITDIR``: the
git directory ``fetch github:ilya-kolchinsky/OpenCEP`` returns, or set ``OPENCEP_GIT``).

**The tests.** OpenCEP's ``test/tests.py`` calls ``runTest``/``runMultiTest`` once per test:
patterns over an event file (``test/EventFiles``), matches compared with an expected file
(``test/TestsExpected``). The inventory is taken from the snapshot itself: the runner
executes ``test/tests.py`` in a child process with those functions replaced by recorders
(nothing is evaluated), so every call, its patterns, its event file and its expected file
are listed exactly as OpenCEP's suite makes them. Calls whose event file or expected file
the snapshot lacks (``NASDAQ_LONG.txt`` and its probabilistic variant are not stored) are
counted and left out; the rest are the *match outputs* below.

**The translation** (``opencep_translations.py``: :data:`TRANSLATIONS`, keyed by expected file; several calls share one
with other OpenCEP settings) is our own writing: the pattern in inev's syntax (a variable
per OpenCEP event name: ``SEQ(GOOG a, GOOG b)``), its conditions as a ``where`` clause over
the columns ``open``, ``peak``, ``low``, ``close``, ``volume`` (stock files; time in
minutes) or ``amplitude``, ``accx``, ``magx``, … (sensor files; time in seconds), the
window in those units, ``ties: any`` (OpenCEP's sequence order admits equal timestamps, and
the files have minute or second granularity) and selection options where OpenCEP sets a
consumption policy. A call we cannot write says why (:data:`UNTRANSLATED`).

**The comparison.** A match is the multiset of its events' payloads (the dictionaries
OpenCEP prints), so events are compared by content; a test is *equal* when inev's set of
matches is OpenCEP's. For every difference a brute-force enumeration
(``tests/engine_oracle.py``, which follows the semantics directly on the pattern tree,
plus the selection rules of :mod:`inev.simulator.engine.selection` applied to its matches)
decides: *OpenCEP wrong* when it equals inev, *inev wrong* when it equals OpenCEP, else
both differ. Enumerations above ``--brute-limit`` candidate combinations are skipped.

**Refusals.** OpenCEP's ``KC_Condition_Failure_01..03`` expect a malformed Kleene index
condition (an offset together with an index) to be refused; their translations (``NEXT``
together with a position) must be refused by inev with one line.

Nothing is asserted: the table and the summary are printed.
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opencep_translations import (
    OPENCEP_SENSOR,
    OPENCEP_STOCK,
    REFUSALS,
    SENSOR_COLUMNS,
    STOCK_COLUMNS,
    TRANSLATIONS,
    UNTRANSLATED,
    Translation,
)

from inev.common.errors import InevError
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.matching import MatchOptions, match_workload
from inev.simulator.engine.selection import parse_selection
from inev.workloads.workload import Query, Workload


# ------------------------------------------------------------------ the snapshot
class Snapshot:
    """Files of the OpenCEP snapshot (a bare git directory); missing blobs read as None."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        listed = subprocess.run(
            ["git", "--git-dir", git_dir, "ls-tree", "-r", "HEAD"], capture_output=True, text=True
        )
        if listed.returncode != 0 or "\tCEP.py\n" not in listed.stdout:
            raise SystemExit(f"error: {git_dir}: not the git directory of an OpenCEP snapshot")
        self.blobs = {}
        for line in listed.stdout.splitlines():
            meta, path = line.split("\t", 1)
            self.blobs[path] = meta.split()[2]

    def read(self, path: str) -> bytes | None:
        """The file's content, or None when the snapshot lacks it."""
        blob = self.blobs.get(path)
        if blob is None:
            return None
        done = subprocess.run(
            ["git", "--git-dir", self.git_dir, "cat-file", "blob", blob], capture_output=True
        )
        return done.stdout if done.returncode == 0 else None

    def extract(self, target: Path) -> None:
        """Every stored file (code, event files, expected files) under ``target``."""
        for path in self.blobs:
            data = self.read(path)
            if data is None:
                continue
            out = target / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


_RECORDER = r"""
import collections, collections.abc, json, os, sys
for _name in collections.abc.__all__:  # OpenCEP predates Python 3.10's removal of these
    setattr(collections, _name, getattr(collections.abc, _name))
root = os.getcwd()
sys.path.insert(0, root)
for name in ("NASDAQ_LONG.txt", "NASDAQ_20080201_1_sorted.txt", "NASDAQ_LONG_modified.txt",
             "NASDAQ_LONG_probabilities.txt"):
    path = os.path.join(root, "test", "EventFiles", name)
    if not os.path.exists(path):  # testUtils opens every event file when imported
        open(path, "w").close()
import stream.FileStream as FS, stream.Stream as S
_init, _dup = FS.FileInputStream.__init__, S.InputStream.duplicate
def init(self, path):
    _init(self, path)
    self.path = os.path.basename(path)
def dup(self):
    copy = _dup(self)
    copy.path = getattr(self, "path", None)
    return copy
FS.FileInputStream.__init__, S.InputStream.duplicate = init, dup
import test.testUtils as TU
SINGLE = {"OneNotBegin": "NASDAQ_SHORT.txt", "MultipleNotBegin": "NASDAQ_SHORT.txt",
          "MultipleNotMiddle": "NASDAQ_SHORT.txt", "distinctPatterns": "NASDAQ_SHORT.txt",
          "OneNotEnd": "NASDAQ_HALF_SHORT.txt", "MultipleNotEnd": "NASDAQ_HALF_SHORT.txt",
          "MultipleNotBeginAndEnd": "custom.txt", "NotEverywhere2": "custom.txt",
          "simpleNot": "custom2.txt", "NotEverywhere": "custom3.txt"}
MULTI = {"multiplePatterns": "NASDAQ_SHORT.txt", "distinctPatterns": "NASDAQ_SHORT.txt",
         "MultipleNotBeginningShare": "NASDAQ_SHORT.txt",
         "multipleParentsForInternalNode": "NASDAQ_SHORT.txt",
         "onePatternIncludesOther": "NASDAQ_HALF_SHORT.txt",
         "threeSharingSubtrees": "NASDAQ_HALF_SHORT.txt", "FirstMultiPattern": "custom2.txt",
         "RootAndInner": "custom2.txt", "NotEverywhere": "custom3.txt"}
records = []
def recorder(kind, overrides):
    # runTest and runMultiTest replace the event stream for some expected names (testUtils)
    def record(test_name, patterns, create=False, params=None, *args, **kw):
        stream = kw.get("events") or kw.get("eventStream") or TU.nasdaqEventStream
        expected = kw.get("expected_file_name") or test_name
        expected = expected.split("|")[0]
        records.append({"kind": kind, "test": test_name.replace("|", ""),
                        "expected": expected + "Matches.txt",
                        "events": overrides.get(expected, getattr(stream, "path", None)),
                        "patterns": [str(p.full_structure) for p in patterns]})
    return record
TU.runTest = recorder("single", SINGLE)
TU.runMultiTest = recorder("multi", MULTI)
TU.runStructuralTest = lambda *a, **k: None
TU.runBenchMark = lambda *a, **k: None
class Parallel:  # its output lists per-unit events, not matches
    def __init__(self, *args, **kw):
        pass
TU.runParallelTest = Parallel
import importlib
for module in ("EvaluationTests", "LocalSearchTests", "OptimizerTests", "TreeConstructionTests",
               "KC_tests", "NegationTests", "PolicyTests", "MultiPattern_tests", "StorageTests",
               "EventProbabilityTests", "NestedTests", "ParallelTests", "BasicTests"):
    loaded = importlib.import_module("test." + module)
    for name in ("runTest", "runMultiTest", "runStructuralTest", "runParallelTest",
                 "runBenchMark"):
        if hasattr(loaded, name):
            setattr(loaded, name, getattr(TU, name))
scope = {}
exec("\n".join(line for line in open("test/tests.py").read().splitlines()
               if line.startswith(("from ", "import "))), scope)
scope["ruleTransformationTests"] = scope["run_storage_tests"] = lambda: None
import contextlib, io
for line in open("test/tests.py").read().splitlines():
    call = line.strip()
    if line.startswith((" ", "\t", "#")) or not call.endswith("()"):
        continue
    with contextlib.redirect_stdout(io.StringIO()):
        exec(call, scope)
json.dump(records, sys.stderr)
"""


def inventory(folder: Path) -> list[dict[str, Any]]:
    """Every match output of OpenCEP's ``test/tests.py``: ``{kind, test, expected, events,
    patterns}`` (see the module docstring)."""
    done = subprocess.run(
        [sys.executable, "-c", _RECORDER],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"error: OpenCEP's tests.py failed: {done.stderr.strip()[-300:]}")
    return json.loads(done.stderr)


# ------------------------------------------------------------------ events and matches
@dataclass
class Stream:
    """An event file as inev events, with each event's OpenCEP payload (its identity)."""

    events: list[Event]
    payloads: dict[int, tuple]
    by_payload: dict[tuple, list[int]] = field(default_factory=dict)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_stream(data: bytes, name: str) -> Stream:
    """Parse an OpenCEP event file: stock ticks (minutes) or sensor readings (seconds)."""
    events, payloads = [], {}
    origin = None
    for line in data.decode().splitlines():
        if not line.strip():
            continue
        fields = [_number(f) for f in line.strip().split(",")]
        ident = len(events) + 1
        if name.endswith(".dat"):
            kind = fields[0]
            names = ("type", "time", "amplitude", *SENSOR_COLUMNS[kind])
            shown = ("SensorType", "TimeStamp", "Amplitude", *OPENCEP_SENSOR[kind])
            moment = datetime.datetime.strptime(fields[1], "%m/%d/%Y %H:%M:%S")
            unit = 1.0
        else:
            kind = fields[0]
            names, shown = STOCK_COLUMNS, OPENCEP_STOCK
            stamp = str(fields[1])
            moment = datetime.datetime(
                int(stamp[:4]),
                int(stamp[4:6]),
                int(stamp[6:8]),
                int(stamp[8:10]),
                int(stamp[10:12]),
            )
            unit = 60.0
        origin = origin or moment
        t = (moment - origin).total_seconds() / unit
        attrs = {
            n: v
            for n, v in zip(names, fields, strict=False)
            if n not in ("type", "time", "ticker", "date")
        }
        events.append(make_event(t, kind, 0, ident, attrs))
        payloads[ident] = _key(dict(zip(shown, fields, strict=False)))
    events.sort(key=lambda e: e.time)  # a stable sort: equal times keep the file's order
    by_payload: dict[tuple, list[int]] = {}
    for ident, key in payloads.items():
        by_payload.setdefault(key, []).append(ident)
    return Stream(events, payloads, by_payload)


def _key(payload: dict[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in payload.items()))


Match = tuple  # sorted payload keys of a match's events


def expected_matches(data: bytes, multi: bool) -> dict[int, collections.Counter]:
    """OpenCEP's expected matches per pattern (1-based; 1 for a single pattern)."""
    out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for block in data.decode().split("\n\n"):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines:
            continue
        pattern = 1
        if multi:
            head, _, rest = lines[0].partition(": ")
            pattern, lines[0] = int(head), rest
        out[pattern][tuple(sorted(_key(ast.literal_eval(x)) for x in lines))] += 1
    return out


def inev_matches(
    stream: Stream, translation: Translation
) -> tuple[dict[int, collections.Counter], float]:
    """inev's matches per pattern (payload form) and the seconds they took."""
    out: dict[int, collections.Counter] = {}
    selection = parse_selection(translation.strategy, translation.consume, translation.freeze)
    options = MatchOptions(aggregate=False, guard=False, selection=selection)
    begin = time.perf_counter()
    for index, (pattern, where, window) in enumerate(translation.queries, start=1):
        found: collections.Counter = collections.Counter()
        workload = Workload.build(window, [Query.build("q", pattern, where=where)], ties="any")

        def write(_name: str, matches: list, found: collections.Counter = found) -> None:
            for m in matches:
                found[tuple(sorted(stream.payloads[e.id] for e in m))] += 1

        match_workload(workload, [stream.events], options, write=write)
        out[index] = found
    return out, time.perf_counter() - begin


# ------------------------------------------------------------------ brute force
def brute_force(
    stream: Stream, translation: Translation, index: int, limit: float
) -> collections.Counter | None:
    """The matches of pattern ``index`` by enumeration (``tests/engine_oracle.py``), with
    the translation's selection rules applied to them; None above ``limit`` combinations
    or for a freezing policy (a procedure over the emitted matches, not a selection)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from engine_oracle import oracle

    from inev.workloads.expressions import parse_condition
    from inev.workloads.pattern import Primitive, streams, walk
    from inev.workloads.syntax import parse_pattern

    if translation.freeze:
        return None
    pattern, where, window = translation.queries[index - 1]
    tree = parse_pattern(pattern)
    variables = streams(tree)
    counts = collections.Counter(e.type for e in stream.events)
    size = 1.0
    for leaf in walk(tree):
        if isinstance(leaf, Primitive):
            size *= max(1, counts.get(variables.get(leaf.type, leaf.type), 0))
    if size > limit:
        return None
    found = oracle(
        tree,
        stream.events,
        window,
        where=parse_condition(where) if where else None,
        ties="any",
        streams=variables,
        multiset=True,
    )
    place = {e.id: i for i, e in enumerate(stream.events)}
    read = {variables.get(t, t) for t in (x.type for x in walk(tree) if isinstance(x, Primitive))}
    if translation.strategy == "contiguous":
        ranks = {e.id: i for i, e in enumerate(e for e in stream.events if e.type in read)}
        found = collections.Counter(
            {
                m: n
                for m, n in found.items()
                if max(ranks[i] for i in m) - min(ranks[i] for i in m) + 1 == len(set(m))
            }
        )
    if translation.consume:
        leaves = [x.type for x in walk(tree) if isinstance(x, Primitive)]
        consumed: set[int] = set()
        kept: collections.Counter = collections.Counter()
        for m in sorted(
            found, key=lambda m: (max(place[i] for i in m), sorted(place[i] for i in m))
        ):
            own = {i for i, leaf in zip(m, leaves, strict=False) if leaf in translation.consume}
            if own & consumed:
                continue
            consumed |= own
            kept[m] = found[m]
        found = kept
    out: collections.Counter = collections.Counter()
    for m, n in found.items():
        out[tuple(sorted(stream.payloads[i] for i in m))] += n
    return out


# ------------------------------------------------------------------ the run
@dataclass
class Row:
    """One OpenCEP call: what happened to it."""

    test: str
    expected: str
    events: str
    status: str  # equal, opencep-wrong, named, inev-wrong, differs, untranslated, no-file
    detail: str = ""
    seconds: float = 0.0


def _differences(ours: dict, theirs: dict) -> list[int]:
    patterns = sorted(set(ours) | set(theirs))
    return [i for i in patterns if set(ours.get(i, {})) != set(theirs.get(i, {}))]


def run_call(snapshot: Snapshot, call: dict[str, Any], limit: float, cache: dict) -> Row:
    """Translate, run and compare one OpenCEP call (see the module docstring)."""
    row = Row(call["test"], call["expected"], call["events"] or "?", "")
    expected_data = snapshot.read(f"test/TestsExpected/{call['expected']}")
    events_data = snapshot.read(f"test/EventFiles/{call['events']}") if call["events"] else None
    if expected_data is None or events_data is None:
        row.status = "no-file"
        row.detail = "event file not in the snapshot" if events_data is None else "no expected file"
        return row
    if call["expected"] in UNTRANSLATED:
        row.status, row.detail = "untranslated", UNTRANSLATED[call["expected"]]
        return row
    translation = TRANSLATIONS.get(call["expected"])
    if translation is None:
        row.status, row.detail = "untranslated", "no translation written"
        return row
    if call["events"] not in cache:
        cache[call["events"]] = read_stream(events_data, call["events"])
    stream = cache[call["events"]]
    theirs = expected_matches(expected_data, call["kind"] == "multi")
    key = (call["expected"], call["events"])
    if key not in cache:
        cache[key] = inev_matches(stream, translation)
    ours, row.seconds = cache[key]
    differing = _differences(ours, theirs)
    if not differing:
        row.status = "equal"
        row.detail = f"{sum(len(c) for c in ours.values())} matches"
        return row
    verdicts = []
    for i in differing:
        mine, their = set(ours.get(i, {})), set(theirs.get(i, {}))
        faults = _faults(their - mine, stream, translation, i)
        counts = (
            f"pattern {i}: inev {len(mine)}, OpenCEP {len(their)} ({len(mine - their)} only "
            f"inev, {len(their - mine)} only OpenCEP{faults})"
        )
        brute = brute_force(stream, translation, i, limit)
        if brute is None:
            verdict = ("differs", f"{counts}; no brute force (too large, or a freezing policy)")
        elif set(brute) == mine and translation.design:
            verdict = ("named", f"{counts}; enumeration {len(brute)} = inev; {translation.design}")
        elif set(brute) == mine:
            verdict = ("opencep-wrong", f"{counts}; enumeration: {len(brute)}, equal to inev")
        elif set(brute) == their:
            verdict = ("inev-wrong", f"{counts}; enumeration: {len(brute)}, equal to OpenCEP")
        else:
            verdict = ("differs", f"{counts}; enumeration: {len(brute)}, equal to neither")
        verdicts.append(verdict)
    kinds = {v for v, _ in verdicts}
    for status in ("inev-wrong", "differs", "named", "opencep-wrong"):
        if status in kinds:
            row.status = status
            break
    row.detail = "; ".join(d for _, d in verdicts)
    if translation.note:
        row.detail += f" [{translation.note}]"
    return row


def _faults(matches: set, stream: Stream, translation: Translation, index: int) -> str:
    """How many of OpenCEP's extra matches break rules OpenCEP keeps itself elsewhere: a
    match binds an event once (its SEQ over one type does), its events fit the window."""
    if not matches:
        return ""
    window = translation.queries[index - 1][2]
    times = {stream.payloads[e.id]: e.time for e in stream.events}
    twice = {m for m in matches if len(set(m)) < len(m)}
    wide = {m for m in matches if max(times[p] for p in m) - min(times[p] for p in m) > window}
    if not twice | wide:
        return ""
    share = "every one" if len(twice | wide) == len(matches) else f"{len(twice | wide)}"
    return f": {share} binds an event twice ({len(twice)}) or exceeds the window ({len(wide)})"


def refusals() -> list[tuple[str, str]]:
    """Each refusal test's translation and inev's one line (or 'NOT REFUSED')."""
    out = []
    for name, (pattern, where) in REFUSALS.items():
        try:
            Query.build("q", pattern, where=where)
            out.append((name, "NOT REFUSED"))
        except InevError as exc:
            out.append((name, f"error: {exc}"))
    return out


def main() -> None:
    """Parse the arguments, run every call and print the table and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opencep-git", default=os.environ.get("OPENCEP_GIT"))
    parser.add_argument("--brute-limit", type=float, default=2e6)
    parser.add_argument("--verbose", action="store_true", help="one line per call")
    args = parser.parse_args()
    if not args.opencep_git:
        raise SystemExit("error: give --opencep-git (or OPENCEP_GIT): the OpenCEP snapshot")
    snapshot = Snapshot(args.opencep_git)
    with tempfile.TemporaryDirectory() as tmp:
        snapshot.extract(Path(tmp))
        calls = inventory(Path(tmp))
    cache: dict = {}
    rows = [run_call(snapshot, call, args.brute_limit, cache) for call in calls]
    present = [r for r in rows if r.status != "no-file"]
    print(
        f"OpenCEP test/tests.py: {len(rows)} match outputs (runTest/runMultiTest calls); "
        f"{len(rows) - len(present)} need files the snapshot lacks, {len(present)} below"
    )
    width = max(len(r.test) for r in present)
    seen: set[str] = set()
    for r in present:
        repeat = r.expected in seen
        seen.add(r.expected)
        if repeat and not args.verbose:
            continue
        same = [x.test for x in present if x.expected == r.expected and x.test != r.test]
        also = (
            f" (+{len(same)} calls with other OpenCEP settings)"
            if same and not args.verbose
            else ""
        )
        print(f"  {r.test:<{width}}  {r.status:<13} {r.detail}{also}")
    tally = collections.Counter(r.status for r in present)
    print(
        "summary over",
        len(present),
        "match outputs:",
        ", ".join(f"{k} {v}" for k, v in sorted(tally.items())),
    )
    good = tally["equal"] + tally["opencep-wrong"]
    print(f"equal or OpenCEP shown wrong by brute force: {good} of {len(present)}")
    print("refusals (OpenCEP expects these Kleene conditions to be refused):")
    for name, line in refusals():
        print(f"  {name}: {line}")
    total = sum(r.seconds for r in present if r.status != "untranslated")
    print(f"inev's matching time over the translated outputs: {total:.2f} s")


if __name__ == "__main__":
    main()
