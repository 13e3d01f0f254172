"""Issue 28: whether a timing fault was the grading machine's, not the bot's.

A late answer (a decision or the first answer over its limit, a late exit on EOF, a
build over its wall time) is **machine-caused** when, while it was waited for, the bot
used less than :data:`CPU_SHARE` of the limit in CPU and it spent at least
:data:`WAIT_SHARE` of the wait runnable but without a CPU (the kernel's run delay,
``/proc/PID/task/TID/schedstat``) — or the referee :data:`REFEREE_WAIT_SHARE` of it.

A bot that computes past its limit uses the CPU it waits for (it is never excused); a
hung bot sleeps (no run delay, however busy the machine: never excused either); a bot
that wanted the CPU and could not get it is.  The thresholds come from
``benchmarks/overload_thresholds.py`` (docs/grading.md, "A busy grading machine"): a
computing process beside 0–6 busy loops on its core waits 0.64–0.94 of the time, a
sleeping one 0.00; a process that wakes every 10 ms (as the referee) 0.20–0.26 on a
machine at load 5 on 2 cores — hence the referee's higher bar.

``referee check`` and ``referee match``/``tournament`` (``--replay-overloaded``) judge
by :func:`machine_caused`; grading replays what it excuses (the check, a qualification
game, a build), a few times at most.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Collection, Iterable, Iterator

#: Below this share of its limit in CPU, a late bot did not compute its way past it.
CPU_SHARE = 0.5
#: At least this share of the wait runnable without a CPU: the bot was starved.
WAIT_SHARE = 0.25
#: Or the referee was, this share of the wait (it mostly sleeps: a higher bar).
REFEREE_WAIT_SHARE = 0.5
#: How a match's notice of a game played again as the machine's fault begins
#: (``--replay-overloaded``): a tournament stores it as a ``replay`` event.
REPLAY_NOTICE = "replayed game "


def machine_caused(
    cpu_s: float, limit_s: float, wall_s: float, bot_wait_s: float, referee_wait_s: float
) -> bool:
    """The rule of the module's text; ``cpu_s`` < 0 (not measured) is never excused."""
    if cpu_s < 0 or wall_s <= 0:
        return False
    starved = bot_wait_s >= WAIT_SHARE * wall_s or referee_wait_s >= REFEREE_WAIT_SHARE * wall_s
    return cpu_s < CPU_SHARE * limit_s and starved


def describe(cpu_s: float, wall_s: float, limit_s: float, bot_wait_s: float, referee_wait_s: float) -> str:
    """The evidence, in words, for a student's page."""
    return (
        f"it used {cpu_s:.3g} s of CPU in {wall_s:.3g} s (limit {limit_s:g} s) and waited "
        f"{bot_wait_s:.3g} s for a CPU; the referee waited {referee_wait_s:.3g} s"
    )


def schedstat(pids: Iterable[int | str] | None = None) -> tuple[int, int]:
    """CPU and run delay (ns) of every thread of ``pids`` (None: this process) so far;
    what cannot be read (a process gone) counts 0."""
    cpu = wait = 0
    for pid in ("self",) if pids is None else pids:
        for _, on_cpu, delay in thread_schedstats(pid):
            cpu += on_cpu
            wait += delay
    return cpu, wait


def thread_schedstats(pid: int | str) -> Iterator[tuple[str, int, int]]:
    """(thread id, CPU ns, run delay ns) of each thread of ``pid`` now
    (``/proc/PID/task/TID/schedstat``); a thread or process gone is left out."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as fh:
                on_cpu, delay, _ = fh.read().split(maxsplit=2)
            numbers = int(on_cpu), int(delay)
        except (OSError, ValueError):
            continue
        yield tid, *numbers


class KeptDelays:
    """The run delay (ns) of the threads of a set of processes, read through descriptors
    kept open: a pread a thread, a few µs, where an open of /proc costs tens on a VM.  A
    process's threads are listed once, when it is first read; a process no longer in the
    set has its descriptors closed."""

    def __init__(self) -> None:
        self._fds: dict[int, list[int]] = {}

    def read(self, pids: Collection[int]) -> int:
        fds = self._fds
        for pid in fds.keys() - pids:
            for fd in fds.pop(pid):
                os.close(fd)
        delay = 0
        for pid in pids:
            tasks = fds.get(pid)
            if tasks is None:
                tasks = fds[pid] = _open_threads(pid)
            for fd in tasks:
                delay += _delay_at(fd)
        return delay

    def close(self) -> None:
        for tasks in self._fds.values():
            for fd in tasks:
                os.close(fd)
        self._fds.clear()


def _open_threads(pid: int) -> list[int]:
    """Descriptors of /proc/PID/task/TID/schedstat for each thread of ``pid`` now."""
    fds: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return fds
    for tid in tasks:
        with contextlib.suppress(OSError):
            fds.append(os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC))
    return fds


def _delay_at(fd: int) -> int:
    """The run delay in the schedstat file open at ``fd`` (0 if it cannot be read)."""
    try:
        return int(os.pread(fd, 256, 0).split(maxsplit=2)[1])
    except (OSError, ValueError, IndexError):
        return 0


_referee_fd: tuple[int, int, int] | None = None  # (pid, thread id, descriptor)


def referee_delay_ns() -> int:
    """The calling thread's run delay so far (ns; 0 where schedstat is missing): the
    referee's own scheduling delay, read through a descriptor kept open for the calling
    thread (a pread: a few µs, where an open of /proc costs tens on a VM)."""
    global _referee_fd
    me = (os.getpid(), threading.get_ident())
    kept = _referee_fd
    if kept is None or kept[:2] != me:
        try:
            fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return 0
        if kept is not None and kept[0] == me[0]:
            os.close(kept[2])
        _referee_fd = kept = (*me, fd)
    return _delay_at(kept[2])
