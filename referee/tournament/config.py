"""A tournament's configuration: what decides its results, and how it is run.

:class:`TournamentConfig` is everything that decides a tournament's results — the game,
the field, the format and its parameters, the seed, the limits.  It is stored in the
results store when the tournament is created and compared with what a later run is
given, so a resume plays the same tournament.  :class:`RunSettings` is how this run
goes about it (output directory, concurrency, display) and may change between runs.

Both can come from a TOML file (``referee tournament --config FILE``) whose keys are the
command line's long flags, with ``-`` or ``_`` alike; flags given on the command line
override the file::

    game = "yahtzee"
    format = "double-elimination"
    bots = ["submissions/"]            # bots, or folders of bots; relative to this file
    games = 1000
    seed = 2024
    qualify = "python3 ../sample_players/yahtzee/random_player.py"
    out = "results/"
    [limits]                           # any field of referee.core.limits.Limits
    cpu_s = 600
    [options]                          # game options, e.g. cards = 13 for Bidding Wars
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import msgspec

from referee.core.limits import LimitsOverride
from referee.match.spec import GIVE_UP_AFTER
from referee.stats.sprt import SprtSpec

#: How double elimination and Swiss seed the field: in the order given, or by a
#: seeding round robin played first.
SEEDINGS = ("given", "round-robin")


class ConfigError(ValueError):
    """The configuration cannot make a tournament; the message says why in one line."""


class TournamentConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What decides a tournament's results (stored; a resume must be given an equal one)."""

    game: str
    #: A name of :data:`referee.tournament.formats.FORMATS`.
    format: str
    #: The entrants by name, in seeding order.  A bot's id (dice poker's ``op``, Liar's
    #: Dice's player ids) is its position in ``field`` (the qualifier comes after them).
    field: list[str]
    #: Games per match: per pairing or table, per round.
    games: int
    seed: int
    #: Repetitions of the schedule (round robin, gauntlet), Swiss rounds, or tables per
    #: bot and seat (``tables``); ``None``: the format's default (:func:`rounds_of`).
    rounds: int | None = None
    duplicate: bool = False
    #: Game options (``Game.option_specs``).
    options: dict[str, Any] = {}
    #: The gauntlet's candidates (names in ``field``).
    candidates: list[str] = []
    #: Seats per table (``tables``, and a round robin of a game of more than two seats);
    #: ``None``: the seed's table size.
    table_size: int | None = None
    #: The number of tables (``tables``); ``None``: ``len(field) × rounds``, so that every
    #: bot plays every seat position ``rounds`` times on average.
    tables: int | None = None
    #: The bot every entrant must beat to enter (``--qualify``), by name.
    qualifier: str | None = None
    qualify_games: int | None = None
    #: ``given`` or ``round-robin`` (double elimination and Swiss).
    seeding: str = "given"
    seeding_games: int | None = None
    limits: LimitsOverride | None = None
    sandbox: str = "auto"
    allow_root_bots: bool = False
    #: Restart a crashed bot for its next game (``--recover``).
    recover: bool = False
    give_up_after: int = GIVE_UP_AFTER
    #: Replay a game, at most this many times, when a forfeit in it was the machine's
    #: fault, not the bot's (``--replay-overloaded``, issue 28; docs/tournaments.md).
    replay_overloaded: int = 0
    #: Bots that can never start (their build failed, they could not be named), with why.
    unstartable: dict[str, str] = {}
    #: Stop each main-stage match as soon as this sequential test decides (``--sprt``;
    #: gauntlet and round robin of two-seat games): ``games`` is then the most played.
    sprt: SprtSpec | None = None

    @property
    def everyone(self) -> list[str]:
        """Every bot of the tournament, the qualifier last: ids are positions here."""
        return self.field + ([self.qualifier] if self.qualifier else [])

    def ids(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.everyone)}


class RunSettings(msgspec.Struct, kw_only=True):
    """How this run goes about the tournament (not stored)."""

    out: str
    #: Matches at once; ``None``: ``runner.default_concurrency`` (the usable cores, or 1
    #: for bots that live for the whole tournament).
    concurrency: int | None = None
    quiet: bool = False
    #: Write every game with its transcript to ``DIR/logs/KEY.jsonl``.
    game_logs: bool = False
    #: On resume of a tournament whose bots live for the whole tournament, discard every
    #: stored game and play it all again (by default every stored game is kept and the
    #: bots restart without their memory: referee.tournament.resume).
    replay_all: bool = False
    #: Serve the live page on this port of 127.0.0.1 (``--live``; 0: any free port).
    live: int | None = None
    #: Play the matches on a Dask cluster (``--cluster``): ``tcp://HOST:PORT`` or ``local[:N]``.
    cluster: str | None = None
    #: With ``--cluster``: send every worker each bot's files (checked by hash) instead
    #: of relying on the same paths everywhere.
    ship_bots: bool = False
    #: With ``--resume``: play again the matches flagged close to the time limit.
    rerun_close: bool = False

    def __post_init__(self) -> None:
        if self.concurrency is not None and self.concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")


def rounds_of(config: TournamentConfig, entrants: int) -> int:
    """The rounds in force: as given, else 1, or for Swiss ⌈log2 entrants⌉ (at least 1)."""
    if config.rounds is not None:
        return config.rounds
    if config.format == "swiss":
        return max(1, math.ceil(math.log2(max(2, entrants))))
    return 1


def load_toml(path: str | Path) -> tuple[dict[str, Any], Path]:
    """The keys of a configuration file (``-`` in keys made ``_``) and its directory, to
    which the bot paths and ``out`` in it are relative.  ConfigError when unreadable."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"--config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--config {path}: not valid TOML: {exc}") from None
    return {key.replace("-", "_"): value for key, value in data.items()}, path.resolve().parent


#: The keys a configuration file may hold, with the type each must have.
FILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "format": str,
    "bots": list,
    "games": int,
    "seed": int,
    "rounds": int,
    "duplicate": bool,
    "candidates": list,
    "table_size": int,
    "tables": int,
    "qualify": str,
    "qualify_games": int,
    "seeding": str,
    "seeding_games": int,
    "concurrency": int,
    "out": str,
    "limits": dict,
    "options": dict,
    "sandbox": str,
    "allow_root_bots": bool,
    "recover": bool,
    "give_up_after": int,
    "replay_overloaded": int,
    "build": bool,
    "quiet": bool,
    "game_logs": bool,
    "sprt": str,
    "live": int,
}


_TYPE_NAMES: dict[Any, str] = {
    str: "a string",
    int: "a whole number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


def check_file_keys(values: dict[str, Any], path: str) -> None:
    """Refuse unknown keys and wrong types in a configuration file, in one line."""
    for key, value in values.items():
        wanted = FILE_KEYS.get(key)
        if wanted is None:
            known = ", ".join(sorted(FILE_KEYS))
            raise ConfigError(f"--config {path}: unknown key {key!r} (keys: {known})")
        if (isinstance(value, bool) and wanted is int) or not isinstance(value, wanted):
            name = _TYPE_NAMES.get(wanted, getattr(wanted, "__name__", str(wanted)))
            raise ConfigError(f"--config {path}: {key} must be {name}, got {value!r}")


def limits_from_table(table: dict[str, Any], path: str) -> LimitsOverride:
    """A ``[limits]`` table (fields of :class:`~referee.core.limits.Limits`)."""
    try:
        return msgspec.convert(table, LimitsOverride)
    except msgspec.ValidationError as exc:
        fields = ", ".join(LimitsOverride.__struct_fields__)
        raise ConfigError(f"--config {path}: [limits]: {exc} (fields: {fields})") from None
