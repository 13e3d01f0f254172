"""Issue 11, through the command line as a user runs it: ``referee tournament`` and
``referee standings``.

Each test names what it checks and where the rule comes from (the issue's text, or a
seed's line).  Every tournament here is small — a few bots, few games — and has a fixed
``--seed``; the results store (``DIR/results.sqlite``) is read with the stdlib
``sqlite3`` to check what the standings files say.
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
from conftest import BOT_PYTHON, ROOT, SAMPLES

pytestmark = [pytest.mark.usefixtures("built_samples"), pytest.mark.slow, pytest.mark.e2e]

YAHTZEE = SAMPLES / "yahtzee"
DICE_POKER = SAMPLES / "dice_poker"
LIARS_DICE = SAMPLES / "liars_dice"
TEST_BOTS = ROOT / "tests/bots/tournament"
OP_RECORDER = TEST_BOTS / "op_recorder.py"
COMPETENT = str(YAHTZEE / "bin/competent")
READER = str(LIARS_DICE / "bin/reader")

#: BotRow fields that are measurements (they differ run to run), left out of comparisons.
MEASURED = frozenset({"cpu_seconds", "peak_rss_bytes"})


def py(path: Path | str, *args: object) -> str:
    """The command line of a Python bot."""
    return " ".join([BOT_PYTHON, str(path), *map(str, args)])


def referee(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


def poll_until(
    proc: subprocess.Popen, seen: Callable[[], bool], *, timeout: float = 60, every: float = 0.001
) -> bool:
    """Look every ``every`` s whether ``seen()`` holds while ``proc`` runs: True as soon
    as it does; False when the process ended first or ``timeout`` s passed."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if seen():
            return True
        time.sleep(every)
    return False


def tournament(out: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``referee tournament ARGS --out OUT``, asserted to complete (exit 0)."""
    done = referee("tournament", *args, "--out", str(out), timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2 with one line on stderr holding ``words``; the line."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stderr)
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def standings(out: Path) -> dict:
    return json.loads((out / "standings.json").read_text())


def query(out: Path, sql: str, *params: object) -> list[tuple]:
    """Rows of a read-only query on the results store."""
    conn = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def match_bots(out: Path) -> dict[str, list[str]]:
    """Each match's bots in seat order (its spec), by key, in the order matches were added."""
    rows = query(out, "SELECT key, spec FROM matches ORDER BY id")
    return {key: [b["name"] for b in json.loads(spec)["bots"]] for key, spec in rows}


def stored_games(out: Path) -> list[tuple]:
    """Every stored game as (match key, game, deal, rotation, seed, seats, scores, ranks,
    forfeits, tallies), in key and game order: what a run's results are, measurements aside."""
    return query(
        out,
        "SELECT m.key, g.game, g.deal, g.rotation, g.seed, g.seats, g.scores, g.ranks, g.forfeits, "
        "g.tallies FROM games g JOIN matches m ON m.id = g.match_id ORDER BY m.key, g.game",
    )


def assert_all_played(data: dict) -> dict:
    """No bot of these standings crashed or failed to start (a bot that cannot import
    its modules in the sandbox would otherwise pass unnoticed, forfeiting alike in every run)."""
    for row in data["rows"]:
        assert not {"crash", "startup"} & set(row["forfeits"]), (row["bot"], row["forfeits"])
    return data


def comparable(rows: list[dict]) -> list[dict]:
    """Standings rows without the measured fields (CPU, memory)."""
    return [{k: v for k, v in row.items() if k not in MEASURED} for row in rows]


def readable(path: Path) -> None:
    """Let the bots' own uids (as root) read everything under ``path``."""
    for here, _dirs, files in os.walk(path):
        os.chmod(here, 0o755)
        for name in files:
            file = Path(here, name)
            file.chmod(0o755 if os.access(file, os.X_OK) else 0o644)


def copy_players(tmp_path: Path, game: str, names: list[str]) -> Path:
    """Copies of sample players in ``tmp_path/players/GAME``, so that every bot's command
    line names ``tmp_path`` (what the kill tests look for when they check that nothing
    was left running).  The sandbox lets a bot read its own directory, so the
    ``protocol`` package they import is copied there too, and found there."""
    home = tmp_path / "players" / game
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "protocol").exists():
        shutil.copytree(ROOT / "protocol", home / "protocol", ignore=shutil.ignore_patterns("__pycache__"))
    for name in names:
        # A sample player looks for ``protocol`` in every directory above it, its own first.
        shutil.copy2(SAMPLES / game / name, home / Path(name).name)
    readable(tmp_path)
    return home


# ------------------------------------------------------------------ 1. double elimination

#: Found by running this tournament (the five seeded random players, --games 3) for
#: --seed 1 to 11 with a throwaway script that read bracket.json: seeds 1, 3, 6, 8 and 11
#: reset the grand final (a played GF2), the others do not.  The dice of every match come
#: from plan.match_seed(tournament seed, key): a change to how match seeds (or deal
#: seeds) are derived, or to the sample players, needs a new search.
RESET_SEED = 1


