"""Two-seat ratings: a Bradley–Terry fit on the Elo scale, with bootstrap error bars.

The model
---------

Bot i has strength γᵢ = e^θᵢ and scores against j, per game, on average::

    E[score of i against j] = γᵢ / (γᵢ + γⱼ) = σ(θᵢ − θⱼ),   σ(x) = 1 / (1 + e^−x)

which on the Elo scale (:mod:`~referee.stats.ratings`) is the familiar
1 / (1 + 10^(−ΔElo/400)).  A game scores 1 for a win, ½ for a draw, 0 for a loss.  With
sᵢⱼ the points i scored against j and nᵢⱼ the games they played, the log-likelihood::

    ℓ(θ) = Σᵢ Σⱼ sᵢⱼ · log σ(θᵢ − θⱼ)

is maximised where every bot's observed score equals its expected score (the *score
equations*)::

    Σⱼ sᵢⱼ = Σⱼ nᵢⱼ · σ(θᵢ − θⱼ)          for every i

A draw counts as half a win and half a loss: that keeps these equations — the mean
score is modelled as logistic whatever the draw rate — and the bootstrap, not the
binomial formula, measures the spread (draws make it narrower).

The prior
---------

With ``prior`` = p > 0, each bot also plays p virtual wins and p virtual losses against a
virtual bot fixed at θ = 0.  Without it a bot that won (or lost) every game has no finite
estimate; with it, it gets a finite one.  Its pull toward 0 weighs as 2p games among the
bot's own, so it fades as 1/games: a 60 % score over 100 games (70.4 Elo) is pulled
0.72 Elo toward 0 by p = 1, over 10,000 games 0.007 Elo.  The virtual bot is not rated and ratings are reported centred.  With p = 0 the data must
be strongly connected (:func:`~referee.stats.ratings.strongly_connected`), in every
bootstrap replicate too: :func:`rate_pairs` checks the data, and :func:`fit` raises if a
replicate has no finite estimate.

The algorithm
-------------

Newton's method on θ, batched over leading axes (all bootstrap replicates in one call),
with step halving until ℓ does not decrease (ℓ is concave, so this converges from any
start).  With pᵢⱼ = σ(θᵢ − θⱼ), and σ(θᵢ) for the virtual games against θ = 0::

    gᵢ   = Σⱼ sᵢⱼ + p − Σⱼ nᵢⱼ pᵢⱼ − 2p · σ(θᵢ)                      (gradient)
    Hᵢⱼ  = nᵢⱼ pᵢⱼ (1 − pᵢⱼ)                 for i ≠ j              (minus the Hessian)
    Hᵢᵢ  = −Σⱼ≠ᵢ Hᵢⱼ + 2p · σ(θᵢ)(1 − σ(θᵢ))
    θ   ← θ + t · H⁻¹ g,   t = 1, ½, ¼, … until ℓ does not decrease

With p = 0, H is singular along θ + c (only differences matter): 1/n is added to every
entry, which fixes the step's mean at 0 without changing it otherwise (g sums to 0).
Iteration stops when no replicate's θ moves by more than ``tol`` (1e-9 nats, 2e-7 Elo);
Newton converges quadratically: 5 steps from 0, 4 for replicates started at the point
estimate.  (The MM algorithm of Hunter, "MM algorithms for generalized Bradley–Terry
models", Ann. Statist. 32 (2004), would do too — :mod:`~referee.stats.plackett_luce`
uses it — but converges linearly, slowly when the design is sparse, as in a Swiss
tournament.)

Cost, measured on this project's 2-core VM: 30 bots, all 435 pairs with 200 games each,
1000 replicates (one batch of (1000, 30, 30) arrays) — :func:`rate_pairs`
takes 0.3–0.5 s, 120 MB peak for the whole process.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from referee.stats.ratings import (
    RatingFit,
    centre,
    check_options,
    resample,
    strongly_connected,
    summarise,
)

#: Floats in one batch of replicate matrices (B·n·n): 32 MB each, a few alive at a time.
CHUNK_FLOATS = 1 << 22


@dataclass(frozen=True)
class PairStratum:
    """One two-seat match's units: bot ``a`` against bot ``b``.

    ``points`` are the distinct values of A's points in a unit (win 1, draw ½, loss 0 per
    game, summed over the unit's ``games_per_unit`` games: 0, ½, …, games_per_unit) and
    ``counts`` how many units had each.  B's points in a unit are games_per_unit − A's."""

    a: int  # bot index
    b: int
    games_per_unit: int  # 1, or 2 with duplicate deals
    points: np.ndarray  # distinct values of A's points in a unit
    counts: np.ndarray  # how many units had each value (ints)


def fit(
    points: np.ndarray,
    games: np.ndarray,
    prior: float = 1.0,
    *,
    tol: float = 1e-9,
    max_iter: int = 100,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Maximum-likelihood log-strengths θ (natural log), centred, shape (..., n).

    ``points[..., i, j]``: points bot i scored against j; ``games[..., i, j]``: games i and j
    played (symmetric, so points + pointsᵀ = games).  Leading axes are a batch (bootstrap
    replicates) and broadcast between the two.  ``prior``: virtual win(s) and loss(es) per
    bot against a bot of θ = 0 (module docstring).  ``start``: where Newton starts (e.g. the
    point estimate, for replicates); zeros by default.  Raises ``RuntimeError`` if some
    batch member has not converged within ``max_iter`` steps — with ``prior`` = 0, a bot
    that won or lost everything (no finite estimate)."""
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    _check_matrices(points, games)
    n = points.shape[-1]
    batch = np.broadcast_shapes(points.shape, games.shape)[:-2]
    theta = np.zeros((*batch, n)) if start is None else np.broadcast_to(start, (*batch, n)).astype(float)
    score = points.sum(axis=-1) + prior  # observed score, virtual games included
    value = _loglik(theta, points, prior)
    for _ in range(max_iter):
        step = _newton_step(theta, score, games, prior)
        theta, value, moved = _halving(theta, step, value, points, prior)
        if moved <= tol:
            return centre(theta)
    raise RuntimeError(
        f"Bradley–Terry fit did not converge in {max_iter} Newton steps: with prior = {prior}, "
        "some bot has no finite rating (it won or lost every game); use prior > 0"
    )


