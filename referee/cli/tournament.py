"""``referee tournament``: a whole competition, into a directory, resumable.

    referee tournament BOT… --game G --format FORMAT [--games N] [--seed S] [--concurrency C] --out DIR
    referee tournament --config FILE [flags that override it]
    referee tournament --resume DIR [--concurrency C] [--quiet]

Exit status: 0 the tournament is complete; 2 a usage error (one line); 4 the results
could not be written (the store, a full disk); 1 the tournament could not go on (a
worker of the referee's died: its log is named); 130/143/129 stopped by a signal —
everything played so far is stored, and the line printed says how to resume.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee import games
from referee.cli import arguments
from referee.cli.arguments import EXIT_CANNOT_START, EXIT_CANNOT_WRITE, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from referee.cli.arguments import say as _say
from referee.core import interrupts
from referee.core.botspec import BotSpec, BotSpecError, unique_names
from referee.core.limits import LimitsOverride
from referee.core.verdict import printable
from referee.games import Lifetime
from referee.match import GIVE_UP_AFTER
from referee.seats.process import sandbox
from referee.stats.sprt import SprtSpec, parse_sprt
from referee.tournament import resume, snapshot
from referee.tournament.config import (
    ConfigError,
    RunSettings,
    TournamentConfig,
    check_file_keys,
    limits_from_table,
    load_toml,
)
from referee.tournament.field import Entry, expand, isolate
from referee.tournament.formats import FORMATS, Tables
from referee.tournament.plan import Plan
from referee.tournament.runner import ResultsNotStored, Runner, TournamentError, load_outcomes
from referee.tournament.store import NoTournament, Store, StoreError
from referee.tournament.store import writer as store_writer
from referee.tournament.workers import WorkerLost

EPILOG = """exit status:
  0    the tournament is complete (whatever the verdicts)
  1    it could not go on: a worker process of the referee's died (its log is named)
  2    usage error (bad option, bot, configuration, or a resume that does not match), one line
  3    the tournament is complete, but a bot never started (it answered no request): it is
       listed last, apart, with why and its stderr's tail; a warning on stderr names it
  4    the results could not be written (the store, a full disk)
  130  interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP): everything played so far is stored;
       `referee tournament --resume DIR` finishes it

