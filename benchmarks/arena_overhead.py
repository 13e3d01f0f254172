"""The arena's scheduler overhead per match against the tournament runner (issue 29).

The same two bots (bidding-wars: bid_prize.py and random.py, each a bot.toml folder with
the protocol package, as the arena builds them), the same match length (``--games``),
one match at a time, the same sandbox:

* ``referee tournament A B --games G --rounds N --concurrency 1``, run for N1 and N2
  rounds: the difference of the wall times over the difference of the matches is the
  tournament's time per match, its start-up and report left out;
* the arena's ladder loop (``referee.arena.ladder.run`` with the ratings refit beside
  it, as ``referee arena serve`` runs them, no web server): the time from the end of
  match k to the end of match k + M, over M — its start-up left out too.

The difference is the arena's overhead per match (choosing the pairing in the store,
committing the match whole, the refit, a per-match seed).
Run: ``.venv/bin/python benchmarks/arena_overhead.py [--games 20] [--matches 30]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee.arena import create, intake, ladder, rating
from referee.arena.context import open_arena

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_players" / "bidding_wars"


def bot_folder(where: Path, source: Path) -> Path:
    where.mkdir(parents=True)
    (where / "main.py").write_text(source.read_text())
    (where / "bot.toml").write_text(f'name = "{where.name}"\nrun = "python3 main.py"\n')
    intake.provide_protocol(where)
    return where


def tournament(bots: list[Path], games: int, rounds: int, out: Path) -> float:
    argv = [sys.executable, "-m", "referee", "tournament", *map(str, bots), "--game", "bidding-wars",
            "--games", str(games), "--rounds", str(rounds), "--concurrency", "1", "--seed", "3",
            "--out", str(out), "--quiet"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"tournament failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started


def arena_run(tmp: Path, bots: list[Path], games: int, matches: int) -> tuple[list[float], list[float]]:
    tmp.mkdir(parents=True, exist_ok=True)
    config = tmp / "arena.toml"
    config.write_text(
        f'game = "bidding-wars"\nhouse = []\nseed = 3\n[ladder]\ngames = {games}\nplacement_matches = 0\n'
    )
    (tmp / "roster.csv").write_text("student\na\nb\n")
    folder = tmp / "course"
    create.init(folder, None, config, tmp / "roster.csv")
    arena = open_arena(folder)
    now = time.time()
    with arena.store.tx() as conn:
        for k, (student, home) in enumerate(zip(("a", "b"), bots, strict=True), 1):
            sid = conn.execute("SELECT id FROM students WHERE name = ?", (student,)).fetchone()[0]
            conn.execute(
                "INSERT INTO submissions (id, student_id, created, filename, size, sha256, path, state, outcome, "
                "updated) VALUES (?, ?, ?, 'main.py', 1, '', 'x', 'done', 'ok', ?)",
                (k, sid, now, now),
            )
            conn.execute(
                "INSERT INTO bots (student_id, submission_id, label, path, created, active) VALUES (?, ?, ?, ?, ?, 1)",
                (sid, k, student, str(home), now),
            )

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ladder.run, arena, 1)
            nursery.start_soon(rating.run, arena)
            # Bounded: a match that fails is never done (ten minutes is ~40× the expected run).
            with trio.fail_after(600):
                while arena.store.row("SELECT count(*) FROM matches WHERE state = 'done'")[0] < matches:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    trio.run(main)
    rows = arena.store.all("SELECT started, finished FROM matches WHERE state = 'done' ORDER BY id")
    arena.store.close()
    return [f - s for s, f in rows], [f for _, f in rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--matches", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        bots = [bot_folder(tmp / "bots" / "good", SAMPLES / "bid_prize.py"),
                bot_folder(tmp / "bots" / "weak", SAMPLES / "random.py")]  # fmt: skip
        short, long = 2, 2 + args.matches
        t_short = tournament(bots, args.games, short, tmp / "t1")
        t_long = tournament(bots, args.games, long, tmp / "t2")
        per_tournament = (t_long - t_short) / (long - short)
        print(f"referee tournament, {args.games}-game matches, one at a time: {short} matches {t_short:.2f} s, "
              f"{long} matches {t_long:.2f} s -> {per_tournament * 1000:.0f} ms per match")  # fmt: skip
        durations, ends = arena_run(tmp / "arena", bots, args.games, args.matches + 2)
        per_arena = (ends[-1] - ends[1]) / (len(ends) - 2)
        in_match = sum(durations[2:]) / len(durations[2:])
        print(f"arena ladder loop, same bots and length: {per_arena * 1000:.0f} ms per match end to end "
              f"({in_match * 1000:.0f} ms of it from the match's start to its stored end; "
              f"{(per_arena - in_match) * 1000:.0f} ms choosing and starting the next)")  # fmt: skip
        print(f"overhead per match, arena - tournament: {(per_arena - per_tournament) * 1000:+.0f} ms")
        json.dump({"tournament_ms": per_tournament * 1000, "arena_ms": per_arena * 1000}, sys.stdout)
        print()


if __name__ == "__main__":
    main()
