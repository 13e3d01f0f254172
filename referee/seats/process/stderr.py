"""A bot's stderr: drained as it comes, kept bounded (its head and its tail), quoted in verdicts.

A bot may write anything to stderr — a debugging trace of gigabytes, one line of a MiB —
so the process seat keeps only the first and the last half of its cap
(:class:`StderrCapture`) and a verdict quotes only the last few lines
(:func:`stderr_tail`).  :class:`StderrDrain` is the pipe's reader: a task of its own
takes what comes, and whoever is about to quote the bot (a verdict, the usage figures,
the close) takes what is still in the pipe first.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from protocol.notes import NoteReader
from referee.core.verdict import printable

_READ_SIZE = 1 << 16

#: How much of a dead bot's stderr its verdict quotes.
STDERR_TAIL_LINES = 3
STDERR_TAIL_CHARS = 300


def stderr_tail(text: str, lines: int = STDERR_TAIL_LINES, chars: int = STDERR_TAIL_CHARS) -> str:
    """The last non-blank lines of ``text``, joined with " | ", at most ``chars`` long."""
    # Only the end matters: cut before the work (a bot's stderr may be a MiB on one line).
    text = text[-(4 * chars) :]
    # Python 3.11's ~~~^^^ markers under a traceback's line say nothing in one line.
    kept = [line.strip() for line in text.splitlines() if line.strip(" \t~^")][-lines:]
    joined = printable(" | ".join(kept))
    return joined if len(joined) <= chars else "…" + joined[-(chars - 1) :]


class StderrCapture:
    """Keeps the first and the last ``cap/2`` bytes of a stream, counting what was cut."""

    def __init__(self, cap: int) -> None:
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    def last(self, n: int) -> bytes:
        """About the last ``n`` bytes written (from the tail once there is one)."""
        return bytes((self.tail or self.head)[-n:])

    def render(self) -> bytes:
        tail = bytes(self.tail[-self.half :])
        cut = self.total - len(self.head) - len(tail)
        if cut <= 0:
            return bytes(self.head) + tail
        note = f"\n[referee: {cut} bytes of stderr cut here; kept the first {len(self.head)} and the last {len(tail)}]\n"
        return bytes(self.head) + note.encode() + tail


class StderrDrain:
    """The read end of a bot's stderr pipe: what it holds is kept in :attr:`capture`
    (bounded) and its ``referee-note:`` lines counted in :attr:`notes`
    (:mod:`protocol.notes`).  :meth:`run` is the task that drains it as it comes;
    :meth:`finish` takes the rest and closes the pipe."""

    def __init__(self, cap: int) -> None:
        self.capture = StderrCapture(cap)
        self.notes = NoteReader()
        self.fd = -1
        self._scope = trio.CancelScope()

    def open(self, fd: int) -> None:
        """Take the read end of the pipe (nonblocking)."""
        self.fd = fd

    async def run(self) -> None:
        """Drain the pipe until it ends or :meth:`finish` is called."""
        with self._scope:
            # Wait between batches also while it floods: other tasks must run meanwhile.
            while self.take():
                await trio.lowlevel.wait_readable(self.fd)

    def take(self, reads: int = 16) -> bool:
        """Keep what the pipe holds now (at most ``reads`` reads); False once it has ended
        (end of file, or the pipe is gone)."""
        for _ in range(reads):
            try:
                data = os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            self.capture.feed(data)
            self.notes.feed(data)
        return True

    def note(self) -> str:
        """``; stderr: <its last lines>`` for a verdict's detail, or "" if it wrote none.

        Reads what is still in the pipe first (bounded): the drain task may not have run
        since the bot wrote its dying words."""
        self.take()
        tail = stderr_tail(self.capture.last(4 * STDERR_TAIL_CHARS).decode("utf-8", "replace"))
        return f"; stderr: {tail}" if tail else ""

    def text(self) -> str:
        """Everything kept, as text."""
        return self.capture.render().decode("utf-8", "replace")

    def finish(self) -> None:
        """The bot is gone: keep what the pipe still holds (bounded: the drain task may not
        have run since its last words), stop the task, close the pipe."""
        self.take(reads=64)
        self.notes.finish()
        self._scope.cancel()
        fd, self.fd = self.fd, -1
        if fd >= 0:
            trio.lowlevel.notify_closing(fd)
            os.close(fd)

    def save(self, path: Path | None) -> None:
        """Append what was kept to ``path`` (made private), if it wrote anything."""
        if path is None or self.capture.total == 0:
            return
        try:
            # Private: a bot's stderr may say things other users of the machine should not read.
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(path, "ab") as fh:
                fh.write(self.capture.render())
        except OSError:
            pass  # losing a bot's stderr must not stop the match or leave bots running
