"""``referee replay LOG_OR_DIR [--game-index K] --out FILE.html``: a self-contained page
to watch a match's games (referee/replay/)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee import games
from referee.cli.arguments import EXIT_CANNOT_WRITE, EXIT_OK, EXIT_USAGE, say


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    replay = subparsers.add_parser(
        "replay",
        help="write a self-contained HTML page to watch a match's games",
        description="Write one HTML file that replays the games recorded in LOG_OR_DIR: a --log file of "
        "`referee match`, a tournament folder run with --game-logs (its logs/), or a student's folder of a "
        "grading run. The page needs nothing else: open it from disk or send it by e-mail.",
    )
    replay.add_argument(
        "source", metavar="LOG_OR_DIR", help="a file of game records, or a folder holding them"
    )
    replay.add_argument("--out", metavar="FILE.html", required=True, help="the page to write")
    replay.add_argument("--game-index", type=int, metavar="K", help="only game K (its number in the match)")
    replay.add_argument(
        "--game",
        choices=list(games.available()),
        help="which game the records are of (default: read from them)",
    )
    return replay


def main(args: argparse.Namespace) -> int:
    from referee.replay.page import page
    from referee.replay.sources import ReplayError, load
    from referee.sinks.files import write_atomically

    try:
        source = load(Path(args.source), args.game, args.game_index)
    except ReplayError as exc:
        say(str(exc))
        return EXIT_USAGE
    text = page(source)
    try:
        write_atomically(args.out, text.encode("utf-8"), durable=False)
    except OSError as exc:
        say(f"--out {args.out}: {exc.strerror or exc}")
        return EXIT_CANNOT_WRITE
    say(f"{args.out}: {len(source.records)} games of {source.game}, {len(text.encode()) / 1024:.0f} KiB")
    return EXIT_OK
