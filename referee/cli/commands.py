"""The ``referee`` command: ``referee match``, ``referee games``, ``referee bench``.

Exit statuses (also in ``referee match --help`` and the README): 0 the match completed
(whatever the verdicts), 2 a usage error (one line on stderr), 3 a bot cannot start so
the match could not be played, 128 + N when signal N stopped it (130 for Ctrl-C, 143
for SIGTERM, 129 for SIGHUP) — then the summary of the games played is still written.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import NoReturn

import msgspec
import trio

from referee import __version__, games
from referee.cli import arguments, output
from referee.cli.arguments import EXIT_CANNOT_START, EXIT_CANNOT_WRITE, EXIT_OK, EXIT_USAGE
from referee.cli.arguments import say as _say
from referee.core import interrupts, records
from referee.core.botspec import BotSpec, BotSpecError, resolve, unique_names
from referee.core.limits import MiB
from referee.core.seeding import fresh_seed
from referee.core.verdict import printable
from referee.match import GIVE_UP_AFTER, Match, MatchConfig, MatchError, OutputError
from referee.seats.process import sandbox
from referee.seats.process.stderr import stderr_tail
from referee.sinks import files as output_files
from referee.sinks.progress import MatchProgress
from referee.sinks.summary import SummaryFile

BUILD_TIMEOUT_S = 600

EXIT_CODES_HELP = """exit status:
  0    the match completed (whatever the verdicts)
  2    usage error (bad option, bot path or output path), one line on stderr
  3    a bot cannot start, so the match could not be played (with more than two
       bots, or --keep-going, it forfeits its games instead and the others play on)
  4    an output could not be written (a full disk): the --json summary, or the --log
       or an --export during the match, which then stops there
  130  interrupted (Ctrl-C); 143 for SIGTERM, 129 for SIGHUP: the bots are closed and
       the summary of the games played so far is written, marked as stopped (a third
       Ctrl-C ends the referee at once)

