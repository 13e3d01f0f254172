"""Records: what a game and a match produce, as typed data.

Every output reads these — the ``--log`` (one :class:`GameRecord` per line), the
``--json`` summary (a :class:`MatchRecord`), game exports such as PHH, the progress
display, and next a results store — so there is one schema, documented in
``docs/records.md`` with a JSON Schema generated from these classes
(``referee schema``).  They are msgspec structs: encoded to JSON or MessagePack without
copying into dicts, and cheap to create on the per-game path.

A game's transcript is a list of :class:`Step` — every line the referee sent a seat,
what came back, and every penalty — in the order they happened, which is enough to
replay the game against its rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import msgspec

from referee.core.results import Moments, SprtResult
from referee.core.verdict import Forfeit

#: A step's kinds: ``ask`` a request and its reply; ``tell`` an information line;
#: ``down`` a penalty taken for a seat whose bot was not running (nothing was sent).
StepKind = Literal["ask", "tell", "down"]


class Step(msgspec.Struct, frozen=True, omit_defaults=True):
    """One entry of a game's transcript."""

    #: The seat (0-based, in this game's turn order).
    seat: int
    kind: StepKind
    #: The line the referee sent, without its newline (empty for ``down``).
    line: str = ""
    #: The bot's reply without its newline, for ``ask``; ``None`` when none came.
    reply: str | None = None
    #: The fault, when the step was penalised (``illegal``, ``timeout``…), and why.
    verdict: str | None = None
    detail: str | None = None


class GameForfeit(msgspec.Struct, frozen=True, omit_defaults=True):
    """A penalised decision within one game, naming the bot."""

    player: str
    verdict: str
    decision: int
    detail: str
    reply: str | None = None
    position: str | None = None
    #: A timing fault the machine caused, not the bot (issue 28): the evidence — the CPU
    #: it used and how long it waited for one (:mod:`referee.core.overload`).
    overload: str | None = None


class GameRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """One game of a match: which deal, who sat where, how it ended, and how it went."""

    #: The game's number in the match (0-based).
    game: int
    #: The deal (0-based): games of one deal saw the same chance (dice, cards, prizes).
    deal: int
    #: The seat rotation: seat ``s`` was played by bot ``(s + rotation) % n`` of the lineup.
    rotation: int
    #: The deal's seed (``referee.core.seeding.deal_seed(match seed, deal)``).
    seed: int
    #: Bot names by seat.
    seats: list[str]
    scores: list[float]
    #: Placement per seat: 1 is best; equal ranks are ties.
    ranks: list[int]
    #: The game's name (``--game``): set in the ``--log`` lines, so that a log says what
    #: it is a log of (``""``, left out, in records held in memory).
    game_name: str = ""
    forfeits: list[GameForfeit] = []
    #: The game's own per-seat counts (e.g. Hold'em's hands won), when it has any.
    tallies: list[dict[str, float]] = []
    #: Game-specific facts (final scorecards, cards dealt…); kept when a sink wants them.
    summary: dict[str, Any] = {}
    #: Every step, when a sink keeps transcripts (``--log``); ``None`` otherwise.
    transcript: list[Step] | None = None
    #: Earlier plays of this game set aside as the machine's fault (``--replay-overloaded``,
    #: issue 28): the machine-caused forfeit that set each aside.
    replayed: list[GameForfeit] = []


class SlowAnswer(msgspec.Struct, frozen=True, omit_defaults=True):
    """An answer close to the decision limit, or past it: its wall time and the CPU the
    bot's process tree used meanwhile (docs/limits-and-verdicts.md, "CPU per decision")."""

    wall_ms: float
    #: ``None`` where it could not be read (a timeout writing the request, before any wait).
    cpu_ms: float | None = None
    #: It was a timeout (no answer within the limit): ``wall_ms`` is how long it was waited for.
    timeout: bool = False

    def describe(self) -> str:
        """``998 ms wall / 12 ms CPU``, and `` (timeout)`` after a timeout."""
        cpu = "?" if self.cpu_ms is None else f"{self.cpu_ms:.0f}"
        return f"{self.wall_ms:.0f} ms wall / {cpu} ms CPU" + (" (timeout)" if self.timeout else "")


def slowest(answers: Iterable[SlowAnswer], count: int = 3) -> list[SlowAnswer]:
    """The ``count`` longest answers (wall time), longest first: how slow answers are shown."""
    return sorted(answers, key=lambda a: -a.wall_ms)[:count]


