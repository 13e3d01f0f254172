"""What reading a slow decision's CPU costs the referee (docs/limits-and-verdicts.md,
"CPU per decision").

    python benchmarks/slow_decision_cost.py [--decisions 400] [--sleep-ms 3]
        [--sandbox rlimits|namespaces|...]

A bot that sleeps ``--sleep-ms`` before each answer (so every answer misses the 1 ms
short wait and is measured) is asked ``--decisions`` times, with the CPU readings on and
then off, alternately, three times each.  Printed: the referee's own CPU per decision
(``time.process_time``) in each mode, and one reading's cost.  As root the bot has a
cgroup (one file read per reading); as a user, or under ``rlimits``, the referee reads
``/proc/PID/stat`` of each process it knows.  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess

BOT = """
import sys, time
for line in sys.stdin:
    time.sleep({sleep})
    print("0", flush=True)
"""


async def measure(spec: BotSpec, layer: sandbox.Layer, decisions: int, readings: bool) -> tuple[float, float]:
    """(referee CPU µs per decision, µs per CPU reading)."""
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec, Limits(decision_s=1.0, startup_s=10.0), layer=layer)
        if not readings:
            bot.child.cpu_reading = lambda: None  # type: ignore[method-assign]
        await bot.start(nursery)
        await bot.request(b"x\n")
        await trio.sleep(0.3)  # the monitor has seen the bot's processes
        start = time.perf_counter()
        for _ in range(200):
            bot.child.cpu_reading()
        reading_us = (time.perf_counter() - start) / 200 * 1e6
        cpu = time.process_time()
        for _ in range(decisions):
            await bot.request(b"x\n")
        per_decision = (time.process_time() - cpu) / decisions * 1e6
        await bot.close()
        nursery.cancel_scope.cancel()
    return per_decision, reading_us


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", type=int, default=400)
    parser.add_argument("--sleep-ms", type=float, default=3.0)
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    layer = sandbox.choose(args.sandbox)
    with tempfile.TemporaryDirectory(prefix="referee-bench-slow-") as tmp:
        home = Path(tmp)
        home.chmod(0o755)
        (home / "bot.py").write_text(BOT.format(sleep=args.sleep_ms / 1e3))
        (home / "bot.py").chmod(0o644)
        # The system's Python: as root the bot runs under a uid of its own, which may not
        # read a virtualenv under /root.
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
        spec = BotSpec(name="sleeper", argv=[python, str(home / "bot.py")], home=str(home))
        figures: dict[bool, list[float]] = {True: [], False: []}
        reading = 0.0
        for _ in range(3):
            for readings in (True, False):
                per_decision, reading_us = trio.run(measure, spec, layer, args.decisions, readings)
                figures[readings].append(per_decision)
                if readings:
                    reading = reading_us
    print(f"{args.decisions} decisions of {args.sleep_ms:g} ms each, sandbox {layer.value}")
    for readings, label in ((False, "without CPU readings"), (True, "with CPU readings   ")):
        runs = ", ".join(f"{v:.0f}" for v in figures[readings])
        print(f"  {label}: referee CPU {runs} µs per decision")
    print(f"  one CPU reading: {reading:.1f} µs")


if __name__ == "__main__":
    main()
