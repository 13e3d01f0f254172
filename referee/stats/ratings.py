"""Ratings with error bars: what the two-seat (:mod:`~referee.stats.bradley_terry`) and
multi-seat (:mod:`~referee.stats.plackett_luce`) fits share.

Both models give each bot a natural log-strength θᵢ (strength γᵢ = e^θᵢ); only
differences matter, so θ is reported **centred** (the field's mean is 0).  On the Elo
scale, where a 400-point gap means 10:1 odds::

    Elo = 400 · log10(γ) = 400 / ln 10 · θ ≈ 173.72 · θ

Everything is fitted on all stored results at once — not by online Elo updates, whose
result depends on the order the games were played in and whose uncertainty collapses.

Uncertainty: the bootstrap
--------------------------

The observations are *units* (the games of one deal), grouped into *strata* (one match:
one fixed lineup).  A bootstrap replicate redraws each stratum's units with replacement,
as many as it had, and refits.  Resampling within strata keeps the design — who met whom
how often — and resampling whole units keeps the correlation of a duplicate deal's games.
A stratum with nᵤ units of which cₖ had the k-th distinct value is resampled exactly by
one multinomial draw (:func:`resample`)::

    (c*₁, …, c*ₘ) ~ Multinomial(nᵤ; c₁/nᵤ, …, cₘ/nᵤ)

which costs O(m), not O(nᵤ): a stratum may hold millions of deals but few distinct ones.

Resampling within a stratum of k units reproduces the variance of its units' mean only
up to a factor (k − 1)/k, and a stratum of a single unit contributes no variance at all:
fine for matches of dozens of deals or more, but a format that plays each lineup for a
handful of deals per match should pass the matches of one lineup as one stratum.

From B replicates (:func:`summarise`):

* the **interval** of each bot's Elo is the percentile interval (Efron 1979; Efron &
  Tibshirani 1993, ch. 13): the α/2 and 1 − α/2 quantiles of its replicate Elos, α = 1 −
  confidence;
* its **rank range** [rank_low, rank_high]: the α/2 quantile of its best rank and the
  1 − α/2 quantile of its worst rank over the replicates (1 = top; bots whose Elos are
  within :data:`TIE_ELO` of each other in a replicate share the ranks they span);
* the **likelihood of superiority** of each bot over the next in rating order::

      LOS = Φ(Δ / sd(Δ*))

  with Δ the point estimate of their Elo difference and sd(Δ*) the standard deviation
  of that difference over the replicates (a normal approximation of its sampling
  distribution; Φ the standard normal CDF).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Elo points per natural-log unit of strength: 400 / ln 10.
ELO_PER_NAT = 400.0 / math.log(10.0)

#: Elos closer than this (in Elo points) count as tied when ranking a replicate: the fits
#: stop at ~1e-7 nats (~2e-5 Elo), so exactly tied bots may differ by rounding.
TIE_ELO = 1e-3


@dataclass(frozen=True)
class RatingFit:
    """Ratings with error bars (module docstring).

    ``elo`` is centred (mean 0).  Comparing two fits: compare the fields (``==`` on the
    dataclass compares numpy arrays and is ambiguous)."""

    bots: int  # n
    elo: np.ndarray  # (n,) point estimate, Elo scale, centred: mean 0
    low: np.ndarray  # (n,) lower end of the percentile-bootstrap interval
    high: np.ndarray  # (n,) upper end
    rank_low: np.ndarray  # (n,) int, best rank (1 = top) in the central `confidence` share of replicates
    rank_high: np.ndarray  # (n,) int, worst such rank
    order: np.ndarray  # (n,) bot indices sorted by elo, best first
    los_next: np.ndarray  # (n-1,) LOS of order[k] over order[k+1]
    replicates: int
    confidence: float


def centre(theta: np.ndarray) -> np.ndarray:
    """θ less its mean over the last axis (the bots)."""
    return theta - theta.mean(axis=-1, keepdims=True)


def to_elo(theta: np.ndarray) -> np.ndarray:
    """Centred Elo of natural log-strengths θ (last axis: bots): 400/ln 10 · (θ − mean θ)."""
    return ELO_PER_NAT * centre(np.asarray(theta, dtype=float))


def check_options(replicates: int, confidence: float, prior: float) -> None:
    """Reject options no fit can honour."""
    if replicates < 2:
        raise ValueError(f"replicates must be at least 2 (a spread needs two), not {replicates}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    if not prior >= 0.0 or math.isinf(prior):
        raise ValueError(f"prior must be a finite number ≥ 0, not {prior}")


def resample(counts: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """``replicates`` bootstrap resamples of one stratum's units, as counts per distinct
    value: shape (replicates, len(counts)), each row summing to ``counts.sum()``.

    Drawing nᵤ units with replacement from nᵤ units of which cₖ have value k is one
    Multinomial(nᵤ; c/nᵤ) draw."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if len(counts) == 1 or total == 0:  # nothing to choose between
        return np.broadcast_to(counts, (replicates, len(counts))).copy()
    return rng.multinomial(total, counts / total, size=replicates)


