"""The arena's ladder without a web server (issue 29): a match stopped at its wall limit
is charged to the slow bot (a ``match-wall`` forfeit, lower priority, benched after
repeats), rank ranges among the active bots only, the bounded clean-up of what replaced
bots leave, an older store upgraded, and ladder matches on a Dask LocalCluster."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
import trio

from referee.arena import cleanup, create, intake, ladder, views
from referee.arena.context import open_arena
from referee.arena.store import Store
from tests.arena_helpers import SAMPLES

pytestmark = pytest.mark.e2e

CONFIG = """
game = "bidding-wars"
seed = 5
[ladder]
games = 20
placement_matches = 0
match_wall_s = {wall}
bench_after = 2
keep_replays = 1
replicates = 50
"""

SLOW = (
    (SAMPLES / "random.py")
    .read_text()
    .replace(
        "        request = wire.parse_request(line)\n",
        "        request = wire.parse_request(line)\n        __import__('time').sleep(0.3)\n",
    )
)


def make_arena(tmp_path: Path, wall: float = 4.0, roster=("slowpoke", "quick")):
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG.format(wall=wall))
    (tmp_path / "roster.csv").write_text("student\n" + "".join(f"{s}\n" for s in roster))
    folder = tmp_path / "course"
    create.init(folder, None, config, tmp_path / "roster.csv")
    return open_arena(folder)


def add_bot(arena, student: str, source: str, *, sub: int) -> int:
    """A checked bot for ``student`` (as the intake makes one), active on the ladder."""
    home = arena.folder / "bots" / f"s{sub}"
    home.mkdir(parents=True)
    (home / "main.py").write_text(source)
    (home / "bot.toml").write_text(f'name = "s{sub}"\nrun = "python3 main.py"\n')
    intake.provide_protocol(home)
    (arena.folder / "work" / f"s{sub}" / "upload").mkdir(parents=True)
    (arena.folder / "work" / f"s{sub}" / "check.log").write_text("check\n")
    now = time.time()
    with arena.store.tx() as conn:
        sid = conn.execute("SELECT id FROM students WHERE name = ?", (student,)).fetchone()[0]
        conn.execute(
            "INSERT INTO submissions (id, student_id, created, filename, size, sha256, path, state, outcome, "
            "updated) VALUES (?, ?, ?, 'main.py', 1, '', 'x/upload', 'done', 'ok', ?)",
            (sub, sid, now, now),
        )
        conn.execute("UPDATE bots SET active = 0 WHERE student_id = ?", (sid,))
        return conn.execute(
            "INSERT INTO bots (student_id, submission_id, label, path, created, active) VALUES (?, ?, ?, ?, ?, 1)",
            (sid, sub, f"{student}#{sub}", str(home), now),
        ).lastrowid


def play_lineup(arena, bots: list[int], executor=None) -> int:
    """One ladder match of ``bots``, as the scheduler starts it; its id."""
    now = time.time()
    with arena.store.tx() as conn:
        mid = conn.execute(
            "INSERT INTO matches (kind, state, bots, seed, games, created, started, attempts) "
            "VALUES ('ladder', 'running', ?, 7, ?, ?, ?, 1)",
            (json.dumps(bots), arena.config.ladder.games, now, now),
        ).lastrowid
        conn.executemany(
            "INSERT INTO match_bots (match_id, bot_id, position) VALUES (?, ?, ?)",
            [(mid, b, k) for k, b in enumerate(bots)],
        )

    async def main() -> None:
        own = executor is None
        runner = executor or ladder.LocalSlot(arena.folder / "workers")
        (arena.folder / "workers").mkdir(exist_ok=True)
        try:
            with trio.fail_after(arena.config.ladder.match_wall_s + 120):
                await ladder.play(arena, runner, mid)
        finally:
            if own:
                await runner.close()

    trio.run(main)
    return mid


@pytest.mark.slow
def test_a_match_past_its_wall_limit_is_charged_to_the_slow_bot(tmp_path):
    # Only the slow bot's matches are played here (~80 s each in full): a short wall
    # limit, still seconds beyond its bot's start and first answers (0.3 s each).
    arena = make_arena(tmp_path, wall=5.0)
    slow = add_bot(arena, "slowpoke", SLOW, sub=1)
    house = arena.store.one("SELECT id FROM bots WHERE student_id IS NULL")[0]
    started = time.monotonic()
    mid = play_lineup(arena, [house, slow])
    assert time.monotonic() - started < 5.0 + 40  # stopped, not played out (~80 s)
    state, error = arena.store.one("SELECT state, error FROM matches WHERE id = ?", mid)
    assert state == "failed" and f"charged to bot {slow}" in error, error
    verdict, detail = arena.store.one("SELECT verdict, detail FROM forfeits WHERE match_id = ?", mid)
    assert verdict == "match-wall" and "wall limit of 5 s" in detail, detail
    assert arena.store.one("SELECT count(*) FROM games WHERE match_id = ?", mid)[0] == 0  # not rated
    assert arena.store.one("SELECT wall_stops, benched FROM bots WHERE id = ?", slow) == (1, None)
    # Lower priority: a fresh opponent is chosen before it, it is the last choice for a match.
    quick = add_bot(arena, "quick", (SAMPLES / "random.py").read_text(), sub=2)
    _kind, lineup = ladder.choose(arena, set())
    assert lineup[0] != slow
    # Its page shows the verdict, to everyone; the detail to its author only.
    owner = arena.store.one("SELECT student_id FROM bots WHERE id = ?", slow)[0]
    other = arena.store.one("SELECT student_id FROM bots WHERE id = ?", quick)[0]
    mine = views.bot(arena, (owner, "student"), slow)
    assert mine["forfeits"][0]["verdict"] == "match-wall" and "answers took" in mine["forfeits"][0]["detail"]
    assert "detail" not in views.bot(arena, (other, "student"), slow)["forfeits"][0]
    # A second stop benches it: off the ladder, said on the leaderboard with why.
    play_lineup(arena, [house, slow])
    assert arena.store.one("SELECT wall_stops FROM bots WHERE id = ?", slow)[0] == 2
    assert "benched" in arena.store.one("SELECT benched FROM bots WHERE id = ?", slow)[0]
    assert all(slow not in (ladder.choose(arena, set()) or ("", []))[1] for _ in range(3))
    board = views.leaderboard(arena, (owner, "student"))
    entry = next(e for e in board["students"] if e["you"])
    assert entry["status"] == "benched" and "wall limit" in entry["reason"]


@pytest.mark.slow
def test_a_quick_match_is_stored_and_not_charged(tmp_path):
    arena = make_arena(tmp_path, wall=120.0)
    bot = add_bot(arena, "quick", (SAMPLES / "random.py").read_text(), sub=1)
    house = arena.store.one("SELECT id FROM bots WHERE student_id IS NULL")[0]
    mid = play_lineup(arena, [bot, house])
    assert arena.store.one("SELECT state FROM matches WHERE id = ?", mid)[0] == "done"
    assert arena.store.one("SELECT count(*) FROM games WHERE match_id = ?", mid)[0] == 20
    assert arena.store.one("SELECT wall_stops FROM bots WHERE id = ?", bot)[0] == 0


def test_rank_ranges_from_overlapping_intervals():
    ranges = views.rank_ranges({1: (90, 110), 2: (95, 130), 3: (0, 20), 4: (-50, 5)})
    assert ranges == {1: [1, 2], 2: [1, 2], 3: [3, 4], 4: [3, 4]}
    assert views.rank_ranges({7: (1, 2)}) == {7: [1, 1]}


def test_rank_ranges_only_among_active_student_bots(tmp_path):
    arena = make_arena(tmp_path, roster=("ann", "ben", "cid"))
    ann_old = add_bot(arena, "ann", "x", sub=1)
    ann = add_bot(arena, "ann", "x", sub=2)
    ben = add_bot(arena, "ben", "x", sub=3)
    cid = add_bot(arena, "cid", "x", sub=4)
    house = arena.store.one("SELECT id FROM bots WHERE student_id IS NULL")[0]
    with arena.store.tx() as conn:
        conn.executemany(
            "INSERT INTO ratings (bot_id, rating, low, high, rank_low, rank_high) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (ann_old, 500, 450, 550, 1, 1),  # replaced: far above everyone, and not ranked
                (house, 300, 250, 350, 2, 2),  # a house bot: shown apart, not ranked
                (ann, 100, 50, 150, 3, 4),
                (ben, 90, 40, 140, 3, 4),
                (cid, -200, -260, -150, 5, 5),
            ],
        )
        conn.execute("UPDATE bots SET benched = 'benched: slow' WHERE id = ?", (cid,))
    ann_id = arena.store.one("SELECT student_id FROM bots WHERE id = ?", ann)[0]
    board = views.leaderboard(arena, (ann_id, "student"))
    playing = [e for e in board["students"] if e["status"] == "playing"]
    assert [(e["bot"], e["rank"], e["rank_range"]) for e in playing] == [(ann, 1, [1, 2]), (ben, 2, [1, 2])]
    assert board["students"][2]["status"] == "benched"
    assert [h["bot"] for h in board["house"]] == [house] and "rank_range" not in board["house"][0]
    assert views.bot(arena, (ann_id, "student"), ann)["rank_range"] == [1, 2]
    assert views.bot(arena, (ann_id, "student"), ann_old)["rank_range"] is None


def test_cleanup_keeps_what_freeze_and_recent_replays_need(tmp_path):
    arena = make_arena(tmp_path, roster=("ann", "ben"))
    old = add_bot(arena, "ann", "x", sub=1)
    new = add_bot(arena, "ann", "x", sub=2)
    ben = add_bot(arena, "ben", "x", sub=3)
    with arena.store.tx() as conn:
        ann_id = conn.execute("SELECT student_id FROM bots WHERE id = ?", (old,)).fetchone()[0]
        for sub, outcome in ((4, "compile-error"), (5, "compile-error")):
            conn.execute(
                "INSERT INTO submissions (id, student_id, created, filename, size, sha256, path, state, outcome, "
                "updated) VALUES (?, ?, 0, 'a', 1, '', 'x', 'done', ?, 0)",
                (sub, ann_id, outcome),
            )
        lineups = {1: [old, ben], 2: [old, ben], 3: [new, ben], 4: [old, new]}
        for mid, bots in lineups.items():
            conn.execute(
                "INSERT INTO matches (id, kind, state, bots, seed, games, created) VALUES (?, 'ladder', 'done', ?, "
                "1, 1, 0)",
                (mid, json.dumps(bots)),
            )
            conn.executemany(
                "INSERT INTO match_bots (match_id, bot_id, position) VALUES (?, ?, ?)",
                [(mid, b, k) for k, b in enumerate(bots)],
            )
        conn.execute("UPDATE bots SET active = 0 WHERE id = ?", (ben,))  # ben's bot replaced, none active
    for sub in (4, 5):
        (arena.folder / "work" / f"s{sub}").mkdir()
    for mid in range(1, 5):
        (arena.folder / "logs" / f"m{mid}.jsonl").write_text("{}\n")
        (arena.folder / "stderr" / f"m{mid}").mkdir()
    removed = cleanup.clean(arena)
    work = arena.folder / "work"
    assert sorted(p.name for p in (work / "s1").iterdir()) == ["upload"]  # freeze's tree kept
    assert (work / "s2" / "check.log").exists()  # the active bot's: untouched
    assert not (work / "s4").exists() and (work / "s5").exists()  # a failed one, but the last kept
    # m1, m2: replaced bots only, and neither's last match (keep_replays = 1) -> gone;
    # m3: ben's last (and the active bot's); m4: the active bot's.
    logs = sorted(p.name for p in (arena.folder / "logs").iterdir())
    assert logs == ["m3.jsonl", "m4.jsonl"]
    assert not (arena.folder / "stderr" / "m1").exists() and (arena.folder / "stderr" / "m3").exists()
    assert removed == {"work": 3, "replays": 2}
    assert cleanup.clean(arena) == {"work": 0, "replays": 0}
    assert views.game(arena, (ann_id, "student"), 1)["replay"] is None
    # Bounded: a pass removes at most its limit.
    shutil.rmtree(work / "s5")
    assert cleanup.clean(arena, limit=0) == {"work": 0, "replays": 0}


def test_an_older_store_gains_the_new_columns(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    conn = sqlite3.connect(folder / "arena.sqlite")
    conn.execute(
        "CREATE TABLE bots (id INTEGER PRIMARY KEY, student_id INTEGER, submission_id INTEGER, label TEXT, "
        "path TEXT, created REAL, active INTEGER, placement_left INTEGER, games INTEGER, matches INTEGER)"
    )
    conn.close()
    store = Store(folder)
    columns = {row[1] for row in store.all("PRAGMA table_info(bots)")}
    assert {"wall_stops", "benched"} <= columns
    store.close()
    Store(folder).close()  # again: nothing to add


@pytest.mark.slow
def test_ladder_matches_on_a_dask_local_cluster(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from referee.arena.cluster import Cluster
    from referee.tournament.cluster import LOCKS_ENV

    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    monkeypatch.setenv(LOCKS_ENV, str(locks))
    # The quick matches (~1 s) must finish within the limit on a loaded machine too.
    arena = make_arena(tmp_path, wall=6.0)
    quick = add_bot(arena, "quick", (SAMPLES / "random.py").read_text(), sub=1)
    slow = add_bot(arena, "slowpoke", SLOW, sub=2)
    house = arena.store.one("SELECT id FROM bots WHERE student_id IS NULL")[0]
    cluster = Cluster("local:1")
    try:
        assert cluster.concurrency == 1
        done = play_lineup(arena, [quick, house], cluster)
        assert arena.store.one("SELECT state FROM matches WHERE id = ?", done)[0] == "done"
        assert arena.store.one("SELECT count(*) FROM games WHERE match_id = ?", done)[0] == 20
        assert (arena.folder / "logs" / f"m{done}.jsonl").is_file()  # the worker wrote the replay
        # The wall limit is kept on the worker: the match stopped there, charged to the slow bot.
        started = time.monotonic()
        stopped = play_lineup(arena, [house, slow], cluster)
        assert time.monotonic() - started < 6.0 + 40
        state, error = arena.store.one("SELECT state, error FROM matches WHERE id = ?", stopped)
        assert state == "failed" and f"charged to bot {slow}" in error, error
        # And the worker is free again: the next match plays at once.
        again = play_lineup(arena, [quick, house], cluster)
        assert arena.store.one("SELECT state FROM matches WHERE id = ?", again)[0] == "done"
        assert sum(cluster.matches.values()) == 3
    finally:
        trio.run(cluster.close)


@pytest.mark.slow
def test_a_wall_stopped_match_rerun_by_the_ta_is_stored(tmp_path):
    """The TA reruns a match stopped at its wall limit: the charge goes with its old
    result, and the replay's own forfeits are stored (no clash with the old match-wall one)."""
    from referee.arena import web
    from referee.core.records import BotFigures, GameRecord, MatchRecord
    from referee.core.verdict import Forfeit, Verdict

    arena = make_arena(tmp_path)
    bot = add_bot(arena, "slowpoke", "x", sub=1)
    house = arena.store.one("SELECT id FROM bots WHERE student_id IS NULL")[0]
    mid = ladder.next_match(arena, set())
    assert set(json.loads(arena.store.one("SELECT bots FROM matches WHERE id = ?", mid)[0])) == {bot, house}
    slow = BotFigures(name=f"b{bot}", decisions=10, mean_decision_us=400_000.0)
    stopped = MatchRecord(
        game="bidding-wars", seed=7, games_requested=20, games_played=1, completed=False,
        referee_version="", sandbox="", players=[slow, BotFigures(name=f"b{house}")],
    )  # fmt: skip
    assert ladder.charge_wall(arena, mid, stopped) == bot
    assert arena.store.one("SELECT wall_stops FROM bots WHERE id = ?", bot)[0] == 1
    assert web.act(arena, "rerun-match", {"match": str(mid)}) is None
    assert arena.store.one("SELECT count(*) FROM forfeits WHERE match_id = ?", mid)[0] == 0
    assert arena.store.one("SELECT wall_stops FROM bots WHERE id = ?", bot)[0] == 0
    assert ladder.next_match(arena, set()) == mid
    timeout = Forfeit(verdict=Verdict.TIMEOUT, game=0, decision=3, detail="too slow")
    record = MatchRecord(
        game="bidding-wars", seed=7, games_requested=1, games_played=1, completed=True,
        referee_version="", sandbox="",
        players=[BotFigures(name=f"b{bot}", games=1, forfeit_details=[timeout]), BotFigures(name=f"b{house}", games=1)],
    )  # fmt: skip
    game = GameRecord(
        game=0, deal=0, rotation=0, seed=1, seats=[f"b{bot}", f"b{house}"], scores=[0, 1], ranks=[2, 1]
    )
    ladder.store_result(arena, mid, record, [game])
    assert arena.store.one("SELECT state FROM matches WHERE id = ?", mid)[0] == "done"
    assert arena.store.all("SELECT verdict FROM forfeits WHERE match_id = ?", mid) == [("timeout",)]


