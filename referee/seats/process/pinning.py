"""Pinning the referee (and so the bots it spawns) to one core.

Turn-based play is a chain of wake-ups; on one core each costs ~2 µs, across cores
~55 µs (docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import psutil


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
    try:
        yield core
    finally:
        os.sched_setaffinity(0, before)
