"""Fuzz every command: seeded mutations of every input file and hostile option values.

For each case the script writes a set of input files (valid ones, one of them mutated, or a
hostile option value, or an output path that collides with an input), runs one ``inev``
command on them in a forked child of this process (so the import cost is paid once), and
checks the promise of the team's definition of done:

- a refused case (non-zero exit) prints exactly one non-empty stderr line ``error: ...``, no
  traceback (an ``internal error`` line counts as one), leaves no output and no temporary file,
  and leaves every input byte-identical;
- an accepted case (exit 0) leaves no temporary file and no input changed;
- no case runs longer than ``--timeout`` seconds (a hang).

Mutations of JSON inputs work on the parsed document (delete a key, replace a value by a
hostile one: wrong types, 401-digit integers, NaN and infinities, lists nested 1,000 deep, names
that exist elsewhere, duplicated list items ...), and on the bytes (truncation, invalid UTF-8, a
byte-order mark, deep nesting). TOML specs, CSV and Parquet traces and result folders have their
own mutations. Cross-file cases give a plan made for another network or workload.

Each child runs with an address-space limit (``--memory``), so a case that tries to exhaust the
machine ends in a MemoryError instead (which is then counted by how it was reported).

Every ``--chain-every``-th case (default 4) is instead a chain of :mod:`fuzz_language`: a
generated workload in the whole query language planned, then simulated, repaired, drawn,
shown and matched in one folder, each step a row of its own ("chain plan", ...); a step that
refuses the plan ``inev plan`` just wrote counts as "own plan refused".

Run: ``python benchmarks/fuzz_commands.py [--cases 2400] [--seed 1] [--timeout 60]``; it prints
one row per command and the total, and with ``--show N`` the first N failing cases.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from fuzz_cases import TEMPLATES, Case, build_corpus, make_case
from fuzz_language import language_chain

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


# --------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """How one case ended."""

    code: int | None
    stderr: str
    seconds: float
    left: list[str]
    changed: list[str]


def run_case(case: Case, folder: Path, timeout: float, memory: int) -> Outcome:
    """Write the case's files, run it in a forked child, and look at what it left."""
    fresh_folder(folder, case.files)
    return run_argv(case.argv, folder, timeout, memory)


