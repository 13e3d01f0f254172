"""``referee plan``: how many games a question needs, and how long they take.

It plays a short pilot between two bots twice — independent deals, then duplicate deals
(each deal once per seat rotation) — measures the variance of each and the speed, and
prints the games or deals needed to detect the difference asked (``--diff``, ``--elo``,
or by default the difference the pilot saw) at ``--confidence`` with ``--power``, with
how long that takes at the measured speed and the concurrency a tournament would use
(:mod:`referee.stats.planning` has the formulas).

Every pilot is bounded twice: ``--pilot`` games and ``--pilot-seconds`` of play.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time

import trio

from referee import games
from referee.cli import arguments
from referee.cli.arguments import EXIT_CANNOT_START, EXIT_OK, EXIT_USAGE
from referee.cli.arguments import say as _say
from referee.core import interrupts
from referee.core.botspec import BotSpecError, resolve, unique_names
from referee.core.records import BotFigures, MatchEvidence, MatchRecord
from referee.core.seeding import fresh_seed
from referee.core.verdict import printable
from referee.games import Standing
from referee.match import Match, MatchConfig, MatchError
from referee.match.evidence import score_rate
from referee.stats.intervals import CONFIDENCE, Moments, expected_score
from referee.stats.planning import Estimate, estimate, variance_reduction

#: Pilot games per mode, and the most seconds of play per mode.
PILOT_GAMES = 400
PILOT_SECONDS = 60.0


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "plan",
        help="how many games telling two bots apart needs (plays a short pilot)",
        description="Play a short pilot between two bots, with and without duplicate deals, and print "
        "how many games or deals detecting a difference needs at the given confidence and power, and "
        "how long that takes at the measured speed.",
    )
    parser.add_argument("bots", nargs="+", metavar="BOT", help="the two bots, as for referee match")
    parser.add_argument("--game", default="yahtzee", choices=list(games.available()), help="which game")
    parser.add_argument(
        "--diff",
        type=float,
        help="the difference to detect, in the --measure: mean score per game (chips per hand in dice "
        "poker and Hold'em) or score rate (0.05 = 55%% against 50%%) (default: the difference the pilot saw)",
    )
    parser.add_argument("--elo", type=float, help="the difference to detect in Elo (games ranked by wins)")
    parser.add_argument(
        "--measure",
        choices=("score", "rate"),
        help="what tells the bots apart: mean score per game (chips, points) or score rate (win 1, "
        "draw ½); default: what ranks the game (score for dice poker and Hold'em, rate for the others)",
    )
    parser.add_argument("--confidence", type=float, default=CONFIDENCE, help="two-sided (default 0.95)")
    parser.add_argument("--power", type=float, default=0.8, help="chance of detecting it (default 0.8)")
    parser.add_argument(
        "--pilot",
        type=int,
        default=PILOT_GAMES,
        metavar="N",
        help=f"pilot games per mode (default {PILOT_GAMES})",
    )
    parser.add_argument(
        "--pilot-seconds",
        type=float,
        default=PILOT_SECONDS,
        metavar="S",
        help=f"stop each pilot after S seconds of play (default {PILOT_SECONDS:g})",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="C",
        help="matches at once for the time estimate (default: what referee tournament would use)",
    )
    parser.add_argument("--seed", type=arguments.match_seed, help="pilot seed (default: random, printed)")
    parser.add_argument(
        "--sandbox", default="auto", help="isolation layer, as for referee match (default auto)"
    )
    arguments.add_game_options(parser, "game options")
    return parser


def main(args: argparse.Namespace) -> int:
    problem = _check(args)
    if problem:
        _say(problem)
        return EXIT_USAGE
    try:
        specs = unique_names(resolve(arg) for arg in args.bots)
    except BotSpecError as exc:
        _say(str(exc))
        return EXIT_USAGE
    game_class = games.get(args.game)
    if 2 not in game_class.seats:
        _say(f"{game_class.name} cannot seat two bots")
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else fresh_seed()
    options = arguments.game_options(args)
    try:
        game = game_class(**options)
    except (TypeError, ValueError) as exc:
        _say(str(exc))
        return EXIT_USAGE
    by_score = _by_score(args)
    pilots: list[tuple[str, MatchRecord, float]] = []
    with interrupts.catching() as guard:
        guard.raising = False
        for mode in ("single", "duplicate"):
            config = MatchConfig(
                game=args.game,
                games=args.pilot,
                seed=seed,
                duplicate=mode == "duplicate",
                sandbox=args.sandbox,
                options=options,
                keep_going=False,
            )
            try:
                match = Match(game, specs, config)
            except (MatchError, ValueError) as exc:
                _say(str(exc))
                return EXIT_USAGE
            _say(f"pilot, {mode} deals: up to {match.games_requested} games or {args.pilot_seconds:g} s")
            try:
                record, seconds = trio.run(_pilot, match, args.pilot_seconds)
            except MatchError as exc:
                _say(printable(str(exc)))
                return EXIT_CANNOT_START
            if guard.seen:
                _say("interrupted")
                return interrupts.exit_status(guard.seen[0])
            _say(f"pilot, {mode} deals: {record.games_played} games in {seconds:.1f} s")
            broken = _broken(record)
            if broken is not None:
                _say(broken)
                return EXIT_CANNOT_START
            for line in _faults(record):
                _say(line)
            pilots.append((mode, record, seconds))
    from referee.tournament.runner import default_concurrency  # what referee tournament would use

    concurrency = args.concurrency or default_concurrency(game_class)
    with contextlib.suppress(OSError):
        for line in report(pilots, args, by_score, concurrency, seed):
            print(line)
    return EXIT_OK


def _broken(record: MatchRecord) -> str | None:
    """Why there is nothing to plan: a bot that forfeited in half the pilot's games or
    more (a crashed bot forfeits every decision after) — the plan would measure a bot
    that does not play."""
    for p in record.players:
        if p.games and 2 * sum(p.forfeits.values()) >= p.games:
            return f"{_forfeited(p)}: fix it first (referee check BOT), there is nothing to plan"
    if record.games_played == 0:
        return record.stopped or "the pilot played no game"
    return None


def _faults(record: MatchRecord) -> list[str]:
    """A warning per bot that forfeited some pilot games: the plan measures it as it played."""
    return [
        f"warning: {_forfeited(p)}: the plan measures it as it played"
        for p in record.players
        if sum(p.forfeits.values())
    ]


def _forfeited(p: BotFigures) -> str:
    verdicts = ", ".join(f"{v} {n}" for v, n in p.forfeits.items())
    return f"bot {p.name} forfeited {sum(p.forfeits.values())} of {p.games} pilot games ({verdicts})"


async def _pilot(match: Match, seconds: float) -> tuple[MatchRecord, float]:
    """Play the match for at most ``seconds``; its record and the seconds of play."""
    started = time.perf_counter()
    with trio.move_on_after(seconds) as scope:
        record = await match.run()
    if scope.cancelled_caught:
        record = match.result()
    return record, time.perf_counter() - started


def report(
    pilots: list[tuple[str, MatchRecord, float]],
    args: argparse.Namespace,
    by_score: bool,
    concurrency: int,
    seed: int,
) -> list[str]:
    """The planner's lines (module docstring)."""
    first, second = (p.name for p in pilots[0][1].players)
    measure = (
        f"{first}'s edge per game (half its score minus {second}'s)"
        if by_score
        else f"{first}'s score rate (win 1, draw ½) minus ½"
    )
    null = 0.0 if by_score else 0.5
    lines = [f"{pilots[0][1].game}: {first} vs {second}, pilot seed {seed}; measure: {measure}"]
    estimates: list[tuple[Estimate, float]] = []
    diff = _difference(args, pilots, by_score, null)
    if diff is None:
        return [*lines, "the pilot saw no difference and none was given: pass --diff or --elo"]
    for mode, record, seconds in pilots:
        evidence = record.evidence
        if evidence is None or evidence.units < 2:
            lines.append(f"{mode} deals: the pilot played too few games to measure anything")
            continue
        est = estimate(
            mode, _measure(evidence, by_score), evidence.games_per_unit, diff, args.confidence, args.power
        )
        per_game = seconds / max(1, record.games_played)
        estimates.append((est, per_game))
    unit = "per game" if by_score else ""
    lines.append(
        f"question: detect a difference of {diff:g} {unit}".rstrip()
        + f" (two-sided {args.confidence:.0%}, power {args.power:.0%}); time at {concurrency} "
        f"match{'es' if concurrency > 1 else ''} at once and the pilot's speed"
    )
    for est, per_game in estimates:
        iv = est.observed
        half = iv.half_width or 0.0
        label = "independent deals" if est.mode == "single" else f"duplicate deals (x{est.games_per_unit})"
        lines.append(
            f"  {label:26} pilot {_count(iv.n, 'deal')}: {iv.mean - null:+.4f} ± {half:.4f}, σ/deal "
            f"{iv.sd:.4f}, σ²/game {est.variance_per_game:.4g} → {_count(est.units_needed, 'deal')} = "
            f"{_count(est.games_needed, 'game')}, ~{_duration(est.games_needed * per_game / concurrency)} "
            f"({1 / per_game:,.0f} games/s)"
        )
    if len(estimates) == 2 and min(e.observed.sd for e, _ in estimates) == 0:
        lines.append(
            "the pilot's deals all scored alike in one mode: no variance to compare (a longer pilot, "
            "or bots closer in strength)"
        )
    elif len(estimates) == 2:
        ratio = variance_reduction(estimates[0][0], estimates[1][0])
        saved = 1 - estimates[1][0].games_needed / estimates[0][0].games_needed
        if abs(saved) < 0.005:
            advice = "about as many games either way"
        elif saved > 0:
            advice = f"{saved:.0%} fewer games for the same question: use --duplicate"
        else:
            advice = f"{-saved:.0%} more games: play independent deals"
        lines.append(
            f"duplicate deals: variance per game ÷{ratio:.2f}, {advice} (from the pilot: a short pilot "
            "can tip it either way)"
        )
    return lines


