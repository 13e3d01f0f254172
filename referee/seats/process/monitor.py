"""The limits monitor: samples every live bot's process tree and enforces CPU and memory.

One trio task per referee process wakes every ``interval`` seconds, asks psutil for each
bot's whole tree (CPU seconds including reaped children, resident memory) and kills a
bot that is over its budget or cap; the bot's pending request then fails with that
verdict.  The kernel rlimits in :mod:`referee.seats.process.sandbox` are only backstops for what
happens between samples.  Sampling costs ~15 µs per process plus one scan of /proc
(~0.4 ms with 70 processes), so at 4 Hz it is noise next to a match.
"""

from __future__ import annotations

from typing import Protocol

import trio

from referee.seats.process import sandbox

DEFAULT_INTERVAL_S = 0.25


class Sampled(Protocol):
    """What the monitor watches: a bot process that can measure itself."""

    @property
    def alive(self) -> bool: ...

    def sample(self) -> None: ...


class Monitor:
    def __init__(self, interval: float = DEFAULT_INTERVAL_S) -> None:
        self.interval = interval
        self._bots: set[Sampled] = set()
        #: True from creation until its task ends (a monitor whose task has ended is
        #: never reused).
        self.running = True

    def watch(self, bot: Sampled) -> None:
        self._bots.add(bot)

    def forget(self, bot: Sampled) -> None:
        bot.sample()
        self._bots.discard(bot)

    def sample_all(self) -> None:
        for bot in list(self._bots):
            if bot.alive:
                bot.sample()
        # Orphans that re-parented to the referee (layers without a supervisor) are
        # reaped as they die, not at the end: a pid-hopping bot must not pile up zombies.
        sandbox.reap_orphans()

    async def run(self) -> None:
        """Sample forever; cancel the surrounding scope to stop."""
        try:
            while True:
                await trio.sleep(self.interval)
                self.sample_all()
        finally:
            self.running = False


_SHARED: trio.lowlevel.RunVar[dict[int, Monitor]] = trio.lowlevel.RunVar("referee_monitors")


def shared_monitor(nursery: trio.Nursery) -> Monitor:
    """The monitor of ``nursery``'s bots, started there if it is not running: the bots
    of one nursery (a match's) are sampled by one task, which lives exactly as long as
    that nursery, so no bot outlives the task that watches it."""
    try:
        monitors = _SHARED.get()
    except LookupError:
        monitors = {}
        _SHARED.set(monitors)
    monitor = monitors.get(id(nursery))
    if monitor is None or not monitor.running:
        monitor = Monitor()
        monitors[id(nursery)] = monitor
        nursery.start_soon(_run_for, monitors, id(nursery), monitor)
    return monitor


async def _run_for(monitors: dict[int, Monitor], key: int, monitor: Monitor) -> None:
    try:
        await monitor.run()
    finally:
        if monitors.get(key) is monitor:
            del monitors[key]
