"""The process seat's own Python work per request and information line, the C call stubbed.

``referee bench`` times the whole round trip against a real bot: on a shared machine
its figures move by more than the seat's own work.  This times only what the seat does
around the I/O — ``BotProcess.request`` and ``tell`` with the C fast path replaced by a
function that answers at once, and an information line without an answer written to
/dev/null — with no bot and no trio wait, so that two versions of the seat compare within
a few ns.  Usage::

    python benchmarks/seat_python_cost.py [N]      # default 200000 calls, best of 15

It imports the referee of the checkout it is in, and also runs on the seat before issue
26's split (its private ``_exchange``, ``_clean`` and ``_wfd``): run it in each checkout
to compare two commits.  Nothing is asserted.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import referee.seats.process.bot as bot_module
from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.seats.process.bot import BotProcess

LINE = b"-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 20 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 1 3 4 5 6 1\n"


def answer_at_once(wfd: int, rfd: int, line: bytes, max_line: int, counters, wait_ns: int) -> bytes:
    """The C call's usual case without the I/O: the answer, counted (so the seat yields
    to trio every 64 requests, as with a real bot)."""
    if counters is not None:
        counters[0] += 1
    return b"1"


def a_seat() -> BotProcess:
    """A seat never started, its fast path taken at once, its stdin /dev/null."""
    split = hasattr(bot_module, "exchange")
    setattr(bot_module, "exchange" if split else "_exchange", answer_at_once)
    bot = BotProcess(BotSpec(name="stub", argv=["true"], home="/"), Limits())
    devnull = os.open(os.devnull, os.O_WRONLY)
    if split:
        bot.channel.clean = True
        bot.channel.wfd = devnull
    else:  # before issue 26
        bot._clean = True  # type: ignore[attr-defined]
        bot._wfd = devnull  # type: ignore[attr-defined]
    return bot


async def best_ns(calls: int, step) -> float:
    best = float("inf")
    for _ in range(15):
        began = time.perf_counter_ns()
        for _ in range(calls):
            await step()
        best = min(best, (time.perf_counter_ns() - began) / calls)
    return best


async def main(calls: int) -> None:
    bot = a_seat()
    request = await best_ns(calls, lambda: bot.request(LINE))
    answered = await best_ns(calls, lambda: bot.tell(LINE, expects_reply=True))
    told = await best_ns(calls, lambda: bot.tell(LINE))
    print(f"request (C call stubbed):            {request:7.1f} ns")
    print(f"tell, answered (C call stubbed):     {answered:7.1f} ns")
    print(f"tell, no answer (write to /dev/null): {told:7.1f} ns")


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
