"""The tournament's results store (``referee.tournament.store``) and its sink
(``referee.tournament.sink``): records round-trip, a store refuses another configuration,
bots' content hashes, all-or-nothing batches, discarding a crashed match, the sink under
a real match, and SIGKILL at random moments.

Matches run on in-process seats, so the whole module takes a few seconds.

The figures in the two modules' docstrings (commit cost per game by batch size, NORMAL
against FULL; ``StoreSink.game`` per call; a dice-poker match with and without the
store) came from small scripts that time ``Store.add_games`` with batches of 1, 100 and
1000 synthetic dice-poker records (best of 3), and ``StoreSink.game`` over 100,000
records with and without commits.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import msgspec
import pytest
import trio

from referee.core.botspec import BotSpec
from referee.core.records import BotFigures, GameForfeit, GameRecord, MatchRecord
from referee.games.dice_poker import DicePoker
from referee.match import Match, MatchConfig, MatchSpec
from referee.seats.inprocess import InProcessSeat
from referee.sinks.collect import Collector
from referee.tournament.sink import StoreSink
from referee.tournament.store import FILENAME, Store, StoreError, content_hash

ROOT = Path(__file__).resolve().parents[1]
CONFIG = {"game": "dice-poker", "format": "round-robin", "games": 100, "options": {}}


def _specs(*names: str, home: str | Path = "/nonexistent") -> list[BotSpec]:
    return [BotSpec(name=name, argv=["(in process)"], home=str(home)) for name in names]


def _spec(games_: int = 10, seed: int = 0) -> MatchSpec:
    return MatchSpec(bots=_specs("a", "b"), config=MatchConfig(game="dice-poker", games=games_, seed=seed))


def _game(i: int, *, forfeit: bool = False) -> GameRecord:
    return GameRecord(
        game=i,
        deal=i // 2,
        rotation=i % 2,
        seed=(i * 0x9E3779B97F4A7C15) % (1 << 64),  # half of them above 2**63
        seats=["a", "b"] if i % 2 == 0 else ["b", "a"],
        scores=[float(i), -1.5],
        ranks=[1, 2],
        forfeits=[GameForfeit(player="b", verdict="timeout", decision=3, detail="no reply in 1 s")]
        if forfeit
        else [],
        tallies=[{"hands": 2.0}, {"hands": 1.0}] if i % 3 == 0 else [],
    )


def _record(played: int, *, completed: bool = True) -> MatchRecord:
    return MatchRecord(
        game="dice-poker",
        seed=0,
        games_requested=10,
        games_played=played,
        completed=completed,
        referee_version="test",
        sandbox="in-process",
        players=[
            BotFigures(
                name="a", games=played, wins=played, cpu_seconds=0.5, peak_rss_bytes=1 << 20, decisions=7
            ),
            BotFigures(name="b", games=played, losses=played, forfeits={"timeout": 1}, restarts=1),
        ],
    )


# ---------------------------------------------------------------- records


def test_records_round_trip(tmp_path):
    home = tmp_path / "bots"
    home.mkdir()
    (home / "a.py").write_text("a")
    with Store.open(tmp_path, CONFIG, seed=2**70) as store:  # a seed of any size
        store.add_bots(_specs("a", "b", home=home))
        store.add_matches([("r1/a-b", _spec()), ("r1/b-a", _spec(seed=1))])
        assert store.pending_keys() == ["r1/a-b", "r1/b-a"]
        store.start_match("r1/a-b", _spec())
        played = [_game(i, forfeit=i == 4) for i in range(10)]
        store.add_games("r1/a-b", played[:6])
        assert store.unfinished_keys() == ["r1/a-b"] and store.game_count("r1/a-b") == 6
        store.finish_match("r1/a-b", _record(10), played[6:])
    with Store.read(tmp_path) as store:  # a reader: what `referee standings` opens
        assert store.config == CONFIG and store.seed == 2**70
        assert store.done_keys() == ["r1/a-b"] and store.pending_keys() == ["r1/b-a"]
        assert store.games("r1/a-b") == played
        assert [key for key, _ in store.iter_games()] == ["r1/a-b"] * 10
        assert store.match_records() == {"r1/a-b": _record(10)}
        assert store.spec("r1/b-a") == _spec(seed=1)
        assert list(store.bots()) == ["a", "b"] and store.bots()["a"] == _specs("a", home=home)[0]
        assert store.changed_bots(_specs("a", "b", home=home)) == []
        assert store.integrity_check() == "ok"
        with pytest.raises(StoreError, match="opened to read"):
            store.discard_unfinished()
    # The per-bot figures are plain columns, for SQL.
    conn = sqlite3.connect(tmp_path / FILENAME)
    rows = conn.execute(
        "SELECT bot, cpu_seconds, peak_rss_bytes, decisions, forfeits FROM figures ORDER BY bot"
    )
    assert rows.fetchall() == [("a", 0.5, 1 << 20, 7, "{}"), ("b", 0.0, 0, 0, '{"timeout":1}')]
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    # Deal seeds above 2**63 are stored as the same 64 bits, signed.
    assert conn.execute("SELECT min(seed) FROM games").fetchone()[0] < 0
    assert conn.execute("SELECT count(*) FROM games WHERE forfeits IS NOT NULL").fetchone() == (1,)


def test_a_different_configuration_or_seed_is_refused_in_one_line(tmp_path):
    Store.open(tmp_path, CONFIG, seed=1).close()
    with pytest.raises(StoreError) as info:
        Store.open(tmp_path, {**CONFIG, "games": 500}, seed=1)
    assert "games: 500 given, 100 stored" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(StoreError, match="seed 1, not 2"):
        Store.open(tmp_path, CONFIG, seed=2)
    with Store.open(tmp_path) as store:  # a resume takes the stored configuration
        assert store.config == CONFIG
        with pytest.raises(StoreError, match="another referee"):  # one writer at a time
            Store.open(tmp_path)
    Store.open(tmp_path, dict(reversed(CONFIG.items())), seed=1).close()  # key order does not matter
    with pytest.raises(StoreError, match="no tournament here"):
        Store.open(tmp_path / "elsewhere")
    # Killed between creating the file and its first transaction: the next open creates it.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    sqlite3.connect(fresh / FILENAME).execute("PRAGMA journal_mode=WAL").fetchall()
    Store.open(fresh, CONFIG, seed=1).close()
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / FILENAME).write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a database"):
        Store.open(tmp_path / "junk", CONFIG, seed=1)


def test_a_store_killed_while_being_made_leaves_none(tmp_path, monkeypatch):
    """Nothing recorded is lost, and a store is never seen half-made: a new store is made
    under another name and renamed into place (CI killed a tournament while its store was
    being created; ``--resume`` then found an empty store it could not go on with)."""

    def killed(self, *args):
        raise KeyboardInterrupt  # stands for a kill -9 in the middle of the transaction

    with monkeypatch.context() as patched:
        patched.setattr(Store, "_write_new", killed)
        with pytest.raises(KeyboardInterrupt):
            Store.open(tmp_path, CONFIG, seed=1)
    assert not (tmp_path / FILENAME).exists()  # so a resume says "no tournament here"
    with pytest.raises(StoreError, match="no tournament here"):
        Store.open(tmp_path)
    with Store.open(tmp_path, CONFIG, seed=1) as store:  # the same command starts it again
        assert store.config == CONFIG
    assert not (tmp_path / f"{FILENAME}.new").exists()  # made again, renamed into place


def test_content_hash_changes_with_the_files_and_not_otherwise(tmp_path):
    home = tmp_path / "bot"
    (home / "lib").mkdir(parents=True)
    (home / "bot.py").write_text("print('hi')\n")
    (home / "lib" / "util.py").write_text("X = 1\n")
    spec = BotSpec(name="bot", argv=["python3", str(home / "bot.py")], home=str(home))
    first = content_hash(spec)
    assert first.startswith("sha256:") and content_hash(spec) == first
    os.utime(home / "bot.py", (1, 1))  # touched only
    (home / "__pycache__").mkdir()  # what a Python bot writes when it runs
    (home / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0" * 64)
    assert content_hash(spec) == first
    with Store.open(home / "out", CONFIG, seed=1) as store:  # the store in the bot's home: not hashed
        store.add_bots([spec])
        store.add_bots([spec])  # again, unchanged: fine
        assert store.changed_bots([spec]) == []
        store.start_match("m", _spec())
        store.add_games("m", [_game(0)])
        assert store.changed_bots([spec]) == []
        (home / "lib" / "util.py").write_text("X = 2\n")  # edited
        assert content_hash(spec) != first
        assert store.changed_bots([spec, *_specs("newcomer")]) == ["bot", "newcomer"]
        with pytest.raises(StoreError, match="files changed"):
            store.add_bots([spec])
    (home / "lib" / "util.py").write_text("X = 1\n")
    assert content_hash(spec, skip=[home / "out"]) == first
    assert content_hash(spec) != first  # the store, had it not been skipped
    (home / "out").rename(tmp_path / "out")
    assert content_hash(spec) == first
    (home / "lib" / "util2.py").write_text("X = 1\n")  # added
    assert content_hash(spec) != first
    os.rename(home / "lib" / "util2.py", home / "lib" / "util3.py")  # renamed
    second = content_hash(spec)
    (home / "lib" / "util3.py").unlink()
    assert second != first and content_hash(spec) == first
    if os.geteuid() != 0:  # root reads anything
        (home / "secret").write_text("s")
        (home / "secret").chmod(0)
        assert content_hash(spec) != first  # skipped, but named


def test_a_batch_is_all_or_nothing(tmp_path):
    with Store.open(tmp_path, CONFIG, seed=1) as store:
        with pytest.raises(StoreError, match="start_match first"):
            store.add_games("m", [_game(0)])
        store.start_match("m", _spec())
        store.add_games("m", [_game(i) for i in range(3)])
        with pytest.raises(StoreError, match="already stored"):  # game 2 twice: nothing of it
            store.add_games("m", [_game(3), _game(4), _game(2)])
        assert store.game_count("m") == 3
        with pytest.raises(StoreError, match="holds 5 games, the record says 10"):
            store.finish_match("m", _record(10), [_game(3), _game(4)])
        assert store.game_count("m") == 3 and store.status("m") == "running"
        with pytest.raises(StoreError, match="holds 3 games of an unfinished run"):
            store.start_match("m", _spec())
        with pytest.raises(StoreError, match="different spec"):
            store.start_match("m", _spec(games_=11))
        store.finish_match("m", _record(10), [_game(i) for i in range(3, 10)])
        assert store.status("m") == "done"
        with pytest.raises(StoreError, match="not running"):
            store.add_games("m", [_game(10)])
        with pytest.raises(StoreError, match="already done"):
            store.start_match("m", _spec())


def test_discard_unfinished_replays_a_match_from_its_start(tmp_path):
    with Store.open(tmp_path, CONFIG, seed=1) as store:
        for key in ("m1", "m2", "m3"):
            store.start_match(key, _spec())
            store.add_games(key, [_game(i) for i in range(4)])
        store.finish_match("m1", _record(10), [_game(i) for i in range(4, 10)])
        assert store.discard_unfinished("m2") == 4
        assert store.status("m2") == "pending" and store.game_count("m2") == 0
        with pytest.raises(StoreError, match="is done"):
            store.discard_unfinished("m1")
        assert store.discard_unfinished() == 4  # every unfinished one: m3
        assert store.unfinished_keys() == [] and store.game_count() == 10
        store.start_match("m2", _spec())
        store.finish_match("m2", _record(10), [_game(i) for i in range(10)])
        assert store.games("m2") == [_game(i) for i in range(10)]
    conn = sqlite3.connect(tmp_path / FILENAME)
    assert conn.execute("SELECT key, attempts FROM matches ORDER BY id").fetchall() == [
        ("m1", 1),
        ("m2", 2),
        ("m3", 1),
    ]


# ---------------------------------------------------------------- the sink


def _dice_poker(sinks, *, games_: int, seed: int) -> Match:
    players = {"caller": lambda line: "1", "folder": lambda line: "0"}
    cfg = MatchConfig(game="dice-poker", pin=False, games=games_, seed=seed)
    match = Match(
        DicePoker(),  # not games.get(): discovering every game costs a child process 1 s
        _specs(*players),
        cfg,
        seat_factory=InProcessSeat.factory(players),
        sinks=sinks,
    )
    trio.run(match.run)
    return match


def test_the_sink_stores_a_real_match_in_batches(tmp_path):
    spec = MatchSpec(
        bots=_specs("caller", "folder"), config=MatchConfig(game="dice-poker", games=500, seed=4)
    )
    with Store.open(tmp_path, CONFIG, seed=1) as store:
        sink = StoreSink(store, "m", spec, batch_games=64)
        commits: list[int] = []
        add_games = store.add_games
        store.add_games = lambda key, batch: (commits.append(len(batch)), add_games(key, batch))  # type: ignore[method-assign]
        collector = Collector()
        match = _dice_poker([sink, collector], games_=500, seed=4)
        assert match.completed and sink.error is None and sink.committed == 500
        assert commits == [64] * 7  # 448 in batches; the last 52 with the match's end
        assert store.status("m") == "done"
        assert store.games("m") == collector.games
        assert store.match_records()["m"] == collector.final

        # A match that did not complete stays unfinished, its games committed.
        sink = StoreSink(store, "stopped", spec, batch_games=1000)
        sink.open(None)  # type: ignore[arg-type]
        for game in collector.games[:5]:
            sink.game(game, lambda: _record(0))
        sink.close(msgspec.structs.replace(collector.final, games_played=5, completed=False))
        assert store.unfinished_keys() == ["stopped"] and store.game_count("stopped") == 5
        assert sink.error is None and not sink.final.completed
        store.finish_match("stopped", sink.final)  # the runner may accept it as final

        # A batch is also committed when it is old, however small.
        sink = StoreSink(store, "slow", spec, batch_games=1000, batch_seconds=0.0)
        sink.open(None)  # type: ignore[arg-type]
        sink.game(collector.games[0], lambda: _record(0))
        assert store.game_count("slow") == 1


# ---------------------------------------------------------------- SIGKILL at random moments

MATCHES = 30
GAMES = 400
BATCH = 16

_CHILD = textwrap.dedent(
    f"""
    import sys
    sys.path.insert(0, {str(Path(__file__).parent)!r})
    from test_store import CONFIG, MATCHES, GAMES, BATCH, _dice_poker, _match_spec
    from referee.tournament.sink import StoreSink
    from referee.tournament.store import Store

    from referee.sinks.collect import Collector

    _dice_poker([Collector()], games_=1, seed=0)  # one-time costs first: the kills land in matches
    store = Store.open(sys.argv[1], CONFIG, seed=7)
    for key in store.unfinished_keys():
        store.discard_unfinished(key)
    print("ready", flush=True)
    for k in range(MATCHES):
        key = f"m{{k}}"
        if store.status(key) == "done":
            continue
        sink = StoreSink(store, key, _match_spec(k), batch_games=BATCH, batch_seconds=1e9)
        _dice_poker([sink], games_=GAMES, seed=k)
        assert sink.error is None, sink.error
    print("finished", flush=True)
    """
)


def _match_spec(k: int) -> MatchSpec:
    return MatchSpec(
        bots=_specs("caller", "folder"), config=MatchConfig(game="dice-poker", games=GAMES, seed=k)
    )


def _check_whole(directory: Path) -> dict[str, str]:
    """The store after a kill: intact, each match done with all its games, or holding
    whole committed batches only, or nothing."""
    with Store.read(directory) as store:
        assert store.integrity_check() == "ok"
        statuses = {}
        for key in store.match_keys():
            status = statuses[key] = store.status(key)
            stored = store.games(key)  # every row decodes: no partial game
            assert [g.game for g in stored] == list(range(len(stored)))
            if status == "done":
                assert len(stored) == GAMES == store.match_records()[key].games_played
            elif status == "running":
                # whole batches (all of them, when killed before the match's end was written)
                assert len(stored) % BATCH == 0 and len(stored) <= GAMES
            else:
                assert stored == []
        return statuses


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_whole_games_and_resume_finishes_the_same(tmp_path):
    store_dir = tmp_path / "t"
    rng = random.Random(11)
    seen_running = 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _cycle in range(4):  # each kill lands within the first 0.12 s of a run
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(store_dir)], stdout=subprocess.PIPE, text=True, env=env
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.12))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        statuses = _check_whole(store_dir)
        seen_running += list(statuses.values()).count("running")
    finisher = subprocess.run(
        [sys.executable, "-c", _CHILD, str(store_dir)], capture_output=True, text=True, env=env, timeout=60
    )
    assert finisher.stdout.endswith("finished\n"), finisher.stderr
    assert set(_check_whole(store_dir).values()) == {"done"}
    assert seen_running, "no kill landed inside a match: the delays need adjusting"
    # Every game once, the same as an uninterrupted run (the bots are deterministic).
    with Store.read(store_dir) as store:
        for k in range(MATCHES):
            reference = Collector()
            _dice_poker([reference], games_=GAMES, seed=k)
            assert store.games(f"m{k}") == reference.games
