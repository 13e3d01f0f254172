"""``referee play --game G [BOT…] [--seat K]``: play a game yourself, against bots, at the terminal.

The person takes seat K of a normal :class:`~referee.match.Match` — the same match loop,
rules, limits and verdicts as ``referee match`` — through a
:class:`~referee.seats.human.HumanSeat`; the bots play the other seats as sandboxed
processes.  Without BOTs the opponent is the game's reference player (the one ``referee
check`` uses), heads-up where the game allows it.  Every move is judged by the match
before it is sent: a move a bot would forfeit with is refused with the bot's message,
and asked again.  Each game's result is shown as it ends, the match's at the end.

It is how a student learns the rules before coding them, and how a TA shows a game in
class.  Exit status: 0 the games were played (or the player left with Ctrl-D), 2 a
usage error, 3 a bot could not start, 130 Ctrl-C (the games so far are shown).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio
from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee import games
from referee.check.opponents import opponent_specs
from referee.cli import arguments
from referee.cli.arguments import EXIT_CANNOT_START, EXIT_OK, EXIT_USAGE
from referee.core import interrupts
from referee.core.botspec import BotSpec, BotSpecError, resolve, unique_names
from referee.core.limits import Limits
from referee.core.records import GameRecord, MatchRecord
from referee.core.seeding import fresh_seed
from referee.core.verdict import Forfeit, Verdict, printable
from referee.games.base import Game
from referee.match import Match, MatchConfig, MatchError, Scheduled
from referee.seats import Seat
from referee.seats.boards import board_for
from referee.seats.human import DEFAULT_THINK_S, HumanSeat, clock
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess
from referee.sinks._abc import Sink, Standing


class PlayMatch(Match):
    """A match whose first player is the person, in seat ``seat`` of every game."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[BotSpec],
        config: MatchConfig,
        *,
        seat: int,
        make_human: Any,
        sinks: Sequence[Sink] = (),
    ) -> None:
        super().__init__(game, specs, config, seat_factory=self._seat, sinks=sinks)
        self.human = specs[0].name
        self.human_seat = seat
        self._make_human = make_human

    def schedule(self) -> Iterator[Scheduled]:
        # Seat s is lineup position (s + rotation) % n: this rotation puts the person
        # (position 0) in their seat in every game.
        rotation = -self.human_seat % len(self.players)
        for planned in super().schedule():
            yield msgspec.structs.replace(planned, rotation=rotation)

    def _seat(
        self, spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
    ) -> Seat:
        if spec.name == self.human:
            return self._make_human(limits)
        return BotProcess(
            spec,
            limits,
            stderr_path=stderr_path,
            cpu_budget_s=cpu_budget_s,
            layer=self.layer,
            allow_root=self.config.allow_root_bots,
        )


class PlayReport(Sink):
    """Each game's result as it ends, and every forfeit as it happens, for the person."""

    def __init__(self, console: Console, human: str) -> None:
        self.console = console
        self.human = human

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(printable(text), style=style, markup=False, emoji=False, highlight=False)

    def game(self, record: GameRecord, standing: Standing) -> None:
        table = Table(title=f"Game {record.game + 1} is over", title_style="bold")
        for header in ("seat", "player", "score", "place"):
            table.add_column(header, justify="left" if header == "player" else "right")
        for seat, (name, score, rank) in enumerate(
            zip(record.seats, record.scores, record.ranks, strict=True)
        ):
            table.add_row(
                str(seat), name, f"{score:g}", str(rank), style="bold" if name == self.human else None
            )
        self.console.print(table)
        seat = record.seats.index(self.human)
        rank = record.ranks[seat]
        shared = record.ranks.count(rank) > 1
        if rank == 1 and not shared:
            self._say("You win!", "bold green")
        elif rank == 1:
            self._say("A draw: first place shared.", "bold")
        else:
            self._say(f"You lose (place {rank} of {len(record.ranks)}).", "bold red")

    def forfeit(self, bot: str, forfeit: Forfeit) -> None:
        who = "You forfeit" if bot == self.human else f"{bot} forfeits"
        self._say(f"{who} ({forfeit.verdict.value}): {forfeit.detail}", "red")

    def notice(self, line: str) -> None:
        self._say(line, "yellow")


