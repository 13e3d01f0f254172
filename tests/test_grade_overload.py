"""Issue 28: a busy grading machine costs a student nothing — the replay rule.

A check whose late answers the machine caused (the bot used far less CPU than the
limit while it waited runnable for a CPU) is run again, at most ``MAX_REPLAYS`` times,
and says so; a bot that computes past its limit still fails.  The busy machine is made
here: busy loops pinned to the core the check runs on (the test pins itself there, and
the check's child inherits it), bounded in time and killed in a finally.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from conftest import BOT_PYTHON

from referee.core.limits import LimitsOverride
from referee.grade import steps
from referee.grade.model import OK

BOTS = Path(__file__).parent / "bots" / "check"
HOG = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end: pass"

pytestmark = pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="needs schedstat")


def _check(command: str, tmp_path: Path, decision_s: float):
    return steps.check(
        "student", Path(command), "yahtzee", games=2, seed=3, sandbox="none",
        limits=LimitsOverride(startup_s=20.0, decision_s=decision_s), allow_root=True,
        folder=tmp_path / "student", wall_s=300,
    )  # fmt: skip


@pytest.mark.slow
def test_a_bot_starved_by_busy_loops_beside_it_is_replayed_not_penalised(tmp_path, monkeypatch):
    before = os.sched_getaffinity(0)
    core = max(before)
    hogs: list[subprocess.Popen] = []
    runs: list = []
    once = steps._check_once

    async def first_run_busy(*args, **kwargs):
        step, caused = await once(*args, **kwargs)
        runs.append((step, caused))
        for hog in hogs:  # the load passes: the replay runs on a quiet core
            hog.kill()
        return step, caused

    monkeypatch.setattr(steps, "_check_once", first_run_busy)
    monkeypatch.setattr(steps, "REPLAY_PAUSE_S", 0.5)
    os.sched_setaffinity(0, {core})
    try:
        hogs += [
            subprocess.Popen([sys.executable, "-c", HOG], preexec_fn=lambda: os.sched_setaffinity(0, {core}))
            for _ in range(6)
        ]
        # 40 ms of CPU an answer, limit 150 ms: late only when it cannot get the CPU.
        step = trio.run(_check, f"{BOT_PYTHON} {BOTS / 'burn.py'} 40", tmp_path, 0.15)
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
    first, caused = runs[0]
    assert first.outcome == "check-failed" and caused == ["decision time"], first  # the load did bite
    assert step.outcome == OK, step
    assert step.replayed == ["decision time: the grading machine was overloaded"]
    assert "replayed once: the grading machine was overloaded" in step.summary


@pytest.mark.slow
def test_a_bot_computing_past_its_limit_still_fails(tmp_path):
    # 2 s of CPU an answer, limit 0.2 s: on a quiet core it uses all the CPU it waits for.
    step = trio.run(_check, f"{BOT_PYTHON} {BOTS / 'burn.py'} 2000", tmp_path, 0.2)
    assert step.outcome != OK, step
    time_item = next(item for item in step.items if item.key == "time")
    assert time_item.status == "fail", step
    if step.outcome == "check-failed":  # a busy CI machine may find it starved: then never graded as passed
        assert not step.replayed, step
    else:
        assert step.outcome == steps.OVERLOADED and len(step.replayed) == steps.MAX_REPLAYS, step
