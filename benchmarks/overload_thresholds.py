"""Issue 28: the thresholds that tell a late answer the machine caused from one the bot did.

``referee check`` judges a late wait (a decision, the first answer, the exit on EOF)
machine-caused when the bot used less than ``CPU_SHARE`` of the limit in CPU while it
spent at least ``WAIT_SHARE`` of the wait runnable without a CPU, or the referee
``REFEREE_WAIT_SHARE`` (the kernel's run delay, /proc/PID/schedstat; the rule, the
constants and the reading of schedstat are :mod:`referee.core.overload`'s).  This
measures, on one core shared with 0, 1, 3 and 6 busy loops pinned beside it, over
windows of ``--window`` seconds:

* a bot that computes (a busy loop): its CPU and its run delay, as shares of the window;
* a bot that is hung (it sleeps): the same;
* a referee-like process (it sleeps 10 ms at a time, as trio waits): its run delay.

Run: ``python benchmarks/overload_thresholds.py [--window 0.5] [--windows 6]``.
Every process is pinned to the last CPU this process may use; the busy loops are
killed at the end.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time

from referee.core.overload import schedstat

HOG = "while True: pass"
COMPUTE = "while True: pass"
HUNG = "import time\ntime.sleep(3600)"
REFEREE = "import time\nwhile True: time.sleep(0.01)"


def spawn(code: str, core: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        stdin=subprocess.DEVNULL,
    )


def measure(hogs: int, core: int, window: float, windows: int) -> dict[str, tuple[float, float]]:
    started: list[subprocess.Popen] = []
    try:
        started += [spawn(HOG, core) for _ in range(hogs)]
        probes = {name: spawn(code, core) for name, code in
                  (("computing bot", COMPUTE), ("hung bot", HUNG), ("referee", REFEREE))}  # fmt: skip
        started += probes.values()
        time.sleep(0.3)  # interpreters started
        shares: dict[str, list[tuple[float, float]]] = {name: [] for name in probes}
        for _ in range(windows):
            before = {name: schedstat([p.pid]) for name, p in probes.items()}
            t0 = time.monotonic()
            time.sleep(window)
            wall = time.monotonic() - t0
            for name, p in probes.items():
                cpu, wait = schedstat([p.pid])
                shares[name].append(
                    ((cpu - before[name][0]) / 1e9 / wall, (wait - before[name][1]) / 1e9 / wall)
                )
        return {
            name: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v))
            for name, v in shares.items()
        }
    finally:
        for p in started:
            p.send_signal(signal.SIGKILL)
        for p in started:
            p.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--window", type=float, default=0.5)
    parser.add_argument("--windows", type=int, default=6)
    args = parser.parse_args()
    core = max(os.sched_getaffinity(0))
    print(f"core {core}, windows of {args.window} s, median of {args.windows}; shares of the window")
    print(f"{'busy loops':>10}  {'process':<14} {'CPU':>6} {'run delay':>10}")
    for hogs in (0, 1, 3, 6):
        for name, (cpu, wait) in measure(hogs, core, args.window, args.windows).items():
            print(f"{hogs:>10}  {name:<14} {cpu:>6.2f} {wait:>10.2f}")


if __name__ == "__main__":
    main()
