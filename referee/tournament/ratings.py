"""Ratings with error bars, per-pair intervals and sequential tests: a tournament's
results with their uncertainty, from its store.

What is counted: **done matches** — without the provisional games of running ones (a
running match may yet be replayed).  Ratings count every done match between ranked
bots, the seeding round robin's as well as the main stage's (a double elimination's
bracket alone says little); the intervals of the table's means and of the crosstable
count the main stage, as those figures do.  Bots that have not played are not rated.  Each
done match's record carries its :class:`~referee.core.records.MatchEvidence` (per-deal
sufficient statistics the match kept as it played); a record written before those were
kept is rebuilt from its stored games, once per reader (its cache keeps it).

What is computed (:func:`rate`), all at once from every counted result — not by online
updates, whose outcome depends on the order games were played in and whose
uncertainty collapses:

* **ratings**: games ranked by wins, two-seat a Bradley–Terry fit on the Elo scale
  (:mod:`referee.stats.bradley_terry`; a game won 1, drawn ½), multi-seat a
  Plackett–Luce fit over finishing orders (:mod:`referee.stats.plackett_luce`); games
  ranked by score, a chip-strength fit in score per game (:mod:`referee.stats.chips`).
  Each with a percentile-bootstrap interval — deals resampled within each pair or
  lineup (so who met whom is kept, and a duplicate deal's games stay together), or,
  where some pair played fewer than :data:`RESAMPLE_MIN_DEALS` deals or all alike,
  games drawn from the fitted model — the range of ranks the replicates give each bot,
  and the likelihood of superiority of each bot over the next in rating order.  Ratings
  are centred: the field's mean is 0.  The bootstrap's generator is seeded from the
  tournament's seed: the same store gives the same intervals.
* **mean score per game** of each bot with a Student-t interval over its deals
  (:mod:`referee.stats.intervals`) — chips per hand in dice poker and Hold'em;
* **per pair** (the crosstable): two seats, the row bot's score rate and its *edge* per
  game — half its score minus the column bot's, its own chips in a zero-sum game — each
  with its interval; more seats, the row bot's mean score per game over the deals where
  both sat;
* **sequential tests** (``--sprt``): each pair's test state, as its match recorded it.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from referee.core.records import GameRecord, MatchEvidence, MatchRecord
from referee.match.evidence import evidence_of, score_rate
from referee.stats.intervals import CONFIDENCE, Interval, Moments, mean_interval, pooled, rate_interval
from referee.stats.sprt import SprtResult

if TYPE_CHECKING:  # numpy and the fits load when a rating is computed, not with the CLI
    import numpy as np

    from referee.stats import bradley_terry, plackett_luce
    from referee.stats.ratings import RatingFit

#: Bootstrap replicates of a two-seat (Bradley–Terry) and a multi-seat (Plackett–Luce) fit.
PAIR_REPLICATES = 1000
PLACEMENT_REPLICATES = 300
#: Deals a pair (a lineup) must have played for its deals to be resampled; with fewer
#: anywhere, or a pair whose deals all scored alike, the replicates' games are drawn from
#: the fitted model (parametric).  Resampling
#: k deals understates their variance by (k − 1)/k: 3 % at 30, all of it at 1.
RESAMPLE_MIN_DEALS = 30
#: The chip model's method name, and how its intervals are made.
CHIPS = "chips"
CHIP_INTERVALS = "each lineup's mean score drawn from a normal with its standard error (parametric)"
#: How the intervals were made (``Ratings.intervals``).
RESAMPLED = "deals resampled within each pair or lineup"
PARAMETRIC = (
    "games drawn from the fitted model (some pair or lineup played fewer than 30 deals, or all "
    "its deals scored alike)"
)

_decode_record = msgspec.json.Decoder(MatchRecord).decode
_decode_list = msgspec.json.Decoder(list).decode


@dataclass(frozen=True, slots=True)
class Played:
    """One done match's evidence: its lineup (names by lineup position)."""

    lineup: tuple[str, ...]
    evidence: MatchEvidence
    sprt: SprtResult | None = None
    #: The bot the sequential test is about.
    sprt_bot: str | None = None


