"""A tournament's standings, computed from its results store alone, at any moment.

:func:`compute` reads ``DIR/results.sqlite`` (:mod:`referee.tournament.store`) — while
the tournament runs too — and returns a :class:`Standings`: the ranked table, the
qualification, the crosstable, each bot's faults and the format's own state (the
bracket of a double elimination, a Swiss's rounds, a tables schedule's balance).
:mod:`referee.tournament.report` writes and prints it.

What is counted
---------------

* **Done matches** count through their ``figures`` rows (one per bot per match: games,
  wins, draws, losses, mean score, mean rank, CPU, memory, restarts, forfeits), never
  through their games: a dice-poker round robin holds millions of game rows and its
  done matches cost one row per bot here.
* **Running matches** count through the games they have committed so far, aggregated in
  SQL (``GROUP BY seats, ranks`` with per-seat score sums: a handful of groups per match,
  ~0.9 µs per game row on this project's VM).  Those games are *provisional*: the match
  may yet be cut short and replayed from its start (``Store.discard_unfinished``).
  Every row says how many of its games are provisional.  CPU, memory and restarts of a
  running match are not in the store until it ends, so they cover done matches only.
* **Games rows of done matches** are read only where per-game data cannot be avoided:
  pairwise placings at tables of more than two seats (the crosstable), and the first
  :data:`FAULT_DETAILS` forfeits of each bot (read with ``LIMIT``, only from the matches
  whose figures say the bot forfeited there).

A live view calls :func:`compute` again and again: give it one :class:`Cache` and each
call reads only the game rows committed since the last (a running match's aggregate
grows; a done match's is kept).  Everything is read in one read transaction, so a match
that ends between two queries is never counted twice or not at all.

The stages (:mod:`referee.tournament.plan`): qualification matches (``q-NAME``) fill the
qualification table only; seeding matches (``seed-…``) decide the seeds only; the ranked
table, its columns and the crosstable count **the main stage** (the format's matches)
only.  The faults section counts every stage, so a bot that failed to qualify because
it crashed shows why.

Points and ranks
----------------

A game is *won* by first place alone, *drawn* by a shared first place, *lost* otherwise
(as in a match's own table).  The game's ``standing`` (:class:`~referee.games.Standing`)
says what ranks bots:

* ``wins`` (Yahtzee, Bidding Wars, Liar's Dice): **points = wins + ½ · draws**; ties are
  broken by total score;
* ``score`` (dice poker, Hold'em): **points = total score** (chips won), the sum of the
  bot's scores over its games; ties are broken by wins + ½ · draws.

**Rank**: bots are ordered by points, then the other measure, then name; bots equal on
both measures **share a rank**, and the next rank skips as many places (1, 2, 2, 4:
"competition ranking").  Formats with an order of their own rank by it instead, from the
main stage's done matches: double elimination by elimination (champion, runner-up, then
by the round a bot went out in, latest first; bots still in share a place), Swiss by
match points (a win 1, a draw ½, a bye 1) then Buchholz (the sum of the opponents' match
points); bots the format places together share the rank, listed by points within it.

Qualification: an entrant *qualifies* when it beats the qualifier — more games won, or
as many and a higher total score (:func:`referee.tournament.plan.beats`).  Entrants that
did not are listed apart and not ranked.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from protocol import notes as notes_wire
from referee import games
from referee.core.records import GameForfeit, MatchRecord, SlowAnswer, slowest
from referee.games import Standing
from referee.stats.sprt import SprtResult
from referee.tournament.config import ConfigError, TournamentConfig, rounds_of
from referee.tournament.formats import DoubleElimination, Format, MatchOutcome, Swiss, Tables
from referee.tournament.plan import (
    MAIN,
    QUALIFY_PREFIX,
    SEEDING,
    SEEDING_PREFIX,
    Plan,
    beats,
    outcome_of,
    qualify_key,
)
from referee.tournament.ratings import Played, Ratings, pair_results, rate, read_played, score_intervals
from referee.tournament.store import Store, StoreError

#: Forfeits shown in full per bot (the rest are counted by verdict).
FAULT_DETAILS = 20
#: Digits to which points and scores are compared: sums of floats differ in the last bits.
_DIGITS = 9

_decode_record = msgspec.json.Decoder(MatchRecord).decode
_decode_forfeit = msgspec.json.Decoder(GameForfeit).decode
_decode_counts = msgspec.json.Decoder(dict[str, int]).decode
_decode_names = msgspec.json.Decoder(list[str]).decode
_decode_ranks = msgspec.json.Decoder(list[int]).decode


class StandingsError(StoreError):
    """The store holds no tournament this module can read; the message says why in one
    line.  A :class:`StoreError`, so that a caller catching those catches it too."""


# ---------------------------------------------------------------------- the result


class TournamentInfo(msgspec.Struct, kw_only=True):
    """The header facts."""

    game: str
    format: str
    #: What ranks bots: ``wins`` or ``score`` (the module docstring: the formulas).
    standing: str
    seed: int
    created: str
    referee_version: str
    field: list[str]
    qualifier: str | None
    #: Games per match (per pairing or table, per round); rounds in force; seats per match.
    games_per_match: int
    rounds: int
    seats: int
    #: ``qualification``, ``seeding``, ``main`` or ``finished``.
    stage: str
    #: Matches the store knows of, by status.  Formats that pair round by round (Swiss,
    #: double elimination) register each round's matches when it becomes known.
    matches_done: int
    matches_running: int
    matches_pending: int
    matches_total: int
    #: Games played and stored: those of done matches and those running ones committed.
    games_stored: int
    #: Of which in running matches: counted, but provisional.
    games_provisional: int


class BotRow(msgspec.Struct, kw_only=True):
    """One bot of the ranked table: its main-stage figures."""

    rank: int
    bot: str
    #: wins + ½ draws (``wins`` games) or the total score (``score`` games).
    points: float
    wins: int
    draws: int
    losses: int
    games: int
    #: Sum of the bot's scores; per game in ``mean_score``.
    score: float
    mean_score: float
    mean_rank: float
    #: Forfeits by verdict, summed over its main-stage games.
    forfeits: dict[str, int]
    cpu_seconds: float
    peak_rss_bytes: int
    #: Restarts: within its matches (per-match bots), or of its tournament-long process (events).
    restarts: int
    #: Main-stage matches done.
    matches: int
    #: Games of running matches included above.
    provisional_games: int
    #: Two-seat formats: matches won, drawn, lost (a double elimination has no draw: the
    #: bracket's tie-break decides).
    match_wins: int | None = None
    match_draws: int | None = None
    match_losses: int | None = None
    #: Swiss: match points (byes count 1) and Buchholz, after complete rounds.
    match_points: float | None = None
    buchholz: float | None = None
    #: Double elimination: ``champion``, ``runner-up``, ``out in L3-1``, ``one loss``, ``unbeaten``.
    bracket: str | None = None
    #: The rating (:class:`~referee.tournament.ratings.Ratings`, done matches) in the
    #: ratings' scale (Elo; score per game for games ranked by score), in
    #: [rating_low, rating_high], and the ranks it may take, rank_low (best) to rank_high.
    rating: float | None = None
    rating_low: float | None = None
    rating_high: float | None = None
    rank_low: int | None = None
    rank_high: int | None = None
    #: The interval of the mean score per game, over the done matches' deals.
    mean_score_low: float | None = None
    mean_score_high: float | None = None
    #: Why the bot never started, when it answered no request in any of its done
    #: matches (or could not be started at all): it is listed apart, last, whatever
    #: its points (:func:`never_started`).  The last lines of its stderr, if it wrote any.
    never_started: str | None = None
    stderr_tail: str | None = None


class QualificationRow(msgspec.Struct, kw_only=True):
    """An entrant's match against the qualifier (``q-NAME``), from the entrant's side."""

    bot: str
    #: ``pending``, ``running`` (figures provisional) or ``done``.
    status: str
    games: int
    won: int
    drawn: int
    lost: int
    score: float
    qualifier_won: int
    qualifier_score: float
    #: ``None`` until the match is done.
    qualified: bool | None


class Cell(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A head-to-head, from the row bot's side, over every main-stage match of the pair.

    Two-seat: games won, drawn, lost against the column bot, and the net score (the row
    bot's total minus the column bot's).  Multi-seat: over the games where both sat, how
    often the row bot placed ahead of, level with, behind the column bot, and its own
    mean score in those games.

    With intervals over the done matches' deals (:mod:`referee.tournament.ratings`): the
    row bot's score rate (two-seat: win 1, draw ½ per game) and mean score per game, and
    the sequential test (``--sprt``) of the pair, in the row of the bot it tested.
    """

    games: int
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    net_score: float = 0.0
    ahead: int = 0
    level: int = 0
    behind: int = 0
    mean_score: float = 0.0
    rate: float | None = None
    rate_low: float | None = None
    rate_high: float | None = None
    mean_score_low: float | None = None
    mean_score_high: float | None = None
    units: int = 0
    sprt: SprtResult | None = None