def _difference(
    args: argparse.Namespace, pilots: list[tuple[str, MatchRecord, float]], by_score: bool, null: float
) -> float | None:
    if args.elo is not None:
        return abs(expected_score(args.elo) - 0.5)
    if args.diff is not None:
        return abs(args.diff)
    # The pilot's own difference, from the independent deals.
    evidence = pilots[0][1].evidence
    if evidence is None or evidence.units == 0:
        return None
    seen = _measure(evidence, by_score).mean - null
    return abs(seen) if seen != 0 else None


def _measure(evidence: MatchEvidence, by_score: bool) -> Moments:
    """The per-deal sample the question is about: the first bot's edge per game, or its
    score rate."""
    return (evidence.edge or evidence.scores[0]) if by_score else score_rate(evidence)


def _by_score(args: argparse.Namespace) -> bool:
    """Whether the measure is score (``--measure``, else what ranks the game)."""
    if args.measure is not None:
        return args.measure == "score"
    return games.get(args.game).standing is Standing.SCORE


def _check(args: argparse.Namespace) -> str | None:
    if len(args.bots) != 2:
        return f"referee plan compares two bots; {len(args.bots)} were given"
    if args.pilot < 4:
        return "--pilot must be at least 4 games"
    if not args.pilot_seconds > 0:
        return "--pilot-seconds must be positive"
    if args.diff is not None and args.elo is not None:
        return "give --diff or --elo, not both"
    if args.diff is not None and (args.diff == 0 or not math.isfinite(args.diff)):
        return "--diff must be a non-zero number"
    if args.elo is not None and (args.elo == 0 or not math.isfinite(args.elo)):
        return "--elo must be a non-zero number"
    by_score = _by_score(args)
    if args.elo is not None and by_score:
        return "--elo is a difference of score rate: give --diff in score per game, or --measure rate"
    if args.diff is not None and not by_score and abs(args.diff) >= 0.5:
        return "--diff is a score rate's distance from ½ with --measure rate: less than 0.5"
    for name in ("confidence", "power"):
        value = getattr(args, name)
        if not 0 < value < 1:
            return f"--{name} must be between 0 and 1"
    if args.concurrency is not None and args.concurrency < 1:
        return "--concurrency must be at least 1"
    return None


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
