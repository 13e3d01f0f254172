"""Keeping a match's game records in memory: for an executor that sends them back with
the match record (a process pool, a cluster worker), and for tests."""

from __future__ import annotations

from referee.core.records import GameRecord, MatchRecord
from referee.core.verdict import Forfeit
from referee.sinks._abc import Sink, Standing


class Collector(Sink):
    """Every game record, every forfeit and notice, and the final record."""

    def __init__(self, *, transcripts: bool = False, summaries: bool = False) -> None:
        self.games: list[GameRecord] = []
        self.forfeits: list[tuple[str, Forfeit]] = []
        self.notices: list[str] = []
        self.final: MatchRecord | None = None
        self.wants_transcript = transcripts
        self.wants_summary = summaries

    def game(self, record: GameRecord, standing: Standing) -> None:
        self.games.append(record)

    def forfeit(self, bot: str, forfeit: Forfeit) -> None:
        self.forfeits.append((bot, forfeit))

    def notice(self, line: str) -> None:
        self.notices.append(line)

    def close(self, record: MatchRecord) -> None:
        self.final = record
