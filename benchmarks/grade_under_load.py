"""Issue 28's outside check: the same class graded on an idle machine and beside busy
loops gives the same gradebook — outcomes and points.

    python benchmarks/grade_under_load.py [--hogs-per-core 3] [--out DIR] [--java]

The synthetic class of ``tests/grade_class.py`` (Java left out unless ``--java``: its
JVM alone takes most of a slow machine's minute) is graded twice with the same
configuration and seed by the real command line: once as the machine is, then with
``--hogs-per-core`` busy loops (``while True: pass``) pinned to each core this process
may use, started before the run and killed (SIGKILL, in a ``finally``) after it; every
loop ends by itself after ``--hog-limit`` seconds anyway.  Printed: each run's wall
time, the load average at its end, what it said of the machine (replays), and every
gradebook cell that differs in the outcome, step outcome or points columns.  Exit
status 0 when the two gradebooks agree, 1 when they differ.

``tests/test_grade_load.py`` runs it as a slow test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.grade_class import GRADING_CONFIG, gradebook, make_class, readable  # noqa: E402

#: The gradebook's columns that must not depend on the machine: the outcomes and points.
#: (Ratings and ranks come from the competition's games, which are deterministic too,
#: but a tie broken by a replayed game is the competition's business, not a grade.)
COMPARED_PREFIXES = ("outcome", "unpack", "build", "check", "qualify", "compete", "points: ", "total")


def hog_code(seconds: float) -> str:
    return f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"


def start_hogs(per_core: int, seconds: float, own_sessions: bool = True) -> list[subprocess.Popen]:
    hogs: list[subprocess.Popen] = []
    try:
        for core in sorted(os.sched_getaffinity(0)):
            for _ in range(per_core):
                hogs.append(
                    subprocess.Popen(
                        [sys.executable, "-c", hog_code(seconds)],
                        stdin=subprocess.DEVNULL,
                        preexec_fn=lambda c=core: os.sched_setaffinity(0, {c}),
                        # Each its own session, as other users' jobs are: with autogroup
                        # scheduling, loops of one session share one session's CPU — with
                        # the referee's own processes, when it is theirs (--same-session).
                        start_new_session=own_sessions,
                    )
                )
    except BaseException:
        stop_hogs(hogs)
        raise
    return hogs


def stop_hogs(hogs: list[subprocess.Popen]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            hog.send_signal(signal.SIGKILL)
    for hog in hogs:
        hog.wait()


def differences(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]]) -> list[str]:
    """Every outcome and points cell that differs, as 'student column: a -> b'."""
    out = []
    for student in sorted(a.keys() | b.keys()):
        ra, rb = a.get(student, {}), b.get(student, {})
        for column in sorted(ra.keys() | rb.keys()):
            if not column.startswith(COMPARED_PREFIXES):
                continue
            if ra.get(column) != rb.get(column):
                out.append(f"{student} {column}: {ra.get(column)!r} -> {rb.get(column)!r}")
    return out


def grade(submissions: Path, config: Path, out: Path, concurrency: int, timeout: float) -> dict:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "referee", "grade", str(submissions), "--config", str(config),
         "--out", str(out), "--concurrency", str(concurrency)],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"referee grade failed ({done.returncode}):\n{done.stderr[-3000:]}")
    # The overview's notes on the machine: replays, steps not graded.
    try:
        overview = (out / "overview.md").read_text()
    except OSError:
        overview = ""
    notes = [line.strip("- ") for line in overview.splitlines() if "overloaded" in line]
    return {"seconds": seconds, "load": os.getloadavg()[0], "notes": notes, "book": gradebook(out)}


def run(
    root: Path,
    per_core: int,
    java: bool,
    concurrency: int,
    hog_limit: float,
    timeout: float,
    own_sessions: bool = True,
) -> dict:
    """Grade the class idle, then loaded; the two runs and their differences."""
    readable(root)
    submissions = root / "class"
    submissions.mkdir()
    make_class(submissions, java=java)
    config = root / "grading.toml"
    config.write_text(GRADING_CONFIG)  # as tests/test_grade.py grades it: short limits
    idle = grade(submissions, config, root / "idle", concurrency, timeout)
    hogs = start_hogs(per_core, hog_limit, own_sessions)
    try:
        time.sleep(1.0)  # the loops running, the load average climbing
        loaded = grade(submissions, config, root / "loaded", concurrency, timeout)
    finally:
        stop_hogs(hogs)
    return {"idle": idle, "loaded": loaded, "differences": differences(idle["book"], loaded["book"])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hogs-per-core", type=int, default=3)
    parser.add_argument("--hog-limit", type=float, default=900.0, help="seconds a busy loop lives at most")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a grading run may take")
    parser.add_argument("--java", action="store_true")
    parser.add_argument(
        "--same-session",
        action="store_true",
        help="start the busy loops in this session, the grader's, rather than each in its own",
    )
    parser.add_argument("--out", type=Path, help="keep both runs here (an empty or new folder)")
    args = parser.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="referee-grade-load-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        result = run(
            root, args.hogs_per_core, args.java, args.concurrency, args.hog_limit, args.timeout,
            not args.same_session,
        )  # fmt: skip
    finally:
        if args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    cores = len(os.sched_getaffinity(0))
    for name in ("idle", "loaded"):
        r = result[name]
        print(f"{name:>6}: {r['seconds']:.1f} s, load average {r['load']:.1f} on {cores} cores")
        for note in r["notes"]:
            print(f"        {note}")
    extra = result["loaded"]["seconds"] - result["idle"]["seconds"]
    print(
        f"the loaded run took {extra:+.1f} s ({result['loaded']['seconds'] / result['idle']['seconds']:.2f}×)"
    )
    if result["differences"]:
        print("the gradebooks differ:")
        for line in result["differences"]:
            print(f"  {line}")
        return 1
    print(f"the gradebooks agree: {len(result['idle']['book'])} students, outcomes and points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
