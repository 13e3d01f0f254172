"""A match's games into a tournament's results store (:mod:`referee.tournament.store`).

The sink collects the games of one match and commits them in batches: every
:data:`BATCH_GAMES` games, or as soon as a game ends :data:`BATCH_SECONDS` after the
last commit, whichever comes first.  ``close`` commits what is left in the same
transaction as the match's end (:meth:`~referee.tournament.store.Store.finish_match`),
so a match is never seen done with games missing.

Why batches.  Each game its own transaction costs ~40 µs of commit (WAL, ``synchronous
= NORMAL``; 0.3–1.6 ms with FULL's ``fsync``), while a dice-poker deal takes ~75 µs to
play between two C bots: committing per game would halve a tournament of millions of
deals.  In batches the store's cost falls to what the rows themselves cost: 5.1 µs per
game with 100 per commit, 4.5 µs with 250, 4.3 µs with 1000 (encoding ~0.9 µs, SQLite's
insert ~3.8 µs; measured on this project's 2-core VM, best of 3).  Beyond ~250 little
is saved while a commit's pause grows (~1 ms for 250 games), so :data:`BATCH_GAMES` =
250.  :data:`BATCH_SECONDS` = 2 bounds the batch of a slow match instead: a Yahtzee
match of long games still commits every 2 s, for the live standings.

The per-game path: :meth:`StoreSink.game` between commits is a list append and a clock
read, 0.20 µs per call; with its commits, 4.9 µs per game on average.  An in-process
dice-poker match (two trivial bots, 20,000 deals, no I/O at all) took 23 µs per deal
without the store, 30 µs with it (and 88 µs committing every game).  In a tournament
the commits are the parent's work, not the match's: the store has one writer
(:mod:`referee.tournament.store`), and matches in worker processes send their records
to it.

What a crash costs: the batch not yet committed — at most :data:`BATCH_GAMES` games or
:data:`BATCH_SECONDS` of one match.  A match cut short is replayed from its start on
resume when its bots are started per match (``Store.discard_unfinished``); with bots
that live for the whole tournament the resume goes on after its committed games
(``held``; :mod:`referee.tournament.resume`).  Either way committed batches are whole.

A match that does not complete (interrupted, or a bot that cannot start) is not
finished by the sink: its games are committed and it stays ``running`` — unfinished —
for the runner to replay it, or to accept the stopped record as final with
``Store.finish_match`` (:attr:`StoreSink.final` holds it).  A write that fails in
``game`` raises (the match cannot be recorded, so it stops); one that fails in
``close`` is kept in :attr:`StoreSink.error`, as the summary sink does, so the other
sinks are still closed.
"""

from __future__ import annotations

import sqlite3
import time

from referee.core.records import GameRecord, MatchRecord
from referee.match.spec import MatchSpec
from referee.sinks._abc import MatchInfo, Sink, Standing
from referee.tournament.store import Store, StoreError

#: Games per commit (module docstring: the measurements behind it).
BATCH_GAMES = 250
#: Seconds after which the next game's end commits the batch, however small.
BATCH_SECONDS = 2.0


class StoreSink(Sink):
    """Writes one match's games to ``store`` under ``key``, in batches.

    ``open`` marks the match running (:meth:`Store.start_match` with ``spec``); ``game``
    appends to the batch and commits it when it is full or old; ``close`` commits the
    rest with the final record when the match completed, and only the rest otherwise.
    """

    def __init__(
        self,
        store: Store,
        key: str,
        spec: MatchSpec,
        *,
        batch_games: int = BATCH_GAMES,
        batch_seconds: float = BATCH_SECONDS,
        held: int = 0,
    ) -> None:
        if batch_games < 1:
            raise ValueError("batch_games must be at least 1")
        self.store = store
        self.key = key
        self.spec = spec
        self.batch_games = batch_games
        self.batch_seconds = batch_seconds
        #: Games the store already holds of this match: a resume goes on after them.
        self.held = held
        self._batch: list[GameRecord] = []
        self._deadline = time.monotonic() + batch_seconds
        #: Games committed so far.
        self.committed = 0
        #: The final record ``close`` received.
        self.final: MatchRecord | None = None
        #: Why ``close`` could not write, if it could not (one line).
        self.error: str | None = None

    def open(self, info: MatchInfo) -> None:
        self.store.start_match(self.key, self.spec, held=self.held)
        self._deadline = time.monotonic() + self.batch_seconds

    def game(self, record: GameRecord, standing: Standing) -> None:
        batch = self._batch
        batch.append(record)
        if len(batch) >= self.batch_games or time.monotonic() >= self._deadline:
            self.flush()

    def flush(self) -> None:
        """Commit the batch now (one transaction).  On failure the batch is kept."""
        if self._batch:
            self.store.add_games(self.key, self._batch)
            self.committed += len(self._batch)
            self._batch = []
        self._deadline = time.monotonic() + self.batch_seconds

    def close(self, record: MatchRecord) -> None:
        self.final = record
        try:
            if record.completed:
                self.store.finish_match(self.key, record, self._batch)
            else:
                self.store.add_games(self.key, self._batch)
            self.committed += len(self._batch)
            self._batch = []
        except (StoreError, sqlite3.Error) as exc:
            self.error = f"could not store match {self.key}: {exc}"
