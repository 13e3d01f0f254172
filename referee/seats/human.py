"""A seat played by a person at the terminal (``referee play``).

Each request is shown as the game's board (:mod:`referee.seats.boards`) with the moves
offered; what the person types is translated into the protocol's reply and judged by
the match itself before it is sent (the seat sets :attr:`~referee.seats.Seat.wants_judge`):
a reply a bot would forfeit with is refused with the very message the bot would get —
``A bot sending this would forfeit: card 9 is not in your hand (cards are 1..5)`` — and
the person is asked again, within the same time limit.  So the rules are never guessed
here, and a person learns them exactly as a bot is held to them.

The limit per decision is the seat's own (``think_s``, default
:data:`DEFAULT_THINK_S`, far above a bot's), shown in the prompt and counted down; a
person who lets it run out gets the ``timeout`` verdict a bot would.  Information lines
are shown in the person's terms.  The end of input (Ctrl-D) means the person left: the
seat dies (``crash``, as a program that exits) and ``on_leave`` is called, so the caller
can end the match.

Input is read from a file descriptor without blocking the match (trio waits on it), so
the bots' seats run on while the person thinks (Bidding Wars asks both at once).  On a
terminal, keys typed before a prompt are discarded: an Enter pressed while a bot was
thinking must not answer the next question.
"""

from __future__ import annotations

import math
import os
import stat
import termios
import time
from collections.abc import Awaitable, Callable

import trio
from rich.console import Console
from rich.text import Text

from referee.core.limits import Limits
from referee.core.verdict import BotFault, Verdict
from referee.seats._abc import Seat, SeatUsage
from referee.seats.boards import Board, Unclear, moves_table

#: Seconds a person has for each decision unless told otherwise (``--think``).
DEFAULT_THINK_S = 300.0
#: Seconds before the limit at which the person is warned (those below the limit).
WARN_AT = (60.0, 10.0)

#: Reads one line the person typed, without its newline; ``None`` at the end of input.
ReadLine = Callable[[], Awaitable[bytes | None]]


class TerminalReader:
    """Lines typed on a file descriptor (standard input by default), read with trio."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self._buf = b""
        self._eof = False
        mode = os.fstat(fd).st_mode
        #: epoll can wait on terminals, pipes and sockets; a regular file is read in a thread.
        self._pollable = stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        self.tty = os.isatty(fd)

    def discard(self) -> None:
        """Forget what was typed ahead on a terminal (a script's input is kept)."""
        if self.tty:
            termios.tcflush(self.fd, termios.TCIFLUSH)
            self._buf = b""

    async def __call__(self) -> bytes | None:
        while b"\n" not in self._buf:
            if self._eof:
                line, self._buf = self._buf, b""
                return line or None
            if self._pollable:
                await trio.lowlevel.wait_readable(self.fd)
                chunk = os.read(self.fd, 65536)
            else:
                chunk = await trio.to_thread.run_sync(os.read, self.fd, 65536)
            if not chunk:
                self._eof = True
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line


def clock(seconds: float) -> str:
    """``4:59`` or ``42 s``."""
    if math.isinf(seconds):
        return "no limit"
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole} s"


