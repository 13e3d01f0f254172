"""``grading.toml``: everything a grading run is told, with the defaults a TA gets.

Every key is optional; a missing file is all defaults.  Unknown keys and wrong types
are refused in one line (``GradingConfigError``), so a typo never grades silently with
a default.  The full example of each seed game is in docs/grading.md; the shape::

    game = "yahtzee"           # or --game
    seed = 2026                # default: random, recorded in manifest.json
    concurrency = 2            # jobs at once (builds, checks, qualifications, matches)
    sandbox = "auto"           # as --sandbox; grading refuses one weaker than the best here
    roster = "roster.csv"      # the class list: who should have handed in (first column: id)

    [unpack]                   # per submission: entries and uncompressed MiB
    max_files = 10000
    max_mib = 200

    [build]                    # per build
    wall_s = 300
    cpu_s = 300
    memory_mib = 2048
    disk_mib = 512
    processes = 256

    [check]
    enabled = true
    games = 10                 # random games besides the set-up positions
    wall_s = 900               # the whole check; a slower bot is "check-too-slow"

    [qualify]                  # the Yahtzee seed's gate: beat a random legal player
    enabled = true
    opponent = "random"        # "random": the game's random legal player; or a bot
    games = 200
    rule = "significant"       # or "more-wins"
    confidence = 0.95
    wall_s = 3600              # the whole match; a slower bot is "qualify-too-slow"

    [compete]                  # a `referee tournament` over the qualified bots
    format = "round-robin"
    games = 100
    house = []                 # house bots that play too (a gauntlet's fixed field)
    # rounds, duplicate, table_size, tables, seeding, seeding_games, recover, [options]

    [limits]                   # play limits for check, qualify and compete
    decision_s = 1.0           # any field of referee.core.limits.Limits

    [points]                   # the grading scheme
    build = 10
    check = 10
    check_partial = false      # points in proportion to the checklist items passed
    qualify = 20
    compete = 60
    compete_by = "rank"        # "rank", "rating" or "score-rate"
    compete_floor = 0.5        # share of `compete` the last qualified student gets
    benefit_of_doubt = false   # rank points for the best rank of each 95 % rank range
    cap = 100                  # the most a total can be (none: the sum)
    [points.visibility]        # per item: visible, hidden, after_due_date, after_published
    compete = "after_published"

    [feedback]                 # what students see (referee.grade.model.Feedback)
    build_log = true
    standings = false

Bot paths (``opponent``, ``house``) are relative to the file's folder, as in a
tournament configuration; ``opponent = "random"`` and a house entry ``"sample:NAME"``
name the sample players shipped for the game (``sample:greedy_player``).
"""

from __future__ import annotations

import math
import shlex
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import msgspec

from referee.core.limits import LimitsOverride
from referee.core.toml_errors import explain
from referee.games import get as get_game
from referee.games.base import SAMPLE_PLAYERS
from referee.grade.build import BuildLimits
from referee.grade.model import Feedback
from referee.grade.unpack import MiB, UnpackLimits

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
#: The grading scheme's items, in the order of the gradebook's columns.
POINT_ITEMS = ("build", "check", "qualify", "compete")


class GradingConfigError(ValueError):
    """The configuration cannot grade; the message says why in one line."""


class _Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    pass


class UnpackSection(_Strict, frozen=True):
    max_files: int = 10_000
    max_mib: int = 200

    def limits(self) -> UnpackLimits:
        return UnpackLimits(
            max_files=self.max_files, max_bytes=self.max_mib * MiB, max_file_bytes=self.max_mib * MiB
        )


class BuildSection(_Strict, frozen=True):
    wall_s: float = 300.0
    cpu_s: float = 300.0
    memory_mib: int = 2048
    disk_mib: int = 512
    processes: int = 256

    def limits(self) -> BuildLimits:
        return BuildLimits(**msgspec.structs.asdict(self))


class CheckSection(_Strict, frozen=True):
    enabled: bool = True
    games: int = 10
    #: Wall seconds for the whole check: a bot slower than that is "check-too-slow".
    wall_s: float = 900.0


class QualifySection(_Strict, frozen=True):
    enabled: bool = True
    opponent: str = "random"
    games: int = 200
    rule: Literal["significant", "more-wins"] = "significant"
    confidence: float = 0.95
    #: Wall seconds for the whole match: a bot slower than that is "qualify-too-slow".
    wall_s: float = 3600.0


