"""A bot's stdin and stdout as lines: write one, read one back, with deadlines.

A :class:`LineChannel` holds the two pipe descriptors and everything the stream itself
must remember between two requests:

* the bytes read but not yet used (a reply that came in pieces, output after it);
* the answers the bot owes and that nobody will use — to information lines the game
  says it answers, and to a request that timed out (the *late* answer) — which are
  read and dropped before the next reply is looked for;
* the rest of an over-long line, skipped as it arrives (memory stays bounded);
* output found beyond the owed answers before a line was written (*stray* output), set
  aside for the next request to fault: it cannot be that request's reply;
* whether none of that needs attention: :attr:`LineChannel.clean`.

While the stream is clean a request is one call into C
(:func:`referee.seats.process.fastpath.exchange`).  That call is not a method here: its
owner makes it itself with :attr:`~LineChannel.wfd`, :attr:`~LineChannel.rfd`,
:attr:`~LineChannel.max_line` and :attr:`~LineChannel.wait_ns`, since a Python call
around it would cost more than the rest of the request (docs/architecture.md, "The hot
path"), and hands back with :meth:`~LineChannel.keep` whatever it read that was not one
clean line.  Everything else is here: the pure-Python equivalent (:meth:`~LineChannel.write`,
:meth:`~LineChannel.read_soon`), and the careful path for when the stream is not clean or
the reply is not back within the short wait (:meth:`~LineChannel.read_line`).

The channel judges the shape of what comes back — more than one line, or a line over the
limit, is a :class:`~referee.core.verdict.BotFault` with verdict ``PROTOCOL`` whoever asks
— and nothing else.  What it cannot do it raises as its own exceptions, for the owner to
judge: :class:`NoReply` (nothing by the deadline: a timeout, or a failed start, by the
owner's clock), :class:`OutputClosed` and :class:`InputClosed` (a crash, or an exit,
once the owner has looked at the process), :class:`InputFull` (the bot stopped reading).
It knows nothing of processes: while it waits it calls its owner back every
:attr:`~LineChannel.quiet_s` of silence (a ``quiet`` hook), since a bot whose leader
exited while an orphan holds its stdout never gives end of file.

For observers (``referee check``) it says, without reading, what waits in the pipe
(:meth:`~LineChannel.bytes_waiting`) and whether answers are owed
(:attr:`~LineChannel.owes_answers`), and what an exited bot left beyond them
(:meth:`~LineChannel.leftover`).
"""

from __future__ import annotations

import array
import fcntl
import os
import select
import termios
import time
from collections.abc import Awaitable, Callable

import trio

from protocol.lines import show
from referee.core.verdict import BotFault, Verdict

_READ_SIZE = 1 << 16
_NEWLINE = b"\n"
_now_ns = time.monotonic_ns  # CLOCK_MONOTONIC, as in the C fast path
_read = os.read
_write = os.write
_yield = getattr(os, "sched_yield", lambda: None)

#: How long a request (or an answered information line) waits for the reply right after
#: its write, blocking, before it falls back to trio's ``wait_readable`` with the real
#: deadline.  On one core the bot has often not run yet when we first read (over half
#: the time with an instant C bot); blocking hands it the core and takes its reply
#: ~8.5 µs later, where a fall-back to trio costs ~40 µs of wall time.  The cost: the
#: wait holds up the whole trio loop, so every other task (the limits monitor, stderr
#: drains, the other bots of a simultaneous move) may be delayed by up to this much per
#: request, and by up to the owner's checkpoint interval times it between two yields if
#: a bot always answers just within it.  1 ms catches all but ~1 in 50,000 of an instant
#: bot's misses (a descheduling: p99.9 is 23 µs) and the replies of bots that take up
#: to 1 ms, which still save the ~40 µs; a slower bot gains nothing and loses nothing
#: but that 1 ms of loop time.  It is also the finest wait ``select.poll`` (the
#: pure-Python path) can do.  A signal ends the wait at once.  Measured in
#: docs/architecture.md ("The hot path").  Before it, the core is yielded once
#: (``sched_yield``): the bot may already be runnable there, and a timed wait arms and
#: cancels a timer, which costs ~2.5 µs a miss on this project's VM.
REPLY_WAIT_S = 0.001

