"""What each isolation layer adds to starting a bot.

Starts ``cat`` (which answers a line with itself) under every layer that works here,
N times each, and times ``start()`` and the first answer, then ``close()``.  The
figure that matters is the median start-to-first-answer against ``--sandbox none``:
a match starts each bot once (a crashed bot is restarted between games).

    python benchmarks/sandbox_startup.py [N]
    python benchmarks/sandbox_startup.py --cgroup [N]

Run it as root and as an ordinary user: the layers differ (as root a bot gets a uid
of its own and a cgroup).  ``--cgroup`` measures the per-bot cgroup alone (as root, or
as a user in a delegated subtree: docs/security.md): making it with its limits, a
child joining it and removing it, 10 × N times each; then N starts of ``cat`` under
``namespaces`` with the cgroup and N without, interleaved, and the medians' difference.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from unittest import mock

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


def cgroup_steps(n: int) -> None:
    """Medians of making a bot's cgroup (with its limits), joining it and removing it."""
    made, joined, removed = [], [], []
    for i in range(n):
        t0 = time.perf_counter()
        cg = sandbox.cgroups.BotCgroup.create(f"bench-{i}", pids_max=64, memory_max=64 << 20)
        made.append(time.perf_counter() - t0)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child times its own join, as a bot's fork does it before exec
            t1 = time.perf_counter()
            cg.join_self()
            os.write(w, str(time.perf_counter() - t1).encode())
            os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        joined.append(float(os.read(r, 64)))
        os.close(r)
        t2 = time.perf_counter()
        cg.remove()
        removed.append(time.perf_counter() - t2)
    for what, times in (("make + limits", made), ("join (a child)", joined), ("remove", removed)):
        print(f"cgroup {what:<15} {statistics.median(times) * 1e3:6.2f} ms median of {n}")


async def cgroup_costs(n: int) -> None:
    reason = sandbox.cgroups.probe()
    if reason is None:
        reason = sandbox.problem(sandbox.Layer.NAMESPACES)
    if reason is not None:
        print(f"no per-bot cgroup under namespaces here: {reason}")
        return
    print(f"cgroup layout: {sandbox.cgroups._layout()!r}")
    cgroup_steps(10 * n)
    sandbox.become_subreaper()
    spec = _cat()
    layer = sandbox.Layer.NAMESPACES
    await one(layer, spec)  # warm
    starts: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(n):
        for with_cgroup in (True, False):
            # What plan.jail asks before making a bot's cgroup: None is "yes".
            answer = None if with_cgroup else "off (benchmark)"
            with mock.patch.object(sandbox.cgroups, "probe", return_value=answer):
                starts[with_cgroup].append((await one(layer, spec))[0] * 1e3)
    with_median, without_median = statistics.median(starts[True]), statistics.median(starts[False])
    print(
        f"namespaces start→answer, interleaved, median of {n} each: {with_median:.1f} ms with the cgroup, "
        f"{without_median:.1f} ms without: {with_median - without_median:+.1f} ms"
    )


def _cat() -> BotSpec:
    cat = shutil.which("cat", path="/usr/bin:/bin")
    assert cat is not None
    return BotSpec(name="cat", argv=[cat], home=os.path.dirname(cat))


async def main(n: int) -> None:
    sandbox.become_subreaper()
    spec = _cat()
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
    args = [a for a in sys.argv[1:] if a != "--cgroup"]
    count = int(args[0]) if args else (20 if "--cgroup" in sys.argv else 30)
    trio.run(cgroup_costs if "--cgroup" in sys.argv else main, count)
