"""``referee bench``: the I/O path against the physical limit, in one run.

The figures, each on one pinned core (as matches run):

1. raw: a C program and a C echo bot doing blocking ``write``/``read`` round trips of a
   Yahtzee position line — what the machine can do at best;
2. the referee's round trip with the same echo bot (``BotProcess.request``);
3. a Yahtzee match between two trivial (instant, always legal) C bots, as time per
   decision: everything the referee does per decision — rules, encoding, legality,
   bookkeeping — on top of the round trip;
4. a dice-poker match between two instant C bots that always raise and call, as time
   per deal against the 4 raw round trips of a deal's lines (2 decisions, 2 showdown
   lines, each answered): the per-game cost, which rules a round robin of millions of
   deals.  The showdown lines go out with each bot's next request (``Game.hold_tells``),
   so the bots wake twice a deal, not four times: the line after the figure says so.

5. the same two matches as a user runs them, ``referee match A B --game G --games N
   --json F`` in a process of its own (the default path: its own pinning, sandbox,
   progress and summary, its start-up and its end), as the whole command's wall time per
   decision or deal: what a user waits for, against the same raw figure.

``--remote`` instead plays the Yahtzee match locally and through ``referee serve`` and
two ``referee connect`` processes on loopback (issue 15: a remote decision should cost
at most 100 µs more than a local one).

The bots are compiled with ``cc`` into a temporary directory.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee import games
from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.match import Match, MatchConfig
from referee.seats.process.bot import BotProcess
from referee.seats.process.pinning import pinned_to_one_core

POSITION = b"-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 20 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 1 3 4 5 6 1\n"

ECHO_C = r"""
#include <stdio.h>
int main(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) { fputs("1\n", stdout); fflush(stdout); }
    return 0;
}
"""

PINGPONG_C = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static const char LINE[] =
  "-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 20 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 1 3 4 5 6 1\n";
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    int to[2], from[2];
    if (pipe(to) || pipe(from)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to[0], 0); dup2(from[1], 1);
        close(to[0]); close(to[1]); close(from[0]); close(from[1]);
        execv(argv[2], argv + 2);
        _exit(127);
    }
    close(to[0]); close(from[1]);
    char buf[256];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        if (write(to[1], LINE, sizeof LINE - 1) != (ssize_t)(sizeof LINE - 1)) return 2;
        size_t got = 0;
        do {
            ssize_t r = read(from[0], buf + got, sizeof buf - got);
            if (r <= 0) return 3;
            got += (size_t)r;
        } while (buf[got - 1] != '\n');
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    close(to[1]);
    waitpid(pid, NULL, 0);
    printf("%.4f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
    return 0;
}
"""

# Instant and always legal: reroll everything, then hold everything, then place in the
# first box the forced-joker rule allows.
YAHTZEE_FAST_C = r"""
#include <stdio.h>
int main(void) {
    int v[34];
    for (;;) {
        for (int i = 0; i < 34; i++) if (scanf("%d", &v[i]) != 1) return 0;
        int roll = v[33], *card = v, *dice = v + 28, row = -1;
        if (roll == 1) { puts("1"); fflush(stdout); continue; }
        if (roll == 2) { puts("63"); fflush(stdout); continue; }
        int yahtzee = 1;
        for (int i = 1; i < 5; i++) if (dice[i] != dice[0]) yahtzee = 0;
        if (yahtzee && card[11] != -1) {
            if (card[dice[0] - 1] == -1) row = dice[0] - 1;
            for (int r = 6; row < 0 && r < 13; r++) if (card[r] == -1) row = r;
        }
        for (int r = 0; row < 0 && r < 13; r++) if (card[r] == -1) row = r;
        printf("%d\n", row * 2);
        fflush(stdout);
    }
}
"""


# Instant: raise or call every time, and answer every information line too.
DICE_POKER_FAST_C = r"""
#include <stdio.h>
int main(void) {
    int op, b, state, d;
    while (scanf("%d %d %d %d", &op, &b, &state, &d) == 4) { puts("1"); fflush(stdout); }
    return 0;
}
"""