def _decided(arena, lineup: list[int], winner: int, mid: int | None = None) -> int:
    """A done match of ``lineup`` (a new one, or ``mid`` as the ladder replays it) whose
    20 games ``winner`` won, stored as the ladder stores one; its id."""
    from referee.core.records import BotFigures, GameRecord, MatchRecord
    from referee.match.evidence import evidence_of

    if mid is None:
        with arena.store.tx() as conn:
            mid = conn.execute(
                "INSERT INTO matches (kind, state, bots, seed, games, created, started, attempts) "
                "VALUES ('ladder', 'running', ?, 7, 20, 0, 0, 1)",
                (json.dumps(lineup),),
            ).lastrowid
            conn.executemany(
                "INSERT INTO match_bots (match_id, bot_id, position) VALUES (?, ?, ?)",
                [(mid, b, k) for k, b in enumerate(lineup)],
            )
    else:
        assert ladder.next_match(arena, set()) == mid
    seats = [f"b{b}" for b in lineup]
    ranks = [1 if b == winner else 2 for b in lineup]
    games = [
        GameRecord(
            game=g, deal=g, rotation=0, seed=g, seats=seats, scores=[2.0 - r for r in ranks], ranks=ranks
        )
        for g in range(20)
    ]
    record = MatchRecord(
        game="bidding-wars", seed=7, games_requested=20, games_played=20, completed=True, referee_version="",
        sandbox="", players=[BotFigures(name=s, games=20) for s in seats], evidence=evidence_of(games, 2, 1),
    )  # fmt: skip
    ladder.store_result(arena, mid, record, games)
    return mid


