"""The arena's leaderboard with 300 bots and 100,000 games (issue 29; goal ≤ 200 ms).

A synthetic arena: 300 students, each with an active bot (and a replaced one), 2,000 done
matches of 50 games (100,000 game rows), a ratings row per bot.  Times the leaderboard as
the API makes it (the view and its JSON) and as the page renders it, best and median of
``--runs``.  Run: ``.venv/bin/python benchmarks/arena_leaderboard.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from referee.arena import create, pages, views
from referee.arena.context import open_arena


def build(folder: Path, students: int, matches: int, games: int) -> None:
    roster = folder.parent / "roster.csv"
    roster.write_text("student\n" + "".join(f"st{k:03d}\n" for k in range(students)))
    create.init(folder, "bidding-wars", None, roster)
    arena = open_arena(folder)
    rng = random.Random(1)
    now = time.time()
    with arena.store.tx() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM students WHERE role = 'student'")]
        bots = []
        for sid in ids:
            for version in range(2):
                sub = conn.execute(
                    "INSERT INTO submissions (student_id, created, filename, size, sha256, path, state, outcome, "
                    "summary, step, updated) VALUES (?, ?, 'bot.py', 1, '', 'x', 'done', 'ok', 'ok', 'check', ?)",
                    (sid, now, now),
                ).lastrowid
                bid = conn.execute(
                    "INSERT INTO bots (student_id, submission_id, label, path, created, active) VALUES (?, ?, ?, ?, ?, ?)",
                    (sid, sub, f"st{sid}", "/bin/true", now, version),
                ).lastrowid
                bots.append(bid)
        record = json.dumps({"players": [{"name": "b0", "games": games}, {"name": "b1", "games": games}]})
        for m in range(matches):
            a, b = rng.sample(bots, 2)
            mid = conn.execute(
                "INSERT INTO matches (kind, state, bots, seed, games, created, record) VALUES ('ladder', 'done', ?, ?, ?, ?, ?)",
                (json.dumps([a, b]), m, games, now, record),
            ).lastrowid
            conn.executemany("INSERT INTO match_bots VALUES (?, ?, ?)", [(mid, a, 0), (mid, b, 1)])
            conn.executemany(
                "INSERT INTO games VALUES (?, ?, '[1,0]', '[1,2]')", [(mid, g) for g in range(games)]
            )
            conn.execute("UPDATE bots SET games = games + ? WHERE id IN (?, ?)", (games, a, b))
        for bid in bots:
            r = rng.gauss(0, 200)
            conn.execute("INSERT INTO ratings VALUES (?, ?, ?, ?, 1, 300)", (bid, r, r - 40, r + 40))
    arena.store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "arena"
        started = time.perf_counter()
        build(folder, args.students, args.matches, args.games)
        print(f"synthetic arena: {args.students} students, {args.matches * args.games} games "
              f"({time.perf_counter() - started:.1f} s to build)")  # fmt: skip
        arena = open_arena(folder)
        viewer = (arena.store.one("SELECT id FROM students WHERE role = 'student'")[0], "student")
        api, page = [], []
        for _ in range(args.runs):
            t = time.perf_counter()
            board = views.leaderboard(arena, viewer)
            json.dumps(board)
            api.append(time.perf_counter() - t)
            t = time.perf_counter()
            pages.leaderboard(views.leaderboard(arena, viewer), "x", "y", False)
            page.append(time.perf_counter() - t)
        assert len(board["students"]) == args.students
        for name, times in (("API /api/leaderboard", api), ("page /leaderboard", page)):
            print(f"{name}: best {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