def _compile(source: str, out: Path) -> Path:
    src = out.with_suffix(".c")
    src.write_text(source)
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-o", str(out), str(src)], check=True)
    return out


def raw_round_trip_us(pingpong: Path, echo: Path, n: int) -> float:
    done = subprocess.run([str(pingpong), str(n), str(echo)], check=True, capture_output=True, text=True)
    return float(done.stdout)


async def referee_round_trip_us(echo: Path, n: int) -> float:
    bot = BotProcess(BotSpec(name="echo", argv=[str(echo)], home=str(echo.parent)), Limits())
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        await bot.request(POSITION)  # the startup answer is not part of the figure
        started = time.perf_counter()
        for _ in range(n):
            await bot.request(POSITION)
        elapsed = time.perf_counter() - started
        await bot.close()
        nursery.cancel_scope.cancel()
    return elapsed / n * 1e6


def match_us_per_decision(bot: Path, games_count: int) -> tuple[int, float, float]:
    game = games.get("yahtzee")()
    specs = [BotSpec(name=f"fast-{i}", argv=[str(bot)], home=str(bot.parent)) for i in (1, 2)]
    config = MatchConfig(game="yahtzee", games=games_count, seed=1, pin=False)
    match = Match(game, specs, config)
    started = time.perf_counter()
    result = trio.run(match.run)
    elapsed = time.perf_counter() - started
    decisions = sum(p.decisions for p in result.players)
    return decisions, elapsed, elapsed / decisions * 1e6


def dice_poker_us_per_deal(bot: Path, deals: int) -> tuple[float, float]:
    """Seconds for ``deals`` deals, and µs per deal."""
    game = games.get("dice-poker")()
    specs = [BotSpec(name=f"caller-{i}", argv=[str(bot)], home=str(bot.parent)) for i in (1, 2)]
    match = Match(game, specs, MatchConfig(game="dice-poker", games=deals, seed=1, pin=False))
    started = time.perf_counter()
    trio.run(match.run)
    elapsed = time.perf_counter() - started
    return elapsed, elapsed / deals * 1e6


def default_path(bot: Path, game: str, games_count: int, work: Path) -> tuple[float, int]:
    """``referee match BOT BOT --game GAME --games N`` as a user runs it, in a process of its
    own, unpinned by us (the match pins itself and its bots by default): the command's
    wall time, start-up and end included, and the decisions its summary counts."""
    import json

    summary = work / f"{game}-summary.json"
    argv = [sys.executable, "-m", "referee", "match", str(bot), str(bot), "--game", game]
    argv += ["--games", str(games_count), "--seed", "1", "--quiet", "--json", str(summary)]
    # Not on the bench's pinned core: the command pins itself, as it does for a user.
    pinned = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if pinned is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
    try:
        started = time.perf_counter()
        # Bounded: a Yahtzee game takes ~1.6 ms here (78 decisions); at 10 ms a game it hangs.
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, timeout=60 + games_count * 0.01)
        elapsed = time.perf_counter() - started
    finally:
        if pinned is not None:
            os.sched_setaffinity(0, pinned)
    record = json.loads(summary.read_text())
    return elapsed, sum(player["decisions"] for player in record["players"])


def remote_us_per_decision(bot: Path, games_count: int) -> tuple[float, float]:
    """The Yahtzee match of :func:`match_us_per_decision` with both bots remote: a
    ``referee serve`` here and two ``referee connect`` processes on loopback, every
    process on the one pinned core.  Returns (µs per decision remote, µs per decision
    of the same match run locally), each the match's wall time over its decisions."""
    from referee.serve.server import ServeConfig, Server

    local = match_us_per_decision(bot, games_count)[2]

    async def run(out: Path) -> float:
        config = ServeConfig(game="yahtzee", table_size=2, games=games_count, seed=1, tables=1)
        server = Server(config, out=out)
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        argv = [sys.executable, "-m", "referee", "connect", f"127.0.0.1:{port}", str(bot), "--name"]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(server.run, listeners)
            for name in ("fast-1", "fast-2"):
                nursery.start_soon(
                    functools.partial(
                        trio.run_process,
                        [*argv, name],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        check=False,
                    )
                )
        table = server.results[0]
        return table.seconds / sum(p.decisions for p in table.record.players) * 1e6

    with tempfile.TemporaryDirectory(prefix="referee-bench-serve-") as out:
        return trio.run(run, Path(out)), local


