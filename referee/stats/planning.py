"""How many games a question needs, from a pilot's variance.

A *question* is "is bot A better than bot B by at least Δ?", asked at two-sided
``confidence`` with ``power``: the chance of detecting a true difference of Δ.  What is
measured per unit (a deal: one game, or with ``--duplicate`` the deal played once per
seat) is the first bot's result: its mean score per game for games ranked by score
(chips per hand in dice poker and Hold'em), its score rate (win 1, draw ½) for games
ranked by wins.  With σ the standard deviation of one unit, the units needed are
(:func:`referee.stats.intervals.units_needed`)::

    n = ((z(1 − α/2) + z(power)) · σ / Δ)²

and the games ``n × games per unit``.  A duplicate unit costs as many games as it has
seats but its σ is smaller — the games of one deal share their luck — and it pays when
σ²_duplicate / games per unit < σ²_single: :attr:`Estimate.variance_per_game` compares
the two on the same footing (the variance one game contributes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from referee.stats.intervals import CONFIDENCE, Interval, Moments, mean_interval, units_needed


@dataclass(frozen=True, slots=True)
class Estimate:
    """A pilot's measure and what the question needs at its variance."""

    #: How the deals were played: ``single`` or ``duplicate``.
    mode: str
    games_per_unit: int
    #: The pilot's measure with its interval (its ``sd`` is σ per unit).
    observed: Interval
    units_needed: int
    games_needed: int

    @property
    def variance_per_game(self) -> float:
        """σ² per unit × games per unit: the variance of a mean over G games is this / G,
        whatever the games per unit (comparable between modes)."""
        return self.observed.sd**2 * self.games_per_unit


def estimate(
    mode: str,
    sample: Moments,
    games_per_unit: int,
    diff: float,
    confidence: float = CONFIDENCE,
    power: float = 0.8,
) -> Estimate:
    """What detecting ``diff`` needs, with ``sample``'s units as the pilot."""
    observed = mean_interval(sample, confidence)
    units = units_needed(observed.sd, diff, confidence, power) if observed.sd > 0 else 1
    return Estimate(mode, games_per_unit, observed, units, units * games_per_unit)


def variance_reduction(single: Estimate, duplicate: Estimate) -> float:
    """How many times fewer games duplicate deals need for the same interval:
    variance per game single / duplicate (``inf`` when duplicate has none)."""
    if duplicate.variance_per_game == 0:
        return math.inf
    return single.variance_per_game / duplicate.variance_per_game
