"""Where a replay's games come from, and which game they are of.

A replay reads game records, one JSON object a line, as ``referee match --log`` writes
them (docs/records.md).  Given a folder, it looks where the referee puts such files: a
tournament's ``logs/`` (``referee tournament --game-logs``), a grading run's
``students/<id>/replays/`` and ``qualify-games.jsonl``.  Each record names its game
(``game_name``); records written before they did are told apart by a key only their
game's summaries have (``Game.summary_key``), or the game is given with ``--game``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from referee import games


class ReplayError(ValueError):
    """The records cannot make a replay; the message says why in one line."""


@dataclass
class Source:
    """The games of one replay, and what the page says of them."""

    game: str
    records: list[dict]
    title: str
    files: list[Path] = field(default_factory=list)


def log_files(path: Path) -> list[Path]:
    """The record files at ``path``: the file itself, or those in the folders the referee
    writes them to, in name order; or a folder's PHH hand histories (``*.phh``)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ReplayError(f"{path}: no such file or folder")
    # A tournament's logs; else a student's folder of a grading run (the games they lost
    # or forfeited, and their qualification) or any folder of logs; else PHH files.
    for patterns in (
        ("logs/*.jsonl",),
        ("results/logs/*.jsonl",),
        ("replays/*.jsonl", "*.jsonl"),
        ("*.phh",),
    ):
        found = sorted(p for pattern in patterns for p in path.glob(pattern))
        if found:
            return found
    raise ReplayError(
        f"{path}: no game records here (a --log file, a tournament run with --game-logs, "
        "a student's folder of a grading run, or PHH files)"
    )


def read_records(files: list[Path]) -> list[dict]:
    records = []
    for file in files:
        try:
            with open(file, encoding="utf-8") as lines:
                for number, line in enumerate(lines, 1):
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                    except ValueError as exc:
                        raise ReplayError(f"{file}:{number}: not a game record ({exc})") from None
                    if not isinstance(record, dict) or "seats" not in record:
                        raise ReplayError(f"{file}:{number}: not a game record (no seats)")
                    records.append(record)
        except OSError as exc:
            raise ReplayError(f"{file}: {exc.strerror or exc}") from None
    if not records:
        raise ReplayError(f"{', '.join(map(str, files))}: no games in it")
    return records


def infer_game(records: list[dict]) -> str | None:
    """The game the records name, or else the one whose summaries they hold."""
    for record in records:
        if isinstance(record.get("game_name"), str) and record["game_name"]:
            return record["game_name"]
    keys = {cls.summary_key: name for name, cls in games.available().items() if cls.summary_key}
    for record in records:
        for key, game in keys.items():
            if key in (record.get("summary") or {}):
                return game
    return None


def load(path: Path, game: str | None = None, index: int | None = None) -> Source:
    """The games at ``path`` (one of them with ``index``, the game's number in its match)."""
    files = log_files(path)
    if files and all(f.suffix.lower() == ".phh" for f in files):
        # PHH hand histories (referee/replay/phh.py): Hold'em records, one per game.
        from referee.replay.phh import records_from_phh

        if game not in (None, "holdem"):
            raise ReplayError(f"{path}: PHH files are hold'em hands, not {game}")
        try:
            records = records_from_phh(files)
        except ValueError as exc:
            raise ReplayError(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
        game = "holdem"
    else:
        records = read_records(files)
    game = game or infer_game(records)
    if game is None:
        raise ReplayError(f"{path}: which game are these records of? pass --game")
    if game not in games.available():
        raise ReplayError(f"no game {game!r} (games: {', '.join(games.available())})")
    if index is not None:
        chosen = [r for r in records if r.get("game") == index]
        if not chosen:
            numbers = sorted({number for r in records if isinstance(number := r.get("game"), int)})
            shown = f"{numbers[0]}–{numbers[-1]}" if numbers else "none"
            raise ReplayError(f"{path}: no game {index} (games {shown})")
        records = chosen
    names = sorted({name for r in records for name in r["seats"]})
    count = f"{len(records)} game{'s' * (len(records) != 1)}"
    title = f"{game}: {' vs '.join(names)} — {count}"
    return Source(game=game, records=records, title=title, files=files)
