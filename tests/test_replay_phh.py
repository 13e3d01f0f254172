"""PHH in (referee/replay/phh.py): hands exported by ``referee match --game holdem
--export phh=PATH`` (holdem_phh.py's writer) read back as the log's records.

The PHH source is a real match of the Python sample players (four seats, two games,
seed 11: 51 hands, heads-up ones among them, showdowns and all-ins), played once per
module by the CLI; its ``--log`` gives the originals.  Cards, actions, blinds and final
stacks must come back equal; the pots are pokerkit's (PHH cannot carry the seed's
per-round pots), so they are checked only to add up to what was won.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOT_PYTHON, ROOT

from referee.replay import sources
from referee.replay.phh import records_from_phh

PLAYERS = ROOT / "sample_players" / "holdem"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[list[dict], Path]:
    folder = tmp_path_factory.mktemp("phh")
    folder.chmod(0o755)
    log, phh = folder / "games.jsonl", folder / "games.phh"
    bots = [
        f"{BOT_PYTHON} {PLAYERS / 'random_player.py'} 1",
        f"{BOT_PYTHON} {PLAYERS / 'hand_strength.py'}",
        f"{BOT_PYTHON} {PLAYERS / 'always_call.py'}",
        f"{BOT_PYTHON} {PLAYERS / 'random_player.py'} 2",
    ]
    args = ["match", "--game", "holdem", *bots, "--games", "2", "--seed", "11", "--quiet"]
    args += ["--log", str(log), "--export", f"phh={phh}"]
    subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return records, phh


@pytest.mark.slow
def test_round_trip_gives_the_logged_hands(exported) -> None:
    records, phh = exported
    back = records_from_phh([phh])
    assert len(back) == len(records) == 2  # one record per game: the hand numbers restart
    for original, read in zip(records, back, strict=True):
        assert read["seats"] == original["seats"]
        assert read["scores"] == original["scores"] and read["ranks"] == original["ranks"]
        hands, read_hands = original["summary"]["hands"], read["summary"]["hands"]
        assert len(read_hands) == len(hands)
        for hand, got in zip(hands, read_hands, strict=True):
            for key in (
                "hand",
                "dealer",
                "sb",
                "bb",
                "sb_seat",
                "bb_seat",
                "order",
                "stacks",
                "hole",
                "board",
                "actions",
                "won",
                "end_stacks",
            ):
                assert got[key] == hand[key], (hand["hand"], key)
            assert [s[:2] for s in got["shown"]] == [s[:2] for s in hand["shown"]]
            assert sum(amount for amount, _ in got["pots"]) == sum(got["won"]) == sum(hand["won"])
    heads_up = [h for r in back for h in r["summary"]["hands"] if len(h["order"]) == 2]
    assert heads_up, "the match should reach heads-up hands (the blinds PHH lists reversed)"


@pytest.mark.slow
def test_replay_source_takes_a_phh_file_or_folder(exported, tmp_path) -> None:
    _, phh = exported
    source = sources.load(phh)
    assert source.game == "holdem" and len(source.records) == 2
    (tmp_path / "a.phh").write_text(phh.read_text())
    assert sources.log_files(tmp_path) == [tmp_path / "a.phh"]
    assert sources.load(tmp_path).game == "holdem"
    with pytest.raises(sources.ReplayError, match="not yahtzee"):
        sources.load(phh, game="yahtzee")
    (tmp_path / "a.phh").write_text("variant = [\n")
    with pytest.raises(sources.ReplayError, match="not a PHH file"):
        sources.load(tmp_path / "a.phh")


def test_unknown_cards_antes_and_names_without_seats(tmp_path) -> None:
    """A PHH hand as the public datasets have them: others' cards unknown, antes, no
    ``seats``: players become seats in the order p1..pN, scores are chip changes."""
    (tmp_path / "hand.phh").write_text(
        "variant = 'NT'\nantes = [5, 5, 5]\nblinds_or_straddles = [10, 20, 0]\nmin_bet = 20\n"
        "starting_stacks = [1000, 1000, 1000]\nplayers = ['Ann', 'Bo', 'Cy']\n"
        "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 AcKs', 'p3 cbr 60', 'p1 f', 'p2 cc',"
        " 'd db Jc3d5c', 'p2 cc', 'p3 cbr 80', 'p2 cc', 'd db 4h', 'p2 cc', 'p3 cc', 'd db Qs',"
        " 'p2 cc', 'p3 cc', 'p2 sm 8d9d', 'p3 sm AcKs']\n"
    )
    (record,) = records_from_phh([tmp_path / "hand.phh"])
    assert record["seats"] == ["Ann", "Bo", "Cy"]
    hand = record["summary"]["hands"][0]
    assert hand["actions"] == "0a5,1a5,2a5,0s10,1b20,2r60,0f0,1c40/1k0,2r80,1c80/1k0,2k0/1k0,2k0"
    assert hand["hole"] == ["????", "8D9D", "ACKS"] and hand["board"] == "JC3D5C4HQS"
    assert hand["dealer"] == 2 and (hand["sb_seat"], hand["bb_seat"]) == (0, 1)
    assert record["scores"] == [-15, -145, 160] and record["ranks"] == [2, 3, 1]
    assert hand["won"] == [0, 0, 305] and hand["end_stacks"] == [985, 855, 1160]
    seat, hole, five, _ = hand["shown"][1]
    assert (seat, hole) == (2, "ACKS") and sorted(five[i : i + 2] for i in range(0, 10, 2)) == sorted(
        ["AC", "KS", "QS", "JC", "5C"]
    )
