"""``referee arena`` (issue 29): the API end to end against a served arena.

One arena for the module, served by ``referee arena serve`` in a child process: four
students upload a good bot (a zip), a weak one (a tar.gz), one that crashes at start and
one that does not compile; the leaderboard ranks good above weak and lists the broken
two with their causes; students cannot see each other's code, stderr or pages, nor the
TA's; hostile uploads are refused; 30 submissions at once are all taken and checked; a
``kill -9`` mid-match loses and double-counts nothing; the deadline's freeze grades it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.arena_helpers import (
    BROKEN_C,
    CRASH,
    Server,
    call,
    db,
    good_zip,
    init,
    upload,
    upload_too_big,
    wait_done,
    wait_for,
    weak_tar,
    zip_of,
)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

STUDENTS = ["alice", "bob", "carol", "dave", "eve", "frank"]
CROWD = [f"s{k:02d}" for k in range(30)]


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    base = tmp_path_factory.mktemp("arena")
    folder = base / "course"
    tokens = init(folder, STUDENTS + CROWD)
    server = Server(folder).start()
    state: dict = {"folder": folder, "tokens": tokens, "server": server, "subs": {}}
    yield state
    state["server"].stop()


def _board(arena, who: str = "alice") -> dict:
    status, data = call(f"{arena['server'].url}/api/leaderboard", arena["tokens"][who])
    assert status == 200, data
    return data


@pytest.mark.slow
def test_init_wrote_tokens_once_and_hashed(arena):
    folder, tokens = arena["folder"], arena["tokens"]
    assert oct((folder / "tokens.csv").stat().st_mode & 0o777) == "0o600"
    # The store holds the token hashes and every student's results: the owner's alone.
    for name in ("arena.sqlite", "arena.sqlite-wal"):
        if (folder / name).exists():
            assert oct((folder / name).stat().st_mode & 0o777) == "0o600", name
    assert set(STUDENTS + CROWD) <= set(tokens)
    raw = (folder / "arena.sqlite").read_bytes()
    for token in list(tokens.values())[:5]:
        # The secret (after "arena-<id>-"; it may hold "-" itself) is nowhere in the store.
        assert token.encode() not in raw and token.split("-", 2)[2].encode() not in raw


@pytest.mark.slow
def test_four_bots_through_the_api(arena):
    server, tokens, subs = arena["server"], arena["tokens"], arena["subs"]
    for student, name, data in (
        ("alice", "good.zip", good_zip()),
        ("bob", "weak.tar.gz", weak_tar()),
        ("carol", "crash.py", CRASH),
        ("dave", "broken.c", BROKEN_C),
    ):
        status, made = upload(server, tokens[student], name, data)
        assert status == 201, made
        subs[student] = made["id"]
    done = {s: wait_done(server, tokens[s], sid) for s, sid in subs.items()}
    assert done["alice"]["outcome"] == "ok", done["alice"]
    assert done["bob"]["outcome"] == "ok", done["bob"]
    assert done["carol"]["outcome"] in ("check-failed", "cannot-start"), done["carol"]
    assert done["carol"]["step"] == "check"
    assert done["dave"]["outcome"] == "compile-error", done["dave"]
    assert "error" in json.dumps(done["dave"]["steps"]["build"])
    items = {i["key"]: i for i in done["alice"]["steps"]["check"]["items"]}
    assert items and all(i["status"] == "pass" for i in items.values())

    def ranked():
        board = _board(arena)
        rated = [e for e in board["students"] if e["status"] == "playing"]
        if len(rated) == 2 and all(e["games"] >= 40 and e["placement_left"] == 0 for e in rated):
            return board
        return None

    board = wait_for(ranked, 300, "good and weak rated on the ladder")
    entries = board["students"]
    assert entries[0]["you"] and entries[0]["student"] == "alice" and entries[0]["rank"] == 1
    assert entries[1]["student"] != "bob"  # anonymised to alice
    assert entries[0]["rating"] > entries[1]["rating"]
    assert entries[0]["low"] <= entries[0]["rating"] <= entries[0]["high"]
    assert entries[0]["rank_range"][0] == 1
    broken = {
        e["last_submission"]["id"]: e for e in entries if e["status"] == "no-bot" and "last_submission" in e
    }
    carol, dave = broken[subs["carol"]], broken[subs["dave"]]
    assert carol["last_submission"]["outcome"] == "check-failed"
    assert "startup" in carol["last_submission"]["cause"]
    assert dave["last_submission"]["outcome"] == "compile-error"
    assert "build" in dave["last_submission"]["cause"]
    # Another student's stderr never reaches the leaderboard.
    assert "secret" not in json.dumps(board)
    # The TA sees names.
    admin = _board(arena, "__admin__")
    assert {e["student"] for e in admin["students"][:2]} == {"alice", "bob"}


def test_bot_and_game_pages(arena):
    server, tokens = arena["server"], arena["tokens"]
    me = call(f"{server.url}/api/me", tokens["alice"])[1]
    status, bot = call(f"{server.url}/api/bots/{me['active_bot']}", tokens["alice"])
    assert status == 200 and bot["yours"] and bot["recent"], bot
    match = bot["recent"][0]
    status, game = call(f"{server.url}/api/games/{match['id']}", tokens["alice"])
    assert status == 200 and game["players"], game
    mine = next(p for p in game["players"] if p["bot"] == me["active_bot"])
    assert "stderr_tail" in mine
    done = next(g for g in bot["recent"] if g["state"] == "done")
    assert done["replay"] == f"/games/{done['id']}/replay"


def test_students_cannot_reach_each_other(arena):
    server, tokens, subs = arena["server"], arena["tokens"], arena["subs"]
    url = server.url
    assert call(f"{url}/api/submissions/{subs['alice']}", tokens["bob"])[0] == 404
    assert call(f"{url}/api/submissions/{subs['carol']}", tokens["bob"])[0] == 404
    assert call(f"{url}/api/submissions/{subs['carol']}", tokens["__admin__"])[0] == 200
    assert call(f"{url}/api/admin/students", tokens["bob"])[0] == 404
    assert call(f"{url}/api/admin/pause", tokens["bob"], b"{}", method="POST")[0] in (403, 404)
    assert call(f"{url}/api/leaderboard")[0] == 401
    assert call(f"{url}/api/leaderboard", tokens["bob"][:-1] + "x")[0] == 401
    assert call(f"{url}/api/leaderboard", "arena-00000000-" + "A" * 43)[0] == 401
    # Alice's bot seen by Bob: games yes, her stderr and forfeit details no.
    alice_bot = call(f"{url}/api/me", tokens["alice"])[1]["active_bot"]
    status, bot = call(f"{url}/api/bots/{alice_bot}", tokens["bob"])
    assert status == 200 and not bot["yours"] and "submission" not in bot
    assert all("detail" not in f for f in bot["forfeits"])
    for match in bot["recent"][:3]:
        game = call(f"{url}/api/games/{match['id']}", tokens["bob"])[1]
        for p in game["players"]:
            if p["bot"] == alice_bot:
                assert "stderr_tail" not in p
    # Another Host header is refused (DNS rebinding).
    status, _ = call(f"{url}/api/leaderboard", tokens["bob"], headers={"Host": "evil.example"})
    assert status == 400
    # A page without a session goes to the login page.
    status, text = call(f"{url}/admin")
    assert status == 200 and "log in" in str(text)


@pytest.mark.slow
def test_hostile_uploads_are_refused(arena):
    server, tokens = arena["server"], arena["tokens"]
    eve = tokens["eve"]
    assert upload_too_big(server, eve, 2 * 1024 * 1024) == 413
    status, data = upload(server, eve, "empty.py", b"")
    assert status == 400, data
    outcomes = {}
    for name, payload in (
        ("escape.zip", zip_of({"../../evil.py": "print(1)"})),
        ("abs.zip", zip_of({"/etc/evil.py": "print(1)"})),
        ("notazip.zip", b"PK\x03\x04 this is not a zip"),
    ):
        status, made = upload(server, eve, name, payload)
        assert status == 201, made
        outcomes[name] = wait_done(server, eve, made["id"], 60)
    assert outcomes["escape.zip"]["outcome"] == "unsafe-path"
    assert outcomes["abs.zip"]["outcome"] == "unsafe-path"
    assert outcomes["notazip.zip"]["outcome"] != "ok"
    assert not list(arena["folder"].parent.rglob("evil.py"))
    # The per-hour limit: 6 in this arena (3 taken above, 413 and 400 not counted).
    for _ in range(3):
        assert upload(server, eve, "escape.zip", zip_of({"../x.py": "1"}))[0] == 201
    status, data = upload(server, eve, "escape.zip", zip_of({"../x.py": "1"}))
    assert status == 429 and "hour" in data["error"], data


@pytest.mark.slow
def test_thirty_submissions_at_once(arena):
    from concurrent.futures import ThreadPoolExecutor

    server, tokens = arena["server"], arena["tokens"]

    def one(student: str):
        payload = CRASH if student.endswith(("0", "5")) else zip_of({"../up.py": "1"})
        name = "bot.py" if isinstance(payload, str) else "bot.zip"
        return student, upload(server, tokens[student], name, payload)

    with ThreadPoolExecutor(30) as pool:
        results = list(pool.map(one, CROWD))
    ids = []
    for student, (status, made) in results:
        assert status == 201, (student, made)
        ids.append((student, made["id"]))
    assert len({sid for _, sid in ids}) == 30
    for student, sid in ids:
        data = wait_done(server, tokens[student], sid, 300)
        expected = "check-failed" if student.endswith(("0", "5")) else "unsafe-path"
        assert data["outcome"] == expected, data


def _consistent(folder: Path) -> dict:
    """The store's invariants: every done match's games stored once, bots' counts equal to them.

    Read in one transaction, so from one snapshot: the server may finish a match meanwhile,
    and statement by statement the counts could be read before it and the matches after."""
    with db(folder) as conn:
        conn.execute("BEGIN")
        states = dict(conn.execute("SELECT state, count(*) FROM matches GROUP BY state").fetchall())
        for mid, record in conn.execute("SELECT id, record FROM matches WHERE state = 'done'"):
            played = json.loads(record)["games_played"]
            stored = conn.execute("SELECT count(*) FROM games WHERE match_id = ?", (mid,)).fetchone()[0]
            assert stored == played, (mid, stored, played)
        for bid, games in conn.execute("SELECT id, games FROM bots"):
            counted = 0
            for (record,) in conn.execute(
                "SELECT m.record FROM matches m JOIN match_bots b ON b.match_id = m.id "
                "WHERE b.bot_id = ? AND m.state = 'done'",
                (bid,),
            ):
                counted += next(p["games"] for p in json.loads(record)["players"] if p["name"] == f"b{bid}")
            assert counted == games, (bid, counted, games)
        subs = conn.execute("SELECT count(*) FROM submissions").fetchone()[0]
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    return {"states": states, "submissions": subs, "games": games}


@pytest.mark.slow
def test_kill_9_mid_match_loses_nothing(arena):
    folder, server = arena["folder"], arena["server"]

    def into_its_games():
        """A running match that has played a game (its replay has a line): mid-match."""
        with db(folder) as conn:
            rows = conn.execute("SELECT id FROM matches WHERE state = 'running'").fetchall()
        for (mid,) in rows:
            log = folder / "logs" / f"m{mid}.jsonl"
            if log.is_file() and log.stat().st_size > 0:
                return mid
        return None

    # The match may end between the look and the kill: then look again (bounded).
    for _attempt in range(5):
        cut = wait_for(into_its_games, 120, "a match into its games", step=0.02)
        server.kill9()
        before = _consistent(folder)
        if before["states"].get("running", 0) >= 1:
            break
        arena["server"] = server = Server(folder).start()
    assert before["states"].get("running", 0) >= 1, "no match was cut short in 5 tries"
    with db(folder) as conn:
        cut = conn.execute("SELECT id FROM matches WHERE state = 'running' ORDER BY id").fetchone()[0]
    uploads = sorted(p.name for p in (folder / "uploads").iterdir())
    arena["server"] = server = Server(folder).start()
    log = (folder.parent / "serve.log").read_text()
    assert "recovered 1 match(es)" in log.rsplit("arena course:", 1)[-1], log[-2000:]

    def replayed():
        with db(folder) as conn:
            row = conn.execute("SELECT state, attempts FROM matches WHERE id = ?", (cut,)).fetchone()
        return row if row[0] == "done" else None

    _state, attempts = wait_for(replayed, 180, f"match {cut} replayed")
    assert attempts == 2
    after = _consistent(folder)
    assert after["submissions"] == before["submissions"]
    assert after["games"] > before["games"]
    assert sorted(p.name for p in (folder / "uploads").iterdir()) == uploads
    # Ratings still there, and the same order.
    board = wait_for(
        lambda: _board(arena) if _board(arena)["students"][0].get("rating") else None, 60, "ratings"
    )
    assert board["students"][0]["student"] == "alice"


def test_admin_pause_and_disqualify(arena):
    server, tokens = arena["server"], arena["tokens"]
    admin = tokens["__admin__"]
    students = call(f"{server.url}/api/admin/students", admin)[1]["students"]
    frank = next(s for s in students if s["name"] == "frank")
    status, _ = call(
        f"{server.url}/api/admin/disqualify", admin, json.dumps({"student": frank["id"], "reason": "copied"}).encode(),
        {"Content-Type": "application/json"},
    )  # fmt: skip
    assert status == 200
    status, data = upload(server, tokens["frank"], "bot.py", CRASH)
    assert status == 403 and "copied" in data["error"]
    assert call(f"{server.url}/api/admin/pause", admin, b"{}", method="POST")[0] == 200
    assert _board(arena)["paused"]
    assert call(f"{server.url}/api/admin/resume", admin, b"{}", method="POST")[0] == 200
    assert not _board(arena)["paused"]


@pytest.mark.slow
def test_submit_command_prints_the_report(arena, tmp_path):
    import subprocess
    import sys

    bot = tmp_path / "crash.py"
    bot.write_text(CRASH)
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli.arena", "submit", arena["server"].url, str(bot), "--timeout", "240"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "REFEREE_ARENA_TOKEN": arena["tokens"]["carol"]},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "check: check-failed" in done.stdout and "FAIL startup" in done.stdout, done.stdout


@pytest.mark.slow
def test_freeze_into_the_grading_pipeline(arena):
    import subprocess
    import sys

    folder = arena["folder"]
    arena["server"].stop()
    grading = folder.parent / "grading.toml"
    grading.write_text(
        '[check]\ngames = 4\n[qualify]\ngames = 30\nrule = "more-wins"\n[compete]\ngames = 20\n'
    )
    out = folder.parent / "grades"
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli.arena", "arena", "freeze", str(folder), "--out", str(out),
         "--config", str(grading)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    import csv

    rows = {r["student"]: r for r in csv.DictReader((out / "grading" / "gradebook.csv").open())}
    assert set(STUDENTS + CROWD) <= set(rows), sorted(rows)
    assert rows["alice"]["outcome"] == "ok" and rows["bob"]["outcome"] in ("ok", "not-qualified")
    # Nothing of dave's passed: his last upload is graded as it fails, not as missing.
    assert rows["dave"]["outcome"] == "compile-error", rows["dave"]
    assert rows["s03"]["outcome"] == "unsafe-path" and rows["alice"]["outcome"] == "ok"
    assert float(rows["alice"]["total"]) > float(rows["dave"]["total"])
    assert (out / "grading" / "students" / "alice" / "results.json").is_file()
    assert (out / "grading" / "students" / "alice" / "feedback.html").is_file()
    frozen = json.loads((out / "frozen.json").read_text())
    assert frozen["students"]["alice"]["submission"] == arena["subs"]["alice"]
    assert frozen["students"]["alice"]["checked"] and not frozen["students"]["dave"]["checked"]
