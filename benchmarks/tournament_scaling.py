"""Tournament figures (issue 11): throughput at 1 and 2 workers, the scheduler's cost per
match, and the referee's memory over many matches.

    python benchmarks/tournament_scaling.py [--only p4|overhead|interleaved|memory]
        [--bots 30] [--games 100] [--overhead-matches 200] [--deals 200000]
        [--memory-matches 10000] [--light-sandbox rlimits]

1. **P4, throughput.**  A round robin of ``--bots`` instant C Yahtzee bots (the ``referee
   bench`` bot: always legal, no thinking), ``--games`` games per match, played through
   the tournament runner with ``concurrency`` 1 and then 2: games per second each, and
   the ratio (goal: ≥ 1.8 on 2 cores).
2. **Scheduler overhead per match.**  ``--overhead-matches`` one-game matches between two
   instant bots, once through the runner (a worker process, the frames, the store, the
   summary file per match) and once as the same ``MatchSpec``s played one after another
   by ``Match.run`` in this process: the difference per match is what the tournament
   machinery adds (goal: ≤ 5 ms).
3. **Interleaved dice poker.**  ``--deals`` rounds of one deal between two instant C
   bots that live for the whole tournament, through the runner (one slice per deal),
   against the same number of deals as one plain match: what the slicing costs.
4. **Memory.**  ``--memory-matches`` one-game matches through the runner (concurrency 2),
   the parent's resident memory sampled as they finish (goal: bounded and flat).

Parts 2 and 4 run their bots under ``--light-sandbox`` (default ``rlimits``): neither
figure depends on the layer, and a namespaced start (~0.15 s a match as root here) would
drown a difference of milliseconds in noise.

Each part prints its figures; nothing is asserted.  Everything runs in temporary
directories.  Needs ``cc``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee import games
from referee.cli.bench import DICE_POKER_FAST_C, YAHTZEE_FAST_C
from referee.core.botspec import BotSpec
from referee.match import Match, MatchConfig
from referee.tournament.config import RunSettings, TournamentConfig
from referee.tournament.plan import Plan
from referee.tournament.runner import Runner
from referee.tournament.store import Store


def compile_bot(work: Path, source_text: str = YAHTZEE_FAST_C, name: str = "fast") -> Path:
    source = work / f"{name}.c"
    source.write_text(source_text)
    binary = work / name
    subprocess.run(["cc", "-O2", "-o", str(binary), str(source)], check=True)
    binary.chmod(0o755)
    return binary


def field(binary: Path, n: int) -> dict[str, BotSpec]:
    return {
        f"bot{i + 1:02d}": BotSpec(name=f"bot{i + 1:02d}", argv=[str(binary)], home=str(binary.parent))
        for i in range(n)
    }


def runner_for(config: TournamentConfig, specs: dict[str, BotSpec], out: Path, concurrency: int) -> Runner:
    """A runner for a new tournament in ``out`` (its store open until :func:`timed`)."""
    store = Store.open(out, config, seed=config.seed, bots=specs.values())
    return Runner(
        config, specs, store, RunSettings(out=str(out), concurrency=concurrency), games.get(config.game)
    )


def timed(runner: Runner) -> float:
    """Play the runner's tournament; its wall time in seconds."""
    started = time.perf_counter()
    try:
        trio.run(runner.run)
    finally:
        runner.store.close()
    return time.perf_counter() - started


def tournament(
    specs: dict[str, BotSpec],
    out: Path,
    games_per_match: int,
    concurrency: int,
    *,
    rounds: int = 1,
    sandbox: str = "auto",
) -> tuple[Runner, float]:
    """A Yahtzee round robin of ``specs``: the runner and its wall time."""
    config = TournamentConfig(
        game="yahtzee",
        format="round-robin",
        field=list(specs),
        games=games_per_match,
        seed=1,
        rounds=rounds,
        sandbox=sandbox,
    )
    runner = runner_for(config, specs, out, concurrency)
    return runner, timed(runner)


def throughput(binary: Path, work: Path, bots: int, games_per_match: int) -> None:
    specs = field(binary, bots)
    matches = bots * (bots - 1) // 2
    print(f"P4: round robin of {bots} instant C Yahtzee bots, {matches} matches of {games_per_match} games")
    rates = {}
    for concurrency in (1, 2):
        out = work / f"p4-{concurrency}"
        _, elapsed = tournament(specs, out, games_per_match, concurrency)
        rates[concurrency] = matches * games_per_match / elapsed
        print(f"  concurrency {concurrency}: {elapsed:.1f} s, {rates[concurrency]:.0f} games/s")
    ratio = rates[2] / rates[1]
    print(f"  ratio C=2 / C=1: {ratio:.2f} (goal >= 1.8: {'met' if ratio >= 1.8 else 'missed'})")


