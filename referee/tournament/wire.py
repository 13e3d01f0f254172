"""What the tournament's parent and its worker processes say to each other.

The parent (:mod:`referee.tournament.runner`) keeps the schedule and the results store;
each worker (:mod:`referee.tournament.worker`) plays matches and sends their records
back as they happen.  They talk over a pair of pipes, one *frame* at a time: a 4-byte
little-endian length, then a MessagePack-encoded message (msgspec, tagged structs).
Records cross as the same typed structs every other output uses
(:mod:`referee.core.records`), so nothing is converted on the way.

Parent → worker: :class:`PlayMatch` (a worker for matches whose bots are started for
the match), or :class:`OpenSession` once and then :class:`PlayRound` for each round
(the worker of a tournament whose bots live for the whole tournament).  Closing the
worker's input ends it: a match in progress is stopped cleanly, its bots closed.

Worker → parent: :class:`Opened`, :class:`Games` (a batch of finished games, in
order), :class:`Forfeited` and :class:`Notice` as they happen, :class:`Restarted`,
:class:`Closed` (the final record) per match; :class:`RoundDone` after a round;
:class:`Failed` if the worker cannot go on.
"""

from __future__ import annotations

import os
import struct

import msgspec
import trio

from referee.core.botspec import BotSpec
from referee.core.records import GameRecord, MatchRecord
from referee.core.verdict import Forfeit
from referee.match.spec import MatchConfig, MatchSpec

#: The largest frame either side accepts (a batch of games is far smaller).
MAX_FRAME = 256 * 1024 * 1024
_LENGTH = struct.Struct("<I")


# ---------------------------------------------------------------------- parent -> worker


class PlayMatch(msgspec.Struct, tag="play"):
    """Play this whole match (its bots started for it and closed after it)."""

    key: str
    spec: MatchSpec


class OpenSession(msgspec.Struct, tag="session"):
    """Start a session whose bots live until it ends: every later round's matches use them."""

    bots: list[BotSpec]
    #: What every match of the session shares: the game, its options, limits, sandbox.
    config: MatchConfig
    #: Where each bot's stderr goes (``DIR/NAME.stderr``).
    stderr_dir: str
    #: Matches played at once (a bot is never in two at once).
    slots: int


class RoundMatch(msgspec.Struct):
    key: str
    spec: MatchSpec
    #: Games per slice, when played a slice at a time between the other matches' slices.
    slice: int | None = None
    #: The match's first games, stored by an earlier run: a resume goes on after them
    #: (``Match.resume_after``) with bots started afresh.
    played: list[GameRecord] = []


class PlayRound(msgspec.Struct, tag="round"):
    """Play these matches with the session's bots; interleaved ones slice by slice."""

    matches: list[RoundMatch]


ToWorker = PlayMatch | OpenSession | PlayRound


# ---------------------------------------------------------------------- worker -> parent


class Opened(msgspec.Struct, tag="opened"):
    key: str


class Games(msgspec.Struct, tag="games"):
    key: str
    records: list[GameRecord]


class Forfeited(msgspec.Struct, tag="forfeit"):
    key: str
    bot: str
    forfeit: Forfeit


class Notice(msgspec.Struct, tag="notice"):
    key: str | None
    line: str


class Restarted(msgspec.Struct, tag="restart"):
    """A bot of the session was started again after its process ended."""

    bot: str
    key: str | None
    detail: str


class Closed(msgspec.Struct, tag="closed"):
    """A match ended: its final record; ``error`` when it could not be played, completed
    or written — ``None`` when it completed, or was stopped because the parent stopped
    the worker (then it is not complete, and a resume replays it)."""

    key: str
    record: MatchRecord
    error: str | None = None


class RoundDone(msgspec.Struct, tag="round-done"):
    pass


class Failed(msgspec.Struct, tag="failed"):
    """The worker cannot go on (a bug of the referee's); one line."""

    error: str


ToParent = Opened | Games | Forfeited | Notice | Restarted | Closed | RoundDone | Failed

_encoder = msgspec.msgpack.Encoder()
_to_worker = msgspec.msgpack.Decoder(ToWorker)
_to_parent = msgspec.msgpack.Decoder(ToParent)


def encode(message: ToWorker | ToParent) -> bytes:
    """One frame: length, then the message."""
    body = _encoder.encode(message)
    return _LENGTH.pack(len(body)) + body


class FrameError(Exception):
    """The other side sent something that is not a frame (or died mid-frame)."""


class Frames:
    """Splits a byte stream into decoded messages."""

    def __init__(self, to_parent: bool) -> None:
        self._decode = (_to_parent if to_parent else _to_worker).decode
        self._buf = bytearray()

    def feed(self, data: bytes | bytearray) -> list[ToParent] | list[ToWorker]:
        buf = self._buf
        buf += data
        out = []
        while len(buf) >= 4:
            (size,) = _LENGTH.unpack_from(buf)
            if size > MAX_FRAME:
                raise FrameError(f"a frame of {size} bytes")
            if len(buf) < 4 + size:
                break
            try:
                out.append(self._decode(memoryview(buf)[4 : 4 + size]))
            except msgspec.DecodeError as exc:
                raise FrameError(str(exc)) from None
            del buf[: 4 + size]
        return out

    @property
    def partial(self) -> bool:
        return bool(self._buf)


async def receive(stream: trio.abc.ReceiveStream, frames: Frames) -> list:
    """The next messages (at least one), or [] at the end of the stream."""
    while True:
        data = await stream.receive_some(1 << 16)
        if not data:
            if frames.partial:
                raise FrameError("the stream ended mid-frame")
            return []
        messages = frames.feed(data)
        if messages:
            return messages


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to a blocking descriptor, whole."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
