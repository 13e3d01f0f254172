"""Time from an upload to its first ladder game (issue 29).

``referee arena serve`` on a fresh arena (bidding-wars, the random house bot, the check
and matches at ``--check-games`` / ``--games``); ``--students`` students upload a Python
bot (sample_players/bidding_wars/bid_prize.py) through the API one after another, each
after the last one's first match ended.  For each: the upload's round trip, the
time to the end of its check (unpack, build, ``referee check``), to the start of its
first ladder (placement) match, and to that match's stored end.
Run: ``.venv/bin/python benchmarks/arena_first_game.py [--students 3]``.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.arena_helpers import SAMPLES, Server, init, upload, wait_done, wait_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--check-games", type=int, default=4)
    args = parser.parse_args()
    config = (
        f'game = "bidding-wars"\n[ladder]\ngames = {args.games}\nplacement_matches = 2\nrefresh_s = 0.5\n'
        f"[check]\ngames = {args.check_games}\n"
    )
    source = (SAMPLES / "bid_prize.py").read_text()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name) / "course"
        students = [f"st{k}" for k in range(args.students)]
        tokens = init(folder, students, config)
        server = Server(folder).start()
        rows = []
        try:
            for student in students:
                t0 = time.time()
                status, made = upload(server, tokens[student], "bot.py", source)
                assert status == 201, made
                t_up = time.time()
                data = wait_done(server, tokens[student], made["id"], timeout=300)
                assert data["outcome"] == "ok", data
                checked = data["finished"]
                bot = data["bot"]
                with sqlite3.connect(folder / "arena.sqlite", timeout=30) as conn:
                    row = wait_for(
                        lambda bot=bot: conn.execute(
                            "SELECT m.started, m.finished FROM matches m JOIN match_bots b ON b.match_id = m.id "
                            "WHERE b.bot_id = ? AND m.state = 'done' ORDER BY m.id LIMIT 1",
                            (bot,),
                        ).fetchone(),
                        300,
                        "a first ladder match",
                        step=0.05,
                    )
                started, finished = row
                rows.append((t_up - t0, checked - t0, started - t0, finished - t0))
                print(
                    f"{student}: uploaded in {(t_up - t0) * 1000:.0f} ms; checked at {checked - t0:.1f} s; "
                    f"first ladder match started at {started - t0:.1f} s, ended at {finished - t0:.1f} s"
                )
        finally:
            server.stop()
        lo = [min(r[k] for r in rows) for k in range(4)]
        hi = [max(r[k] for r in rows) for k in range(4)]
        gaps = [r[2] - r[1] for r in rows]
        print(
            f"over {len(rows)} uploads: upload round trip {lo[0] * 1000:.0f}–{hi[0] * 1000:.0f} ms; checked "
            f"{lo[1]:.1f}–{hi[1]:.1f} s after the upload, first ladder match started {min(gaps):.1f}–{max(gaps):.1f} s "
            f"after the check and ended {lo[3]:.1f}–{hi[3]:.1f} s after the upload"
        )


if __name__ == "__main__":
    main()