def overhead(binary: Path, work: Path, matches: int, sandbox: str) -> None:
    # Two bots, `matches` rounds of one one-game match each.
    specs = field(binary, 2)
    out = work / "overhead"
    runner, through_runner = tournament(specs, out, 1, 1, rounds=matches, sandbox=sandbox)
    config = runner.config
    plan = Plan(config, games.get("yahtzee"))
    fmt = plan.main_format({})
    assert fmt is not None
    planned = plan.main(fmt, {}) or []
    game = games.get("yahtzee")()

    async def direct() -> float:
        started = time.perf_counter()
        for p in planned:
            spec = runner.stored_spec(p)
            await Match(game, spec.bots, spec.config).run()
        return time.perf_counter() - started

    alone = trio.run(direct)
    per_runner = through_runner / matches * 1e3
    per_alone = alone / matches * 1e3
    extra = per_runner - per_alone
    print(f"Scheduler overhead: {matches} one-game matches (--sandbox {sandbox})")
    print(f"  through the runner {per_runner:.2f} ms per match; Match.run alone {per_alone:.2f} ms per match")
    print(f"  overhead {extra:.2f} ms per match (goal <= 5 ms: {'met' if extra <= 5 else 'missed'})")


def interleaved(work: Path, deals: int) -> None:
    """Dice poker's tournament (seed 000: "in each round, each pair of AIs will play one
    deal"), bots that live for the whole tournament, one deal per slice: two instant C
    bots for ``deals`` rounds at concurrency 1, against the same deals as one plain match
    (``Match.run`` in this process); then four bots (six pairs, ``deals`` deals in all) at
    concurrency 1 and 2 — what a session's slots cost when the bots answer at once."""
    binary = compile_bot(work, DICE_POKER_FAST_C, "dice")

    def dice_poker(names: str, rounds: int, concurrency: int) -> float:
        specs = {n: BotSpec(name=n, argv=[str(binary)], home=str(binary.parent)) for n in names}
        config = TournamentConfig(
            game="dice-poker", format="round-robin", field=list(specs), games=1, seed=1, rounds=rounds
        )
        return timed(runner_for(config, specs, work / f"dice-{names}-{concurrency}", concurrency))

    through = dice_poker("ab", deals, 1) / deals * 1e6
    pair = [BotSpec(name=n, argv=[str(binary)], home=str(binary.parent)) for n in "ab"]
    match = Match(games.get("dice-poker")(), pair, MatchConfig(game="dice-poker", games=deals, seed=1))
    started = time.perf_counter()
    trio.run(match.run)
    alone = (time.perf_counter() - started) / deals * 1e6
    print(f"Interleaved dice poker: {deals} rounds of one deal between two instant C bots")
    print(f"  tournament (one slice per deal, C = 1): {through:.1f} µs per deal, everything included")
    print(f"  one plain match of {deals} deals: {alone:.1f} µs per deal ({through / alone:.2f}×)")
    rounds = max(1, deals // 6)
    for concurrency in (1, 2):
        seconds = dice_poker("abcd", rounds, concurrency)
        print(f"  four bots, {rounds * 6} deals, C = {concurrency}: {seconds:.1f} s")


def memory(binary: Path, work: Path, matches: int, sandbox: str) -> None:
    specs = field(binary, 2)
    out = work / "memory"
    me = psutil.Process()
    samples: list[tuple[float, int, int]] = []
    done = threading.Event()
    box: dict[str, Runner] = {}
    started = time.perf_counter()

    def sample() -> None:
        while not done.wait(2.0):
            runner = box.get("runner")
            count = len(runner.outcomes) if runner is not None else 0
            samples.append((time.perf_counter() - started, count, me.memory_info().rss))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    config = TournamentConfig(
        game="yahtzee",
        format="round-robin",
        field=list(specs),
        games=1,
        seed=1,
        rounds=matches,
        sandbox=sandbox,
    )
    runner = box["runner"] = runner_for(config, specs, out, 2)
    timed(runner)
    done.set()
    watcher.join()
    print(
        f"Memory: {matches} one-game matches at concurrency 2 (--sandbox {sandbox}), "
        f"{time.perf_counter() - started:.0f} s"
    )
    step = max(1, len(samples) // 10)
    for at, count, rss in samples[::step] + samples[-1:]:
        print(f"  {at:6.0f} s  {count:6d} matches  parent RSS {rss / 2**20:6.1f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--overhead-matches", type=int, default=200)
    parser.add_argument("--memory-matches", type=int, default=10_000)
    parser.add_argument(
        "--deals", type=int, default=200_000, help="rounds of the interleaved dice-poker part"
    )
    parser.add_argument("--only", choices=("p4", "overhead", "interleaved", "memory"))
    parser.add_argument(
        "--light-sandbox",
        default="rlimits",
        help="the overhead and memory parts' sandbox (default rlimits: neither figure depends on "
        "the layer, and a namespaced start costs ~0.15 s a match here, which would drown the overhead)",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="referee-tournament-bench-"))
    work.chmod(0o755)  # as root each bot runs under a uid of its own, which must read its files
    try:
        binary = compile_bot(work)
        print(f"{os.cpu_count()} cores; usable {len(os.sched_getaffinity(0))}")
        if args.only in (None, "p4"):
            throughput(binary, work, args.bots, args.games)
        if args.only in (None, "overhead"):
            overhead(binary, work, args.overhead_matches, args.light_sandbox)
        if args.only in (None, "interleaved"):
            interleaved(work, args.deals)
        if args.only in (None, "memory"):
            memory(binary, work, args.memory_matches, args.light_sandbox)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
