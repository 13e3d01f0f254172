"""Replay pages of every game: their sizes, the time to open them in headless Chromium,
and the screenshots in docs/replays/ (issue 14).

    python benchmarks/replay_pages.py [--shots]

For each game a short match between sample players is played and logged, its replay
page written, opened in Chromium (tests/browser.py) and timed; with ``--shots`` a
screenshot of a step worth seeing is saved as docs/replays/<game>.png.  Then the two
figures the issue sets: a 1000-game Yahtzee match (≤ 3 MiB, interactive within 2 s) and a
9-seat Hold'em game (≤ 300 KiB for 27 hands).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import Browser  # noqa: E402

PY = sys.executable
S = ROOT / "sample_players"
MATCHES = {
    "yahtzee": ([str(S / "yahtzee/bin/competent"), f"{PY} {S}/yahtzee/greedy_player.py"], 12, "2", 0.45),
    "dice-poker": (
        [f"{PY} {S}/dice_poker/threshold.py", f"{PY} {S}/dice_poker/random_player.py"],
        20,
        "3",
        0.5,
    ),
    "bidding-wars": (
        [f"{PY} {S}/bidding_wars/random.py", f"{PY} {S}/bidding_wars/bid_prize.py"],
        4,
        "2",
        0.4,
    ),
    "liars-dice": (
        [
            f"{PY} {S}/liars_dice/random_legal.py",
            f"{PY} {S}/liars_dice/probabilistic.py",
            f"{PY} {S}/liars_dice/random_legal.py",
        ],
        3,
        "2",
        0.5,
    ),
    "holdem": ([f"{PY} {S}/holdem/hand_strength.py", f"{PY} {S}/holdem/random_player.py"] * 3, 1, "2", 0.3),
}


def referee(*args: str) -> None:
    subprocess.run([PY, "-m", "referee", *args], check=True, capture_output=True, stdin=subprocess.DEVNULL)


def timed_open(browser: Browser, page: Path, runs: int = 3) -> str:
    """The first open (nothing cached) and the median of ``runs`` more, in seconds."""
    first = browser.open(page)
    again = statistics.median(browser.open(page) for _ in range(runs))
    return f"{first:.2f} s first, {again:.2f} s again"


def main() -> None:
    shots = "--shots" in sys.argv
    work = Path(tempfile.mkdtemp(prefix="referee-replays-"))
    browser = Browser()
    try:
        for game, (bots, n, seed, where) in MATCHES.items():
            log, page = work / f"{game}.jsonl", work / f"{game}.html"
            referee(
                "match",
                *bots,
                "--game",
                game,
                "--games",
                str(n),
                "--seed",
                seed,
                "--log",
                str(log),
                "--quiet",
            )
            referee("replay", str(log), "--out", str(page))
            seconds = timed_open(browser, page)
            print(f"{game}: {n} games, {page.stat().st_size / 1024:.0f} KiB, ready in {seconds}")
            if shots:
                steps = browser.eval("RefereeReplay.state.step")
                browser.eval(f"RefereeReplay.go({int(int(steps) * where)})")
                out = ROOT / "docs" / "replays" / f"{game}.png"
                out.parent.mkdir(exist_ok=True)
                browser.screenshot(out)
        log, page = work / "y1000.jsonl", work / "y1000.html"
        competent = str(S / "yahtzee/bin/competent")
        referee("match", competent, competent, "--games", "1000", "--seed", "1", "--log", str(log), "--quiet")
        referee("replay", str(log), "--out", str(page))
        seconds = timed_open(browser, page)
        print(f"yahtzee, 1000 games: {page.stat().st_size / 2**20:.2f} MiB, ready in {seconds}")
        nine = [
            f"{PY} {S}/holdem/{name}" for name in ("hand_strength.py", "random_player.py", "always_call.py")
        ] * 3
        log, page = work / "h9.jsonl", work / "h9.html"
        referee(
            "match", *nine, "--game", "holdem", "--games", "1", "--seed", "5", "--log", str(log), "--quiet"
        )
        referee("replay", str(log), "--out", str(page))
        hands = len(json.loads(log.read_text().splitlines()[0])["summary"]["hands"])
        seconds = timed_open(browser, page)
        print(f"holdem, 9 seats: {hands} hands, {page.stat().st_size / 1024:.0f} KiB, ready in {seconds}")
    finally:
        browser.close()


if __name__ == "__main__":
    main()