formats: round-robin, gauntlet, double-elimination, swiss, tables (docs/tournaments.md)"""

#: Flags whose value may come from --config (argparse default None means "not given").
_SETTABLE = (
    "game",
    "format",
    "games",
    "seed",
    "rounds",
    "candidates",
    "table_size",
    "tables",
    "qualify",
    "qualify_games",
    "seeding",
    "seeding_games",
    "sprt",
    "concurrency",
    "out",
    "sandbox",
    "give_up_after",
    "replay_overloaded",
    "live",
    "cluster",
)
_SWITCHES = ("duplicate", "recover", "allow_root_bots", "build", "quiet", "game_logs")


def _sprt(text: str | None) -> SprtSpec | None:
    if text is None:
        return None
    try:
        return parse_sprt(text)
    except ValueError as exc:
        raise ConfigError(f"--sprt: {exc}") from None


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "tournament",
        help="run a tournament (round robin, gauntlet, double elimination, Swiss, tables)",
        description="Run a whole tournament into DIR: a results store that survives a crash "
        "(--resume DIR finishes it), standings, crosstable, per-match summaries. "
        "A BOT is what `referee match` takes, or a folder holding one bot per entry.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bots", nargs="*", metavar="BOT", help="bots, or folders of bots")
    parser.add_argument("--game", choices=list(games.available()), help="which game (default yahtzee)")
    parser.add_argument("--format", choices=list(FORMATS), help="the format (default round-robin)")
    parser.add_argument("--out", metavar="DIR", help="where the store and the results go")
    parser.add_argument("--resume", metavar="DIR", help="finish the tournament stored in DIR")
    parser.add_argument("--config", metavar="FILE", help="take the configuration from a TOML file")
    parser.add_argument("--games", type=int, metavar="N", help="games per match (default: the game's)")
    parser.add_argument(
        "--rounds",
        type=int,
        metavar="K",
        help="repeat the schedule K times (round robin, gauntlet); Swiss rounds (default ⌈log2 n⌉); "
        "tables: tables per bot and seat",
    )
    parser.add_argument(
        "--seed", type=arguments.match_seed, help="tournament seed (default: random, printed)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="C",
        help="matches at once (default: the usable cores; 1 for dice poker and Liar's Dice, "
        "whose bots live for the whole tournament: raise it for bots that think)",
    )
    parser.add_argument(
        "--candidates",
        action="append",
        metavar="BOT",
        help="gauntlet: a bot (a name in the field, or a bot to add) that plays everyone else; repeatable",
    )
    parser.add_argument(
        "--table-size", type=int, metavar="K", help="seats per table (tables, multi-seat round robin)"
    )
    parser.add_argument("--tables", type=int, metavar="T", help="tables: how many (default: bots × rounds)")
    parser.add_argument("--qualify", metavar="BOT", help="every entrant must first beat this bot to enter")
    parser.add_argument(
        "--qualify-games", type=int, metavar="N", help="games of a qualification match (default --games)"
    )
    parser.add_argument(
        "--seeding",
        choices=("given", "round-robin"),
        help="double elimination, Swiss: seed in the given order (default) or by a seeding round robin",
    )
    parser.add_argument(
        "--seeding-games", type=int, metavar="N", help="games per seeding match (default --games)"
    )
    parser.add_argument(
        "--duplicate", action="store_true", default=None, help="each deal once per seat rotation"
    )
    parser.add_argument(
        "--sprt",
        metavar="'elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic]'",
        help="gauntlet, round robin of two-bot matches: stop each match as soon as a sequential "
        "probability ratio test decides (a gauntlet tests its candidate; --games is the most played)",
    )
    parser.add_argument(
        "--recover", action="store_true", default=None, help="restart a crashed bot for its next game"
    )
    parser.add_argument(
        "--give-up-after",
        type=int,
        metavar="N",
        help=f"failed starts in a row before a bot is out (default {GIVE_UP_AFTER})",
    )
    parser.add_argument(
        "--replay-overloaded",
        type=int,
        metavar="N",
        help="play a game again, at most N times, when a bot's timeout or slow start in it was the machine's "
        "fault: it used far less CPU than its limit while it waited for one (docs/grading.md, 'A busy grading "
        "machine'; default 0: never)",
    )
    parser.add_argument(
        "--build",
        action="store_true",
        default=None,
        help="run the bots' bot.toml build commands first — outside the sandbox: only for bots you trust",
    )
    parser.add_argument(
        "--game-logs",
        action="store_true",
        default=None,
        help="write every game with its transcript to DIR/logs/",
    )
    parser.add_argument(
        "--replay-all",
        action="store_true",
        help="with --resume, for games whose bots live for the whole tournament (dice poker, Liar's "
        "Dice): discard every stored deal and play the whole tournament again, the exact replay; by "
        "default a resume keeps every stored deal and restarts the bots without their memory",
    )
    parser.add_argument("--keep-played", action="store_true", help=argparse.SUPPRESS)  # the default now
    parser.add_argument(
        "--ship-bots",
        action="store_true",
        help="with --cluster: send each worker every bot's files once (checked by their hash) instead "
        "of running them from the same paths on every machine",
    )
    parser.add_argument(
        "--rerun-close",
        action="store_true",
        help="with --resume: play again every match in which a bot timed out or answered within 80%% of "
        "the decision limit (fixed schedules: round robin, gauntlet, tables; docs/cluster.md)",
    )
    parser.add_argument("--quiet", action="store_true", default=None, help="no live display")
    parser.add_argument(
        "--live",
        nargs="?",
        type=int,
        const=8000,
        metavar="PORT",
        help="serve a live page of the standings on http://127.0.0.1:PORT/ while it runs (default port "
        "8000; 0: any free port); read-only, this machine only",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the matches on a Dask cluster: tcp://HOST:PORT (a running scheduler) or local[:N] "
        "(N one-thread workers here); the results are those of a local run (docs/cluster.md)",
    )
    parser.add_argument("--sandbox", choices=sandbox.CHOICES, help="isolation layer (default auto)")
    parser.add_argument(
        "--allow-root-bots", action="store_true", default=None, help="see referee match --help"
    )
    arguments.add_game_options(parser, "game options")
    arguments.add_limit_options(
        parser, "limits (default: the game's seed values; 'none' lifts one)", full=True
    )
    for action in parser._actions:
        if action.dest == "cpu_limit":
            action.help = (
                "CPU seconds per bot per match; for games whose bots live for the whole "
                "tournament (dice poker, Liar's Dice), per bot for the whole tournament"
            )
    return parser


# ---------------------------------------------------------------------- configuration


class Prepared(msgspec.Struct):
    config: TournamentConfig
    specs: dict[str, BotSpec]
    settings: RunSettings
    resumed: bool = False
    #: Single-file entries of folders, to be copied into DIR/bots/ once DIR is known good.
    isolate: list[Entry] = []
    #: On resume: what is kept, what is played again, the time it should take (one line).
    outlook: str | None = None


def _merged(args: argparse.Namespace) -> dict[str, Any]:
    """The flags given, over the configuration file's values.  ``_bots_base`` and
    ``_qualify_base`` are the directories the bot names are relative to: the file's for
    names from the file, the current one for names on the command line."""
    values: dict[str, Any] = {}
    base = Path.cwd()
    if args.config:
        values, base = load_toml(args.config)
        check_file_keys(values, args.config)
        if "limits" in values:
            values["limits"] = limits_from_table(values["limits"], args.config)
        if "out" in values and not Path(values["out"]).is_absolute():
            values["out"] = os.path.normpath(base / values["out"])
    values["_bots_base"] = values["_qualify_base"] = base
    for key in _SETTABLE:
        given = getattr(args, key, None)
        if given is not None:
            values[key] = given
    for key in _SWITCHES:
        if getattr(args, key, None):
            values[key] = True
    if args.bots:
        values["bots"] = list(args.bots)
        values["_bots_base"] = Path.cwd()
    if args.qualify:
        values["_qualify_base"] = Path.cwd()
    flag_limits = arguments.limits_from(args)
    if flag_limits is not None:
        merged = msgspec.structs.asdict(values["limits"]) if values.get("limits") is not None else {}
        merged.update({k: v for k, v in msgspec.structs.asdict(flag_limits).items() if v is not None})
        values["limits"] = LimitsOverride(**merged)
    options = dict(values.get("options", {}))
    options.update(arguments.game_options(args))
    values["options"] = options
    return values


def prepare(args: argparse.Namespace) -> Prepared:
    """Everything before the first match; ConfigError/BotSpecError/StoreError say what is wrong."""
    if args.resume:
        return _prepare_resume(args)
    values = _merged(args)
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
            _say(f"two bots are named {entry.spec.name}: {' '.join(spec.argv)} plays as {spec.name}")
        entry.spec = spec
    everyone = entries + ([qualifier] if qualifier else [])
    if values.get("build"):
        for entry in everyone:
            if entry.spec.build and entry.problem is None:
                from referee.cli.commands import build_bot  # the same build as referee match --build

                entry.spec, entry.problem = build_bot(entry.spec)
    else:
        for entry in everyone:
            if entry.spec.build:
                _say(
                    f"not running bot {entry.spec.name}'s build command ({entry.spec.build}): a build runs "
                    "outside the sandbox; pass --build to run it (only for bots you trust)"
                )
    if (values.get("replay_overloaded") or 0) < 0:
        raise ConfigError("--replay-overloaded must be 0 or more")
    seed = values.get("seed")
    if seed is None:
        seed = secrets.randbits(32)
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
        ship_bots=bool(args.ship_bots),
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


def _prepare_resume(args: argparse.Namespace) -> Prepared:
    """Resume: the stored configuration; only how the run goes may be given."""
    given = [
        f"--{k.replace('_', '-')}"
        for k in _SETTABLE
        if k not in ("concurrency", "live", "cluster") and getattr(args, k, None) is not None
    ]
    given += [
        f"--{k.replace('_', '-')}"
        for k in _SWITCHES
        if k not in ("quiet", "game_logs") and getattr(args, k, None)
    ]
    if args.bots or args.config or given or arguments.limits_from(args) or arguments.game_options(args):
        extra = ", ".join(given) or (
            "bots" if args.bots else "--config" if args.config else "limits or options"
        )
        raise ConfigError(
            f"--resume takes the configuration stored in {args.resume}; only --concurrency, --quiet, "
            f"--game-logs, --replay-all and --live may be given (got {extra})"
        )
    store = Store.read(args.resume)
    try:
        config = msgspec.convert(store.config, TournamentConfig)
        specs = store.bots()
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{args.resume}: the stored configuration is not this referee's: {exc}") from None
    finally:
        store.close()
    settings = RunSettings(
        out=args.resume,
        concurrency=args.concurrency,
        quiet=bool(args.quiet),
        game_logs=bool(args.game_logs) or args.live is not None,
        replay_all=bool(args.replay_all),
        live=args.live,
        cluster=args.cluster,
        ship_bots=bool(args.ship_bots),
        rerun_close=bool(args.rerun_close),
    )
    return Prepared(config, specs, settings, resumed=True)


def _reopen_close(store: Store, plan: Plan) -> None:
    """``--rerun-close``: the done matches with a ``near-limit`` event become pending."""
    if plan.adaptive:
        raise StoreError(
            f"--rerun-close replays matches of a fixed schedule; a {plan.config.format}'s later "
            "rounds were paired from their results"
        )
    done = set(store.done_keys())
    keys = sorted({key for _, _, _, key, _ in store.events("near-limit") if key in done})
    store.reopen(keys)
    _say(f"--rerun-close: {len(keys)} match{'es' * (len(keys) != 1)} close to the time limit played again")


def open_store(prepared: Prepared, game: type[games.Game]) -> Store:
    """The store, created or reopened for this run; StoreError when it does not match."""
    config = prepared.config
    out = Path(prepared.settings.out)
    if prepared.resumed:
        store = Store.open(out)
        try:
            changed = store.changed_bots(prepared.specs.values())
            if changed:
                raise StoreError(
                    f"cannot resume: the files of {', '.join(changed)} changed since the tournament "
                    "started (a resume must play the same bots)"
                )
            plan = Plan(config, game)
            if prepared.settings.rerun_close:
                _reopen_close(store, plan)
            finished = plan.next(load_outcomes(store, plan)) is None
            # What is kept and what is played again (docs/tournaments.md, "Resume").
            prepared.outlook = resume.prepare(
                store, plan, game, replay_all=prepared.settings.replay_all, finished=finished
            )
        except BaseException:
            store.close()
            raise
        return store
    if _holds_tournament(out):
        writer = store_writer(out)
        if writer is not None:
            raise StoreError(
                f"{out} holds a tournament that a referee (pid {writer}) is playing now: give a new --out"
            )
        raise StoreError(
            f"{out} already holds a tournament: resume it with --resume {out}, or give a new --out"
        )
    if prepared.isolate:
        isolate(prepared.isolate, out / "bots")
        for entry in prepared.isolate:
            prepared.specs[entry.spec.name] = entry.spec
    # Every bot plays from its own copy under DIR/bots/ (referee.tournament.snapshot).
    prepared.specs.update(snapshot.take({n: prepared.specs[n] for n in config.everyone}, out))
    # The configuration and the bots in one transaction: a kill in between cannot leave
    # a tournament that neither resumes nor can be started again.
    return Store.open(out, config, seed=config.seed, bots=[prepared.specs[n] for n in config.everyone])


def _holds_tournament(out: Path) -> bool:
    """Whether ``out`` holds a recorded tournament (a store killed while being created,
    before its first transaction, holds none: it is created again)."""
    try:
        with Store.read(out):
            return True
    except NoTournament:
        return False
    except StoreError:  # some other SQLite file: not to be overwritten
        return True


# ---------------------------------------------------------------------- running


def main(args: argparse.Namespace) -> int:
    with interrupts.catching() as guard:
        try:
            if getattr(args, "rerun_close", False) and not args.resume:
                raise ConfigError("--rerun-close goes with --resume DIR (it replays matches already played)")
            if getattr(args, "ship_bots", False) and not args.cluster:
                raise ConfigError(
                    "--ship-bots goes with --cluster (it sends the bots to the cluster's workers)"
                )
            prepared = prepare(args)
            game = games.get(prepared.config.game)
            store = open_store(prepared, game)
        except (ConfigError, BotSpecError, StoreError) as exc:
            _say(str(exc))
            return EXIT_USAGE
        except interrupts.Interrupted as exc:
            _say(f"{exc} before the first match")
            return interrupts.exit_status(exc.signum)
        guard.raising = False
        try:
            return _run(prepared, game, store, guard)
        finally:
            store.close()


def _leaf(error: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: the one that says why."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def _run(prepared: Prepared, game: type[games.Game], store: Store, guard: interrupts.Guard) -> int:
    from referee.tournament import live, report, standings

    config, settings = prepared.config, prepared.settings
    out = Path(settings.out)
    title = f"{config.format} · {config.game} · seed {config.seed} · {len(config.field)} bots"
    if not prepared.resumed:
        _say(f"tournament {title} → {out} (resume with: referee tournament --resume {out})")
    else:
        _say(f"resuming {title} in {out}")
        _say(snapshot.describe(prepared.specs.values(), out))
        if prepared.outlook:
            _say(prepared.outlook)
    layer = sandbox.choose(config.sandbox)
    advice = sandbox.advice(layer)
    if advice:
        _say(advice)
    fmt = (
        Plan(config, game).main_format({}) if config.qualifier is None and config.seeding == "given" else None
    )
    if isinstance(fmt, Tables):
        _say(f"tables: {fmt.balance()}")
    if config.unstartable:
        for name, why in config.unstartable.items():
            _say(f"bot {name} cannot start ({why}): it forfeits its matches")
    display = live.LiveDisplay(title, quiet=settings.quiet)
    reader: list[Store] = []
    cache = standings.Cache()  # each refresh reads only the games committed since the last

    def refresh() -> None:
        try:
            if not reader:
                reader.append(Store.read(out))
            current = standings.compute(reader[0], cache, ratings=False)
            rows, header = report.top_rows(current, 5)
            display.standings(rows, header)
        except Exception:  # the display must never stop the tournament
            return

    runner = Runner(config, prepared.specs, store, settings, game, display=display, on_standings=refresh)
    pace = resume.Pace(store)
    started = time.perf_counter()
    code = EXIT_OK
    message: str | None = None

    async def play() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(display.plain_lines)
            try:
                await runner.run()
            finally:
                nursery.cancel_scope.cancel()

    web: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if settings.live is not None:
        from referee.tournament.web import LiveServer

        try:
            server = LiveServer(out, settings.live, title=title)
        except OSError as exc:
            _say(
                f"--live {settings.live}: cannot serve there ({exc.strerror or exc}); playing without the live page"
            )
        else:
            web = server
            _say(f"live page: {server.url} (read-only; it stops when the tournament ends)")
    try:
        with display, web:
            _, signum = trio.run(interrupts.run_until_signalled, play, guard, None)
    except* (TournamentError, WorkerLost) as group:
        error = _leaf(group)
        code = EXIT_CANNOT_WRITE if isinstance(error, ResultsNotStored) else EXIT_FAILED
        message = printable(str(error)) + f"; after a fix, resume with: referee tournament --resume {out}"
    except* StoreError as group:
        message = printable(str(_leaf(group)))
        code = EXIT_CANNOT_WRITE
    else:
        if signum is not None:
            code = interrupts.exit_status(signum)
            message = f"{interrupts.describe(signum)}; resume with: referee tournament --resume {out}"
    try:
        this_pace = pace.record()
        if message is not None and code != EXIT_CANNOT_WRITE:
            message += f" ({pace.stopped_line(game, this_pace)})"
    except StoreError:
        pass
    if guard.seen and code == EXIT_OK:
        code = interrupts.exit_status(guard.seen[0])
    for store_reader in reader:
        store_reader.close()
    elapsed = time.perf_counter() - started
    try:
        with Store.read(out) as final_store:
            final = standings.compute(final_store)
        report.write_all(final, out)
    except (StoreError, OSError) as exc:
        _say(f"could not write the standings: {exc}")
        code = code or EXIT_CANNOT_WRITE
        final = None
    if message is not None:
        _say(message)
    if final is not None:
        with contextlib.suppress(OSError):
            from rich.console import Console

            # A wide table when the output is not a terminal (a log, a pipe): rich's 80
            # columns would squeeze the figures into ellipses.
            console = Console() if sys.stdout.isatty() else Console(width=200)
            report.print_standings(final, console)
            print(f"{elapsed:.1f} s; results in {out} (standings.md, standings.json, crosstable.csv)")
    if final is not None and code == EXIT_OK:
        silent = report.never_started_lines(final)
        if silent:
            for line in silent:
                _say(f"warning: {printable(line)}")
            _say("warning: bots that never started are listed last, apart (standings.md, Never started)")
            code = EXIT_CANNOT_START
    return code
