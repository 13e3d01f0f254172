"""The dice poker C++ adapter (adapters/dice_poker/): a student's file written for the
seed's ``SOLUTION`` API (seed 000, IA168) plays under the referee unmodified.

Every binary is built from source into the test's directory with the documented
command line: ``g++ -O2 -std=c++11 -I adapters/dice_poker FILE adapters/dice_poker/main.cpp``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "adapters" / "dice_poker"
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")

pytestmark = [
    pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++, clang++ or c++) on PATH"),
    pytest.mark.e2e,
]


def build(tmp_path: Path, source: Path | str, name: str) -> Path:
    """Compile a student's file (a path, or its text) with the adapter; returns the binary."""
    if isinstance(source, str):
        path = tmp_path / f"{name}.cpp"
        path.write_text(source)
        source = path
    binary = tmp_path / name
    cmd = [
        CXX,
        "-O2",
        "-std=c++11",
        "-Wall",
        "-I",
        str(ADAPTER),
        str(source),
        str(ADAPTER / "main.cpp"),
        "-o",
        str(binary),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return binary


def match(tmp_path: Path, *bots: str, games: int, seed: int = 7) -> dict:
    """Play a real match through the command line; returns the --json summary."""
    out = tmp_path / "out.json"
    cmd = [sys.executable, "-m", "referee", "match", *bots, "--game", "dice-poker", "--games", str(games)]
    cmd += [
        "--seed",
        str(seed),
        "--json",
        str(out),
        "--stderr-dir",
        str(tmp_path / "stderr"),
        "--quiet",
        "--no-pin",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.stderr
    summary = json.loads(out.read_text())
    assert summary["completed"] and summary["games_played"] == games, summary
    return summary


def player(summary: dict, name: str) -> dict:
    return next(p for p in summary["players"] if p["name"] == name)


def student_lines(stderr: str) -> list[str]:
    """The student's own stderr lines (the adapter's start-up note left out)."""
    return [line for line in stderr.splitlines() if not line.startswith("adapter: ")]


def converse(binary: Path, lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Feed protocol lines to the bot directly and wait for it to exit at EOF."""
    text = "".join(line + "\n" for line in lines)
    return subprocess.run([str(binary), *args], input=text, capture_output=True, text=True, timeout=10)


@pytest.mark.slow
def test_sample_student_plays_a_match_without_forfeits(tmp_path, built_samples):
    """The sample student file, unmodified, plays 200 deals against the equilibrium
    player with no forfeit of any kind.  Seed: the AI "is called every time you are to
    decide, and also after the showdown", and "DO return a value even in this case":
    a missed answer to an information line would put the bot a line behind (timeouts)."""
    bot = build(tmp_path, ADAPTER / "sample_student.cpp", "sample_student")
    summary = match(tmp_path, str(bot), str(built_samples / "dice_poker/bin/equilibrium"), games=200)
    me = player(summary, "sample_student")
    assert me["forfeits"] == {} and me["forfeit_details"] == [], me
    assert me["games"] == 200 and me["decisions"] > 100, me  # it did decide, in both seats
    assert me["wins"] > 0 and me["losses"] > 0, me


NOISY = r"""
#include "tournament.h"
#include <iostream>
#include <unistd.h>

struct Loud { Loud() { printf("hello from a static constructor\n"); } };
static Loud loud;

static void Init() {
    char word[64];
    // A student who reads stdin must not eat the referee's lines: it sees EOF.
    if (scanf("%63s", word) == 1) fprintf(stderr, "STOLE %s\n", word);
    std::cout << "init done" << std::endl;
}

static int AI(int op, int b, int state, int d) {
    printf("AI %d %d %d %d\n", op, b, state, d);
    std::cout << "via cout " << state << '\n';
    puts("1");
    if (write(1, "0\n", 2) < 0) return 1;
    fflush(stdout);
    return state < 2 && d >= 4;
}

SOLUTION noisy = {"Noisy Student", "Noisy", Init, AI};
"""


@pytest.mark.slow
def test_student_stdout_does_not_corrupt_the_protocol(tmp_path, built_samples):
    """A student's printf/cout/puts/write(1) and scanf, harmless in the seed's
    all-in-one tournament program, cost nothing here: the adapter moves them to stderr
    (docs/writing-a-bot.md: "Print nothing else on standard output").  Without that,
    every "1" the student prints would be read as an answer and the match would be
    full of protocol faults and timeouts."""
    bot = build(tmp_path, NOISY, "noisy")
    summary = match(tmp_path, str(bot), str(built_samples / "dice_poker/bin/equilibrium"), games=100)
    me = player(summary, "noisy")
    assert me["forfeits"] == {} and me["forfeit_details"] == [], me
    stderr = (tmp_path / "stderr" / "noisy.stderr").read_text()
    assert "hello from a static constructor" in stderr and "init done" in stderr
    assert "STOLE" not in stderr
    assert stderr.count("via cout ") >= 100  # at least one AI call per deal, all on stderr


LOGGING = r"""
#include "tournament.h"

static int inits;
static void Init() { ++inits; fprintf(stderr, "init %d rand %d\n", inits, rand()); }
static int AI(int op, int b, int state, int d) {
    fprintf(stderr, "ai %d %d %d %d\n", op, b, state, d);
    return state == 0 ? 7 : (state == 1 ? 0 : -3);  // any non-zero raises; info answers are ignored
}
SOLUTION logging = {"Logging", "Log", Init, AI};
"""


def test_every_line_is_one_ai_call_and_one_answer(tmp_path):
    """The protocol doc's example lines reach AI(op, b, state, d) verbatim, in order, and
    each gets exactly one answer: 1/0 for states 0/1 (seed: "zero means you want to fold,
    non-zero means you want to bet/call"), 0 for states 2..5 ("irrelevant when state >=
    2, but DO return a value").  Init comes once, before the first AI call."""
    bot = build(tmp_path, LOGGING, "logging")
    lines = ["1 9 0 5", "1 9 4 4", "1 16 1 2", "1 16 3 0", "0 10 0 1", "0 10 2 0", "0 10 5 6"]
    done = converse(bot, lines)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["1", "0", "0", "0", "1", "0", "0"]
    log = student_lines(done.stderr)
    assert log[0].startswith("init 1 ") and [f"ai {line}" for line in lines] == log[1:], log


@pytest.mark.slow
def test_init_runs_once_per_process(tmp_path, built_samples):
    """Seed: Init "will be called only once at the very beginning of the tournament".
    Over a whole match (one process), the student's Init counter reaches 1 only."""
    bot = build(tmp_path, LOGGING, "logging")
    match(tmp_path, str(bot), str(built_samples / "dice_poker/bin/equilibrium"), games=100)
    log = student_lines((tmp_path / "stderr" / "logging.stderr").read_text())
    assert [line for line in log if line.startswith("init")] == [log[0]] and log[0].startswith("init 1 ")
    assert sum(line.startswith("ai ") for line in log) >= 100


def test_srand_is_the_adapters_and_follows_the_seed(tmp_path):
    """Seed: "Do not call srand ..., that is our responsibility": the adapter seeds rand()
    before Init, from --seed (else $DICE_POKER_SEED, else 1, C's own default)."""
    bot = build(tmp_path, LOGGING, "logging")

    def first_rand(*args: str, seed_env: str | None = None, referee_seed: str | None = None) -> str:
        env = {} if seed_env is None else {"DICE_POKER_SEED": seed_env}
        if referee_seed is not None:
            env["REFEREE_SEED"] = referee_seed
        done = subprocess.run(
            [str(bot), *args], input="", capture_output=True, text=True, timeout=10, env=env
        )
        assert done.returncode == 0, done.stderr
        return student_lines(done.stderr)[0].split()[3]  # "init 1 rand N"

    default = first_rand()
    assert first_rand("--seed", "1") == default
    assert first_rand("--seed", "2") != default
    assert first_rand("--seed", "2") == first_rand(seed_env="2")
    assert first_rand("--seed", "3", seed_env="2") == first_rand("--seed=3")
    # The referee's seed ($REFEREE_SEED) is the default; the organiser's overrides it.
    assert first_rand(referee_seed="2") == first_rand("--seed", "2")
    assert first_rand("--seed", "3", referee_seed="2") == first_rand(seed_env="3", referee_seed="2")
    assert first_rand("--seed", "3") != first_rand(referee_seed="2")


@pytest.mark.slow
def test_the_referee_seeds_each_bots_srand(tmp_path):
    """Issue 15: "srand is seeded by the referee".  Each bot process gets $REFEREE_SEED,
    from the match seed and its name (referee.core.seeding.bot_seed); the adapter seeds
    rand() from it, so the same match seed gives the same srand, and another seed another."""
    from referee.core.seeding import bot_seed

    bot = build(tmp_path, LOGGING, "logging")
    seen = {}
    for seed in (7, 8):
        folder = tmp_path / f"seed{seed}"
        folder.mkdir()
        match(
            folder,
            str(bot),
            f"{sys.executable} {ROOT / 'sample_players/dice_poker/always_call.py'}",
            games=2,
            seed=seed,
        )
        said = (folder / "stderr" / "logging.stderr").read_text()
        found = re.search(r"srand\((\d+)\)", said)
        assert found, said
        seen[seed] = int(found[1])
        assert seen[seed] == bot_seed(seed, "logging")
    assert seen[7] != seen[8]


TWO = r"""
#include "tournament.h"
static int Always(int, int, int state, int) { return state < 2; }
static int Never(int, int, int, int) { return 0; }
SOLUTION a = {"Always Call", "Call", NULL, Always};
static SOLUTION b = {"Always Fold", "Fold", 0, Never};
"""


def test_a_file_with_several_solutions_needs_a_choice(tmp_path):
    """sampleAIs.cpp holds five SOLUTIONs in one file (seed: "5 examples of simple
    AIs"): such a file builds, plays the one --solution names (Name or ShortName), and
    without a choice refuses to start, listing them.  Init may be omitted (NULL, 0)."""
    bot = build(tmp_path, TWO, "two")
    refused = converse(bot, ["0 9 0 6"])
    assert refused.returncode == 2 and refused.stdout == ""
    assert "Always Call (Call)" in refused.stderr and "Always Fold (Fold)" in refused.stderr
    assert converse(bot, ["0 9 0 6", "0 9 4 1"], "--solution", "Call").stdout == "1\n0\n"
    assert converse(bot, ["0 9 0 6"], "--solution", "Always Fold").stdout == "0\n"