#: ``quiet()``: the owner's look at its process between slices of a wait; it raises to
#: end the wait (the process is gone), or returns to go on waiting.
Quiet = Callable[[], Awaitable[None]]


class ChannelError(Exception):
    """What the channel could not do; its owner says what it means for the bot."""


class NoReply(ChannelError):
    """No line came by the deadline."""


class OutputClosed(ChannelError):
    """The bot's stdout ended: end of file, or a read error."""


class InputClosed(ChannelError):
    """A write to the bot's stdin failed: its end is closed."""


class InputFull(ChannelError):
    """The bot did not read its input by the deadline, and part of a line is in the
    pipe: no reply can be matched to a line any more."""


class LineChannel:
    """The line I/O of one bot: its stdin and stdout pipes, their read buffer and the
    answers owed.  Made before the process exists; :meth:`open` gives it the pipes.

    ``max_line`` is the longest reply (bytes, newline excluded); the short wait for a
    reply is :data:`REPLY_WAIT_S`, never more than ``longest_wait_s`` (the decision
    limit); ``quiet_s`` is how often a long wait calls its ``quiet`` hook.
    """

    def __init__(self, max_line: int, longest_wait_s: float, quiet_s: float) -> None:
        #: The bot's stdin (written) and stdout (read), nonblocking; -1 once closed.
        self.wfd = -1
        self.rfd = -1
        self.max_line = max_line
        wait_s = min(REPLY_WAIT_S, longest_wait_s)
        #: The short wait for a reply, in the C fast path's unit.
        self.wait_ns = int(wait_s * 1e9)
        self._wait_ms = wait_s * 1e3  # select.poll's unit (it rounds up to whole ms)
        self._poller = select.poll()  # the pure-Python path's short wait, on stdout
        self.quiet_s = quiet_s
        #: True while nothing below needs attention (nothing buffered, owed, skipped or
        #: set aside): a request may take the fast path.  Set again whenever a line is
        #: read cleanly; its owner may clear it to send the next request the careful way.
        self.clean = True
        #: Answers to read and drop before the next reply: to information lines, and to
        #: a request that timed out.
        self.owed = 0
        #: Whether one of those is a timed-out request's answer, not read yet.
        self.late = False
        #: Whether any line came back yet — a faulty one too (over-long, one too many).
        self.replied = False
        #: Whether the bot ever broke "one line back for each line": more than one line,
        #: one over the limit, or output beyond what it owed.  Its owner then tells it
        #: each information line apart (never held for the next request), so that an
        #: answer's extra line is faulted as such, not read as the next reply.
        self.irregular = False
        self._buf = b""
        self._discarding = False  # skipping the rest of an over-long line
        self._stray = b""  # output beyond the owed answers, found before a line was written
        self._overlong = b""  # the start of an owed answer found over the line limit, to fault

    def open(self, wfd: int, rfd: int) -> None:
        """Take the bot's stdin (write end) and stdout (read end), both nonblocking."""
        self.wfd, self.rfd = wfd, rfd
        self._poller.register(rfd, select.POLLIN)

    # ------------------------------------------------------------------ what the stream owes

    def keep(self, chunk: bytes) -> None:
        """What a read outside the channel (the C fast path) got that was not one clean
        line: the careful path reads on from it."""
        self._buf = chunk
        self.clean = False

    def owe(self, count: int = 1) -> None:
        """``count`` more answers to drop: the bot answers the information lines just sent,
        and those answers were not read at once (none: nothing changes)."""
        if count:
            self.owed += count
            self.clean = False

    def owe_late(self) -> None:
        """A request timed out: its answer, if it ever comes, is owed and dropped."""
        self.late = True
        self.owed += 1
        self.clean = False

    @property
    def owes_answers(self) -> bool:
        """Whether answers are owed (or an over-long line is being skipped): output in the
        pipe now is not necessarily stray."""
        return bool(self.owed or self._discarding)

    @property
    def buffered(self) -> bytes:
        """What was read and not used yet (bounded by the line limit)."""
        return self._buf

    # ------------------------------------------------------------------ writing

    def write(self, line: bytes) -> int:
        """Write what the pipe takes of ``line`` now, without waiting, and return how much
        that was (the rest goes with :meth:`write_rest`, as after the C fast path's
        partial write).  Raises :class:`InputClosed`."""
        try:
            return _write(self.wfd, line)
        except BlockingIOError:
            return 0
        except OSError:
            raise InputClosed from None

    async def write_rest(self, data: bytes, deadline: float) -> None:
        """Write what is left of a line, waiting (until the trio-clock ``deadline``) while
        the bot's pipe is full.  Raises :class:`InputClosed` or :class:`InputFull`."""
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.wfd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise InputClosed from None
            with trio.move_on_at(deadline) as scope:
                await trio.lowlevel.wait_writable(self.wfd)
            if scope.cancelled_caught:
                raise InputFull

    # ------------------------------------------------------------------ reading

    def _read_now(self) -> bytes | None:
        """What the pipe holds now: None if nothing, b"" at end of file or on an error."""
        try:
            return _read(self.rfd, _READ_SIZE)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def read_soon(self, start: int) -> bytes | None:
        """What the bot's stdout holds now or after the short wait, as in the C fast path
        (a line begun is read on to its newline within the wait): None if nothing came
        (the caller falls back to :meth:`read_line`), b"" at end of file or on a read
        error.  A signal's Python handler runs during the wait (PEP 475), and an
        exception it raises ends the wait."""
        chunk = self._read_now()
        if chunk is None and self._wait_ms:
            # As the C fast path: the core to the bot first, then the timed wait.
            _yield()
            chunk = self._read_now()
            if chunk is None and self._poller.poll(self._wait_ms):
                chunk = self._read_now()
        if chunk is None:
            return None
        if chunk and _NEWLINE not in chunk and self._wait_ms:
            chunk = self._finish_line(chunk, start)
        return chunk

    def _finish_line(self, chunk: bytes, start: int) -> bytes:
        """A reply that began without its newline (text and newline written apart, as
        ``python -u`` does): read on until the newline, end of file or the short wait's
        deadline, as the C fast path does (finish_line)."""
        deadline = start + self.wait_ns
        while b"\n" not in chunk and len(chunk) <= self.max_line:
            left_ms = -(-(deadline - _now_ns()) // 1_000_000)
            if left_ms <= 0 or not self._poller.poll(left_ms):
                break
            try:
                more = _read(self.rfd, _READ_SIZE)
            except BlockingIOError:
                continue
            except OSError:
                break
            if not more:
                break  # end of file: the next read reports it
            chunk += more
        return chunk

    async def read_line(self, deadline: float, quiet: Quiet) -> bytes:
        """The reply, once the owed answers before it are dropped: one line, without its
        newline, by the trio-clock ``deadline``.

        Raises :class:`NoReply` when the deadline passes, :class:`OutputClosed` at end of
        output, and ``BotFault(PROTOCOL)`` for more than one line or a line over the
        limit (over the limit without a newline, the rest of it is skipped as it comes).
        Every :attr:`quiet_s` without output it awaits ``quiet()``, which may raise."""
        buf = self._buf
        try:
            while True:
                if self._discarding or self.owed:
                    buf = self._skip_lines(buf)
                    if self._overlong:
                        self._buf = buf
                        self._refuse_overlong_answer()
                if not self._discarding and not self.owed:
                    nl = buf.find(b"\n")
                    if nl >= 0:
                        self.replied = True
                        line = buf[:nl]
                        rest = buf[nl + 1 :]
                        self._buf = b""
                        self.late = False
                        if rest:
                            # The stray line is usually the first (debugging output, then the
                            # answer): show both, the first first.
                            raise self._irregular(
                                f"printed more than one line: {show(line, 80)} and then "
                                f"{show(rest.rstrip(_NEWLINE), 80)} (write debugging output to stderr)",
                                line + b"\n" + rest,
                            )
                        if len(line) > self.max_line:
                            raise self._irregular(f"reply longer than {self.max_line} bytes")
                        return line
                    if len(buf) > self.max_line:
                        self._buf = b""
                        self._discarding = True
                        raise self._irregular(
                            f"reply longer than {self.max_line} bytes without a newline", buf[:200]
                        )
                self._buf = buf  # kept if the wait below ends in an exception
                chunk = await self._next_chunk(deadline, quiet)
                buf = buf + chunk if buf else chunk
        finally:
            self.clean = not self._buf and not self.owed and not self._discarding

    async def skip_late(self, deadline: float, quiet: Quiet) -> None:
        """Read and drop the owed answers up to the late one (:attr:`late`), waiting for
        it until the trio-clock ``deadline``; what comes after it stays for the next
        reply.  Raises :class:`NoReply` once the deadline has passed,
        :class:`OutputClosed` at end of output, ``BotFault(PROTOCOL)`` for an owed answer
        over the line limit; awaits ``quiet()`` after every :attr:`quiet_s` of silence."""
        buf = self._buf
        while True:
            buf = self._skip_lines(buf)
            self._buf = buf
            if self._overlong:
                self._refuse_overlong_answer()
            if not self.late:
                self.clean = not buf and not self.owed and not self._discarding
                return
            chunk = await self._next_chunk(deadline, quiet)
            buf = buf + chunk if buf else chunk

    async def _next_chunk(self, deadline: float, quiet: Quiet) -> bytes:
        """What the bot writes next (never empty), by the trio-clock ``deadline``: read at
        once, or waited for in slices of :attr:`quiet_s`, awaiting ``quiet()`` after each
        silent one — a leader that exits while an orphan holds its stdout open never
        gives end of file, so the owner looks at it between slices.  Raises
        :class:`NoReply` once the deadline has passed, :class:`OutputClosed` at end of
        output or on a read error (the buffer is then emptied)."""
        while True:
            try:
                chunk = os.read(self.rfd, _READ_SIZE)
            except BlockingIOError:
                with trio.move_on_at(min(deadline, trio.current_time() + self.quiet_s)) as scope:
                    await trio.lowlevel.wait_readable(self.rfd)
                if scope.cancelled_caught:
                    if trio.current_time() >= deadline:
                        raise NoReply from None
                    await quiet()
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._buf = b""
                raise OutputClosed
            return chunk

    # ------------------------------------------------------------------ stray output

    def set_stray_aside(self) -> None:
        """Before a line is written to a bot that owes answers: read what its stdout
        already holds (one read, without waiting), skip the answers owed, and set aside
        what is beyond them (bounded) for the next request to fault.  None of it can be
        the reply to what is about to be written: read only after a request, an
        information line's second line would be taken as the request's reply; counted
        as the next information line's answer, that answer would be."""
        try:
            chunk = os.read(self.rfd, _READ_SIZE)
        except OSError:  # nothing there (or an error the read after the write meets)
            chunk = b""
        buf = self._skip_lines(self._buf + chunk if self._buf else chunk)
        if buf and not self.owed and not self._discarding:
            if not self._stray:
                self._stray = buf[: self.max_line]
            buf = b""
        self._buf = buf

    def clear_before_request(self) -> None:
        """Before a request is written to a stream that is not clean: set aside what it
        holds beyond the owed answers (:meth:`set_stray_aside`), and fault this request
        (``BotFault(PROTOCOL)``) for an owed answer over the line limit or for stray
        output — which came before the request, so it cannot be its reply."""
        self.set_stray_aside()
        if self._overlong:
            self._refuse_overlong_answer()
        if self._stray:
            self._refuse_stray_output()

    def _refuse_stray_output(self) -> None:
        """What the bot wrote beyond the answers it owed (an information line answered
        with two lines): drop it and fault this decision, or the bot would stay one
        reply behind for the rest of its life."""
        stray, self._stray = self._stray, b""
        raise self._irregular(
            f"printed more than one line: {show(stray.rstrip(_NEWLINE), 80)} came before this request, "
            "beyond the answers it owed (write debugging output to stderr)",
            stray,
        )

    def _refuse_overlong_answer(self) -> None:
        """An answer owed (to an information line, or a request that timed out) passed
        the line limit without a newline: a protocol fault now, as for a reply, not a
        timeout once the bot has flooded for the whole decision."""
        start, self._overlong = self._overlong, b""
        raise self._irregular(
            f"an answer it owed (to an information line or a late request) is longer than "
            f"{self.max_line} bytes without a newline",
            start,
        )

    def _irregular(self, detail: str, reply: bytes | None = None) -> BotFault:
        """The protocol fault of output that broke "one line back for each line" (a line
        came back, if a faulty one: :attr:`replied`; :attr:`irregular` from now on)."""
        self.replied = True
        self.irregular = True
        return BotFault(Verdict.PROTOCOL, detail, reply)

    def _skip_lines(self, buf: bytes) -> bytes:
        """Drop the rest of an over-long line and the answers owed.  An owed answer that
        passes the line limit is dropped like an over-long reply and kept aside (its
        start) in ``_overlong`` for the caller to fault."""
        while self._discarding or self.owed:
            nl = buf.find(b"\n")
            if nl < 0:
                if self._discarding:
                    return buf[-1:]  # keep memory bounded while skipping a flood
                if len(buf) > self.max_line:
                    self._overlong = buf[:200]
                    self.owed -= 1
                    if not self.owed:
                        self.late = False
                    self._discarding = True
                    return buf[-1:]
                return buf
            buf = buf[nl + 1 :]
            if self._discarding:
                self._discarding = False
            else:
                self.owed -= 1
                if not self.owed:  # the late answer, if any, was among the owed lines
                    self.late = False
        return buf

    # ------------------------------------------------------------------ looking without reading

    def unread_input(self) -> int | None:
        """Bytes written to the bot that it has not read yet (FIONREAD on its stdin);
        None if the pipe cannot say (closed: the next write or read finds out why)."""
        try:
            return _unread(self.wfd)
        except OSError:
            return None

    def bytes_waiting(self) -> int:
        """Bytes the bot wrote that wait in its stdout, unread (FIONREAD: nothing is
        taken); 0 once the pipe is closed."""
        if self.rfd < 0:
            return 0
        try:
            return _unread(self.rfd)
        except OSError:
            return 0

    def leftover(self, limit: int) -> bytes:
        """What the bot left in its stdout beyond the answers it owed (at most about
        ``limit`` bytes read).  This reads the pipe: for a bot that has exited, as
        before that it would take what the next request must find."""
        data = self._buf
        while len(data) < limit:
            try:
                chunk = os.read(self.rfd, limit)
            except OSError:  # BlockingIOError: nothing more (a child may hold the pipe)
                break
            if not chunk:
                break
            data += chunk
        for _ in range(self.owed + (1 if self._discarding else 0)):
            _, newline, data = data.partition(b"\n")
            if not newline:
                return b""
        return data

    # ------------------------------------------------------------------ closing

    def close_input(self) -> None:
        """Close the bot's stdin: it reads end of file."""
        fd, self.wfd = self.wfd, -1
        _close(fd)

    def close(self) -> None:
        """Close both pipes (a second call does nothing)."""
        self.close_input()
        fd, self.rfd = self.rfd, -1
        _close(fd)


def _unread(fd: int) -> int:
    """Bytes in a pipe not read yet (FIONREAD)."""
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


def _close(fd: int) -> None:
    """Close ``fd`` (telling trio first: a task may wait on it), unless it is -1."""
    if fd >= 0:
        trio.lowlevel.notify_closing(fd)
        os.close(fd)


__all__ = [
    "REPLY_WAIT_S",
    "ChannelError",
    "InputClosed",
    "InputFull",
    "LineChannel",
    "NoReply",
    "OutputClosed",
    "Quiet",
]