def _verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "missed"


def main(round_trips: int = 200_000, games: int = 1000, deals: int = 100_000, remote: bool = False) -> int:
    if shutil.which(os.environ.get("CC", "cc")) is None:
        print("referee bench needs a C compiler (cc)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp, pinned_to_one_core(True) as core:
        work = Path(tmp)
        work.chmod(0o755)  # as root each bot runs under a uid of its own, which must read it
        echo = _compile(ECHO_C, work / "echo")
        pingpong = _compile(PINGPONG_C, work / "pingpong")
        fast = _compile(YAHTZEE_FAST_C, work / "yahtzee_fast")
        caller = _compile(DICE_POKER_FAST_C, work / "dice_poker_fast")
        if remote:
            remote_us, local_us = remote_us_per_decision(fast, games)
            print(f"all on core {core}; a {games}-game Yahtzee match between two instant C bots")
            print(f"local (referee match):                     {local_us:7.2f} µs per decision")
            print(
                f"remote (serve + 2 connect, loopback):      {remote_us:7.2f} µs per decision   "
                f"+{remote_us - local_us:.1f} µs (target ≤ +100: {_verdict(remote_us - local_us, 100)})"
            )
            return 0
        raw = min(raw_round_trip_us(pingpong, echo, round_trips) for _ in range(3))
        ours = min(trio.run(referee_round_trip_us, echo, round_trips) for _ in range(3))
        decisions, seconds, per_decision = match_us_per_decision(fast, games)
        deal_seconds, per_deal = dice_poker_us_per_deal(caller, deals)
        ratios = (ours / raw, per_decision / raw, per_deal / (4 * raw))
        print(f"all on core {core}; best of 3 for the round trips")
        print(f"raw C round trip (C parent, C echo bot):   {raw:7.2f} µs")
        print(
            f"referee round trip (same echo bot):        {ours:7.2f} µs   {ratios[0]:5.2f}× raw "
            f"(target ≤ 1.5×: {_verdict(ratios[0], 1.5)})"
        )
        print(
            f"{games}-game Yahtzee match, two C bots:     {per_decision:7.2f} µs per decision "
            f"{ratios[1]:5.2f}× raw (target ≤ 3×: {_verdict(ratios[1], 3.0)}); "
            f"{decisions} decisions in {seconds:.2f} s"
        )
        print(
            f"{deals}-deal dice-poker match, two C bots: {per_deal:7.2f} µs per deal     "
            f"{ratios[2]:5.2f}× 4 raw round trips (target ≤ 2×: {_verdict(ratios[2], 2.0)}); {deal_seconds:.2f} s"
        )
        print(
            f"  (the showdown lines go with the next request: 2 wake-ups a deal, "
            f"{per_deal / (2 * raw):.2f}× 2 raw round trips)"
        )
        # The default path: the same matches as `referee match` runs them for a user.
        y_seconds, y_decisions = default_path(fast, "yahtzee", games, work)
        d_seconds, _ = default_path(caller, "dice-poker", deals, work)
        y_us, d_us = y_seconds / y_decisions * 1e6, d_seconds / deals * 1e6
        print(
            "the default path: `referee match A B --game G --games N --json F`, the whole command's wall time"
        )
        print(
            f"  {games}-game Yahtzee match:     {y_us:7.2f} µs per decision {y_us / raw:5.2f}× raw "
            f"(target ≤ 3×: {_verdict(y_us / raw, 3.0)}); {y_decisions} decisions in {y_seconds:.2f} s"
        )
        print(
            f"  {deals}-deal dice-poker match: {d_us:7.2f} µs per deal     {d_us / (4 * raw):5.2f}× 4 raw round "
            f"trips (target ≤ 2×: {_verdict(d_us / (4 * raw), 2.0)}); {d_seconds:.2f} s"
        )
    return 0
