"""Notes: a bot's ``referee-note: NAME TEXT`` stderr lines, counted into the results
(protocol/notes.py; docs/records.md, "Notes").

Issue 15 asks the PPCA adapter to "count each correction as a named note in the
results, so the student learns of it"; this is the channel, for any bot in any game.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from protocol import notes, relay
from protocol.notes import NoteReader

ROOT = Path(__file__).resolve().parents[1]


def referee(*argv: str) -> subprocess.CompletedProcess:
    """``referee ARGV…`` from the checkout, as a user runs it; its output captured."""
    command = [sys.executable, "-m", "referee", *argv]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


STREAM = (
    b"starting up\n"
    b"referee-note: retry.first game 1: asked again\n"
    b"referee-note: retry.first game 2\r\n"  # CRLF: the \r is not part of the text
    b"  referee-note: not.at.line.start\n"  # only at a line's start
    b"something referee-note: mid.line\n"
    b"referee-note: bad!name text\n"  # not a name: the bot's stderr like any other line
    b"referee-note:missing.space\n"
    b"referee-note: solo\n"  # no text: counted, no example
    b"referee-note: \xff\xfe.bytes\n"
    b"referee-note: other.kind caf\xc3\xa9 \x1b[31mred\x1b[0m\n"
    + b"x" * 5000  # a long line that is not a note, split anywhere
    + b"\nreferee-note: long "
    + b"y" * 3000  # a note's line longer than LINE_MAX: counted, its text cut
    + b"\nreferee-note: retry.first last one\n"
    b"referee-note: unterminated at the end"
)

EXPECTED_COUNTS = {
    "retry.first": 3,
    "solo": 1,
    "other.kind": 1,
    "long": 1,
    "unterminated": 1,
    "(malformed)": 2,
}


def read(chunks: list[bytes]) -> NoteReader:
    reader = NoteReader()
    for chunk in chunks:
        reader.feed(chunk)
    reader.finish()
    return reader


def test_notes_are_counted_by_name_with_the_first_text() -> None:
    reader = read([STREAM])
    assert reader.counts == EXPECTED_COUNTS
    assert reader.total == sum(EXPECTED_COUNTS.values())
    assert reader.examples["retry.first"] == "game 1: asked again"
    assert "solo" not in reader.examples
    # Text is kept printable (a bot's words reach a terminal and a web page).
    assert reader.examples["other.kind"] == "café ?[31mred?[0m"
    assert reader.examples["long"] == "y" * notes.TEXT_MAX
    assert reader.examples["unterminated"] == "at the end"
    # A mistyped name is not lost without a word: counted apart, the first one kept.
    assert reader.examples["(malformed)"] == "bad!name text"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 13, 14, 15, 64, 511, 512, 513, 4096])
def test_any_chunking_reads_the_same_notes(size: int) -> None:
    """A pipe hands over stderr in pieces of any size, split anywhere."""
    reader = read([STREAM[i : i + size] for i in range(0, len(STREAM), size)])
    assert reader.counts == EXPECTED_COUNTS
    assert reader.examples == read([STREAM]).examples


def test_every_split_point_of_a_note() -> None:
    line = b"junk\nreferee-note: split.here some text\nmore junk\n"
    for cut in range(len(line) + 1):
        reader = read([line[:cut], line[cut:]])
        assert reader.counts == {"split.here": 1}, cut
        assert reader.examples == {"split.here": "some text"}, cut


def test_names_and_memory_are_bounded() -> None:
    many = b"".join(b"referee-note: name%d x\n" % i for i in range(notes.NAMES_MAX + 10))
    reader = read([many])
    assert len(reader.counts) == notes.NAMES_MAX + 1
    assert reader.counts[notes.OTHER] == 10
    assert reader.total == notes.NAMES_MAX + 10


@pytest.mark.slow
def test_a_flood_of_notes_is_counted_without_parsing_each() -> None:
    """Past PARSED_MAX notes are counted in bulk: a flood costs the referee what reading
    stderr costs, not a Python loop per line."""
    flood = b"referee-note: flood\n" * (notes.PARSED_MAX + 1000)
    reader = NoteReader()
    for i in range(0, len(flood), 65536):
        reader.feed(flood[i : i + 65536])
    reader.finish()
    assert reader.total == notes.PARSED_MAX + 1000
    assert reader.counts["flood"] >= notes.PARSED_MAX
    assert reader.counts["flood"] + reader.counts.get(notes.CAPPED, 0) == reader.total


def test_the_python_helper_writes_a_note_line() -> None:
    import io

    out = io.StringIO()
    notes.note("fallback.used", "game 3: no legal bid found", file=out)
    assert out.getvalue() == "referee-note: fallback.used game 3: no legal bid found\n"
    assert read([out.getvalue().encode()]).counts == {"fallback.used": 1}


def test_the_relay_carries_notes_at_a_stop_and_checks_them() -> None:
    line = relay.stopped(0.25, 1 << 20, {"a.b": 3, "c": 1}, {"a.b": "first text"})
    kind, rest = relay.split(line)
    assert kind == "stopped"
    assert relay.parse_stopped(rest) == (0.25, 1 << 20, {"a.b": 3, "c": 1}, {"a.b": "first text"})
    assert relay.parse_stopped(b"0.5 100") == (0.5, 100, {}, {})  # an older client
    assert relay.parse_stopped(b'0 0 {"n":{"(malformed)":2}}')[2] == {"(malformed)": 2}
    # The client's word is checked like a bot's: bad names and counts are dropped.
    rest = b'0 0 {"n":{"ok":2,"bad name":1,"neg":-4,"str":"3"},"e":{"ok":"t\\u001b","zz":"x"}}'
    assert relay.parse_stopped(rest) == (0.0, 0, {"ok": 2}, {"ok": "t?"})
    # Within any game's line limit, however many notes there are.
    big = {f"n{i:02d}.{'x' * 30}": i + 1 for i in range(64)}
    line = relay.stopped(1.0, 1, big, {name: "e" * 200 for name in big})
    assert len(line) <= relay.NOTES_MAX + 64
    assert relay.parse_stopped(relay.split(line)[1])[2]


# ---------------------------------------------------------------------- in a match

NOTING_BOT = textwrap.dedent(
    """\
    import sys
    sys.path.insert(0, {root!r})
    from protocol import bidding_wars as wire
    from protocol.notes import note

    games = 0
    bids = 0
    for line in sys.stdin.buffer:
        if line.startswith(b"end"):
            games += 1
            continue
        if not line.startswith(b"bid "):
            continue
        request = wire.parse_request(line)
        note("bid.high" if request.prize > 6 else "bid.low", f"prize {{request.prize}}")
        sys.stderr.write("noise referee-note: not.counted\\n")
        bids += 1
        if games == 1 and {crash}:  # each life dies at its second game's first bid
            sys.stderr.flush()
            sys.exit(3)
        sys.stdout.buffer.write(wire.encode_bid(request.prize))
        sys.stdout.flush()
    """
)


def play(tmp_path: Path, crash: bool) -> tuple[dict, list[dict]]:
    bot = tmp_path / "noting.py"
    bot.write_text(NOTING_BOT.format(root=str(ROOT), crash=crash))
    summary, log = tmp_path / "summary.json", tmp_path / "games.jsonl"
    done = referee(
        "match",
        f"{sys.executable} {bot}",
        f"{sys.executable} {ROOT / 'sample_players/bidding_wars/prize_plus_one.py'}",
        *["--game", "bidding-wars", "--games", "4", "--seed", "5", "--quiet", "--cards", "8"],
        *["--json", str(summary), "--log", str(log)],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(summary.read_text()), [json.loads(line) for line in log.read_text().splitlines()]


def asked_prizes(games: list[dict], bot: str) -> list[int]:
    """The prize of every bid request the bot was sent (answered or not), from the log."""
    prizes = []
    for game in games:
        seat = game["seats"].index(bot)
        for step in game["transcript"]:
            if step["seat"] == seat and step["kind"] == "ask":
                prizes.append(int(step["line"].split()[1]))
    return prizes


@pytest.mark.slow
@pytest.mark.parametrize("crash", [False, True], ids=["one-life", "restarted"])
def test_a_match_counts_a_bots_notes_over_all_its_lives(tmp_path: Path, crash: bool) -> None:
    summary, games = play(tmp_path, crash)
    (me,) = [p for p in summary["players"] if p["name"] == "noting"]
    prizes = asked_prizes(games, "noting")
    assert prizes, games
    expected = {
        name: count
        for name, count in (
            ("bid.high", sum(p > 6 for p in prizes)),
            ("bid.low", sum(p <= 6 for p in prizes)),
        )
        if count
    }
    assert me["notes"] == expected
    assert set(me["note_examples"]) == set(expected)
    if crash:
        assert me["restarts"] >= 1 and me["forfeits"].get("crash"), me
    (other,) = [p for p in summary["players"] if p["name"] != "noting"]
    assert other["notes"] == {} and other["note_examples"] == {}


@pytest.mark.slow
def test_the_results_table_shows_the_notes(tmp_path: Path) -> None:
    bot = tmp_path / "noting.py"
    bot.write_text(NOTING_BOT.format(root=str(ROOT), crash=False))
    done = referee(
        "match",
        f"{sys.executable} {bot}",
        f"{sys.executable} {ROOT / 'sample_players/bidding_wars/prize_plus_one.py'}",
        *["--game", "bidding-wars", "--games", "2", "--seed", "5", "--cards", "8"],
    )
    assert done.returncode == 0, done.stderr
    assert "noting: notes (its own word about its play): 16" in done.stdout, done.stdout
    assert "bid.low ×" in done.stdout and "bid.high ×" in done.stdout


# ---------------------------------------------------------------------- remote, and standings


@pytest.mark.slow
async def test_a_remote_bots_notes_reach_the_servers_results(tmp_path: Path) -> None:
    """`referee connect` runs the bot locally; its notes travel with the stop (relay
    `stopped … NOTES`) into the server's record and the table's standings."""
    import trio

    from tests.test_remote import honest, start_server

    bot = tmp_path / "noting.py"
    bot.write_text(NOTING_BOT.format(root=str(ROOT), crash=False))
    other = ROOT / "sample_players/bidding_wars/prize_plus_one.py"
    async with trio.open_nursery() as nursery:
        server, port = await start_server(
            nursery, tmp_path, game="bidding-wars", table_size=2, games=2, options={"cards": 8}
        )
        with trio.fail_after(60):
            async with trio.open_nursery() as players:
                players.start_soon(honest, port, f"{sys.executable} {bot}", "noting")
                players.start_soon(honest, port, f"{sys.executable} {other}", "plain")
        nursery.cancel_scope.cancel()
    (result,) = server.results
    figures = {p.name: p for p in result.record.players}
    # Every prize 1..8 is bid once a game: 7 and 8 are "high" (> 6).
    assert figures["noting"].notes == {"bid.high": 4, "bid.low": 12}
    assert figures["noting"].note_examples["bid.low"].startswith("prize ")
    assert figures["plain"].notes == {}
    standings = (tmp_path / "served" / "standings.md").read_text()
    assert "## Notes" in standings and "### noting: 16 in 1 matches" in standings, standings
    assert "- bid.low ×12" in standings


@pytest.mark.slow
def test_a_tournaments_standings_sum_each_bots_notes(tmp_path: Path) -> None:
    bot_dir = tmp_path / "bots"
    bot_dir.mkdir()
    (bot_dir / "noting.py").write_text(NOTING_BOT.format(root=str(ROOT), crash=False))
    out = tmp_path / "cup"
    done = referee(
        "tournament",
        f"{sys.executable} {bot_dir / 'noting.py'}",
        f"{sys.executable} {ROOT / 'sample_players/bidding_wars/prize_plus_one.py'}",
        *[
            "--game",
            "bidding-wars",
            "--format",
            "round-robin",
            "--rounds",
            "2",
            "--games",
            "3",
            "--cards",
            "8",
            "--seed",
            "3",
            "--quiet",
        ],
        *["--out", str(out)],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    standings = json.loads((out / "standings.json").read_text())
    (entry,) = standings["notes"]
    # Two matches of 3 games, every prize 1..8 bid once a game; 7 and 8 are "high".
    assert entry["bot"] == "noting" and entry["matches"] == 2
    assert entry["notes"] == {"bid.high": 12, "bid.low": 36}
    assert set(entry["examples"]) == {"bid.high", "bid.low"}
    text = (out / "standings.md").read_text()
    assert "## Notes" in text and "### noting: 48 in 2 matches" in text and "- bid.low ×36" in text


def dice_poker_cup(tmp_path: Path, name: str, source: str, games: int) -> Path:
    """A round robin of dice poker (its bots live for the whole tournament): the bot
    ``name`` (Python ``source``) against the always-call and always-fold samples."""
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / f"{name}.py").write_text(source)
    players = ROOT / "sample_players/dice_poker"
    out = tmp_path / "cup"
    done = referee(
        "tournament",
        f"{sys.executable} {bots / name}.py",
        f"{sys.executable} {players / 'always_call.py'}",
        f"{sys.executable} {players / 'always_fold.py'}",
        *f"--game dice-poker --format round-robin --games {games} --seed 3 --concurrency 1 --quiet".split(),
        *["--out", str(out)],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


NOTING_CALLER = textwrap.dedent(
    """\
    import sys
    sys.path.insert(0, {root!r})
    from protocol import dice_poker as wire
    from protocol.notes import note

    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        if message.is_request:
            note("asked", line.decode().strip())
        sys.stdout.buffer.write(wire.encode_reply(wire.RAISE if message.is_request else 0))
        sys.stdout.flush()
    """
)


@pytest.mark.slow
def test_a_bot_alive_for_the_whole_tournament_has_its_notes_charged_match_by_match(tmp_path: Path) -> None:
    """Dice poker's bots live for the whole tournament (one process lent to each match):
    each match's record holds the notes written while that match had the process."""
    from referee.tournament.store import Store

    out = dice_poker_cup(tmp_path, "noting", NOTING_CALLER.format(root=str(ROOT)), games=40)
    with Store.read(out) as store:
        records = list(store.match_records().values())
    mine = [r.player("noting") for r in records if "noting" in [p.name for p in r.players]]
    assert len(mine) == 2
    for figures in mine:
        # One note per request answered: the process's notes split exactly by match.
        assert figures.decisions > 0 and figures.notes == {"asked": figures.decisions}, figures
    (entry,) = json.loads((out / "standings.json").read_text())["notes"]
    assert entry["notes"] == {"asked": sum(f.decisions for f in mine)} and entry["matches"] == 2


