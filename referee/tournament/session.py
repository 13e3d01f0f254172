"""Playing a round of matches whose bots live for the whole tournament.

A *session* plays rounds of matches whose seats come from a
:class:`~referee.tournament.pool.BotPool` (:meth:`Session.play_round`).  A match is cut into *slices*: the whole
match, or — for a schedule interleaved as dice poker's seed plays it, "in each round,
each pair of AIs will play one deal" — ``slice`` games at a time.  Slices are taken in
this order: every match's first slice in the round's order, then every unfinished
match's second slice, and so on.

**Who plays when.**  A slice may start when fewer than ``slots`` slices are running and
none of its bots has an earlier slice still to play or playing (each bot takes its
slices in schedule order, one at a time).  So every bot meets its opponents in the same
order whatever ``slots`` is — with deterministic bots the results do not depend on the
concurrency — and a bot is never in two matches at once.  With one slot no task is
started per slice: the slices are played one after another in the session's own task,
which costs a dice-poker deal nothing beyond the deal.

A match's sinks are opened at its first slice and closed, with its final record, after
its last; its seats are borrowed from the pool at its first slice and made current
again (:meth:`~referee.tournament.pool.BorrowedSeat.activate`) before each later one.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import trio

from referee.match import Match
from referee.tournament.pool import BorrowedSeat


@dataclass(eq=False)
class Scheduled:
    """One match of a round and where it is.  A slice of it is the match itself,
    yielded once per slice (:meth:`Session._slices`)."""

    key: str
    match: Match
    #: Games per slice; ``None``: the whole match at once.
    slice: int | None
    bots: frozenset[str]
    started: bool = False
    done: bool = False

    @property
    def slices(self) -> int:
        return 1 if self.slice is None else math.ceil(self.match.games_requested / max(1, self.slice))

    @property
    def remaining(self) -> int:
        """Slices left to play (a match resumed after every game still takes one, to close)."""
        left = self.match.games_requested - self.match.games_played
        if self.slice is None:
            return 1
        return max(1, math.ceil(left / max(1, self.slice))) if self.match.games_played else self.slices

    @property
    def first(self) -> int:
        """The slice it starts at: 0, or after the games a resumed match holds
        (``Match.resume_after``), so its remaining slices keep their place in the order."""
        if self.slice is None:
            return 0
        return self.match.games_played // max(1, self.slice)


#: How many slices the conductor looks ahead for one it may start.
LOOKAHEAD = 64


class Session:
    """Plays rounds of matches with tournament-long bots (module docstring): their
    seats come from the pool through each match's seat factory, their tasks run in
    ``nursery`` (the pool's).

    ``closed(key, match, error)`` is called when a match ends, after its sinks are
    closed (``match.result()`` is final); ``error`` says why it could not be played or
    completed — ``None`` when it completed, or was stopped because the session was.
    """

    def __init__(
        self,
        nursery: trio.Nursery,
        *,
        slots: int,
        closed: Callable[[str, Match, str | None], None],
    ) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.nursery = nursery
        self.slots = slots
        self._closed = closed

    async def play_round(self, matches: Sequence[tuple[str, Match, int | None]]) -> None:
        """Play every match of the round to its end (or until cancelled: then the matches
        in progress are stopped, their bots given back, their sinks closed)."""
        entries = [
            Scheduled(key, match, slice_, frozenset(p.name for p in match.players))
            for key, match, slice_ in matches
        ]
        try:
            if self.slots == 1:
                for entry in self._slices(entries):
                    await self._play_slice(entry)
            else:
                await self._conduct(self._slices(entries))
        finally:
            with trio.CancelScope(shield=True):
                for entry in entries:
                    if entry.started and not entry.done:
                        await self._end(entry, None, stopped=True)

    # ------------------------------------------------------------------ order

    @staticmethod
    def _slices(entries: list[Scheduled]) -> Iterator[Scheduled]:
        """The round's slices in schedule order (module docstring): each match once per
        slice it has left."""
        ends = {id(e): e.first + e.remaining for e in entries}
        start = min((e.first for e in entries), default=0)
        for turn in range(start, max(ends.values(), default=0)):
            for entry in entries:
                if entry.first <= turn < ends[id(entry)]:
                    yield entry

    async def _conduct(self, slices: Iterator[Scheduled]) -> None:
        """Several slices at once: start each as soon as its bots are free and every
        earlier slice of theirs has been started (module docstring)."""
        pending: deque[Scheduled] = deque()
        busy: set[str] = set()
        running = 0
        finished_send, finished_receive = trio.open_memory_channel[Scheduled](math.inf)
        exhausted = False

        async def run(entry: Scheduled) -> None:
            try:
                await self._play_slice(entry)
            finally:
                finished_send.send_nowait(entry)

        async with trio.open_nursery() as nursery:
            while True:
                while not exhausted and len(pending) < LOOKAHEAD:
                    entry = next(slices, None)
                    if entry is None:
                        exhausted = True
                    else:
                        pending.append(entry)
                blocked: set[str] = set()
                for entry in list(pending):
                    if running >= self.slots:
                        break
                    if entry.bots & busy or entry.bots & blocked:
                        blocked |= entry.bots
                        continue
                    pending.remove(entry)
                    busy |= entry.bots
                    running += 1
                    nursery.start_soon(run, entry)
                if running == 0 and not pending and exhausted:
                    return
                entry = await finished_receive.receive()
                busy -= entry.bots
                running -= 1

    # ------------------------------------------------------------------ one slice

    async def _play_slice(self, entry: Scheduled) -> None:
        match = entry.match
        if entry.done:
            return
        if not entry.started:
            entry.started = True
            match.open()
            if not await match.start(self.nursery):
                await self._end(entry, str(match.cannot_start))
                return
        else:
            for player in match.players:
                if isinstance(player.seat, BorrowedSeat):
                    player.seat.activate()
        if not await match.play(entry.slice):
            error = None if match.cannot_write is None else str(match.cannot_write)
            await self._end(entry, error)

    async def _end(self, entry: Scheduled, error: str | None, *, stopped: bool = False) -> None:
        """Give the match's seats back, close its sinks, and report it (``stopped``: the
        session is stopping, not a fault of the match's)."""
        if entry.done:
            return
        entry.done = True
        match = entry.match
        await match.stop()
        if stopped and match.stopped is None:
            match.stopped = "the tournament stopped"
        match.finish()
        self._closed(entry.key, match, None if match.completed else error)
