"""A game is its module (issue 26, item 5): what the rest of the referee needs of a game
— grading's random player, the replay's way to tell a log's game, a board for a person,
the sample players' folder — is read off the game class or found by the game's name,
never from a list elsewhere; and every ``--log`` line names its game."""

from __future__ import annotations

import json
import random
import shlex

import msgspec
import pytest

from referee import games
from referee.core.records import GameRecord, MatchRecord
from referee.games.base import SAMPLE_PLAYERS
from referee.games.random_play import RandomPlayer, play_out
from referee.grade.config import bot_command
from referee.replay.sources import infer_game
from referee.seats.boards import _BOARDS, RawBoard, board_for
from referee.sinks._abc import MatchInfo
from referee.sinks.gamelog import GameLog, read_log

GAMES = list(games.available())


def _summary(name: str) -> dict:
    game = games.get(name)()
    state = game.new_state(game.seats.default, random.Random(1))
    play_out(state, RandomPlayer(1))
    return state.summary()


@pytest.mark.parametrize("name", GAMES)
def test_the_game_names_its_sample_players(name):
    cls = games.get(name)
    for player in (cls.random_player, cls.check_opponent):
        assert player is not None, f"{name}: every shipped game names its random and reference players"
        assert (SAMPLE_PLAYERS / shlex.split(player)[0]).is_file(), player
    # Grading's ``random`` is the game's own random player.
    assert bot_command("random", name, SAMPLE_PLAYERS).endswith(cls.random_player)


@pytest.mark.parametrize("name", GAMES)
def test_the_summary_key_is_the_games_own(name):
    key = games.get(name).summary_key
    if key is None:
        pytest.skip(f"{name} has no summary key (a log of it that does not name it needs --game)")
    assert key in _summary(name)
    others = [other for other in GAMES if other != name and key in _summary(other)]
    assert not others, f"{name}'s summary_key {key!r} is in {others}'s summaries too"
    # A record that does not name its game (a log from before) is told by the key.
    assert infer_game([{"seats": ["a", "b"], "summary": _summary(name)}]) == name


def test_a_record_naming_its_game_is_taken_at_its_word():
    assert infer_game([{"seats": ["a", "b"], "game_name": "liars-dice", "summary": {"b": 1}}]) == "liars-dice"
    assert infer_game([{"seats": ["a", "b"], "summary": {}}]) is None


def test_every_log_line_names_its_game(tmp_path):
    path = tmp_path / "games.jsonl"
    log = GameLog(str(path))
    log.open(MatchInfo("dice-poker", 1, 2, ["a", "b"]))
    record = GameRecord(0, 0, 0, 7, ["a", "b"], [1.0, -1.0], [1, 2])
    log.game(record, lambda: None)
    log.game(msgspec.structs.replace(record, game=1), lambda: None)
    log.close(MatchRecord("dice-poker", 1, 2, 2, True, "x", "none", []))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["game_name"] for line in lines] == ["dice-poker", "dice-poker"]
    assert [r.game_name for r in read_log(str(path))] == ["dice-poker", "dice-poker"]
    assert record.game_name == ""  # the record the match holds is not changed


def test_boards_are_found_by_the_games_name():
    """A board is optional: one that names its game is found, no list to add it to."""
    assert set(_BOARDS) <= set(GAMES), "a board names no game"
    assert set(_BOARDS) >= {"yahtzee", "dice-poker", "bidding-wars", "liars-dice", "holdem"}
    for name in GAMES:
        board = board_for(name)
        assert board.game == name if name in _BOARDS else isinstance(board, RawBoard)


def test_a_game_without_a_board_is_shown_raw():
    assert isinstance(board_for("no-such-game"), RawBoard)
