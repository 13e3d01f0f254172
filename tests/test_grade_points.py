"""Issue 28: partial check points rank effort — every checklist item counts, and one the
check did not reach is not passed.

Five students, checked for real by the grading step (``referee check`` in a child, as
``referee grade`` runs it): a bot that never answers (it does not flush), one that hangs
at its 20th request, one that crashes every 30 requests, one that plays an illegal move
at the joker, and a clean one.  Their partial check points must come out in that order,
strictly rising.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from conftest import BOT_PYTHON

from referee.core.limits import LimitsOverride
from referee.grade import config, scheme, steps
from referee.grade.model import OK, BuildStep, StudentResult, UnpackStep

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

BOTS = Path(__file__).parent / "bots" / "check"

FIVE = {
    "never-answers": f"{BOT_PYTHON} {BOTS / 'never_flushes.py'}",
    "hangs-at-20": f"{BOT_PYTHON} {BOTS / 'effort.py'} hang 20",
    "crashes-every-30": f"{BOT_PYTHON} {BOTS / 'effort.py'} crash-every 30",
    "one-illegal-move": f"{BOT_PYTHON} {BOTS / 'joker_blind.py'}",
    "clean": f"{BOT_PYTHON} {BOTS / 'effort.py'} clean",
}


def _checked(student: str, command: str, tmp_path: Path) -> StudentResult:
    # The bot as a command (`referee check` takes one as BOT): the test bots share a module.
    step = trio.run(
        lambda: steps.check(
            student, Path(command), "yahtzee", games=4, seed=1, sandbox="none",
            limits=LimitsOverride(startup_s=2.0, decision_s=0.5), allow_root=True,
            folder=tmp_path / "students" / student, wall_s=300,
        )
    )  # fmt: skip
    return StudentResult(
        student=student,
        unpack=UnpackStep(outcome=OK, summary=""),
        build=BuildStep(outcome=OK, summary=""),
        check=step,
    )


def test_partial_check_points_rank_effort(tmp_path: Path) -> None:
    students = [_checked(name, command, tmp_path) for name, command in FIVE.items()]
    scheme.apply(
        students,
        config.PointsSection(check=10, check_partial=True),
        {"check": True, "qualify": False, "compete": False},
    )
    points = {s.student: next(p for p in s.points if p.name == "check") for s in students}
    shown = "\n".join(
        f"{s.student}: {points[s.student].points} ({points[s.student].why}) "
        + " ".join(f"{i.key}={i.status}" for i in s.check.items)
        for s in students
    )
    order = [points[name].points for name in FIVE]
    assert order == sorted(set(order)), shown  # strictly rising, in the order above
    assert all(len(s.check.items) == 8 for s in students), shown
    assert points["clean"].points == 10 and points["never-answers"].points < 2.5, shown
