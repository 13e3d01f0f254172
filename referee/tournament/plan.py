"""Which matches a tournament plays, stage by stage, from the outcomes so far.

A tournament has up to three stages, each played to its end before the next begins:

1. **Qualification** (``--qualify BOT``): every entrant plays ``BOT`` once, a match of
   ``qualify_games`` games (key ``q-NAME``).  An entrant *beats* it by winning more
   games, or as many and more points in total (:func:`beats`); a tie on both does not
   qualify.  Those that do not beat it are listed apart and play no further.
2. **Seeding** (``--seeding round-robin``, double elimination and Swiss): a round robin
   of ``seeding_games`` games per pair among the qualified bots (keys ``seed-…``) orders
   them by games won, then total score, then the given order.
3. **The format** (:mod:`referee.tournament.formats`) over the qualified bots in seeding
   order.

Like the formats, :class:`Plan` keeps no state: :meth:`Plan.next` is a function of the
configuration and the outcomes so far, so a resumed tournament continues where the
store left off.  The same holds for :meth:`Plan.main_format`, which the standings use.

**Bots that live for the whole tournament** (``Game.lifetime``, dice poker and Liar's
Dice): a format that repeats its schedule (round robin, gauntlet) is played the way
dice poker's seed plays it — "in each round, each pair of AIs will play one deal":
each pairing is *one* match of ``games × rounds`` games, played ``games`` games at a
time (a *slice*), every pairing's slice of round 1, then every pairing's slice of round
2, and so on (:attr:`Planned.slice`).  Seats alternate game by game, so every second
round swaps them, as the format would.

Every match's seed is :func:`match_seed` of the tournament's seed and its key: the same
on any machine, in any order, at any concurrency.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.core.records import MatchRecord
from referee.games import Game, Lifetime
from referee.stats.sprt import standing_problem
from referee.tournament.config import ConfigError, TournamentConfig, rounds_of
from referee.tournament.formats import (
    FORMATS,
    BotTally,
    DoubleElimination,
    Format,
    Gauntlet,
    MatchOutcome,
    RoundRobin,
    Swiss,
    Tables,
)
from referee.tournament.formats._abc import RepeatedRounds

QUALIFY = "qualify"
SEEDING = "seeding"
MAIN = "main"
#: Match keys of the qualification (``q-NAME``) and the seeding round robin (``seed-…``).
QUALIFY_PREFIX = "q-"
SEEDING_PREFIX = "seed-"
#: Formats whose whole schedule is known in advance (it does not depend on results).
STATIC_FORMATS = frozenset(name for name, cls in FORMATS.items() if issubclass(cls, (RepeatedRounds, Tables)))
#: Formats whose matches are between two bots.
TWO_SEAT_FORMATS = frozenset({"gauntlet", "double-elimination", "swiss"})


@dataclass(frozen=True, slots=True)
class Planned:
    """One match to play."""

    key: str
    #: Bot names in seat order (seat 0 first).
    bots: tuple[str, ...]
    games: int
    stage: str
    #: Games per slice when the match is played a slice at a time between other matches
    #: (bots that live for the whole tournament); ``None``: all at once.
    slice: int | None = None


def qualify_key(bot: str) -> str:
    """The key of ``bot``'s qualification match."""
    return QUALIFY_PREFIX + bot


