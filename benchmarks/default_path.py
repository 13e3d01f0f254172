"""The default path, in series: ``referee match`` commands timed whole, interleaved with
the raw C round trip, so that a noisy machine's drift falls on every figure alike.

``referee bench`` times each default-path command once; on a VM whose raw round trip
moves ±15 % within the hour one run says little.  This runs ``--runs`` series of: the
raw C round trip (``referee bench``'s pingpong and echo bot, on core 1 or the only core),
then a 1000-game Yahtzee and a 30,000-deal dice-poker match between ``referee bench``'s
instant C bots, each ``referee match A A --game G --games N --seed 1 --quiet --json F``
run as a user runs it.  With ``--against DIR`` each command is also run from another
checkout (put first on ``PYTHONPATH``; build its C extension there first), interleaved.

    python benchmarks/default_path.py [--runs 5] [--against /path/to/other/checkout]

Prints, per game and checkout, the figures (µs a decision, µs a deal) and the ratios of
their min and median to the median raw round trip (dice poker: to four of them, the
round trips of a deal's lines — since the showdown lines go out with the next request,
``Game.hold_tells``, the bots wake twice a deal).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.cli import bench

CASES = (("yahtzee", bench.YAHTZEE_FAST_C, 1000), ("dice-poker", bench.DICE_POKER_FAST_C, 30_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", help="another checkout to time alongside (PYTHONPATH)")
    args = parser.parse_args()
    checkouts = {"this": None} | ({"against": args.against} if args.against else {})
    core = "1" if (os.cpu_count() or 1) > 1 else "0"
    with tempfile.TemporaryDirectory(prefix="referee-default-path-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)  # as root each bot runs under a uid of its own, which must read it
        echo = bench._compile(bench.ECHO_C, work / "echo")
        pingpong = bench._compile(bench.PINGPONG_C, work / "pingpong")
        bots = {game: bench._compile(source, work / game) for game, source, _ in CASES}
        raw: list[float] = []
        figures: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            done = subprocess.run(
                ["taskset", "-c", core, str(pingpong), "200000", str(echo)], capture_output=True, text=True
            )
            raw.append(float(done.stdout))
            for game, _, count in CASES:
                for label, path in checkouts.items():
                    figures.setdefault((game, label), []).append(_one(bots[game], game, count, work, path))
    middle = statistics.median(raw)
    print(f"raw C round trip: {', '.join(f'{r:.2f}' for r in sorted(raw))} µs (median {middle:.2f})")
    for (game, label), values in figures.items():
        per = 4 * middle if game == "dice-poker" else middle
        unit = "a deal" if game == "dice-poker" else "a decision"
        shown = ", ".join(f"{v:.2f}" for v in sorted(values))
        print(
            f"{game:10} {label:8} µs {unit}: {shown}; min {min(values) / per:.2f}×, "
            f"median {statistics.median(values) / per:.2f}×"
            + (" of 4 raw" if game == "dice-poker" else " raw")
        )


def _one(bot: Path, game: str, count: int, work: Path, checkout: str | None) -> float:
    """One whole command's wall time per decision (Yahtzee) or per deal (dice poker), µs."""
    import time

    summary = work / "summary.json"
    argv = [sys.executable, "-m", "referee", "match", str(bot), str(bot), "--game", game]
    argv += ["--games", str(count), "--seed", "1", "--quiet", "--json", str(summary)]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's machine: bytecode cached
    if checkout is not None:
        env["PYTHONPATH"] = checkout
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    if game == "dice-poker":
        return elapsed / count * 1e6
    decisions = sum(p["decisions"] for p in json.loads(summary.read_text())["players"])
    return elapsed / decisions * 1e6


if __name__ == "__main__":
    main()
