"""Setting a tournament up: its configuration from a file's keys and the flags given
over them — the bots found and named apart, built when asked, the configuration checked
as the plan would read it — or, on resume, from its store.  `referee tournament` parses
its flags into these values; grading passes its ``[compete]`` section's directly."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from referee import games
from referee.core.botspec import BotSpec, unique_names
from referee.core.seeding import fresh_seed
from referee.games import Lifetime
from referee.match import GIVE_UP_AFTER
from referee.seats.process import sandbox
from referee.stats.sprt import SprtSpec, parse_sprt
from referee.tournament.config import (
    ConfigError,
    RunSettings,
    TournamentConfig,
    check_file_keys,
    limits_from_table,
    load_toml,
)
from referee.tournament.field import Entry, expand
from referee.tournament.plan import Plan
from referee.tournament.store import Store

#: Builds a bot with a build command: the built spec, or the problem that stops it.
Builder = Callable[[BotSpec], tuple[BotSpec, "str | None"]]


class Prepared(msgspec.Struct):
    config: TournamentConfig
    specs: dict[str, BotSpec]
    settings: RunSettings
    resumed: bool = False
    #: Single-file entries of folders, to be copied into DIR/bots/ once DIR is known good.
    isolate: list[Entry] = []
    #: On resume: what is kept, what is played again, the time it should take (one line).
    outlook: str | None = None


def _sprt(text: str | None) -> SprtSpec | None:
    if text is None:
        return None
    try:
        return parse_sprt(text)
    except ValueError as exc:
        raise ConfigError(f"--sprt: {exc}") from None


def file_values(path: str) -> tuple[dict[str, Any], Path]:
    """A configuration file's values (its keys checked, ``[limits]`` made a
    LimitsOverride, ``out`` made absolute) and its directory, to which its bot names are
    relative.  ConfigError says what is wrong."""
    values, base = load_toml(path)
    check_file_keys(values, path)
    if "limits" in values:
        values["limits"] = limits_from_table(values["limits"], path)
    if "out" in values and not Path(values["out"]).is_absolute():
        values["out"] = os.path.normpath(base / values["out"])
    return values, base


def prepare(
    values: dict[str, Any],
    *,
    say: Callable[[str], None],
    build: Builder | None = None,
    ship_bots: bool = False,
) -> Prepared:
    """Everything before the first match, from a configuration's values (a file's keys
    with the flags given over them, ``-`` made ``_``; ``_bots_base`` and ``_qualify_base``
    the directories bot names are relative to; ``options`` the game's options).
    ``build`` builds a bot that has a build command (when ``build`` is set in the values),
    ``say`` tells the user one line.  ConfigError/BotSpecError say what is wrong."""
    game_name = values.get("game", "yahtzee")
    if game_name not in games.available():
        raise ConfigError(f"no game {game_name!r} (games: {', '.join(games.available())})")
    game = games.get(game_name)
    out = values.get("out")
    if not out:
        raise ConfigError("--out DIR is needed: where the results go (or --resume DIR)")
    bots = values.get("bots") or []
    if not bots:
        raise ConfigError("name the bots (or folders of bots) to play")
    entries = expand([str(b) for b in bots], values["_bots_base"])
    candidates: list[str] = []
    for name in values.get("candidates") or []:
        for part in str(name).split(","):
            part = part.strip()
            if not part:
                continue
            if any(e.spec.name == part for e in entries):
                candidates.append(part)
            else:
                added = expand([part], values["_bots_base"])
                entries += added
                candidates += [e.spec.name for e in added]
    qualifier: Entry | None = None
    if values.get("qualify"):
        qualifier = expand([values["qualify"]], values["_qualify_base"])[0]
        taken = {e.spec.name for e in entries}
        if qualifier.spec.name in taken:
            qualifier.spec = msgspec.structs.replace(qualifier.spec, name=f"{qualifier.spec.name}-qualifier")
    for entry, spec in zip(entries, unique_names(e.spec for e in entries), strict=True):
        if spec.name != entry.spec.name:
            say(f"two bots are named {entry.spec.name}: {' '.join(spec.argv)} plays as {spec.name}")
        entry.spec = spec
    everyone = entries + ([qualifier] if qualifier else [])
    if values.get("build") and build is not None:
        for entry in everyone:
            if entry.spec.build and entry.problem is None:
                entry.spec, entry.problem = build(entry.spec)
    else:
        for entry in everyone:
            if entry.spec.build:
                say(
                    f"not running bot {entry.spec.name}'s build command ({entry.spec.build}): a build runs "
                    "outside the sandbox; pass --build to run it (only for bots you trust)"
                )
    if (values.get("replay_overloaded") or 0) < 0:
        raise ConfigError("--replay-overloaded must be 0 or more")
    seed = values.get("seed")
    if seed is None:
        seed = fresh_seed()
    config = TournamentConfig(
        game=game_name,
        format=values.get("format", "round-robin"),
        field=[e.spec.name for e in entries],
        games=game.default_games if values.get("games") is None else values["games"],
        seed=seed,
        rounds=values.get("rounds"),
        duplicate=bool(values.get("duplicate", False)),
        options={k: v for k, v in values["options"].items() if k in game.option_specs},
        candidates=candidates,
        table_size=values.get("table_size"),
        tables=values.get("tables"),
        qualifier=qualifier.spec.name if qualifier else None,
        qualify_games=values.get("qualify_games"),
        seeding=values.get("seeding", "given"),
        seeding_games=values.get("seeding_games"),
        limits=values.get("limits"),
        sandbox=values.get("sandbox", "auto"),
        allow_root_bots=bool(values.get("allow_root_bots", False)),
        recover=bool(values.get("recover", False)),
        give_up_after=values.get("give_up_after", GIVE_UP_AFTER),
        replay_overloaded=values.get("replay_overloaded") or 0,
        unstartable={e.spec.name: e.problem for e in everyone if e.problem is not None},
        sprt=_sprt(values.get("sprt")),
    )
    try:
        game(**config.options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(str(exc)) from None
    Plan(config, game)  # checks the configuration
    try:
        sandbox.choose(config.sandbox)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    settings = RunSettings(
        out=str(out),
        concurrency=values.get("concurrency"),
        quiet=bool(values.get("quiet", False)),
        # The live page links each done match's replay: it needs the games' records.
        game_logs=bool(values.get("game_logs", False)) or values.get("live") is not None,
        live=values.get("live"),
        cluster=values.get("cluster"),
        ship_bots=ship_bots,
    )
    if settings.ship_bots and game.lifetime is Lifetime.TOURNAMENT:
        raise ConfigError(
            f"--ship-bots: {game.name}'s bots live for the whole tournament on one worker, which runs "
            "them from their paths"
        )
    return Prepared(
        config,
        {e.spec.name: e.spec for e in everyone},
        settings,
        isolate=[e for e in everyone if e.single_file is not None],
    )


def resumed(out: str, settings: RunSettings) -> Prepared:
    """Resume: the configuration and bots stored in ``out``; ConfigError/StoreError."""
    store = Store.read(out)
    try:
        config = msgspec.convert(store.config, TournamentConfig)
        specs = store.bots()
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{out}: the stored configuration is not this referee's: {exc}") from None
    finally:
        store.close()
    return Prepared(config, specs, settings, resumed=True)
