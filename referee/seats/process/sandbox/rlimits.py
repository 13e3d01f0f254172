"""Kernel rlimits: backstops behind the monitor.

The referee's monitor (:mod:`referee.seats.process.monitor`) samples a bot's whole
process tree and gives the verdict; rlimits are per process and blunt, and are there
for what happens between two samples or outside what the monitor measures: no core
dumps, a cap on file size and open files, a share of the user's queued signals and no
POSIX message queue (both counted per user, not per process), CPU time (a second past the budget, so the
monitor normally acts first) and, when set, address space.  Layers without a
supervisor have the spawn set them before exec; under a supervisor, the supervisor
sets them on the bot (with RLIMIT_NPROC, which counts per uid: see :mod:`.plan`).
"""

from __future__ import annotations

import math
import resource

from referee.core.limits import Limits

#: Signals a bot may have queued (real-time signals, timers): a small share of the
#: user's allowance (tens of thousands), which the bot would otherwise share.
SIGPENDING = 1024


def _rlimit_value(value: float | None) -> int:
    if value is None or math.isinf(value):
        return resource.RLIM_INFINITY
    return int(value)


def rlimits_for(limits: Limits) -> list[tuple[int, tuple[int, int]]]:
    """The kernel backstops for ``limits`` as (resource, (soft, hard)) pairs."""
    out = [
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes)),
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
        # Counted per user, not per process: the bot's own share of the user's queued
        # signals (posix timers included), and no POSIX message queue at all (the
        # supervised layers deny them too), so the user's other programs keep theirs.
        (resource.RLIMIT_SIGPENDING, (SIGPENDING, SIGPENDING)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
    ]
    if limits.cpu_s is not None and not math.isinf(limits.cpu_s):
        # Per process, whole seconds, and SIGXCPU can be caught: the hard limit one
        # second later delivers SIGKILL.  The monitor normally acts first.
        soft = math.ceil(limits.cpu_s) + 1
        out.append((resource.RLIMIT_CPU, (soft, soft + 1)))
    if limits.address_space_bytes is not None:
        cap = _rlimit_value(limits.address_space_bytes)
        out.append((resource.RLIMIT_AS, (cap, cap)))
    return out
