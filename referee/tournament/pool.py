"""Bots that live for the whole tournament: one process per bot, lent to each match.

Dice poker's seed runs ``Init`` "only once at the very beginning of the tournament",
and Liar's Dice's bots "will persist from game to game in the tournament"
(``Game.lifetime``).  A :class:`BotPool` keeps one seat — a sandboxed process — per bot
for as long as the tournament's session lives, and every match borrows it through the
match's ordinary seam, its seat factory (:meth:`BotPool.factory`): the match starts a
:class:`BorrowedSeat`, talks to it, and closes it, and none of that starts or ends the
process unless it has died.  The match's lineup, penalties and verdicts are unchanged.

* **One match at a time.**  A bot is borrowed by one match at a time; the session
  (:mod:`referee.tournament.session`) guarantees it, and a match that interleaves with
  others makes its seats current with :meth:`BorrowedSeat.activate` before each slice.
  The process's figures (CPU, decisions, latencies) are charged to whichever borrowed
  seat is current, so each match reports its own share.
* **A bot that dies** is closed, and the next start — within the match, when the game
  restarts bots (Liar's Dice), or in the bot's next match (dice poker forfeits the rest
  of the match it died in) — starts a new process: a *restart*, reported through
  ``on_restart`` and recorded by the tournament.  Its CPU budget, if the limits set one,
  is for its whole tournament: a new process gets what the earlier ones left.
* **A bot that cannot start** ``give_up_after`` times in a row (or dies before its
  first answer) is given up on for the rest of the tournament: every later start fails
  at once with the ``startup`` verdict, so a broken bot costs a few startup allowances
  in all, not a few per match; ``on_give_up`` is told.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import BotFault, Verdict
from referee.seats import SLOW_KEPT, Seat, SeatFactory, SeatUsage


class _Charge:
    """What a process used while one borrowed seat was the one charged: added up in
    place at every switch (a slice of an interleaved round robin is one deal, so a
    switch is on the per-deal path: no structs built but the one reading)."""

    __slots__ = (
        "answered",
        "cpu_s",
        "decisions",
        "first_answer_ns",
        "latency_ns_max",
        "latency_ns_total",
        "note_examples",
        "notes",
        "peak",
        "slow_answers",
        "slow_details",
        "slowest_cpu_ns",
    )

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self.peak = 0
        self.decisions = 0
        self.latency_ns_total = 0
        self.latency_ns_max = 0
        self.first_answer_ns = 0
        self.answered = False
        self.slowest_cpu_ns = -1
        self.slow_answers = 0
        self.slow_details: list[tuple[int, int, bool]] = []
        self.notes: dict[str, int] = {}
        self.note_examples: dict[str, str] = {}

    def add(self, now: SeatUsage, mark: SeatUsage) -> None:
        """Add what the process used between the readings ``mark`` and ``now``."""
        self.cpu_s += max(0.0, now.cpu_s - mark.cpu_s)
        self.peak = max(self.peak, now.peak_rss_bytes)
        self.decisions += now.decisions - mark.decisions
        self.latency_ns_total += now.latency_ns_total - mark.latency_ns_total
        # The seat's slowest answer and slow answers' details are this stretch's alone:
        # every switch starts them afresh (Seat.new_stretch).
        if now.latency_ns_max > self.latency_ns_max:
            self.latency_ns_max = now.latency_ns_max
            self.slowest_cpu_ns = now.slowest_cpu_ns
        if now.slow_answers != mark.slow_answers:
            self.slow_answers += now.slow_answers - mark.slow_answers
            self.slow_details += now.slow_details[: SLOW_KEPT - len(self.slow_details)]
        if mark.decisions == 0:  # the process's first answer fell in this stretch
            self.first_answer_ns = max(self.first_answer_ns, now.first_answer_ns)
        self.answered = self.answered or now.answered
        if now.notes != mark.notes:  # rare: most bots write no notes (two empty dicts)
            for name, count in now.notes.items():
                more = count - mark.notes.get(name, 0)
                if more > 0:
                    self.notes[name] = self.notes.get(name, 0) + more
                    if name in now.note_examples:
                        self.note_examples.setdefault(name, now.note_examples[name])

    def usage(self) -> SeatUsage:
        return SeatUsage(
            cpu_s=self.cpu_s,
            peak_rss_bytes=self.peak,
            decisions=self.decisions,
            latency_ns_total=self.latency_ns_total,
            latency_ns_max=self.latency_ns_max,
            first_answer_ns=self.first_answer_ns,
            answered=self.answered,
            slowest_cpu_ns=self.slowest_cpu_ns,
            slow_answers=self.slow_answers,
            slow_details=list(self.slow_details),
            notes=dict(self.notes),
            note_examples=dict(self.note_examples),
        )


@dataclass
class _Bot:
    """One bot of the pool: its current process and its history."""

    spec: BotSpec
    seat: Seat | None = None
    #: The borrowed seat its figures are charged to now, and the usage read at the switch.
    holder: BorrowedSeat | None = None
    mark: SeatUsage = field(default_factory=SeatUsage)
    #: Processes started so far (a restart is any after the first).
    lives: int = 0
    #: CPU seconds of the processes that ended.
    cpu_spent: float = 0.0
    #: Starts in a row that failed, or died before a first answer.
    failed_starts: int = 0
    #: Why it is out for the rest of the tournament, once it is.
    given_up: str | None = None
    #: How the last process ended (for the restart's reason).
    last_end: str = ""

    def switch(self, holder: BorrowedSeat | None) -> None:
        """Charge what the process used since the last switch to the holder then, and
        make ``holder`` the one charged from now on."""
        seat = self.seat
        if seat is not None:
            now = seat.usage()
            if self.holder is not None:
                self.holder.charged.add(now, self.mark)
            self.mark = now
            seat.new_stretch()
        self.holder = holder


class BotPool:
    """The tournament-long processes of a session's bots.

    ``make_seat(spec, limits, stderr_path=..., cpu_budget_s=...)`` makes a real seat (a
    :class:`~referee.seats.process.bot.BotProcess` of the session's sandbox layer);
    ``nursery`` holds the processes' own tasks for the pool's whole life; each process's
    stderr goes to ``stderr_dir/NAME.stderr`` (``NAME.2.stderr`` for a second life...).
    """

    def __init__(
        self,
        specs: list[BotSpec],
        make_seat: SeatFactory,
        nursery: trio.Nursery,
        *,
        stderr_dir: str | Path,
        give_up_after: int,
        on_restart: Callable[[str, str | None, str], None] = lambda bot, key, why: None,
        on_give_up: Callable[[str, str], None] = lambda bot, why: None,
    ) -> None:
        self._bots = {spec.name: _Bot(spec) for spec in specs}
        self._make_seat = make_seat
        self._nursery = nursery
        self.stderr_dir = Path(stderr_dir)
        self.give_up_after = give_up_after
        self._on_restart = on_restart
        self._on_give_up = on_give_up

    def factory(self, key: str | None = None) -> SeatFactory:
        """The seat factory for match ``key``: its seats are borrowed from the pool."""

        def borrow(
            spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
        ) -> BorrowedSeat:
            if spec.name not in self._bots:
                raise KeyError(f"bot {spec.name} is not in this session")
            return BorrowedSeat(self, self._bots[spec.name], limits, key)

        return borrow

    async def close_all(self) -> None:
        """End every process (shielded, bounded: each seat's close is)."""
        with trio.CancelScope(shield=True):
            for bot in self._bots.values():
                if bot.seat is not None:
                    await self._end(bot)

    # ------------------------------------------------------------------ inside

    async def _ensure(self, bot: _Bot, limits: Limits, key: str | None) -> Seat:
        """The bot's live process, started (again) if it has none; BotFault if it cannot."""
        if bot.seat is not None and bot.seat.death is None:
            return bot.seat
        if bot.seat is not None:
            await self._end(bot)
        if bot.given_up is not None:
            raise BotFault(Verdict.STARTUP, bot.given_up)
        budget = None if limits.cpu_s is None else max(0.0, limits.cpu_s - bot.cpu_spent)
        life = bot.lives + 1
        name = bot.spec.name
        stderr_path = self.stderr_dir / (f"{name}.stderr" if life == 1 else f"{name}.{life}.stderr")
        seat = self._make_seat(bot.spec, limits, stderr_path=stderr_path, cpu_budget_s=budget)
        bot.lives = life
        if life > 1:
            self._on_restart(name, key, bot.last_end or "its process had ended")
        try:
            await seat.start(self._nursery)
        except BotFault as fault:
            self._failed_start(bot, fault.detail)
            raise
        except BaseException:
            await seat.close()
            raise
        bot.seat = seat
        bot.mark = seat.usage()
        seat.new_stretch()
        bot.holder = None
        return seat

    async def _end(self, bot: _Bot) -> None:
        """Close the bot's process and settle its figures."""
        seat = bot.seat
        assert seat is not None
        await seat.close()
        bot.switch(None)
        used = seat.usage()
        bot.cpu_spent += used.cpu_s
        bot.seat = None
        bot.last_end = f"{seat.death.value}: {seat.death_detail}" if seat.death is not None else "closed"
        if used.answered:
            bot.failed_starts = 0
        else:
            self._failed_start(bot, bot.last_end)

    def _failed_start(self, bot: _Bot, why: str) -> None:
        bot.failed_starts += 1
        if bot.given_up is None and bot.failed_starts >= self.give_up_after:
            bot.given_up = (
                f"out for the rest of the tournament after {bot.failed_starts} failed starts in a row: {why}"
            )
            self._on_give_up(bot.spec.name, bot.given_up)


class BorrowedSeat(Seat):
    """A match's use of a pool's process: starting it borrows the process (starting one
    if the bot has none running), closing it gives it back (ending it only if it died)."""

    def __init__(self, pool: BotPool, bot: _Bot, limits: Limits, key: str | None) -> None:
        self._pool = pool
        self._bot = bot
        self._limits = limits
        self._key = key
        self._seat: Seat | None = None
        #: What the process used while this seat was the one charged.
        self.charged = _Charge()
        self._death: Verdict | None = None
        self._death_detail = ""

    # -- what the match reads --

    @property
    def alive(self) -> bool:
        return self._seat is not None and self._seat.alive

    @property
    def death(self) -> Verdict | None:  # type: ignore[override]
        return self._seat.death if self._seat is not None else self._death

    @property
    def death_detail(self) -> str:  # type: ignore[override]
        return self._seat.death_detail if self._seat is not None else self._death_detail

    @property
    def description(self) -> str:
        return self._seat.description if self._seat is not None else ""

    async def ended(self, within: float = 0.0) -> bool:
        return self._seat is not None and await self._seat.ended(within)

    def usage(self) -> SeatUsage:
        bot = self._bot
        if bot.holder is self:
            bot.switch(self)  # settles what is charged so far; this seat stays the holder
        return self.charged.usage()

    # -- life --

    async def start(self, nursery: trio.Nursery) -> None:
        """Borrow the bot's process; ``nursery`` is not used: the process belongs to the pool."""
        try:
            self._seat = await self._pool._ensure(self._bot, self._limits, self._key)
        except BotFault as fault:
            self._death, self._death_detail = fault.verdict, fault.detail
            raise
        self.activate()

    def activate(self) -> None:
        """Make this the seat the process's figures are charged to, and talk through it
        directly (no wrapper on the per-decision path)."""
        seat = self._seat
        if seat is None:
            return
        if self._bot.holder is not self:
            self._bot.switch(self)
        self.request = seat.request  # type: ignore[method-assign]
        self.tell = seat.tell  # type: ignore[method-assign]

    async def request(self, line: bytes) -> bytes:  # replaced by activate()
        assert self._seat is not None, "start first"
        self.activate()
        return await self._seat.request(line)

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:  # replaced by activate()
        assert self._seat is not None, "start first"
        self.activate()
        await self._seat.tell(line, expects_reply)

    def kill(self, verdict: Verdict, detail: str) -> None:
        if self._seat is not None:
            self._seat.kill(verdict, detail)

    async def close(self) -> None:
        """Give the process back; end it if it has died."""
        seat = self._seat
        if seat is None:
            return
        bot = self._bot
        if bot.holder is self:
            bot.switch(None)
        if seat.death is not None and bot.seat is seat:
            await self._pool._end(bot)
        self._death, self._death_detail = seat.death, seat.death_detail
        self._seat = None