def test_double_elimination_of_five_with_byes_and_a_bracket_reset(tmp_path):
    """Issue: "a 5-bot double elimination with byes and a bracket reset"; "byes when the
    field is not a power of two (a bye is never given twice to one bot where avoidable);
    a losers' bracket; a grand final with a bracket reset when the losers'-bracket winner
    wins the first final"; "The bracket is printed as text and written to DIR/bracket.json"."""
    out = tmp_path / "de"
    bots = [py(YAHTZEE / "random_player.py", seed) for seed in range(1, 6)]
    done = tournament(
        out, *bots, "--format", "double-elimination", "--games", "3", "--seed", str(RESET_SEED), "--quiet"
    )
    bracket = json.loads((out / "bracket.json").read_text())
    seeds = bracket["seeds"]
    assert seeds == standings(out)["tournament"]["field"] and len(seeds) == 5 and bracket["size"] == 8
    matches = bracket["matches"]
    by_id = {m["id"]: m for m in matches}

    # Byes: the three missing places of the 8-place bracket go to seeds 1-3.
    w1_byes = [
        m["winner"] for m in matches if m["bracket"] == "winners" and m["round"] == 1 and m["status"] == "bye"
    ]
    assert sorted(w1_byes) == sorted(seeds[:3])
    # Never two byes to one bot where avoidable: double_elimination.py documents that for
    # 5 bots the drop-down placed into the empty losers' round-2 place may get a second
    # one, and only when every drop-down of that round has had a bye already.
    byes = Counter(m["winner"] for m in matches if m["status"] == "bye")
    twice = [bot for bot, n in byes.items() if n > 1]
    assert len(twice) <= 1 and max(byes.values()) <= 2
    for bot in twice:
        second = [m for m in matches if m["status"] == "bye" and m["winner"] == bot][1]
        assert (second["bracket"], second["round"]) == ("losers", 2), second
        before = {
            m["winner"]
            for m in matches
            if m["status"] == "bye" and (m["bracket"] == "winners" or m["round"] == 1)
        }
        dropdowns = [m["loser"] for m in matches if m["bracket"] == "winners" and m["round"] == 2]
        assert set(dropdowns) <= before, "a drop-down without a bye was there to take it"

    # The grand final and its reset: the losers' bracket winner took GF1, GF2 decided.
    gf1, gf2 = by_id["GF1"], by_id["GF2"]
    assert gf1["status"] == "played" and gf1["winner"] == gf1["bots"][1] != gf1["bots"][0]
    assert gf2["status"] == "played" and set(gf2["bots"]) == set(gf1["bots"])
    assert bracket["champion"] == gf2["winner"]
    runner_up = gf2["loser"]

    # The store holds the played matches only: 2·8−2 matches, +1 for the reset, fewer
    # the byes' and empty places' unplayed ones; each done, with its 3 games.
    unplayed = sum(m["status"] in ("bye", "empty") for m in matches)
    stored = match_bots(out)
    assert len(stored) == 2 * 8 - 2 + 1 - unplayed
    played = {m["id"]: m for m in matches if m["status"] == "played"}
    assert set(stored) == set(played)
    for key, bots_ in stored.items():
        assert bots_ == played[key]["bots"]
    assert query(out, "SELECT DISTINCT status FROM matches") == [("done",)]
    assert query(out, "SELECT count(*) FROM games")[0][0] == 3 * len(stored)

    # Standings follow the bracket: champion, runner-up, then by the round a bot went out.
    data = assert_all_played(standings(out))
    rank = {row["bot"]: row["rank"] for row in data["rows"]}
    place = 1
    for bots_ in bracket["standings"]:
        for bot in bots_:
            assert rank[bot] == place, (bot, bracket["standings"], rank)
        place += len(bots_)
    assert bracket["standings"][0] == [gf2["winner"]] and bracket["standings"][1] == [runner_up]
    assert data["rows"][0]["bot"] == gf2["winner"] and data["rows"][0]["bracket"] == "champion"
    assert data["rows"][1]["bot"] == runner_up and data["rows"][1]["bracket"] == "runner-up"

    # The bracket as text on stdout: every round, every played match with its winner.
    assert "Winners' round 1" in done.stdout and "Losers' round 1" in done.stdout
    assert "Grand final" in done.stdout and "Grand final, bracket reset" in done.stdout
    lines = done.stdout.splitlines()
    for key, m in played.items():
        assert any(
            line.split()[:1] == [key] and line.rstrip().endswith(f"→ {m['winner']}") for line in lines
        ), key
    for bot in w1_byes:
        assert f"{bot} (bye)" in done.stdout


# ------------------------------------------------------------------ 2. Swiss


def test_swiss_pairs_no_two_bots_twice_and_keeps_seats_balanced(tmp_path):
    """Issue: "swiss: --rounds K rounds, pairing by score with no repeat pairing where
    possible and seat balance"; "a Swiss without repeat pairings"."""
    out = tmp_path / "swiss"
    bots = [py(YAHTZEE / "random_player.py", seed) for seed in range(1, 4)]
    bots += [py(YAHTZEE / "greedy_player.py"), COMPETENT]
    tournament(out, *bots, "--format", "swiss", "--rounds", "3", "--games", "2", "--seed", "4", "--quiet")
    data = assert_all_played(standings(out))
    field = data["tournament"]["field"]
    swiss = data["swiss"]
    assert swiss["complete"] and swiss["rounds"] == 3 and len(swiss["pairings"]) == 3
    stored = match_bots(out)
    played = {p["match"]: p["bots"] for r in swiss["pairings"] for p in r if len(p["bots"]) == 2}
    assert stored == {key: played[key] for key in stored} and set(stored) == set(played)
    assert len(stored) == 3 * 2  # 5 bots: 2 matches a round and a bye

    pairs = [frozenset(bots_) for bots_ in stored.values()]
    assert len(set(pairs)) == len(pairs), "a pair met twice"
    byes: Counter[str] = Counter()
    for pairings in swiss["pairings"]:
        seen = [bot for p in pairings for bot in p["bots"]]
        assert sorted(seen) == sorted(field), "every bot plays every round, or has the bye"
        byes.update(p["bots"][0] for p in pairings if len(p["bots"]) == 1)
    assert sum(byes.values()) == 3 and max(byes.values()) == 1

    # Seats: the first seat of each match (seat 0 in the store's spec) within ±1 per bot.
    first = Counter(bots_[0] for bots_ in stored.values())
    second = Counter(bots_[1] for bots_ in stored.values())
    for bot in field:
        assert abs(first[bot] - second[bot]) <= 1, (bot, first[bot], second[bot])
    # Each match played its 2 games, seats alternating within it.
    games = query(
        out,
        "SELECT m.key, g.game, g.seats FROM games g JOIN matches m ON m.id = g.match_id ORDER BY m.key, g.game",
    )
    assert len(games) == 2 * len(stored)
    for key, game, seats in games:
        a, b = stored[key]
        assert json.loads(seats) == ([a, b] if game % 2 == 0 else [b, a])


# ------------------------------------------------------------------ 3. tables

#: Ten bots: two Python sample players and eight copies of the C one (reader-1 …
#: reader-8), which start at once; the schedule's balance is about the field's size.
LIARS = [
    py(LIARS_DICE / "random_legal.py", 1),
    READER,
    READER,
    READER,
    py(LIARS_DICE / "probabilistic.py", 1),
    READER,
    READER,
    READER,
    READER,
    READER,
]


