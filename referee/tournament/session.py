"""Playing a round of matches whose bots live for the whole tournament.

A *session* owns a :class:`~referee.tournament.pool.BotPool` and plays rounds of
matches with it (:meth:`Session.play_round`).  A match is cut into *slices*: the whole
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
from dataclasses import dataclass, field

import trio

from referee.match import Match
from referee.tournament.pool import BorrowedSeat, BotPool


@dataclass
class Scheduled:
    """One match of a round and where it is."""

    key: str
    match: Match
    #: Games per slice; ``None``: the whole match at once.
    slice: int | None
    bots: frozenset[str]
    started: bool = False
    done: bool = False


@dataclass
class _Slice:
    entry: Scheduled
    bots: frozenset[str] = field(default_factory=frozenset)


#: How many slices the conductor looks ahead for one it may start.
LOOKAHEAD = 64


class Session:
    """Plays rounds of matches with one pool of tournament-long bots (module docstring).

    ``closed(key, match, error)`` is called when a match ends, after its sinks are
    closed (``match.result()`` is final); ``error`` says why it could not be played or
    stopped, if it did.
    """

    def __init__(
        self,
        pool: BotPool,
        nursery: trio.Nursery,
        *,
        slots: int,
        closed: Callable[[str, Match, str | None], None],
    ) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.pool = pool
        self.nursery = nursery
        self.slots = slots
        self._closed = closed
        self._open: list[Scheduled] = []

    async def play_round(self, matches: Sequence[tuple[str, Match, int | None]]) -> None:
        """Play every match of the round to its end (or until cancelled: then the matches
        in progress are stopped, their bots given back, their sinks closed)."""
        entries = [
            Scheduled(key, match, slice_, frozenset(p.name for p in match.players))
            for key, match, slice_ in matches
        ]
        try:
            if self.slots == 1:
                for item in self._slices(entries):
                    await self._play_slice(item)
            else:
                await self._conduct(self._slices(entries))
        finally:
            with trio.CancelScope(shield=True):
                for entry in list(self._open):
                    await self._end(entry, "cancelled")

    # ------------------------------------------------------------------ order

    @staticmethod
    def _slices(entries: list[Scheduled]) -> Iterator[_Slice]:
        """The round's slices in schedule order (module docstring)."""
        longest = max(
            (1 if e.slice is None else math.ceil(e.match.games_requested / max(1, e.slice)) for e in entries),
            default=0,
        )
        for turn in range(longest):
            for entry in entries:
                if entry.slice is None:
                    if turn == 0:
                        yield _Slice(entry, entry.bots)
                elif turn * entry.slice < entry.match.games_requested:
                    yield _Slice(entry, entry.bots)

    async def _conduct(self, slices: Iterator[_Slice]) -> None:
        """Several slices at once: start each as soon as its bots are free and every
        earlier slice of theirs has been started (module docstring)."""
        pending: deque[_Slice] = deque()
        busy: set[str] = set()
        running = 0
        finished_send, finished_receive = trio.open_memory_channel[_Slice](math.inf)
        exhausted = False

        async def run(item: _Slice) -> None:
            try:
                await self._play_slice(item)
            finally:
                finished_send.send_nowait(item)

        async with trio.open_nursery() as nursery:
            while True:
                while not exhausted and len(pending) < LOOKAHEAD:
                    item = next(slices, None)
                    if item is None:
                        exhausted = True
                    else:
                        pending.append(item)
                blocked: set[str] = set()
                for item in list(pending):
                    if running >= self.slots:
                        break
                    if item.bots & busy or item.bots & blocked:
                        blocked |= item.bots
                        continue
                    pending.remove(item)
                    busy |= item.bots
                    running += 1
                    nursery.start_soon(run, item)
                if running == 0 and not pending and exhausted:
                    return
                item = await finished_receive.receive()
                busy -= item.bots
                running -= 1

    # ------------------------------------------------------------------ one slice

    async def _play_slice(self, item: _Slice) -> None:
        entry = item.entry
        match = entry.match
        if entry.done:
            return
        if not entry.started:
            entry.started = True
            self._open.append(entry)
            match.open()
            if not await match.start(self.nursery):
                await self._end(entry, str(match.cannot_start))
                return
        else:
            for player in match.players:
                if isinstance(player.seat, BorrowedSeat):
                    player.seat.activate()
        more = await match.play(entry.slice)
        if not more:
            error = str(match.cannot_write) if match.cannot_write is not None else None
            await self._end(entry, error)

    async def _end(self, entry: Scheduled, error: str | None) -> None:
        """Give the match's seats back, close its sinks, and report it."""
        if entry.done:
            return
        entry.done = True
        match = entry.match
        await match.stop()
        if error == "cancelled" and match.stopped is None:
            match.stopped = "the tournament stopped"
        match.finish()
        if entry in self._open:
            self._open.remove(entry)
        if match.completed:
            error = None
        elif error == "cancelled":
            error = match.stopped
        self._closed(entry.key, match, error)
