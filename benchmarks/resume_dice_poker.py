"""How much of a dice-poker round robin a resume keeps (issue 25, item 2).

Plays a round robin of deterministic sample bots (threshold.py 3 and 5, always_call.py:
three pairings, ``--rounds R`` deals each) uninterrupted; plays it again, kills the
referee with SIGKILL once half the deals are stored, and times the resume.  Wanted: the
resume takes at most 60 % of the full run, loses no stored deal, and ends with the same
games.

    .venv/bin/python benchmarks/resume_dice_poker.py [--rounds 200000]
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _games(out: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _rows(out: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT m.key, g.game, g.seed, g.seats, g.scores FROM games g JOIN matches m ON m.id = g.match_id "
            "ORDER BY m.key, g.game"
        ).fetchall()
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200_000)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="referee-resume-bench-"))
    try:
        home = tmp / "bots"
        home.mkdir()
        for name in ("threshold.py", "always_call.py"):
            shutil.copy2(ROOT / "sample_players/dice_poker" / name, home / name)
        shutil.copytree(ROOT / "protocol", home / "protocol", ignore=shutil.ignore_patterns("__pycache__"))
        bots = [
            f"python3 {home}/threshold.py 3",
            f"python3 {home}/threshold.py 5",
            f"python3 {home}/always_call.py",
        ]
        fresh = [
            *bots,
            "--game",
            "dice-poker",
            "--games",
            "1",
            "--rounds",
            str(args.rounds),
            "--seed",
            "8",
            "--quiet",
        ]
        command = [sys.executable, "-m", "referee", "tournament"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT}

        started = time.perf_counter()
        subprocess.run([*command, *fresh, "--out", str(tmp / "full")], check=True, **quiet)
        full = time.perf_counter() - started
        total = _games(tmp / "full")

        out = tmp / "killed"
        proc = subprocess.Popen([*command, *fresh, "--out", str(out)], **quiet)
        deadline = time.monotonic() + 10 * full  # the whole run took `full`: half of it, with room
        while proc.poll() is None and _games(out) < total // 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kept = _games(out)
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "--resume", str(out), "--quiet"], capture_output=True, text=True, cwd=ROOT
        )
        resumed = time.perf_counter() - started
        assert done.returncode == 0, done.stderr[-2000:]
        same = _rows(out) == _rows(tmp / "full")
        print(f"full run: {total:,} deals in {full:.1f} s")
        print(
            f"killed with {kept:,} deals stored ({kept / total:.0%}); resume: {resumed:.1f} s = {resumed / full:.0%} of the full run"
        )
        print(f"games equal to the uninterrupted run's: {same}")
        print(done.stderr.splitlines()[1] if len(done.stderr.splitlines()) > 1 else done.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