class Crosstable(msgspec.Struct, kw_only=True):
    """Pairs of ranked bots; ``cells[row][column]`` only for pairs that met."""

    #: ``two-seat`` or ``multi-seat`` (Cell: which fields are meaningful).
    kind: str
    #: Rows and columns, in rank order.
    bots: list[str]
    cells: dict[str, dict[str, Cell]]


class FaultDetail(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One forfeit, from the stored game's ``forfeits``."""

    verdict: str
    match: str
    game: int
    decision: int
    detail: str
    reply: str | None = None
    position: str | None = None


class BotFaults(msgspec.Struct, kw_only=True):
    """A bot's forfeits over every stage: counts by verdict and the first ones in full."""

    bot: str
    forfeits: dict[str, int]
    #: At most :data:`FAULT_DETAILS`, in match then game order.
    details: list[FaultDetail]
    #: Why the bot could never start (its build failed…), when it could not.
    unstartable: str | None = None


class BotNotes(msgspec.Struct, kw_only=True):
    """What a bot said about its own play over every done match (``referee-note:``
    lines on its stderr, :mod:`protocol.notes`): counts by name, each name's first text."""

    bot: str
    notes: dict[str, int]
    examples: dict[str, str]
    #: The done matches in which it wrote any.
    matches: int


class CloseCall(msgspec.Struct, kw_only=True):
    """A bot's answers close to the time limit in one match (a ``near-limit`` event): the
    result another machine might change (``--rerun-close`` plays the match again)."""

    bot: str
    match: str
    #: In words: the limit, the timeouts, the slow answers, the slowest with their CPU.
    detail: str
    #: From the match's record: its answers that took 80 % of the limit or more
    #: (timeouts included), and the slowest three with their wall and CPU time.
    slow_answers: int = 0
    slowest: list[SlowAnswer] = []


class WorkerFigures(msgspec.Struct, kw_only=True):
    """A cluster worker's share of the run (``--cluster``; docs/cluster.md)."""

    address: str
    matches: int
    decisions: int
    forfeits: dict[str, int]
    #: Its timeout rate is out of line with the other workers' (a z-test, z > 3).
    out_of_line: bool = False
    #: The core its process was pinned to (one per worker process of a machine), or ``None``.
    core: int | None = None
    #: Why it was not pinned, when it was not (more worker processes than cores…).
    unpinned: str | None = None


class Standings(msgspec.Struct, kw_only=True):
    """Everything ``standings.json`` holds (``report.py`` writes it)."""

    tournament: TournamentInfo
    #: Ranked, best first.
    rows: list[BotRow]
    #: One row per entrant when there is a qualifier, else ``None``.
    qualification: list[QualificationRow] | None
    #: Entrants that did not beat the qualifier: not ranked.
    not_qualified: list[str]
    #: The entrants in seeding order (double elimination, Swiss), once known.
    seeds: list[str] | None
    crosstable: Crosstable
    #: Bots with forfeits or that could not start, in rank order (then the others).
    faults: list[BotFaults]
    #: Double elimination: ``DoubleElimination.describe`` (``bracket.json``) and the text.
    bracket: dict[str, Any] | None = None
    bracket_text: str | None = None
    #: Swiss: ``Swiss.describe`` (rounds paired so far, match points).
    swiss: dict[str, Any] | None = None
    #: Tables: ``Tables.balance().as_dict()``.
    balance: dict[str, Any] | None = None
    #: Ratings with intervals over the main stage's done matches; ``None`` when not
    #: computed (the live view) or before any match is done.
    ratings: Ratings | None = None
    #: Games ranked by score: the Bradley–Terry (Plackett–Luce) Elo on deals won, drawn and
    #: lost, beside the chip ratings that rank like the table (the two can disagree: a bot
    #: may win fewer deals and more chips).
    win_ratings: Ratings | None = None
    #: A run on a Dask cluster: each worker's matches, decisions and forfeits (the
    #: last run's); ``None`` for a run on this machine.
    workers: list[WorkerFigures] | None = None
    #: Why there are no ratings although they were asked for (a fit that failed), in one line.
    ratings_problem: str | None = None
    #: The bots that wrote notes about their own play, in rank order (then the others).
    notes: list[BotNotes] = []
    #: Done matches with answers close to the time limit, per bot, in match order.
    close_calls: list[CloseCall] = []
    #: Games played again because a forfeit in them was the machine's fault
    #: (``--replay-overloaded``, issue 28): how many, and the first reasons (match: why).
    replayed_games: int = 0
    replayed: list[str] = []


# ---------------------------------------------------------------------- tallies


@dataclass(slots=True)
class _Tally:
    """One bot's figures over some games (summed; means are derived)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0
    rank_total: float = 0.0
    cpu_seconds: float = 0.0
    peak_rss_bytes: int = 0
    restarts: int = 0
    forfeits: Counter[str] = field(default_factory=Counter)
    matches: int = 0
    provisional: int = 0

    def add(self, other: _Tally) -> None:
        self.games += other.games
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.score += other.score
        self.rank_total += other.rank_total
        self.cpu_seconds += other.cpu_seconds
        self.peak_rss_bytes = max(self.peak_rss_bytes, other.peak_rss_bytes)
        self.restarts += other.restarts
        self.forfeits.update(other.forfeits)
        self.matches += other.matches
        self.provisional += other.provisional


#: One aggregate of a match's games: the seats (names), the ranks, how many games, and
#: the score sums per seat.
_Group = tuple[tuple[str, ...], tuple[int, ...], int, tuple[float, ...]]


@dataclass(slots=True)
class _Games:
    """A match's games aggregated so far: ``groups`` keyed by (seats, ranks) text,
    forfeit counts by (player, verdict), and the last game index read."""

    attempt: int
    last: int = -1
    count: int = 0
    groups: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    forfeits: Counter[tuple[str, str]] = field(default_factory=Counter)

    def decoded(self) -> list[_Group]:
        return [
            (tuple(_decode_names(seats)), tuple(_decode_ranks(ranks)), count, tuple(sums))
            for (seats, ranks), (count, sums) in self.groups.items()
        ]


class Cache:
    """What :func:`compute` may keep between calls on one store, so that a live view
    re-reads only the games committed since its last call: the games aggregates of
    running matches (keyed by the match and its attempt: a match replayed from its start
    is aggregated afresh), those of done multi-seat matches, done matches' first
    forfeits and who in them answered, and the main format (a tables schedule takes a
    while to build)."""

    def __init__(self) -> None:
        self.games: dict[int, _Games] = {}
        self.details: dict[tuple[int, str], list[FaultDetail]] = {}
        self.formats: dict[tuple[str, ...], Format | None] = {}
        self.played: dict[int, tuple[int, Played]] = {}
        #: Done matches' notes per match id and attempt (a record never changes after),
        #: and the slow answers of those with close calls.
        self.notes: dict[tuple[int, int], list[_NotedFigures]] = {}
        self.slow: dict[tuple[int, int], list[_SlowFigures]] = {}
        #: Done matches' players that had games and forfeits, per match id and attempt:
        #: name, decisions, first forfeit (:func:`never_started`).
        self.started: dict[tuple[int, int], list[tuple[str, int, str]]] = {}


@dataclass(slots=True)
class _Match:
    id: int
    key: str
    status: str
    attempts: int
    stage: str
    #: Per bot: from figures (done) or the committed games (running).
    tallies: dict[str, _Tally] = field(default_factory=dict)
    games: _Games | None = None


# ---------------------------------------------------------------------- reading the store


def _config(store: Store) -> TournamentConfig:
    if isinstance(store.config, dict) and store.config.get("kind") == "serve":
        raise StandingsError(
            f"{store.path.parent} holds the tables of a `referee serve`: "
            f"their standings are in {store.path.parent / 'standings.md'}"
        )
    try:
        return msgspec.convert(store.config, TournamentConfig)
    except msgspec.ValidationError as exc:
        raise StandingsError(f"{store.path}: not a tournament's configuration: {exc}") from None


def _matches(conn: sqlite3.Connection, plan: Plan) -> list[_Match]:
    rows = conn.execute("SELECT id, key, status, attempts FROM matches ORDER BY id")
    return [_Match(mid, key, status, attempts, plan.stage_of(key)) for mid, key, status, attempts in rows]


def _figures(conn: sqlite3.Connection, by_id: Mapping[int, _Match]) -> None:
    """Fill every done match's tallies from its ``figures`` rows."""
    rows = conn.execute(
        "SELECT match_id, bot, games, wins, losses, draws, mean_score, mean_rank, cpu_seconds, "
        "peak_rss_bytes, restarts, forfeits FROM figures"
    )
    for mid, bot, n, wins, losses, draws, mean_score, mean_rank, cpu, rss, restarts, forfeits in rows:
        match = by_id.get(mid)
        if match is None or match.status != "done":
            continue
        match.tallies[bot] = _Tally(
            games=n,
            wins=wins,
            draws=draws,
            losses=losses,
            score=mean_score * n,
            rank_total=mean_rank * n,
            cpu_seconds=cpu,
            peak_rss_bytes=rss,
            restarts=restarts,
            forfeits=Counter(_decode_counts(forfeits)),
            matches=1,
        )


def _outcomes(conn: sqlite3.Connection, plan: Plan) -> dict[str, MatchOutcome]:
    """Outcomes of the done matches the plan needs: qualification and seeding, and the
    main stage's when the format pairs from results (few matches: their records are
    decoded; a round robin's are not needed)."""
    rows = conn.execute(
        "SELECT key, record FROM matches WHERE status = 'done' "
        "AND (substr(key, 1, length(?)) = ? OR substr(key, 1, length(?)) = ? OR ?) ORDER BY id",
        (QUALIFY_PREFIX, QUALIFY_PREFIX, SEEDING_PREFIX, SEEDING_PREFIX, 1 if plan.adaptive else 0),
    )
    return {key: outcome_of(key, _decode_record(record)) for key, record in rows}


def _aggregate(conn: sqlite3.Connection, match: _Match, cache: Cache) -> _Games:
    """The match's games aggregated: the cached aggregate extended by the games after
    its last one (all of them the first time)."""
    held = cache.games.get(match.id)
    if held is None or held.attempt != match.attempts:
        held = _Games(match.attempts)
    first = conn.execute(
        "SELECT json_array_length(seats) FROM games WHERE match_id = ? AND game > ? LIMIT 1",
        (match.id, held.last),
    ).fetchone()
    if first is not None:
        seats = first[0]
        sums = ", ".join(f"sum(json_extract(scores, '$[{s}]'))" for s in range(seats))
        rows = conn.execute(
            f"SELECT seats, ranks, count(*), max(game), {sums} FROM games "
            "WHERE match_id = ? AND game > ? GROUP BY seats, ranks",
            (match.id, held.last),
        )
        last = held.last
        for seats_text, ranks_text, count, top, *scores in rows:
            group = held.groups.setdefault((seats_text, ranks_text), [0, [0.0] * seats])
            group[0] += count
            group[1] = [a + (b or 0.0) for a, b in zip(group[1], scores, strict=True)]
            held.count += count
            last = max(last, top)
        forfeits = conn.execute(
            "SELECT json_extract(f.value, '$.player'), json_extract(f.value, '$.verdict'), count(*) "
            "FROM games AS g, json_each(g.forfeits) AS f "
            "WHERE g.match_id = ? AND g.game > ? AND g.game <= ? AND g.forfeits IS NOT NULL GROUP BY 1, 2",
            (match.id, held.last, last),
        )
        for player, verdict, count in forfeits:
            held.forfeits[player, verdict] += count
        held.last = last
    cache.games[match.id] = held
    return held


def _tallies_of_games(aggregate: _Games) -> dict[str, _Tally]:
    """Per-bot tallies of a running match from its games (the scoreboard's rules: a win
    is first place alone, a draw first place shared, a loss any other place)."""
    tallies: dict[str, _Tally] = {}
    for seats, ranks, count, sums in aggregate.decoded():
        best = min(ranks)
        shared = ranks.count(best) > 1
        for seat, bot in enumerate(seats):
            t = tallies.setdefault(bot, _Tally())
            t.games += count
            t.provisional += count
            t.score += sums[seat]
            t.rank_total += ranks[seat] * count
            if ranks[seat] != best:
                t.losses += count
            elif shared:
                t.draws += count
            else:
                t.wins += count
    for (player, verdict), count in aggregate.forfeits.items():
        tallies.setdefault(player, _Tally()).forfeits[verdict] += count
    return tallies


#: Replays listed in the standings (standings.json and .md); the count covers them all.
REPLAYS_LISTED = 20


def _replay_events(conn: sqlite3.Connection) -> tuple[int, list[str]]:
    """The games played again as the machine's fault (``replay`` events): how many, and
    the first :data:`REPLAYS_LISTED` as "match: why"."""
    count = 0
    listed: list[str] = []
    for key, detail in conn.execute("SELECT match_key, detail FROM events WHERE kind = 'replay' ORDER BY id"):
        count += 1
        if len(listed) < REPLAYS_LISTED:
            listed.append(f"{key}: {detail}" if key else detail)
    return count, listed


def _restart_events(conn: sqlite3.Connection, plan: Plan) -> dict[str, Counter[str]]:
    """Restarts of tournament-long bots (``events``), per bot and stage (an event outside
    any match counts for the main stage)."""
    out: dict[str, Counter[str]] = {}
    for bot, key in conn.execute("SELECT bot, match_key FROM events WHERE kind = 'restart'"):
        if bot is not None:
            out.setdefault(bot, Counter())[MAIN if key is None else plan.stage_of(key)] += 1
    return out


def _details(
    conn: sqlite3.Connection, bot: str, matches: Sequence[_Match], cache: Cache
) -> list[FaultDetail]:
    """The bot's first :data:`FAULT_DETAILS` forfeits, in match then game order, from
    the matches where it forfeited (each read with ``LIMIT``; done ones cached)."""
    out: list[FaultDetail] = []
    for match in matches:
        left = FAULT_DETAILS - len(out)
        if left <= 0:
            break
        cached = cache.details.get((match.id, bot))
        if cached is None:
            rows = conn.execute(
                "SELECT g.game, f.value FROM games AS g, json_each(g.forfeits) AS f "
                "WHERE g.match_id = ? AND g.forfeits IS NOT NULL "
                "AND json_extract(f.value, '$.player') = ? ORDER BY g.game LIMIT ?",
                (match.id, bot, FAULT_DETAILS),
            )
            cached = [_detail(match.key, game, _decode_forfeit(value)) for game, value in rows]
            if match.status == "done":
                cache.details[match.id, bot] = cached
        out.extend(cached[:left])
    return out


def _detail(key: str, game: int, f: GameForfeit) -> FaultDetail:
    return FaultDetail(
        verdict=f.verdict,
        match=key,
        game=game,
        decision=f.decision,
        detail=f.detail,
        reply=f.reply,
        position=f.position,
    )


# ---------------------------------------------------------------------- ranking


def points_of(tally: _Tally, standing: Standing) -> tuple[float, float]:
    """(points, tie-break): (wins + ½ draws, total score) for ``wins`` games, (total
    score, wins + ½ draws) for ``score`` games; rounded for comparison."""
    won = tally.wins + 0.5 * tally.draws
    score = round(tally.score, _DIGITS)
    return (won, score) if standing is Standing.WINS else (score, won)


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Ranks for items already sorted best first: equal keys share a rank and the next
    rank skips (``[9, 7, 7, 5]`` → ``[1, 2, 2, 4]``)."""
    ranks: list[int] = []
    for i, key in enumerate(keys):
        ranks.append(ranks[-1] if i and key == keys[i - 1] else i + 1)
    return ranks


def _order(
    bots: Sequence[str], tallies: Mapping[str, _Tally], standing: Standing, places: list[list[str]] | None
) -> list[tuple[int, str]]:
    """``(rank, bot)`` best first: by the format's places when it has them (a place is a
    shared rank; within it by points), else by points, the tie-break, then name."""
    measure = {b: points_of(tallies[b], standing) for b in bots}

    def by_points(names: Iterable[str]) -> list[str]:
        return sorted(names, key=lambda b: (-measure[b][0], -measure[b][1], b))

    if places is None:
        ordered = by_points(bots)
        return list(zip(competition_ranks([measure[b] for b in ordered]), ordered, strict=True))
    out: list[tuple[int, str]] = []
    placed = {b for place in places for b in place}
    rest = [b for b in bots if b not in placed]  # not expected: every format places every bot
    for place in [*places, *([rest] if rest else [])]:
        rank = len(out) + 1
        out.extend((rank, b) for b in by_points(b for b in place if b in measure))
    return out


# ---------------------------------------------------------------------- the format's own state


def _two_seat_matches(
    main: Sequence[_Match], fmt: Format | None, outcomes: Mapping[str, MatchOutcome]
) -> dict[str, list[int]]:
    """Matches won, drawn, lost per bot in a two-seat main stage.  Double elimination
    decides every match (its bracket's winner); the others score it by games won."""
    record: dict[str, list[int]] = {}
    for match in main:
        if match.status != "done" or len(match.tallies) != 2:
            continue
        if isinstance(fmt, DoubleElimination) and match.key in outcomes:
            winner = outcomes[match.key].winner(fmt.rank)
            for bot in match.tallies:
                record.setdefault(bot, [0, 0, 0])[0 if bot == winner else 2] += 1
            continue
        a, b = match.tallies
        wins = {a: match.tallies[a].wins, b: match.tallies[b].wins}
        for me, other in ((a, b), (b, a)):
            column = 0 if wins[me] > wins[other] else 1 if wins[me] == wins[other] else 2
            record.setdefault(me, [0, 0, 0])[column] += 1
    return record


def _swiss_extras(
    fmt: Swiss, outcomes: Mapping[str, MatchOutcome]
) -> tuple[dict[str, Any], dict[str, float]]:
    """Swiss.describe, and each bot's Buchholz: the sum of its opponents' match points,
    over complete rounds (as ``Swiss.standings`` counts it)."""
    described = fmt.describe(list(outcomes.values()))
    points: dict[str, float] = described["points"]
    buchholz = dict.fromkeys(fmt.bots, 0.0)
    for pairings in described["pairings"]:
        if any(len(p["bots"]) == 2 and p["match"] not in outcomes for p in pairings):
            break  # the round in progress: not counted yet
        for p in pairings:
            if len(p["bots"]) == 2:
                a, b = p["bots"]
                buchholz[a] += points[b]
                buchholz[b] += points[a]
    return described, buchholz


def _bracket_status(described: dict[str, Any]) -> dict[str, str]:
    """Each bot's place in the bracket: champion, runner-up, out in (the match of its
    second loss), one loss, unbeaten."""
    losses: Counter[str] = Counter()
    out_in: dict[str, str] = {}
    for m in described["matches"]:
        if m["status"] == "played" and m["loser"] is not None:
            losses[m["loser"]] += 1
            if losses[m["loser"]] == 2:
                out_in[m["loser"]] = m["id"]
    status: dict[str, str] = {}
    champion = described["champion"]
    for bot in described["seeds"]:
        if bot == champion:
            status[bot] = "champion"
        elif champion is not None and bot in out_in and out_in[bot].startswith("GF"):
            status[bot] = "runner-up"
        elif bot in out_in:
            status[bot] = f"out in {out_in[bot]}"
        else:
            status[bot] = "one loss" if losses[bot] else "unbeaten"
    return status


def _complete(plan: Plan, fmt: Format | None, outcomes: Mapping[str, MatchOutcome], done: set[str]) -> bool:
    """Whether nothing is left to play (``Plan.next`` would say ``None``)."""
    if plan.seeded(outcomes) is None:
        return False
    if fmt is None:
        return True  # too few qualified: no main stage
    if isinstance(fmt, (Swiss, DoubleElimination)):
        return plan.main(fmt, outcomes) is None
    # A static schedule: every planned match done (its outcomes are not decoded here).
    return all(p.key in done for p in plan.main(fmt, {}) or [])


def _stage(plan: Plan, outcomes: Mapping[str, MatchOutcome], complete: bool) -> str:
    if complete:
        return "finished"
    if plan.qualified(outcomes) is None:
        return "qualification"
    if plan.seeded(outcomes) is None:
        return SEEDING
    return MAIN


# ---------------------------------------------------------------------- the crosstable


def _crosstable(main: Sequence[_Match], bots: Sequence[str], seats: int) -> Crosstable:
    """Head-to-heads among ``bots`` over the main stage (see :class:`Cell`)."""
    ranked = set(bots)
    raw: dict[tuple[str, str], list[float]] = {}
    if seats == 2:
        for match in main:
            if len(match.tallies) != 2:
                continue
            (a, ta), (b, tb) = match.tallies.items()
            for me, mine, other, theirs in ((a, ta, b, tb), (b, tb, a, ta)):
                cell = raw.setdefault((me, other), [0, 0, 0, 0, 0, 0.0])
                cell[0] += mine.games
                cell[1] += 1 if match.status == "done" else 0
                cell[2] += mine.wins
                cell[3] += mine.draws
                cell[4] += mine.losses
                cell[5] += mine.score - theirs.score
        cells = {
            (r, c): Cell(
                games=int(v[0]),
                matches=int(v[1]),
                wins=int(v[2]),
                draws=int(v[3]),
                losses=int(v[4]),
                net_score=round(v[5], _DIGITS),
            )
            for (r, c), v in raw.items()
        }
        kind = "two-seat"
    else:
        for match in main:
            if match.games is None:
                continue
            for seat_bots, ranks, count, sums in match.games.decoded():
                for i, me in enumerate(seat_bots):
                    for j, other in enumerate(seat_bots):
                        if i == j:
                            continue
                        cell = raw.setdefault((me, other), [0, 0, 0, 0, 0.0])
                        cell[0] += count
                        cell[1 if ranks[i] < ranks[j] else 2 if ranks[i] == ranks[j] else 3] += count
                        cell[4] += sums[i]
        cells = {
            (r, c): Cell(
                games=int(v[0]),
                ahead=int(v[1]),
                level=int(v[2]),
                behind=int(v[3]),
                mean_score=round(v[4] / v[0], _DIGITS) if v[0] else 0.0,
            )
            for (r, c), v in raw.items()
        }
        kind = "multi-seat"
    table: dict[str, dict[str, Cell]] = {}
    for row in bots:
        table[row] = {c: cells[row, c] for c in bots if (row, c) in cells and c in ranked}
    return Crosstable(kind=kind, bots=list(bots), cells=table)


# ---------------------------------------------------------------------- compute


def compute(store: Store, cache: Cache | None = None, *, ratings: bool = True) -> Standings:
    """The standings of the tournament in ``store`` as it stands now (module docstring:
    what is counted, the points and rank formulas).  Raises :class:`StandingsError` for
    a store whose configuration this referee cannot read.

    ``ratings``: also fit the ratings and intervals (:mod:`referee.tournament.ratings`);
    a bootstrap of a large field takes a second or two, so a live view leaves them out."""
    cache = cache if cache is not None else Cache()
    with store.snapshot() as conn:
        return _compute(store, conn, cache, ratings)


def _compute(store: Store, conn: sqlite3.Connection, cache: Cache, with_ratings: bool) -> Standings:
    config = _config(store)
    try:
        game = games.get(config.game)
        plan = Plan(config, game)
    except (KeyError, ConfigError) as exc:
        raise StandingsError(f"{store.path}: {exc.args[0] if exc.args else exc}") from None
    adaptive = plan.adaptive
    matches = _read_matches(conn, plan, cache)
    outcomes = _outcomes(conn, plan)

    # The stages: who qualified, the seeds, the main format.
    qualification, not_qualified = _qualification(config, {m.key: m for m in matches}, outcomes)
    seeded = plan.seeded(outcomes)
    fmt = _main_format(plan, outcomes, seeded, cache)
    entrants = _bots_of(fmt) if fmt is not None else [b for b in config.field if b not in not_qualified]
    main = [m for m in matches if m.stage == MAIN]

    # The ranked table.
    totals = _main_totals(conn, plan, main, entrants)
    main_outcomes = {k: o for k, o in outcomes.items() if plan.stage_of(k) == MAIN}
    places = fmt.standings(list(main_outcomes.values())) if fmt is not None and adaptive else None
    order = _order(entrants, totals, game.standing, places)
    silent = never_started(conn, config, [m for m in main if m.status == "done"], store.path.parent, cache)
    if silent:  # listed apart, last, sharing the last place
        started = [(rank, bot) for rank, bot in order if bot not in silent]
        order = started + [(len(started) + 1, bot) for _, bot in order if bot in silent]
    rows = [_row(rank, bot, totals[bot], game.standing) for rank, bot in order]
    for row in rows:
        if row.bot in silent:
            row.never_started, row.stderr_tail = silent[row.bot]
    extras = _format_extras(rows, fmt, main, main_outcomes, plan.seats)
    ranked = [bot for _, bot in order]
    complete = _complete(plan, fmt, outcomes, {m.key for m in matches if m.status == "done"})
    crosstable = _crosstable(main, ranked, plan.seats)
    ratings = None
    win_ratings = None
    ratings_problem = None
    if with_ratings:
        done = [(m.id, m.attempts) for m in main if m.status == "done"]
        played = read_played(conn, done, cache.played)
        seeding = [(m.id, m.attempts) for m in matches if m.stage == SEEDING and m.status == "done"]
        rated = read_played(conn, seeding, cache.played) + played
        try:
            by_score = game.standing is Standing.SCORE
            ratings = rate(ranked, rated, store.seed, by_score=by_score)
            # A chip game is also rated on deals won, beside: who wins more deals.
            win_ratings = rate(ranked, rated, store.seed) if by_score else None
        except (RuntimeError, ValueError, FloatingPointError) as exc:
            # A fit that fails must not cost the standings: they are written without it.
            ratings_problem = f"the ratings could not be fitted: {exc}"
        _add_intervals(rows, crosstable, ratings, played)
    replays = _replay_events(conn)
    return Standings(
        tournament=_info(store, conn, config, plan, matches, _stage(plan, outcomes, complete), len(entrants)),
        rows=rows,
        qualification=qualification,
        not_qualified=not_qualified,
        seeds=list(seeded) if seeded is not None and adaptive else None,
        crosstable=crosstable,
        faults=_faults(conn, config, matches, ranked, cache),
        ratings=ratings,
        win_ratings=win_ratings,
        ratings_problem=ratings_problem,
        workers=_workers(conn),
        notes=_notes(conn, [m for m in matches if m.status == "done"], ranked, cache),
        close_calls=_close_calls(conn, cache),
        replayed_games=replays[0],
        replayed=replays[1],
        **extras,
    )


class _NotedFigures(msgspec.Struct):
    name: str
    notes: dict[str, int] = {}
    note_examples: dict[str, str] = {}


class _NotedRecord(msgspec.Struct):
    players: list[_NotedFigures]


_decode_noted = msgspec.json.Decoder(_NotedRecord).decode


class _SlowFigures(msgspec.Struct):
    name: str
    slow_answers: int = 0
    slow_answer_details: list[SlowAnswer] = []


class _SlowRecord(msgspec.Struct):
    players: list[_SlowFigures]


_decode_slow = msgspec.json.Decoder(_SlowRecord).decode


def _notes(
    conn: sqlite3.Connection, done: Sequence[_Match], ranked: Sequence[str], cache: Cache
) -> list[BotNotes]:
    """Every stage's notes, from the done matches' records.  Only records holding a
    note are decoded (a record's empty ``"notes":{}`` does not match the search), and
    each once per cache."""
    new = [m for m in done if (m.id, m.attempts) not in cache.notes]
    for start in range(0, len(new), 500):  # SQLite's limit on bound parameters
        chunk = new[start : start + 500]
        noted = dict(
            conn.execute(
                f"""SELECT id, record FROM matches WHERE id IN ({",".join("?" * len(chunk))})
                    AND instr(record, '"notes":{{"') > 0""",
                [m.id for m in chunk],
            ).fetchall()
        )
        for m in chunk:
            text = noted.get(m.id)
            cache.notes[(m.id, m.attempts)] = [] if text is None else _decode_noted(text).players
    return collect_notes((cache.notes.get((m.id, m.attempts), ()) for m in done), ranked)


def collect_notes(matches: Iterable[Iterable[Any]], ranked: Sequence[str]) -> list[BotNotes]:
    """Each bot's notes over ``matches`` (per match, its players' figures: anything with
    ``name``, ``notes`` and ``note_examples``), in ``ranked`` order, then by name."""
    found: dict[str, BotNotes] = {}
    for players in matches:
        for figures in players:
            if not figures.notes:
                continue
            entry = found.setdefault(
                figures.name, BotNotes(bot=figures.name, notes={}, examples={}, matches=0)
            )
            entry.matches += 1
            notes_wire.merge(entry.notes, entry.examples, figures.notes, figures.note_examples)
    place = {bot: i for i, bot in enumerate(ranked)}
    return sorted(found.values(), key=lambda n: (place.get(n.bot, len(place)), n.bot))


def _close_calls(conn: sqlite3.Connection, cache: Cache) -> list[CloseCall]:
    """The ``near-limit`` events of done matches (a match played again drops its old
    ones only when it is done again: the latest per bot and match is kept), with the
    slow answers from each match's record, decoded once per cache."""
    rows = conn.execute(
        """SELECT e.bot, e.match_key, e.detail, m.id, m.attempts FROM events e
           JOIN matches m ON m.key = e.match_key
           WHERE e.kind = 'near-limit' AND m.status = 'done' ORDER BY m.id, e.id"""
    ).fetchall()
    latest = {(bot, key): (detail, (match_id, attempts)) for bot, key, detail, match_id, attempts in rows}
    calls = []
    for (bot, key), (detail, match) in latest.items():
        if match not in cache.slow:
            (record,) = conn.execute("SELECT record FROM matches WHERE id = ?", (match[0],)).fetchone()
            try:
                cache.slow[match] = _decode_slow(record).players
            except (msgspec.ValidationError, msgspec.DecodeError, TypeError):
                cache.slow[match] = []
        call = CloseCall(bot=bot, match=key, detail=detail)
        for figures in cache.slow[match]:
            if figures.name == bot:
                call.slow_answers = figures.slow_answers
                call.slowest = slowest(figures.slow_answer_details)
        calls.append(call)
    return calls


def _workers(conn: sqlite3.Connection) -> list[WorkerFigures] | None:
    """The cluster workers' figures the runner stored as events (the latest per worker)."""
    rows = conn.execute(
        "SELECT kind, bot, detail FROM events WHERE kind LIKE 'worker%' ORDER BY rowid"
    ).fetchall()
    if not rows:
        return None
    figures: dict[str, WorkerFigures] = {}
    flagged = set()
    for kind, address, detail in rows:
        if kind == "worker" and address:
            health = msgspec.json.decode(detail)
            figures[address] = WorkerFigures(
                address=address,
                matches=health.get("matches", 0),
                decisions=health.get("decisions", 0),
                forfeits=health.get("forfeits", {}),
                core=health.get("core"),
                unpinned=health.get("unpinned"),
            )
        elif kind == "worker-outlier":
            flagged.add(address)
    for address, worker in figures.items():
        worker.out_of_line = address in flagged
    return list(figures.values())


def _add_intervals(
    rows: Sequence[BotRow], crosstable: Crosstable, ratings: Ratings | None, played: Sequence[Played]
) -> None:
    """Fill the rows' rating and interval columns and the crosstable cells' intervals."""
    by_bot = {r.bot: r for r in ratings.bots} if ratings is not None else {}
    intervals = score_intervals([row.bot for row in rows], played)
    for row in rows:
        rating = by_bot.get(row.bot)
        if rating is not None:
            row.rating, row.rating_low, row.rating_high = rating.rating, rating.low, rating.high
            row.rank_low, row.rank_high = rating.rank_low, rating.rank_high
        iv = intervals.get(row.bot)
        # The interval is over done matches: beside a mean with provisional games in it,
        # it would not be that mean's.
        if iv is not None and iv.low is not None and iv.high is not None and not row.provisional_games:
            row.mean_score_low = round(iv.low, _DIGITS)
            row.mean_score_high = round(iv.high, _DIGITS)
    pairs = pair_results(played)
    for row_bot, cells in crosstable.cells.items():
        for column, cell in cells.items():
            pair = pairs.get((row_bot, column))
            if pair is None:
                continue
            cell.units = pair.units
            cell.rate, cell.rate_low, cell.rate_high = pair.rate, pair.rate_low, pair.rate_high
            if crosstable.kind == "two-seat":
                cell.mean_score = pair.mean_score
            cell.mean_score_low, cell.mean_score_high = pair.mean_score_low, pair.mean_score_high
            cell.sprt = pair.sprt


def _read_matches(conn: sqlite3.Connection, plan: Plan, cache: Cache) -> list[_Match]:
    """Every match with its per-bot tallies: a done one's from its figures, a running
    one's from its committed games; and the games aggregates the crosstable of a
    multi-seat main stage needs."""
    matches = _matches(conn, plan)
    by_id = {m.id: m for m in matches}
    _figures(conn, by_id)
    for match in matches:
        multi = match.stage == MAIN and plan.seats > 2
        if match.status == "running" or (match.status == "done" and multi):
            match.games = _aggregate(conn, match, cache)
            if match.status == "running":
                match.tallies = _tallies_of_games(match.games)
    # Keep only what was read now: a match since done counts through its figures, and
    # one made pending again will be replayed and aggregated afresh.
    for stale in [mid for mid in cache.games if mid not in by_id or by_id[mid].games is None]:
        del cache.games[stale]
    return matches


def _main_totals(
    conn: sqlite3.Connection, plan: Plan, main: Sequence[_Match], entrants: Sequence[str]
) -> dict[str, _Tally]:
    """Each entrant's tally over the main stage, with the restarts of its
    tournament-long process recorded as events."""
    totals = {b: _Tally() for b in entrants}
    for match in main:
        for bot, tally in match.tallies.items():
            if bot in totals:
                totals[bot].add(tally)
    if plan.interleaved:
        # Bots that live for the whole tournament: every new process is a restart event
        # (the pool's), whether it happened within a match (also in that match's own
        # figures) or before the bot's next match.  Count the events alone.
        events = _restart_events(conn, plan)
        for bot, tally in totals.items():
            tally.restarts = events.get(bot, Counter())[MAIN]
    return totals


def _info(
    store: Store,
    conn: sqlite3.Connection,
    config: TournamentConfig,
    plan: Plan,
    matches: Sequence[_Match],
    stage: str,
    entrants: int,
) -> TournamentInfo:
    """The header facts.  Games stored are counted without scanning the games table: a
    done match holds as many as its figures say were played."""
    provisional = sum(m.games.count for m in matches if m.status == "running" and m.games)
    done_games = sum(
        max((t.games for t in m.tallies.values()), default=0) for m in matches if m.status == "done"
    )
    counts = Counter(m.status for m in matches)
    created, version = conn.execute("SELECT created, referee_version FROM tournament").fetchone()
    return TournamentInfo(
        game=config.game,
        format=config.format,
        standing=str(plan.game.standing),
        seed=store.seed,
        created=created,
        referee_version=version,
        field=list(config.field),
        qualifier=config.qualifier,
        games_per_match=config.games,
        rounds=rounds_of(config, entrants),
        seats=plan.seats,
        stage=stage,
        matches_done=counts["done"],
        matches_running=counts["running"],
        matches_pending=counts["pending"],
        matches_total=len(matches),
        games_stored=done_games + provisional,
        games_provisional=provisional,
    )


def _main_format(
    plan: Plan, outcomes: Mapping[str, MatchOutcome], seeded: list[str] | None, cache: Cache
) -> Format | None:
    """``Plan.main_format``, kept per seeded field: formats keep no state, and building a
    tables schedule takes a while."""
    if seeded is None:
        return None
    key = tuple(seeded)
    if key not in cache.formats:
        cache.formats[key] = plan.main_format(outcomes)
    return cache.formats[key]


def _bots_of(fmt: Format) -> list[str]:
    """The format's bots in seeding order (every format keeps them as ``bots``)."""
    return list(fmt.bots)  # type: ignore[attr-defined]


def _row(rank: int, bot: str, t: _Tally, standing: Standing) -> BotRow:
    points, _ = points_of(t, standing)
    return BotRow(
        rank=rank,
        bot=bot,
        points=points,
        wins=t.wins,
        draws=t.draws,
        losses=t.losses,
        games=t.games,
        score=round(t.score, _DIGITS),
        mean_score=round(t.score / t.games, _DIGITS) if t.games else 0.0,
        mean_rank=round(t.rank_total / t.games, _DIGITS) if t.games else 0.0,
        forfeits=dict(sorted(t.forfeits.items())),
        cpu_seconds=round(t.cpu_seconds, 6),
        peak_rss_bytes=t.peak_rss_bytes,
        restarts=t.restarts,
        matches=t.matches,
        provisional_games=t.provisional,
    )


def _format_extras(
    rows: list[BotRow],
    fmt: Format | None,
    main: Sequence[_Match],
    outcomes: Mapping[str, MatchOutcome],
    seats: int,
) -> dict[str, Any]:
    """Fill the rows' format columns; the format's own state for :class:`Standings`."""
    extras: dict[str, Any] = {}
    if seats == 2:
        record = _two_seat_matches(main, fmt, outcomes)
        for row in rows:
            row.match_wins, row.match_draws, row.match_losses = record.get(row.bot, [0, 0, 0])
    if isinstance(fmt, Swiss):
        described, buchholz = _swiss_extras(fmt, outcomes)
        extras["swiss"] = described
        for row in rows:
            row.match_points = described["points"].get(row.bot, 0.0)
            row.buchholz = buchholz.get(row.bot, 0.0)
    elif isinstance(fmt, DoubleElimination):
        results = list(outcomes.values())
        described = fmt.describe(results)
        extras["bracket"] = described
        extras["bracket_text"] = fmt.render(results)
        status = _bracket_status(described)
        for row in rows:
            row.bracket = status.get(row.bot)
            row.match_draws = None  # the bracket decides every match
    elif isinstance(fmt, Tables):
        extras["balance"] = fmt.balance().as_dict()
    return extras


def _qualification(
    config: TournamentConfig, by_key: Mapping[str, _Match], outcomes: Mapping[str, MatchOutcome]
) -> tuple[list[QualificationRow] | None, list[str]]:
    """Each entrant's match against the qualifier, and those that did not qualify."""
    q = config.qualifier
    if q is None:
        return None, []
    rows: list[QualificationRow] = []
    for bot in config.field:
        key = qualify_key(bot)
        match = by_key.get(key)
        mine = match.tallies.get(bot, _Tally()) if match else _Tally()
        theirs = match.tallies.get(q, _Tally()) if match else _Tally()
        done = match is not None and match.status == "done" and key in outcomes
        rows.append(
            QualificationRow(
                bot=bot,
                status=match.status if match else "pending",
                games=mine.games,
                won=mine.wins,
                drawn=mine.draws,
                lost=mine.losses,
                score=round(mine.score, _DIGITS),
                qualifier_won=theirs.wins,
                qualifier_score=round(theirs.score, _DIGITS),
                qualified=beats(outcomes[key], bot, q) if done else None,
            )
        )
    return rows, [r.bot for r in rows if r.qualified is False]


#: Characters of a never-started bot's stderr kept in the standings (its last lines).
STDERR_TAIL_CHARS = 600


def never_started(
    conn: sqlite3.Connection, config: TournamentConfig, done: Sequence[_Match], out: Path, cache: Cache
) -> dict[str, tuple[str, str | None]]:
    """The bots that never started — no answer to any request in any of their done
    main-stage matches though they had games and forfeits, or marked unstartable — with why (their
    first forfeit's verdict and detail, or the reason they could not be started) and
    the tail of their latest non-empty stderr file under ``out``/stderr.  Each done
    match's record is read once per cache (:func:`_start_figures`)."""
    answered: dict[str, int] = {}
    causes: dict[str, str] = {}
    for match in done:
        for name, decisions, cause in _start_figures(conn, match, cache):
            answered[name] = answered.get(name, 0) + decisions
            causes.setdefault(name, cause)
    silent = {bot for bot, n in answered.items() if n == 0}
    silent |= set(config.unstartable)
    out_of = {}
    for bot in sorted(silent):
        cause = config.unstartable.get(bot) or causes.get(bot) or "it answered no request"
        out_of[bot] = (cause, _stderr_tail(out / "stderr", bot))
    return out_of


def _start_figures(conn: sqlite3.Connection, match: _Match, cache: Cache) -> list[tuple[str, int, str]]:
    """A done match's players that had games and forfeits (a bot that never answers
    forfeits), each with its decisions and its first forfeit ("verdict: detail"); kept
    in the cache by match and attempt (a done match's record never changes)."""
    key = (match.id, match.attempts)
    cached = cache.started.get(key)
    if cached is not None:
        return cached
    figures: list[tuple[str, int, str]] = []
    row = conn.execute("SELECT record FROM matches WHERE id = ?", (match.id,)).fetchone()
    try:
        record = _decode_start(row[0]) if row is not None and row[0] is not None else _StartRecord()
    except msgspec.DecodeError:
        record = _StartRecord()
    for player in record.players:
        if player.games and player.forfeit_details:
            first = player.forfeit_details[0]
            cause = f"{first.verdict}: {first.detail}" if first.detail else first.verdict
            figures.append((player.name, player.decisions, cause))
    cache.started[key] = figures
    return figures


class _StartFault(msgspec.Struct):
    verdict: str
    detail: str = ""


class _StartFigures(msgspec.Struct):
    name: str
    games: int = 0
    decisions: int = 0
    forfeit_details: list[_StartFault] = []


class _StartRecord(msgspec.Struct):
    players: list[_StartFigures] = []


_decode_start = msgspec.json.Decoder(_StartRecord).decode


def _stderr_tail(directory: Path, bot: str) -> str | None:
    """The last lines of the bot's latest non-empty stderr file (a match's, or its
    tournament-long process's), at most :data:`STDERR_TAIL_CHARS` characters."""
    try:
        files = [p for p in directory.rglob(f"{bot}.stderr") if p.is_file() and p.stat().st_size]
    except OSError:
        return None
    if not files:
        return None
    latest = max(files, key=lambda p: p.stat().st_mtime)
    try:
        with latest.open("rb") as f:
            f.seek(max(0, latest.stat().st_size - 4 * STDERR_TAIL_CHARS))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    text = text.strip()
    if len(text) > STDERR_TAIL_CHARS:
        text = "…" + text[-STDERR_TAIL_CHARS:].split("\n", 1)[-1]
    return text or None


def _faults(
    conn: sqlite3.Connection,
    config: TournamentConfig,
    matches: Sequence[_Match],
    ranked: Sequence[str],
    cache: Cache,
) -> list[BotFaults]:
    """Every bot with forfeits in any stage (or that could not start), ranked bots first."""
    counts: dict[str, Counter[str]] = {}
    where: dict[str, list[_Match]] = {}
    for match in matches:
        for bot, tally in match.tallies.items():
            if tally.forfeits:
                counts.setdefault(bot, Counter()).update(tally.forfeits)
                where.setdefault(bot, []).append(match)
    everyone = [*ranked, *(b for b in config.everyone if b not in ranked)]
    out = []
    for bot in everyone:
        if bot not in counts and bot not in config.unstartable:
            continue
        out.append(
            BotFaults(
                bot=bot,
                forfeits=dict(sorted(counts.get(bot, Counter()).items())),
                details=_details(conn, bot, where.get(bot, []), cache),
                unstartable=config.unstartable.get(bot),
            )
        )
    return out
