"""The tournament-format interface: which matches to play next, given what has been played.

A *format* is pure scheduling logic.  It never runs a bot, reads a file or looks at the
clock; it is told the outcomes of the matches played so far and answers with the next
matches to play.  The tournament runner drives it in a loop::

    results: list[MatchOutcome] = []
    while (pairings := fmt.next_round(results)) is not None:
        for pairing in pairings:
            if pairing.is_bye or pairing.match_id in played:
                continue                       # a bye is never played
            results.append(play(pairing))      # the runner's business

A format keeps no state between calls: ``next_round(results)`` is a function of the
format's configuration (bots, options, seed) and ``results`` alone.  Two consequences
the runner can rely on:

* **Resume is free.**  After a crash, the outcomes read back from the store are all a
  format needs: it answers with the same round it would have answered before the crash.
* **A round is answered until it is complete.**  Calling ``next_round`` with some of a
  round's matches played returns that round again, whole; the runner skips the matches
  it has.  Only when every match of the round has an outcome does the next round come.

Outcomes whose ``match_id`` the format does not know (a qualification round, say) are
ignored, so the runner may pass its whole history.

Static formats (round robin, gauntlet, tables) answer with their whole schedule as one
round, ordered so that a runner playing it front to back keeps every bot busy; adaptive
formats (Swiss, double elimination) look at the results.

Determinism: the same configuration and seed give the same pairings; where an order must
be randomised a format uses its own ``random.Random(seed)``, never the global one.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match to play: the bots in seat order, under an id stable across runs.

    ``bots[0]`` takes seat 0 (the first player in two-seat games).  A pairing of a single
    bot is a *bye*: nothing is played and the format never waits for its outcome; the
    format says in its docstring what a bye is worth.
    """

    match_id: str
    bots: tuple[str, ...]

    @property
    def is_bye(self) -> bool:
        """True when there is no match to play: one bot, no opponent."""
        return len(self.bots) == 1


@dataclass(frozen=True, slots=True)
class BotTally:
    """One bot's side of a finished match: games won, drawn and lost, and its total score."""

    won: int = 0
    drawn: int = 0
    lost: int = 0
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What a format needs to know about a finished match.

    ``tallies`` maps each bot of the match to its :class:`BotTally`.  The runner makes one
    from a ``MatchRecord``; tests make them by hand with :func:`outcome`.
    """

    match_id: str
    tallies: Mapping[str, BotTally]

    def winner(self, seed_rank: Mapping[str, int] | None = None) -> str:
        """The bot that won the match, for formats that need one.

        The rule (documented for every format that uses it): most games won; on equal
        games won, the higher total score; on equal score too, the better seed (the lower
        ``seed_rank``; without one, the first bot of the tally, i.e. seat 0).
        """
        rank = seed_rank or {bot: i for i, bot in enumerate(self.tallies)}
        return min(
            self.tallies,
            key=lambda bot: (-self.tallies[bot].won, -self.tallies[bot].score, rank.get(bot, len(rank))),
        )

    def points(self, bot: str) -> float:
        """Match points for ``bot`` in a two-bot match: 1 for more games won, ½ for as many, 0 else."""
        mine = self.tallies[bot].won
        others = [t.won for b, t in self.tallies.items() if b != bot]
        best = max(others, default=mine)
        return 1.0 if mine > best else 0.5 if mine == best else 0.0


def outcome(match_id: str, scores: Mapping[str, tuple[int, int, int, float] | int]) -> MatchOutcome:
    """A :class:`MatchOutcome` from ``{bot: (won, drawn, lost, score)}`` or ``{bot: won}``.

    A shorthand for tests and scripts: ``outcome("W1-1", {"a": 3, "b": 1})`` is a match
    ``a`` won 3 games to 1 (drawn, lost and score filled in as the games imply).
    """
    tallies: dict[str, BotTally] = {}
    total = sum(v if isinstance(v, int) else v[0] for v in scores.values())
    for bot, value in scores.items():
        if isinstance(value, int):
            tallies[bot] = BotTally(won=value, lost=total - value, score=float(value))
        else:
            tallies[bot] = BotTally(*value)
    return MatchOutcome(match_id, tallies)


class Format(abc.ABC):
    """A tournament format: the matches to play, round by round.

    Subclasses set ``name`` (the ``--format`` value) and implement :meth:`next_round`.
    """

    #: The ``--format`` name.
    name: ClassVar[str]
    #: Seats per match: 2 for the two-seat formats, the table size for ``tables``.
    seats: int = 2

    @abc.abstractmethod
    def next_round(self, results: Sequence[MatchOutcome]) -> list[Pairing] | None:
        """The next matches to play given every outcome so far, or None when the tournament is over."""

    def standings(self, results: Sequence[MatchOutcome]) -> list[list[str]] | None:
        """Places, best first (each a list of bots sharing it), where the format defines them.

        None (the default) means the format has no order of its own: the runner ranks by
        points or score.  Double elimination ranks by elimination; Swiss by points with
        byes counted.
        """
        return None

    def describe(self, results: Sequence[MatchOutcome]) -> dict[str, Any]:
        """A JSON-able description of the format and its state, for the tournament's files."""
        return {"format": self.name}


class RepeatedRounds(Format):
    """A format that plays a fixed schedule ``rounds`` times (round robin, gauntlet):
    subclasses say what round ``number`` is, and the first round not yet complete is
    the next one."""

    #: How many times the schedule is played.
    rounds: int

    @abc.abstractmethod
    def round(self, number: int) -> list[Pairing]:
        """Round ``number`` (from 1)."""

    def next_round(self, results: Sequence[MatchOutcome]) -> list[Pairing] | None:
        done = by_id(results)
        for number in range(1, self.rounds + 1):
            pairings = self.round(number)
            if any(p.match_id not in done for p in pairings):
                return pairings
        return None

    def schedule(self) -> list[Pairing]:
        """Every round, in order: the whole tournament."""
        return [p for number in range(1, self.rounds + 1) for p in self.round(number)]


def by_id(results: Sequence[MatchOutcome]) -> dict[str, MatchOutcome]:
    """Outcomes keyed by match id (a later outcome for an id replaces an earlier one)."""
    return {r.match_id: r for r in results}


def check_bots(bots: Sequence[str], least: int = 2) -> tuple[str, ...]:
    """The bot names as a tuple, refused with ValueError if repeated or too few."""
    names = tuple(bots)
    if len(set(names)) != len(names):
        raise ValueError("bot names must be distinct")
    if len(names) < least:
        raise ValueError(f"need at least {least} bots, got {len(names)}")
    return names
