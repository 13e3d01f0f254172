"""``arena.toml``: what an arena is (docs/arena.md, "Configuration").

Every key has a default; ``referee arena init`` copies the file given with ``--config``
into the arena's folder, so the folder is the whole arena.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any, Literal

import msgspec

from referee.core.limits import LimitsOverride
from referee.core.toml_errors import explain
from referee.grade.config import BuildSection, CheckSection, UnpackSection

CONFIG = "arena.toml"


class ArenaConfigError(ValueError):
    """The configuration cannot run an arena; one line."""


class _Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    pass


class LadderSection(_Strict, frozen=True):
    #: Games (deals) per ladder match.
    games: int = 40
    #: Matches a new bot plays first, against opponents spread over the ladder.
    placement_matches: int = 4
    #: Wall seconds a whole match may take: past it the match is stopped and not rated,
    #: so that no bot can hold the ladder (every answer is bounded by [limits] too).
    match_wall_s: float = 300.0
    #: A bot whose matches were stopped at ``match_wall_s`` this many times is benched:
    #: off the ladder until its author submits again (or the TA unbenches it).  Each stop
    #: is charged to the bot whose answers took most of the match's time, as a forfeit
    #: (``match-wall``), and lowers its priority in the schedule until then.
    bench_after: int = 3
    #: Bootstrap replicates of the ladder's ratings (their 95 % intervals).
    replicates: int = 200
    #: Seconds between two refreshes of the ratings, at most (they refresh as games arrive).
    refresh_s: float = 2.0
    #: Seats per table for a multi-seat game (None: the game's own).
    table_size: int | None = None
    #: Replays (game logs) and stderr files kept per replaced bot: those of its last
    #: this many matches; older ones are removed, unless a match is among an active
    #: bot's (docs/arena.md, "Disk").
    keep_replays: int = 20


class UploadSection(_Strict, frozen=True):
    #: The largest upload accepted, in MiB.
    max_mib: float = 10.0
    #: Uploads a token may make in an hour.
    per_hour: int = 30
    #: Submissions of one token not yet checked, at most.
    pending: int = 3
    #: Submissions checked at once (unpack, build, check).
    concurrency: int = 2


class ArenaConfig(_Strict, frozen=True):
    game: str | None = None
    seed: int | None = None
    #: ``shown``: students see each other's names on the leaderboard; ``anonymised``: an
    #: alias each (a student always sees their own name; the TA sees every name).
    names: Literal["shown", "anonymised"] = "anonymised"
    #: House bots on the ladder: ``random`` (the game's random player), ``sample:NAME``,
    #: a path or a command (as in grading.toml).
    house: list[str] = msgspec.field(default_factory=lambda: ["random"])
    sandbox: str | None = None
    #: grading.toml for ``referee arena freeze`` (relative to this file); None: defaults.
    grading: str | None = None
    ladder: LadderSection = LadderSection()
    upload: UploadSection = UploadSection()
    unpack: UnpackSection = UnpackSection()
    build: BuildSection = BuildSection(wall_s=120.0, cpu_s=120.0)
    check: CheckSection = CheckSection(games=10, wall_s=300.0)
    limits: LimitsOverride | None = None
    #: Extra host names the server answers to (beyond the one it is bound to).
    hosts: list[str] = []

    def __post_init__(self) -> None:
        checks = [
            ("ladder.games", self.ladder.games >= 1),
            ("ladder.placement_matches", self.ladder.placement_matches >= 0),
            ("ladder.match_wall_s", 0 < self.ladder.match_wall_s < math.inf),
            ("ladder.replicates", self.ladder.replicates >= 2),
            ("ladder.refresh_s", self.ladder.refresh_s > 0),
            ("ladder.bench_after", self.ladder.bench_after >= 1),
            ("ladder.keep_replays", self.ladder.keep_replays >= 0),
            ("upload.max_mib", self.upload.max_mib > 0),
            ("upload.per_hour", self.upload.per_hour >= 1),
            ("upload.pending", self.upload.pending >= 1),
            ("upload.concurrency", self.upload.concurrency >= 1),
            ("check.games", self.check.games >= 0),
        ]
        for key, ok in checks:
            if not ok:
                raise ValueError(f"{key} is out of range")


def parse(data: dict[str, Any], where: str = CONFIG) -> ArenaConfig:
    try:
        return msgspec.convert(data, ArenaConfig)
    except (msgspec.ValidationError, ValueError) as exc:
        raise ArenaConfigError(f"{where}: {explain(exc, ArenaConfig)}") from None


def load(path: Path | None) -> ArenaConfig:
    if path is None or not path.exists():
        return ArenaConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ArenaConfigError(f"{path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ArenaConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse(data, str(path))