def print_result(console: Console, result: MatchRecord, human: str) -> None:
    """The match's result: each player's wins, losses, draws, mean score and forfeits."""
    title = f"{result.game}: {result.games_played} game{'s' if result.games_played != 1 else ''}, seed {result.seed}"
    table = Table(title=title, title_style="bold")
    for header in ("player", "W", "L", "D", "mean score", "forfeits"):
        table.add_column(header, justify="left" if header in ("player", "forfeits") else "right")
    for p in result.players:
        forfeits = ", ".join(f"{k} {v}" for k, v in p.forfeits.items()) or "-"
        table.add_row(
            p.name,
            str(p.wins),
            str(p.losses),
            str(p.draws),
            f"{p.mean_score:.2f}",
            forfeits,
            style="bold" if p.name == human else None,
        )
    console.print(table)
    if result.stopped:
        console.print(f"Stopped: {printable(result.stopped)}", style="yellow", markup=False)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``play`` subcommand to ``referee``'s subparsers."""
    play = subparsers.add_parser(
        "play",
        help="play a game yourself against bots, at the terminal",
        description="Play GAME at the terminal against the BOTs (default: the game's reference player), "
        "with the referee's own rules: every move is judged as a bot's would be, and a move a bot would "
        "forfeit with is refused with the same message. Ctrl-C stops, Ctrl-D leaves the game.",
    )
    play.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help="opponents: executable, quoted command, or directory with bot.toml",
    )
    play.add_argument(
        "--game", default="yahtzee", choices=list(games.available()), help="which game (default yahtzee)"
    )
    play.add_argument("--seat", type=int, default=0, metavar="K", help="your seat, 0 first (default 0)")
    play.add_argument("--games", type=int, default=1, metavar="N", help="games to play (default 1)")
    play.add_argument(
        "--seed", type=arguments.match_seed, help="match seed, 0 to 2**64-1 (default: random, printed)"
    )
    play.add_argument(
        "--think",
        type=arguments.seconds_or_none,
        default=DEFAULT_THINK_S,
        metavar="S",
        help=f"your seconds per move, or 'none' (default {DEFAULT_THINK_S:g}; the bots keep the game's limits)",
    )
    play.add_argument("--name", default="you", help="your name in the results (default: you)")
    play.add_argument(
        "--wire", action="store_true", help="also show the protocol's lines, as a bot reads and writes them"
    )
    play.add_argument(
        "--sandbox",
        choices=sandbox.CHOICES,
        default="auto",
        help="the bots' isolation layer, as for `referee match` (default auto)",
    )
    arguments.add_game_options(play, "game options (as for `referee match`)")
    return play


def _say(line: str) -> None:
    print(f"referee: {line}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Run ``referee play`` with parsed arguments; the exit status."""
    game_cls = games.get(args.game)
    options = arguments.game_options(args, only=game_cls)
    if args.games < 1:
        _say("--games must be at least 1")
        return EXIT_USAGE
    human = BotSpec(name=args.name, argv=["(a person at the terminal)"], home=os.getcwd())
    try:
        game = game_cls(**options)
        seats = len(args.bots) + 1 if args.bots else (2 if 2 in game.seats else game.seats.low)
        if args.bots:
            bots = [resolve(bot) for bot in args.bots]
        else:
            bots = opponent_specs(game_cls, None, human, seats - 1)
    except (BotSpecError, ValueError) as exc:
        _say(str(exc))
        return EXIT_USAGE
    if not 0 <= args.seat < seats:
        _say(f"--seat {args.seat}: this game has seats 0 to {seats - 1}")
        return EXIT_USAGE
    human, *bots = unique_names([human, *bots])
    seed = args.seed if args.seed is not None else fresh_seed()
    config = MatchConfig(
        game=game_cls.name, games=args.games, seed=seed, pin=False, sandbox=args.sandbox, options=options
    )
    console = Console(highlight=False)
    holder: dict[str, Any] = {}

    def leave() -> None:
        holder["left"] = True
        match.stopped = "the player left (end of input)"
        scope = holder.get("scope")
        if scope is not None:
            scope.cancel()

    def make_human(limits: Limits) -> HumanSeat:
        seat = HumanSeat(
            board_for(game_cls.name),
            limits,
            think_s=args.think,
            console=console,
            on_leave=leave,
            show_wire=args.wire,
        )
        if holder.get("left"):  # a game that restarts dead seats must not ask again
            seat.kill(Verdict.CRASH, "left the game (end of input)")
        return seat

    try:
        match = PlayMatch(
            game,
            [human, *bots],
            config,
            seat=args.seat,
            make_human=make_human,
            sinks=[PlayReport(console, human.name)],
        )
    except MatchError as exc:
        _say(str(exc))
        return EXIT_USAGE
    warning = sandbox.advice(match.layer)
    if warning is not None:
        _say(warning)
    against = ", ".join(bot.name for bot in bots)
    console.print(
        Text.assemble(
            (game_cls.title, "bold"),
            f"\nYou are seat {args.seat} against {against}; {args.games} game{'s' if args.games > 1 else ''}, "
            f"seed {seed}; {clock(args.think)} per move. The rules: docs/protocols/. "
            "Ctrl-C stops, Ctrl-D leaves.",
        )
    )

    def stopped_by(signum: int) -> None:
        match.stopped = interrupts.describe(signum)

    async def play() -> MatchRecord:
        with trio.CancelScope() as scope:
            holder["scope"] = scope
            return await match.run()
        return match.result()  # the player left: the match was cancelled, and closed

    code = EXIT_OK
    with interrupts.catching() as guard:
        guard.raising = False
        try:
            _, signum = trio.run(interrupts.run_until_signalled, play, guard, stopped_by)
        except MatchError as exc:
            _say(printable(str(exc)))
            code = EXIT_CANNOT_START
        else:
            if signum is not None:
                code = interrupts.exit_status(signum)
        finally:
            shutil.rmtree(match.stderr_dir, ignore_errors=True)
        result = match.result()
        if result.games_played or result.stopped:
            console.print()
            print_result(console, result, human.name)
    return code