def fresh_folder(folder: Path, files: dict[str, bytes]) -> None:
    """``folder`` emptied and holding ``files``."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def run_argv(argv: list[str], folder: Path, timeout: float, memory: int) -> Outcome:
    """Run one command in ``folder`` in a forked child, and look at what it left."""
    before = {p: h for p, h in snapshot(folder).items()}
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            os.setpgid(0, 0)
            os.chdir(folder)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            out = os.open("stdout.fuzz", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            err = os.open("stderr.fuzz", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(err, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            from inev.common.cli import main

            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    code: int | None = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.perf_counter() - start > timeout:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    seconds = time.perf_counter() - start
    stderr = (folder / "stderr.fuzz").read_text(errors="replace")
    after = snapshot(folder)
    ignore = {"stdout.fuzz", "stderr.fuzz"}
    new = sorted(p for p in after if p not in before and p not in ignore)
    changed = sorted(p for p in before if after.get(p) != before[p] and p not in ignore)
    left = [p for p in new if is_temporary(p)] if code == 0 else new
    return Outcome(code, stderr, seconds, left, changed)


def is_temporary(path: str) -> bool:
    name = Path(path).name
    return name.endswith(".tmp") or ".tmp." in name or name.startswith(".~")


def snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in folder.rglob("*"):
        if path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha1(path.read_bytes()).hexdigest()
        elif path.is_dir() and not any(path.iterdir()):
            out[str(path.relative_to(folder)) + "/"] = "dir"
    return out


def classify(outcome: Outcome) -> list[str]:
    """The broken promises of one case (empty when it kept every promise)."""
    problems = []
    if outcome.code is None:
        return ["hang"]
    err = outcome.stderr
    if "Traceback" in err or "internal error" in err:
        problems.append("traceback")
    if outcome.code != 0:
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: ") or not lines[0][7:].strip():
            problems.append("multi-line or empty error")
        if outcome.left:
            problems.append("files left")
    elif outcome.left:
        problems.append("files left")
    if outcome.changed:
        problems.append("input changed")
    return problems


COLUMNS = (
    "traceback",
    "multi-line or empty error",
    "hang",
    "files left",
    "input changed",
    "own plan refused",
)


def run_chain(
    steps: list[list[str]], files: dict[str, bytes], folder: Path, timeout: float, memory: int
) -> list[tuple[list[str], Outcome, list[str]]]:
    """Run a chain of :mod:`fuzz_language` in one folder: each step with its outcome and its
    broken promises; a step after an accepted ``plan`` that refuses the plan file breaks the
    promise that inev's plans are usable by inev. A refused ``plan`` ends the chain but for
    ``match``, which reads no plan."""
    from fuzz_language import PLAN

    fresh_folder(folder, files)
    out = []
    planned = False
    for argv in steps:
        if argv[0] != "match" and not planned and argv is not steps[0]:
            continue
        outcome = run_argv(argv, folder, timeout, memory)
        problems = classify(outcome)
        if argv is steps[0]:
            planned = outcome.code == 0
        elif outcome.code not in (0, None) and PLAN in argv and PLAN in outcome.stderr:
            problems.append("own plan refused")
        out.append((argv, outcome, problems))
    return out


def main() -> None:
    """Run the cases and print one row per command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2400, help="Cases in all.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="Seconds before a hang.")
    parser.add_argument("--memory", type=float, default=4.0, help="GiB of address space per case.")
    parser.add_argument("--show", type=int, default=0, help="Print the first N failing cases.")
    parser.add_argument("--only", help="Only commands whose name contains this.")
    parser.add_argument(
        "--chain-every",
        type=int,
        default=4,
        help="Every Nth case is a generated-language chain (fuzz_language.py; 0: none).",
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    import inev.common.cli
    import inev.experiments.measure  # noqa: F401

    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="inev-fuzz-"))
    try:
        corpus = build_corpus(work / "corpus")
        templates = [t for t in TEMPLATES if not args.only or args.only in t.command]
        rows: dict[str, Counter] = defaultdict(Counter)
        failures: list[tuple[Case, Outcome, list[str]]] = []
        started = time.perf_counter()
        memory = int(args.memory * 2**30)
        number = draw = 0
        while number < args.cases:
            draw += 1
            if args.chain_every and draw % args.chain_every == 0:
                steps, files = language_chain(rng, corpus)
                ran = run_chain(steps, files, work / "case", args.timeout, memory)
                runs = [(Case(f"chain {a[0]}", a, files, [], "generated language"), o, p)
                        for a, o, p in ran]  # fmt: skip
            else:
                case = make_case(rng, templates[draw % len(templates)], corpus)
                outcome = run_case(case, work / "case", args.timeout, memory)
                runs = [(case, outcome, classify(outcome))]
            for case, outcome, problems in runs:
                row = rows[case.command]
                row["cases"] += 1
                row["accepted" if outcome.code == 0 else "refused"] += 1
                row["over 60 s"] += outcome.seconds > 60
                for p in problems:
                    row[p] += 1
                if problems:
                    row["failing"] += 1
                    failures.append((case, outcome, problems))
                number += 1
        seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = (
        "command",
        "cases",
        "accepted",
        "refused",
        "tracebacks",
        "bad errors",
        "hangs",
        "files left",
        "inputs changed",
        "own plan refused",
        "over 60 s",
    )
    print(
        f"{args.cases} cases, seed {args.seed}, timeout {args.timeout:g} s, {seconds:.0f} s in all"
    )
    print(" | ".join(f"{h:>17}" if i == 0 else f"{h:>8}" for i, h in enumerate(header)))
    total: Counter = Counter()
    for command in sorted(rows):
        row = rows[command]
        total.update(row)
        print_row(command, row)
    print_row("all", total)
    for case, outcome, problems in failures[: args.show]:
        print(f"\n[{case.command}] {case.what}: {', '.join(problems)} (exit {outcome.code})")
        print("  argv:", " ".join(case.argv))
        tail = outcome.stderr.strip().splitlines()[-3:]
        for line in tail:
            print("  |", line[:300])
        if outcome.left:
            print("  left:", outcome.left)
    sys.exit(1 if total["failing"] else 0)


def print_row(command: str, row: Counter) -> None:
    cells = [row["cases"], row["accepted"], row["refused"], *(row[c] for c in COLUMNS)]
    cells.append(row["over 60 s"])
    print(f"{command:>17} | " + " | ".join(f"{c:>8}" for c in cells))


if __name__ == "__main__":
    main()
