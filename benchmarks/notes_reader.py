"""What a bot's notes cost the referee (protocol/notes.py; docs/records.md, "Notes").

    python benchmarks/notes_reader.py

Every chunk of a bot's stderr goes through the note reader as well as the stderr
capture, so a hostile bot's stderr must not cost the referee much more than it costs the
bot to write it.  Printed, per kind of stream fed in 64 KiB chunks: MB/s through
``NoteReader.feed``, beside ``StderrCapture.feed`` on plain text:

* plain text (no notes): what every bot pays;
* the first 100,000 note lines, well-formed, then malformed: parsed one by one, the most
  a bot life can make the referee parse (``PARSED_MAX``);
* note lines past that cap: counted in bulk, in C;
* the prefix repeated in the middle of lines: never looked at (only line starts are).

Nothing is asserted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.notes import PARSED_MAX, PREFIX, NoteReader
from referee.seats.process.stderr import StderrCapture

CHUNK = 1 << 16


def chunks(line: bytes, total: int) -> list[bytes]:
    data = line * (total // len(line) + 1)
    return [data[i : i + CHUNK] for i in range(0, total, CHUNK)]


def rate(feed, parts: list[bytes]) -> tuple[float, float]:
    """(MB/s, seconds) to feed ``parts``."""
    start = time.perf_counter()
    for part in parts:
        feed(part)
    seconds = time.perf_counter() - start
    return sum(map(len, parts)) / seconds / 1e6, seconds


def main() -> None:
    plain = chunks(b"some debugging output of a bot, one line of it\n", 64 << 20)
    capture = StderrCapture(1 << 20)
    print(f"StderrCapture, plain text:              {rate(capture.feed, plain)[0]:9.0f} MB/s")
    print(f"NoteReader, plain text:                 {rate(NoteReader().feed, plain)[0]:9.0f} MB/s")
    for label, line in (
        ("well-formed", b"referee-note: fallback game 3\n"),
        ("malformed", b"referee-note: !\n"),
    ):
        first = chunks(line, PARSED_MAX * len(line))
        reader = NoteReader()
        mbs, seconds = rate(reader.feed, first)
        print(
            f"NoteReader, first {PARSED_MAX} {label + ' notes:':17s}{mbs:9.0f} MB/s  "
            f"({seconds * 1e3:.0f} ms, {seconds / PARSED_MAX * 1e6:.2f} µs a line)"
        )
        print(
            f"NoteReader, {label} past the cap:        {rate(reader.feed, chunks(line, 64 << 20))[0]:9.0f} MB/s"
        )
    mid = chunks(b"x" + PREFIX * 4000 + b"\n", 64 << 20)
    print(f"NoteReader, the prefix mid-line:        {rate(NoteReader().feed, mid)[0]:9.0f} MB/s")


if __name__ == "__main__":
    main()
