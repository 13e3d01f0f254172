"""Chip ratings: for games ranked by score (dice poker, Hold'em), a rating in score per
game whose rank ranges agree with the standings' order.

An Elo on deals won says who wins more deals; in a chip game the table ranks by chips,
and a bot may win fewer deals yet more chips (the equilibrium strategy of dice poker
folds small and wins big).  So for those games the standings rank ranges come from
this additive model instead.

The model
---------

Bot i has a chip strength cᵢ (centred: Σ cᵢ = 0).  What is observed, per pair or table
lineup L, is each bot's mean score per game m_{L,i} over that lineup's deals, with its
standard error se_{L,i} (from the per-deal moments), and the model says::

    E[m_{L,i}] = cᵢ − (1/(|L| − 1)) Σ_{j∈L, j≠i} cⱼ

— a bot's expected score is its strength less its opponents' mean: cᵢ is its score per
game against an average opponent (c = 0), and at a table the model's scores sum to 0,
as a zero-sum game's do.  Two seats: m_{ab} = c_a − c_b, the first bot's edge.  c is the least-squares fit
weighted by each observation's deals, with the constraint Σc = 0; one observation per
lineup and bot (two-seat lineups: the first bot's edge alone, the second's being its
mirror).  Weighted by deals, not by inverse variance: strengths are rarely exactly
additive (always-call beats always-fold by a fixed 1.5 chips a deal, with almost no
spread, yet loses to everyone else), and inverse-variance weights would let such a
precise but atypical pair decide the whole fit; weighted by deals, a complete round
robin's cᵢ orders bots as their total score does.

The interval
------------

A parametric bootstrap: each replicate draws every observation afresh,
m* ~ Normal(m, se²) — the means of many deals are close to normal — and refits; all
replicates at once (one factorisation).  Percentile intervals, rank ranges and LOS as
for the other fits (:func:`referee.stats.ratings.summarise`).  An observation whose deals
all scored alike (se = 0) gets the field's median standard error per deal, scaled to its
deals, so it is not taken as certain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.stats.ratings import ELO_PER_NAT, RatingFit, check_options, summarise


@dataclass(frozen=True)
class ChipObservation:
    """One bot's mean score per game against one lineup: ``bot`` (an index), the
    ``lineup`` it sat in (indices, itself included), the mean, its sample standard
    deviation per deal and the number of deals."""

    bot: int
    lineup: tuple[int, ...]
    mean: float
    sd: float
    deals: int


def rate_chips(
    bots: int,
    observations: Sequence[ChipObservation],
    *,
    replicates: int = 1000,
    confidence: float = 0.95,
    rng: np.random.Generator,
) -> RatingFit:
    """Chip strengths with parametric-bootstrap intervals (module docstring).  The
    :class:`RatingFit`'s ``elo`` fields hold score per game here (centred)."""
    check_options(replicates, confidence, 0.0)
    usable = [o for o in observations if o.deals > 0]
    if not usable:
        raise ValueError("no observation to fit")
    per_deal = [o.sd for o in usable if o.sd > 0 and o.deals > 1]
    fallback = float(np.median(per_deal)) if per_deal else 1.0
    design = np.zeros((len(usable), bots))
    means = np.empty(len(usable))
    errors = np.empty(len(usable))
    for row, o in enumerate(usable):
        design[row, [j for j in o.lineup if j != o.bot]] -= 1.0 / (len(o.lineup) - 1)
        design[row, o.bot] += 1.0
        means[row] = o.mean
        sd = o.sd if o.sd > 0 and o.deals > 1 else fallback
        errors[row] = sd / math.sqrt(o.deals)
    weights = np.array([float(o.deals) for o in usable])
    # Σc = 0 as one more (heavily weighted) row: the fit is then unique.
    design = np.vstack([design, np.ones(bots)])
    weight = np.append(weights, weights.max() * 1e3 + 1.0)
    normal = design.T @ (design * weight[:, None])
    solve = np.linalg.pinv(normal) @ (design.T * weight)  # (bots, rows)
    point = solve @ np.append(means, 0.0)
    drawn = means + errors * rng.standard_normal((replicates, len(means)))
    reps = np.hstack([drawn, np.zeros((replicates, 1))]) @ solve.T
    # summarise works on natural log-strengths and reports 400/ln10 of them: undo it.
    return summarise(point / ELO_PER_NAT, reps / ELO_PER_NAT, confidence)
