"""What a resume keeps, what it plays again, and how long the rest should take.

A tournament stopped (Ctrl-C, SIGTERM, ``kill -9``, a crash) is finished by
``referee tournament --resume DIR``.  What the store holds is kept, with one exception
per kind of bot:

* **bots started for each match** (Yahtzee, hold'em…): the matches done are kept; a
  match that was cut short is played again from its start (its games discarded): its
  bots, started afresh, would otherwise play its second half without what they learned
  in the first.
* **bots that live for the whole tournament** (dice poker, Liar's Dice): *every stored
  game is kept*, also those of matches cut short, and each such match goes on at its
  first game not stored.  The bots are started afresh — what they remembered (an
  opponent model, statistics of earlier deals) is gone — and each bot that had played
  gets a ``restart`` event saying at which deal it started again; the standings count
  it among its restarts.  ``--replay-all`` plays the whole tournament again from its
  first deal instead (the old, exact behaviour: with deterministic bots, the standings
  of an uninterrupted run, at the cost of every deal played before).

A ``kill -9`` loses at most what was not yet committed: the last batch of each match
being played (250 games or 2 s, :mod:`.sink`).

Each run records its pace (games per second, a ``pace`` event) when it ends or is
stopped; the next resume estimates the time left from it.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import time

from referee.games import Game, Lifetime
from referee.tournament.plan import Plan
from referee.tournament.store import Store


def _count(n: int, what: str) -> str:
    plural = "es" if what.endswith("ch") else "s"
    return f"{n:,} {what}{plural * (n != 1)}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def keeps_unfinished(game: type[Game], replay_all: bool) -> bool:
    """Whether a resume keeps the games of matches cut short (module docstring)."""
    return game.lifetime is Lifetime.TOURNAMENT and not replay_all


def prepare(store: Store, plan: Plan, game: type[Game], *, replay_all: bool, finished: bool) -> str:
    """Make the store ready for the resume (discarding what is to be played again) and
    return the line that tells the user what is kept, what is replayed, and the time
    the rest should take at the last run's pace."""
    total = store.registered_games()
    stored = store.game_count()
    if finished:
        return "the tournament is already complete: its standings are written again"
    if game.lifetime is Lifetime.TOURNAMENT and replay_all:
        store.discard_all()
        head = f"--replay-all: the {_count(stored, 'stored game')} are discarded; every deal is played again"
        kept = 0
    elif keeps_unfinished(game, replay_all):
        kept = stored
        cut = store.unfinished_games()
        head = f"keeping all {_count(stored, 'stored game')}"
        if cut:
            goes = "goes on at its" if len(cut) == 1 else "go on at their"
            head += (
                f"; {_cut_short(len(cut))} {goes} first deal not stored, the bots started afresh without "
                "their memory (--replay-all plays everything again)"
            )
    else:
        cut = store.unfinished_games()
        lost = sum(cut.values())
        store.discard_unfinished()
        kept = stored - lost
        head = f"keeping the {_count(kept, 'game')} of the matches done"
        if cut:
            again = (
                "is played again from its start" if len(cut) == 1 else "are played again from their starts"
            )
            head += f"; {_cut_short(len(cut))} ({_count(lost, 'game')}) {again}"
    return head + _estimate(store, max(0, total - kept))


def _cut_short(n: int) -> str:
    """ "1 match cut short", "2 matches cut short"…"""
    return f"{_count(n, 'match')} cut short"


def _estimate(store: Store, left: int) -> str:
    if left <= 0:
        return ""
    pace = last_pace(store)
    if pace is None:
        return f"; {_count(left, 'game')} to play"
    return f"; {_count(left, 'game')} to play, about {_duration(left / pace)} at the last run's pace"


def last_pace(store: Store) -> float | None:
    """Games per second of the last run: as it recorded it when it ended, or — killed
    before it could (``kill -9``) — its games since its ``run`` event over the time to
    the store's last write."""
    for at, kind, _bot, _key, detail in reversed(store.events()):
        if kind == "pace":
            with contextlib.suppress(ValueError, IndexError):
                return float(detail.split()[0]) or None
            return None
        if kind == "run":
            try:
                at_start = int(detail.split()[0])
                began = datetime.datetime.fromisoformat(at).timestamp()
                last = max(os.stat(p).st_mtime for p in _store_files(store) if os.path.exists(p))
            except (ValueError, IndexError, OSError):
                return None
            played, took = store.game_count() - at_start, last - began
            return played / took if played > 0 and took > 1 else None
    return None


def _store_files(store: Store) -> list[str]:
    return [str(store.path), f"{store.path}-wal"]


class Pace:
    """This run's games and time, for the ``pace`` event and the interrupt message."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.started = time.monotonic()
        self.games_at_start = store.game_count()
        store.add_event("run", f"{self.games_at_start} games stored when this run started")

    def record(self) -> float | None:
        """Store this run's pace (games per second) as a ``pace`` event; returns it."""
        played = self.store.game_count() - self.games_at_start
        elapsed = time.monotonic() - self.started
        if played <= 0 or elapsed <= 0:
            return None
        pace = played / elapsed
        self.store.add_event("pace", f"{pace:.3f} games/s ({played} games in {elapsed:.1f} s)")
        return pace

    def stopped_line(self, game: type[Game], pace: float | None) -> str:
        """What a stop keeps and what a resume will play again (module docstring)."""
        stored = self.store.game_count()
        total = self.store.registered_games()
        if game.lifetime is Lifetime.TOURNAMENT:
            line = (
                f"{_count(stored, 'game')} stored, all kept by --resume (the bots restart without their "
                "memory; --resume --replay-all plays everything again)"
            )
            left = total - stored
        else:
            cut = self.store.unfinished_games()
            lost = sum(cut.values())
            line = f"{_count(stored - lost, 'game')} of done matches kept"
            if cut:
                line += f"; {_count(lost, 'game')} of {_count(len(cut), 'match')} cut short are played again"
            left = total - stored + lost
        if pace and left > 0:
            line += f"; about {_duration(left / pace)} left at this run's pace"
        return line
