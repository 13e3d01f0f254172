"""``--export FORMAT=PATH``: every game in another format a game offers (``Game.exports``,
e.g. Hold'em's PHH hand histories), appended to one file and flushed per game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from referee.core.records import GameRecord, MatchRecord
from referee.sinks._abc import MatchInfo, Sink, Standing

#: Turns one game (its ``summary`` and the seat names) into text for the file.
Writer = Callable[[dict[str, Any], list[str]], str]


class ExportFile(Sink):
    wants_summary = True

    def __init__(self, path: str, make_writer: Callable[[], Writer]) -> None:
        self.path = path
        self._make_writer = make_writer
        self._write: Writer | None = None
        self._file: TextIO | None = None

    def open(self, info: MatchInfo) -> None:
        self._write = self._make_writer()  # one per match: a writer may number its games
        self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 -- held for the match

    def game(self, record: GameRecord, standing: Standing) -> None:
        assert self._file is not None and self._write is not None, "ExportFile.game before open"
        self._file.write(self._write(record.summary, record.seats))
        self._file.flush()

    def close(self, record: MatchRecord) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
