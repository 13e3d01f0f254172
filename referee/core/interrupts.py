"""Ending a run cleanly on SIGINT, SIGTERM and SIGHUP.

A match that is interrupted must still close its bots, remove their working
directories and write the summary of the games it finished.  Python's default handlers
do none of that: SIGINT raises ``KeyboardInterrupt`` wherever the program happens to be
(inside trio, a traceback of nested exception groups), and SIGTERM and SIGHUP end the
process on the spot.  So:

* before and after the trio run, :func:`catching`'s :class:`Guard` turns the three
  signals into an :class:`Interrupted` exception (before) or just remembers them (after,
  while the summary is being written: a second Ctrl-C must not cut a file in half); a
  third signal ends the process at once;
* during it, :func:`run_until_signalled` runs the work in a nursery beside a task that
  waits for one of the signals and cancels the work; the work's own ``finally`` blocks
  (shielded, bounded) do the cleaning.

The exit status follows the shell's convention, 128 + the signal's number: 130 for
SIGINT, 143 for SIGTERM, 129 for SIGHUP.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import trio

#: The signals that end a run cleanly.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

T = TypeVar("T")


class Interrupted(Exception):
    """A stop signal arrived outside the trio run."""

    def __init__(self, signum: int) -> None:
        super().__init__(describe(signum))
        self.signum = signum


def exit_status(signum: int) -> int:
    """The shell's status for a run ended by ``signum``: 128 + its number."""
    return 128 + signum


def describe(signum: int) -> str:
    try:
        return f"interrupted by {signal.Signals(signum).name}"
    except ValueError:
        return f"interrupted by signal {signum}"


#: A third stop signal ends the process at once: the escape hatch if cleaning up ever
#: took too long (the summary may then be the last checkpoint).
FORCE_AFTER = 3


class Guard:
    """The stop signals' handler while a run is set up, played and written up.

    While ``raising``, a signal raises :class:`Interrupted` where the program is (set
    up: nothing to save yet).  Otherwise it is only recorded in ``seen``: the trio run
    takes over then, and the writing afterwards must not be cut in half.  The
    :data:`FORCE_AFTER`-th signal exits at once, whatever the mode.
    """

    def __init__(self) -> None:
        self.raising = True
        self.seen: list[int] = []

    def record(self, signum: int) -> None:
        """Count a stop signal; the :data:`FORCE_AFTER`-th ends the process now."""
        self.seen.append(signum)
        if len(self.seen) >= FORCE_AFTER:
            os._exit(exit_status(signum))

    def handle(self, signum: int, _frame: object) -> None:
        self.record(signum)
        if self.raising:
            raise Interrupted(signum)


@contextlib.contextmanager
def catching() -> Iterator[Guard]:
    """Handle the stop signals with a :class:`Guard` for the duration; the previous
    handlers are restored afterwards."""
    guard = Guard()
    previous = {sig: signal.signal(sig, guard.handle) for sig in STOP_SIGNALS}
    try:
        yield guard
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


async def run_until_signalled(
    work: Callable[[], Awaitable[T]],
    guard: Guard | None = None,
    on_signal: Callable[[int], None] | None = None,
) -> tuple[T | None, int | None]:
    """Run ``work()``; on the first stop signal, cancel it.

    A signal the ``guard`` recorded before this run could listen counts as the first.
    Later ones are counted on the guard too, so that the :data:`FORCE_AFTER`-th ends
    the process even while the work cleans up.

    Returns ``(result, None)`` when the work finished, ``(None, signum)`` when a signal
    cancelled it; an exception that ``work()`` raises is raised as itself, not wrapped
    in a group by this function (one raised inside a nursery of the work's own comes as
    that nursery made it).
    ``on_signal(signum)`` is called with the first signal just before the work is
    cancelled, so the work's own clean-up knows why it ends (a match records it as the
    reason it stopped, in the summary it writes while closing).

    Signals that arrive while the cancelled work cleans up are swallowed: the cleaning
    is bounded, and cutting it short would leave bots or files behind.
    """
    result: T | None = None
    error: Exception | None = None
    finished = False
    stopped_by: int | None = None
    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with trio.open_nursery() as nursery:
            work_scope = trio.CancelScope()

            async def watch() -> None:
                nonlocal stopped_by
                if guard is not None and guard.seen and not finished:
                    stopped_by = guard.seen[0]  # arrived while the run was starting
                    if on_signal is not None:
                        on_signal(stopped_by)
                    work_scope.cancel()
                async for signum in signals:
                    if guard is not None:
                        guard.record(signum)
                    if stopped_by is None and not finished:
                        stopped_by = signum
                        if on_signal is not None:
                            on_signal(signum)
                        work_scope.cancel()

            async def run_work() -> None:
                nonlocal result, error, finished
                try:
                    with work_scope:
                        result = await work()
                        finished = True
                except Exception as exc:
                    error = exc
                finally:
                    nursery.cancel_scope.cancel()  # the watcher is done too

            nursery.start_soon(watch)
            nursery.start_soon(run_work)
    if error is not None:
        raise error
    if finished:
        return result, None
    return None, stopped_by
