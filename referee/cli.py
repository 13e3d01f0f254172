"""The ``referee`` command: ``referee match``, ``referee games``, ``referee bench``."""

from __future__ import annotations

import argparse
import math
import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
import trio

from referee import __version__, games, sandbox
from referee.botspec import BotSpec, BotSpecError, resolve, unique_names
from referee.limits import LimitsOverride, MiB
from referee.match import GameOutcome, Match, MatchConfig, MatchError, MatchResult

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_CANNOT_START = 3
EXIT_INTERRUPTED = 130
BUILD_TIMEOUT_S = 600


def _seconds_or_none(text: str) -> float:
    if text.lower() in {"none", "inf", "unlimited"}:
        return math.inf
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _export(text: str) -> tuple[str, str]:
    fmt, sep, path = text.partition("=")
    if not sep or not fmt or not path:
        raise argparse.ArgumentTypeError("expected FORMAT=PATH, e.g. phh=hands.phh")
    return fmt, path


def _mib_or_none(text: str) -> int:
    if text.lower() in {"none", "unlimited"}:
        return 1 << 62
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return int(value * MiB)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee", description="Run bots against each other, safely and fast."
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    match = sub.add_parser(
        "match",
        help="play a match between bots",
        description="Play GAMES games between the bots and print the results. `referee games` lists the games.",
    )
    match.add_argument(
        "bots", nargs="+", metavar="BOT", help="executable, quoted command, or directory with bot.toml"
    )
    match.add_argument(
        "--game", default="yahtzee", choices=list(games.available()), help="which game (default yahtzee)"
    )
    match.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    match.add_argument("--seed", type=int, help="match seed (default: random, printed)")
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
        "--build",
        action="store_true",
        help="run the bots' bot.toml build commands first — with your privileges, outside the sandbox: "
        "only for bots you trust",
    )
    match.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin referee and bots to one core"
    )
    options = match.add_argument_group("game options")
    offered: dict[str, list[str]] = {}
    for name, cls in games.available().items():
        for option, spec in cls.option_specs.items():
            if option not in offered:
                offered[option] = []
                options.add_argument(
                    "--" + option.replace("_", "-"),
                    dest=f"option_{option}",
                    type=spec.type,
                    metavar="N",
                    help=f"{spec.help} (default {spec.default})",
                )
            offered[option].append(name)
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
    lim = match.add_argument_group("limits (default: the game's seed values; 'none' lifts one)")
    lim.add_argument(
        "--startup-timeout", type=_seconds_or_none, metavar="S", help="seconds to the first answer"
    )
    lim.add_argument(
        "--decision-timeout", type=_seconds_or_none, metavar="S", help="seconds per later answer"
    )
    lim.add_argument("--cpu-limit", type=_seconds_or_none, metavar="S", help="CPU seconds per bot per match")
    lim.add_argument(
        "--memory-limit", type=_mib_or_none, metavar="MIB", help="resident MiB of a bot's process tree"
    )
    lim.add_argument(
        "--address-space-limit", type=_mib_or_none, metavar="MIB", help="RLIMIT_AS per process (off)"
    )

    sub.add_parser("games", help="list the games")

    bench = sub.add_parser("bench", help="measure the I/O path against the raw C figure")
    bench.add_argument("--round-trips", type=int, default=200_000)
    bench.add_argument("--games", type=int, default=1000)
    return parser


def _limits_from(args: argparse.Namespace) -> LimitsOverride | None:
    fields = {
        "startup_s": args.startup_timeout,
        "decision_s": args.decision_timeout,
        "cpu_s": args.cpu_limit,
        "memory_bytes": args.memory_limit,
        "address_space_bytes": args.address_space_limit,
    }
    fields = {k: v for k, v in fields.items() if v is not None}
    return LimitsOverride(**fields) if fields else None


def _build(specs: Sequence[BotSpec]) -> None:
    for spec in specs:
        if not spec.build:
            continue
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
            raise MatchError(f"bot {spec.name}: build took over {BUILD_TIMEOUT_S} s") from None
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise MatchError(f"bot {spec.name}: build failed ({done.returncode}): {tail[0]}")


