"""``referee standings DIR``: the current standings of a tournament, at any time.

It reads ``DIR/results.sqlite`` without the writer's lock (:meth:`Store.read`), so it
works while ``referee tournament`` is still writing there: matches running count with
the games they have committed, marked provisional.  ``--json`` prints what
``standings.json`` holds instead of the table; ``--top N`` shows the first N rows.

Exit status: 0 printed; 2 no such directory, no tournament in it, or a store this
referee cannot read (one line on stderr).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_USAGE = 2
#: SQLite may make a reader wait briefly (WAL recovery after a crash, a checkpoint);
#: past the store's busy timeout the read is tried once more after this pause.
RETRY_AFTER_S = 0.5


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("must be a whole number of at least 1")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``standings`` subcommand to ``referee``'s subparsers."""
    parser = subparsers.add_parser(
        "standings",
        help="print a tournament's current standings (also while it runs)",
        description="Print the standings of the tournament in DIR (its results.sqlite), as they stand now: "
        "also while `referee tournament` runs, when games of running matches count as provisional. "
        "Exit status 0, or 2 when DIR holds no tournament that can be read.",
    )
    parser.add_argument("dir", metavar="DIR", help="the tournament's directory (referee tournament --out)")
    parser.add_argument("--json", action="store_true", help="print the standings as JSON (as standings.json)")
    parser.add_argument("--top", type=_positive, metavar="N", help="show only the first N bots")
    return parser


def main(args: argparse.Namespace) -> int:
    """Run ``referee standings`` with parsed arguments; the exit status."""
    from referee.tournament import report
    from referee.tournament.store import StoreError

    directory = Path(args.dir)
    if not directory.is_dir():
        print(f"referee: no such directory: {directory}", file=sys.stderr)
        return EXIT_USAGE
    try:
        current = _read(directory)
    except StoreError as exc:
        print(f"referee: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except sqlite3.Error as exc:
        print(f"referee: {directory}: cannot read the store: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    if args.top is not None:
        current.rows = current.rows[: args.top]
    if args.json:
        sys.stdout.buffer.write(report.to_json(current))
        sys.stdout.flush()
        return EXIT_OK
    from rich.console import Console

    console = Console() if sys.stdout.isatty() else Console(width=150)
    report.print_standings(current, console)
    return EXIT_OK


def _read(directory: Path) -> Any:
    """The standings, read once more after a pause if SQLite said it was busy."""
    from referee.tournament import standings
    from referee.tournament.store import Store

    for attempt in (1, 2):
        try:
            with Store.read(directory) as store:
                return standings.compute(store)
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if attempt == 2 or not busy:
                raise
            time.sleep(RETRY_AFTER_S)
    raise AssertionError("unreachable")


def _one_line(text: str) -> str:
    from referee.core.verdict import printable

    return printable(" ".join(text.split()))
