"""The Java harness for 2013 Liar's Dice bots (adapters/liars_dice).

The harness and four student bots are built once for the module (about 3 s of javac);
each test then plays real matches through ``referee match`` or talks to the harness
directly.  Skipped without a JDK.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import BOT_PYTHON

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "adapters" / "liars_dice"
PLAYERS = ROOT / "sample_players" / "liars_dice"

pytestmark = [
    pytest.mark.skipif(
        not all(shutil.which(tool) for tool in ("javac", "jar", "java")),
        reason="no JDK (javac, jar and java on PATH): the Liar's Dice Java harness cannot be built",
    ),
    pytest.mark.slow,
    pytest.mark.e2e,
]

IMPORTS = """
import java.util.*;
import model.liarsDice.gameInfo.*;
import model.liarsDice.gameLogic.*;
"""

# The lowest valid bid, else a challenge: always legal, so any forfeit is the harness's.
LOWEST = """
    static Decision lowest(GameInfo gi) {
        Bid c = gi.getCurrentBid();
        for (int q = c == null ? 1 : c.getFrequency(); q <= gi.getTotalDice(); q++)
            for (int f = 2; f <= 6; f++) {
                Bid b = new Bid(q, f);
                if (checkValidDecision(b, gi)) return b;
            }
        return new Challenge();
    }
"""

THROWER = (
    IMPORTS
    + """
public class Thrower extends LiarsDiceBot {
    int calls, reports;
    public String getName() { return "Thrower"; }
    public Decision getDecision(GameInfo gi) {
        if (++calls % 4 == 0) throw new IllegalStateException("thrown on purpose, call " + calls);
        return lowest(gi);
    }
    public void reportRoundResults(GameInfo gi) {
        if (++reports % 5 == 0) throw new ArithmeticException("report " + reports);
    }
"""
    + LOWEST
    + "}\n"
)

# In the package the 2013 bots lived in: run by its bare name all the same.
PRINTER = (
    "package model.liarsDice.bots;\n"
    + IMPORTS
    + """
public class Printer extends LiarsDiceBot {
    static { System.out.println("static init"); }
    public Printer() { System.out.println("bid 1 2"); }
    public String getName() { System.out.println("challenge"); return "Printer"; }
    public Decision getDecision(GameInfo gi) {
        System.out.println("bid 99 6");
        System.out.print("no newline");
        try { System.out.println("stdin gave " + System.in.read()); } catch (Exception e) { }
        return lowest(gi);
    }
    public void reportRoundResults(GameInfo gi) { System.out.println("challenge"); }
    public void reportGameResults(GameInfo gi) { System.out.println("game over"); System.out.flush(); }
"""
    + LOWEST
    + "}\n"
)

# Dumps what it is given; its decisions follow a script, to see each mapped to a reply.
# Its own package: the harness finds it by its bare name under --cp.
PROBE = (
    "package course.bots;\n"
    + IMPORTS
    + """
public class Probe extends LiarsDiceBot {
    int calls;
    public String getName() { return "Probe"; }
    public Decision getDecision(GameInfo gi) throws InterruptedException {
        dump("DECIDE", gi);
        switch (++calls) {
            case 1: return new Bid(2, 3);
            case 2: return new Challenge();
            case 3: throw new RuntimeException("boom");
            case 4: return null;
            case 5: return new Bid(-1, 9);
            default: return new Bid(1, 6);
        }
    }
    public void reportRoundResults(GameInfo gi) { dump("ROUND", gi); }
    public void reportGameResults(GameInfo gi) { dump("GAME", gi); }