class BotRating(msgspec.Struct, kw_only=True):
    """One bot's rating: Elo (field mean 0) in [``low``, ``high``] at the ratings'
    confidence, ranks from ``rank_low`` (best) to ``rank_high`` in the central share of
    the bootstrap replicates, and ``los_next``: the likelihood that it is stronger than
    the next bot in rating order (``None`` for the last)."""

    bot: str
    #: In the ratings' ``scale``: Elo, or score per game.
    rating: float
    low: float
    high: float
    rank_low: int
    rank_high: int
    los_next: float | None = None


class Ratings(msgspec.Struct, kw_only=True):
    """The ratings of the ranked bots, best rated first."""

    #: ``bradley-terry`` (two seats) or ``plackett-luce`` (more) for games ranked by
    #: wins; ``chips`` (:mod:`referee.stats.chips`) for games ranked by score.
    method: str
    #: What a rating is in: ``Elo``, or ``score per game`` (chips).
    scale: str
    confidence: float
    replicates: int
    #: Done matches (main stage and a seeding round robin) and deals (units) counted.
    matches: int
    units: int
    bots: list[BotRating]
    #: How the bootstrap made its replicates: :data:`RESAMPLED` or :data:`PARAMETRIC`.
    intervals: str = RESAMPLED


class PairResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The row bot against the column bot, with intervals (:func:`pair_results`)."""

    units: int
    #: Two seats: the row bot's score per game (win 1, draw ½) and its interval.
    rate: float | None = None
    rate_low: float | None = None
    rate_high: float | None = None
    #: The row bot's mean score per game and its interval — two seats: its *edge*, half
    #: its score minus the column bot's (its own chips in a zero-sum game such as dice
    #: poker: a paired measure, which duplicate deals sharpen).
    mean_score: float = 0.0
    mean_score_low: float | None = None
    mean_score_high: float | None = None
    #: Two seats: the sequential test of the pair's last match that ran one, in the row
    #: of the bot it tested (the match's ``sprt_bot``: "is it elo1 rather than elo0 stronger?").
    sprt: SprtResult | None = None


# ---------------------------------------------------------------------- reading


def read_played(
    conn: sqlite3.Connection, matches: Sequence[tuple[int, int]], cache: dict[int, tuple[int, Played]]
) -> list[Played]:
    """The evidence of the done matches ``(id, attempts)``, in the order given; ``cache``
    keeps what was read (a done match's evidence never changes)."""
    out = []
    for mid, attempts in matches:
        held = cache.get(mid)
        if held is None or held[0] != attempts:
            row = conn.execute("SELECT record FROM matches WHERE id = ?", (mid,)).fetchone()
            if row is None or row[0] is None:
                continue
            record = _decode_record(row[0])
            lineup = tuple(p.name for p in record.players)
            evidence = record.evidence
            if evidence is None:
                evidence = _rebuilt(conn, mid, len(lineup), len(lineup) if record.duplicate else 1)
            held = (attempts, Played(lineup, evidence, record.sprt, record.sprt_bot))
            cache[mid] = held
        out.append(held[1])
    return out


def _rebuilt(conn: sqlite3.Connection, mid: int, bots: int, games_per_unit: int) -> MatchEvidence:
    """The evidence of a match whose record predates it, from its stored games."""
    rows = conn.execute(
        "SELECT game, deal, rotation, seats, scores, ranks FROM games WHERE match_id = ? ORDER BY game",
        (mid,),
    )
    records = (
        GameRecord(
            game=game,
            deal=deal,
            rotation=rotation,
            seed=0,
            seats=_decode_list(seats),
            scores=_decode_list(scores),
            ranks=_decode_list(ranks),
        )
        for game, deal, rotation, seats, scores, ranks in rows
    )
    return evidence_of(records, bots, games_per_unit)


# ---------------------------------------------------------------------- ratings


def rate(
    bots: Sequence[str],
    played: Sequence[Played],
    seed: int,
    *,
    by_score: bool = False,
    confidence: float = CONFIDENCE,
    replicates: int | None = None,
) -> Ratings | None:
    """The ratings of ``bots`` from ``played`` (module docstring); ``None`` before any
    deal between two of them was played.  ``by_score``: a game ranked by score — rated
    in score per game (:mod:`referee.stats.chips`), not on games won."""
    ranked = set(bots)
    counted = [p for p in played if p.evidence.units and sum(b in ranked for b in p.lineup) >= 2]
    # Only bots that played are rated: one without games would get the prior's Elo 0.
    present = {b for p in counted for b in p.lineup}
    bots = [b for b in bots if b in present]
    index = {bot: i for i, bot in enumerate(bots)}
    if not counted:
        return None
    import numpy as np

    rng = np.random.default_rng(_bootstrap_seed(seed))
    if by_score:
        fitted = _fit_chips(counted, index, replicates or PAIR_REPLICATES, confidence, rng)
    elif all(len(p.lineup) == 2 for p in counted):
        fitted = _fit_pairs(counted, index, replicates or PAIR_REPLICATES, confidence, rng)
    else:
        fitted = _fit_placements(counted, index, replicates or PLACEMENT_REPLICATES, confidence, rng)
    if fitted is None:
        return None
    fit, method, how = fitted
    digits = 4 if method == CHIPS else 2
    rows = []
    order = [int(i) for i in fit.order]
    for k, i in enumerate(order):
        rows.append(
            BotRating(
                bot=bots[i],
                rating=_round(fit.elo[i], digits),
                low=_round(fit.low[i], digits),
                high=_round(fit.high[i], digits),
                rank_low=int(fit.rank_low[i]),
                rank_high=int(fit.rank_high[i]),
                los_next=_round(fit.los_next[k], 4) if k < len(order) - 1 else None,
            )
        )
    return Ratings(
        method=method,
        scale="score per game" if method == CHIPS else "Elo",
        confidence=confidence,
        replicates=fit.replicates,
        matches=len(counted),
        units=sum(p.evidence.units for p in counted),
        bots=rows,
        intervals=how,
    )


#: A fit, its method and how its intervals were made (``Ratings.intervals``).
_Fitted = tuple["RatingFit", str, str]


def _fit_chips(
    played: Sequence[Played],
    index: Mapping[str, int],
    replicates: int,
    confidence: float,
    rng: np.random.Generator,
) -> _Fitted | None:
    from referee.stats import chips

    observations = _chip_observations(played, index)
    if not observations:
        return None
    fit = chips.rate_chips(len(index), observations, replicates=replicates, confidence=confidence, rng=rng)
    return fit, CHIPS, CHIP_INTERVALS


def _fit_pairs(
    played: Sequence[Played],
    index: Mapping[str, int],
    replicates: int,
    confidence: float,
    rng: np.random.Generator,
) -> _Fitted | None:
    from referee.stats import bradley_terry

    strata = _pair_strata(played, index)
    if not strata:
        return None
    parametric = any(_too_few(s.counts) for s in strata)
    fit = bradley_terry.rate_pairs(
        len(index), strata, replicates=replicates, confidence=confidence, rng=rng, parametric=parametric
    )
    return fit, "bradley-terry", PARAMETRIC if parametric else RESAMPLED


def _fit_placements(
    played: Sequence[Played],
    index: Mapping[str, int],
    replicates: int,
    confidence: float,
    rng: np.random.Generator,
) -> _Fitted | None:
    from referee.stats import plackett_luce

    strata = _placement_strata(played, index)
    if not strata:
        return None
    seats = max(len({i for u in s.units for g in u for grp in g for i in grp}) for s in strata)
    # The parametric bootstrap enumerates a lineup's orders: tables of up to 6 seats.
    parametric = any(_too_few(s.counts) for s in strata) and seats <= plackett_luce.PARAMETRIC_SEATS
    fit = plackett_luce.rate_placements(
        len(index), strata, replicates=replicates, confidence=confidence, rng=rng, parametric=parametric
    )
    return fit, "plackett-luce", PARAMETRIC if parametric else RESAMPLED


def _chip_observations(played: Sequence[Played], index: Mapping[str, int]) -> list:
    """Each lineup's mean scores for the chip model: two seats, the first bot's edge
    (the second's is its mirror); more seats, every ranked bot's mean score.  Matches of
    one lineup pooled."""
    from referee.stats.chips import ChipObservation

    pooled_by: dict[tuple[tuple[int, ...], int], Moments] = {}
    for p in played:
        positions = [index.get(name) for name in p.lineup]
        if any(i is None for i in positions):
            continue  # a bot outside the ranked field (did not qualify) sat here
        lineup = tuple(i for i in positions if i is not None)
        if len(lineup) == 2:
            sample = p.evidence.edge if p.evidence.edge is not None else p.evidence.scores[0]
            pooled_by.setdefault((lineup, lineup[0]), Moments()).add(sample)
            continue
        for i, moments in zip(lineup, p.evidence.scores, strict=True):
            pooled_by.setdefault((lineup, i), Moments()).add(moments)
    return [
        ChipObservation(bot=bot, lineup=lineup, mean=m.mean, sd=m.sd, deals=m.n)
        for (lineup, bot), m in pooled_by.items()
        if m.n
    ]


def _pair_strata(played: Sequence[Played], index: Mapping[str, int]) -> list[bradley_terry.PairStratum]:
    """Two-seat matches as Bradley–Terry strata: one per pair (and deal size), the
    matches of a pair merged — a bootstrap within a match of few deals would understate
    its variance (by (k − 1)/k for k deals) — and a unit cut short as one of its own."""
    import numpy as np

    from referee.stats import bradley_terry

    merged: dict[tuple[int, int, int], np.ndarray] = {}
    for p in played:
        a, b = (index.get(name) for name in p.lineup)
        if a is None or b is None:
            continue
        ev = p.evidence
        units: list[tuple[int, np.ndarray]] = []
        if any(ev.points):
            units.append((ev.games_per_unit, np.asarray(ev.points, dtype=np.int64)))
        if ev.partial:
            games, half_points = ev.partial
            single = np.zeros(2 * games + 1, dtype=np.int64)
            single[half_points] = 1
            units.append((games, single))
        for per_unit, counts in units:
            # Keyed from the lower index's side: the other's half-points are 2g − k.
            key = (min(a, b), max(a, b), per_unit)
            oriented = counts if a < b else counts[::-1]
            merged[key] = merged[key] + oriented if key in merged else oriented.copy()
    return [
        bradley_terry.PairStratum(
            a=a, b=b, games_per_unit=per_unit, points=np.arange(2 * per_unit + 1) / 2.0, counts=counts
        )
        for (a, b, per_unit), counts in merged.items()
    ]


def _placement_strata(
    played: Sequence[Played], index: Mapping[str, int]
) -> list[plackett_luce.PlacementStratum]:
    """Multi-seat matches' finishing orders by field index, merged per lineup (as pairs
    are, :func:`_pair_strata`).  Bots outside ``index`` (one that did not qualify) are
    left out of the orders."""
    import numpy as np

    from referee.stats import plackett_luce

    merged: dict[frozenset[int], Counter[plackett_luce.Unit]] = {}
    for p in played:
        lineup = frozenset(index[name] for name in p.lineup if name in index)
        for unit, count in p.evidence.placements:
            games = []
            for game in unit:
                groups = tuple(
                    g
                    for g in (
                        tuple(index[p.lineup[pos]] for pos in group if p.lineup[pos] in index)
                        for group in game
                    )
                    if g
                )
                if len(groups) > 1 or (groups and len(groups[0]) > 1):
                    games.append(groups)
            if games:
                merged.setdefault(lineup, Counter())[tuple(games)] += count
    return [
        plackett_luce.PlacementStratum(units=list(units), counts=np.fromiter(units.values(), dtype=np.int64))
        for units in merged.values()
        if units
    ]


def _too_few(counts: np.ndarray) -> bool:
    """Whether resampling a pair's (a lineup's) deals would understate its spread: fewer
    than :data:`RESAMPLE_MIN_DEALS` deals, or deals that all scored alike (a whitewash:
    every replicate the same, an interval of width 0)."""
    return int(counts.sum()) < RESAMPLE_MIN_DEALS or int((counts > 0).sum()) < 2


def _bootstrap_seed(seed: int) -> int:
    digest = hashlib.sha256(f"ratings bootstrap {seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _round(value: float, digits: int = 2) -> float:
    value = float(value)
    return value if math.isinf(value) else round(value, digits)


# ---------------------------------------------------------------------- intervals


def score_intervals(bots: Sequence[str], played: Sequence[Played]) -> dict[str, Interval]:
    """Each bot's mean score per game with its interval over all its deals."""
    samples: dict[str, list[Moments]] = {bot: [] for bot in bots}
    for p in played:
        for name, moments in zip(p.lineup, p.evidence.scores, strict=True):
            if name in samples:
                samples[name].append(moments)
    return {bot: mean_interval(pooled(s)) for bot, s in samples.items() if s}


def pair_results(played: Sequence[Played]) -> dict[tuple[str, str], PairResult]:
    """Per ordered pair (row, column), over the matches where both sat (module docstring)."""
    rates: dict[tuple[str, str], list[Moments]] = {}
    per_unit: dict[tuple[str, str], int] = {}
    scores: dict[tuple[str, str], list[Moments]] = {}
    tests: dict[tuple[str, str], SprtResult] = {}
    for p in played:
        ev = p.evidence
        if len(p.lineup) == 2:
            first, second = p.lineup
            rate = score_rate(ev)
            rates.setdefault((first, second), []).append(rate)
            rates.setdefault((second, first), []).append(_mirrored(rate))
            per_unit[first, second] = per_unit[second, first] = ev.games_per_unit
            if p.sprt is not None:  # a test of "this bot is stronger": its row only
                tested = p.sprt_bot or first
                tests[tested, second if tested == first else first] = p.sprt
            edge = ev.edge if ev.edge is not None else ev.scores[0]
            scores.setdefault((first, second), []).append(edge)
            scores.setdefault((second, first), []).append(Moments(edge.n, -edge.total, edge.total_sq))
            continue
        for i, me in enumerate(p.lineup):
            for j, other in enumerate(p.lineup):
                if i != j:
                    scores.setdefault((me, other), []).append(ev.scores[i])
    out = {}
    for pair, samples in scores.items():
        chips = mean_interval(pooled(samples))
        result = PairResult(
            units=chips.n,
            mean_score=_round(chips.mean, 6),
            mean_score_low=None if chips.low is None else _round(chips.low, 6),
            mean_score_high=None if chips.high is None else _round(chips.high, 6),
            sprt=tests.get(pair),
        )
        if pair in rates:
            iv = rate_interval(pooled(rates[pair]), per_unit.get(pair, 1))
            result.rate = _round(iv.mean, 6)
            result.rate_low = None if iv.low is None else _round(iv.low, 6)
            result.rate_high = None if iv.high is None else _round(iv.high, 6)
        out[pair] = result
    return out


def _mirrored(m: Moments) -> Moments:
    """The other bot's score rate: values 1 − v (Σ(1 − v) = n − Σv, Σ(1 − v)² = n − 2Σv + Σv²)."""
    return Moments(m.n, m.n - m.total, m.n - 2 * m.total + m.total_sq)