@pytest.mark.slow
def test_a_rerun_match_is_rated_on_its_replay(tmp_path):
    """The ratings take a rerun match's new result, not the one it had before."""
    from referee.arena import rating, web

    arena = make_arena(tmp_path, roster=("ann", "ben"))
    ann, ben = add_bot(arena, "ann", "x", sub=1), add_bot(arena, "ben", "x", sub=2)
    mid = _decided(arena, [ann, ben], winner=ann)
    rater = rating.Rater()
    first = {r.bot: r.rating for r in rater.fit(arena).bots}
    assert first[f"b{ann}"] > first[f"b{ben}"]
    assert web.act(arena, "rerun-match", {"match": str(mid)}) is None
    _decided(arena, [ann, ben], winner=ben, mid=mid)
    again = {r.bot: r.rating for r in rater.fit(arena).bots}
    assert again[f"b{ben}"] > again[f"b{ann}"]


@pytest.mark.slow
def test_the_ratings_are_stale_when_the_done_matches_change(tmp_path):
    """The refit is due when the store's done matches changed: one stored, or one rerun."""
    from referee.arena import rating, web

    arena = make_arena(tmp_path, roster=("ann", "ben"))
    ann, ben = add_bot(arena, "ann", "x", sub=1), add_bot(arena, "ben", "x", sub=2)
    rater = rating.Rater()
    assert rater.stale(arena)  # never fitted
    assert rater.fit(arena) is None and not rater.stale(arena)
    mid = _decided(arena, [ann, ben], winner=ann)
    assert rater.stale(arena)
    rater.fit(arena)
    assert not rater.stale(arena)
    assert web.act(arena, "rerun-match", {"match": str(mid)}) is None
    assert rater.stale(arena)
    rater.fit(arena)
    _decided(arena, [ann, ben], winner=ben, mid=mid)
    assert rater.stale(arena)