writing a bot: docs/writing-a-bot.md; each game's lines: docs/protocols/;
check a bot before a match: referee check BOT --game GAME"""


def _export(text: str) -> tuple[str, str]:
    fmt, sep, path = text.partition("=")
    if not sep or not fmt or not path:
        raise argparse.ArgumentTypeError("expected FORMAT=PATH, e.g. phh=hands.phh")
    return fmt, path


#: The commands each module of referee/cli defines (its ``add_parser``, or ``add_parsers``
#: for two) and runs: a module is imported only when its command runs, or for the whole
#: ``--help`` — ``referee match`` does not pay for the tournament, grading, arena and
#: server code (a third of a second of imports).
_MODULES: dict[str, tuple[str, ...]] = {
    "check": ("check",),
    "play": ("play",),
    "tournament": ("tournament",),
    "standings": ("standings",),
    "plan": ("plan",),
    "grade": ("grade",),
    "replay": ("replay",),
    "serve": ("serve", "connect"),
    "arena": ("arena", "submit"),
}
#: Each command's function in its module, where it is not ``main``.
_HANDLERS = {"serve": "serve_main", "connect": "connect_main", "submit": "submit_main"}
#: Options may come between the bots: ``referee match a --games 5 b``.
_INTERMIXED = ("match", "bench", "tournament", "plan")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` a command's name, just that command's
    options (the other commands are names without options)."""
    parser = arguments.OneLineErrors(
        prog="referee",
        description="Run bots against each other, safely and fast.",
        epilog=EXIT_CODES_HELP.replace("exit status:", "exit status of referee match:", 1),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=arguments.OneLineErrors)

    match = sub.add_parser(
        "match",
        help="play a match between bots",
        description="Play GAMES games between the bots and print the results. `referee games` lists the games.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    match.add_argument(
        "bots", nargs="+", metavar="BOT", help="executable, quoted command, or directory with bot.toml"
    )
    match.add_argument(
        "--game", default="yahtzee", choices=list(games.available()), help="which game (default yahtzee)"
    )
    match.add_argument("--games", type=int, help="number of games (default: the game's, see `referee games`)")
    match.add_argument(
        "--seed", type=arguments.match_seed, help="match seed, 0 to 2**64-1 (default: random, printed)"
    )
    match.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal once per seat rotation, bots swapped: the same dice, cards or "
        "prizes for each seat (--games is rounded up to whole deals)",
    )
    match.add_argument(
        "--sprt",
        type=arguments.sprt_spec,
        metavar="'elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic]'",
        help="two bots: stop as soon as a sequential probability ratio test decides whether the first "
        "bot is elo1 rather than elo0 stronger (pentanomial on deal pairs with --duplicate, trinomial "
        "otherwise; --games is then the most played); for games ranked by score (dice poker, Hold'em) "
        "'mean0=M0 mean1=M1', the first bot's mean edge per game",
    )
    match.add_argument("--json", metavar="PATH", help="write a JSON summary here")
    match.add_argument("--log", metavar="PATH", help="write one JSON line per game, enough to replay it")
    match.add_argument(
        "--export",
        action="append",
        default=[],
        type=_export,
        metavar="FORMAT=PATH",
        help="also write every game in another format ("
        + "; ".join(
            f"{name}: {', '.join(cls.exports)}" for name, cls in games.available().items() if cls.exports
        )
        + ")",
    )
    match.add_argument("--stderr-dir", metavar="DIR", help="where each bot's captured stderr goes")
    match.add_argument("--recover", action="store_true", help="restart a crashed bot for the next game")
    match.add_argument(
        "--keep-going",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a bot that cannot start forfeits its games and the others play on "
        "(default: on for more than two bots; off: the match is not played, exit 3)",
    )
    match.add_argument(
        "--give-up-after",
        type=int,
        default=GIVE_UP_AFTER,
        metavar="N",
        help="a bot that fails to start, or dies before its first answer, N times in a row "
        f"sits out the rest of the match (default {GIVE_UP_AFTER})",
    )
    match.add_argument(
        "--replay-overloaded",
        type=int,
        default=0,
        metavar="N",
        help="play a game again, at most N times, when a bot's timeout or slow start in it was the machine's "
        "fault: it used far less CPU than its limit while it waited for one (docs/grading.md, 'A busy grading "
        "machine'; default 0: never)",
    )
    match.add_argument(
        "--build",
        action="store_true",
        help="run the bots' bot.toml build commands first — with your privileges, outside the sandbox: "
        "only for bots you trust",
    )
    match.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin referee and bots to one core"
    )
    arguments.add_game_options(match, "game options")
    match.add_argument("--quiet", action="store_true", help="no progress bar")
    match.add_argument(
        "--sandbox",
        choices=sandbox.CHOICES,
        default="auto",
        help="isolation layer (default auto: the strongest that works here; strict: the strongest or "
        "refuse to run; see docs/security.md)",
    )
    match.add_argument(
        "--allow-root-bots",
        action="store_true",
        help="as root, run a bot whose files other users cannot read as root instead of refusing it "
        "(never for untrusted code)",
    )
    arguments.add_limit_options(
        match, "limits (default: the game's seed values; 'none' lifts one)", full=True
    )

    sub.add_parser("games", help="list the games")
    sub.add_parser("schema", help="print the JSON Schema of the --log and --json records (docs/records.md)")
    commands = {"match": match}
    for module_name, names in _MODULES.items():
        if only is not None and only not in names:
            for name in names:  # never parsed: only the command given is
                sub.add_parser(name)
            continue
        module = importlib.import_module(f"referee.cli.{module_name}")
        if len(names) == 1:
            commands[names[0]] = module.add_parser(sub)
        else:
            module.add_parsers(sub)

    bench = sub.add_parser(
        "bench",
        help="measure the I/O path against the raw C figure",
        description="Four figures on one pinned core: raw C round trips, the referee's round trip "
        "with the same C echo bot, a Yahtzee match and a dice-poker match between instant C bots; "
        "then those two matches on the default path, each a `referee match` command timed whole "
        "(needs cc).",
    )
    bench.add_argument(
        "--round-trips",
        type=int,
        default=200_000,
        metavar="N",
        help="round trips for the raw and referee figures (default 200000)",
    )
    bench.add_argument(
        "--games", type=int, default=1000, metavar="N", help="games of the Yahtzee match (default 1000)"
    )
    bench.add_argument(
        "--deals",
        type=int,
        default=100_000,
        metavar="N",
        help="deals of the dice-poker match (default 100000)",
    )
    bench.add_argument(
        "--remote",
        action="store_true",
        help="instead: the Yahtzee match local and through referee serve/connect on loopback, per decision",
    )
    commands["bench"] = bench
    # The commands whose options may come between their positional arguments (main).
    parser.commands = {name: commands[name] for name in _INTERMIXED if name in commands}  # type: ignore[attr-defined]
    return parser


