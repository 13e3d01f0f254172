#!/usr/bin/env python3
"""Soak test (issue 4): many short matches in one referee process, and nothing may grow.

Plays N short Yahtzee matches (2 games each by default) between the competent C sample
player and the Python random player, with core pinning off, all in ONE process and ONE
``trio.run``: the way a long-lived tournament process would, so that anything the
referee leaks per match (a descriptor, a child, a zombie, memory, a trio registration)
piles up where it can be seen.

It prints the referee's figures at the start, after the first match, every tenth of the
run and at the end:

* ``fds``: open file descriptors (``len(os.listdir('/proc/self/fd'))``);
* ``children`` / ``zombies``: live and zombie processes among
  ``psutil.Process().children(recursive=True)``;
* ``rss``: the referee's resident memory;
* ``threads``: the referee's threads (trio keeps a small pool of idle workers);
* ``workdirs``: bot working directories (``referee-*``) that exist (the run gets a
  private temporary directory, so only its own bots' are counted).

It exits 1 if, at the end, fds, children, zombies or workdirs exceed their starting
values at all, or RSS exceeds its value after the first match by more than 10 MiB.
RSS is compared with the figure after the first match because that match loads code
and fills caches once (the game registry, the layer probe, psutil's and trio's
internals).  10 MiB over 1000 matches catches any per-match leak above ~10 KiB while
staying clear of the allocator's noise (freed arenas are not always returned).

Usage:  scripts/soak.py [--matches N] [--games G] [--seed S] [--sandbox LAYER] [--python EXE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import games  # noqa: E402
from referee.core.botspec import resolve  # noqa: E402
from referee.match import Match, MatchConfig  # noqa: E402
from referee.seats.process import sandbox  # noqa: E402

RSS_TOLERANCE = 10 << 20
COMPETENT = ROOT / "sample_players/yahtzee/bin/competent"
RANDOM_PLAYER = ROOT / "sample_players/yahtzee/random_player.py"


@dataclass(frozen=True)
class Figures:
    fds: int
    children: int
    zombies: int
    rss: int
    threads: int
    workdirs: int

    @classmethod
    def now(cls) -> Figures:
        me = psutil.Process()
        live = zombies = 0
        for child in me.children(recursive=True):
            try:
                if child.status() == psutil.STATUS_ZOMBIE:
                    zombies += 1
                else:
                    live += 1
            except psutil.NoSuchProcess:
                continue
        return cls(
            fds=len(os.listdir("/proc/self/fd")),
            children=live,
            zombies=zombies,
            rss=me.memory_info().rss,
            threads=me.num_threads(),
            workdirs=len(list(Path(tempfile.gettempdir()).glob("referee-*"))),
        )

    def show(self, label: str) -> None:
        print(
            f"{label:>14}: fds {self.fds:3d}  children {self.children}  zombies {self.zombies}  "
            f"rss {self.rss / 2**20:7.1f} MiB  threads {self.threads}  workdirs {self.workdirs}",
            flush=True,
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches to play (default 1000)")
    parser.add_argument("--games", type=int, default=2, help="games per match (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    parser.add_argument(
        "--sandbox", choices=sandbox.CHOICES, default=None, help="isolation layer (default: the referee's)"
    )
    parser.add_argument(
        "--python",
        default="python3",
        help="interpreter for the random player (default: python3 from PATH, as on the command line; "
        "an interpreter only root can read, such as a pyenv one under /root, denies the bot a uid of its own)",
    )
    return parser.parse_args(argv)


async def soak(args: argparse.Namespace, stderr_dir: str, start: Figures) -> tuple[Figures, int]:
    specs = [resolve(str(COMPETENT)), resolve(f"{args.python} {RANDOM_PLAYER}")]
    layer = {} if args.sandbox is None else {"sandbox": args.sandbox}
    forfeits = 0
    warm = start
    every = max(args.matches // 10, 1)
    for i in range(args.matches):
        config = MatchConfig(
            game="yahtzee", games=args.games, seed=args.seed + i, pin=False, stderr_dir=stderr_dir, **layer
        )
        result = await Match(games.get("yahtzee")(), specs, config).run()
        forfeits += sum(sum(p.forfeits.values()) for p in result.players)
        if i == 0:
            warm = Figures.now()
            warm.show("after match 1")
            print(f"{'':>14}  layers: " + "; ".join(f"{p.name}: {p.sandbox}" for p in result.players))
        elif (i + 1) % every == 0:
            Figures.now().show(f"after {i + 1}")
    return warm, forfeits


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not COMPETENT.exists():
        print(f"soak: build the sample players first: make -C {ROOT / 'sample_players'}", file=sys.stderr)
        return 2
    print(
        f"soak: {args.matches} matches of {args.games} Yahtzee games, competent vs random_player, one trio.run"
    )
    # A private temporary directory for the bots' working directories, so that only this
    # run's are counted (other referees may be running).  Bots with a uid of their own
    # must reach their directory in it, as they would in /tmp.
    private_tmp = tempfile.mkdtemp(prefix="soak-")
    os.chmod(private_tmp, 0o755)
    tempfile.tempdir = private_tmp
    start = Figures.now()
    start.show("start")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="stderr-") as stderr_dir:
        warm, forfeits = trio.run(soak, args, stderr_dir, start)
    elapsed = time.perf_counter() - began
    end = Figures.now()
    end.show("end")
    shutil.rmtree(private_tmp, ignore_errors=True)
    print(
        f"{args.matches} matches in {elapsed:.1f} s ({elapsed / args.matches * 1e3:.0f} ms per match), {forfeits} forfeits"
    )

    problems = [
        f"{name} grew from {before} to {after}"
        for name in ("fds", "children", "zombies", "workdirs")
        if (after := getattr(end, name)) > (before := getattr(start, name))
    ]
    if end.rss - warm.rss > RSS_TOLERANCE:
        problems.append(
            f"rss grew by {(end.rss - warm.rss) / 2**20:.1f} MiB after the first match "
            f"(tolerance {RSS_TOLERANCE >> 20} MiB)"
        )
    if forfeits:
        problems.append(f"{forfeits} forfeits between two well-behaved bots")
    for problem in problems:
        print(f"soak: FAIL: {problem}")
    if not problems:
        print(f"soak: OK (rss {(end.rss - warm.rss) / 2**20:+.1f} MiB since the first match)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
