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
from referee.core.botspec import BotSpec, BotSpecError
from referee.core.limits import LimitsOverride
from referee.core.verdict import printable
from referee.match import GIVE_UP_AFTER
from referee.seats.process import sandbox
from referee.tournament import resume, setup, snapshot
from referee.tournament.config import (
    ConfigError,
    RunSettings,
)
from referee.tournament.formats import FORMATS, Tables
from referee.tournament.opening import open_store
from referee.tournament.plan import Plan
from referee.tournament.runner import ResultsNotStored, Runner, TournamentError
from referee.tournament.setup import Prepared
from referee.tournament.store import Store, StoreError
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
        "probability ratio test decides (a gauntlet tests its candidate; --games is the most played); "
        "elo0, elo1 for games ranked by wins; 'mean0=M0 mean1=M1', the mean edge per game, for games "
        "ranked by score (dice poker, Hold'em)",
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


def _merged(args: argparse.Namespace) -> dict[str, Any]:
    """The flags given, over the configuration file's values.  ``_bots_base`` and
    ``_qualify_base`` are the directories the bot names are relative to: the file's for
    names from the file, the current one for names on the command line."""
    values: dict[str, Any] = {}
    base = Path.cwd()
    if args.config:
        values, base = setup.file_values(args.config)
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
            f"--resume takes the configuration stored in {args.resume}; only how the run goes may be "
            f"given: --concurrency, --quiet, --game-logs, --live, --cluster, --ship-bots, --rerun-close, "
            f"--replay-all (got {extra})"
        )
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
    return setup.resumed(args.resume, settings)


def prepare(args: argparse.Namespace) -> Prepared:
    """Everything before the first match, from the parsed flags (the setup is
    referee.tournament.setup's); ConfigError/BotSpecError/StoreError say what is wrong."""
    if args.resume:
        return _prepare_resume(args)
    return setup.prepare(_merged(args), say=_say, build=_build, ship_bots=bool(args.ship_bots))


def _build(spec: BotSpec) -> tuple[BotSpec, str | None]:
    from referee.cli.commands import build_bot  # the same build as referee match --build

    return build_bot(spec)


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
            store = open_store(prepared, game, _say)
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