def _check_matrices(points: np.ndarray, games: np.ndarray) -> None:
    if points.ndim < 2 or points.shape[-1] != points.shape[-2] or games.shape[-2:] != points.shape[-2:]:
        raise ValueError(f"points {points.shape} and games {games.shape} must be (..., n, n)")
    if (points < 0).any():
        raise ValueError("points must be ≥ 0")
    if not np.allclose(points + np.swapaxes(points, -1, -2), games, rtol=1e-9, atol=1e-9):
        raise ValueError("points[i, j] + points[j, i] must equal games[i, j]")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # = 1 / (1 + e^−x), without overflow


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _loglik(theta: np.ndarray, points: np.ndarray, prior: float) -> np.ndarray:
    """ℓ(θ) per batch member, virtual games included."""
    diff = theta[..., :, None] - theta[..., None, :]
    value = (points * _log_sigmoid(diff)).sum(axis=(-1, -2))
    if prior:
        value = value + prior * (_log_sigmoid(theta) + _log_sigmoid(-theta)).sum(axis=-1)
    return value


def _newton_step(theta: np.ndarray, score: np.ndarray, games: np.ndarray, prior: float) -> np.ndarray:
    """H⁻¹ g (module docstring)."""
    n = theta.shape[-1]
    p = _sigmoid(theta[..., :, None] - theta[..., None, :])
    s = _sigmoid(theta)
    grad = score - (games * p).sum(axis=-1) - 2 * prior * s
    info = games * p * (1.0 - p)
    hess = -info
    diagonal = np.einsum("...ii->...i", hess)  # a writable view of the diagonal
    diagonal += info.sum(axis=-1) + 2 * prior * s * (1.0 - s)
    if prior == 0:
        hess += 1.0 / n  # fixes θ's free shift (module docstring)
    try:
        return np.linalg.solve(hess, grad[..., None])[..., 0]
    except np.linalg.LinAlgError:  # only without a prior: a bot or group apart, or unbeaten
        raise RuntimeError(
            "Bradley–Terry fit is singular: with prior = 0 some bot has no finite rating "
            "(unconnected, or won or lost every game); use prior > 0"
        ) from None


