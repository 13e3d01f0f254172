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

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="needs schedstat"),
    pytest.mark.slow,
    pytest.mark.e2e,
]


def _check(command: str, tmp_path: Path, decision_s: float):
    return steps.check(
        "student", Path(command), "yahtzee", games=2, seed=3, sandbox="none",
        limits=LimitsOverride(startup_s=20.0, decision_s=decision_s), allow_root=True,
        folder=tmp_path / "student", wall_s=300,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.drill
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
            # Each in a session of its own: the bot runs in its own (setsid), and with
            # autogroup scheduling the CPU is shared between sessions first.
            subprocess.Popen(
                [sys.executable, "-c", HOG],
                preexec_fn=lambda: os.sched_setaffinity(0, {core}),
                start_new_session=True,
            )
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
    if first.outcome != "check-failed":
        # The busy loops did not starve the bot here (CI saw it once): nothing to replay.
        pytest.skip(f"the busy loops did not make the first check fail: {first.outcome}")
    if caused != ["decision time"]:
        # A known gap, seen twice in CI beside the suite's other worker and never alone: a
        # starved bot still burning for a timed-out answer when the next request starts
        # (Yahtzee does not await late answers) spends that CPU in the next decision's
        # window, which can then pass half the limit and be judged the bot's computing.
        time_item = next((item for item in first.items if item.key == "time"), None)
        pytest.xfail(
            f"failed but not judged the machine's: {time_item.detail if time_item else first.summary}"
        )
    assert caused == ["decision time"], first  # the load did bite
    assert step.outcome == OK, step
    # Replayed once, or twice when the machine was still overloaded for the first replay
    # (the hogs are gone by then, but a CI machine may be busy on its own).
    assert step.replayed and len(step.replayed) <= 2, step.replayed
    assert set(step.replayed) == {"decision time: the grading machine was overloaded"}
    assert "the grading machine was overloaded" in step.summary


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


# ---------------------------------------------------------------------------- builds

#: A build that needs 0.6 s of CPU: well within a 2.5 s wall limit on a quiet core.
BURN_BUILD = (
    "python3 -c 'import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass'"
)


def _build_in(tmp_path: Path, command: str, wall_s: float):
    from referee.grade import build as building
    from referee.grade.detect import Detected
    from referee.seats.process import sandbox

    source = tmp_path / "submissions" / "student"
    source.mkdir(parents=True)
    (source / "main.py").write_text("print(1)\n")
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    found = Detected("manifest", ["sh", "-c", command], ["python3", "main.py"], "test")
    # rlimits first: a bot's own cgroup gets a CPU share of its own, which busy loops in
    # another cgroup cannot starve much (that is one of the sandbox's merits).
    layer = next(
        layer for layer in (sandbox.Layer.RLIMITS, sandbox.Layer.NAMESPACES) if sandbox.problem(layer) is None
    )
    limits = building.BuildLimits(wall_s=wall_s)
    return trio.run(building.build, "student", source, found, tmp_path / "bots", layer, limits)


@pytest.mark.slow
@pytest.mark.drill
def test_a_build_starved_by_busy_loops_beside_it_is_built_again_not_timed_out(tmp_path, monkeypatch):
    from referee.grade import build as building

    before = os.sched_getaffinity(0)
    hogs: list[subprocess.Popen] = []
    runs: list = []
    once = building._build_once

    async def first_run_busy(*args, **kwargs):
        step, why = await once(*args, **kwargs)
        runs.append((step.outcome, why))
        for hog in hogs:  # the load passes: the next build runs on a quiet core
            hog.kill()
        return step, why

    monkeypatch.setattr(building, "_build_once", first_run_busy)
    monkeypatch.setattr(steps, "REPLAY_PAUSE_S", 0.5)  # the rule builds share with checks
    try:
        # Six busy loops on every core (a build's cgroup, a cpuset, may move it to any),
        # each in a session of its own: the sandbox starts the build in a new session,
        # and with autogroup scheduling the CPU is shared between sessions first.
        hogs += [
            subprocess.Popen(
                [sys.executable, "-c", HOG],
                preexec_fn=lambda c=c: os.sched_setaffinity(0, {c}),
                start_new_session=True,
            )
            for c in sorted(before)
            for _ in range(6)
        ]
        step = _build_in(tmp_path, BURN_BUILD, 2.5)
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
    outcome, why = runs[0]
    assert outcome == "build-timeout" and why and "waited" in why, runs  # the load did bite, and was seen
    # Built once the load passed — or, on a machine other jobs keep busy, not graded:
    # never the student's build-timeout.
    assert step.outcome in (OK, steps.OVERLOADED), step
    assert step.replayed and "overloaded" in step.replayed[0], step
    assert "the grading machine was overloaded" in step.summary


def test_a_build_that_sleeps_past_its_limit_is_a_build_timeout(tmp_path):
    step = _build_in(tmp_path, "sleep 100", 1.0)
    assert step.outcome == "build-timeout" and not step.replayed, step
