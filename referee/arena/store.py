"""The arena's SQLite store: the one place its state lives (docs/arena.md, "The store").

WAL mode, ``synchronous = FULL``; every state change is one transaction
(:meth:`Store.tx`), so a ``kill -9`` at any moment leaves each submission, match and
rating either wholly before or wholly after its change.  A match's games, its record,
its bots' game counts and its end are written in the same transaction, and games are
keyed ``(match_id, game)``: a match is counted once or not at all.  A match still
``running`` when the server died is set back to ``queued`` at the next start
(:meth:`Store.recover`) and played again from its start with the same seed.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DB = "arena.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS students (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  alias TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL DEFAULT 'student' CHECK (role IN ('student', 'admin')),
  token_id TEXT NOT NULL UNIQUE,
  token_salt BLOB NOT NULL,
  token_hash BLOB NOT NULL,
  disqualified TEXT
);
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY,
  student_id INTEGER NOT NULL REFERENCES students(id),
  created REAL NOT NULL,
  filename TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  path TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'unpacking', 'building', 'checking', 'done')),
  outcome TEXT,
  summary TEXT,
  step TEXT,
  steps TEXT NOT NULL DEFAULT '{}',
  updated REAL NOT NULL,
  finished REAL,
  bot_id INTEGER
);
CREATE INDEX IF NOT EXISTS submissions_by_student ON submissions(student_id, id);
CREATE INDEX IF NOT EXISTS submissions_by_state ON submissions(state);
CREATE TABLE IF NOT EXISTS bots (
  id INTEGER PRIMARY KEY,
  student_id INTEGER REFERENCES students(id),
  submission_id INTEGER UNIQUE REFERENCES submissions(id),
  label TEXT NOT NULL,
  path TEXT NOT NULL,
  created REAL NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  placement_left INTEGER NOT NULL DEFAULT 0,
  games INTEGER NOT NULL DEFAULT 0,
  matches INTEGER NOT NULL DEFAULT 0,
  wall_stops INTEGER NOT NULL DEFAULT 0,
  benched TEXT
);
CREATE INDEX IF NOT EXISTS bots_active ON bots(active);
CREATE TABLE IF NOT EXISTS matches (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  bots TEXT NOT NULL,
  seed INTEGER NOT NULL,
  games INTEGER NOT NULL,
  created REAL NOT NULL,
  started REAL,
  finished REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  record TEXT,
  error TEXT
);
CREATE INDEX IF NOT EXISTS matches_by_state ON matches(state);
CREATE TABLE IF NOT EXISTS match_bots (
  match_id INTEGER NOT NULL REFERENCES matches(id),
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  position INTEGER NOT NULL,
  PRIMARY KEY (match_id, position)
);
CREATE INDEX IF NOT EXISTS match_bots_by_bot ON match_bots(bot_id, match_id);
CREATE TABLE IF NOT EXISTS games (
  match_id INTEGER NOT NULL REFERENCES matches(id),
  game INTEGER NOT NULL,
  scores TEXT NOT NULL,
  ranks TEXT NOT NULL,
  PRIMARY KEY (match_id, game)
);
CREATE TABLE IF NOT EXISTS forfeits (
  match_id INTEGER NOT NULL REFERENCES matches(id),
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  n INTEGER NOT NULL,
  game INTEGER,
  verdict TEXT NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (match_id, bot_id, n)
);
CREATE INDEX IF NOT EXISTS forfeits_by_bot ON forfeits(bot_id, match_id);
CREATE TABLE IF NOT EXISTS ratings (
  bot_id INTEGER PRIMARY KEY REFERENCES bots(id),
  rating REAL NOT NULL,
  low REAL NOT NULL,
  high REAL NOT NULL,
  rank_low INTEGER NOT NULL,
  rank_high INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  sid_hash TEXT PRIMARY KEY,
  student_id INTEGER NOT NULL REFERENCES students(id),
  csrf TEXT NOT NULL,
  expires REAL NOT NULL
);
"""

