"""A match's evidence, kept game by game: what intervals and ratings need.

:class:`EvidenceTally` turns the stream of :class:`~referee.core.records.GameRecord` into a
:class:`~referee.core.records.MatchEvidence` — per bot the moments of its mean score per
unit (a unit is the games of one deal), and for two seats the distribution of the first
bot's points per unit, for more seats the distinct finishing orders per unit.  A match
keeps one (``Match``), and a tournament's standings rebuild one from stored games when
a record predates them.

It costs O(seats) per game and a dictionary update per unit; the match's hot path
calls :meth:`EvidenceTally.add` once per game: 0.39 µs for two bots and a deal per game
(dice poker without ``--duplicate``), 0.8 µs with it (timeit over 1000 records).
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.core.records import GameRecord, MatchEvidence, UnitPlacements
from referee.stats.intervals import Moments

#: A game's finishing order as tie groups of lineup positions (hashable).
_Order = tuple[tuple[int, ...], ...]


class EvidenceTally:
    """Units of one match, ``bots`` in its lineup, ``games_per_unit`` games per deal.

    Sums are kept in plain lists, and :class:`MatchEvidence` built only by
    :meth:`result`: the per-game path is a few list operations (module docstring)."""

    __slots__ = (
        "_deal",
        "_edge",
        "_games",
        "_half_points",
        "_order_counts",
        "_order_units",
        "_orders",
        "_partial",
        "_points",
        "_sq",
        "_sums",
        "_totals",
        "_unit",
        "_units",
        "add",
        "bots",
        "games_per_unit",
    )

    def __init__(self, bots: int, games_per_unit: int) -> None:
        self.bots = bots
        self.games_per_unit = games_per_unit
        #: Closed units: how many, per bot Σ and Σ² of unit means, the first bot's
        #: half-points per unit (two seats) or the distinct finishing orders (more).
        self._units = 0
        self._totals = [0.0] * bots
        self._sq = [0.0] * bots
        self._points = [0] * (2 * games_per_unit + 1) if bots == 2 else []
        #: Two seats: Σ and Σ² of the first bot's edge per game (unit means).
        self._edge = [0.0, 0.0]
        self._partial: list[int] | None = None
        #: Distinct units' finishing orders: their index, as lists (built once, when first
        #: seen: :meth:`result` runs at every checkpoint), and counts.
        self._orders: dict[tuple[_Order, ...], int] = {}
        self._order_units: list[UnitPlacements] = []
        self._order_counts: list[int] = []
        #: The unit being filled: its deal, games, score sums by lineup position, the
        #: first bot's half-points (two seats) or the games' orders (more).
        self._deal = -1
        self._games = 0
        self._sums = [0.0] * bots
        self._half_points = 0
        self._unit: list[_Order] = []
        #: One more game (a new deal closes the unit before it).  Two bots and a deal per
        #: game (millions of dice-poker deals) take a path that closes its unit at once.
        self.add = self._add_one_deal_pair if bots == 2 and games_per_unit == 1 else self._add_game

    def _add_one_deal_pair(self, record: GameRecord) -> None:
        first = record.rotation & 1  # the first lineup bot's seat
        scores = record.scores
        mine = scores[first]
        theirs = scores[1 - first]
        ranks = record.ranks
        rank = ranks[first]
        other = ranks[1 - first]
        self._points[2 if rank < other else 1 if rank == other else 0] += 1
        totals, sq, edges = self._totals, self._sq, self._edge
        totals[0] += mine
        sq[0] += mine * mine
        totals[1] += theirs
        sq[1] += theirs * theirs
        edge = (mine - theirs) / 2
        edges[0] += edge
        edges[1] += edge * edge
        self._units += 1

    def _add_game(self, record: GameRecord) -> None:
        if record.deal != self._deal:
            if self._games:
                self._close()
            self._deal = record.deal
        n = self.bots
        rotation = record.rotation
        ranks = record.ranks
        sums = self._sums
        if n == 2:
            # The first lineup bot sits in seat rotation mod 2.
            first = rotation & 1
            scores = record.scores
            sums[0] += scores[first]
            sums[1] += scores[1 - first]
            mine = ranks[first]
            theirs = ranks[1 - first]
            self._half_points += 2 if mine < theirs else 1 if mine == theirs else 0
        else:
            for seat, score in enumerate(record.scores):
                sums[(seat + rotation) % n] += score
            self._unit.append(_finishing_order(ranks, rotation, n))
        self._games += 1
        if self._games == self.games_per_unit:
            self._close()
            self._deal = -1  # the next game starts a unit even on the same deal

    def result(self) -> MatchEvidence:
        """The evidence so far, a unit cut short included (the tally can go on after)."""
        out = MatchEvidence(
            games_per_unit=self.games_per_unit,
            units=self._units,
            scores=[Moments(self._units, t, q) for t, q in zip(self._totals, self._sq, strict=True)],
            points=list(self._points),
            partial=None if self._partial is None else list(self._partial),
            placements=list(zip(self._order_units, self._order_counts, strict=True)),
            edge=Moments(self._units, self._edge[0], self._edge[1]) if self.bots == 2 else None,
        )
        if self._games:
            games = self._games
            out.units += 1
            for moments, total in zip(out.scores, self._sums, strict=True):
                moments.push(total / games)
            if self.bots == 2:
                out.partial = [games, self._half_points]
                assert out.edge is not None
                out.edge.push((self._sums[0] - self._sums[1]) / (2 * games))
            else:
                _add_placement(out, tuple(self._unit))
        return out

    def _close(self) -> None:
        games = self._games
        self._units += 1
        totals, sq, sums = self._totals, self._sq, self._sums
        if self.bots == 2:
            edge = (sums[0] - sums[1]) / (2 * games)
            self._edge[0] += edge
            self._edge[1] += edge * edge
        for i in range(self.bots):
            mean = sums[i] / games
            totals[i] += mean
            sq[i] += mean * mean
            sums[i] = 0.0
        if self.bots == 2:
            if games == self.games_per_unit:
                self._points[self._half_points] += 1
            else:  # a deal cut short mid-match cannot happen; kept apart all the same
                self._partial = [games, self._half_points]
            self._half_points = 0
        else:
            unit = tuple(self._unit)
            at = self._orders.get(unit)
            if at is None:
                self._orders[unit] = len(self._order_units)
                self._order_units.append([list(map(list, game)) for game in unit])
                self._order_counts.append(1)
            else:
                self._order_counts[at] += 1
            self._unit = []
        self._games = 0


def _finishing_order(ranks: list[int], rotation: int, n: int) -> _Order:
    """Lineup positions grouped by rank, best first."""
    groups: dict[int, list[int]] = {}
    for seat, rank in enumerate(ranks):
        groups.setdefault(rank, []).append((seat + rotation) % n)
    return tuple(tuple(sorted(groups[rank])) for rank in sorted(groups))


def _add_placement(out: MatchEvidence, unit: tuple[_Order, ...]) -> None:
    """A unit cut short, added to a result's placements (a linear search: once per result)."""
    as_lists: UnitPlacements = [list(map(list, game)) for game in unit]
    for i, (known, count) in enumerate(out.placements):
        if known == as_lists:
            out.placements[i] = (known, count + 1)
            return
    out.placements.append((as_lists, 1))


def evidence_of(records: Iterable[GameRecord], bots: int, games_per_unit: int) -> MatchEvidence:
    """The evidence of stored games (in game order)."""
    tally = EvidenceTally(bots, games_per_unit)
    for record in records:
        tally.add(record)
    return tally.result()


def score_rate(evidence: MatchEvidence) -> Moments:
    """Two bots: the first bot's score per game (win 1, draw ½) in each unit, as moments
    (a unit cut short counts as one unit of its own games)."""
    per_game = 2 * evidence.games_per_unit
    out = Moments()
    for half_points, count in enumerate(evidence.points):
        value = half_points / per_game
        out.n += count
        out.total += count * value
        out.total_sq += count * value * value
    if evidence.partial:
        games, half_points = evidence.partial
        out.push(half_points / (2 * games))
    return out