class HumanSeat(Seat):
    """A person at the terminal: see the module's text."""

    wants_judge = True

    def __init__(
        self,
        board: Board,
        limits: Limits,
        *,
        think_s: float = DEFAULT_THINK_S,
        console: Console | None = None,
        read: ReadLine | None = None,
        on_leave: Callable[[], None] | None = None,
        show_wire: bool = False,
    ) -> None:
        self.board = board
        self.limits = limits
        self.think_s = think_s
        self.console = console or Console(highlight=False)
        self._terminal = TerminalReader() if read is None else None
        self.read: ReadLine = read or self._terminal  # type: ignore[assignment]
        self.on_leave = on_leave
        self.show_wire = show_wire
        self.death: Verdict | None = None
        self.death_detail = ""
        self.judge: Callable[[bytes], str | None] | None = None
        self._started = False
        self._decisions = 0
        self._latency_total = 0
        self._latency_max = 0
        self._first_answer = 0

    @property
    def alive(self) -> bool:
        return self._started and self.death is None

    @property
    def description(self) -> str:
        return "a person at the terminal"

    async def start(self, nursery: trio.Nursery) -> None:
        self._started = True

    # ------------------------------------------------------------------ a decision

    def _say(self, text: str | Text, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False, emoji=False)

    def _show(self, line: str) -> None:
        self.console.rule(style="dim")
        if self.show_wire:
            self._say(f"<- {line}", style="dim")
        self.console.print(self.board.show(line))
        moves = self.board.moves(line)
        if moves:
            self._say("Your moves:", style="bold")
            self.console.print(moves_table(moves))
        self._say(f"({self.board.hint}; ? shows this again)", style="dim")

    def _prompt(self, left: float) -> None:
        self.console.print(Text.assemble(("Your move", "bold"), f" ({clock(left)} left) > "), end="")
        self.console.file.flush()

    async def request(self, line: bytes) -> bytes:
        await trio.lowlevel.checkpoint()  # a match being stopped stops here, before showing anything
        if self.death is not None:
            raise BotFault(self.death, self.death_detail)
        judge, self.judge = self.judge, None  # set by the match for this request only
        text = line[:-1].decode("ascii", "replace")
        started = time.perf_counter_ns()
        deadline = trio.current_time() + self.think_s
        self._show(text)
        if self._terminal is not None:
            self._terminal.discard()
        while True:
            typed = await self._read_until(deadline)
            if typed is None:
                detail = "left the game (end of input)"
                self.kill(Verdict.CRASH, detail)
                if self.on_leave is not None:
                    self.on_leave()
                raise BotFault(Verdict.CRASH, detail)
            typed_text = typed.decode("utf-8", "surrogateescape")
            if typed_text.strip() == "?":
                self._show(text)
                continue
            try:
                reply = self.board.reply(text, typed_text).encode("utf-8", "surrogateescape")
            except Unclear as exc:
                self._say(str(exc), style="yellow")
                continue
            problem: str | None
            if len(reply) > self.limits.max_line_bytes:  # as a process seat says it
                problem = f"reply longer than {self.limits.max_line_bytes} bytes"
            else:
                problem = judge(reply) if judge is not None else None
            if problem is not None:
                self._say(f"A bot sending this would forfeit: {problem}", style="bold red")
                continue
            if self.show_wire:
                self._say(f"-> {reply.decode('utf-8', 'backslashreplace')}", style="dim")
            self._count(time.perf_counter_ns() - started)
            return reply

    async def _read_until(self, deadline: float) -> bytes | None:
        """One line typed before ``deadline`` (None at the end of input); a timeout fault after."""
        left = deadline - trio.current_time()
        if left > 0:
            self._prompt(left)
            line: bytes | None = None
            answered = False
            with trio.move_on_at(deadline):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._warn, deadline)
                    line = await self.read()
                    answered = True
                    nursery.cancel_scope.cancel()
            if answered:
                return line
        self._say(
            f"\nTime is up (limit {clock(self.think_s)}): a bot this late forfeits the move.", "bold red"
        )
        raise BotFault(Verdict.TIMEOUT, f"no reply in time (limit {self.think_s:g} s)")

    async def _warn(self, deadline: float) -> None:
        """Say so as the limit nears, and show the prompt again."""
        for before in WARN_AT:
            if deadline - trio.current_time() <= before:
                continue
            await trio.sleep_until(deadline - before)
            self._say(f"\n{clock(before)} left", style="yellow")
            self._prompt(deadline - trio.current_time())

    def _count(self, elapsed: int) -> None:
        self._decisions += 1
        if self._decisions == 1:
            self._first_answer = elapsed
            return
        self._latency_total += elapsed
        self._latency_max = max(self._latency_max, elapsed)

    # ------------------------------------------------------------------ the rest

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.death is not None:
            return
        text = line[:-1].decode("ascii", "replace")
        if self.show_wire:
            self._say(f"<- {text}", style="dim")
        shown = self.board.inform(text)
        if shown is not None:
            self.console.print(shown)

    def kill(self, verdict: Verdict, detail: str) -> None:
        if self.death is None:
            self.death = verdict
            self.death_detail = detail

    async def close(self) -> None:
        self._started = False

    def usage(self) -> SeatUsage:
        return SeatUsage(
            answered=bool(self._decisions),
            decisions=self._decisions,
            latency_ns_total=self._latency_total,
            latency_ns_max=self._latency_max,
            first_answer_ns=self._first_answer,
        )