class BotFigures(msgspec.Struct, omit_defaults=False):
    """One bot's results and resource figures over a match (right mid-match too)."""

    name: str
    games: int = 0
    #: First place alone / not first / first place shared.
    wins: int = 0
    losses: int = 0
    draws: int = 0
    mean_score: float = 0.0
    mean_rank: float = 0.0
    #: Forfeits by verdict.
    forfeits: dict[str, int] = {}
    #: The first forfeits in full (at most 20 per bot).
    forfeit_details: list[Forfeit] = []
    cpu_seconds: float = 0.0
    peak_rss_bytes: int = 0
    decisions: int = 0
    #: Mean and longest time to answer, the first answer of each process excluded.
    mean_decision_us: float = 0.0
    max_decision_us: float = 0.0
    #: The CPU its process tree used during its slowest answer (``max_decision_us``):
    #: near the wall time, the bot was computing; far below it, it was waiting — for a
    #: core on a busy machine, or on something else.  ``None`` where not measured.
    max_decision_cpu_ms: float | None = None
    #: Answers that took ``NEAR_LIMIT`` (80 %) of the decision limit or more, timeouts
    #: included, and the first 20 with their CPU (process seats only: docs/limits-and-verdicts.md).
    slow_answers: int = 0
    slow_answer_details: list[SlowAnswer] = []
    #: The longest first answer (it carries the bot's startup work).
    first_answer_ms: float = 0.0
    restarts: int = 0
    #: Games played again because a forfeit of this bot's was the machine's fault
    #: (``--replay-overloaded``, issue 28), and the first few reasons.
    replayed_games: int = 0
    replayed_details: list[str] = []
    #: Of its forfeits, those the machine caused that stood: the game was overloaded in
    #: every play allowed (grading: ``machine-overloaded``, never the student's).
    overloaded_forfeits: int = 0
    #: How it ran: the isolation in force, or the kind of seat.
    sandbox: str = ""
    #: Games by the place taken ("1": first...).
    placements: dict[str, int] = {}
    #: The game's own counts, summed over the bot's games.
    tallies: dict[str, float] = {}
    #: Notes the bot wrote about its own play (``referee-note: NAME TEXT`` lines on its
    #: stderr, :mod:`protocol.notes`), counted by name — e.g. an adapter's corrections to
    #: a student's decisions.  The bot's own word: they change no result.
    notes: dict[str, int] = {}
    #: The first text written with each name.
    note_examples: dict[str, str] = {}


#: A unit's finishing orders, game by game: each game's tie groups, best first, each a
#: list of lineup positions (``[[[1], [0, 2]]]``: bot 1 first, bots 0 and 2 level second).
UnitPlacements = list[list[list[int]]]


class MatchEvidence(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What ratings and intervals need of a match, kept as it is played (O(seats) per
    game; :mod:`referee.match.evidence`).

    A *unit* is the games of one deal: one game, or with ``--duplicate`` the deal played
    once per seat rotation.  Units are the independent observations; games of one deal
    are not (:mod:`referee.stats.intervals`).  Bots are named by their lineup position
    (the order of :attr:`MatchRecord.players`).
    """

    #: Games in a whole unit: 1, or the number of seats with ``--duplicate``.
    games_per_unit: int
    #: Units played; the last may be cut short (a stopped match).
    units: int = 0
    #: Per lineup position: [units, Σ, Σ²] of the bot's mean score per game in each unit.
    scores: list[Moments] = []
    #: Two seats: ``points[k]`` whole units in which the first bot scored k half-points
    #: (a game won 2, drawn 1, lost 0; k from 0 to 2 · games_per_unit).
    points: list[int] = []
    #: Two seats: a last unit cut short, as [games, half-points of the first bot].
    partial: list[int] | None = None
    #: Two seats: [units, Σ, Σ²] of the first bot's *edge* per game in each unit — half
    #: its score minus the other's: its own score in a zero-sum game (dice poker, Hold'em),
    #: and a paired measure in any other (the same dice for both, with ``--duplicate``).
    edge: Moments | None = None
    #: More seats: each distinct unit's finishing orders and how many units had them.
    placements: list[tuple[UnitPlacements, int]] = []


class MatchRecord(msgspec.Struct, omit_defaults=False):
    """A match's results: what was asked for, how far it got, and each bot's figures."""

    game: str
    seed: int
    games_requested: int
    games_played: int
    completed: bool
    referee_version: str
    sandbox: str
    players: list[BotFigures]
    options: dict[str, Any] = {}
    #: Each deal was played once per seat rotation (``--duplicate``).
    duplicate: bool = False
    #: Why the match ended before ``games_requested`` games, when it did.
    stopped: str | None = None
    #: Per-unit sufficient statistics for intervals and ratings (``None`` in records
    #: written before they were kept: readers rebuild them from the games).
    evidence: MatchEvidence | None = None
    #: The sequential test, when the match ran one (``--sprt``): its counts, LLR, bounds
    #: and decision.  A match it decided ends early, ``completed`` all the same.
    sprt: SprtResult | None = None
    #: The bot the test is about ("is it elo1 rather than elo0 stronger than the other?").
    sprt_bot: str | None = None

    def player(self, name: str) -> BotFigures:
        """The figures of the bot named ``name``."""
        for figures in self.players:
            if figures.name == name:
                return figures
        raise KeyError(name)


def json_schema() -> str:
    """The JSON Schema (2020-12) of a ``--log`` line (``GameRecord``) and of the
    ``--json`` summary (``MatchRecord``), as shipped in ``docs/records.schema.json``."""
    (game, match), components = msgspec.json.schema_components([GameRecord, MatchRecord])
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "referee records",
        "description": "A --log line is a GameRecord; the --json summary is a MatchRecord.",
        "anyOf": [game, match],
        "$defs": components,
    }
    return msgspec.json.format(msgspec.json.encode(schema), indent=2).decode() + "\n"
