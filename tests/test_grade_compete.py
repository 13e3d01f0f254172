"""Step 5 of `referee grade`, its pure parts: the tournament file it writes, how students
are found in the tournament's results, and the games each student gets to watch.

Issue 13: "Compete: the configured referee tournament format over the qualified bots,
with the store and resume of the tournament issue"; feedback with "links to replays of
their losses and forfeits"; other students' ids stay off a student's page.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from referee.grade import compete, config, scheme
from referee.grade.compete import Competition, Entrant
from referee.grade.model import OK, BuildStep, CheckStep, CompeteStep, QualifyStep, StudentResult, UnpackStep


def test_the_tournament_file_names_each_bots_hash_so_a_rebuilt_bot_voids_the_store() -> None:
    cfg = config.parse({"limits": {"cpu_s": float("inf"), "decision_s": 0.5}, "compete": {"games": 7}})
    a = [Entrant("alice", "/o/bots/alice", bot_hash="aaa"), Entrant(None, "python3 /s/greedy.py")]
    b = [Entrant("alice", "/o/bots/alice", bot_hash="bbb"), Entrant(None, "python3 /s/greedy.py")]
    first = compete.tournament_toml(cfg, "yahtzee", a, 5, "namespaces", False)
    assert first != compete.tournament_toml(cfg, "yahtzee", b, 5, "namespaces", False)
    parsed = tomllib.loads(first)
    assert parsed["bots"] == ["/o/bots/alice", "python3 /s/greedy.py"]
    assert parsed["games"] == 7 and parsed["game_logs"] is True
    assert parsed["limits"] == {"decision_s": 0.5, "cpu_s": float("inf")}


def test_a_gauntlets_candidate_is_added_by_path_not_listed_among_the_bots() -> None:
    cfg = config.parse({"compete": {"format": "gauntlet"}})
    entrants = [Entrant("a b", "/o/bots/a b"), Entrant(None, "/s/house")]
    parsed = tomllib.loads(
        compete.tournament_toml(cfg, "yahtzee", entrants, 1, "auto", False, ["/o/bots/a b"])
    )
    assert parsed["bots"] == ["/s/house"] and parsed["candidates"] == ["/o/bots/a b"]


def test_students_are_found_by_their_folder_whatever_the_tournament_named_them(tmp_path: Path) -> None:
    # "a b" and "a_b" both become a_b in a tournament, which renames them apart.
    one, two = tmp_path / "a b", tmp_path / "a_b"
    one.mkdir()
    two.mkdir()
    entrants = [Entrant("a b", str(one)), Entrant("a_b", str(two)), Entrant(None, "python3 h.py")]
    competition = Competition(homes={"a_b-1": str(one), "a_b-2": str(two), "h": "/s"})
    assert compete._names(competition, entrants) == {"a_b-1": "a b", "a_b-2": "a_b", "h": None}
    assert [e.name for e in entrants[:2]] == ["a_b-1", "a_b-2"]


def _game(seats: list[str], ranks: list[int], forfeits: list[dict] | None = None) -> str:
    return json.dumps({"seats": seats, "ranks": ranks, "forfeits": forfeits or [], "transcript": []})


def test_the_games_kept_for_a_student_are_their_losses_and_forfeits_with_other_students_unnamed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "m.jsonl"
    log.write_text(
        "\n".join(
            [
                _game(["me", "bob"], [1, 2]),  # won: not kept
                _game(["bob", "me"], [1, 2]),  # lost
                _game(["me", "bob"], [1, 1]),  # drawn: not kept
                _game(["me", "house"], [1, 2], [{"player": "me", "verdict": "timeout"}]),  # forfeited
                "not json",
            ]
        )
        + "\n"
    )
    dest = tmp_path / "student" / "replays" / "m.jsonl"
    assert compete._keep_replays(log, "me", {"me", "house"}, dest) == 2
    kept = [json.loads(line) for line in dest.read_text().splitlines()]
    assert [g["seats"] for g in kept] == [["another student", "me"], ["me", "house"]]
    assert "bob" not in dest.read_text()


def test_the_one_bot_that_qualified_gets_the_whole_competition() -> None:
    s = StudentResult(student="solo")
    s.unpack = UnpackStep(outcome=OK, summary="")
    s.build = BuildStep(outcome=OK, summary="")
    s.check = CheckStep(outcome=OK, summary="")
    s.qualify = QualifyStep(outcome=OK, summary="")
    s.compete = CompeteStep(outcome=OK, summary="the only bot that qualified", rank=1)
    enabled = {"check": True, "qualify": True, "compete": True}
    for by in ("rank", "rating", "score-rate"):
        scheme.apply([s], config.PointsSection(compete_by=by), enabled)
        assert s.total == s.max_total == 100, by


@pytest.mark.slow
async def test_a_child_commands_exit_status_survives_the_builds_sweep_of_zombies(tmp_path: Path) -> None:
    """Grading is a child subreaper while it builds, and a build's sweep reaps zombie
    children it does not know (sandbox.reap_orphans).  A check running beside a build
    once lost its exit status that way (read as 0: a failed check graded "ok")."""
    import sys

    import trio

    from referee.grade.steps import run_child
    from referee.seats.process import sandbox

    async def sweep(done: trio.Event) -> None:
        while not done.is_set():
            sandbox.reap_orphans()
            await trio.sleep(0.001)

    done = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sweep, done)
        code, _ = await run_child(
            [sys.executable, "-c", "import time; time.sleep(0.3); raise SystemExit(3)"], 30, tmp_path / "log"
        )
        done.set()
    assert code == 3
