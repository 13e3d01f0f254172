"""The seat interface: everything a match knows about a participant.

A match drives each bot through this small surface and nothing else::

    seat = factory(spec, limits, stderr_path=..., cpu_budget_s=...)
    await seat.start(nursery)        # BotFault(STARTUP) if it cannot start
    reply = await seat.request(line) # one line out, one line back; BotFault on a fault
    await seat.tell(line)            # an information line (its answer, if due, is dropped)
    seat.kill(verdict, detail)       # end it now, with that verdict
    await seat.close()               # bounded; always called, also after a fault
    seat.usage()                     # CPU, memory, decisions, latencies: right at any time

How a seat runs its bot — a sandboxed process with a limits monitor and a stderr
capture (:class:`referee.seats.process.bot.BotProcess`), a Python callable in the referee's own
process (:class:`referee.seats.inprocess.InProcessSeat`), a person at a terminal
(:class:`referee.seats.human.HumanSeat`), later a TCP connection — is its own business.  A seat reports how it ended through
``death`` (a :class:`~referee.core.verdict.Verdict`, ``None`` while it may still play) and
``death_detail``; the match turns faults into the game's penalties.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol

import msgspec
import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import Verdict


class SeatUsage(msgspec.Struct, frozen=True):
    """What a seat has used so far (since it started)."""

    cpu_s: float = 0.0
    peak_rss_bytes: int = 0
    #: Requests answered, the first included.
    decisions: int = 0
    #: Summed and longest latency of every answer but the first (which carries startup).
    latency_ns_total: int = 0
    latency_ns_max: int = 0
    first_answer_ns: int = 0
    #: Whether any line came back (a faulty one too): a seat that died without one
    #: failed to start.
    answered: bool = False
    #: The bot's notes about its own play (:mod:`protocol.notes`), by name, and each
    #: name's first text.  Copies: a later reading does not change them.
    notes: dict[str, int] = {}
    note_examples: dict[str, str] = {}
    #: The CPU the bot's process tree used during its slowest answer (the one of
    #: ``latency_ns_max``), in ns; -1 where the seat cannot tell.
    slowest_cpu_ns: int = -1
    #: Answers that took :data:`~referee.core.limits.NEAR_LIMIT` of the decision limit or
    #: more, timeouts included; the first :data:`SLOW_KEPT` as (wall ns, CPU ns or -1,
    #: timed out).
    slow_answers: int = 0
    slow_details: list[tuple[int, int, bool]] = []


#: Slow answers a seat keeps in full per life.
SLOW_KEPT = 20


def notes_usage(counts: dict[str, int], examples: dict[str, str]) -> dict[str, Any]:
    """``SeatUsage``'s note fields, copied: nothing at all while the bot has written
    none, the common case."""
    if not counts:
        return {}
    return {"notes": dict(counts), "note_examples": dict(examples)}


class Seat(abc.ABC):
    """One participant of a match, for the length of one life (a restart is a new seat)."""

    #: Why it cannot play any more, once it cannot; ``None`` while it can.
    death: Verdict | None = None
    death_detail: str = ""
    #: A seat that sets this gets, before each request, :attr:`judge`: the match's own
    #: verdict on a reply it is thinking of sending (a person at a terminal is told why
    #: a move would forfeit, and asked again).  The match reads it once per decision.
    wants_judge: ClassVar[bool] = False
    #: ``judge(reply)``: ``None`` if the match would accept ``reply`` (no newline) for
    #: the request about to be sent, else the forfeit's detail a bot would get.
    judge: Callable[[bytes], str | None] | None = None

    @property
    @abc.abstractmethod
    def alive(self) -> bool:
        """Started and not dead."""

    @property
    @abc.abstractmethod
    def description(self) -> str:
        """What runs it, for the results (e.g. its isolation)."""

    @abc.abstractmethod
    async def start(self, nursery: trio.Nursery) -> None:
        """Bring it up; tasks it needs run in ``nursery``.  ``BotFault(STARTUP)`` if it cannot."""

    @abc.abstractmethod
    async def request(self, line: bytes) -> bytes:
        """Send ``line`` (ending in a newline); return the reply without its newline."""

    @abc.abstractmethod
    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        """Send an information line; an answer the game demands is read and dropped."""

    @abc.abstractmethod
    def kill(self, verdict: Verdict, detail: str) -> None:
        """End it now with ``verdict`` (the first cause wins).  Synchronous and quick."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release everything it holds; bounded in time, safe to call twice."""

    @abc.abstractmethod
    def usage(self) -> SeatUsage: ...

    async def ended(self, within: float = 0.0) -> bool:
        """Whether the bot has ended (a process that exited unasked, say), looking for
        at most ``within`` seconds.  Seats that cannot tell say False."""
        return False

    def new_stretch(self) -> None:
        """From now on ``usage()``'s slowest answer (``latency_ns_max``, its CPU) and slow
        answers' details count afresh; the counts and sums go on.  A tournament's pool
        calls it each time it lends one process to another match, so each match reports
        its own slowest answer."""
        return  # a seat that keeps no maxima has nothing to start afresh


class SeatFactory(Protocol):
    """Makes the seat of a bot for one life; ``cpu_budget_s`` is what is left of the
    match's CPU budget (``None``: no budget), ``stderr_path`` where its stderr may go."""

    def __call__(
        self, spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
    ) -> Seat: ...