def _build(spec: BotSpec) -> str | None:
    """Run the bot's build command; why it failed, in one line, or None."""
    if spec.build is None:
        return None
    try:
        done = subprocess.run(
            spec.build,
            shell=True,
            cwd=spec.home,
            capture_output=True,
            timeout=BUILD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"its build took over {BUILD_TIMEOUT_S} s"
    if done.returncode != 0:
        tail = stderr_tail(done.stderr.decode("utf-8", "replace") or done.stdout.decode("utf-8", "replace"))
        return f"its build failed (exit {done.returncode}): {tail or 'it printed nothing'}"
    return None


def build_bot(spec: BotSpec) -> tuple[BotSpec, str | None]:
    """Run the bot's build command (``--build``), then name the bot again — what its
    manifest's ``run`` names may exist only now ("./bot", a bare "bot").  The spec to
    play, and why it cannot start (one printable line) when the build failed."""
    failure = _build(spec)
    if failure is None:
        try:
            return msgspec.structs.replace(resolve(spec.home), name=spec.name), None
        except BotSpecError as exc:
            failure = f"after its build: {exc}"
    return spec, printable(failure)


def _say_sandbox(layer: sandbox.Layer) -> None:
    """One line on stderr, before the match, when the layer in force leaves something
    open that this machine could close (or when even its strongest is not the
    namespaces layer).  The layer itself is in the results' title and isolation line."""
    warning = sandbox.advice(layer)
    if warning is None and layer is not sandbox.Layer.NONE:
        warning = sandbox.best_possible_note()
    if warning is not None:
        _say(warning)


def _check_outputs(args: argparse.Namespace) -> str | None:
    """The first output path that cannot be written, as a one-line error, or None."""
    files = [("--json", args.json), ("--log", args.log), *(("--export", p) for _, p in args.export)]
    for flag, path in files:
        problem = output_files.unwritable(path) if path else None
        if problem is not None:
            return f"{flag} {path}: {problem}"
    if args.stderr_dir:
        problem = output_files.unusable_directory(args.stderr_dir)
        if problem is not None:
            return f"--stderr-dir {args.stderr_dir}: {problem}"
    return None


def _stderr_note(match: Match, kept: bool) -> str | None:
    """Where the bots' stderr is, or how to keep it next time."""
    written = match.stderr_dir.exists() and any(match.stderr_dir.iterdir())
    if kept:
        return f"bots' stderr: {match.stderr_dir}" if written else None
    shutil.rmtree(match.stderr_dir, ignore_errors=True)
    if not written:
        return None
    return "bots' stderr was not kept (verdicts quote its last lines): pass --stderr-dir DIR to keep it"


def cmd_match(args: argparse.Namespace) -> int:
    with interrupts.catching() as guard:
        try:
            prepared = _prepare_match(args)
        except interrupts.Interrupted as exc:
            _say(f"{exc} before the first game")
            return interrupts.exit_status(exc.signum)
        if isinstance(prepared, int):
            return prepared
        # From here on a signal never cuts the summary short: the match is cancelled
        # cleanly, and signals while it is written up are only remembered.
        guard.raising = False
        match, config = prepared
        return _play(match, config, args, guard)


def _prepare_match(args: argparse.Namespace) -> tuple[Match, MatchConfig] | int:
    """Everything before the first game: bots, paths, builds.  An exit status on error."""
    try:
        specs = unique_names(resolve(arg) for arg in args.bots)
    except BotSpecError as exc:
        _say(str(exc))
        return EXIT_USAGE
    game_class = games.get(args.game)
    if args.games is None:
        args.games = game_class.default_games
    if args.games < 1:
        _say("--games must be at least 1")
        return EXIT_USAGE
    if args.give_up_after < 1:
        _say("--give-up-after must be at least 1")
        return EXIT_USAGE
    if args.replay_overloaded < 0:
        _say("--replay-overloaded must be 0 or more")
        return EXIT_USAGE
    problem = _check_outputs(args)
    if problem is not None:
        _say(problem)
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else fresh_seed()
    keep_going = args.keep_going if args.keep_going is not None else len(specs) > 2
    config = MatchConfig(
        game=args.game,
        games=args.games,
        seed=seed,
        recover=args.recover,
        pin=args.pin,
        sandbox=args.sandbox,
        allow_root_bots=args.allow_root_bots,
        limits=arguments.limits_from(args),
        duplicate=args.duplicate,
        sprt=args.sprt,
        log_path=args.log,
        exports=dict(args.export),
        stderr_dir=args.stderr_dir,
        keep_going=keep_going,
        give_up_after=args.give_up_after,
        replay_overloaded=args.replay_overloaded,
        options=arguments.game_options(args),
    )
    try:
        game = game_class(**config.options)
        match = Match(game, specs, config)
    except (MatchError, TypeError, ValueError) as exc:
        _say(str(exc))
        return EXIT_USAGE
    for spec in specs:
        if spec.build and not args.build:
            _say(
                f"not running bot {spec.name}'s build command ({spec.build}): a build runs "
                "outside the sandbox; pass --build to run it (only for bots you trust)",
            )
        elif spec.build:
            built, failure = build_bot(spec)
            if failure is None:
                match.update_bot(built)
                continue
            if not keep_going:
                _say(f"bot {spec.name} cannot start: {failure}")
                return EXIT_CANNOT_START
            match.mark_unstartable(spec.name, failure)  # the match says so when it starts
    if len(specs) < game.seats.default:
        _say(
            f"{game.name}: the seed seats {game.seats.default} bots a game; this match seats "
            f"{len(specs)} (name the bots more than once, e.g. A B A B, for full tables)",
        )
    _say_sandbox(match.layer)
    return match, config


def _play(match: Match, config: MatchConfig, args: argparse.Namespace, guard: interrupts.Guard) -> int:
    """Play the match and write what it leaves, whatever ends it: the summary first
    (the summary sink, as the match closes), then the messages (which may fail if the
    terminal is gone)."""
    title = f"{match.game.name} seed {config.seed}"
    progress = MatchProgress(title, match.games_requested, quiet=args.quiet)
    summary = SummaryFile(args.json, on_error=progress.notice) if args.json else None
    match.sinks += [progress] + ([summary] if summary else [])
    match.while_starting.append(output.load)

    def stopped_by(signum: int) -> None:
        match.stopped = interrupts.describe(signum)

    async def play() -> records.MatchRecord:
        ended: MatchError | OutputError | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(progress.plain_lines)
            try:
                result = await match.run()
            except (MatchError, OutputError) as exc:  # raised below as itself, not in a group
                ended = exc
            finally:
                nursery.cancel_scope.cancel()
        if ended is not None:
            raise ended
        return result

    started = time.perf_counter()
    code = EXIT_OK
    message = None
    try:
        with progress:
            _, signum = trio.run(interrupts.run_until_signalled, play, guard, stopped_by)
    except MatchError as exc:
        message = printable(str(exc))
        code = EXIT_CANNOT_START
    except OutputError as exc:
        message = printable(str(exc))
        code = EXIT_CANNOT_WRITE
    else:
        if signum is not None and not match.completed:
            message = f"{match.stopped} after {match.games_played} games"
    if guard.seen and code == EXIT_OK:
        # Stopped, or interrupted while the finished match was being closed.
        code = interrupts.exit_status(guard.seen[0])
    result = match.result()
    elapsed = time.perf_counter() - started
    if summary is not None and summary.error is not None:
        _say(summary.error)
        code = code or EXIT_CANNOT_WRITE
    note = _stderr_note(match, kept=args.stderr_dir is not None)
    if message is not None:
        _say(message)
    if result.games_played:  # a table of zeros says nothing the line on stderr did not
        with contextlib.suppress(OSError):
            output.print_table(result, elapsed, note)
    return code


def _seconds(value: float | None) -> str:
    return "none" if value is None or math.isinf(value) else f"{value:g} s"


def cmd_games(_: argparse.Namespace) -> int:
    """Each game: seats, the default number of games, and its limits."""
    for name, cls in games.available().items():
        seats = str(cls.seats)
        limits = cls.limits
        memory = "none" if limits.memory_bytes is None else f"{limits.memory_bytes // MiB} MiB"
        print(f"{name:12} {seats:>5} seats  {cls.title}")
        print(
            f"{'':12} the seed seats {cls.seats.default}; default --games {cls.default_games}; "
            f"limits: first answer {_seconds(limits.startup_s)}, "
            f"each answer {_seconds(limits.decision_s)}, CPU {_seconds(limits.cpu_s)} per match, "
            f"memory {memory}"
        )
    return EXIT_OK


def cmd_schema(_: argparse.Namespace) -> int:
    """The JSON Schema of the records: a ``--log`` line is a GameRecord, ``--json`` a MatchRecord."""
    sys.stdout.write(records.json_schema())
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from referee.cli import bench

    return bench.main(round_trips=args.round_trips, games=args.games, deals=args.deals, remote=args.remote)


def _exit_at_once(code: int) -> NoReturn:
    """End the process with ``code`` now that ``referee match`` has closed everything it
    opened (bots reaped, sinks closed, the summary written): stdout and stderr flushed
    and the exit handlers run, without the interpreter's teardown of every module and
    object, which is ~50-90 ms of CPU after a match here (trio's modules alone ~25-50)
    and no part of the work."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: the code stands
            stream.flush()
    for thread in threading.enumerate():  # as the interpreter's exit would: a probe,
        if thread is not threading.current_thread() and not thread.daemon:  # bounded
            thread.join(sandbox.PROBE_TIMEOUT_S + 5)
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``referee`` command; ``argv`` None when run as the program (which then ends
    the process itself after a match: :func:`_exit_at_once`)."""
    as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if as_program and argv[:1] == ["match"]:
        # Whatever --sandbox says, the match asks whether the namespaces layer works (to
        # choose, or to advise): probed in a thread while the options are parsed.
        sandbox.probe_ahead()
    modules = {name: module for module, names in _MODULES.items() for name in names}
    only = argv[0] if argv and argv[0] in {*modules, "match", "games", "schema", "bench"} else None
    parser = build_parser(only)
    if argv and argv[0] in parser.commands:  # type: ignore[attr-defined]
        # Options may come between the bots: `referee match a --games 5 b`.
        args = parser.commands[argv[0]].parse_intermixed_args(argv[1:])  # type: ignore[attr-defined]
        args.command = argv[0]
    else:
        args = parser.parse_args(argv)
    if as_program and not gc.isenabled():  # off while it started (referee.__main__.run)
        gc.freeze()
        gc.enable()
    here = {"match": cmd_match, "games": cmd_games, "bench": cmd_bench, "schema": cmd_schema}
    if args.command in here:
        code = here[args.command](args)
        # (Under a profiler or a coverage tracer the normal exit, which writes their output.)
        if args.command == "match" and as_program and sys.getprofile() is None and sys.gettrace() is None:
            _exit_at_once(code)
        return code
    module = importlib.import_module(f"referee.cli.{modules[args.command]}")
    handler: Callable[[argparse.Namespace], int] = getattr(module, _HANDLERS.get(args.command, "main"))
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
