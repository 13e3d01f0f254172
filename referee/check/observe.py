"""Observing the bot under check: its processes record what the match alone does not
(answer times, stray output, memory samples, how it ends at end of input), without
changing what the match sees.

:class:`CheckProcess` is a :class:`~referee.seats.process.bot.BotProcess` subclass, not a
wrapper around one: the match makes its seats from a class (``process_class``, see
:mod:`referee.check.plan`), and the monitor and the lineup hold the seat itself, so a
wrapper would have to forward the whole seat surface and stay in step with it.  It
overrides only the seat's public methods (``start``, ``request``, ``tell``, ``close``),
calling them back, and observes through the seat's documented parts: the process tree
(``self.child``: ``known_pids``, ``wait_exit``) and the line channel (``self.channel``:
``owes_answers``, ``bytes_waiting``, ``leftover``, ``close_input``), and ``closed``.
Nothing private of the seat is reached, so the seat's stray-output handling can change
without breaking ``check``.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import psutil
import trio

from referee.check.figures import duration
from referee.core import overload as machine
from referee.core.botspec import BotSpec
from referee.core.verdict import BotFault, Verdict
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess
from referee.seats.process.child import describe_status, eof_grace_s

#: How often (seconds) the bot's memory is sampled while it answers; the match's monitor
#: samples 4 times a second, too rarely for a check that lasts a second or two.
SAMPLE_EVERY_S = 0.02
#: After this long without a first answer, say what the check is waiting for.
SLOW_START_NOTICE_S = 5.0
#: Bytes of leftover output read from a bot that has exited.
LEFTOVER_MAX = 1 << 16

# ---------------------------------------------------------------------------- observing the bot


@dataclass
class Stray:
    """Output nobody asked for: seen waiting before a request, or left at the end."""

    after_line: bytes | None
    after_reply: bytes | None
    waiting: int
    #: What it was, when the check could read it (only after the bot has exited: before,
    #: reading it would change what the match sees).
    data: bytes | None = None


@dataclass
class Eof:
    """How the bot ended once its input was closed."""

    exited: bool
    seconds: float
    status: str | None
    clean: bool


#: The checklist item each kind of timed wait counts for.
ITEM_OF_WAIT = {"first answer": "startup", "decision": "time", "exit on EOF": "eof"}


@dataclass
class Overload:
    """What a timed wait for the bot showed of the machine (all in seconds): a late answer
    (or a late exit on EOF) the grading machine caused, not the bot, by
    :func:`referee.core.overload.machine_caused` (issue 28, docs/grading.md)."""

    what: str  #: "decision", "first answer", "exit on EOF": a key of ITEM_OF_WAIT
    wall: float
    limit: float
    cpu: float  #: the bot's CPU meanwhile
    bot_wait: float  #: how long the bot was runnable without a CPU
    referee_wait: float  #: how long the referee was

    @property
    def item(self) -> str:
        """The checklist item's key this wait counts for."""
        return ITEM_OF_WAIT[self.what]

    @property
    def machine_caused(self) -> bool:
        return machine.machine_caused(self.cpu, self.limit, self.wall, self.bot_wait, self.referee_wait)

    def describe(self) -> str:
        return (
            f"{self.what}: it used {duration(self.cpu)} of CPU in {duration(self.wall)} (limit "
            f"{duration(self.limit)}) and waited {duration(self.bot_wait)} for a CPU; the referee waited "
            f"{duration(self.referee_wait)}"
        )


class _Watch:
    """A snapshot of the bot's and the referee's CPU and run delay, to measure a wait.

    Taken before every request, so it reads the processes the bot is known to have
    (cheap); :meth:`end`, at a late answer only, reads the whole tree as it is then (a
    scan of /proc, milliseconds): a process started since counts from its birth."""

    def __init__(self, pids: list[int]) -> None:
        self.began = time.monotonic()
        self.bot = machine.schedstat(pids)
        self.referee = machine.schedstat()

    def end(self, what: str, limit: float, pids: list[int]) -> Overload:
        bot, referee = machine.schedstat(pids), machine.schedstat()
        return Overload(
            what=what,
            wall=time.monotonic() - self.began,
            limit=limit,
            cpu=max(0, bot[0] - self.bot[0]) / 1e9,
            bot_wait=max(0, bot[1] - self.bot[1]) / 1e9,
            referee_wait=max(0, referee[1] - self.referee[1]) / 1e9,
        )


