"""The PPCA 2014 Hold'em adapter (adapters/ppca/): students' C++ Player under our line protocol.

Sources: seed 003 §2.2 (/work/shared/seeds/003_97ecf071378643a5.txt: the Player functions,
decision_type, card_type, the Query table) and reference.md §5 (the stock client's
corrections).  The adapter's choices are in adapters/ppca/README.md.

One module fixture compiles every C++ bot below into one temporary directory (in parallel,
the adapter once); the tests then play real matches against the Python sample players,
or pipe hand-written lines (docs/protocols/holdem.md's example game) straight into a bot.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import BOT_PYTHON

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "adapters" / "ppca"
HOLDEM = ROOT / "sample_players" / "holdem"
GXX = shutil.which("g++")

pytestmark = [
    pytest.mark.skipif(GXX is None, reason="g++ is not installed: the PPCA adapter is C++11"),
    pytest.mark.e2e,
    pytest.mark.slow,
]

# ---------------------------------------------------------------------------- student bots

# Prints on every path a student might: a global constructor, cout without a newline,
# printf, puts, a raw write(1), and reads cin (a leftover of the seed's interactive
# example.cpp).  Plays legally without help: calls bets, checks (calls 0 as the big blind).
NOISY = r"""
#include "player.h"
#include <cstdio>
#include <iostream>
#include <unistd.h>
#include <algorithm>

struct Loud { Loud() { std::printf("noise-static printf\n"); std::cout << "noise-static cout" << std::endl; } } loud;

static decision_type passive(const Query& q, bool preflop) {
    const std::vector<int>& b = q.current_bets();
    int to_call = *std::max_element(b.begin(), b.end()) - q.current_bets(q.my_id());
    std::printf("noise-decision printf %d\n", to_call);
    std::cout << "noise-decision cout " << to_call << std::endl;
    std::puts("noise-decision puts");
    if (write(1, "noise-raw write\n", 16) < 0) return make_decision(FOLD);
    return to_call > 0 || preflop ? make_decision(CALL) : make_decision(CHECK);
}

std::string Player::login_name() { std::cout << "noise-login no newline "; return "noisy"; }
void Player::login_name(std::string name) { std::cout << name; }
void Player::init() { int x = 7; std::cin >> x; std::cout << "noise-init cin " << (std::cin ? "read" : "eof") << std::endl; }
void Player::destroy() { std::printf("noise-destroy\n"); }
decision_type Player::preflop() { return passive(query, true); }
decision_type Player::flop() { return passive(query, false); }
decision_type Player::turn() { return passive(query, false); }
decision_type Player::river() { return passive(query, false); }
hand_type Player::showdown() {
    std::cout << "noise-showdown" << std::endl;
    hand_type h;
    for (int i = 0; i < 5; ++i) h[i] = query.community_cards()[i];  // the board: always five of one's seven
    return h;
}
void Player::game_end() { std::printf("noise-game-end\n"); }
"""

# Decides what the stock client had to correct: RAISE 0 preflop (below even the client's
# own minimum), CALL on the flop (nothing to call once checked to), RAISE 10^9 on the river
# (over the stack).  Its free option preflop is CALL (a CHECK would be sent, and folded).
CORRECTED = r"""
#include "player.h"
#include <algorithm>
std::string Player::login_name() { return "corrected"; }
void Player::login_name(std::string) {}
void Player::init() {}
void Player::destroy() {}
decision_type Player::preflop() {
    int me = query.my_id();
    int most = 0;
    for (size_t i = 0; i < query.current_bets().size(); ++i) most = std::max(most, query.current_bets()[i]);
    return most == query.current_bets(me) ? make_decision(CALL) : make_decision(RAISE, 0);
}
decision_type Player::flop() { return make_decision(CALL); }
decision_type Player::turn() { return make_decision(CALL); }
decision_type Player::river() { return make_decision(RAISE, 1000000000); }
hand_type Player::showdown() { hand_type h; return h; }  // five (0, 0) pairs: not cards
void Player::game_end() {}
"""

# Logs every call and the whole Query (to cout, which the adapter sends to stderr), and
# decides from $PPCA_PROBE_SCRIPT: K check, F fold, C call, R<n> raise n (then FOLD).
PROBE = r"""
#include "player.h"
#include <cstdlib>
#include <iostream>
#include <sstream>

