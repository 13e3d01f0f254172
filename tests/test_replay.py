"""`referee replay`: one self-contained HTML page per match, checked in a real browser.

Issue 14: "Replays render in a real browser: headless Chromium from Debian loads each
game's replay from file:// with no console errors, and the test checks the DOM for the
expected moves and final scores"; "a 1000-game Yahtzee match ≤ 3 MiB … interactive
within 2 s of opening in headless Chromium".
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, Browser

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_players"
PY = sys.executable

#: A short match of each game between sample players: the C ones where there is one (the
#: replay is about the record, not the bots' language; each Python bot is an interpreter
#: to start), and the greedy Yahtzee player, which forfeits a game of these with an
#: illegal joker move (seed 2): a verdict to show.
MATCHES = {
    "yahtzee": [str(SAMPLES / "yahtzee/bin/competent"), f"{PY} {SAMPLES}/yahtzee/greedy_player.py"],
    "dice-poker": [
        str(SAMPLES / "dice_poker/bin/equilibrium"),
        f"{PY} {SAMPLES}/dice_poker/random_player.py",
    ],
    "bidding-wars": [str(SAMPLES / "bidding_wars/bin/adaptive"), f"{PY} {SAMPLES}/bidding_wars/bid_prize.py"],
    "liars-dice": [str(SAMPLES / "liars_dice/bin/reader")] * 3,
    "holdem": [str(SAMPLES / "holdem/bin/montecarlo")] * 4,
}
GAMES = {"yahtzee": 12, "dice-poker": 30, "bidding-wars": 6, "liars-dice": 3, "holdem": 1}


def _moves(record: dict) -> list[str]:
    """What the board must show at the end of a game, from its record: the figures a
    player of the game would look for (the renderers draw them from the transcript)."""
    summary = record["summary"]
    game = {
        "yahtzee": lambda: [str(t) for t in summary["totals"]],  # both scorecards' totals
        "dice-poker": lambda: [str(summary["b"])],  # the announced B
        "bidding-wars": lambda: [str(p) for p in summary["points"]],  # both players' points
        "liars-dice": lambda: [record["seats"][summary["winner"]]],  # the last with dice
        "holdem": lambda: [str(c) for c in summary["final_chips"] if c],  # the stacks left
    }
    for name, expected in game.items():
        if record.get("_game") == name:
            return expected()
    raise AssertionError(record.get("_game"))


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "-m", "referee", *args], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, built_samples: Path) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("replays")
    out = {}
    for game, bots in MATCHES.items():
        log = folder / f"{game}.jsonl"
        done = referee(
            "match",
            *bots,
            "--game",
            game,
            "--games",
            str(GAMES[game]),
            "--seed",
            "2",
            "--log",
            str(log),
            "--quiet",
        )
        assert done.returncode == 0, done.stderr
        out[game] = log
    return out


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium (.ci/run installs it)")
    b = Browser()
    yield b
    b.close()


def test_a_page_holds_everything_it_shows(logs: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "y.html"
    done = referee("replay", str(logs["yahtzee"]), "--out", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    # No URL to fetch anything from: no src, no href, no http(s), no @import.
    assert not re.search(r"\b(src|href)\s*=", text)
    assert "http://" not in text and "https://" not in text and "@import" not in text
    assert "default-src 'none'" in text


@pytest.mark.parametrize("game", list(MATCHES))
def test_each_games_replay_opens_from_file_without_errors_and_shows_the_result(
    game: str, logs: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    page = tmp_path / f"{game}.html"
    done = referee("replay", str(logs[game]), "--out", str(page))
    assert done.returncode == 0, done.stderr
    browser.errors.clear()
    browser.open(page)
    records = [json.loads(line) for line in logs[game].read_text().splitlines()]
    assert browser.eval("document.querySelectorAll('#game-select option').length") == len(records)
    # The first game's result table: every seat's name and score.
    cells = browser.eval("[...document.querySelectorAll('#result td')].map(td => td.textContent)")
    first = records[0]
    for name, score in zip(first["seats"], first["scores"], strict=True):
        assert name in cells
        assert any(c == f"{score:g}" or c == str(score) for c in cells), (score, cells)
    # The board at the end shows the game's own figures.
    board = browser.eval("document.querySelector('#board').textContent")
    for expected in _moves({**first, "_game": game}):
        assert expected in board, (expected, board[:500])
    # Step through the whole game forward and back: no step may fail to draw.
    steps = browser.eval("(() => { const s = RefereeReplay.state; return s.step; })()")
    for step in range(0, int(steps) + 1, max(1, int(steps) // 40)):
        browser.eval(f"RefereeReplay.go({step})")
    assert browser.eval("document.querySelector('#board').textContent.includes('cannot draw')") is False
    assert browser.errors == [], browser.errors


def test_a_forfeit_is_marked_on_the_timeline_with_its_detail(
    logs: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    records = [json.loads(line) for line in logs["yahtzee"].read_text().splitlines()]
    forfeited = next((r for r in records if r.get("forfeits")), None)
    if forfeited is None:
        pytest.skip("no forfeit in this match")
    page = tmp_path / "f.html"
    assert (
        referee(
            "replay", str(logs["yahtzee"]), "--game-index", str(forfeited["game"]), "--out", str(page)
        ).returncode
        == 0
    )
    browser.open(page)
    marks = browser.eval("[...document.querySelectorAll('#marks .mark')].map(m => m.title)")
    assert marks and forfeited["forfeits"][0]["verdict"] in marks[0]
    verdicts = browser.eval("document.querySelector('#verdicts').textContent")
    assert forfeited["forfeits"][0]["verdict"] in verdicts


def test_a_1000_game_yahtzee_match_is_small_and_quick(browser: Browser, tmp_path: Path) -> None:
    log = tmp_path / "y.jsonl"
    competent = str(SAMPLES / "yahtzee/bin/competent")
    done = referee(
        "match", competent, competent, "--games", "1000", "--seed", "1", "--log", str(log), "--quiet"
    )
    assert done.returncode == 0, done.stderr
    page = tmp_path / "y.html"
    assert referee("replay", str(log), "--out", str(page)).returncode == 0
    assert page.stat().st_size <= 3 * 1024 * 1024
    seconds = browser.open(page)
    # The goal is 2 s on an idle machine (benchmarks/replay_pages.py measures it); beside
    # the rest of the suite on 2 cores CI measured 2.8 s: a margin, not a tight clock.
    assert seconds < 6.0, seconds
    assert browser.errors == []


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "junk.jsonl").write_text("not json\n")
    (tmp_path / "empty").mkdir()
    for args, words in (
        ([str(tmp_path / "none.jsonl")], "no such file"),
        ([str(tmp_path / "junk.jsonl")], "not a game record"),
        ([str(tmp_path / "empty")], "no game records here"),
    ):
        done = referee("replay", *args, "--out", str(tmp_path / "o.html"))
        assert done.returncode == 2 and words in done.stderr and len(done.stderr.strip().splitlines()) == 1