class CompeteSection(_Strict, frozen=True):
    enabled: bool = True
    format: str = "round-robin"
    games: int = 100
    house: list[str] = []
    rounds: int | None = None
    duplicate: bool = False
    table_size: int | None = None
    tables: int | None = None
    seeding: str | None = None
    seeding_games: int | None = None
    recover: bool = False
    options: dict[str, Any] = {}


class PointsSection(_Strict, frozen=True):
    build: float = 10.0
    check: float = 10.0
    check_partial: bool = False
    qualify: float = 20.0
    compete: float = 60.0
    compete_by: Literal["rank", "rating", "score-rate"] = "rank"
    compete_floor: float = 0.5
    #: Rank points for the best rank in each student's 95 % rank range (scheme.py).
    benefit_of_doubt: bool = False
    cap: float | None = None
    visibility: dict[str, str] = {}

    def __post_init__(self) -> None:
        for item, value in self.visibility.items():
            if item not in POINT_ITEMS:
                raise ValueError(f"[points.visibility]: no item {item!r} (items: {', '.join(POINT_ITEMS)})")
            if value not in VISIBILITIES:
                raise ValueError(
                    f"[points.visibility] {item}: {value!r} is not one of {', '.join(VISIBILITIES)}"
                )


#: The range every numeric key needs, checked at load (issue 27: ``confidence = 0.5``
#: loaded, then ended the run mid-way in ``t_value(0)``): key → (test, what it must be).
#: Keys of ``[limits]`` are checked apart (every one above 0; inf for none).
_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "seed": (lambda v: 0 <= v < 1 << 64, "a whole number from 0 to 2**64-1, as --seed"),
    "concurrency": (lambda v: v >= 1, "at least 1"),
    "unpack.max_files": (lambda v: v >= 1, "at least 1"),
    "unpack.max_mib": (lambda v: v >= 1, "at least 1"),
    "build.wall_s": (lambda v: 0 < v < math.inf, "a number of seconds above 0"),
    "build.cpu_s": (lambda v: 0 < v < math.inf, "a number of seconds above 0"),
    "build.memory_mib": (lambda v: v >= 16, "at least 16"),
    "build.disk_mib": (lambda v: v >= 1, "at least 1"),
    "build.processes": (lambda v: v >= 1, "at least 1"),
    "check.games": (lambda v: v >= 0, "at least 0"),
    "check.wall_s": (lambda v: 0 < v < math.inf, "a number of seconds above 0"),
    "qualify.games": (lambda v: v >= 1, "at least 1"),
    # The one-sided bound at c is an end of the two-sided interval at 2c - 1, which must
    # be a share strictly between 0 and 1.
    "qualify.confidence": (lambda v: 0.5 < v < 1, "above 0.5 and below 1"),
    "qualify.wall_s": (lambda v: 0 < v < math.inf, "a number of seconds above 0"),
    "compete.games": (lambda v: v >= 1, "at least 1"),
    "compete.rounds": (lambda v: v >= 1, "at least 1"),
    "compete.table_size": (lambda v: v >= 2, "at least 2"),
    "compete.tables": (lambda v: v >= 1, "at least 1"),
    "compete.seeding_games": (lambda v: v >= 1, "at least 1"),
    "points.build": (lambda v: 0 <= v < math.inf, "a number of points, 0 or more"),
    "points.check": (lambda v: 0 <= v < math.inf, "a number of points, 0 or more"),
    "points.qualify": (lambda v: 0 <= v < math.inf, "a number of points, 0 or more"),
    "points.compete": (lambda v: 0 <= v < math.inf, "a number of points, 0 or more"),
    "points.compete_floor": (lambda v: 0 <= v <= 1, "from 0 to 1 (a share of compete)"),
    "points.cap": (lambda v: 0 <= v < math.inf, "a number of points, 0 or more"),
}


