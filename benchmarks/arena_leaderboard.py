"""The arena's leaderboard with 300 bots and 100,000 games (issue 29; goal ≤ 200 ms).

A synthetic arena: 300 students, each with an active bot (and a replaced one), 2,000 done
matches of 50 games (100,000 game rows), a ratings row per bot.  Times the leaderboard as
the API makes it (the view and its JSON) and as the page renders it, best and median of
``--runs``; then over HTTP, as a browser and ``curl`` see it: ``referee arena serve``
on that arena (the ladder paused), ``GET /api/leaderboard`` with a student's token and
``GET /leaderboard`` with a logged-in session, each on a kept-alive connection, the
wall time from the request's first byte to the response's last.
Run: ``.venv/bin/python benchmarks/arena_leaderboard.py``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
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


def over_http(folder: Path, runs: int) -> dict[str, list[float]]:
    """The leaderboard's wall time over HTTP from a served arena (the ladder paused)."""
    arena = open_arena(folder)
    with arena.store.tx() as conn:
        arena.store.set_meta(conn, "paused", "1")
    arena.store.close()
    token = (folder / "tokens.csv").read_text().splitlines()[1].split(",", 1)[1]
    log = open(folder.parent / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(folder), "--port", "0", "--concurrency", "1"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (folder / "serve.json").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit((folder.parent / "serve.log").read_text()[-2000:])
            time.sleep(0.05)
        url = urllib.parse.urlsplit(json.loads((folder / "serve.json").read_text())["url"])
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        # A browser's session: the login form's CSRF cookie and field, then the token.
        conn.request("GET", "/login")
        response = conn.getresponse()
        body = response.read().decode()
        login_cookie = response.getheader("set-cookie").split(";", 1)[0]
        csrf = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
        form = urllib.parse.urlencode({"csrf": csrf, "token": token})
        conn.request("POST", "/login", form, {"Cookie": login_cookie,
                     "Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
        response = conn.getresponse()
        response.read()
        session = next(
            c.split(";", 1)[0]
            for c in response.headers.get_all("set-cookie")
            if c.startswith("arena_session=")
        )
        times: dict[str, list[float]] = {"HTTP GET /api/leaderboard": [], "HTTP GET /leaderboard (page)": []}
        for _ in range(runs):
            for name, path, headers in (
                ("HTTP GET /api/leaderboard", "/api/leaderboard", {"Authorization": f"Bearer {token}"}),
                ("HTTP GET /leaderboard (page)", "/leaderboard", {"Cookie": session}),
            ):
                t = time.perf_counter()
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                data = response.read()
                times[name].append(time.perf_counter() - t)
                assert response.status == 200 and len(data) > 10_000, (path, response.status)
        conn.close()
        return times
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


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
        arena.store.close()
        results = {"view + JSON (in process)": api, "page render (in process)": page}
        results.update(over_http(folder, args.runs))
        for name, times in results.items():
            print(
                f"{name}: best {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms, "
                f"worst {max(times) * 1000:.1f} ms"
            )


if __name__ == "__main__":
    main()
