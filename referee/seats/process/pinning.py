"""Pinning the referee (and so the bots it spawns) to one core.

Turn-based play is a chain of wake-ups; on one core each costs ~2 µs, across cores
~55 µs (docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

import psutil

#: Per thread (a cluster worker pins a thread of its own): the masks saved by the
#: pins in force, innermost last.
_saved = threading.local()


def start_up_cores() -> set[int] | None:
    """The cores a process started now may use until its program runs: the calling
    thread's mask from before :func:`pinned_to_one_core` (None when nothing is pinned).

    A sandboxed bot's start is mostly its supervisor's (a Python interpreter's)
    start-up, ~30 ms of CPU a bot: pinned, a match's bots start one after another on the
    referee's core (~140 ms for two on this project's VM), spread, side by side (~65
    ms). The supervisor pins the bot back to the referee's core before it executes the
    bot's program, so no decision is played across cores.
    """
    stack = getattr(_saved, "masks", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def pinned_to_one_core(enabled: bool) -> Iterator[int | None]:
    """Pin this process to the core it runs on now; the previous affinity is restored
    afterwards.  Yields the core, or ``None`` when not pinned."""
    if not enabled or not hasattr(os, "sched_setaffinity"):
        yield None
        return
    before = os.sched_getaffinity(0)
    try:
        core = psutil.Process().cpu_num()
    except (psutil.Error, AttributeError):
        core = min(before)
    if core not in before:
        core = min(before)
    os.sched_setaffinity(0, {core})
    stack = _saved.__dict__.setdefault("masks", [])
    stack.append(before)
    try:
        yield core
    finally:
        stack.pop()
        os.sched_setaffinity(0, before)
