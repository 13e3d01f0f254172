"""What each isolation layer adds to starting a bot.

Starts ``cat`` (which answers a line with itself) under every layer that works here,
N times each, and times ``start()`` and the first answer, then ``close()``.  The
figure that matters is the median start-to-first-answer against ``--sandbox none``:
a match starts each bot once (a crashed bot is restarted between games).

    python benchmarks/sandbox_startup.py [N]

Run it as root and as an ordinary user: the layers differ (as root a bot gets a uid
of its own and a cgroup).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time

import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess


async def one(layer: sandbox.Layer, spec: BotSpec) -> tuple[float, float]:
    async with trio.open_nursery() as nursery:
        started = time.perf_counter()
        bot = BotProcess(spec, Limits(startup_s=10), layer=layer)
        await bot.start(nursery)
        assert await bot.request(b"ping\n") == b"ping"
        answered = time.perf_counter() - started
        closing = time.perf_counter()
        await bot.close()
        nursery.cancel_scope.cancel()
    return answered, time.perf_counter() - closing


async def main(n: int) -> None:
    sandbox.become_subreaper()
    cat = shutil.which("cat", path="/usr/bin:/bin")
    assert cat is not None
    spec = BotSpec(name="cat", argv=[cat], home=os.path.dirname(cat))
    print(f"{'layer':<11} {'start→answer median':>20} {'p90':>8} {'extra vs none':>14} {'close median':>13}")
    base = None
    for layer in sandbox.Layer:
        reason = sandbox.problem(layer)
        if reason is not None:
            print(f"{layer:<11} not here: {reason}")
            continue
        await one(layer, spec)  # warm: probes, imports, page cache
        runs = [await one(layer, spec) for _ in range(n)]
        starts = sorted(r[0] * 1e3 for r in runs)
        median = statistics.median(starts)
        p90 = starts[int(0.9 * (len(starts) - 1))]
        base = median if layer is sandbox.Layer.NONE else base
        extra = "" if base is None or layer is sandbox.Layer.NONE else f"+{median - base:.1f} ms"
        close = statistics.median(r[1] * 1e3 for r in runs)
        print(f"{layer:<11} {median:>17.1f} ms {p90:>5.1f} ms {extra:>14} {close:>10.1f} ms")


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 30)