#: Columns of ``bots`` an arena made before them lacks: added at open.
_ADDED_BOT_COLUMNS = (("wall_stops", "INTEGER NOT NULL DEFAULT 0"), ("benched", "TEXT"))


def inserted(cursor: sqlite3.Cursor) -> int:
    """The id of the row an ``INSERT`` just added."""
    rowid = cursor.lastrowid
    if rowid is None:
        raise ValueError("the statement inserted no row")
    return rowid


class Store:
    """One connection to ``DIR/arena.sqlite``; :meth:`tx` for every change."""

    def __init__(self, folder: Path, *, create: bool = False) -> None:
        self.folder = Path(folder)
        path = self.folder / DB
        if not create and not path.exists():
            raise FileNotFoundError(
                f"{folder}: no arena here ({DB} is missing; referee arena init makes one)"
            )
        if create and not path.exists():
            # Token hashes, sessions and every student's results: the owner's alone (the
            # -wal and -shm files SQLite makes beside it take the same mode).
            path.touch(mode=0o600)
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        if create:
            self.conn.executescript(SCHEMA)
        self._upgrade()

    def _upgrade(self) -> None:
        """Columns later versions added, added to an older arena's store (idempotent)."""
        have = {row[1] for row in self.conn.execute("PRAGMA table_info(bots)")}
        for column, kind in _ADDED_BOT_COLUMNS:
            if have and column not in have:
                self.conn.execute(f"ALTER TABLE bots ADD COLUMN {column} {kind}")

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction (``BEGIN IMMEDIATE``): committed whole at the end, or rolled back."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def one(self, sql: str, *args: object) -> tuple[Any, ...] | None:
        """The query's first row, or None when it has none."""
        return self.conn.execute(sql, args).fetchone()

    def row(self, sql: str, *args: object) -> tuple[Any, ...]:
        """The first row of a query that always has one: an aggregate's, or a row whose
        key the caller holds (a LookupError if it is gone)."""
        row = self.one(sql, *args)
        if row is None:
            raise LookupError(f"no row: {sql} {args}")
        return row

    def all(self, sql: str, *args: object) -> list:
        return self.conn.execute(sql, args).fetchall()

    # ------------------------------------------------------------------ meta

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.one("SELECT value FROM meta WHERE key = ?", key)
        return default if row is None else row[0]

    @property
    def game(self) -> str:
        """The game the arena plays (every arena's store names it: referee arena init)."""
        game = self.meta("game")
        if game is None:
            raise LookupError(f"{self.folder}: the arena's store names no game")
        return game

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    @property
    def paused(self) -> bool:
        return self.meta("paused", "0") == "1"

    # ------------------------------------------------------------------ recovery

    def recover(self) -> tuple[int, int]:
        """After a stop or a crash: matches left ``running`` are queued again (their games
        were never written: a match's games go in with its end), and submissions cut
        short are checked again from the start.  Returns how many of each."""
        with self.tx() as conn:
            matches = conn.execute("UPDATE matches SET state = 'queued' WHERE state = 'running'").rowcount
            subs = conn.execute(
                "UPDATE submissions SET state = 'queued', updated = ? WHERE state NOT IN ('queued', 'done')",
                (time.time(),),
            ).rowcount
            conn.execute("DELETE FROM sessions WHERE expires < ?", (time.time(),))
        return matches, subs

    # ------------------------------------------------------------------ submissions

    def set_submission(self, sid: int, **fields: object) -> None:
        fields["updated"] = time.time()
        if "steps" in fields and not isinstance(fields["steps"], str):
            fields["steps"] = json.dumps(fields["steps"])
        names = ", ".join(f"{k} = ?" for k in fields)
        with self.tx() as conn:
            conn.execute(f"UPDATE submissions SET {names} WHERE id = ?", (*fields.values(), sid))