def strongly_connected(beats: np.ndarray) -> bool:
    """Whether the directed graph ``beats[i, j] > 0`` ("i scored against j") is strongly
    connected: the condition for a finite maximum-likelihood estimate without a prior
    (Zermelo 1929; Hunter 2004, Assumption 1 — in every split of the field into two
    groups, someone in each group scored against someone in the other)."""
    edges = np.asarray(beats) > 0
    n = len(edges)
    if n <= 1:
        return True
    return bool(_reachable(edges).all() and _reachable(edges.T).all())


def _reachable(edges: np.ndarray) -> np.ndarray:
    """Nodes reachable from node 0 (breadth first, a layer per step)."""
    seen = np.zeros(len(edges), dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = edges[frontier].any(axis=0) & ~seen
        seen |= frontier
    return seen


def summarise(point_logs: np.ndarray, replicate_logs: np.ndarray, confidence: float) -> RatingFit:
    """A :class:`RatingFit` from the point estimate θ̂ (n,) and the bootstrap replicates'
    θ* (B, n), natural log-strengths (module docstring for the formulas)."""
    elo = to_elo(point_logs)
    reps = to_elo(replicate_logs)
    alpha = 1.0 - confidence
    low, high = np.quantile(reps, [alpha / 2, 1 - alpha / 2], axis=0)
    best, worst = rank_bounds(reps)
    # inverted_cdf: a replicate rank actually taken, leaving out at most α/2 on each side.
    rank_low = np.quantile(best, alpha / 2, axis=0, method="inverted_cdf").astype(np.int64)
    rank_high = np.quantile(worst, 1 - alpha / 2, axis=0, method="inverted_cdf").astype(np.int64)
    order = np.argsort(-elo, kind="stable")
    return RatingFit(
        bots=len(elo),
        elo=elo,
        low=low,
        high=high,
        rank_low=rank_low,
        rank_high=rank_high,
        order=order,
        los_next=los_next(elo, reps, order),
        replicates=len(reps),
        confidence=confidence,
    )


def rank_bounds(elo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each bot's best and worst rank in each row of ``elo`` (..., n): 1 + the number of
    others rated higher, and the number rated at least as high (itself included); bots
    within :data:`TIE_ELO` of each other tie."""
    above = elo[..., None, :] > elo[..., :, None] + TIE_ELO  # [.., i, j]: j above i
    level = np.abs(elo[..., None, :] - elo[..., :, None]) <= TIE_ELO
    best = 1 + above.sum(axis=-1)
    return best, best + level.sum(axis=-1) - 1


def los_next(elo: np.ndarray, replicate_elo: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Likelihood of superiority of ``order[k]`` over ``order[k + 1]``: Φ(Δ / sd(Δ*))."""
    diff = elo[order[:-1]] - elo[order[1:]]
    spread = (replicate_elo[:, order[:-1]] - replicate_elo[:, order[1:]]).std(axis=0, ddof=1)
    out = np.empty(len(diff))
    for k, (d, s) in enumerate(zip(diff, spread, strict=True)):
        if s > TIE_ELO:
            out[k] = 0.5 * math.erfc(-d / s / math.sqrt(2.0))  # Φ(d/s)
        else:  # no spread beyond the fits' rounding: certain, unless the two are tied
            out[k] = 1.0 if d > TIE_ELO else 0.5
    return out
