"""The process seat: a bot as a sandboxed child process speaking lines on stdin/stdout.

A :class:`BotProcess` is the referee's only way to talk to a bot.  Its contract:

* ``await bot.request(line)`` writes one line and returns the bot's one-line reply, or
  raises :class:`~referee.core.verdict.BotFault` naming what went wrong.  Every wait in it
  is bounded: the first reply by the startup allowance, later ones by the per-decision
  limit, a bot that does not read its input by the same deadline.
* ``await bot.tell(line)`` sends an information line; if the game says the bot answers
  those, the answer is read and discarded (at once if it comes within the short wait,
  else before the next reply).  With ``hold_tells`` (the game allows it) the line is
  held and written with the next request, its answer read with that reply, or written
  at the close.
* ``bot.kill(verdict, detail)`` ends it at once (the monitor uses it for CPU and memory);
  ``await bot.close()`` ends it for good: EOF on stdin, a short grace, then SIGKILL to
  the process group and a sweep of anything that escaped it, all bounded in time.

It is made of parts, each of which knows nothing of the others:

* :attr:`BotProcess.child` (:class:`~referee.seats.process.child.Child`): the process
  tree in its jail — spawn, kill, reap, CPU, memory and files — and its stderr
  (``child.stderr``, a :class:`~referee.seats.process.stderr.StderrDrain`), kept and quoted;
* :attr:`BotProcess.channel` (:class:`~referee.seats.process.lines.LineChannel`): its
  stdin and stdout as lines — the read buffer, the answers owed, stray output;
* a :class:`~referee.seats.process.slow.SlowAnswers`: the CPU of each slow answer, and
  whether a timeout was the machine's (issue 28).

What is the seat's own is the clock and the verdicts: the deadlines (the startup
allowance for the first answer, the decision limit after it), a late answer awaited
(``Limits.late_s``), the first request's reading (``Limits.first_answer_in_startup``),
when a slow answer is measured, and the words of every
:class:`~referee.core.verdict.BotFault` — a part reports what happened, the seat says
what it means.

The request is the hot path of the whole referee: while the channel is clean it is one
call into C (:func:`referee.seats.process.fastpath.exchange`), made here with the
channel's descriptors, not through a method of it.  When the reply is not back within
the short wait, the channel waits for it in trio up to the deadline the seat gives.
docs/architecture.md ("The hot path") has the figures.

For observers (``referee check``'s :class:`~referee.check.observe.CheckProcess`, which
subclasses this seat) the public surface is :attr:`child` and :attr:`channel`'s
documented methods and :attr:`closed`, on top of the seat's own methods, which it may
override and call back.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.seeding import BOT_SEED_VAR, bot_seed
from referee.core.verdict import BotFault, Verdict, cpu_note
from referee.seats import Seat, SeatUsage, notes_usage
from referee.seats.process import sandbox
from referee.seats.process.child import CannotStart, Child, describe_status, eof_grace_s

# Where the match and the tournament's workers find it: a bot's working directories are swept.
from referee.seats.process.child import sweep_stale_directories as sweep_stale_directories
from referee.seats.process.fastpath import (
    ANSWERED,
    FIRST_ANSWER,
    LATENCY_MAX,
    LATENCY_SUM,
    MAX_OWED,
    START,
    exchange,
    new_counters,
)
from referee.seats.process.lines import (
    ChannelError,
    InputClosed,
    InputFull,
    LineChannel,
    NoReply,
    OutputClosed,
)
from referee.seats.process.monitor import Monitor, shared_monitor
from referee.seats.process.slow import SlowAnswers

_now_ns = time.monotonic_ns  # CLOCK_MONOTONIC, as in the C fast path
#: Yield to the trio scheduler every this many requests.  A prompt bot answers before
#: we ever block, and without a checkpoint the monitor and progress tasks would starve.
_CHECKPOINT_EVERY = 64
#: Bytes of information lines held for the next request (``hold_tells``) at most: beyond
#: it a line is told at once, so that the pipe always takes them whole (and no more
#: answers than the C call takes: ``fastpath.MAX_OWED``).
_HELD_MAX = 4096
#: While waiting for a reply, how often to check that the bot's leader process still runs.
_LEADER_CHECK_S = 0.1
#: How often a bot whose first decision is held to the decision limit
#: (``Limits.first_answer_in_startup`` False) is looked at, until it has read its first
#: request: its decision clock starts when it has.
_READ_POLL_S = 0.001

#: Shown with a bot that gave no first answer: the usual reasons, in order of frequency.
STARTUP_HINT = (
    "usual causes: the answer is not flushed (flush stdout after each line), the input is "
    "buffered (mawk needs -W interactive; Python -u or sys.stdin.readline), or the bot reads all "
    "of stdin before answering (Node: answer in readline's 'line' handler, not on 'end'); "
    "referee check BOT tells more"
)
#: Seconds a bot whose output closed is given to be seen exiting before it is said to
#: have "closed its output but kept running" (and is killed): GONE_WAIT_S, and up to
#: GONE_WAIT_MAX_S while a process of it is still runnable or already dead — exiting,
#: but not yet scheduled to finish, or its supervisor to report it (issue 28: at load
#: 9–16 on 2 cores, 0.5 s called bots that exited with status 0 "kept running").  A bot
#: whose processes all sleep is not exiting: it kept running.  An exit ends the wait.
GONE_WAIT_S = 0.5
GONE_WAIT_MAX_S = 5.0


class BotProcess(Seat):
    """A running bot.  Create, ``await start(nursery)``, talk, ``await close()``.

    The process seat: its sandbox, its limits monitor (one shared per nursery, see
    :mod:`referee.seats.process.monitor`), its stderr capture and its fast path are its own business.
    """

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        *,
        stderr_path: Path | None = None,
        cpu_budget_s: float | None = None,
        layer: sandbox.Layer = sandbox.Layer.RLIMITS,
        allow_root: bool = False,
        monitor: Monitor | None = None,
        seed: int | None = None,
        hold_tells: bool = False,
    ) -> None:
        self.spec = spec
        #: Whether information lines wait to go out with the bot's next line (the game
        #: allows it: ``Game.hold_tells``): one write and one wake-up of the bot for all.
        self.hold_tells = hold_tells
        #: Those lines, and how many of them the bot answers (answers to drop).
        self._held = b""
        self._held_answers = 0
        #: The match's (or tournament's) seed: the bot gets its own, ``$REFEREE_SEED``.
        self.seed = seed
        #: What samples its CPU and memory: its nursery's shared monitor unless one is given.
        self._monitor = monitor
        self.layer = layer
        self.allow_root = allow_root
        self.limits = limits
        self.stderr_path = stderr_path
        #: The process tree in its jail.
        self.child = Child(
            spec,
            limits,
            layer,
            allow_root=allow_root,
            env=None if seed is None else {BOT_SEED_VAR: str(bot_seed(seed, spec.name))},
            cpu_budget_s=cpu_budget_s,
        )
        #: Its stdin and stdout, as lines.
        self.channel = LineChannel(limits.max_line_bytes, limits.decision_s, _LEADER_CHECK_S)
        # The CPU of each slow answer, and whether a timeout was the machine's (issue 28).
        self._slow = SlowAnswers(self.child, limits.decision_s)
        # Accounting, read by the match for results: the C fast path updates it in place.
        self._counters = new_counters()
        # Why the process is gone, once it is.
        self.death: Verdict | None = None
        self.death_detail = ""
        self._late_deadline = 0.0  # when a timed-out request's answer is due at the latest
        # Whether the startup allowance is over before the first answer: its first
        # request has been read (Limits.first_answer_in_startup False only).
        self._ready = False
        self._strict_first = not limits.first_answer_in_startup
        # A first request held to the decision limit goes the careful way (_await_reading).
        self.channel.clean = not self._strict_first
        self._started_at = 0.0
        self._told = 0  # information-line answers read at once (they yield like requests)
        self._closed = False

    # ------------------------------------------------------------------ what the match reads

    @property
    def alive(self) -> bool:
        return self.death is None and self.child.spawned

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has begun."""
        return self._closed

    @property
    def pid(self) -> int:
        """The leader's pid (the supervisor's, under a supervised layer), -1 before start."""
        return self.child.pid

    @property
    def exit_status(self) -> int | None:
        """Its wait status, once it has exited and been reaped."""
        return self.child.exit_status

    @property
    def cpu_s(self) -> float:
        return self.child.cpu_s

    @property
    def peak_rss(self) -> int:
        return self.child.peak_rss

    @property
    def files_bytes(self) -> int:
        """Bytes the bot keeps in files (its private tmpfs, or its working directory)."""
        return self.child.files_bytes

    @property
    def sandbox(self) -> str:
        """What isolation actually ran (the layer, the uid, why anything is missing)."""
        return self.child.description

    @property
    def description(self) -> str:
        return self.child.description

    # Decision statistics live in one int64 array that the C fast path updates in place.
    @property
    def decisions(self) -> int:
        """Requests answered (the first answer included)."""
        return self._counters[ANSWERED]

    @property
    def latency_ns(self) -> int:
        """Summed latency of every answer but the first."""
        return self._counters[LATENCY_SUM]

    @property
    def latency_max_ns(self) -> int:
        return self._counters[LATENCY_MAX]

    @property
    def first_answer_ns(self) -> int:
        """The first answer's latency: it includes the bot's startup work."""
        return self._counters[FIRST_ANSWER]

    # ------------------------------------------------------------------ life

    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the bot.  Raises ``BotFault(STARTUP)`` if it cannot be started."""
        try:
            pipes = await self.child.start(nursery)
        except CannotStart as exc:
            self.kill(Verdict.STARTUP, exc.detail)
            await self.close()  # a sandbox that was not ready: its process stopped
            raise BotFault(Verdict.STARTUP, exc.detail) from None
        self.channel.open(pipes.stdin, pipes.stdout)
        self._started_at = trio.current_time()
        self._slow.started()
        if self._monitor is None:
            self._monitor = shared_monitor(nursery)
        self._monitor.watch(self)

    def kill(self, verdict: Verdict, detail: str) -> None:
        """End the bot now with ``verdict`` (first cause wins).  Synchronous and quick."""
        if self.death is None:
            self.death = verdict
            self.death_detail = detail
        self.child.kill()

    async def close(self) -> None:
        """Stop the bot and everything it started, and reap it; bounded in time."""
        if self._closed:
            return
        self._closed = True
        # Shielded: every step is bounded, and a cancelled close must not leave the bot
        # running (a second close would find _closed set and do nothing).
        with trio.CancelScope(shield=True):
            if self._monitor is not None:
                self._monitor.forget(self)  # one last sample first
            self.write_held()
            self.channel.close_input()  # EOF on its stdin: a well-behaved bot exits now
            survived = await self.child.stop(eof_grace_s(self.limits) if self.alive else None)
            self.channel.close()
            if survived and self.death is None:
                self.death = Verdict.CRASH
                self.death_detail = "did not exit after SIGKILL"
            self.child.stderr.save(self.stderr_path)

    def write_held(self) -> None:
        """Before its input is closed: the information lines still held for a request
        that will not come (the last deal's end), as much as its pipe takes now — it is
        closing, nothing waits for their answers."""
        held, answers = self._take_held()
        if held and self.death is None:
            with contextlib.suppress(InputClosed):
                self.channel.write(held)
                self.channel.owe(answers)  # what it leaves is not stray output

    def _take_held(self) -> tuple[bytes, int]:
        """The information lines held (and how many the bot answers), held no longer."""
        held, answers = self._held, self._held_answers
        self._held, self._held_answers = b"", 0
        return held, answers

    async def ended(self, within: float = 0.0) -> bool:
        if self.death is not None:
            return True
        await self.child.wait_exit(within)
        return self.child.exit_status is not None

    # ------------------------------------------------------------------ I/O

    async def request(self, line: bytes) -> bytes:
        """Send ``line`` and return the reply without its newline."""
        if self.death is not None:
            raise BotFault(self.death, self.death_detail)
        counters = self._counters
        channel = self.channel
        reply: bytes | None = None
        if channel.clean and exchange is not None:
            # The usual case in one C call: write, read, one-line check, latency — with
            # the information lines held for it first, their answers read and dropped.
            # Where lines are held it first looks for output already there (one FIONREAD):
            # an answer to a held line may have had an extra line that a reply was taken
            # from, and this would be the reply behind it — then the careful path below
            # sets it aside and faults this request, and the bot is in step again.
            held, owed = self._held, self._held_answers
            data = held + line if held else line
            result = exchange(
                channel.wfd, channel.rfd, data, channel.max_line, counters, channel.wait_ns, owed,
                self.hold_tells,
            )  # fmt: skip
            if isinstance(result, bytes):
                if held:
                    self._take_held()
                if not counters[ANSWERED] % _CHECKPOINT_EVERY:
                    await trio.lowlevel.checkpoint()
                return result
            if isinstance(result, tuple) and result[0] == 0:
                channel.keep(result[1])  # output before the write: nothing was written
            else:
                if held:
                    self._take_held()
                start = counters[START]
                channel.owe(owed)  # not all read as expected: the careful path drops them
                if isinstance(result, tuple):
                    written, chunk = result
                    if not chunk:
                        raise await self._gone("closed its output")
                    channel.keep(chunk)
                elif result < 0:
                    raise await self._gone("its input pipe is closed")
                else:
                    written = result
                if written != len(data):
                    await self._write_rest(data[written:], start)
                self._slow.watch(start)
                reply = await self._read_line(self._deadline(start))
        if reply is None:
            if self.hold_tells and channel.clean and channel.bytes_waiting():
                channel.clean = False  # as the C call's look first: set aside, faulted
            if self._held:
                await self._release_held()
            if channel.late and self.limits.late_s:
                # Before the clock of this request starts: the late answer, or a hung bot.
                await self._await_late_answer()
            start = _now_ns()
            self._slow.unwatch()
            reply = await self._request_in_python(line, start)
        elapsed = _now_ns() - start
        if counters[ANSWERED]:
            counters[LATENCY_SUM] += elapsed
            if elapsed > counters[LATENCY_MAX] or elapsed >= self._slow.near_ns:
                self._slow.answered(elapsed, counters)
        else:
            counters[FIRST_ANSWER] = elapsed  # includes the bot's startup work: kept apart
        counters[ANSWERED] += 1
        if not counters[ANSWERED] % _CHECKPOINT_EVERY:
            await trio.lowlevel.checkpoint()
        return reply

    async def _request_in_python(self, line: bytes, start: int) -> bytes:
        """The same as the C fast path, for when it is not built or the stream needs care."""
        channel = self.channel
        if not channel.clean:
            channel.clear_before_request()
        await self._send(line, start)
        if self._strict_first and not self._ready and not self._has_answered:
            start = await self._await_reading()
        if channel.clean:
            # A prompt bot's whole reply is usually in the pipe already, or soon is.
            chunk = channel.read_soon(start)
            if chunk:
                reply, newline, rest = chunk.partition(b"\n")  # the cheapest one-line check
                if newline and not rest and len(reply) <= channel.max_line:
                    return reply
                channel.keep(chunk)
            elif chunk is not None:
                raise await self._gone("closed its output")
        self._slow.watch(start)
        return await self._read_line(self._deadline(start))

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        """Send an information line.  Its answer, if the game demands one, is dropped: read
        at once if it comes within the short wait, else owed and skipped before the next
        reply (and then what counts as an extra line or a timeout is as for any reply).
        With :attr:`hold_tells`, on a clean stream of a bot never caught breaking the
        one-line rule, the line is held instead for the next request (:meth:`request`)
        or the close (:meth:`write_held`)."""
        if self.death is not None:
            return
        channel = self.channel
        if (
            self.hold_tells
            and channel.clean
            and not channel.irregular
            and exchange is not None
            and len(self._held) < _HELD_MAX
            and self._held_answers < MAX_OWED
        ):
            # Held for the next request, which writes it first: its answer is read with
            # that request's reply (the order of lines is the bot's as ever).
            self._held += line
            self._held_answers += expects_reply
            return
        if self._held:
            await self._release_held()
        # The clock is read only where a write must wait (a full pipe) or a read follows.
        if not (expects_reply and channel.clean):
            # Nothing to read, or the stream needs care (a late reply, an earlier answer
            # still owed): the answer is owed behind what is already due.
            if not channel.clean:
                channel.set_stray_aside()
            try:  # _send, inline: most information lines go this way (one call fewer)
                written = channel.write(line)
            except InputClosed:
                raise await self._gone("its input pipe is closed") from None
            if written != len(line):
                await self._write_rest(line[written:], _now_ns())
            if expects_reply:
                channel.owe()
            return
        if exchange is not None:
            result = exchange(channel.wfd, channel.rfd, line, channel.max_line, None, channel.wait_ns)
            answered = isinstance(result, bytes)
            if isinstance(result, tuple):
                # Not one clean line (or b"": end of file, which the next read finds again):
                # kept, and the owed-answer bookkeeping below judges it as before.
                channel.keep(result[1])
            elif isinstance(result, int) and result < 0:
                raise await self._gone("its input pipe is closed")
            elif isinstance(result, int) and result != len(line):
                await self._write_rest(line[result:], _now_ns())
        else:
            start = _now_ns()
            await self._send(line, start)
            chunk = channel.read_soon(start)
            answered = bool(chunk and chunk.find(b"\n") == len(chunk) - 1)  # one whole line
            if chunk and not answered:
                channel.keep(chunk)
        if answered:
            # Dropped.  Yield to trio every so often, as requests do (each may have waited
            # up to the short wait).
            self._told += 1
            if not self._told % _CHECKPOINT_EVERY:
                await trio.lowlevel.checkpoint()
            return
        channel.owe()

    async def _release_held(self) -> None:
        """Write the information lines held for the next request now, their answers
        owed: before a line that does not take the fast path, as if each had been told
        and not answered at once."""
        held, answers = self._take_held()
        channel = self.channel
        if not channel.clean:
            channel.set_stray_aside()
        await self._send(held, _now_ns())
        channel.owe(answers)

    async def _send(self, line: bytes, start: int) -> None:
        """Write a whole line, waiting (bounded) while the bot's pipe is full."""
        try:
            written = self.channel.write(line)
        except InputClosed:
            raise await self._gone("its input pipe is closed") from None
        if written != len(line):
            await self._write_rest(line[written:], start)

    async def _write_rest(self, data: bytes, start: int) -> None:
        """The rest of a line begun by a write that took only part of it, by the deadline
        of the request that began at ``start``."""
        try:
            await self.channel.write_rest(data, self._deadline(start))
        except ChannelError as exc:
            raise await self._broken(exc) from None

    async def _read_line(self, deadline: float) -> bytes:
        try:
            try:
                return await self.channel.read_line(deadline, self._look_at_leader)
            except NoReply:
                raise self._timed_out("no reply in time") from None
            except ChannelError as exc:
                raise await self._broken(exc) from None
        except BotFault:
            # Faults found in data already read never wait: yield, or a bot that floods
            # would starve the monitor and every other task for as long as it floods.
            await trio.lowlevel.checkpoint()
            raise

    async def _look_at_leader(self) -> None:
        """Between slices of a wait for the bot: a leader that exits while an orphan holds
        its stdout open never gives end of file, so look whether it has exited."""
        await self.child.wait_exit(0)
        if self.child.exit_status is not None:
            raise await self._gone("exited")

    # ------------------------------------------------------------------ the clock

    @property
    def _has_answered(self) -> bool:
        """Whether any line came back yet: the startup allowance is for the first only,
        even when that line was a protocol fault."""
        return self.channel.replied or bool(self.decisions)

    @property
    def _starting(self) -> bool:
        """Whether the startup allowance still runs: no line came back yet and, where the
        first decision is held to the decision limit, its request is not read yet."""
        return not (self._ready or self._has_answered)

    def _deadline(self, start_ns: int) -> float:
        """The trio-clock deadline of a request that started at ``start_ns``."""
        limits = self.limits
        allowed = limits.decision_s
        if self._starting:
            # The first answer: what is left of the startup allowance, but at least one
            # decision's time (a seat first asked late must still get its turn) — and
            # never more than the allowance itself, when it is the shorter of the two.
            since_spawn = trio.current_time() - self._started_at
            allowed = max(limits.startup_s - since_spawn, min(allowed, limits.startup_s))
        return trio.current_time() + allowed - (_now_ns() - start_ns) / 1e9

    def _timed_out(self, what: str) -> BotFault:
        if self._starting:
            detail = (
                f"{what}: no first answer within the startup allowance of {self.limits.startup_s:g} s "
                f"({STARTUP_HINT}){self.child.stderr.note()}"
            )
            wall_ns = int((trio.current_time() - self._started_at) * 1e9)
            machine = self._slow.startup_timed_out(wall_ns, self.limits.startup_s)
            self.kill(Verdict.STARTUP, detail)
            return BotFault(Verdict.STARTUP, detail, overload=machine)
        detail = f"{what} (limit {self.limits.decision_s:g} s)"
        cpu_ns, machine = self._slow.timed_out(self.limits.decision_s)
        if cpu_ns >= 0:
            # Whether the bot was computing, or waiting: starved (a busy machine), blocked.
            detail += cpu_note(cpu_ns / 1e9)
        if self.channel.late:
            # It still owes the reply to the previous timed-out request: it is hung.
            self.kill(
                Verdict.TIMEOUT, f"{detail}; still no answer to the previous request, so it was stopped"
            )
        else:
            # A slow bot may still answer; that late reply is read and dropped (awaited
            # before its next request, up to Limits.late_s, where the game says so).
            self.channel.owe_late()
            self._late_deadline = trio.current_time() + self._late_wait_s
        return BotFault(Verdict.TIMEOUT, detail, overload=machine)

    @property
    def _late_wait_s(self) -> float:
        """How long a timed-out answer is awaited: ``Limits.late_s``, at most the startup
        allowance (``--startup-timeout`` shortens both)."""
        return min(self.limits.late_s, self.limits.startup_s)

    async def _await_late_answer(self) -> None:
        """Before the next request to a bot whose last answer timed out: wait for that
        late answer (until :attr:`_late_wait_s` after the timeout) and drop it, so that
        a bot slow once loses one decision, not the next one too, and keeps running with
        its memory (seed 001: each slow decision costs a die; bot objects persist).  A
        bot that has not given it by then is hung: stopped, and this request is a
        ``timeout`` — or ``startup``, with the usual causes, when the process has never
        answered at all (an unflushed answer looks just like this).  Its other output is
        judged by the request, as before."""
        try:
            await self.channel.skip_late(self._late_deadline, self._look_at_leader)
        except NoReply:
            waited = f"{self._late_wait_s:g} s after it timed out (limit {self.limits.decision_s:g} s)"
            if self._has_answered:
                verdict = Verdict.TIMEOUT
                detail = f"still no answer to the previous request {waited}, so it was stopped"
            else:
                verdict = Verdict.STARTUP
                detail = (
                    f"no answer at all since it started: none to its first request {waited}, "
                    f"so it was stopped ({STARTUP_HINT}){self.child.stderr.note()}"
                )
            self.kill(verdict, detail)
            raise BotFault(verdict, detail) from None
        except ChannelError as exc:
            raise await self._broken(exc) from None

    async def _await_reading(self) -> int:
        """A first request held to the decision limit (``Limits.first_answer_in_startup``
        False), written: the startup allowance lasts until the bot has read everything
        written to it, that request included — a bot reads its first request once it
        has started.  Returns the time (``_now_ns``) its decision clock starts.  A seat
        first asked after the allowance has run out still has one decision's time to
        read (as :meth:`_deadline` gives it to answer)."""
        limits = self.limits
        deadline = max(
            self._started_at + limits.startup_s,
            trio.current_time() + min(limits.decision_s, limits.startup_s),
        )
        look_again = trio.current_time() + _LEADER_CHECK_S
        while self.channel.unread_input():  # None: the read that follows finds out what happened
            now = trio.current_time()
            if now >= deadline:
                raise self._timed_out("did not read its first request")
            if now >= look_again:
                await self._look_at_leader()
                look_again = now + _LEADER_CHECK_S
            await trio.sleep(min(_READ_POLL_S, deadline - now))
        self._ready = True
        return _now_ns()

    # ------------------------------------------------------------------ faults

    async def _broken(self, exc: ChannelError) -> BotFault:
        """The fault of a pipe that broke (``exc`` from the channel): the bot closed its
        output or its input, or stopped reading its input."""
        if isinstance(exc, InputFull):
            # Part of a line is in the pipe and no reply can be matched to it any more:
            # the bot cannot go on (unlike a slow reply, which is resynced).
            verdict = Verdict.STARTUP if self._starting else Verdict.TIMEOUT
            detail = f"did not read its input (limit {self.limits.decision_s:g} s)"
            if not self._starting:
                self._slow.keep(int(self.limits.decision_s * 1e9), -1, True)
            self.kill(verdict, detail)
            return BotFault(verdict, detail)
        assert isinstance(exc, InputClosed | OutputClosed), exc
        return await self._gone(
            "its input pipe is closed" if isinstance(exc, InputClosed) else "closed its output"
        )

    async def _gone(self, what: str) -> BotFault:
        """The bot's pipes broke: find out why (briefly), mark it dead, return the fault."""
        child = self.child
        if self.death is None:
            await child.wait_exit(GONE_WAIT_S)
            if child.exit_status is None and child.may_be_exiting():
                await child.wait_exit(GONE_WAIT_MAX_S - GONE_WAIT_S)
            if child.exit_status is None:
                self.kill(Verdict.CRASH, f"{what} but kept running")
            else:
                verdict = Verdict.CRASH
                detail = describe_status(child.exit_status, self.layer is sandbox.Layer.BWRAP)
                if child.setup_error:
                    detail = f"cannot start: {child.setup_error}"
                if detail == "killed by SIGXCPU":
                    verdict = Verdict.CPU
                    detail += " (the kernel CPU-time limit)"
                elif child.oom_killed():
                    verdict = Verdict.MEMORY
                    cap = self.limits.memory_bytes
                    detail += (
                        f" by the kernel: over its memory cap of {cap >> 20} MiB (cgroup)"
                        if cap is not None
                        else " by the kernel: out of memory (cgroup)"
                    )
                if not self._has_answered:
                    detail += " before its first answer"
                self.kill(verdict, detail + self.child.stderr.note())
        return BotFault(self.death or Verdict.CRASH, self.death_detail)

    # ------------------------------------------------------------------ accounting

    def usage(self) -> SeatUsage:
        # Notes written before the last answer are in the pipe already; the drain task
        # may not have run since (the fast path yields every few answers).  An empty
        # pipe's read: 1.2 µs (timeit).
        if self.child.stderr.fd >= 0:
            self.child.stderr.take(reads=4)
        counters = self._counters
        notes = self.child.stderr.notes
        return SeatUsage(
            cpu_s=self.child.cpu_s,
            peak_rss_bytes=self.child.peak_rss,
            decisions=counters[ANSWERED],
            latency_ns_total=counters[LATENCY_SUM],
            latency_ns_max=counters[LATENCY_MAX],
            first_answer_ns=counters[FIRST_ANSWER],
            answered=self._has_answered,
            slowest_cpu_ns=self._slow.slowest_cpu_ns(counters[LATENCY_MAX]),
            slow_answers=self._slow.count,
            slow_details=list(self._slow.kept),
            **notes_usage(notes.counts, notes.examples),
        )

    def new_stretch(self) -> None:
        self._counters[LATENCY_MAX] = 0
        self._slow.new_stretch()

    def sample(self) -> None:
        """Update CPU and memory from the whole process tree (called by the monitor), and
        stop the bot if it is over a cap (:meth:`Child.sample`)."""
        if self.death is not None:
            return
        over = self.child.sample()
        if over is not None:
            self.kill(*over)

    def stderr_text(self) -> str:
        return self.child.stderr.text()

    def __repr__(self) -> str:
        return f"<BotProcess {self.spec.name} pid={self.pid} death={self.death}>"


__all__ = ["BotProcess", "sweep_stale_directories"]