    static String d(Decision x) {
        if (x == null) return "null";
        if (x instanceof Challenge) return "C";
        Bid b = (Bid) x;
        return b.getFrequency() + "x" + b.getFaceValue();
    }
    static void dump(String kind, GameInfo gi) {
        StringBuilder s = new StringBuilder("PROBE " + kind);
        s.append(" my=").append(gi.getMyPlayerID()).append(" idx=").append(gi.getMyIndex());
        s.append(" total=").append(gi.getTotalDice()).append(" winner=").append(gi.getWinnerID());
        s.append(" cur=").append(gi.getCurrentBid() == null ? "-" : d(gi.getCurrentBid()));
        s.append(" mine=");
        for (Die x : gi.getMyDice()) s.append(x.getValue());
        s.append(" players=");
        for (PlayerInfo p : gi.getAllPlayersInfo()) {
            s.append(p.getID()).append(':').append(p.getNumDice()).append(':');
            if (p.getDice() == null) s.append('?');
            else for (Die x : p.getDice()) s.append(x.getValue());
            s.append(',');
        }
        s.append(" others=").append(gi.getOtherPlayersInfo().size());
        s.append(" hist=");
        for (Round r : gi.getGameHistory().getRounds()) {
            s.append(r.getResult()).append('[');
            for (Turn t : r.getTurns()) s.append(t.getPlayerID()).append(':').append(d(t.getDecision())).append(' ');
            s.append("]");
        }
        System.out.println(s);
        gi.getGameHistory().getRounds().clear(); // must not reach the harness's own history
    }
}
"""
)


def _readable_dir() -> Path:
    """A directory other users may read: as root each bot runs under a uid of its own."""
    path = Path(tempfile.mkdtemp(prefix="referee-test-ld-java-"))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def built(built_samples: Path):
    """The harness and sample bot via the Makefile, plus the test bots in one javac run."""
    out = _readable_dir()
    try:
        subprocess.run(["make", "-s", "-C", str(ADAPTER), f"OUT={out}"], check=True, capture_output=True)
        jar = out / "liarsdice-harness.jar"
        assert jar.is_file() and (out / "sample-bot" / "bot.toml").is_file()
        extra = out / "extra"
        (extra / "src").mkdir(parents=True)
        sources = []
        for name, text in (("Thrower", THROWER), ("Printer", PRINTER), ("Probe", PROBE)):
            path = extra / "src" / f"{name}.java"
            path.write_text(text)
            sources.append(str(path))
        javac = ["javac", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"]  # starts faster
        subprocess.run([*javac, "-cp", str(jar), "-d", str(extra), *sources], check=True)
        for d, _, files in os.walk(out):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        yield out
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _java_bot(built: Path, klass: str) -> str:
    """The quoted-command form: the harness jar, the classes elsewhere (--cp)."""
    return f"java -XX:TieredStopAtLevel=1 -XX:-UsePerfData -jar {built / 'liarsdice-harness.jar'} --cp {built / 'extra'} {klass}"


def _match(bots: list[str], games: int, seed: int, out: Path) -> dict:
    summary = out / f"match-{seed}.json"
    cmd = [sys.executable, "-m", "referee", "match", *bots, "--game", "liars-dice"]
    cmd += ["--games", str(games), "--seed", str(seed), "--json", str(summary), "--quiet"]
    # These tests are about what the bots say, not how fast: a JVM beside a loaded CI
    # machine's other worker once took longer than the seed's limit (docs/testing.md,
    # generous limits for prompt bots).
    cmd += ["--startup-timeout", "30", "--decision-timeout", "10"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(summary.read_text())


def _player(summary: dict, name: str) -> dict:
    (player,) = [p for p in summary["players"] if p["name"] == name]
    return player


def _seat(summary: dict, index: int) -> dict:
    """A bot by its place on the command line (quoted java commands share a name)."""
    return summary["players"][index]


def test_sample_student_plays_a_clean_match(built: Path) -> None:
    summary = _match(
        [
            str(built / "sample-bot"),
            str(PLAYERS / "bin" / "reader"),
            f"{BOT_PYTHON} {PLAYERS / 'random_legal.py'}",
            f"{BOT_PYTHON} {PLAYERS / 'probabilistic.py'}",
        ],
        games=20,
        seed=11,
        out=built,
    )
    assert summary["completed"] and summary["games_played"] == 20
    student = _player(summary, "sample-student")
    assert student["forfeits"] == {}, student["forfeit_details"]
    assert student["restarts"] == 0
    assert student["decisions"] > 100
    assert student["games"] == 20
    # Its decisions are its own, not noise: it outlasts the random player.
    assert _player(summary, "random_legal")["mean_rank"] > student["mean_rank"]


def test_exceptions_and_stray_output(built: Path) -> None:
    """A throwing bot gets the referee's verdict and plays on; a printing bot plays clean."""
    summary = _match(
        [
            _java_bot(built, "Thrower"),
            _java_bot(built, "Printer"),
            str(built / "sample-bot"),
            str(PLAYERS / "bin" / "reader"),
        ],
        games=12,
        seed=5,
        out=built,
    )
    assert summary["completed"] and summary["games_played"] == 12

    thrower = _seat(summary, 0)
    assert set(thrower["forfeits"]) == {"protocol"}, thrower["forfeits"]
    assert thrower["forfeits"]["protocol"] >= 3
    # Every fourth decision throws; the others are legal moves of the same process.
    assert thrower["decisions"] >= 3 * thrower["forfeits"]["protocol"]
    assert thrower["restarts"] == 0
    detail = thrower["forfeit_details"][0]
    assert detail["reply"].startswith("exception java.lang.IllegalStateException: thrown on purpose"), detail

