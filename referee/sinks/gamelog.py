"""``--log``: one JSON line per game, a :class:`~referee.core.records.GameRecord` with
its transcript and its game's name — enough to replay every game against its rules.

Flushed after every game, so a crash, Ctrl-C or ``kill -9`` keeps every finished game.
The same match spec with deterministic bots writes the same file, byte for byte: a
record holds no clock or process figure.
"""

from __future__ import annotations

from typing import BinaryIO

import msgspec

from referee.core.records import GameRecord, MatchRecord
from referee.sinks._abc import MatchInfo, Sink, Standing


class GameLog(Sink):
    wants_transcript = True
    wants_summary = True

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: BinaryIO | None = None
        self._encode = msgspec.json.Encoder().encode
        self._game = ""

    def open(self, info: MatchInfo) -> None:
        self._game = info.game
        self._file = open(self.path, "wb")  # noqa: SIM115 -- held for the whole match

    def game(self, record: GameRecord, standing: Standing) -> None:
        assert self._file is not None, "GameLog.game before open"
        # Every line names its game: a log read alone says what it is a log of.
        named = msgspec.structs.replace(record, game_name=self._game)
        self._file.write(self._encode(named) + b"\n")
        self._file.flush()

    def close(self, record: MatchRecord) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_log(path: str) -> list[GameRecord]:
    """The games of a ``--log`` file, typed (a line that does not decode raises)."""
    decoder = msgspec.json.Decoder(GameRecord)
    with open(path, "rb") as fh:
        return [decoder.decode(line) for line in fh if line.strip()]
