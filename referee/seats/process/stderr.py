"""A bot's stderr: kept bounded (its head and its tail), and quoted in verdicts.

A bot may write anything to stderr — a debugging trace of gigabytes, one line of a MiB —
so the process seat keeps only the first and the last half of its cap
(:class:`StderrCapture`) and a verdict quotes only the last few lines
(:func:`stderr_tail`).
"""

from __future__ import annotations

from referee.core.verdict import printable

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
