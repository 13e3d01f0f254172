"""The ladder's ratings, from every stored match, refreshed as games arrive.

The fits are the tournament's (:func:`referee.tournament.ratings.rate`): Bradley–Terry for
two seats, Plackett–Luce for more, the chip model for games ranked by score, each with a
percentile-bootstrap 95 % interval and a rank range.  Every bot that played counts —
replaced versions too, so that what they met stays evidence — and the leaderboard shows
the active ones.  A fit runs in a thread with its own connection; its result replaces
the ``ratings`` table in one transaction.  The leaderboard only reads that table.
"""

from __future__ import annotations

import sqlite3

import trio

from referee.arena.context import Arena
from referee.arena.store import DB
from referee.games.base import Standing
from referee.tournament.ratings import Played, Ratings, rate, read_played


class Rater:
    """Keeps each done match's evidence once read, by its attempt: a match the TA reran
    is read again (:func:`~referee.tournament.ratings.read_played`'s cache).  Every done
    match holds its evidence (:func:`referee.arena.ladder.play` fails one without)."""

    def __init__(self) -> None:
        self._played: dict[int, tuple[int, Played]] = {}
        #: The done matches, (id, attempt), the last fit counted (None before one).
        self._fitted: list[tuple[int, int]] | None = None

    def _connect(self, arena: Arena) -> sqlite3.Connection:
        return sqlite3.connect(arena.folder / DB, timeout=30.0)

    @staticmethod
    def _done(conn: sqlite3.Connection) -> list[tuple[int, int]]:
        return conn.execute("SELECT id, attempts FROM matches WHERE state = 'done' ORDER BY id").fetchall()

    def stale(self, arena: Arena) -> bool:
        """Whether the done matches differ from those of the last fit: one stored since,
        or one the TA reran."""
        conn = self._connect(arena)
        try:
            return self._done(conn) != self._fitted
        finally:
            conn.close()

    def fit(self, arena: Arena) -> Ratings | None:
        conn = self._connect(arena)
        try:
            done = self._done(conn)
            played = read_played(conn, done, self._played)
        finally:
            conn.close()
        bots = sorted({name for p in played for name in p.lineup}, key=lambda n: int(n[1:]))
        by_score = arena.game_cls.standing is Standing.SCORE
        ratings = rate(bots, played, arena.seed, by_score=by_score, replicates=arena.config.ladder.replicates)
        self._fitted = done
        return ratings


def store_ratings(arena: Arena, ratings: Ratings | None) -> None:
    with arena.store.tx() as conn:
        conn.execute("DELETE FROM ratings")
        if ratings is not None:
            conn.executemany(
                "INSERT INTO ratings (bot_id, rating, low, high, rank_low, rank_high) VALUES (?, ?, ?, ?, ?, ?)",
                [(int(b.bot[1:]), b.rating, b.low, b.high, b.rank_low, b.rank_high) for b in ratings.bots],
            )
            arena.store.set_meta(conn, "ratings_method", f"{ratings.method} ({ratings.scale})")


async def run(arena: Arena) -> None:
    """Refit whenever the done matches changed since the last fit (the store says: no
    count kept beside it), looking every ``refresh_s``."""
    rater = Rater()
    while True:
        try:
            if await trio.to_thread.run_sync(rater.stale, arena, abandon_on_cancel=True):
                ratings = await trio.to_thread.run_sync(rater.fit, arena, abandon_on_cancel=True)
                store_ratings(arena, ratings)
                arena.wake_ladder()
        except Exception as exc:  # a fit that fails must not stop the ladder: said, retried
            print(f"arena: the ratings could not be refitted: {exc}", flush=True)
        await trio.sleep(arena.config.ladder.refresh_s)