def match_seed(tournament_seed: int, key: str) -> int:
    """The seed of match ``key``: 64 bits of SHA-256 over the tournament seed and the key."""
    digest = hashlib.sha256(f"{tournament_seed}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


#: The outcome kept for a finished match whose tallies nobody reads (:meth:`Plan.needs_tallies`).
DONE = MatchOutcome("", {})


def outcome_of(key: str, record: MatchRecord) -> MatchOutcome:
    """A finished match as the formats see it: games won, drawn, lost and total score per bot."""
    return MatchOutcome(
        key,
        {
            p.name: BotTally(won=p.wins, drawn=p.draws, lost=p.losses, score=round(p.mean_score * p.games, 9))
            for p in record.players
        },
    )


def beats(outcome: MatchOutcome, bot: str, other: str) -> bool:
    """Whether ``bot`` beat ``other``: more games won, or as many and a higher total score."""
    mine, theirs = outcome.tallies[bot], outcome.tallies[other]
    return (mine.won, mine.score) > (theirs.won, theirs.score)


def seats_of(config: TournamentConfig, game: type[Game]) -> int:
    """Seats per match: 2, or the table size (``tables``, a multi-seat round robin)."""
    if config.format in TWO_SEAT_FORMATS:
        return 2
    if config.table_size is not None:
        return config.table_size
    return game.seats.default if config.format == "tables" else (2 if 2 in game.seats else game.seats.default)


def check(config: TournamentConfig, game: type[Game]) -> None:
    """Refuse a configuration that cannot make a tournament, in one line (ConfigError)."""
    if config.format not in FORMATS:
        raise ConfigError(f"no format {config.format!r} (formats: {', '.join(FORMATS)})")
    for name, value in (("games", config.games), ("rounds", config.rounds), ("tables", config.tables)):
        if value is not None and value < 1:
            raise ConfigError(f"--{name} must be at least 1")
    for name, value in (("qualify-games", config.qualify_games), ("seeding-games", config.seeding_games)):
        if value is not None and value < 1:
            raise ConfigError(f"--{name} must be at least 1")
    if config.give_up_after < 1:
        raise ConfigError("--give-up-after must be at least 1")
    if len(set(config.everyone)) != len(config.everyone):
        raise ConfigError("bot names must be distinct")
    seats = seats_of(config, game)
    if seats not in game.seats:
        raise ConfigError(
            f"{game.name} is played by {game.seats.wanted()} bots; format {config.format} seats {seats}"
        )
    if config.rounds is not None and config.format == "double-elimination":
        raise ConfigError("--rounds is not for double-elimination: its bracket decides the rounds")
    if config.table_size is not None and config.format not in ("tables", "round-robin"):
        raise ConfigError("--table-size is for the tables and round-robin formats")
    least = max(2, seats)
    if len(config.field) < least:
        raise ConfigError(f"format {config.format} needs at least {least} bots, got {len(config.field)}")
    if config.format == "gauntlet":
        if not config.candidates:
            raise ConfigError("a gauntlet needs --candidates: the bots that play everyone else")
        unknown = [c for c in config.candidates if c not in config.field]
        if unknown:
            raise ConfigError(f"--candidates names bots not in the field: {', '.join(unknown)}")
        if len(set(config.candidates)) == len(config.field):
            raise ConfigError("a gauntlet needs at least one bot that is not a candidate")
    elif config.candidates:
        raise ConfigError("--candidates is for the gauntlet format")
    if config.sprt is not None and (config.format not in ("gauntlet", "round-robin") or seats != 2):
        raise ConfigError("--sprt is for gauntlets and round robins of two-bot matches")
    if config.sprt is not None:
        problem = standing_problem(config.sprt, game.name, game.standing)
        if problem:
            raise ConfigError(f"--sprt: {problem}")
    if config.seeding not in ("given", "round-robin"):
        raise ConfigError(f"--seeding must be given or round-robin, got {config.seeding!r}")
    if config.seeding != "given" and config.format not in ("double-elimination", "swiss"):
        raise ConfigError("--seeding is for the double-elimination and swiss formats")
    if config.qualifier is not None and config.qualifier in config.field:
        raise ConfigError(f"the qualifier {config.qualifier} is also an entrant")
    if config.qualifier is not None and 2 not in game.seats:
        raise ConfigError(f"{game.name} cannot seat two bots: qualification is a two-bot match")


class Plan:
    """A tournament's matches, stage by stage (see the module's text)."""

    def __init__(self, config: TournamentConfig, game: type[Game]) -> None:
        check(config, game)
        self.config = config
        self.game = game
        self.seats = seats_of(config, game)
        #: Bots live for the whole tournament: repeated schedules are interleaved.
        self.interleaved = game.lifetime is Lifetime.TOURNAMENT

    # ------------------------------------------------------------------ stages

    def qualification(self) -> list[Planned]:
        """Every entrant against the qualifier (none without one)."""
        q = self.config.qualifier
        if q is None:
            return []
        games = self.config.qualify_games or self.config.games
        return [Planned(qualify_key(bot), (bot, q), games, QUALIFY) for bot in self.config.field]

    def qualified(self, outcomes: Mapping[str, MatchOutcome]) -> list[str] | None:
        """The entrants that beat the qualifier, in the given order; ``None`` until every
        qualification match is done (everyone, without a qualifier)."""
        q = self.config.qualifier
        if q is None:
            return list(self.config.field)
        if any(p.key not in outcomes for p in self.qualification()):
            return None
        return [b for b in self.config.field if beats(outcomes[qualify_key(b)], b, q)]

    def seeding(self, entrants: Sequence[str]) -> list[Planned]:
        """The seeding round robin among ``entrants`` (none unless asked for)."""
        if self.config.seeding != "round-robin" or len(entrants) < 2:
            return []
        games = self.config.seeding_games or self.config.games
        rr = RoundRobin(entrants)
        return [Planned(SEEDING_PREFIX + p.match_id, p.bots, games, SEEDING) for p in rr.schedule()]

    def seeded(self, outcomes: Mapping[str, MatchOutcome]) -> list[str] | None:
        """The entrants in seeding order; ``None`` until qualification and seeding are done."""
        entrants = self.qualified(outcomes)
        if entrants is None:
            return None
        matches = self.seeding(entrants)
        if not matches:
            return entrants
        if any(p.key not in outcomes for p in matches):
            return None
        won = dict.fromkeys(entrants, 0)
        score = dict.fromkeys(entrants, 0.0)
        for p in matches:
            for bot, tally in outcomes[p.key].tallies.items():
                won[bot] += tally.won
                score[bot] += tally.score
        given = {b: i for i, b in enumerate(entrants)}
        return sorted(entrants, key=lambda b: (-won[b], -score[b], given[b]))

    def main_format(self, outcomes: Mapping[str, MatchOutcome]) -> Format | None:
        """The format over the seeded entrants; ``None`` until they are known, or when
        too few qualified for it."""
        entrants = self.seeded(outcomes)
        if entrants is None or len(entrants) < max(2, self.seats):
            return None
        c = self.config
        rounds = rounds_of(c, len(entrants))
        if c.format == "round-robin":
            return RoundRobin(entrants, rounds=rounds, seats=self.seats)
        if c.format == "gauntlet":
            candidates = [b for b in c.candidates if b in entrants]
            if not candidates or len(candidates) == len(entrants):
                return None
            return Gauntlet(entrants, candidates, rounds=rounds)
        if c.format == "double-elimination":
            return DoubleElimination(entrants)
        if c.format == "swiss":
            return Swiss(entrants, rounds=rounds)
        if c.format == "tables":
            tables = c.tables if c.tables is not None else len(entrants) * rounds
            return Tables(entrants, self.seats, tables, seed=match_seed(c.seed, "tables") % (1 << 63))
        raise ConfigError(f"no format {c.format!r}")

    def main(self, fmt: Format, outcomes: Mapping[str, MatchOutcome]) -> list[Planned] | None:
        """The format's next matches (all of a static schedule), or None when it is over."""
        c = self.config
        if self.interleaved and isinstance(fmt, RepeatedRounds):
            # One match per pairing over every round, played a round's games at a time.
            rounds = fmt.rounds
            first = fmt.round(1)
            planned = [Planned(p.match_id, p.bots, c.games * rounds, MAIN, slice=c.games) for p in first]
            left = [p for p in planned if p.key not in outcomes]
            return left or None
        if isinstance(fmt, (RepeatedRounds, Tables)):
            schedule = fmt.schedule() if isinstance(fmt, RepeatedRounds) else list(fmt.schedule)
            left = [
                Planned(p.match_id, p.bots, c.games, MAIN) for p in schedule if p.match_id not in outcomes
            ]
            return left or None
        pairings = fmt.next_round([o for o in outcomes.values()])
        if pairings is None:
            return None
        return [Planned(p.match_id, p.bots, c.games, MAIN) for p in pairings if not p.is_bye]

    # ------------------------------------------------------------------ the whole

    def next(self, outcomes: Mapping[str, MatchOutcome]) -> list[Planned] | None:
        """The matches to play now — those of the current stage (or round) without an
        outcome — or ``None`` when the tournament is over.  Play all of them, then ask again."""
        left = [p for p in self.qualification() if p.key not in outcomes]
        if left:
            return left
        entrants = self.qualified(outcomes)
        assert entrants is not None
        left = [p for p in self.seeding(entrants) if p.key not in outcomes]
        if left:
            return left
        fmt = self.main_format(outcomes)
        if fmt is None:
            return None
        planned = self.main(fmt, outcomes)
        if planned is None:
            return None
        return [p for p in planned if p.key not in outcomes] or None

    def needs_tallies(self, key: str) -> bool:
        """Whether :meth:`next` reads the outcome of match ``key`` beyond its being done:
        qualification and seeding matches, and the matches of formats that pair by
        results (Swiss, double elimination).  A static schedule's matches only need to be
        known as done — the runner keeps no more of them, so its memory stays flat over
        tens of thousands of matches (the store has everything)."""
        return self.stage_of(key) != MAIN or self.adaptive

    @property
    def adaptive(self) -> bool:
        """Whether the format pairs from results (Swiss, double elimination)."""
        return self.config.format not in STATIC_FORMATS

    def stage_of(self, key: str) -> str:
        if key.startswith(QUALIFY_PREFIX):
            return QUALIFY
        if key.startswith(SEEDING_PREFIX):
            return SEEDING
        return MAIN