def _print_table(result: MatchResult, elapsed: float, stderr_dir: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=150)
    title = f"{result.game}: {result.games_played} games, seed {result.seed}, {elapsed:.1f} s, sandbox {result.sandbox}"
    table = Table(title=title)
    headers = (
        "bot",
        "W",
        "L",
        "D",
        "mean score",
        "forfeits",
        "CPU s",
        "peak MiB",
        "decisions",
        "µs/decision",
        "max ms",
    )
    tally_keys = sorted({key for p in result.players for key in p.get("tallies", {})})
    headers += tuple(key.replace("_", " ") for key in tally_keys)
    for header in headers:
        table.add_column(header, justify="left" if header in ("bot", "forfeits") else "right", no_wrap=True)
    for p in result.players:
        forfeits = ", ".join(f"{k} {v}" for k, v in p["forfeits"].items()) or "-"
        table.add_row(
            p["name"],
            str(p["wins"]),
            str(p["losses"]),
            str(p["draws"]),
            f"{p['mean_score']:.2f}",
            forfeits,
            f"{p['cpu_seconds']:.2f}",
            f"{p['peak_rss_bytes'] / MiB:.1f}",
            str(p["decisions"]),
            f"{p['mean_decision_us']:.1f}",
            f"{p['max_decision_us'] / 1e3:.1f}",
            *(f"{p.get('tallies', {}).get(key, 0):g}" for key in tally_keys),
        )
    console.print(table)
    for p in result.players:
        for f in p["forfeit_details"][:3]:
            where = f"game {f['game']}" + (f", decision {f['decision']}" if f["decision"] >= 0 else "")
            reply = f" (reply {f['reply']!r})" if f.get("reply") is not None else ""
            console.print(
                f"  {p['name']}: {f['verdict']} at {where}: {f['detail']}{reply}",
                markup=False,
                highlight=False,
            )
    isolation = sorted({re.sub(r"uid \d+", "uid of its own", p["sandbox"]) for p in result.players})
    for line in isolation:
        console.print(f"isolation: {line}", markup=False, highlight=False)
    if stderr_dir.exists() and any(stderr_dir.iterdir()):
        console.print(f"bots' stderr: {stderr_dir}", highlight=False)


def _say_sandbox(layer: sandbox.Layer) -> None:
    """One line on stderr, before the match, when the layer in force leaves something
    open that this machine could close (or when even its strongest is not the
    namespaces layer).  The layer itself is in the results' title and isolation line."""
    warning = sandbox.advice(layer)
    if warning is None and layer is not sandbox.Layer.NONE:
        warning = sandbox.best_possible_note()
    if warning is not None:
        print(f"referee: {warning}", file=sys.stderr)


def _unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written (checked before the match: a finished match must
    never be lost to a typo in an output path), or None."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"{path} is a directory"
    if not parent.is_dir():
        return f"no such directory: {parent}"
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{path} is not writable"
    return None


def cmd_match(args: argparse.Namespace) -> int:
    try:
        specs = unique_names(resolve(arg) for arg in args.bots)
    except BotSpecError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.games < 1:
        print("referee: --games must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    outputs = [("--json", args.json), ("--log", args.log), *(("--export", p) for _, p in args.export)]
    for flag, path in outputs:
        problem = _unwritable(path) if path else None
        if problem is not None:
            print(f"referee: {flag} {path}: {problem}", file=sys.stderr)
            return EXIT_USAGE
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    config = MatchConfig(
        game=args.game,
        games=args.games,
        seed=seed,
        recover=args.recover,
        pin=args.pin,
        sandbox=args.sandbox,
        allow_root_bots=args.allow_root_bots,
        limits=_limits_from(args),
        log_path=args.log,
        exports=dict(args.export),
        stderr_dir=args.stderr_dir,
        options={
            k.removeprefix("option_"): v
            for k, v in vars(args).items()
            if k.startswith("option_") and v is not None
        },
    )
    try:
        game = games.get(args.game)(**config.options)
        match = Match(game, specs, config)
        if args.build:
            _build(specs)
        else:
            for spec in specs:
                if spec.build:
                    print(
                        f"referee: not running bot {spec.name}'s build command ({spec.build!r}): a build runs "
                        "outside the sandbox; pass --build to run it (only for bots you trust)",
                        file=sys.stderr,
                    )
    except (MatchError, TypeError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE

    _say_sandbox(match.layer)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn(f"{game.name} seed {seed}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=args.quiet or not sys.stderr.isatty(),
        transient=True,
    )
    task = progress.add_task("games", total=config.games)

    def on_game(outcome: GameOutcome) -> None:
        progress.advance(task)

    started = time.perf_counter()
    code = EXIT_OK
    try:
        with progress:
            result = trio.run(match.run, on_game)
    except MatchError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_CANNOT_START
    except KeyboardInterrupt:
        result = match.result()
        code = EXIT_INTERRUPTED
        print(f"referee: interrupted after {result.games_played} games", file=sys.stderr)
    elapsed = time.perf_counter() - started
    if args.json:
        Path(args.json).write_bytes(msgspec.json.format(msgspec.json.encode(result)) + b"\n")
    _print_table(result, elapsed, match.stderr_dir)
    return code


def cmd_games(_: argparse.Namespace) -> int:
    for name, cls in games.available().items():
        seats = f"{cls.seats.start}" if len(cls.seats) == 1 else f"{cls.seats.start}-{cls.seats.stop - 1}"
        print(f"{name:12} {seats:>5} seats  {cls.title}")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from referee import bench

    return bench.main(round_trips=args.round_trips, games=args.games)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"match": cmd_match, "games": cmd_games, "bench": cmd_bench}[args.command]
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
