"""``referee check BOT --game NAME``: the command line of :mod:`referee.check`, which
holds the checklist, how each item is judged and what the verdicts mean.  This module
parses the arguments, runs the check and prints its report.

Exit status: 0 every item passed, 1 an item failed, 2 a usage error, 3 the bot could not
be started at all, 128 + N after signal N (Ctrl-C: 130).  An item that cannot be judged
(the bot never answered, the check was stopped) is "skip", with the reason; it fails
nothing by itself, and comes with the failure that made it moot.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from referee import games
from referee.check.judge import judge, note_unbuilt
from referee.check.opponents import opponent_specs
from referee.check.report import EXIT_CANNOT_START, EXIT_USAGE, exit_status, render, report
from referee.check.run import check_bot, seats_needed
from referee.cli import arguments
from referee.core import interrupts
from referee.core.botspec import BotSpecError, resolve
from referee.core.seeding import fresh_seed
from referee.seats.process import sandbox

DEFAULT_GAMES = 10


# ---------------------------------------------------------------------------- command line


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to ``referee``'s subparsers."""
    check = subparsers.add_parser(
        "check",
        help="check that a bot keeps the protocol, before a tournament",
        description="Play a few short games between BOT and the game's reference player, pose every "
        "kind of line the game has, and print a checklist: startup, answers, extra output, legal moves, "
        "decision time, memory, exit on EOF, coverage. Exit status 0 when every item passes, 1 when one "
        "fails, 2 for a usage error, 3 when the bot cannot be started.",
    )
    check.add_argument("bot", metavar="BOT", help="executable, quoted command, or directory with bot.toml")
    check.add_argument(
        "--game", default="yahtzee", choices=list(games.available()), help="which game (default yahtzee)"
    )
    check.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"random games besides the positions (default {DEFAULT_GAMES})",
    )
    check.add_argument(
        "--seed",
        type=arguments.match_seed,
        help="seed of the random games, 0 to 2**64-1 (default: random, printed)",
    )
    check.add_argument("--json", metavar="PATH", help="also write the checklist as JSON here")
    check.add_argument(
        "--opponent",
        metavar="BOT",
        help="play against this bot instead of the game's reference player (it should never fault)",
    )
    check.add_argument(
        "--sandbox",
        choices=sandbox.CHOICES,
        default="auto",
        help="isolation layer, as for `referee match` (default auto)",
    )
    check.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin referee and bots to one core"
    )
    check.add_argument(
        "--build",
        action="store_true",
        help="run the bot's bot.toml build command first, as `referee match --build` does — with your "
        "privileges, outside the sandbox: only for bots you trust",
    )
    check.add_argument(
        "--allow-root-bots",
        action="store_true",
        help="as root, run a bot whose files other users cannot read as root (never for untrusted code)",
    )
    arguments.add_game_options(check, "game options (as for `referee match`)")
    arguments.add_limit_options(check, "limits (default: the game's, as in `referee match`)", full=False)
    return check


def main(args: argparse.Namespace) -> int:
    """Run ``referee check`` with parsed arguments; the exit status."""
    game_cls = games.get(args.game)
    if args.games < 0:
        print("referee: --games must be 0 or more", file=sys.stderr)
        return EXIT_USAGE
    options = arguments.game_options(args, only=game_cls)
    override = arguments.limits_from(args)
    try:
        game = game_cls(**options)
        bot = resolve(args.bot)
        opponents = opponent_specs(game_cls, args.opponent, bot, seats_needed(game) - 1)
        layer = sandbox.choose(args.sandbox)
    except (BotSpecError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if bot.build and args.build:
        from referee.cli.commands import build_bot  # the same build as `referee match --build`

        bot, failure = build_bot(bot)
        if failure is not None:
            print(f"referee: bot {bot.name} cannot start: {failure}", file=sys.stderr)
            return EXIT_CANNOT_START
    elif bot.build:
        print(
            f"referee: not running bot {bot.name}'s build command ({bot.build}): a build runs outside "
            "the sandbox; pass --build to run it (only for bots you trust)",
            file=sys.stderr,
        )
    if args.json:
        parent = Path(args.json).parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            print(f"referee: --json {args.json}: cannot write there", file=sys.stderr)
            return EXIT_USAGE
    warning = sandbox.advice(layer)
    if warning is None and layer is not sandbox.Layer.NONE:
        warning = sandbox.best_possible_note()
    if warning is not None:
        print(f"referee: {warning}", file=sys.stderr)
    seed = args.seed if args.seed is not None else fresh_seed()
    # A stop signal ends the check cleanly (bots closed) and prints what it found so far.
    with interrupts.catching() as guard:
        guard.raising = False
        run = check_bot(
            game_cls,
            options,
            bot,
            opponents,
            seed=seed,
            limits=override,
            pin=args.pin,
            sandbox=args.sandbox,
            allow_root_bots=args.allow_root_bots,
            random_games=args.games,
            signals=guard.seen,
        )
    if run.cannot_start and not run.cannot_start.startswith(f"bot {bot.name} "):
        print(f"referee: the opponent cannot start: {run.cannot_start}", file=sys.stderr)
        return EXIT_USAGE
    items = judge(run)
    if bot.build and not args.build and run.cannot_start:
        note_unbuilt(items, bot.build)
    code = exit_status(run, items)
    print(render(run, items, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    if args.json:
        try:
            Path(args.json).write_text(
                json.dumps(report(run, items, code), indent=2, ensure_ascii=False) + "\n"
            )
        except OSError as exc:
            print(f"referee: --json {args.json}: {exc}", file=sys.stderr)
    return code


__all__ = ["add_parser", "main"]
