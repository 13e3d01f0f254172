"""``referee arena init DIR --game G [--config arena.toml] [--roster roster.csv]``.

Makes the arena's folder: ``arena.toml``, the store, one token per student written once
to ``tokens.csv`` (``student,token``; the store keeps only their hashes), the TA's token
in ``admin-token.txt``, and the house bots.
"""

from __future__ import annotations

import csv
import io
import os
import secrets
import shutil
import time
from pathlib import Path

from referee import games
from referee.arena import tokens
from referee.arena.config import CONFIG, ArenaConfigError, load
from referee.arena.store import DB, Store
from referee.grade import config as grading_config

TOKENS = "tokens.csv"
ADMIN_TOKEN = "admin-token.txt"


def read_roster(path: Path) -> list[str]:
    """The ``student`` column of a CSV (or, without a header naming it, the first column)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaConfigError(f"--roster {path}: {getattr(exc, 'strerror', None) or exc}") from None
    rows = [row for row in csv.reader(io.StringIO(text)) if row and any(c.strip() for c in row)]
    if not rows:
        return []
    header = [c.strip().lower() for c in rows[0]]
    column, body = (header.index("student"), rows[1:]) if "student" in header else (0, rows)
    names: list[str] = []
    for row in body:
        name = row[column].strip() if column < len(row) else ""
        if not name or name.startswith("#"):
            continue
        if len(name) > 100 or any(not c.isprintable() for c in name):
            raise ArenaConfigError(f"--roster {path}: {name[:40]!r} is not a usable student name")
        if name in names:
            raise ArenaConfigError(f"--roster {path}: {name!r} is listed twice")
        names.append(name)
    return names


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())


def init(folder: Path, game: str | None, config_path: Path | None, roster: Path | None) -> dict:
    """Create the arena; what was made (for the CLI to print)."""
    config = load(config_path)
    game = game or config.game
    if game is None:
        raise ArenaConfigError("which game? pass --game (or set game in arena.toml)")
    if game not in games.available():
        raise ArenaConfigError(f"no game {game!r} (referee games lists them)")
    if config.game is not None and config.game != game:
        raise ArenaConfigError(f"--game {game}, but the configuration says game = {config.game!r}")
    if (folder / DB).exists():
        raise ArenaConfigError(f"{folder} holds an arena already")
    base = config_path.resolve().parent if config_path else Path.cwd()
    house = [grading_config.bot_command(word, game, base) for word in config.house]
    students = read_roster(roster) if roster else []
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("uploads", "work", "bots", "logs", "stderr"):
        (folder / sub).mkdir(exist_ok=True)
    if config_path is not None:
        shutil.copyfile(config_path, folder / CONFIG)
    else:
        (folder / CONFIG).write_text(f'game = "{game}"\n', encoding="utf-8")
    store = Store(folder, create=True)
    now = time.time()
    handed: list[tuple[str, str]] = []
    try:
        with store.tx() as conn:
            store.set_meta(conn, "game", game)
            store.set_meta(
                conn, "seed", str(config.seed if config.seed is not None else secrets.randbits(63))
            )
            store.set_meta(conn, "created", str(now))
            store.set_meta(conn, "base", str(base))
            aliases: set[str] = set()
            for name in ["admin", *students]:
                token, token_id, salt, digest = tokens.new_token()
                alias = f"player-{secrets.token_hex(3)}"
                while alias in aliases:
                    alias = f"player-{secrets.token_hex(3)}"
                aliases.add(alias)
                role = "admin" if not handed else "student"
                conn.execute(
                    "INSERT INTO students (name, alias, role, token_id, token_salt, token_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (name if role == "student" else "(TA)", alias, role, token_id, salt, digest),
                )
                handed.append((name, token))
            for word, command in zip(config.house, house, strict=True):
                conn.execute(
                    "INSERT INTO bots (student_id, label, path, created, active) VALUES (NULL, ?, ?, ?, 1)",
                    (f"house:{word.removeprefix('sample:')}", command, now),
                )
    finally:
        store.close()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "token"])
    writer.writerows(handed[1:])
    _write_private(folder / TOKENS, out.getvalue())
    _write_private(folder / ADMIN_TOKEN, handed[0][1] + "\n")
    return {"folder": str(folder), "game": game, "students": len(students), "house": len(house)}