def _check_balance(out: Path, tables: int) -> dict:
    """The balance standings.json reports against what the store's games show (one game
    per table: its seats are the table's, rotation 0)."""
    data = assert_all_played(standings(out))
    field = data["tournament"]["field"]
    balance = data["balance"]
    assert balance["bots"] == 10 and balance["table_size"] == 4 and balance["tables"] == tables
    rows = query(out, "SELECT g.seats, g.rotation FROM games g ORDER BY g.match_id, g.game")
    assert len(rows) == tables == len(match_bots(out))
    games: Counter[str] = Counter()
    seat: Counter[tuple[str, int]] = Counter()
    meet: Counter[frozenset[str]] = Counter()
    for seats_text, rotation in rows:
        seats = json.loads(seats_text)
        assert rotation == 0 and len(seats) == 4 == len(set(seats))
        games.update(seats)
        seat.update((bot, pos) for pos, bot in enumerate(seats))
        meet.update(frozenset(p) for p in itertools.combinations(seats, 2))
    per_bot = tables * 4 // 10
    # Every bot plays the same number of tables, and every seat position equally often.
    assert [games[b] for b in field] == [per_bot] * 10
    assert balance["games"] == [per_bot, per_bot] and balance["games_best_spread"] == 0
    assert {seat[b, pos] for b in field for pos in range(4)} == {per_bot // 4}
    assert balance["seats"] == [per_bot // 4, per_bot // 4] and balance["seat_spread_per_bot"] == 0
    # The meetings spread reported is the store's.
    counts = [meet[frozenset(p)] for p in itertools.combinations(field, 2)]
    assert balance["meetings"] == [min(counts), max(counts)]
    assert balance["never_met"] == counts.count(0)
    assert balance["meetings_mean"] == pytest.approx(sum(counts) / len(counts))
    assert max(counts) - min(counts) <= 3  # docs/tournaments.md: 0–3 for 10 tables, 12 each for 90
    return data


def test_liars_dice_tables_are_balanced_and_players_lines_carry_field_ids(tmp_path):
    """Issue: "tables: ... a schedule where every bot plays the same number of games,
    takes every seat position equally often, and meets every other bot as evenly as the
    field size allows (say how far from balanced a given field is)"; "a 10-bot Liar's
    Dice tables schedule with its balance"; per-tournament bots are "told a stable
    opponent id in the protocol (... Liar's Dice player ids)"."""
    common = ["--game", "liars-dice", "--format", "tables", "--table-size", "4", "--games", "1"]
    common += ["--seed", "6"]
    # The default: bots × rounds = 10 tables, with every game's transcript.
    out = tmp_path / "default"
    done = tournament(out, *LIARS, *common, "--quiet", "--game-logs")
    data = _check_balance(out, tables=10)
    assert "10 bots, 10 tables of 4" in done.stderr  # how far from balanced, said at the start
    field = data["tournament"]["field"]
    ids = {name: i for i, name in enumerate(field)}
    logs = sorted((out / "logs").glob("*.jsonl"))
    assert [p.stem for p in logs] == sorted(match_bots(out))
    for log in logs:
        for line in log.read_text().splitlines():
            game = json.loads(line)
            expected = "players " + " ".join(str(ids[name]) for name in game["seats"])
            told = {}
            for entry in game["transcript"]:
                if entry["kind"] == "tell" and entry["line"].startswith("players "):
                    told.setdefault(entry["seat"], entry["line"])
            assert told == dict.fromkeys(range(4), expected), (log.name, told)
            first = next(e for e in game["transcript"] if e["kind"] == "ask")
            assert all(e["kind"] == "tell" for e in game["transcript"][: game["transcript"].index(first)]), (
                "the players line comes before the first turn"
            )

    # A given number of tables: 20, so 8 each, every seat position twice.
    out = tmp_path / "twenty"
    tournament(out, *LIARS, *common, "--tables", "20", "--quiet")
    _check_balance(out, tables=20)


# ------------------------------------------------------------------ 4. dice poker, per-tournament bots


def test_dice_poker_bots_init_once_see_the_right_op_in_the_interleaved_order(tmp_path):
    """Issue: "a dice-poker round robin with per-tournament bots that checks Init ran
    once and op is right"; seed 000: Init "will be called only once at the very
    beginning of the tournament", AI(op, …) where "op: the id of the current opponent",
    "in each round, each pair of AIs will play one deal"; issue: "results do not depend
    on C (deterministic bots give identical standings for C = 1 and C = 2)"."""
    bots = [py(OP_RECORDER, label) for label in "abcd"]
    args = [*bots, "--game", "dice-poker", "--format", "round-robin", "--games", "1", "--rounds", "30"]
    runs = {}
    for concurrency in (1, 2):
        out = runs[concurrency] = tmp_path / f"c{concurrency}"
        tournament(out, *args, "--seed", "7", "--quiet", "--concurrency", str(concurrency))

    for out in runs.values():
        data = assert_all_played(standings(out))
        field = data["tournament"]["field"]
        ids = {name: i for i, name in enumerate(field)}
        matches = match_bots(out)
        assert len(matches) == 6 and all(len(set(b)) == 2 for b in matches.values())
        # One match per pairing of games × rounds deals; deal r of every pairing is round r.
        games = query(
            out, "SELECT m.key, g.game FROM games g JOIN matches m ON m.id = g.match_id ORDER BY m.id, g.game"
        )
        assert len(games) == 6 * 30
        order = list(matches)  # the schedule order: matches in id order
        assert all([g for k, g in games if k == key] == list(range(30)) for key in order)
        for name in field:
            stderr = out / "stderr" / f"{name}.stderr"
            lines = stderr.read_text().splitlines()
            inits = [line for line in lines if line.startswith("init ")]
            assert len(inits) == 1 and lines[0] == inits[0], f"{name}: Init ran {len(inits)} times"
            assert not (out / "stderr" / f"{name}.2.stderr").exists()
            seen = [line.split() for line in lines if line.startswith("op ")]
            opponents = {ids[b] for bots_ in matches.values() if name in bots_ for b in bots_ if b != name}
            assert {int(w[1]) for w in seen} == opponents and len(opponents) == 3
            # Its requests (state 0 or 1: one a deal, as every bot raises and calls), in
            # the order it was asked: round by round, every pairing in schedule order.
            asked = [int(w[1]) for w in seen if w[3] in ("0", "1")]
            expected = [
                ids[other]
                for game in range(30)
                for key in order
                if name in matches[key]
                for other in matches[key]
                if other != name
            ]
            assert asked == expected, name

    one, two = (standings(runs[c]) for c in (1, 2))
    assert comparable(one["rows"]) == comparable(two["rows"])
    assert stored_games(runs[1]) == stored_games(runs[2])


# ------------------------------------------------------------------ 5. kill and resume


def _leftovers(marker: str, parent: int) -> list[str]:
    """Live processes of a killed referee: any naming ``marker`` (the test's directory)
    and any worker whose parent was ``parent``."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                continue
            command = " ".join(proc.info["cmdline"] or [])
        except psutil.Error:
            continue
        worker = "referee.tournament.worker" in command and f"--parent {parent}" in command
        if worker or marker in command:
            found.append(f"{proc.pid} {command[:200]}")
    return found


def _restarted(out: Path) -> int:
    """Restart events stored (0 while there is no store yet)."""
    try:
        return query(out, "SELECT count(*) FROM events WHERE kind = 'restart'")[0][0]
    except sqlite3.Error:
        return 0


def _running(out: Path) -> int:
    """Matches being played (0 while there is no store yet)."""
    try:
        return query(out, "SELECT count(*) FROM matches WHERE status = 'running'")[0][0]
    except sqlite3.Error:
        return 0


def _running_games(out: Path) -> int:
    """Games committed by matches being played (0 while there is no store yet)."""
    try:
        return query(
            out, "SELECT count(*) FROM games g JOIN matches m ON m.id = g.match_id WHERE m.status = 'running'"
        )[0][0]
    except sqlite3.Error:
        return 0


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _assert_nothing_left(marker: str, parent: int, tree: list[psutil.Process]) -> None:
    """Within a few seconds of the kill: no process of the referee's tree as it was just
    before the kill (workers, sandbox supervisors, bots), none naming ``marker``, no
    worker of ``parent``."""
    deadline = time.monotonic() + 10
    while True:
        left = _leftovers(marker, parent) + [f"{p.pid} (of the tree)" for p in tree if _alive(p)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"left running after the referee was killed: {left}"


def _tree(pid: int) -> list[psutil.Process]:
    """The processes that descend from ``pid`` now (none once it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _kill_and_resume(
    tmp_path: Path,
    out: Path,
    fresh: list[str],
    kills: list[tuple[str, float]],
    tree_at_least: int = 0,
    resume: tuple[str, ...] = (),
) -> dict:
    """Run the tournament into ``out``, SIGKILLing the referee at each of ``kills`` —
    ``("after", s)``: ``s`` seconds after it started; ``("running", s)``: ``s`` seconds
    after the store shows a match being played (and, with ``tree_at_least``, the referee
    has that many descendants: bots start as their first match borrows them, which on a
    loaded machine can take longer than the delay); ``("restarted", s)``: after it holds
    a restart event — then resume (or start afresh when the kill came before the store
    existed) until it completes.  Checks after each kill that
    no bot or worker was left.  What happened, for the caller's assertions."""
    log = tmp_path / "kill-runs.log"
    happened = {"kills": 0, "mid_match": 0, "before_store": 0, "tree": 0}
    for step in [*kills, None]:
        if (out / "results.sqlite").exists():
            args = ["tournament", "--resume", str(out), "--quiet", *resume]
        else:
            args = ["tournament", *fresh, "--out", str(out)]
        with open(log, "a") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "referee", *args],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        try:
            started = time.monotonic()
            if step is None:
                assert proc.wait(timeout=120) == 0, log.read_text()[-3000:]
                break
            kind, delay = step
            if kind != "after":
                ready = {"running": _running, "restarted": _restarted}[kind]
                while (
                    proc.poll() is None
                    and (ready(out) == 0 or (kind == "running" and len(_tree(proc.pid)) < tree_at_least))
                    and time.monotonic() - started < 60
                ):
                    time.sleep(0.01)
            time.sleep(delay)
            if proc.poll() is not None:
                assert proc.returncode == 0, log.read_text()[-3000:]
                break  # it finished before the kill
            tree = _tree(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        happened["kills"] += 1
        happened["mid_match"] += _running(out) > 0
        happened["before_store"] += not (out / "results.sqlite").exists()
        happened["tree"] = max(happened["tree"], len(tree))
        _assert_nothing_left(str(tmp_path), proc.pid, tree)
    return happened


def _assert_whole(out: Path, matches: int, games_per_match: int) -> None:
    """Every match done with its games 0…N−1 exactly once; the file intact."""
    assert query(out, "PRAGMA integrity_check") == [("ok",)]
    assert query(out, "SELECT count(*), min(status), max(status) FROM matches") == [(matches, "done", "done")]
    assert query(out, "SELECT count(*) FROM games")[0][0] == matches * games_per_match
    assert query(out, "SELECT match_id, game FROM games GROUP BY match_id, game HAVING count(*) > 1") == []
    for count, low, high in query(out, "SELECT count(*), min(game), max(game) FROM games GROUP BY match_id"):
        assert (count, low, high) == (games_per_match, 0, games_per_match - 1)


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_standings(tmp_path):
    """Issue: "a kill-and-resume test through the CLI (SIGKILL at random points, resume,
    standings equal to an uninterrupted run)"; "After kill -9 of the referee at any
    moment, referee tournament --resume DIR finishes the tournament with no game lost or
    counted twice"."""
    home = copy_players(tmp_path, "yahtzee", ["random_player.py", "greedy_player.py", "bin/competent"])
    bots = [
        py(home / "random_player.py", 1),
        py(home / "random_player.py", 2),
        py(home / "greedy_player.py"),
        str(home / "competent"),
    ]
    games = 20
    fresh = [*bots, "--games", str(games), "--seed", "12", "--quiet"]
    reference = tmp_path / "reference"
    started = time.monotonic()
    tournament(reference, *fresh)
    took = time.monotonic() - started
    assert_all_played(standings(reference))

    # Kill moments as fractions of an uninterrupted run here (machines differ in speed).
    rng = random.Random(2024)
    out = tmp_path / "killed"
    happened = _kill_and_resume(
        tmp_path,
        out,
        fresh,
        [
            ("after", took * rng.uniform(0.05, 0.3)),  # early: workers starting, first matches
            ("running", took * rng.uniform(0.0, 0.1)),
            ("after", took * rng.uniform(0.4, 0.7)),
        ],
        tree_at_least=3,
    )
    assert happened["kills"] >= 2 and happened["mid_match"] >= 1, happened
    assert happened["tree"] >= 3, happened  # workers and bots were there when it was killed
    _assert_whole(out, matches=6, games_per_match=games)
    assert comparable(standings(out)["rows"]) == comparable(standings(reference)["rows"])
    assert stored_games(out) == stored_games(reference)
    assert query(out, "SELECT count(*) FROM sessions")[0][0] >= 2  # it was resumed


def test_sigkill_of_a_dice_poker_tournament_then_resume_replays_it_the_same(tmp_path):
    """Issue: as above, for bots that live for the whole tournament: "A match cut short
    by the crash is replayed from its start" — with --replay-all since issue 25, item 2
    (the default keeps the stored deals): "the exact full replay stays available by a flag"."""
    home = copy_players(tmp_path, "dice_poker", ["threshold.py", "always_call.py", "equilibrium.py"])
    bots = [py(home / "threshold.py", 3), py(home / "always_call.py"), py(home / "equilibrium.py", 1)]
    fresh = [*bots, "--game", "dice-poker", "--games", "1", "--rounds", "400", "--seed", "8", "--quiet"]
    reference = tmp_path / "reference"
    tournament(reference, *fresh)
    assert_all_played(standings(reference))

    rng = random.Random(77)
    out = tmp_path / "killed"
    happened = _kill_and_resume(
        tmp_path, out, fresh, [("running", rng.uniform(0.0, 0.2))], tree_at_least=4, resume=("--replay-all",)
    )
    assert (happened["kills"], happened["mid_match"], happened["before_store"]) == (1, 1, 0), happened
    assert happened["tree"] >= 4, happened  # the worker and at least its three bots were there
    _assert_whole(out, matches=3, games_per_match=400)
    assert comparable(standings(out)["rows"]) == comparable(standings(reference)["rows"])
    assert stored_games(out) == stored_games(reference)


def _pace(script: Path, wait_s: float = 0.0005) -> None:
    """Make a copy of the always_call sample player wait ``wait_s`` before each answer:
    a tournament that lasts seconds of wall time at the CPU of a few thousand deals."""
    text = script.read_text()
    for old, new in (
        ("import sys\n", "import sys\nimport time\n"),
        ("        out.write(raise_line", f"        time.sleep({wait_s})\n        out.write(raise_line"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    script.write_text(text)


def _run_took(out: Path) -> float:
    """Seconds from the last ``run`` event to the store's last write, as a resume
    measures a killed run's pace (resume.last_pace); 0 while there is none."""
    try:
        at = query(out, "SELECT at FROM events WHERE kind = 'run' ORDER BY id DESC LIMIT 1")[0][0]
        files = [out / "results.sqlite", out / "results.sqlite-wal"]
        last = max(os.stat(f).st_mtime for f in files if f.exists())
    except (sqlite3.Error, IndexError, OSError, ValueError):
        return 0.0
    return last - datetime.datetime.fromisoformat(at).timestamp()


def _games_stored(out: Path) -> int:
    try:
        return query(out, "SELECT count(*) FROM games")[0][0]
    except sqlite3.Error:  # not there yet, or being created
        return 0


def test_sigkill_of_a_dice_poker_tournament_then_resume_keeps_every_stored_deal(tmp_path):
    """Issue 25, item 2: "by default a resume keeps every stored deal and restarts each
    tournament-long bot (a restart event with its deal number, shown in the standings)";
    "the interrupt and resume messages say what is kept, what is replayed and the
    estimated time"; "A kill -9 at any moment loses at most the last commit batch".
    Deterministic bots without memory: the games equal an uninterrupted run's."""
    home = copy_players(tmp_path, "dice_poker", ["threshold.py", "always_call.py"])
    # A wait before each of always_call's answers: 8,000 deals of it last seconds of
    # wall time on any machine, so the kill below (1.2 s into the run) comes mid-run.
    _pace(home / "always_call.py", 0.0001)
    bots = [py(home / "threshold.py", 3), py(home / "threshold.py", 5), py(home / "always_call.py")]
    fresh = [*bots, "--game", "dice-poker", "--games", "1", "--rounds", "4000", "--seed", "8", "--quiet"]
    reference = tmp_path / "reference"
    tournament(reference, *fresh)
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", *fresh, "--out", str(out)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # Two batches of 250 a match stored (of 12,000 deals), the last over a second
        # after the run began: what the resume's estimate of the time left needs.
        poll_until(proc, lambda: _games_stored(out) >= 1500 and _run_took(out) > 1.2, every=0.02)
        if proc.poll() is not None:
            pytest.skip("the tournament finished before the kill")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    before = stored_games(out)
    assert 1500 <= len(before) < 12000
    done = referee("tournament", "--resume", str(out), "--quiet")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"keeping all {len(before):,} stored games" in done.stderr, done.stderr
    assert "games to play, about" in done.stderr  # the estimate, from the killed run's pace
    after = stored_games(out)
    assert set(before) <= set(after)  # not one stored deal lost
    assert after == stored_games(reference)
    assert query(out, "SELECT max(attempts) FROM matches")[0][0] == 2  # resumed, not replayed
    restarts = query(out, "SELECT bot, detail FROM events WHERE kind = 'restart'")
    assert sorted(b for b, _ in restarts) == sorted(standings(out)["tournament"]["field"])
    assert all("at deal " in detail for _, detail in restarts)
    rows = standings(out)["rows"]
    assert all(row["restarts"] == 1 for row in rows)
    unmeasured = {"restarts"}
    strip = [{k: v for k, v in r.items() if k not in unmeasured} for r in comparable(rows)]
    assert strip == [
        {k: v for k, v in r.items() if k not in unmeasured} for r in comparable(standings(reference)["rows"])
    ]


def test_an_interrupted_dice_poker_tournament_says_what_a_resume_keeps(tmp_path):
    """Issue 25, item 2: "the interrupt message says what is kept, what is replayed and
    the estimated time"."""
    home = copy_players(tmp_path, "dice_poker", ["threshold.py", "always_call.py"])
    bots = [py(home / "threshold.py", 3), py(home / "always_call.py")]
    out = tmp_path / "t"
    args = [*bots, "--game", "dice-poker", "--games", "1", "--rounds", "2000000", "--seed", "8", "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", *args, "--out", str(out)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        poll_until(proc, lambda: _games_stored(out) >= 500, every=0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert "all kept by --resume" in err and "--replay-all" in err and "left at this run's pace" in err, err
    assert query(out, "SELECT count(*) FROM events WHERE kind = 'pace'")[0][0] == 1


def test_a_kill_while_the_tournament_is_being_created_leaves_it_to_start_again(tmp_path):
    """Issue: "After kill -9 of the referee at any moment" nothing recorded is lost.  The
    configuration and the bots are recorded in one transaction (Store.open(bots=...)),
    after the bots' files are hashed (a large file in a bot's directory makes that moment
    long enough to hit).  Killed then, DIR holds no tournament: --resume says so in one
    line, and the same command starts it again and finishes it."""
    home = tmp_path / "bot"
    home.mkdir()
    shutil.copy2(OP_RECORDER, home / "bot.py")
    with open(home / "data.bin", "wb") as data:
        data.truncate(200 * 1000 * 1000)  # sparse: no disk, 200 MB to hash
    readable(tmp_path)
    out = tmp_path / "t"
    fresh = [py(home / "bot.py", "a"), py(home / "bot.py", "b"), "--game", "dice-poker", "--games", "1"]
    fresh += ["--rounds", "3", "--seed", "1", "--quiet", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", *fresh],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    hit = False
    try:
        # The writer's lock is taken before the hashing; the store is written after it.
        if poll_until(proc, (out / "results.sqlite.lock").exists) and not (out / "results.sqlite").exists():
            proc.kill()
            hit = True
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    if not hit:
        pytest.skip("the kill missed the moment while the bots' files were hashed")
    refused(referee("tournament", "--resume", str(out)), "no tournament")
    again = referee("tournament", *fresh)
    assert again.returncode == 0, again.stderr[-2000:]
    assert standings(out)["tournament"]["stage"] == "finished"


# ------------------------------------------------------------------ 6. refusals


def test_resume_refuses_changed_bots_new_configuration_and_a_second_tournament(tmp_path):
    """Issue: "Resume refuses, with one line, when a bot's files changed"; the CLI's
    docstring: --resume takes the stored configuration; a DIR holding a tournament is
    not overwritten."""
    for label in "ab":
        home = tmp_path / "bots" / label
        home.mkdir(parents=True)
        shutil.copy2(OP_RECORDER, home / "bot.py")
    readable(tmp_path)
    bots = [py(tmp_path / "bots" / label / "bot.py", label) for label in "ab"]
    out = tmp_path / "t"
    args = [*bots, "--game", "dice-poker", "--games", "1", "--rounds", "2", "--seed", "1", "--quiet"]
    tournament(out, *args)
    before = (out / "standings.json").read_bytes()

    refused(referee("tournament", "--resume", str(out), "--games", "5"), "--games", "--resume")
    refused(referee("tournament", *args, "--out", str(out)), "already holds a tournament", "--resume")
    # Each bot plays from its snapshot (issue 25, item 1): an edit beside the original is
    # no change; one of the snapshot is.
    with open(tmp_path / "bots" / "b" / "bot.py", "a") as bot:
        bot.write("# changed\n")
    name = standings(out)["tournament"]["field"][1]
    with open(out / "bots" / name / "bot.py", "a") as bot:
        bot.write("# changed\n")
    line = refused(referee("tournament", "--resume", str(out)), "changed")
    assert name in line and standings(out)["tournament"]["field"][0] not in line.replace(name, "")
    assert (out / "standings.json").read_bytes() == before


# ------------------------------------------------------------------ 7. a folder of bots


def _yahtzee_script(sample: str) -> str:
    """A sample player's text that imports ``protocol`` from the project wherever it lies."""
    text = (YAHTZEE / sample).read_text()
    found = 'if importlib.util.find_spec("protocol") is None:'
    assert found in text
    text = text.replace(found, f"sys.path.insert(0, {str(ROOT)!r})\n{found}", 1)
    return text


@pytest.fixture(scope="module")
def folder_run():
    """A Yahtzee round robin of a folder of bots: an executable file, a ``.py`` that is
    not executable, a folder with ``bot.toml``, a folder without one, a program that
    exits at once, and a README that is not a bot."""
    tmp = Path(tempfile.mkdtemp(prefix="referee-test-"))
    try:
        field = tmp / "field"
        (field / "greedy").mkdir(parents=True)
        (field / "nomanifest").mkdir()
        shutil.copy2(COMPETENT, field / "competent")
        (field / "rand.py").write_text(_yahtzee_script("random_player.py"))
        (field / "greedy" / "greedy.py").write_text(_yahtzee_script("greedy_player.py"))
        (field / "greedy" / "bot.toml").write_text('run = "python3 greedy.py"\n')
        (field / "nomanifest" / "bot.py").write_text(_yahtzee_script("random_player.py"))
        (field / "crasher").write_text("#!/bin/sh\nexit 3\n")
        (field / "crasher").chmod(0o755)
        (field / "README.md").write_text("# the class's submissions\n")
        readable(tmp)
        (field / "rand.py").chmod(0o644)
        out = tmp / "out"
        done = referee("tournament", str(field), "--games", "2", "--seed", "3", "--quiet", "--out", str(out))
        yield done, out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_folder_of_bots_enters_each_entry_and_broken_ones_forfeit(folder_run):
    """Issue: "a bot list may also be a directory holding one bot per entry (a file, or a
    folder with bot.toml)"; "A bot that cannot start or build forfeits its matches with
    a startup verdict and the tournament goes on"."""
    done, out = folder_run
    # Complete, but two bots never started: exit 3 with a warning (issue 25, item 3).
    assert done.returncode == 3, done.stderr[-3000:]
    assert "warning: crasher never started" in done.stderr
    data = standings(out)
    assert [r["bot"] for r in data["rows"] if r["never_started"]] == ["crasher", "nomanifest"]
    assert all(r["never_started"] for r in data["rows"][-2:])  # listed last
    field = data["tournament"]["field"]
    assert field == ["competent", "crasher", "greedy", "nomanifest", "rand"]  # entry names; no README
    assert len(match_bots(out)) == 10 and query(out, "SELECT DISTINCT status FROM matches") == [("done",)]
    rows = {row["bot"]: row for row in data["rows"]}
    # The three that run play their games without a forfeit and beat the broken two.
    for bot in ("competent", "greedy", "rand"):
        assert rows[bot]["games"] == 8 and rows[bot]["forfeits"] == {}
    broken = ("crasher", "nomanifest")
    games = query(out, "SELECT seats, scores, forfeits FROM games")
    for seats_text, scores_text, forfeits_text in games:
        seats, forfeits = json.loads(seats_text), json.loads(forfeits_text or "[]")
        by = {f["player"]: f["verdict"] for f in forfeits}
        for bot in set(seats) & set(broken):
            # Every game of a broken bot is forfeited, by it or (between the two broken
            # ones) by the other, which sat first.
            assert bot in by or set(seats) == set(broken), (seats, forfeits)
            assert json.loads(scores_text)[seats.index(bot)] == 0
    # The bot without a manifest forfeits with `startup`, and its fault says why.
    assert set(rows["nomanifest"]["forfeits"]) == {"startup"}
    fault = next(f for f in data["faults"] if f["bot"] == "nomanifest")
    assert "bot.toml" in (fault["unstartable"] or "")
    assert "nomanifest" in done.stderr and "cannot start" in done.stderr


def test_a_folder_entry_that_dies_at_once_forfeits_with_crash_and_says_so(folder_run):
    """docs/tournaments.md: a program that cannot be started forfeits with `startup`; one
    that starts and exits before its first answer forfeits with `crash`, its exit status
    quoted (docs/limits-and-verdicts.md) — and the tournament goes on (issue 11)."""
    done, out = folder_run
    assert done.returncode == 3  # complete; bots that never started (issue 25, item 3)
    rows = {row["bot"]: row for row in standings(out)["rows"]}
    assert set(rows["crasher"]["forfeits"]) == {"crash"}, rows["crasher"]["forfeits"]
    fault = next(f for f in standings(out)["faults"] if f["bot"] == "crasher")
    assert any("before its first answer" in d["detail"] for d in fault["details"]), fault


# ------------------------------------------------------------------ 8. qualification


def test_a_bot_that_does_not_beat_the_qualifier_is_listed_apart_and_plays_no_more(tmp_path):
    """Issue: "--qualify BOT (any format): each entrant first plays BOT (e.g. the random
    sample player); those that do not beat it are listed as not qualified, with their
    result, and the rest enter the tournament"; seed 004: "your program must beat a
    Yahtzee player that just plays one random legal move each turn"."""
    out = tmp_path / "q"
    worst = py(TEST_BOTS / "yahtzee_worst.py")
    bots = [COMPETENT, worst, py(YAHTZEE / "greedy_player.py")]
    tournament(
        out, *bots, "--qualify", py(YAHTZEE / "random_player.py", 9), "--qualify-games", "5",
        "--games", "2", "--seed", "5", "--quiet",
    )  # fmt: skip
    data = standings(out)
    qualifier = data["tournament"]["qualifier"]
    assert qualifier == "random_player"
    assert data["not_qualified"] == ["yahtzee_worst"]
    rows = {q["bot"]: q for q in data["qualification"]}
    assert set(rows) == {"competent", "yahtzee_worst", "greedy_player"}
    loser = rows["yahtzee_worst"]
    assert loser["qualified"] is False and loser["status"] == "done" and loser["games"] == 5
    assert (loser["won"], loser["score"]) < (loser["qualifier_won"], loser["qualifier_score"])
    for bot in ("competent", "greedy_player"):
        assert rows[bot]["qualified"] is True
    # Only the qualified are ranked and play the main stage: the one match between them.
    assert {row["bot"] for row in data["rows"]} == {"competent", "greedy_player"}
    stored = match_bots(out)
    assert {key for key in stored if key.startswith("q-")} == {f"q-{b}" for b in rows}
    main = {key: bots_ for key, bots_ in stored.items() if not key.startswith("q-")}
    assert len(main) == 1 and set(next(iter(main.values()))) == {"competent", "greedy_player"}
    assert stored["q-yahtzee_worst"] == ["yahtzee_worst", qualifier]


# ------------------------------------------------------------------ 9. a configuration file


def test_a_configuration_file_with_flags_over_it(tmp_path):
    """Issue: "the whole configuration may come from a TOML file (--config FILE, flags
    override)"; config.py: bot paths and out are relative to the file; unknown keys are
    refused in one line."""
    conf = tmp_path / "conf"
    for label in "abc":
        (conf / "bots").mkdir(parents=True, exist_ok=True)
        shutil.copy2(OP_RECORDER, conf / "bots" / f"{label}.py")
    readable(tmp_path)
    (conf / "bots" / "a.py").chmod(0o644)  # run with python3, as a .py in a folder of bots
    toml = conf / "tournament.toml"
    toml.write_text(
        'game = "dice-poker"\n'
        'format = "round-robin"\n'
        'bots = ["bots"]\n'
        "games = 1\n"
        "rounds = 4\n"
        "seed = 31\n"
        "quiet = true\n"
        'out = "results"\n'
        "[limits]\n"
        "decision_s = 2.5\n"
    )
    done = referee("tournament", "--config", str(toml), "--rounds", "6")
    assert done.returncode == 0, done.stderr[-3000:]
    out = conf / "results"  # relative to the file, not to the current directory
    data = standings(out)
    info = data["tournament"]
    assert info["game"] == "dice-poker" and info["format"] == "round-robin" and info["seed"] == 31
    assert info["field"] == ["a", "b", "c"]
    assert info["rounds"] == 6, "the flag overrides the file"
    assert query(out, "SELECT count(*) FROM games")[0][0] == 3 * 6
    config = json.loads(query(out, "SELECT config FROM tournament")[0][0])
    assert config["limits"]["decision_s"] == 2.5 and config["rounds"] == 6 and config["games"] == 1
    specs = [json.loads(spec) for (spec,) in query(out, "SELECT spec FROM matches")]
    assert all(spec["config"]["limits"]["decision_s"] == 2.5 for spec in specs)

    toml.write_text(toml.read_text().replace('out = "results"', 'out = "again"\nbogus = 1'))
    refused(referee("tournament", "--config", str(toml)), "bogus", "unknown key")
    assert not (conf / "again").exists()


# ------------------------------------------------------------------ 10. gauntlet


def test_gauntlet_candidates_play_everyone_else_and_the_field_never_itself(tmp_path):
    """Issue: "gauntlet: --candidates play everyone else (the field does not play itself)";
    "Seats/first player alternate so each bot takes each seat equally often"."""
    out = tmp_path / "g"
    field = [py(YAHTZEE / "random_player.py", seed) for seed in (1, 2)] + [py(YAHTZEE / "greedy_player.py")]
    tournament(
        out, *field, "--format", "gauntlet", "--candidates", "greedy_player", "--candidates", COMPETENT,
        "--rounds", "2", "--games", "1", "--seed", "2", "--quiet",
    )  # fmt: skip
    data = assert_all_played(standings(out))
    names = data["tournament"]["field"]
    candidates = {"greedy_player", "competent"}
    assert candidates <= set(names) and len(names) == 4
    others = [b for b in names if b not in candidates]
    stored = match_bots(out)
    assert len(stored) == 2 * len(candidates) * len(others)
    pairs = Counter(frozenset(bots_) for bots_ in stored.values())
    for bots_ in stored.values():
        assert len(set(bots_) & candidates) == 1, f"{bots_}: the field played itself, or two candidates met"
    assert set(pairs) == {frozenset((c, o)) for c in candidates for o in others}
    assert set(pairs.values()) == {2}
    # Seats: over two rounds every pair played both ways round.
    ordered = Counter(tuple(bots_) for bots_ in stored.values())
    assert set(ordered.values()) == {1} and len(ordered) == len(stored)
    first = Counter(bots_[0] for bots_ in stored.values())
    second = Counter(bots_[1] for bots_ in stored.values())
    assert all(first[b] == second[b] for b in names)


# ------------------------------------------------------------------ 11. a crashing per-tournament bot


#: A Liar's Dice table of four bots that live for the whole tournament, one of which
#: crashes at its 15th request of each life: sample_players/liars_dice/flaky.py
#: --crash-at 15 --announce, which writes a line to stderr as it starts, so that each
#: life leaves a stderr file.
FLAKY_TOURNAMENT = [
    py(LIARS_DICE / "random_legal.py", 1),
    py(LIARS_DICE / "random_legal.py", 2),
    py(LIARS_DICE / "flaky.py", "--crash-at", 15, "--announce", 3),
    py(LIARS_DICE / "probabilistic.py", 1),
    "--game", "liars-dice", "--format", "round-robin", "--table-size", "4", "--games", "6", "--seed", "2",
    "--quiet",
]  # fmt: skip


@pytest.fixture(scope="module")
def flaky_run():
    """FLAKY_TOURNAMENT, played once for the tests that read it."""
    tmp = Path(tempfile.mkdtemp(prefix="referee-test-"))
    tmp.chmod(0o755)
    try:
        out = tmp / "out"
        yield referee("tournament", *FLAKY_TOURNAMENT, "--out", str(out)), out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_crashed_per_tournament_bot_is_restarted_and_counted(flaky_run):
    """Issue: "A crashed per-tournament bot is restarted under its game's policy and the
    restart is counted"; seed 001: bots "persist from game to game"; store.py: events of
    kind restart; docs: a second life's stderr is NAME.2.stderr."""
    done, out = flaky_run
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["bot"]: row for row in standings(out)["rows"]}
    assert rows["flaky"]["restarts"] > 0
    assert rows["flaky"]["forfeits"].get("crash", 0) > 0
    assert all(rows[b]["restarts"] == 0 for b in rows if b != "flaky")
    events = query(out, "SELECT bot, match_key, detail FROM events WHERE kind = 'restart'")
    assert events and all(bot == "flaky" for bot, _, _ in events)
    assert all("crash" in detail for _, _, detail in events)
    lives = sorted((out / "stderr").glob("flaky*.stderr"))
    assert (out / "stderr" / "flaky.stderr") in lives and (out / "stderr" / "flaky.2.stderr") in lives
    for life in lives:
        assert life.read_text().startswith("life "), life
    # The others lived once: one stderr file each at most, no second life.
    assert not [p for p in (out / "stderr").glob("*.2.stderr") if not p.name.startswith("flaky")]


def test_each_restart_of_a_per_tournament_bot_counts_once(flaky_run):
    """Issue: "the restart is counted"; docs/tournaments.md: "each restart is counted (the
    standings' restarts, an events row of kind restart naming why)" — one restart, one
    count: as many as the bot's extra lives (its stderr files) and its restart events."""
    done, out = flaky_run
    lives = len(list((out / "stderr").glob("flaky*.stderr")))
    events = query(out, "SELECT count(*) FROM events WHERE kind = 'restart' AND bot = 'flaky'")[0][0]
    if done.returncode != 0 or lives < 2 or events != lives - 1:  # not what this test is about
        pytest.fail(f"precondition: exit {done.returncode}, {lives} lives, {events} restart events")
    rows = {row["bot"]: row for row in standings(out)["rows"]}
    assert rows["flaky"]["restarts"] == lives - 1


def test_a_replayed_tournament_counts_its_restarts_as_an_uninterrupted_run(tmp_path, flaky_run):
    """Issue: "its final standings equal those of an uninterrupted run with the same seed
    (deterministic bots)"; docs/tournaments.md: ``--replay-all`` replays a tournament of
    per-tournament bots whole (the default keeps the stored deals and restarts the bots,
    a restart more each: issue 25).  Killed once its first restart is stored, then resumed."""
    done, reference = flaky_run
    out = tmp_path / "killed"
    happened = _kill_and_resume(
        tmp_path, out, FLAKY_TOURNAMENT, [("restarted", 0.0)], resume=("--replay-all",)
    )
    resumed = standings(out)["rows"]
    without_restarts = [{k: v for k, v in row.items() if k != "restarts"} for row in comparable(resumed)]
    expected = [
        {k: v for k, v in row.items() if k != "restarts"} for row in comparable(standings(reference)["rows"])
    ]
    if done.returncode != 0 or happened["kills"] != 1 or without_restarts != expected:
        pytest.fail(
            f"precondition: exit {done.returncode}, {happened}, rows {without_restarts} != {expected}"
        )
    assert comparable(resumed) == comparable(standings(reference)["rows"])


# ------------------------------------------------------------------ 12. referee standings


def test_standings_while_the_tournament_runs_and_after(tmp_path):
    """Issue: "referee standings DIR prints the current standings at any time, also while
    the tournament runs"; standings.py: games of running matches count, provisional."""
    out = tmp_path / "live"
    # Dice poker's matches run for the whole tournament (one per pair, interleaved), so
    # running matches hold committed games (batches of 250, or of 2 s) for most of it.
    # always_call here waits before each answer (_pace: a wait, not CPU): its 3,000
    # deals of the 4,500 last several seconds, longer than a `referee standings` takes
    # to start, at little CPU.
    home = copy_players(tmp_path, "dice_poker", ["threshold.py", "always_call.py"])
    _pace(home / "always_call.py")
    bots = [py(home / "threshold.py", 4), py(home / "always_call.py"), py(home / "threshold.py", 2)]
    log = tmp_path / "live.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "tournament", *bots, "--game", "dice-poker", "--games", "1",
             "--rounds", "1500", "--seed", "3", "--quiet", "--out", str(out)],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        provisional = None
        while proc.poll() is None and provisional is None:
            if _running_games(out) == 0:
                time.sleep(0.02)
                continue
            shown = referee("standings", str(out))
            assert shown.returncode == 0, shown.stderr
            if "provisional" in shown.stdout:
                provisional = shown.stdout
        assert provisional is not None, "the tournament ended before a provisional standings was seen"
        assert "threshold-1" in provisional and "always_call" in provisional
        assert proc.wait(timeout=120) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    shown = referee("standings", str(out), "--json")
    assert shown.returncode == 0, shown.stderr
    final = json.loads(shown.stdout)
    written = standings(out)
    assert final["rows"] == written["rows"] and final["tournament"] == written["tournament"]
    assert written["tournament"]["stage"] == "finished" and written["tournament"]["games_provisional"] == 0
    assert all(row["provisional_games"] == 0 for row in final["rows"])


def test_default_concurrency_is_one_for_bots_that_live_for_the_tournament():
    """docs/tournaments.md, "Concurrency": a session of instant bots is fastest pinned to
    one core (four dice-poker bots: 13.7 s at C = 1, 50.9 s at C = 2), so bots that live for
    the whole tournament default to 1; per-match bots get a worker per usable core."""
    from referee import games
    from referee.tournament.runner import default_concurrency
    from referee.tournament.workers import usable_cores

    assert default_concurrency(games.get("dice-poker")) == 1
    assert default_concurrency(games.get("liars-dice")) == 1
    assert default_concurrency(games.get("yahtzee")) == len(usable_cores())
