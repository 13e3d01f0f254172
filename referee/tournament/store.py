"""The results store of a tournament: one SQLite file, ``DIR/results.sqlite``.

Everything a tournament decides or plays is written here as it happens, so that
``referee tournament --resume DIR`` can finish a tournament after ``kill -9`` with no game
lost or counted twice, ``referee standings DIR`` can read it while it runs, and the
ratings that come next (error bars, paired deals) can be computed from it later.

Writing
-------

Every write is one SQLite transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), so whatever
instant the referee is killed at, the file holds whole games and whole matches only:

* :meth:`Store.add_games` inserts a batch of games in one transaction;
* :meth:`Store.finish_match` inserts the last games, the per-bot figures, the final
  :class:`~referee.core.records.MatchRecord` and the status ``done`` in one transaction,
  after checking that the match holds exactly games ``0 … games_played − 1``;
* :meth:`Store.discard_unfinished` deletes a crashed match's games in one transaction
  and makes it ``pending`` again: a match cut short is replayed from its start (its
  bots, restarted mid-match, would have lost their memory).

A game row's primary key is ``(match, game index)``: a game inserted twice makes its
whole batch fail, so no game is ever counted twice.

**One writer.**  The store is written by one process — the tournament's parent — through
one connection: worker processes play matches and send their records back, and the
parent feeds them to a :class:`~referee.tournament.sink.StoreSink` per match.  Writes never
wait for each other, no ``SQLITE_BUSY`` can surface mid-tournament, and the parent
alone knows which matches are running.  :meth:`Store.open` enforces it with an exclusive
``flock`` on ``DIR/results.sqlite.lock`` (released by the kernel when the process dies,
so a ``kill -9`` leaves no stale lock); a second writer gets a one-line error.  Readers
(:meth:`Store.read`, the ``sqlite3`` shell) never block the writer in WAL mode;
``busy_timeout`` is set so that the rare moments when SQLite makes one wait (WAL
recovery after a crash) are waited out instead of failing.

**Durability: WAL with** ``synchronous=NORMAL``.  A commit appends to the WAL file with
``write(2)`` and no ``fsync``; the WAL is synced before each checkpoint.

* ``kill -9``, a crash or an OOM kill of the referee costs **nothing committed**, with
  NORMAL as with FULL: the data is in the kernel's page cache.  What is lost is the
  batch not yet committed (at most :data:`~referee.tournament.sink.BATCH_GAMES` games or
  :data:`~referee.tournament.sink.BATCH_SECONDS` seconds of one match) — and, since a match
  cut short is replayed from its start, the rest of that match's games too.
* A power loss or kernel crash can, with NORMAL, roll back the transactions committed
  since the last checkpoint (at most ~1000 pages of WAL, a few thousand games); the
  file stays consistent and those matches are simply replayed on resume.  With FULL each
  commit would survive it too.

Measured on this project's 2-core VM (ext4 on a virtual disk; synthetic dice-poker
games, best of 3), the store's cost per game:

=================  ===========  ====================
games per commit   NORMAL       FULL
=================  ===========  ====================
1                  40 µs        290–1600 µs (fsync)
100                5.1 µs       7.3–8.1 µs
250                4.5 µs       8.6 µs
1000               4.3 µs       4.6 µs
=================  ===========  ====================

Of the ~4.3 µs a batched game costs, ~0.9 µs is encoding its row and ~3.8 µs SQLite's
insert; a game takes ~80 bytes of file.  With batches FULL costs little more *on
average*, but each commit waits for an ``fsync`` whose latency varied fivefold between
runs here and is worse on a busy or networked disk, and it holds up the match's trio
loop (the bots' clocks) while it waits.  NORMAL is chosen: a ``kill -9`` costs nothing
more with it, and what a power loss can cost, resume replays.  (NORMAL still syncs at
each checkpoint — every ~1000 pages of WAL, some 40,000 games —: a batch's commit takes
~1 ms, 12–15 ms at the 99th percentile.)

Schema (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`; the reference for
``docs/tournaments.md``)
-------------------------------------------------------------------------------------

JSON columns are text, readable with SQLite's ``json_extract``/``json_each``.  Seeds of
deals are 64-bit unsigned; SQLite's integers are signed, so ``games.seed`` holds the same
64 bits as a signed integer (add 2^64 when negative; the readers here do).

``tournament`` — one row
    ``config`` the tournament's configuration (JSON, keys sorted: a resume must give an
    equal one), ``seed`` (decimal text: any size), ``created`` (ISO 8601, UTC),
    ``referee_version`` of the run that created it.

``sessions`` — one row per opening for writing: the creation, then each resume
    ``started``, ``referee_version``, ``pid``.

``bots`` — the field
    ``name`` (primary key), ``argv`` (JSON list: the command), ``spec`` (the whole
    :class:`~referee.core.botspec.BotSpec`, JSON), ``content_hash`` (:func:`content_hash`
    of the bot's files), ``added``.

``matches`` — one row per match of the schedule
    ``id`` (integer, in the order matches were added; games and figures refer to it),
    ``key`` (unique: the caller's stable match key, e.g. the format's match id), ``spec``
    (the :class:`~referee.match.spec.MatchSpec`, JSON), ``status`` (``pending`` →
    ``running`` → ``done``; a crash leaves ``running``), ``record`` (the final
    ``MatchRecord``, JSON, when done), ``started``, ``finished``, ``attempts`` (times
    started: a replay after a crash counts).

``games`` — one row per game played (no transcripts: the ``--log`` files keep those)
    ``match_id``, ``game`` (index in the match; primary key with ``match_id``), ``deal``,
    ``rotation`` (seat ``s`` was played by bot ``(s + rotation) % n`` of the match's
    lineup), ``seed`` (the deal's), ``seats`` (JSON: bot names by seat), ``scores``,
    ``ranks`` (JSON, by seat), ``forfeits`` (JSON list of
    :class:`~referee.core.records.GameForfeit`: player, verdict, decision, detail…; NULL
    when none), ``tallies`` (JSON: the game's own per-seat counts; NULL when none).  With
    the match's lineup this is what ratings with error bars need: per game, per deal, per
    seat, and games of one deal paired across rotations (``--duplicate``).

``figures`` — one row per bot per done match (from ``MatchRecord.players``)
    ``match_id``, ``bot`` (primary key together), ``games``, ``wins``, ``losses``,
    ``draws``, ``mean_score``, ``mean_rank``, ``cpu_seconds``, ``peak_rss_bytes``,
    ``decisions``, ``mean_decision_us``, ``max_decision_us``, ``first_answer_ms``,
    ``restarts``, ``forfeits`` (JSON: count by verdict).

``events`` — what happened besides games, in order
    ``at`` (ISO 8601), ``kind`` (``restart``: a bot that lives for the whole tournament
    was started again after its process ended, ``detail`` saying why; ``notice``: a line
    the user was shown, such as a bot given up on; ``run`` and ``pace``: a run's start
    with the games stored then, and its games per second when it ended — what a resume's
    estimate of the time left comes from, ``referee.tournament.resume``),
    ``bot``, ``match_key`` (the match it happened in or before, if any), ``detail``.

Use::

    store = Store.open(out_dir, config, seed=seed)   # creates, or reopens an equal one
    store.add_bots(specs)                             # or, on resume: store.changed_bots(specs)
    for key in store.unfinished_keys():
        store.discard_unfinished(key)                 # replayed from the start
    sink = StoreSink(store, key, spec)                # referee.tournament.sink, per match
    run_match(spec, sinks=[sink])                     # or feed it a worker's records
    store.close()
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from referee import __version__
from referee.core.botspec import BotSpec
from referee.core.records import GameForfeit, GameRecord, MatchRecord
from referee.match.spec import MatchSpec
from referee.sinks.files import fsync_path

#: The store's file in the tournament's directory.
FILENAME = "results.sqlite"
#: The writer's lock, next to it (``flock``: released when the process dies).
LOCKNAME = "results.sqlite.lock"
#: ``PRAGMA user_version`` of the schema this module writes; a store of another version
#: is refused (no migrations yet).
SCHEMA_VERSION = 2
#: How long a connection waits for a lock SQLite holds (WAL recovery, a checkpoint).
BUSY_TIMEOUT_S = 30.0
#: ``PRAGMA synchronous`` (module docstring: what a crash costs with NORMAL and FULL).
SYNCHRONOUS = "NORMAL"

#: :func:`content_hash` reads at most this many files…
HASH_MAX_FILES = 10_000
#: …and at most this many bytes of their content in all; files beyond the byte budget
#: count by path, size and modification time only.
HASH_MAX_BYTES = 256 * 1024 * 1024
#: Directories that :func:`content_hash` skips: version control, and caches a bot
#: writes when it runs (Python's bytecode), which would make a bot "change" by playing.
HASH_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache"})

_STATUSES = ("pending", "running", "done")

_SCHEMA = """
CREATE TABLE tournament (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    config TEXT NOT NULL,
    seed TEXT NOT NULL,
    created TEXT NOT NULL,
    referee_version TEXT NOT NULL
);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    referee_version TEXT NOT NULL,
    pid INTEGER NOT NULL
);
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    argv TEXT NOT NULL,
    spec TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done')),
    record TEXT,
    started TEXT,
    finished TEXT,
    attempts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE games (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    game INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    ranks TEXT NOT NULL,
    forfeits TEXT,
    tallies TEXT,
    PRIMARY KEY (match_id, game)
) WITHOUT ROWID;
CREATE TABLE figures (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    bot TEXT NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    mean_score REAL NOT NULL,
    mean_rank REAL NOT NULL,
    cpu_seconds REAL NOT NULL,
    peak_rss_bytes INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    mean_decision_us REAL NOT NULL,
    max_decision_us REAL NOT NULL,
    first_answer_ms REAL NOT NULL,
    restarts INTEGER NOT NULL,
    forfeits TEXT NOT NULL,
    PRIMARY KEY (match_id, bot)
) WITHOUT ROWID;
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    bot TEXT,
    match_key TEXT,
    detail TEXT NOT NULL
);
"""

_GAME_COLUMNS = "game, deal, rotation, seed, seats, scores, ranks, forfeits, tallies"
_INSERT_GAME = f"INSERT INTO games (match_id, {_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_INSERT_FIGURES = (
    "INSERT INTO figures (match_id, bot, games, wins, losses, draws, mean_score, mean_rank, cpu_seconds, "
    "peak_rss_bytes, decisions, mean_decision_us, max_decision_us, first_answer_ms, restarts, forfeits) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_encode = msgspec.json.Encoder().encode
_decode_forfeits = msgspec.json.Decoder(list[GameForfeit]).decode
_decode_tallies = msgspec.json.Decoder(list[dict[str, float]]).decode
_decode_match = msgspec.json.Decoder(MatchRecord).decode
_decode_spec = msgspec.json.Decoder(MatchSpec).decode
_decode_bot = msgspec.json.Decoder(BotSpec).decode
_TWO_64 = 1 << 64
_TWO_63 = 1 << 63


class StoreError(Exception):
    """The store cannot do what was asked; the message says why in one line."""


class NoTournament(StoreError):
    """The directory holds no recorded tournament: no store, or one killed while being
    created (before its first transaction): a tournament may be started there."""


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _canonical(value: Any) -> str:
    """``value`` (a dict, a msgspec struct…) as JSON with every key sorted."""
    return msgspec.json.encode(value, order="sorted").decode()


def _signed(seed: int) -> int:
    return seed - _TWO_64 if seed >= _TWO_63 else seed


def _unsigned(seed: int) -> int:
    return seed + _TWO_64 if seed < 0 else seed


def game_row(match_id: int, record: GameRecord) -> tuple[Any, ...]:
    """The ``games`` row of ``record`` (its transcript and summary are not stored)."""
    return (
        match_id,
        record.game,
        record.deal,
        record.rotation,
        _signed(record.seed),
        _encode(record.seats).decode(),
        _encode(record.scores).decode(),
        _encode(record.ranks).decode(),
        _encode(record.forfeits).decode() if record.forfeits else None,
        _encode(record.tallies).decode() if record.tallies else None,
    )


def _game_record(row: Sequence[Any]) -> GameRecord:
    game, deal, rotation, seed, seats, scores, ranks, forfeits, tallies = row
    return GameRecord(
        game=game,
        deal=deal,
        rotation=rotation,
        seed=_unsigned(seed),
        seats=msgspec.json.decode(seats),
        scores=[float(x) for x in msgspec.json.decode(scores)],
        ranks=msgspec.json.decode(ranks),
        forfeits=_decode_forfeits(forfeits) if forfeits else [],
        tallies=_decode_tallies(tallies) if tallies else [],
    )


# ---------------------------------------------------------------------- content hash


def content_hash(spec: BotSpec, *, skip: Iterable[str | os.PathLike[str]] = ()) -> str:
    """A hash of the bot's files: every regular file under ``spec.home``, by relative
    path and content, in sorted order (``sha256:`` + hex).

    It changes when a file is added, removed, renamed or edited, and not otherwise: not
    when a file is only touched, nor when the bot writes Python bytecode caches
    (:data:`HASH_SKIP_DIRS` are skipped).  Symbolic links are hashed as their target
    *path*, not followed, so a link out of the directory cannot make the walk huge.
    Bounded: at most :data:`HASH_MAX_FILES` files (the rest are not looked at, and their
    number is not known either), and :data:`HASH_MAX_BYTES` of content (files past the
    budget count by path, size and modification time).  A file or directory that cannot
    be read is skipped — it is hashed by its name and the word ``unreadable``, so it
    becoming readable is a change.  Directories in ``skip`` are not looked into: the
    store passes its own, since a bot named as ``"python3 mybot.py"`` has the current
    directory as its home, and the tournament's output may well be in it.  The command
    itself (``argv``) is stored apart.
    """
    digest = hashlib.sha256()
    home = Path(spec.home)
    budget = HASH_MAX_BYTES
    files = 0
    skipped = frozenset(os.path.realpath(d) for d in skip)
    for path in _walk(home, skipped):
        if files >= HASH_MAX_FILES:
            digest.update(b"\0truncated")
            break
        files += 1
        rel = os.fsencode(path.relative_to(home))
        try:
            info = path.lstat()
        except OSError:
            continue  # gone since the walk saw it
        if stat.S_ISLNK(info.st_mode):
            digest.update(b"\0link\0" + rel + b"\0" + os.fsencode(os.readlink(path)))
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        if info.st_size > budget:
            digest.update(b"\0meta\0%s\0%d\0%d" % (rel, info.st_size, info.st_mtime_ns))
            continue
        try:
            with open(path, "rb") as fh:
                content = fh.read(budget + 1)
        except OSError:
            digest.update(b"\0unreadable\0" + rel)
            continue
        budget -= len(content)
        digest.update(b"\0file\0%s\0%d\0" % (rel, len(content)))
        digest.update(content)
    return "sha256:" + digest.hexdigest()


def bot_files(spec: BotSpec, *, skip: Iterable[str | os.PathLike[str]] = ()) -> Iterator[Path]:
    """The files :func:`content_hash` reads, in its order (what shipping a bot must carry)."""
    return _walk(Path(spec.home), frozenset(os.path.realpath(d) for d in skip))


def _walk(home: Path, skipped: frozenset[str]) -> Iterator[Path]:
    """Files and links under ``home`` in sorted order, without following links."""
    try:
        entries = sorted(os.scandir(home), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if entry.name not in HASH_SKIP_DIRS and os.path.realpath(entry.path) not in skipped:
                yield from _walk(Path(entry.path), skipped)
        else:
            yield Path(entry.path)


# ---------------------------------------------------------------------- the store


class Store:
    """A tournament's results in ``DIR/results.sqlite`` (module docstring: the schema,
    the one-writer design, what a crash costs).

    Open it with :meth:`open` (to write) or :meth:`read` (to read, while a tournament
    runs too).  Methods are called from one thread at a time; every write method is one
    transaction and raises :class:`StoreError` (nothing written) when it cannot apply.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, lock_fd: int | None) -> None:
        self._conn = conn
        self.path = path
        self._lock_fd = lock_fd
        self._ids: dict[str, int] = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        directory: str | os.PathLike[str],
        config: Any = None,
        *,
        seed: int | None = None,
        bots: Iterable[BotSpec] = (),
    ) -> Store:
        """Open the store in ``directory`` for writing, creating it if there is none.

        A new store needs ``config`` (any JSON-encodable value: a dict, a msgspec
        struct — leave out what may change between runs without changing results, such
        as the concurrency) and ``seed``; ``bots`` are recorded in the same transaction
        as the configuration, so a store is never seen with one and not the other (a
        ``kill -9`` in between would leave a tournament that cannot resume).  An existing one is reopened with ``config`` and
        ``seed`` both ``None`` (a resume takes what is stored), or with equal ones; a
        different one is refused with a one-line :class:`StoreError`, as is a second
        writer while this one is open.
        """
        directory = Path(directory)
        path = directory / FILENAME
        if not path.exists() and config is None:
            raise NoTournament(f"{directory}: no tournament here (no {FILENAME})")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{directory}: cannot create the directory: {exc.strerror or exc}") from None
        lock_fd = _lock(directory)
        conn = None
        try:
            # Hashed first: a bot's files may take long to read, outside any transaction.
            hashed = [(spec, content_hash(spec, skip=[directory])) for spec in bots]
            if not path.exists():
                cls._create(directory, path, config, seed, hashed, lock_fd)
            conn = _connect(path)
            conn.execute("PRAGMA journal_mode=WAL")
            store = cls(conn, path, lock_fd)
            store._setup(config, seed, hashed)
            return store
        except BaseException:
            if conn is not None:
                conn.close()
            os.close(lock_fd)  # after the connection: closing a descriptor of the file would drop its locks
            raise

    @classmethod
    def _create(
        cls,
        directory: Path,
        path: Path,
        config: Any,
        seed: int | None,
        bots: Sequence[tuple[BotSpec, str]],
        lock_fd: int,
    ) -> None:
        """Make a new store whole under another name, then rename it into place: a kill -9
        while it is being made leaves no store (the same command starts again), never an
        empty one that no ``--resume`` can go on with."""
        made = path.with_name(path.name + ".new")
        for suffix in ("", "-journal", "-wal", "-shm"):  # what a killed attempt left
            Path(f"{made}{suffix}").unlink(missing_ok=True)
        conn = _connect(made)
        try:
            cls(conn, made, lock_fd)._write_new(config, seed, bots)  # the writer's lock is held
        finally:
            conn.close()
        fsync_path(made)
        os.replace(made, path)
        fsync_path(directory)  # the rename itself

    def _write_new(self, config: Any, seed: int | None, bots: Sequence[tuple[BotSpec, str]]) -> None:
        """The schema, the configuration, the seed and the bots, in one transaction."""
        conn = self._conn
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO tournament (id, config, seed, created, referee_version) VALUES (1, ?, ?, ?, ?)",
                (_canonical(config), str(seed or 0), _now(), __version__),
            )
            self._insert_bots(conn, bots)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")  # in the transaction: all or nothing

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> Store:
        """Open the store in ``directory`` to read it (no lock: a running tournament
        goes on writing; each reader call sees a consistent snapshot)."""
        path = Path(directory) / FILENAME
        if not path.exists():
            raise NoTournament(f"{directory}: no tournament here (no {FILENAME})")
        conn = _connect(path)
        store = cls(conn, path, None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            empty = version == 0 and not conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            conn.close()
            if empty:
                raise NoTournament(
                    f"{directory}: no tournament recorded (it was stopped while being created, schema 0, "
                    "nothing played): start it again with the same command"
                )
            raise StoreError(
                f"{path}: not a results store of this referee (schema {version}, expected {SCHEMA_VERSION})"
            )
        return store

    def _setup(self, config: Any, seed: int | None, bots: Sequence[tuple[BotSpec, str]] = ()) -> None:
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise StoreError(f"{self.path}: not a results store (an SQLite file with other tables)")
            if config is None:  # an older referee's store, created then killed before its first transaction
                raise NoTournament(f"{self.path}: no tournament recorded")
            self._write_new(config, seed, bots)
        elif version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: a results store of schema {version}; this referee reads schema {SCHEMA_VERSION}"
            )
        else:
            stored_config, stored_seed = conn.execute("SELECT config, seed FROM tournament").fetchone()
            if config is not None:
                difference = _difference(
                    msgspec.json.decode(stored_config), msgspec.json.decode(_canonical(config))
                )
                if difference:
                    raise StoreError(
                        f"{self.path.parent} holds a tournament with a different configuration ({difference}); "
                        "resume it with the same one, or give a new directory"
                    )
            if seed is not None and str(seed) != stored_seed:
                raise StoreError(
                    f"{self.path.parent} holds a tournament with seed {stored_seed}, not {seed}; "
                    "resume it with the same seed, or give a new directory"
                )
        with self._transaction():
            conn.execute(
                "INSERT INTO sessions (started, referee_version, pid) VALUES (?, ?, ?)",
                (_now(), __version__, os.getpid()),
            )

    def close(self) -> None:
        """Close the connection, then release the writer's lock (in that order)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None  # type: ignore[assignment]
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one read transaction: every query in it sees the same
        committed state (in WAL mode a reader never blocks the writer).  For readers
        that need SQL of their own, such as the standings; read only."""
        self._conn.execute("BEGIN")
        try:
            yield self._conn
        finally:
            self._conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed whole, or rolled back whole."""
        if self._lock_fd is None:
            raise StoreError(f"{self.path}: opened to read; Store.open writes")
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # ------------------------------------------------------------------ the tournament

    @property
    def config(self) -> Any:
        """The stored configuration, decoded from JSON (dicts and lists)."""
        return msgspec.json.decode(self._conn.execute("SELECT config FROM tournament").fetchone()[0])

    @property
    def seed(self) -> int:
        return int(self._conn.execute("SELECT seed FROM tournament").fetchone()[0])

    @property
    def created(self) -> str:
        return self._conn.execute("SELECT created FROM tournament").fetchone()[0]

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"``, or what is wrong."""
        return "; ".join(row[0] for row in self._conn.execute("PRAGMA integrity_check"))

    # ------------------------------------------------------------------ bots

    def add_bots(self, specs: Iterable[BotSpec]) -> None:
        """Record the bots with the hash of their files (:func:`content_hash`), in one
        transaction.  A bot already stored with the same files is left as it is; one
        whose files changed is refused (the caller checks :meth:`changed_bots` first)."""
        rows = [(spec, self._hash(spec)) for spec in specs]
        with self._transaction() as conn:
            self._insert_bots(conn, rows)

    @staticmethod
    def _insert_bots(conn: sqlite3.Connection, rows: Iterable[tuple[BotSpec, str]]) -> None:
        for spec, digest in rows:
            stored = conn.execute("SELECT content_hash FROM bots WHERE name = ?", (spec.name,)).fetchone()
            if stored is None:
                conn.execute(
                    "INSERT INTO bots (name, argv, spec, content_hash, added) VALUES (?, ?, ?, ?, ?)",
                    (spec.name, _encode(spec.argv).decode(), _canonical(spec), digest, _now()),
                )
            elif stored[0] != digest:
                raise StoreError(f"bot {spec.name}: its files changed since the tournament recorded it")

    def changed_bots(self, specs: Iterable[BotSpec]) -> list[str]:
        """The names of the bots among ``specs`` whose files differ from the stored ones,
        or that the store does not know: a resume must refuse to go on with them."""
        stored = dict(self._conn.execute("SELECT name, content_hash FROM bots"))
        return [spec.name for spec in specs if stored.get(spec.name) != self._hash(spec)]

    def _hash(self, spec: BotSpec) -> str:
        return content_hash(spec, skip=[self.path.parent])

    def bots(self) -> dict[str, BotSpec]:
        """The stored bots by name, in the order they were added."""
        rows = self._conn.execute("SELECT name, spec FROM bots ORDER BY rowid")
        return {name: _decode_bot(spec) for name, spec in rows}

    def bot_hashes(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT name, content_hash FROM bots ORDER BY rowid"))

    # ------------------------------------------------------------------ matches

    def add_matches(self, matches: Iterable[tuple[str, MatchSpec]]) -> None:
        """Register matches to play (status ``pending``), in one transaction: a schedule
        known in advance is then visible to readers (progress, ETA).  A key already
        stored must come with an equal spec."""
        with self._transaction() as conn:
            for key, spec in matches:
                self._register(conn, key, spec)

    def start_match(self, key: str, spec: MatchSpec, *, held: int = 0) -> None:
        """Mark the match ``running`` (registering it if new), in one transaction.

        Refused for a match that is done, one whose stored spec differs, and a running
        one that holds games other than ``held`` of them (a crash left it:
        :meth:`discard_unfinished` first, or go on after them — a resume of bots that
        live for the whole tournament passes how many it keeps).  Starting a running
        match with no games is allowed (the runner and the sink may both start it).
        """
        with self._transaction() as conn:
            match_id, status = self._register(conn, key, spec)
            if status == "done":
                raise StoreError(f"match {key} is already done")
            if status == "running":
                (count,) = conn.execute(
                    "SELECT count(*) FROM games WHERE match_id = ?", (match_id,)
                ).fetchone()
                if count != held:
                    raise StoreError(
                        f"match {key} holds {count} games of an unfinished run: discard them first"
                    )
                if held:
                    conn.execute("UPDATE matches SET attempts = attempts + 1 WHERE id = ?", (match_id,))
                return
            conn.execute(
                "UPDATE matches SET status = 'running', started = ?, attempts = attempts + 1 WHERE id = ?",
                (_now(), match_id),
            )

    def _register(self, conn: sqlite3.Connection, key: str, spec: MatchSpec) -> tuple[int, str]:
        text = _canonical(spec)
        row = conn.execute("SELECT id, status, spec FROM matches WHERE key = ?", (key,)).fetchone()
        if row is None:
            cursor = conn.execute(
                "INSERT INTO matches (key, spec, status) VALUES (?, ?, 'pending')", (key, text)
            )
            match_id = cursor.lastrowid
            assert match_id is not None
            return match_id, "pending"
        match_id, status, stored = row
        if stored != text and _difference(msgspec.json.decode(stored), msgspec.json.decode(text)):
            # Not merely a setting added since (null here, absent there): the schedule changed.
            raise StoreError(f"match {key} is stored with a different spec: the schedule changed")
        return match_id, status

    def _running_id(self, conn: sqlite3.Connection, key: str) -> int:
        row = conn.execute("SELECT id, status FROM matches WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise StoreError(f"no match {key} (start_match first)")
        if row[1] != "running":
            raise StoreError(f"match {key} is {row[1]}, not running")
        return row[0]

    def add_games(self, key: str, records: Sequence[GameRecord]) -> None:
        """Insert a batch of games of the running match ``key``, in one transaction: all
        of them, or none (a game already stored fails the whole batch)."""
        if not records:
            return
        with self._transaction() as conn:
            match_id = self._running_id(conn, key)
            try:
                conn.executemany(_INSERT_GAME, [game_row(match_id, record) for record in records])
            except sqlite3.IntegrityError:
                raise StoreError(f"match {key}: a game of this batch is already stored") from None

    def finish_match(self, key: str, record: MatchRecord, records: Sequence[GameRecord] = ()) -> None:
        """End the match ``key``: insert its last games ``records``, its per-bot figures
        and its final ``record``, and mark it ``done`` — in one transaction.

        Refused unless the match then holds exactly the games ``0 …
        record.games_played − 1``.  ``record`` need not be complete: a runner may accept
        a stopped match as final (a bot that cannot start), which is then not replayed.
        """
        with self._transaction() as conn:
            match_id = self._running_id(conn, key)
            try:
                conn.executemany(_INSERT_GAME, [game_row(match_id, game) for game in records])
            except sqlite3.IntegrityError:
                raise StoreError(f"match {key}: a game of the last batch is already stored") from None
            count, last = conn.execute(
                "SELECT count(*), max(game) FROM games WHERE match_id = ?", (match_id,)
            ).fetchone()
            if count != record.games_played or (count and last != count - 1):
                raise StoreError(
                    f"match {key}: the store holds {count} games, the record says {record.games_played} were played"
                )
            conn.executemany(
                _INSERT_FIGURES,
                [
                    (
                        match_id,
                        p.name,
                        p.games,
                        p.wins,
                        p.losses,
                        p.draws,
                        p.mean_score,
                        p.mean_rank,
                        p.cpu_seconds,
                        p.peak_rss_bytes,
                        p.decisions,
                        p.mean_decision_us,
                        p.max_decision_us,
                        p.first_answer_ms,
                        p.restarts,
                        _canonical(p.forfeits),
                    )
                    for p in record.players
                ],
            )
            conn.execute(
                "UPDATE matches SET status = 'done', record = ?, finished = ? WHERE id = ?",
                (_encode(record).decode(), _now(), match_id),
            )

    def discard_unfinished(self, key: str | None = None) -> int:
        """Delete the games of the unfinished (``running``) match ``key`` — or of every
        unfinished match — and make it ``pending`` again, in one transaction: it is to be
        replayed from its start.  Returns the number of games deleted."""
        with self._transaction() as conn:
            if key is None:
                ids = [row[0] for row in conn.execute("SELECT id FROM matches WHERE status = 'running'")]
            else:
                row = conn.execute("SELECT id, status FROM matches WHERE key = ?", (key,)).fetchone()
                if row is None:
                    raise StoreError(f"no match {key}")
                if row[1] == "done":
                    raise StoreError(f"match {key} is done: its games are not discarded")
                ids = [row[0]]
            deleted = 0
            for match_id in ids:
                deleted += conn.execute("DELETE FROM games WHERE match_id = ?", (match_id,)).rowcount
                conn.execute("DELETE FROM figures WHERE match_id = ?", (match_id,))
                conn.execute(
                    "DELETE FROM events WHERE kind = 'restart' AND match_key = "
                    "(SELECT key FROM matches WHERE id = ?)",
                    (match_id,),
                )
                conn.execute("UPDATE matches SET status = 'pending', record = NULL WHERE id = ?", (match_id,))
            return deleted

    def reopen(self, keys: Iterable[str]) -> int:
        """Make the done matches ``keys`` ``pending`` again, their games, figures and
        events deleted, in one transaction: they are to be played again from their start
        (``--rerun-close``).  Returns the number of games deleted."""
        deleted = 0
        with self._transaction() as conn:
            for key in keys:
                row = conn.execute("SELECT id FROM matches WHERE key = ?", (key,)).fetchone()
                if row is None:
                    raise StoreError(f"no match {key}")
                deleted += conn.execute("DELETE FROM games WHERE match_id = ?", (row[0],)).rowcount
                conn.execute("DELETE FROM figures WHERE match_id = ?", (row[0],))
                conn.execute("DELETE FROM events WHERE match_key = ?", (key,))
                conn.execute(
                    "UPDATE matches SET status = 'pending', record = NULL, finished = NULL WHERE id = ?",
                    (row[0],),
                )
        return deleted

    def add_event(
        self, kind: str, detail: str, *, bot: str | None = None, match_key: str | None = None
    ) -> None:
        """Record an event (one transaction)."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO events (at, kind, bot, match_key, detail) VALUES (?, ?, ?, ?, ?)",
                (_now(), kind, bot, match_key, detail),
            )

    def discard_all(self) -> int:
        """Delete every game and figure and make every match ``pending``, in one
        transaction: the whole tournament is to be replayed (its bots, which lived for
        the whole tournament, lost their memory in a crash).  Returns the games deleted."""
        with self._transaction() as conn:
            deleted = conn.execute("DELETE FROM games").rowcount
            conn.execute("DELETE FROM figures")
            # Of the play discarded.
            conn.execute("DELETE FROM events WHERE kind IN ('restart', 'near-limit')")
            conn.execute("UPDATE matches SET status = 'pending', record = NULL, finished = NULL")
            return deleted

    # ------------------------------------------------------------------ readers

    def events(self, kind: str | None = None) -> list[tuple[str, str, str | None, str | None, str]]:
        """``(at, kind, bot, match_key, detail)`` of every event (of one kind), in order."""
        if kind is None:
            rows = self._conn.execute("SELECT at, kind, bot, match_key, detail FROM events ORDER BY id")
        else:
            rows = self._conn.execute(
                "SELECT at, kind, bot, match_key, detail FROM events WHERE kind = ? ORDER BY id", (kind,)
            )
        return list(rows)

    def match_keys(self, status: str | None = None) -> list[str]:
        """Match keys in the order they were added, of one status if given."""
        if status is None:
            return [row[0] for row in self._conn.execute("SELECT key FROM matches ORDER BY id")]
        if status not in _STATUSES:
            raise ValueError(f"status must be one of {', '.join(_STATUSES)}")
        rows = self._conn.execute("SELECT key FROM matches WHERE status = ? ORDER BY id", (status,))
        return [row[0] for row in rows]

    def done_keys(self) -> list[str]:
        return self.match_keys("done")

    def unfinished_keys(self) -> list[str]:
        """Matches started and not done: cut short by a crash or an interrupt."""
        return self.match_keys("running")

    def pending_keys(self) -> list[str]:
        return self.match_keys("pending")

    def status(self, key: str) -> str | None:
        """``pending``, ``running``, ``done``, or ``None`` for a key not stored."""
        row = self._conn.execute("SELECT status FROM matches WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def spec(self, key: str) -> MatchSpec:
        row = self._conn.execute("SELECT spec FROM matches WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return _decode_spec(row[0])

    def game_count(self, key: str | None = None) -> int:
        """Games stored, of one match or of all."""
        if key is None:
            return self._conn.execute("SELECT count(*) FROM games").fetchone()[0]
        query = "SELECT count(*) FROM games JOIN matches ON matches.id = match_id WHERE key = ?"
        return self._conn.execute(query, (key,)).fetchone()[0]

    def unfinished_games(self) -> dict[str, int]:
        """Games stored of each unfinished (``running``) match, by key."""
        rows = self._conn.execute(
            "SELECT key, (SELECT count(*) FROM games WHERE match_id = matches.id) FROM matches "
            "WHERE status = 'running' ORDER BY id"
        )
        return dict(rows)

    def registered_games(self) -> int:
        """Games the registered matches ask for (the schedule known so far)."""
        row = self._conn.execute(
            "SELECT coalesce(sum(json_extract(spec, '$.config.games')), 0) FROM matches"
        ).fetchone()
        return int(row[0])

    def games(self, key: str) -> list[GameRecord]:
        """The stored games of one match, in order (without transcripts or summaries)."""
        query = f"SELECT {_GAME_COLUMNS} FROM games WHERE match_id = (SELECT id FROM matches WHERE key = ?) ORDER BY game"
        return [_game_record(row) for row in self._conn.execute(query, (key,))]

    def iter_games(self, status: str | None = "done") -> Iterator[tuple[str, GameRecord]]:
        """``(match key, game)`` for every stored game of the matches of ``status``
        (default: done ones; ``None``: all), match by match, read lazily."""
        where = "" if status is None else "WHERE matches.status = ?"
        query = (
            f"SELECT key, {_GAME_COLUMNS} FROM games JOIN matches ON matches.id = match_id {where} "
            "ORDER BY match_id, game"
        )
        for row in self._conn.execute(query, () if status is None else (status,)):
            yield row[0], _game_record(row[1:])

    def match_record(self, key: str) -> MatchRecord | None:
        """The final record of match ``key`` if it is done."""
        row = self._conn.execute(
            "SELECT record FROM matches WHERE key = ? AND status = 'done'", (key,)
        ).fetchone()
        return None if row is None else _decode_match(row[0])

    def match_records(self) -> dict[str, MatchRecord]:
        """The final record of every done match, by key, in the order matches were added."""
        rows = self._conn.execute("SELECT key, record FROM matches WHERE status = 'done' ORDER BY id")
        return {key: _decode_match(record) for key, record in rows}


def _connect(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA user_version").fetchone()  # reads the header: "file is not a database" here
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: {exc}") from None
    return conn


def _lock(directory: Path) -> int:
    """Take the writer's lock of ``directory`` (one writer: module docstring)."""
    path = directory / LOCKNAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise StoreError(f"{directory}: another referee (pid {holder}) is writing this tournament") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _holder(fd: int) -> str:
    """The pid the lock's holder wrote in the lock file."""
    return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"


def writer(directory: str | os.PathLike[str]) -> str | None:
    """The pid of the referee writing the tournament in ``directory`` now, or None when
    none is (the lock is free, or there is none)."""
    try:
        fd = os.open(Path(directory) / LOCKNAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    finally:
        os.close(fd)
    return None


def _difference(stored: Any, given: Any, where: str = "") -> str | None:
    """Where two decoded configurations first differ, for a one-line message."""
    if isinstance(stored, dict) and isinstance(given, dict):
        for name in sorted(stored.keys() | given.keys()):
            path = f"{where}.{name}" if where else name
            if stored.get(name) is None and given.get(name) is None:
                continue  # a setting added since the store was made, left unset
            if name not in given:
                return f"{path}: stored, not given"
            if name not in stored:
                return f"{path}: given, not stored"
            found = _difference(stored[name], given[name], path)
            if found:
                return found
        return None
    if stored != given:
        shown = [_short(v) for v in (given, stored)]
        return f"{where or 'the configuration'}: {shown[0]} given, {shown[1]} stored"
    return None


def _short(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 40 else text[:37] + "..."
