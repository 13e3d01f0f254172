"""The per-decision write and read in C: :func:`exchange`, or ``None`` where it is not built.

A decision is one line out and one line back.  Done in Python over raw pipe descriptors
it already costs 1.7× the machine's own round trip; :func:`exchange` does the whole usual
case in one call into ``_fastpath.c`` (an optional C extension ``pip install`` builds:
setup.py) and comes within 1.5× (docs/architecture.md, "The hot path", has the figures)::

    result = exchange(wfd, rfd, line, max_line, counters, wait_ns[, owed[, look_first]])

It writes ``line`` to ``wfd`` and reads ``rfd`` without blocking: once right after the
write; if that found nothing, once more after yielding the core (``sched_yield``: the
bot the write woke runs first when it shares the core), and if that found nothing
either, once more after waiting at most ``wait_ns`` for the reply (``ppoll``; the GIL
released for both; a signal ends the wait, and counts as a miss).  A
reply that began to arrive without its newline is read on to the newline within the same
wait.  The result says how far it got:

``bytes``
    The reply without its newline: one whole line came back alone, no longer than
    ``max_line``.  The usual case; ``counters`` are updated.
``int`` n ≥ 0
    ``n`` bytes of ``line`` were written (``n == len(line)``: the reply was not there
    even after the wait) and nothing was read.  The caller goes on from
    ``counters[START]``: the rest of the write, the wait in trio, the verdicts.
``int`` < 0
    ``-errno`` of the write (``-EPIPE``: the other end closed its input).
``(n, chunk)``
    The whole line was written and the read gave ``chunk``, which is not one clean line
    (``b""``: end of file or a read error).

``owed`` (default 0): ``line`` begins with that many information lines the bot answers,
held back by the caller to go out with this request in one write (one wake-up of the bot
for all of them); their answers come first and are dropped, and ``bytes`` means exactly
that many whole answers and then the reply came.  ``look_first`` (default false): before
writing, take what the bot's stdout already holds (``FIONREAD``); if anything, nothing
is written and the result is ``(0, chunk)`` — output that cannot be this line's reply.

``counters`` is ``None`` (an information line's answer, a remote relay: nothing is
counted) or a writable buffer of :data:`N_COUNTERS` int64 values, laid out by the
indices below; :func:`new_counters` makes one.  Latencies are ``CLOCK_MONOTONIC``
nanoseconds, the clock of :func:`time.monotonic_ns`.

The C side decides nothing: every verdict — a late or extra line, a pipe that closed, a
bot that stopped reading — is its caller's, which runs the same path in Python when
:data:`exchange` is ``None`` (no C compiler at install, or a build older than this file:
an editable install not rebuilt).  Its callers: the process seat's ``request`` and
``tell`` (:mod:`referee.seats.process.bot`) and a remote player's socket
(:mod:`referee.seats.remote_wire`).
"""

from __future__ import annotations

import array
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: The version of ``_fastpath.c`` this module speaks (2 since it took ``wait_ns``, 3
#: since it took ``owed`` and ``look_first``).
VERSION = 3

# The counters' layout, shared with _fastpath.c's enum.
#: Requests answered, the first included.
ANSWERED = 0
#: Summed latency (ns) of every answer but the first.
LATENCY_SUM = 1
#: The longest latency (ns) of those.
LATENCY_MAX = 2
#: The first answer's latency (ns): kept apart, as it carries the bot's startup work.
FIRST_ANSWER = 3
#: When (CLOCK_MONOTONIC ns) the last call began: where a caller that falls back goes on from.
START = 4
#: How many int64 values the counters hold.
N_COUNTERS = 5

if TYPE_CHECKING:

    class Exchange(Protocol):
        """The signature of :func:`exchange`."""

        def __call__(
            self,
            wfd: int,
            rfd: int,
            line: bytes,
            max_line: int,
            counters: WriteableBuffer | None,
            wait_ns: int,
            owed: int = 0,
            look_first: bool = False,
            /,
        ) -> bytes | int | tuple[int, bytes]: ...


exchange: Exchange | None
#: The most answers ``owed`` may count (the C call's bound; 0 without it).
MAX_OWED = 0
try:
    from referee.seats.process import _fastpath
except ImportError:  # built without a C compiler: the callers' pure-Python paths do the same
    exchange = None
else:
    exchange = _fastpath.exchange if getattr(_fastpath, "VERSION", 1) == VERSION else None
    if exchange is not None:
        MAX_OWED = _fastpath.MAX_OWED


def new_counters() -> array.array[int]:
    """A zeroed counters array for :func:`exchange` (indexed by :data:`ANSWERED`…)."""
    return array.array("q", bytes(8 * N_COUNTERS))


__all__ = [
    "ANSWERED",
    "FIRST_ANSWER",
    "LATENCY_MAX",
    "LATENCY_SUM",
    "MAX_OWED",
    "N_COUNTERS",
    "START",
    "VERSION",
    "exchange",
    "new_counters",
]
