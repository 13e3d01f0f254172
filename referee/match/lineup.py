"""The bots of a match and their lives: starting, restarting, giving up, retiring.

A *player* is a bot of the match; its *seat* (:class:`~referee.seats.Seat`) is one life
of it — a process, a callable — made by the match's seat factory.  The lineup starts
every player when the match starts, restarts a dead one when the game's policy says so
(between games, or at its next turn within a game), gives up on one that fails to start
``give_up_after`` times in a row, and retires each seat by closing it and folding its
figures into the player's totals.  Everything it must say goes to ``notice``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import BotFault, Forfeit, Verdict
from referee.match.scoreboard import PlayerStats
from referee.seats import Seat, SeatFactory


class MatchError(Exception):
    """The match cannot be played (a bot cannot start); one-line message."""


class OutputError(Exception):
    """A sink could not write (a full disk): the match stopped there; one-line message.
    Raised by :meth:`Match.run` after the bots and the other sinks are closed."""


@dataclass
class Player:
    """A bot of the match: its spec, limits, totals and current seat."""

    spec: BotSpec
    limits: Limits
    stats: PlayerStats
    seat: Seat | None = None
    #: The fault that ended the last seat, while the player has no live one.
    down: Forfeit | None = None
    stderr_path: Path | None = None
    #: Starts in a row that failed or died before a first answer.
    failed_starts: int = 0
    #: Out for the rest of the match: no more restarts.
    given_up: bool = False
    #: Why this bot can never start (its build failed), if so.
    unstartable: str | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def cpu_left(self) -> float | None:
        return None if self.limits.cpu_s is None else self.limits.cpu_s - self.stats.cpu_seconds


class Lineup:
    """The players of one match and the lives of their seats (see the module's text)."""

    def __init__(
        self,
        players: list[Player],
        seat_factory: SeatFactory,
        *,
        restart: bool,
        keep_going: bool,
        give_up_after: int,
        notice: Callable[[str], None],
    ) -> None:
        self.players = players
        self.seat_factory = seat_factory
        #: Dead bots are restarted (between games, or within one) rather than retired.
        self.restart = restart
        self.keep_going = keep_going
        self.give_up_after = give_up_after
        self._notice = notice
        self._nursery: trio.Nursery | None = None

    async def start_all(self, nursery: trio.Nursery) -> MatchError | None:
        """Start every player; the error that makes the match unplayable, if any."""
        self._nursery = nursery
        # Started together (each start waits for its sandbox to be ready, and those waits
        # need not add up); judged in lineup order, as one after another would be.
        faults = await _all_at_once([functools.partial(self._start, p) for p in self.players], BotFault)
        for player, fault in zip(self.players, faults, strict=True):
            if isinstance(fault, BotFault):
                why = f"bot {player.name} cannot start: {fault.detail.removeprefix('cannot start: ')}"
                if not self.keep_going:
                    return MatchError(why)
                player.down = Forfeit(fault.verdict, 0, -1, fault.detail)
                self._failed_start(player, 0)
                self._notice(f"{why}; it forfeits its games, the others play on")
        return None

    async def close_all(self, game: int) -> None:
        """Close every seat, then fold their figures in lineup order.  The closes run
        together: each waits (bounded) for its bot to exit on end of input, and those
        waits need not add up."""
        seated = [(player, player.seat) for player in self.players if player.seat is not None]
        failures = await _all_at_once([seat.close for _, seat in seated], Exception)
        for player, seat in seated:
            self._fold(player, seat, game)
        for failure in failures:
            if failure is not None:
                raise failure  # the first, once every seat is closed

    def all_alive(self) -> bool:
        """Whether every player has a live seat: nothing for :meth:`between_games` to do
        (checked before each game without a coroutine)."""
        for player in self.players:
            seat = player.seat
            if seat is None or not seat.alive:
                return False
        return True

    async def between_games(self, next_game: int) -> None:
        """Close dead seats; restart them if the policy allows."""
        for player in self.players:
            seat = player.seat
            if seat is not None and seat.alive:
                continue
            if self.restart:
                await self.revive(player, next_game)
            else:
                await self.retire(player, next_game)

    async def revive(self, player: Player, game: int) -> bool:
        """Close the player's dead seat and start a new one if the rules allow; whether
        it now has a live one."""
        seat = player.seat
        death = seat.death if seat is not None else (player.down.verdict if player.down else None)
        await self.retire(player, game)
        if not self._may_restart(player, death):
            return False
        try:
            await self._start(player)
        except BotFault as fault:
            player.down = Forfeit(fault.verdict, game, -1, fault.detail)
            self._failed_start(player, game)
            return False
        player.stats.restarts += 1
        return True

    async def retire(self, player: Player, game: int) -> None:
        """Close the player's seat and fold its figures into the player's totals."""
        seat = player.seat
        if seat is None:
            return
        await seat.close()
        self._fold(player, seat, game)

    def _fold(self, player: Player, seat: Seat, game: int) -> None:
        """A closed seat's figures into the player's totals, and its death as the
        player's fault if none was recorded."""
        used = seat.usage()
        player.seat = None
        player.stats.fold(used)
        if seat.death is not None and player.down is None:  # no fault recorded where it died
            player.down = Forfeit(seat.death, game, -1, seat.death_detail)
        if used.answered or used.decisions:
            player.failed_starts = 0
        elif seat.death is not None:
            self._failed_start(player, game)  # died before its first answer

    def down_fault(self, player: Player, game: int, decision: int = -1) -> Forfeit:
        """The penalty for a player whose bot is not running, naming why."""
        seat = player.seat
        if player.down is None and seat is not None and seat.death is not None:
            player.down = Forfeit(seat.death, game, decision, seat.death_detail)
        cause = player.down or Forfeit(Verdict.CRASH, game, decision, "not running")
        return Forfeit(cause.verdict, game, decision, f"not running since game {cause.game}: {cause.detail}")

    # ------------------------------------------------------------------ inside

    def _failed_start(self, player: Player, game: int) -> None:
        """One more start in a row that failed (or died before a first answer); give up
        on the player after enough of them."""
        player.failed_starts += 1
        limit = 1 if player.unstartable is not None else self.give_up_after
        if player.given_up or player.failed_starts < limit:
            return
        player.given_up = True
        cause = player.down or Forfeit(Verdict.STARTUP, game, -1, "cannot start")
        tries = (
            "" if player.unstartable is not None else f" after {player.failed_starts} failed starts in a row"
        )
        player.down = Forfeit(
            cause.verdict, cause.game, -1, f"out for the rest of the match{tries}: {cause.detail}"
        )
        if tries:
            self._notice(f"bot {player.name} is out for the rest of the match{tries}: {cause.detail}")

    @staticmethod
    def _may_restart(player: Player, death: Verdict | None) -> bool:
        budget = player.cpu_left
        # A spent CPU budget is for the whole match: restarting would not renew it.
        return not player.given_up and death is not Verdict.CPU and (budget is None or budget > 0)

    async def _start(self, player: Player) -> None:
        assert self._nursery is not None, "start_all first"
        if player.unstartable is not None:
            raise BotFault(Verdict.STARTUP, player.unstartable)
        seat = self.seat_factory(
            player.spec, player.limits, stderr_path=player.stderr_path, cpu_budget_s=player.cpu_left
        )
        try:
            await seat.start(self._nursery)
        except BotFault:
            raise
        except BaseException:
            # Cancelled while starting (an interrupt): the half-started seat is ours to end.
            await seat.close()
            raise
        finally:
            player.stats.sandbox = seat.description  # what ran, or at least the layer asked for
        player.seat = seat
        player.down = None


async def _all_at_once(
    calls: list[Callable[[], Awaitable[object]]], catch: type[Exception]
) -> list[Exception | None]:
    """Await every call concurrently; what each raised of ``catch`` (None if nothing), in
    the calls' order.  Anything else a call raises propagates, as from a nursery."""
    caught: list[Exception | None] = [None] * len(calls)

    async def run(index: int, call: Callable[[], Awaitable[object]]) -> None:
        try:
            await call()
        except catch as exc:
            caught[index] = exc

    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            nursery.start_soon(run, index, call)
    return caught