def test_a_stopped_lines_notes_fit_the_servers_line_limit() -> None:
    """The client gives ``room`` from the limits it was told; what does not fit is
    dropped (examples first), never sent over the server's limit."""
    notes_ = {f"name{i}": i + 1 for i in range(30)}
    examples = dict.fromkeys(notes_, "x" * 150)
    for room in (60, 200, 600, 5000):
        line = relay.stopped(1.0, 2, notes_, examples, room)
        extra = line.split(b" ", 3)[3:] if line.count(b" ") >= 3 else []
        assert not extra or len(extra[0].rstrip(b"\n")) <= room, (room, line)
        cpu, rss, got, _ = relay.parse_stopped(relay.split(line)[1])
        assert (cpu, rss) == (1.0, 2) and all(notes_[name] == count for name, count in got.items())
    # A malformed NOTES is the client's error in one line, never an exception of another kind.
    for bad in (b'{"n":[1]}', b'{"n":5}', b'{"e":[1]}', b"[" * 1500, b'{"n":{"a":1},"e":3}'):
        with pytest.raises(relay.RelayError):
            relay.parse_stopped(b"0.1 5 " + bad)
    assert relay.parse_stopped(b'0.1 5 {"n":{"a":true,"b":2,"c":99999999999999999999}}')[2] == {"b": 2}


@pytest.mark.slow
def test_a_tournament_long_bot_gets_its_seed_from_the_tournament(tmp_path: Path) -> None:
    """$REFEREE_SEED (issue 15: "srand is seeded by the referee") for a bot that lives for
    the whole tournament: from the tournament's seed and its name, in every match."""
    from referee.core.seeding import bot_seed

    source = NOTING_CALLER.format(root=str(ROOT)).replace(
        'note("asked", line.decode().strip())',
        'note("seed", __import__("os").environ.get("REFEREE_SEED", "none"))',
    )
    assert 'note("seed"' in source
    out = dice_poker_cup(tmp_path, "seeder", source, games=4)
    (entry,) = json.loads((out / "standings.json").read_text())["notes"]
    assert entry["examples"] == {"seed": str(bot_seed(3, "seeder"))}