def _check_numbers(config: GradingConfig) -> None:
    """Every numeric key in the range it needs, or one line naming the key, the value,
    the range and the default (ValueError)."""
    for key, (test, must) in _RANGES.items():
        section, _, name = key.rpartition(".")
        struct: Any = getattr(config, section) if section else config
        value = getattr(struct, name)
        default = next(f.default for f in msgspec.structs.fields(type(struct)) if f.name == name)
        if value is None or isinstance(value, bool):
            continue
        if not test(value):
            hint = f" (the default is {default:g})" if isinstance(default, int | float) else ""
            raise ValueError(f"{key} = {value!r} is out of range: it must be {must}{hint}")
    if config.limits is not None:
        for name in config.limits.__struct_fields__:
            value = getattr(config.limits, name)
            if value is not None and not value > 0:  # nan too; inf is "no limit", as on the command line
                raise ValueError(
                    f"limits.{name} = {value!r} is out of range: it must be a number above 0 (or inf)"
                )


class GradingConfig(_Strict, frozen=True):
    game: str | None = None
    seed: int | None = None
    concurrency: int | None = None
    sandbox: str | None = None
    #: The class list: a file of student ids, one per line (or a CSV whose first column
    #: is the id), relative to this file.  Students on it with no submission are graded
    #: "missing"; submissions of ids not on it are graded and noted.
    roster: str | None = None
    unpack: UnpackSection = UnpackSection()
    build: BuildSection = BuildSection()
    check: CheckSection = CheckSection()
    qualify: QualifySection = QualifySection()
    compete: CompeteSection = CompeteSection()
    limits: LimitsOverride | None = None
    points: PointsSection = PointsSection()
    feedback: Feedback = Feedback()

    def __post_init__(self) -> None:
        _check_numbers(self)
        if self.feedback.visibility not in VISIBILITIES:
            raise ValueError(f"[feedback] visibility must be one of {', '.join(VISIBILITIES)}")


def load(path: Path | None) -> tuple[GradingConfig, Path]:
    """The configuration in ``path`` (defaults when None) and the folder its paths are
    relative to (the file's, or the current one)."""
    if path is None:
        return GradingConfig(), Path.cwd()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GradingConfigError(f"--config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise GradingConfigError(f"--config {path}: not valid TOML: {exc}") from None
    return parse(data, str(path)), path.resolve().parent


def parse(data: dict[str, Any], where: str = "grading.toml") -> GradingConfig:
    try:
        return msgspec.convert(data, GradingConfig)
    except (msgspec.ValidationError, ValueError) as exc:
        raise GradingConfigError(f"{where}: {explain(exc, GradingConfig)}") from None


def read_roster(path: Path) -> list[str]:
    """The ids of a class list: the first column of each line (CSV, or one id a line);
    blank lines, ``#`` comments and a header line ``id``/``student``/``login`` skipped."""
    import csv

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise GradingConfigError(f"roster {path}: {getattr(exc, 'strerror', None) or exc}") from None
    ids: list[str] = []
    for row in csv.reader(text.splitlines()):
        if not row or not row[0].strip() or row[0].lstrip().startswith("#"):
            continue
        word = row[0].strip()
        if not ids and word.lower() in ("id", "student", "student id", "login", "username"):
            continue
        ids.append(word)
    return ids


def as_dict(config: GradingConfig) -> dict[str, Any]:
    """The configuration as plain data, defaults filled: what manifest.json records."""
    return msgspec.to_builtins(config)


def bot_command(word: str, game: str, base: Path) -> str:
    """A configured bot (``random``, ``sample:NAME``, a path or a command) as the command
    line `referee match` takes; paths are made absolute from ``base``."""
    if word == "random":
        # The game's own random legal player (Game.random_player), from the shipped samples.
        player = get_game(game).random_player
        if player is None:
            raise GradingConfigError(f"{game} names no random player (Game.random_player)")
        word = f"sample:{player}"
    if word.startswith("sample:"):
        name = word.removeprefix("sample:")
        folder = SAMPLE_PLAYERS / game.replace("-", "_")
        candidates = [folder / "bin" / name, folder / name, folder / f"{name}.py", SAMPLE_PLAYERS / name]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise GradingConfigError(f"no sample player {name!r} for {game} (in {folder})")
        if found.suffix == ".py":
            return shlex.join([sys.executable, str(found)])
        return shlex.join([str(found)])
    path = base / word
    if path.exists():
        return str(path.resolve())
    words = shlex.split(word)
    resolved = [str((base / w).resolve()) if ("/" in w and (base / w).exists()) else w for w in words]
    return shlex.join(resolved)