    printer = _seat(summary, 1)
    assert printer["forfeits"] == {}, printer["forfeit_details"]
    assert printer["decisions"] > 20 and printer["restarts"] == 0

    for name in ("sample-student", "reader"):
        assert _player(summary, name)["forfeits"] == {}


# (line sent, reply expected or None for an information line)
SCRIPT = [
    ("players 4 2 9", None),
    ("reveal 0 2 3 5 2 2 hands 11345 22334 56666", None),  # before our first turn: seat unknown
    ("turn 1 counts 5 5 4 dice 12256 bids 2:1:4", "bid 2 3"),
    ("reveal 0 2 3 3 5 0 hands 12346 12256 3345", None),  # our 2x3 came after 9's 1x4
    ("turn 1 counts 4 5 4 dice 11226 bids", "challenge"),  # illegal: first turn
    ("penalty 1 illegal 1 hands 1235 11226 2344", None),
    ("turn 1 counts 4 4 4 dice 1122 bids 0:2:2", "exception java.lang.RuntimeException: boom"),
    ("penalty 1 protocol 1 hands 3456 1122 2345", None),
    ("turn 1 counts 4 3 4 dice 113 bids 0:1:6 2:2:6", "bid 0 0"),  # null
    ("penalty 1 illegal 1 hands 3456 113 2345", None),
    ("turn 1 counts 4 2 4 dice 16 bids", "bid 0 9"),  # Bid(-1, 9)
    ("penalty 1 illegal 1 hands 3456 16 2345", None),
    ("turn 1 counts 4 1 4 dice 6 bids", "bid 1 6"),
    ("penalty 2 timeout 1 hands 1111 6 2222", None),
    ("result 0 eliminated 1 2", None),
    ("players 2 4 9", None),  # next game: our seat is known from our id at once
    ("reveal 1 2 1 2 3 1 hands 11111 22222 33333", None),
]


def test_protocol_lines_map_to_the_2013_api(built: Path) -> None:
    """The harness alone: replies, what the bot is shown, exit at end of input."""
    lines = "".join(line + "\n" for line, _ in SCRIPT)
    done = subprocess.run(
        ["java", "-jar", str(built / "liarsdice-harness.jar"), "--cp", str(built / "extra"), "Probe"],
        input=lines,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    # Only the replies on stdout, one per request, in order (the dumps went to stderr).
    assert done.stdout.splitlines() == [reply for _, reply in SCRIPT if reply is not None]
    probes = [line.split(" ", 2)[1:] for line in done.stderr.splitlines() if line.startswith("PROBE ")]
    assert [kind for kind, _ in probes] == ["ROUND"] + ["DECIDE", "ROUND"] * 6 + ["GAME", "ROUND"]
    views = [view for _, view in probes]
    r1 = "WINNING_CHALLENGE[9:3x5 4:C ]"
    # Round 1 ended before our first turn: our seat is not known yet; every hand shown,
    # counts after the loss.
    assert views[0] == (
        "my=-1 idx=-1 total=14 winner=-1 cur=3x5 mine= players=4:5:11345,2:5:22334,9:4:56666, others=3 hist="
        + r1
    )
    # Our first decision: our dice only; the current round holds its bids so far.
    assert views[1] == (
        "my=2 idx=1 total=14 winner=-1 cur=1x4 mine=12256 players=4:5:?,2:5:12256,9:4:?, others=2 "
        "hist=" + r1 + "UNFINISHED[9:1x4 ]"
    )
    # After the reveal: our own bid, the challenged bid (never in a request), the challenge.
    r2 = "LOSING_CHALLENGE[9:1x4 2:2x3 9:3x3 4:C ]"
    assert views[2] == (
        "my=2 idx=1 total=13 winner=-1 cur=3x3 mine=12256 players=4:4:12346,2:5:12256,9:4:3345, others=2 "
        "hist=" + r1 + r2
    )
    assert views[4].endswith(r2 + "INVALIDDECISION[2:C ]")  # our invalid challenge is kept
    assert views[6].endswith("EXCEPTION[4:2x2 2:null ]")  # our exception (protocol)
    assert views[8].endswith("INVALIDDECISION[4:1x6 9:2x6 2:null ]")  # our null decision
    assert views[10].endswith("INVALIDDECISION[2:-1x9 ]")  # the bid as the student made it
    # Another seat's timeout after our (accepted) bid.
    assert views[12] == (
        "my=2 idx=1 total=8 winner=-1 cur=1x6 mine=6 players=4:4:1111,2:1:6,9:3:2222, others=2 hist="
        + r1
        + r2
        + "INVALIDDECISION[2:C ]EXCEPTION[4:2x2 2:null ]INVALIDDECISION[4:1x6 9:2x6 2:null ]"
        "INVALIDDECISION[2:-1x9 ]TIMEOUT[2:1x6 9:null ]"
    )  # (all seven rounds: the bot's clear() of its copy did not reach the harness)
    assert views[13] == views[12]  # reportGameResults: the final state
    # Next game: id 2 sits in seat 0, known from the players line before any turn.
    assert views[14] == (
        "my=2 idx=0 total=14 winner=-1 cur=1x2 mine=11111 players=2:5:11111,4:4:22222,9:5:33333, others=2 "
        "hist=LOSING_CHALLENGE[9:1x2 4:C ]"
    )
    assert "getDecision threw" in done.stderr and "java.lang.RuntimeException: boom" in done.stderr
    assert "getDecision returned null" in done.stderr


# A 2013-style bot (written for this test): it builds strings with ``+`` in its reports,
# as 2013 entries did for logging.  Compiled by javac 9+ with its defaults, the JVM's
# first such concatenation bootstraps StringConcatFactory (~25-50 ms of CPU), which
# counted against the bot's next 50 ms decision (issue 25, item 5).
CONCAT = (
    "package model.liarsDice.bots;\n"
    + IMPORTS
    + """
public class ConcatBot extends LiarsDiceBot {
    private int rounds = 0;
    private String last = "";

    public String getName() { return "Concat " + rounds; }

    public Decision getDecision(GameInfo gi) {
        int q = Math.max(1, gi.getTotalDice() / 3);
        Bid bid = new Bid(q, 6);
        if (gi.getCurrentBid() == null || checkValidDecision(bid, gi)) return bid;
        return new Challenge();
    }

    public void reportRoundResults(GameInfo gi) {
        rounds++;
        List<Round> all = gi.getGameHistory().getRounds();
        Round r = all.get(all.size() - 1);
        last = "Round " + rounds + ": " + r.getResult() + " after " + r.getTurns().size() + " turns";
    }

    public void reportGameResults(GameInfo gi) {
        last = "Game over after " + rounds + " rounds; winner " + gi.getWinnerID() + "; " + last;
    }
}
"""
)


def test_make_bot_compiles_string_concatenation_as_javac_8_did(built: Path, tmp_path: Path) -> None:
    """``make bot`` passes ``-XDstringConcat=inline``: the student's ``+`` on strings is
    StringBuilder calls, not invokedynamic, so no decision pays for the bootstrap."""
    source = tmp_path / "ConcatBot.java"
    source.write_text(CONCAT)
    dest = tmp_path / "concat"
    subprocess.run(
        ["make", "-s", "-C", str(ADAPTER), f"OUT={built}", "bot", f"SRC={source}", f"DEST={dest}"],
        check=True,
        capture_output=True,
    )
    klass = dest / "model" / "liarsDice" / "bots" / "ConcatBot.class"
    code = subprocess.run(
        ["javap", "-c", "-p", str(klass)], check=True, capture_output=True, text=True
    ).stdout
    assert "StringBuilder" in code and "invokedynamic" not in code


@pytest.mark.slow
def test_a_2013_style_bot_plays_clean_under_the_seed_clock(built: Path, tmp_path: Path) -> None:
    """Seed 001's 50 ms for every decision, the first included (the startup allowance
    ends when the harness reads its first request, after the JVM has started and the
    harness warmed up): two JVMs of the concatenating bot and the sample student lose
    no die in 3 matches (with invokedynamic concatenation about one match in three lost
    one)."""
    source = tmp_path / "ConcatBot.java"
    source.write_text(CONCAT)
    dest = tmp_path / "concat"
    subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(ADAPTER),
            f"OUT={built}",
            "bot",
            f"SRC={source}",
            f"DEST={dest}",
            "NAME=concat",
        ],
        check=True,
        capture_output=True,
    )
    for d, _, files in os.walk(tmp_path):  # as root each bot runs under a uid of its own
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    for seed in (1, 2, 3):
        bots = [str(dest), str(built / "sample-bot"), str(dest), str(PLAYERS / "bin" / "reader")]
        summary = _match(bots, games=10, seed=seed, out=tmp_path)
        for p in summary["players"]:
            assert p["forfeits"] == {} and p["restarts"] == 0, (seed, p["name"], p["forfeit_details"])
