"""The limits monitor: samples every live bot's process tree and enforces CPU and memory.

One trio task per referee process wakes every ``interval`` seconds, asks psutil for each
bot's whole tree (CPU seconds including reaped children, resident memory) and kills a
bot that is over its budget or cap; the bot's pending request then fails with that
verdict.  The kernel rlimits in :mod:`referee.sandbox` are only backstops for what
happens between samples.  Sampling costs ~15 µs per process plus one scan of /proc
(~0.4 ms with 70 processes), so at 4 Hz it is noise next to a match.
"""

from __future__ import annotations

import trio

from referee import sandbox
from referee.process import BotProcess

DEFAULT_INTERVAL_S = 0.25


class Monitor:
    def __init__(self, interval: float = DEFAULT_INTERVAL_S) -> None:
        self.interval = interval
        self._bots: set[BotProcess] = set()

    def watch(self, bot: BotProcess) -> None:
        self._bots.add(bot)

    def forget(self, bot: BotProcess) -> None:
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
        while True:
            await trio.sleep(self.interval)
            self.sample_all()
