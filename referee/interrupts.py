"""Ending a run cleanly on SIGINT, SIGTERM and SIGHUP.

A match that is interrupted must still close its bots, remove their working
directories and write the summary of the games it finished.  Python's default handlers
do none of that: SIGINT raises ``KeyboardInterrupt`` wherever the program happens to be
(inside trio, a traceback of nested exception groups), and SIGTERM and SIGHUP end the
process on the spot.  So:

* before and after the trio run, :func:`catching` turns the three signals into an
  :class:`Interrupted` exception (before) or just remembers them (after, while the
  summary is being written: a second Ctrl-C must not cut a file in half);
* during it, :func:`run_until_signalled` runs the work in a nursery beside a task that
  waits for one of the signals and cancels the work; the work's own ``finally`` blocks
  (shielded, bounded) do the cleaning.

The exit status follows the shell's convention, 128 + the signal's number: 130 for
SIGINT, 143 for SIGTERM, 129 for SIGHUP.
"""

from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def catching(raise_: bool = True) -> Iterator[list[int]]:
    """Handle the stop signals for the duration: raise :class:`Interrupted` at once
    (``raise_``), or only record them in the yielded list.  The previous handlers are
    restored afterwards."""
    seen: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        seen.append(signum)
        if raise_:
            raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield seen
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


async def run_until_signalled(work: Callable[[], Awaitable[T]]) -> tuple[T | None, int | None]:
    """Run ``work()``; on the first stop signal, cancel it.

    Returns ``(result, None)`` when the work finished, ``(None, signum)`` when a signal
    cancelled it; an exception that ``work()`` raises is raised as itself, not wrapped
    in a group by this function (one raised inside a nursery of the work's own comes as
    that nursery made it).
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
                async for signum in signals:
                    if stopped_by is None and not finished:
                        stopped_by = signum
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
