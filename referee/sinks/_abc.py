"""The sink interface: where a match's records go.

A match hands what it produces to a list of sinks and writes nothing itself::

    sink.open(info)                 # before the first game: files are opened here
    sink.game(record, standing)     # each finished game, in order
    sink.forfeit(bot, forfeit)      # each penalised decision, as it happens
    sink.notice(line)               # things a user should hear of at once
    sink.close(record)              # once, at the end, whatever ended the match

The JSON-lines game log, the ``--json`` summary, game exports (PHH), the progress
display and an in-memory collector are sinks (this package); a results store is the
next one.  A sink depends only on the records (:mod:`referee.core.records`), never on
the match.  Building a game's transcript and summary costs time on the per-game path,
so the match builds them only when some sink says it wants them.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from referee.core.records import GameRecord, MatchRecord
from referee.core.verdict import Forfeit

#: The match's figures so far, on demand (a sink that checkpoints calls it).
Standing = Callable[[], MatchRecord]


class MatchInfo(msgspec.Struct, frozen=True):
    """What a sink is told before the first game."""

    game: str
    seed: int
    games: int
    bots: list[str]
    duplicate: bool = False


class Sink:
    """Receives a match's records; every method is optional (the defaults do nothing).

    Methods are called from the match's trio task and must not block for long: a sink
    that writes a file writes a line and flushes, no more.
    """

    #: Whether it reads ``GameRecord.transcript`` (every line of every game).
    wants_transcript: bool = False
    #: Whether it reads ``GameRecord.summary`` (the game's own facts, e.g. cards dealt).
    wants_summary: bool = False

    def open(self, info: MatchInfo) -> None:
        """Before the first game."""

    def game(self, record: GameRecord, standing: Standing) -> None:
        """A finished game."""

    def forfeit(self, bot: str, forfeit: Forfeit) -> None:
        """A penalised decision of ``bot``, as it happens."""

    def notice(self, line: str) -> None:
        """A line the user should see at once (a bot given up on)."""

    def close(self, record: MatchRecord) -> None:
        """The match is over (finished, stopped, or not playable): its final record."""