static std::string card(const card_type& c) { return std::string(1, c.first) + c.second; }
template <class T> static std::string join(const std::vector<T>& v) {
    std::ostringstream o;
    for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
    return o.str();
}
static void dump(const char* event, const Query& q) {
    std::ostringstream o;
    o << "probe " << event << " id=" << q.my_id() << " n=" << q.number_of_player() << " initial=" << q.initial_chips();
    o << " names=";
    for (int i = 0; i < q.number_of_player(); ++i) o << (i ? "," : "") << q.name_of(i);
    o << " chips=" << join(q.chips()) << " parts=" << join(q.participants()) << " np=" << q.number_of_participants();
    o << " out=" << q.out_of_game() << " dealer=" << q.dealer() << " blind=" << q.blind();
    o << " hole=" << card(q.hole_cards()[0]) << card(q.hole_cards()[1]) << " board=";
    for (size_t i = 0; i < q.community_cards().size(); ++i) o << card(q.community_cards()[i]);
    o << " pots=";
    for (size_t i = 0; i < q.pots().size(); ++i) o << (i ? "," : "") << q.pots()[i].amount() << ":" << join(q.pots()[i].contributors());
    o << " bets=";
    for (size_t i = 0; i < q.bets().size(); ++i) o << (i ? "," : "") << q.bets()[i].first << ":" << q.bets()[i].second;
    o << " status=";
    for (int i = 0; i < (int)q.player_statue().size(); ++i) o << q.player_status(i);
    o << " cur=" << join(q.current_bets()) << " hands=";
    for (size_t i = 0; i < q.hands().size(); ++i) {
        const HANDINFO& h = q.hands()[i];
        o << (i ? "," : "") << h.player << ":";
        for (int k = 0; k < 5; ++k) o << card(h.hand[k]);
        o << ":" << h.kind;
    }
    o << " wip=";
    for (size_t i = 0; i < q.won_chips_in_pots().size(); ++i) {
        o << (i ? "/" : "");
        for (size_t k = 0; k < q.won_chips_in_pots()[i].size(); ++k)
            o << (k ? "," : "") << q.won_chips_in_pots()[i][k].first << "=" << q.won_chips_in_pots()[i][k].second;
    }
    o << " last=" << join(q.chips_won_in_last_game());
    std::cout << o.str() << std::endl;
}
static decision_type next_decision() {
    static std::istringstream script(std::getenv("PPCA_PROBE_SCRIPT") ? std::getenv("PPCA_PROBE_SCRIPT") : "");
    std::string t;
    if (!std::getline(script, t, ',') || t.empty()) return make_decision(FOLD);
    if (t == "K") return make_decision(CHECK);
    if (t == "C") return make_decision(CALL);
    if (t[0] == 'R') return make_decision(RAISE, std::atoi(t.c_str() + 1));
    return make_decision(FOLD);
}
std::string Player::login_name() { std::cout << "probe login_name()" << std::endl; return "probe"; }
void Player::login_name(std::string name) { std::cout << "probe login_name(" << name << ")" << std::endl; }
void Player::init() { dump("init", query); }
void Player::destroy() { std::cout << "probe destroy" << std::endl; }
decision_type Player::preflop() { dump("preflop", query); return next_decision(); }
decision_type Player::flop() { dump("flop", query); return next_decision(); }
decision_type Player::turn() { dump("turn", query); return next_decision(); }
decision_type Player::river() { dump("river", query); return next_decision(); }
hand_type Player::showdown() {
    dump("showdown", query);
    hand_type h;
    h[0] = query.hole_cards()[0];
    for (int i = 0; i < 4; ++i) h[i + 1] = query.community_cards()[i];
    return h;
}
void Player::game_end() { dump("game_end", query); }
"""


def _copy_player_h_with_member(directory: Path) -> None:
    """A student's own player.h: the adapter's, plus members (as the seed invites)."""
    text = (ADAPTER / "player.h").read_text()
    marker = "    Query query;\n"
    assert marker in text
    directory.mkdir()
    (directory / "player.h").write_text(
        text.replace(marker, marker + "    std::vector<int> seen;\n    long total;\n")
    )
    (directory / "own.cpp").write_text(
        CORRECTED.replace(
            "void Player::init() {}", "void Player::init() { seen.assign(100, 1); total = 0; }"
        ).replace("void Player::game_end() {}", "void Player::game_end() { total += seen[99]; }")
    )


@pytest.fixture(scope="module")
def bots() -> Iterator[dict[str, Path]]:
    """Every bot compiled once, in parallel, the adapter's two files shared."""
    out = Path(tempfile.mkdtemp(prefix="referee-ppca-"))
    out.chmod(0o755)  # as root the bots run under other uids, which must reach them
    try:
        yield _build(out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _build(out: Path) -> dict[str, Path]:
    sources = {"noisy": NOISY, "corrected": CORRECTED, "probe": PROBE}
    for name, text in sources.items():
        (out / f"{name}.cpp").write_text(text)
    _copy_player_h_with_member(out / "own_src")
    inc = ["-I", str(ADAPTER)]
    fast = [GXX, "-std=c++11", "-O0", "-Wall", "-Wextra", "-c"]
    units = {
        "main.o": [*fast, *inc, str(ADAPTER / "main.cpp")],
        "query.o": [*fast, *inc, str(ADAPTER / "query.cpp")],
        "own_main.o": [*fast, "-I", str(out / "own_src"), *inc, str(ADAPTER / "main.cpp")],
        "own.o": [*fast, *inc, str(out / "own_src" / "own.cpp")],
        **{f"{name}.o": [*fast, *inc, str(out / f"{name}.cpp")] for name in sources},
    }
    # The sample with the students' -O2; the test players at -O0, which compiles faster.
    sample = ADAPTER / "sample" / "sample_player.cpp"
    units["sample.o"] = [GXX, "-std=c++11", "-O2", "-Wall", "-Wextra", "-c", *inc, str(sample)]
    compiling = {
        obj: subprocess.Popen([*cmd, "-o", str(out / obj)], stderr=subprocess.PIPE)
        for obj, cmd in units.items()
    }
    for obj, proc in compiling.items():
        _, err = proc.communicate()
        assert proc.returncode == 0, f"{obj}: {err.decode()}"
        if obj in ("main.o", "query.o", "sample.o"):  # the adapter and the sample compile cleanly
            assert b"warning" not in err, f"{obj}: {err.decode()}"
    links = {
        "sample_player": ["sample.o", "main.o", "query.o"],
        "noisy": ["noisy.o", "main.o", "query.o"],
        "corrected": ["corrected.o", "main.o", "query.o"],
        "probe": ["probe.o", "main.o", "query.o"],
        "own": ["own.o", "own_main.o", "query.o"],  # -I own -I adapters/ppca: both saw the student's
    }
    linking = [
        subprocess.Popen([GXX, *(str(out / o) for o in objs), "-o", str(out / name)])
        for name, objs in links.items()
    ]
    assert all(proc.wait() == 0 for proc in linking)
    return {name: out / name for name in links}


# ---------------------------------------------------------------------------- helpers


def match(
    *bots: str | Path, games: int, seed: int, extra: tuple[str, ...] = (), workdir: Path
) -> tuple[dict, dict[str, str]]:
    """Play a real match: its --json summary, and for each of our C++ bots the stderr it
    writes when its lines from the match's --log are piped into it again.

    The replay must give the very replies the match got (the bots are deterministic), so
    its stderr is what the bot wrote in the match.  It is read from the replay because the
    referee's --stderr-dir can lose a fast bot's stderr (README.md, "Limits").
    """
    summary, log = workdir / "summary.json", workdir / "games.jsonl"
    options = f"--game holdem --games {games} --seed {seed} --quiet".split()
    outputs = ["--json", str(summary), "--log", str(log), "--stderr-dir", str(workdir / "err")]
    command = [sys.executable, "-m", "referee", "match", *map(str, bots), *options, *outputs, *extra]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    replayed = {}
    for bot in bots:
        if not isinstance(bot, Path):
            continue
        lines, replies = [], []
        for record in records:
            seat = record["seats"].index(bot.name)
            for entry in record["transcript"]:
                if entry["seat"] == seat:
                    lines.append(entry["line"])
                    if entry["kind"] == "ask":
                        replies.append(entry["reply"])
        out, err, status = pipe(bot, lines)
        assert status == 0 and out == replies, f"{bot.name}: the replay differs from the match\n{err}"
        replayed[bot.name] = err
    return json.loads(summary.read_text()), replayed


def python_player(name: str) -> str:
    return f"{BOT_PYTHON} {HOLDEM / name}"


def player_record(summary: dict, name: str) -> dict:
    (record,) = [p for p in summary["players"] if p["name"] == name]
    return record


def pipe(bot: Path, lines: list[str], script: str = "") -> tuple[list[str], str, int]:
    """Feed lines to a bot directly: (its stdout lines, its stderr, its exit status)."""
    env = {**os.environ, "PPCA_PROBE_SCRIPT": script}
    done = subprocess.run(
        [str(bot)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        timeout=10,
    )
    return done.stdout.splitlines(), done.stderr, done.returncode


def probes(stderr: str) -> list[tuple[str, dict[str, str]]]:
    """The probe player's log: (event, {field: value}) per line."""
    out = []
    for line in stderr.splitlines():
        words = line.split(" ")
        if words[0] == "probe" and len(words) > 2:  # not login_name(), destroy
            out.append((words[1], dict(w.split("=", 1) for w in words[2:] if "=" in w)))
    return out


# docs/protocols/holdem.md's whole example game, the lines seat 1 receives.
DOC_SEAT1 = [
    "act hand 1 seat 1 dealer 0 sb 1 bb 2 round preflop hole 8C8H board - stacks 998,999 bets 2,1 status -- pots - tocall 1 minraise 2 maxraise 998 legal fold,call,raise history 1s1,0b2",
    "act hand 1 seat 1 dealer 0 sb 1 bb 2 round flop hole 8C8H board TC9S8D stacks 994,994 bets 0,0 status -- pots 12:0.1 tocall 0 minraise 2 maxraise 994 legal fold,check,raise history 1s1,0b2,1r5,0c4/",
    "act hand 1 seat 1 dealer 0 sb 1 bb 2 round turn hole 8C8H board TC9S8D9H stacks 994,994 bets 0,0 status -- pots 12:0.1 tocall 0 minraise 2 maxraise 994 legal fold,check,raise history 1s1,0b2,1r5,0c4/1k0,0k0/",
    "result hand 1 board TC9S8D9H shown - pots 12:1=12 won 0,12 stacks 994,1006",
    "act hand 2 seat 1 dealer 1 sb 1 bb 2 round preflop hole TC6H board - stacks 0,1004 bets 994,2 status A- pots - tocall 992 minraise 0 maxraise 0 legal fold,call history 0s1,1b2,0r993",
    "show hand 2 seat 1 hole TC6H board 3HJS6CJH6S",
    "result hand 2 board 3HJS6CJH6S shown 0:5D4C:5DJS6CJH6S,1:TC6H:6HJS6CJH6S pots 1988:1=1988 won 0,1988 stacks 0,2000",
    "gameover hands 2 stacks 0,2000 ranks 2,1",
]


# ---------------------------------------------------------------------------- real matches


def test_sample_plays_real_matches_without_forfeits(bots, tmp_path) -> None:
    summary, replayed = match(
        bots["sample_player"],
        python_player("always_call.py"),
        python_player("random_player.py"),
        games=3,
        seed=3,
        workdir=tmp_path,
    )
    assert summary["games_played"] == 3 and summary["completed"]
    sample = player_record(summary, "sample_player")
    assert sample["forfeits"] == {} and sample["forfeit_details"] == []
    assert sample["decisions"] > 20
    log = replayed["sample_player"]
    # A Player per game: init() and destroy() (the sample's own lines) three times each.
    assert log.count("sample: 3 players, 1000 chips each") == 3
    assert log.count("sample: won chips in") == 3
    assert re.search(r"^ppca-adapter: all 3 game\(s\): \d+ corrections?", log, re.M)


def test_bot_showdown_and_stray_output(bots, tmp_path) -> None:
    """The seed's showdown() answers `show`; a student printing everywhere breaks nothing."""
    summary, replayed = match(
        bots["sample_player"],
        bots["noisy"],
        python_player("always_call.py"),
        games=2,
        seed=11,
        extra=("--bot-showdown", "1"),
        workdir=tmp_path,
    )
    assert summary["games_played"] == 2
    for name in ("sample_player", "noisy"):
        record = player_record(summary, name)
        assert record["forfeits"] == {}, (name, record["forfeit_details"])
        assert record["decisions"] > 5
    noise = replayed["noisy"]
    assert "noise-login no newline " in noise  # cout without a newline, flushed later
    for text in (
        "noise-static printf",
        "noise-static cout",
        "noise-decision printf",
        "noise-decision cout",
        "noise-decision puts",
        "noise-raw write",
        "noise-showdown",
        "noise-game-end",
        "noise-destroy",
    ):
        assert text in noise, text
    assert "noise-init cin eof" in noise  # cin reads nothing: no protocol line is stolen
    assert "0 corrections" in noise


def test_corrections_are_made_and_reported(bots, tmp_path) -> None:
    summary, replayed = match(
        bots["corrected"], python_player("always_call.py"), games=2, seed=1, workdir=tmp_path
    )
    record = player_record(summary, "corrected")
    assert record["forfeits"] == {}, record["forfeit_details"]  # every reply was made legal
    log = replayed["corrected"]
    found = re.findall(r"^referee-note: ppca\.correction\.(\S+) game (\d+) hand (\d+): (.*)$", log, re.M)
    kinds = {kind for kind, *_ in found}
    assert {"raise-below-minimum", "call-to-check", "raise-above-stack"} <= kinds, log
    assert any(k == "raise-below-minimum" and "RAISE 0 below the minimum" in what for k, _, _, what in found)
    assert any(k == "raise-above-stack" and re.search(r"sent raise \d+$", what) for k, _, _, what in found)
    # Each game's summary counts every correction of the game, each one a note line.
    summaries = re.findall(r"^ppca-adapter: game (\d+) over: \d+ corrections? \(([^)]*)\)", log, re.M)
    assert {g for g, _ in summaries} == {g for _, g, _, _ in found}
    for game, parts in summaries:
        for part in parts.split(", "):
            kind, count = part.rsplit(" ", 1)
            assert int(count) == sum(1 for k, g, _, _ in found if (k, g) == (kind, game)), (game, kind)
    # The issue: "count each correction as a named note in the results, so the student
    # learns of it" -- the match's record counts exactly the notes the adapter wrote, by
    # name, with the first of each as its example.
    expected: dict[str, int] = {}
    for kind, *_ in found:
        expected[f"ppca.correction.{kind}"] = expected.get(f"ppca.correction.{kind}", 0) + 1
    for kind in re.findall(r"^referee-note: ppca\.warning\.(\S+) ", log, re.M):
        expected[f"ppca.warning.{kind}"] = expected.get(f"ppca.warning.{kind}", 0) + 1
    assert record["notes"] == expected
    first = next(f for f in found if f[0] == "raise-below-minimum")
    assert record["note_examples"]["ppca.correction.raise-below-minimum"] == (
        f"game {first[1]} hand {first[2]}: {first[3]}"
    )
    # What the referee kept of the bot's stderr (--stderr-dir) says the same, as far as it
    # goes: the referee may drop what a bot wrote after its last checkpoint (README.md).
    kept = tmp_path / "err" / "corrected.stderr"
    if kept.exists():
        ours = ("ppca-adapter: ", "referee-note: ")
        lines = [line for line in kept.read_text().splitlines() if line.startswith(ours)]
        assert lines == [line for line in log.splitlines() if line.startswith(ours)][: len(lines)]


# ---------------------------------------------------------------------------- lines piped in


def test_query_follows_the_documented_example_game(bots) -> None:
    out, err, status = pipe(bots["probe"], DOC_SEAT1, script="R4,K,R10,C")
    assert status == 0
    # CALL facing an all-in stays call; the show reply is the probe's hole[0] + four board cards.
    assert out == ["raise 4", "check", "raise 10", "call", "TC 3H JS 6C JH"]
    log = probes(err)
    assert [e for e, _ in log] == [
        "init",
        "preflop",
        "flop",
        "turn",
        "game_end",
        "preflop",
        "showdown",
        "game_end",
    ]
    assert err.index("probe login_name()") < err.index("probe login_name(player1)") < err.index("probe init")
    assert err.rstrip().endswith("0 corrections; 0 warnings") and "probe destroy" in err
    init, pre, flop, turn, end1, pre2, _, end2 = (fields for _, fields in log)
    assert (
        init["id"] == "1"
        and init["n"] == "2"
        and init["initial"] == "1000"
        and init["names"] == "player0,player1"
    )
    assert pre["dealer"] == "0" and pre["blind"] == "1" and pre["hole"] == "8C8H"
    assert (
        pre["chips"] == "998,999"
        and pre["cur"] == "2,1"
        and pre["bets"] == "1:1,0:2"
        and pre["status"] == "00"
    )
    assert pre["parts"] == "0,1" and pre["np"] == "2" and pre["pots"] == "" and pre["board"] == ""
    assert (
        flop["board"] == "TC9S8D" and flop["pots"] == "12:0,1" and flop["bets"] == "" and flop["cur"] == "0,0"
    )
    assert turn["board"] == "TC9S8D9H" and turn["chips"] == "994,994"
    assert (
        end1["chips"] == "994,1006"
        and end1["wip"] == "1=12"
        and end1["last"] == "-6,6"  # net: the stacks' change over the hand
        and end1["hands"] == ""
    )
    # Seat 0 went all-in (status A, a raise this round): BET; the blinds count in bets().
    assert pre2["status"] == "10" and pre2["bets"] == "0:1,1:2,0:993" and pre2["dealer"] == "1"
    # HAND_TWO_PAIR (3) and HAND_FULL_HOUSE (7), the original server's kinds.
    assert end2["hands"] == "0:5DJS6CJH6S:3,1:6HJS6CJH6S:7"
    assert end2["wip"] == "1=1988" and end2["last"] == "-994,994" and end2["out"] == "0"


def test_initial_and_names_fields_are_read_by_key(bots) -> None:
    line = DOC_SEAT1[0] + " initial 500 names alice,bob"
    out, err, _ = pipe(bots["probe"], [line], script="C")
    assert out == ["call"]
    (_, init), (_, pre) = probes(err)
    assert init["initial"] == "500" and init["names"] == "alice,bob" and pre["names"] == "alice,bob"
    assert "probe login_name(bob)" in err


def test_a_game_that_starts_with_a_result(bots) -> None:
    """In game 2 seat 0 is the big blind of hand 1 and is folded to: its first line is a
    result.  init() still runs first; each game has its own Player."""
    lines = [
        *DOC_SEAT1[:4],
        DOC_SEAT1[7],
        "result hand 1 board - shown - pots 3:0=3 won 3,0 stacks 1001,999",
        "act hand 2 seat 0 dealer 1 sb 1 bb 2 round preflop hole ASAD board - stacks 1000,997 bets 1,2 status -- pots - tocall 1 minraise 2 maxraise 997 legal fold,call,raise history 0s1,1b2",
        "result hand 2 board - shown - pots 3:1=3 won 0,3 stacks 1000,1000",
        "act hand 3 seat 0 dealer 0 sb 1 bb 2 round preflop hole 7H2C board - stacks 998,998 bets 2,2 status -B pots - tocall 0 minraise 2 maxraise 998 legal fold,call,raise history 1s1,0b2,1c1",
    ]
    out, err, status = pipe(bots["probe"], lines, script="R4,K,R10,F,K")
    assert status == 0
    # The last CHECK is the big blind's free option: sent as check, as the original client
    # sent it (the original server folded it; the referee judges it).
    assert out == ["raise 4", "check", "raise 10", "fold", "check"]
    assert "referee-note: ppca.warning.check-preflop game 2 hand 3: preflop:" in err
    events = [e for e, _ in probes(err)]
    assert events == [
        "init",
        "preflop",
        "flop",
        "turn",
        "game_end",
        "init",
        "game_end",
        "preflop",
        "game_end",
        "preflop",
    ]
    assert err.count("probe destroy") == 2  # at the gameover, and at EOF inside game 2
    init2, end1, pre2, _, pre3 = [f for _, f in probes(err)][5:]
    # Not yet told its seat; the hand's dealer, blind and players worked out from the rules.
    assert init2["id"] == "-1" and init2["chips"] == "1001,999" and init2["hole"] == "????"
    assert end1["dealer"] == "0" and end1["blind"] == "1" and end1["parts"] == "0,1" and end1["wip"] == "0=3"
    assert init2["hands"] == "" and init2["names"] == "player0,player1"  # a fresh game forgets game 1
    assert pre2["id"] == "0" and pre2["hole"] == "ASAD" and pre2["dealer"] == "1" and pre2["wip"] == "0=3"
    assert pre3["dealer"] == "0" and pre3["status"] == "01"


def test_check_facing_a_bet_is_sent_and_flagged(bots) -> None:
    """Like the stock client, not corrected: the referee folds it (illegal).  A bad showdown
    is sent as chosen too (the referee mucks it)."""
    show = "show hand 1 seat 1 hole 8C8H board 2D3D4D5D7S"
    out, err, _ = pipe(bots["probe"], [DOC_SEAT1[0], show], script="K")
    assert out == ["check", "8C 2D 3D 4D 5D"]
    assert "referee-note: ppca.warning.check-facing-bet game 1 hand 1: preflop: CHECK facing 1 to call" in err
    out, err, _ = pipe(bots["corrected"], ["show hand 1 seat 1 hole 8C8H board 2D3D4D5D7S"])
    assert out == ["?? ?? ?? ?? ??"] and "referee-note: ppca.warning.showdown-invalid" in err


def test_a_students_own_player_h(bots) -> None:
    """Members added to player.h (as the seed invites) work when the student's directory comes
    first in -I."""
    lines = [DOC_SEAT1[0], DOC_SEAT1[3], DOC_SEAT1[7]]
    out, err, status = pipe(bots["own"], lines)
    assert status == 0 and out == ["call"], err


# ---------------------------------------------------------------------------- the original API

BUILD = ADAPTER / "build.sh"
API_PROBE = ROOT / "tests" / "ppca_adapter_api_probe.cpp"


def _build_sh(out: Path, *sources: Path) -> str:
    """adapters/ppca/build.sh, as README.md gives it: the compiler's messages."""
    done = subprocess.run(
        ["sh", str(BUILD), "-o", str(out), *map(str, sources), "--", "-O0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def _api_lines(err: str, word: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in err.splitlines() if line.startswith(word + " ")]


def test_the_original_api_probe_compiles_and_plays(tmp_path) -> None:
    """A Player using every public name of the original client.h, common.h, pot.h and
    query.h compiles alone, gets the original's values, and plays a 9-seat match."""
    bot = tmp_path / "api"
    tmp_path.chmod(0o755)
    _build_sh(bot, API_PROBE)
    show = "show hand 1 seat 1 hole 8C8H board ASKSQSJSTS"
    result = (
        "result hand 1 board ASKSQSJSTS shown 0:AHAD:ASKSQSJSTS,1:muck pots 6:0=6,4:0=4 "
        "won 10,0 stacks 1005,995"
    )
    pots = DOC_SEAT1[1].replace("pots 12:0.1", "pots 6:0.1,3:1")
    out, err, status = pipe(bot, [DOC_SEAT1[0], pots, show, result, DOC_SEAT1[7]])
    assert status == 0 and out == ["call", "check", "AS KS QS JS TS"], err
    (constants,) = _api_lines(err, "api-constants")
    names = [
        "invalid",
        "high card",
        "one pair",
        "two pair",
        "three of a kind",
        "straight",
        "flush",
        "full house",
        "four of a kind",
        "straight flush",
        "royal flush",
    ]
    assert constants == " ".join(f"{k}={name}" for k, name in enumerate(names))
    assert _api_lines(err, "api-decisions") == ["0123 0123 3:7 1:0"]
    assert _api_lines(err, "api-words") == [
        "2 3 4 5 6 7 8 9 10 J Q K A ? spade heart diamond club ? 10-diamond"
    ]
    # Pot(5) with two contributors, merged with a copy: 20 chips; set_chips returns its value.
    assert _api_lines(err, "api-pot") == ["20 0,2 10 4 4"]
    assert _api_lines(err, "api-handinfo") == ["3 6 TD"]
    for text in ("api-output 1", "api-err-output 2", "api-debug-output 3"):
        assert text in err
    events = {
        line.split(" ", 1)[0]: dict(w.split("=", 1) for w in line.split(" ")[1:] if "=" in w)
        for line in _api_lines(err, "api")
    }
    assert events["init"]["n"] == "2" and events["init"]["names"] == "player0,player1"
    # pot(i).amount() is the pot's total; contributors as listed.
    assert events["flop"]["pots"] == "6:0,1,3:1"
    end = events["game_end"]
    # kind 10 (royal flush) for the straight flush to the ace; a muck is kind 0, "invalid".
    assert end["hands"].startswith("0:ASKSQSJSTS:10:royal")
    assert "1:??????????:0:invalid" in err
    assert end["wip"] == "0=6/0=4" and end["last"] == "5,-5"
    # A 9-seat match under the ppca rules: no forfeit, no crash.
    others = ["always_call.py", "hand_strength.py", "random_player.py"] * 3
    summary, _ = match(
        bot,
        *(f"{python_player(name)} {seed}" for seed, name in enumerate(others[:8])),
        games=1,
        seed=5,
        extra=("--rules", "ppca"),
        workdir=tmp_path,
    )
    record = player_record(summary, "api")
    assert summary["games_played"] == 1 and record["forfeits"] == {}, record["forfeit_details"]


def test_a_student_file_compiles_with_the_original_headers_beside_it(tmp_path) -> None:
    """A student's checkout: their .cpp and edited player.h next to client.h, common.h,
    pot.h, query.h (+ query.cpp) and IO.h of the original's names and guards.  Both documented
    builds work, never read IO.h (Boost), and the student's members are used."""
    from ppca_adapter_checkout import IO_READ, write_checkout

    tmp_path.chmod(0o755)
    student = write_checkout(tmp_path / "checkout")
    bot = tmp_path / "student"
    messages = _build_sh(bot, student)
    assert IO_READ not in messages
    # The plain g++ line of README.md.
    plain = tmp_path / "student_plain"
    done = subprocess.run(
        [
            GXX,
            "-std=c++11",
            "-O0",
            "-include",
            "adapters/ppca/prelude.h",
            "-I",
            str(student.parent),
            "-I",
            "adapters/ppca",
            str(student),
            "adapters/ppca/main.cpp",
            "adapters/ppca/query.cpp",
            "-o",
            str(plain),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and IO_READ not in done.stderr, done.stderr
    for built in (bot, plain):
        out, err, status = pipe(built, [*DOC_SEAT1[:3], DOC_SEAT1[3], DOC_SEAT1[7]])
        assert status == 0 and out == ["call", "check", "check"], err
        assert "student: logged in as player1" in err
        assert "student: flop pots 12 seen 1" in err  # pot(0).amount() and its own member
        assert "student: destroy after 1 hands" in err
    summary, _ = match(
        bot,
        *(f"{python_player('always_call.py')}" for _ in range(2)),
        games=1,
        seed=2,
        extra=("--rules", "ppca"),
        workdir=tmp_path,
    )
    record = player_record(summary, "student")
    assert record["forfeits"] == {}, record["forfeit_details"]


def test_a_raise_below_the_minimum_follows_the_original_client(bots) -> None:
    """The original client turned a RAISE below its own minimum (half the small blind at a
    round's start, then the last raise) into a call or check, and sent the others: the
    server folded those below its minimum (the big blind, or the last raise)."""
    # sb 1: the client's minimum is 0, so RAISE 1 (below the referee's 2) is sent.
    out, err, _ = pipe(bots["probe"], [DOC_SEAT1[0]], script="R1")
    assert out == ["raise 1"]
    assert (
        "referee-note: ppca.warning.raise-below-minimum game 1 hand 1: preflop: RAISE 1 below the minimum 2"
        in err
    )
    # sb 10: the client's minimum is 5: RAISE 4 becomes a call, RAISE 5 is sent.
    line = (
        "act hand 7 seat 1 dealer 0 sb 10 bb 20 round preflop hole 8C8H board - stacks 980,990 "
        "bets 20,10 status -- pots - tocall 10 minraise 20 maxraise 980 legal fold,call,raise history 1s10,0b20"
    )
    out, err, _ = pipe(bots["probe"], [line], script="R4")
    assert out == ["call"] and "ppca.correction.raise-below-minimum" in err
    out, err, _ = pipe(bots["probe"], [line], script="R5")
    assert out == ["raise 5"] and "ppca.warning.raise-below-minimum" in err
    # After a raise of 30 in the round, the client's minimum is 30: RAISE 29 is a call.
    raised = line.replace("bets 20,10", "bets 50,10").replace("history 1s10,0b20", "history 1s10,0b20,0r30")
    raised = raised.replace("tocall 10 minraise 20", "tocall 40 minraise 30")
    out, _, _ = pipe(bots["probe"], [raised], script="R29")
    assert out == ["call"]