class Recorder:
    """What the check learns about the bot, across all of its processes (restarts included)."""

    def __init__(self, bot_name: str, classify: Callable[[bytes], Sequence[str]]) -> None:
        self.bot_name = bot_name
        self.classify = classify
        #: The bot's processes, in the order they were started.
        self.processes: list[CheckProcess] = []
        #: How many lines of each kind the bot was sent.
        self.kinds: collections.Counter[str] = collections.Counter()

    def saw(self, line: bytes) -> None:
        self.kinds.update(self.classify(line))

    def process_class(self) -> type[CheckProcess]:
        """A :class:`CheckProcess` subclass that reports to this recorder (the match
        creates the processes, so the recorder travels on the class)."""
        return type("RecordedProcess", (CheckProcess,), {"recorder": self})


class CheckProcess(BotProcess):
    """A :class:`BotProcess` that also records what ``referee check`` judges beyond verdicts.

    Only the bot under check is observed (the reference player runs as usual).  Nothing
    here changes what the match sees: output waiting in the pipe is measured with
    FIONREAD, never read, until the bot has exited.
    """

    recorder: ClassVar[Recorder]

    def __init__(self, spec: BotSpec, *args: Any, **kwargs: Any) -> None:
        super().__init__(spec, *args, **kwargs)
        self.watched = spec.name == self.recorder.bot_name
        self.spawned_at: float | None = None
        self.start_error: str | None = None
        #: Seconds from spawn to the first answer: what the startup allowance bounds.
        self.first_answer_s: float | None = None
        #: Every later answer's latency, write to reply, as the match measures it.
        self.latencies_ns: list[int] = []
        #: How long each request that got no answer in time was waited for (a lower bound).
        self.late_ns: list[int] = []
        #: Requests written to it, and those it answered with one line (judged by the match after).
        self.requests = 0
        self.answers = 0
        self.strays: list[Stray] = []
        self.eof: Eof | None = None
        #: Every late wait (decision, first answer, exit on EOF) and what it showed of the machine.
        self.overloads: list[Overload] = []
        self._last: tuple[bytes, bytes] | None = None
        #: A request is out and neither answered nor judged: the check was stopped in it.
        self._pending = False
        self._sampled_at = 0.0
        if self.watched:
            self.recorder.processes.append(self)

    async def start(self, nursery: trio.Nursery) -> None:
        try:
            await super().start(nursery)
        except BotFault as fault:
            self.start_error = fault.detail
            raise
        self.spawned_at = trio.current_time()
        if self.watched and self.limits.startup_s > 2 * SLOW_START_NOTICE_S:
            nursery.start_soon(self._notice_slow_start)

    async def _notice_slow_start(self) -> None:
        """A bot that never flushes waits out the whole allowance (600 s in dice poker):
        say so, once, rather than seem to hang."""
        await trio.sleep(SLOW_START_NOTICE_S)
        if self.alive and self.first_answer_s is None:
            print(
                f"referee check: no first answer from {self.spec.name} after {SLOW_START_NOTICE_S:g} s; "
                f"waiting up to the startup allowance of {self.limits.startup_s:g} s "
                "(--startup-timeout S shortens it)",
                file=sys.stderr,
                flush=True,
            )

    async def request(self, line: bytes) -> bytes:
        if not self.watched:
            return await super().request(line)
        self.recorder.saw(line)
        self._look_for_stray_output()
        self.requests += 1
        first = self.first_answer_s is None
        watch = _Watch(self._known_pids())
        began = time.monotonic_ns()
        self._pending = True
        try:
            reply = await super().request(line)
        except BotFault as fault:  # it goes on to the match, which judges it
            self._pending = False
            if fault.verdict in (Verdict.TIMEOUT, Verdict.CPU, Verdict.STARTUP):
                limit = self.limits.startup_s if first else self.limits.decision_s
                self.overloads.append(watch.end("first answer" if first else "decision", limit, self._pids()))
            if not first and fault.verdict in (Verdict.TIMEOUT, Verdict.CPU):
                # No answer within the limit: its wait is a lower bound of its latency.
                self.late_ns.append(time.monotonic_ns() - began)
            if first and fault.verdict is Verdict.PROTOCOL:
                self._answered_first()  # badly, but in time: that is for another item
            raise
        self._pending = False
        elapsed = time.monotonic_ns() - began
        if first:
            self._answered_first()
        else:
            self.latencies_ns.append(elapsed)
        self.answers += 1
        self._last = (line, reply)
        now = trio.current_time()
        if now - self._sampled_at >= SAMPLE_EVERY_S:
            self._sampled_at = now
            self.sample()
        return reply

    def _known_pids(self) -> list[int]:
        """The bot's processes as the seat last saw them (its supervisor's too: it sleeps):
        no scan of /proc, which costs milliseconds a request."""
        if not self.alive or self.pid < 0:
            return []
        return self.child.known_pids()

    def _pids(self) -> list[int]:
        """The bot's processes now (its supervisor's too: it sleeps)."""
        if not self.alive or self.pid < 0:
            return []
        try:
            return [self.pid, *(p.pid for p in psutil.Process(self.pid).children(recursive=True))]
        except psutil.Error:
            return [self.pid]

    def _answered_first(self) -> None:
        self.first_answer_s = trio.current_time() - (self.spawned_at or 0.0)

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.watched:
            self.recorder.saw(line)
        await super().tell(line, expects_reply)

    def _look_for_stray_output(self) -> None:
        """Before a request is written, nothing should be waiting in the bot's stdout but
        the answers it owes to information lines (dice poker) or a timed-out request."""
        if self._last is None or self.death is not None or self.channel.owes_answers:
            return
        waiting = self.channel.bytes_waiting()
        if waiting and len(self.strays) < 20:
            self.strays.append(Stray(*self._last, waiting=waiting))

    async def close(self) -> None:
        # Not when a stop (Ctrl-C) interrupted a request: the bot is busy, not at its end.
        if self.watched and self.alive and not self.closed and not self._pending:
            with trio.CancelScope(shield=True):
                await self._watch_exit_on_eof()
        await super().close()

    async def _watch_exit_on_eof(self) -> None:
        """Close the bot's input and give it the exit allowance to exit by itself."""
        watch = _Watch(self._pids())
        self.write_held()
        self.channel.close_input()
        began = trio.current_time()
        grace = eof_grace_s(self.limits)
        await self.child.wait_exit(grace)
        if self.exit_status is None:
            overload = watch.end("exit on EOF", grace, self._pids())
            self.overloads.append(overload)
            if overload.machine_caused:
                # Starved, not stuck (issue 28): the exit allowance it would have on a quiet
                # machine, as CPU it could not get — wait up to the match's exit limit.
                await self.child.wait_exit(max(0.0, self.limits.exit_s - grace))
                overload.wall = trio.current_time() - began
        seconds = trio.current_time() - began
        status = self.exit_status
        self.eof = Eof(
            exited=status is not None,
            seconds=seconds,
            status=None if status is None else describe_status(status, self.layer is sandbox.Layer.BWRAP),
            clean=status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
        )
        if status is not None:
            # What the exited bot left in its stdout beyond the answers it owed.
            leftover = self.channel.leftover(LEFTOVER_MAX)
            if leftover:
                last_line, last_reply = self._last or (None, None)
                self.strays.append(Stray(last_line, last_reply, len(leftover), leftover))
