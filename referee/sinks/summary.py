"""``--json``: the match's summary (a :class:`~referee.core.records.MatchRecord`),
written atomically and rewritten during the match.

Every :data:`CHECKPOINT_EVERY_S` seconds the file is replaced with the figures so far,
marked ``stopped: "in progress ..."``, so even ``kill -9`` leaves a valid summary of the
games up to the last checkpoint; at the end it is replaced with the final record.  A
checkpoint that cannot be written (a full disk) does not end the match: it is said once
through ``on_error``; a final write that fails is kept in :attr:`SummaryFile.error` for
the caller's exit status.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import msgspec

from referee.core.records import GameRecord, MatchRecord
from referee.sinks._abc import Sink, Standing
from referee.sinks.files import write_atomically

#: Seconds between two rewrites of the summary during a match
#: (``REFEREE_CHECKPOINT_EVERY_S`` changes it, for tests).
CHECKPOINT_EVERY_S = float(os.environ.get("REFEREE_CHECKPOINT_EVERY_S", "10"))


def encode_summary(record: MatchRecord) -> bytes:
    return msgspec.json.format(msgspec.json.encode(record)) + b"\n"


def write_summary(path: str, record: MatchRecord) -> None:
    write_atomically(path, encode_summary(record))


class SummaryFile(Sink):
    def __init__(
        self,
        path: str,
        *,
        every_s: float | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self.every_s = CHECKPOINT_EVERY_S if every_s is None else every_s
        self._on_error = on_error
        self._last = time.monotonic()
        #: Why the final summary could not be written, if it could not.
        self.error: str | None = None

    def game(self, record: GameRecord, standing: Standing) -> None:
        now = time.monotonic()
        if now - self._last < self.every_s:
            return
        self._last = now
        checkpoint = standing()
        checkpoint.stopped = f"in progress (this summary is rewritten every {self.every_s:g} s)"
        try:
            write_summary(self.path, checkpoint)
        except OSError as exc:  # a full disk must not end the match; the final write says
            if self._on_error is not None:
                self._on_error(f"could not rewrite the summary: {exc.strerror or exc}")

    def close(self, record: MatchRecord) -> None:
        try:
            write_summary(self.path, record)
        except OSError as exc:
            self.error = f"could not write the summary {self.path}: {exc.strerror or exc}"