def _halving(
    theta: np.ndarray, step: np.ndarray, value: np.ndarray, points: np.ndarray, prior: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """θ + t·step with t = 1, ½, ¼, … per batch member until ℓ does not decrease (up to
    rounding); returns the new θ, its ℓ and the largest move."""
    t = np.ones(value.shape)
    for _ in range(50):
        trial = theta + t[..., None] * step
        trial_value = _loglik(trial, points, prior)
        ok = trial_value >= value - 1e-12 * (1.0 + np.abs(value))
        if ok.all():
            break
        t = np.where(ok, t, 0.5 * t)
    else:  # no ascent left at all: those members stay put
        t = np.where(ok, t, 0.0)
        trial = theta + t[..., None] * step
        trial_value = _loglik(trial, points, prior)
    moved = float(np.abs(trial - theta).max()) if trial.size else 0.0
    return trial, trial_value, moved


def totals(bots: int, strata: Sequence[PairStratum]) -> tuple[np.ndarray, np.ndarray]:
    """Points and games matrices (n, n) of all the strata's units."""
    points = np.zeros((bots, bots))
    games = np.zeros((bots, bots))
    for s in strata:
        counts = np.asarray(s.counts, dtype=float)
        units = counts.sum()
        scored = float(counts @ np.asarray(s.points, dtype=float))
        points[s.a, s.b] += scored
        points[s.b, s.a] += units * s.games_per_unit - scored
        games[s.a, s.b] += units * s.games_per_unit
        games[s.b, s.a] += units * s.games_per_unit
    return points, games


def _check_strata(bots: int, strata: Sequence[PairStratum]) -> None:
    for s in strata:
        values = np.asarray(s.points, dtype=float)
        counts = np.asarray(s.counts)
        if not (0 <= s.a < bots and 0 <= s.b < bots and s.a != s.b):
            raise ValueError(f"stratum {s.a} vs {s.b}: bots must be distinct indices below {bots}")
        if s.games_per_unit < 1 or values.shape != counts.shape or values.ndim != 1:
            raise ValueError(f"stratum {s.a} vs {s.b}: one count per value, games_per_unit ≥ 1")
        if ((values < 0) | (values > s.games_per_unit)).any() or (counts < 0).any():
            raise ValueError(f"stratum {s.a} vs {s.b}: points in [0, games_per_unit], counts ≥ 0")
        if not np.issubdtype(counts.dtype, np.integer):
            raise ValueError(f"stratum {s.a} vs {s.b}: counts must be integers")


def _replicate_points(
    bots: int, strata: Sequence[PairStratum], replicates: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Points matrices of bootstrap replicates, (b, n, n) per batch of b ≤ CHUNK_FLOATS/n².

    Only points change: each stratum keeps its number of units, so ``games`` is the same
    in every replicate."""
    chunk = max(1, CHUNK_FLOATS // (bots * bots))
    for first in range(0, replicates, chunk):
        size = min(chunk, replicates - first)
        points = np.zeros((size, bots, bots))
        for s in strata:
            counts = resample(s.counts, size, rng)  # (size, values)
            scored = counts @ np.asarray(s.points, dtype=float)
            points[:, s.a, s.b] += scored
            points[:, s.b, s.a] += counts.sum(axis=1) * s.games_per_unit - scored
        yield points


def _parametric_points(
    bots: int, strata: Sequence[PairStratum], theta: np.ndarray, replicates: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Points matrices of *parametric* bootstrap replicates: every game drawn afresh from
    the fitted model — A wins with probability E − δ/2, draws with δ, loses with
    1 − E − δ/2, E = σ(θ_A − θ_B) — keeping each pair's number of games.  δ is the draw
    share of the one-game units (deals of one game), capped at 2·min(E, 1 − E); 0 when
    every unit is a duplicate deal (whose points do not say how many games were drawn:
    0 gives the widest spread, the conservative choice)."""
    single = [s for s in strata if s.games_per_unit == 1]
    games_single = sum(float(np.asarray(s.counts).sum()) for s in single)
    draws = sum(float(np.asarray(s.counts)[np.asarray(s.points) == 0.5].sum()) for s in single)
    share = draws / games_single if games_single else 0.0
    chunk = max(1, CHUNK_FLOATS // (bots * bots))
    for first in range(0, replicates, chunk):
        size = min(chunk, replicates - first)
        points = np.zeros((size, bots, bots))
        for s in strata:
            games = int(np.asarray(s.counts).sum()) * s.games_per_unit
            expected = float(1.0 / (1.0 + np.exp(theta[s.b] - theta[s.a])))
            delta = min(share, 2 * min(expected, 1 - expected))
            drawn = rng.multinomial(
                games, [max(0.0, expected - delta / 2), delta, max(0.0, 1 - expected - delta / 2)], size=size
            )
            scored = drawn[:, 0] + drawn[:, 1] / 2
            points[:, s.a, s.b] += scored
            points[:, s.b, s.a] += games - scored
        yield points


def rate_pairs(
    bots: int,
    strata: Sequence[PairStratum],
    *,
    replicates: int = 1000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    prior: float = 1.0,
    parametric: bool = False,
) -> RatingFit:
    """Bradley–Terry ratings of ``bots`` bots with bootstrap error bars.

    The point estimate is fitted on all units; each replicate resamples every stratum's
    units with replacement (one multinomial draw per stratum,
    :func:`~referee.stats.ratings.resample`) and all replicates are refitted in batched
    calls starting from the point estimate.  Same ``rng`` state, same result.

    ``parametric``: draw each replicate's games from the fitted model instead
    (:func:`_parametric_points`).  Resampling within a stratum of k units understates its
    variance by (k − 1)/k — a pair that met once adds no spread at all — so formats that
    pair bots for few deals (Swiss, double elimination with short matches) need this."""
    check_options(replicates, confidence, prior)
    _check_strata(bots, strata)
    points, games = totals(bots, strata)
    if prior == 0 and not strongly_connected(points):
        raise ValueError("with prior = 0 every bot must have scored and conceded within a connected field")
    point = fit(points, games, prior)
    batches = (
        _parametric_points(bots, strata, point, replicates, rng)
        if parametric
        else _replicate_points(bots, strata, replicates, rng)
    )
    reps = [fit(p, games, prior, start=point) for p in batches]
    return summarise(point, np.concatenate(reps), confidence)
