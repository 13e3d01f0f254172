"""Chip ratings (referee.stats.chips): games ranked by score, rated in score per game, on
simulated fields whose additive strengths are known."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from referee.stats.chips import ChipObservation, rate_chips


def _round_robin(strength: np.ndarray, deals: int, sd: float, rng: np.random.Generator):
    """Every pair plays ``deals`` deals; a deal's edge of a over b is c_a − c_b plus noise."""
    out = []
    for a, b in combinations(range(len(strength)), 2):
        edges = strength[a] - strength[b] + rng.normal(0.0, sd, deals)
        out.append(ChipObservation(a, (a, b), float(edges.mean()), float(edges.std(ddof=1)), deals))
    return out


@pytest.mark.slow
def test_intervals_cover_the_true_strengths():
    """200 round robins of 6 bots (strengths −0.5…0.5 chips a deal, σ = 4 per deal, 400
    deals per pair): the 95 % intervals hold the true centred strength 95 % ± 2.5 points
    of the time (1200 intervals: a binomial sd of 0.6 point)."""
    rng = np.random.default_rng(5)
    true = np.linspace(-0.5, 0.5, 6)
    hits = []
    for _ in range(200):
        fit = rate_chips(6, _round_robin(true, 400, 4.0, rng), replicates=400, rng=rng)
        hits.append((fit.low <= true) & (true <= fit.high))
    assert 0.925 <= np.mean(hits) <= 0.975, np.mean(hits)


def test_a_balanced_round_robin_is_ordered_as_its_total_scores():
    """Not additive (always-call beats always-fold by a precise 1.5 chips a deal yet loses
    to everyone else): weighted by deals, the ratings order bots as their totals do —
    the order of the standings' points."""
    means = {(0, 1): 0.22, (0, 2): 0.73, (0, 3): 0.60, (1, 2): 1.94, (1, 3): 0.72, (2, 3): 1.50}
    sds = {(2, 3): 0.5}
    obs = [ChipObservation(a, (a, b), m, sds.get((a, b), 6.0), 2000) for (a, b), m in means.items()]
    fit = rate_chips(4, obs, replicates=200, rng=np.random.default_rng(1))
    totals = np.zeros(4)
    for (a, b), m in means.items():
        totals[a] += m
        totals[b] -= m
    assert list(fit.order) == list(np.argsort(-totals))
    # Its scale: score per game against an average opponent; in a complete round robin
    # that is (n − 1)/n of the bot's mean score.
    assert np.allclose(fit.elo, totals / 3 * 3 / 4, atol=1e-9)


def test_tables_of_three():
    """Multi-seat lineups: each bot's mean score at the table is its strength less its
    opponents' mean; the fit recovers exact strengths from noiseless data."""
    true = np.array([0.6, 0.1, -0.2, -0.5])
    obs = []
    for lineup in combinations(range(4), 3):
        for i in lineup:
            others = [true[j] for j in lineup if j != i]
            obs.append(ChipObservation(i, lineup, float(true[i] - np.mean(others)), 1.0, 100))
    fit = rate_chips(4, obs, replicates=50, rng=np.random.default_rng(2))
    assert np.allclose(fit.elo, true - true.mean(), atol=1e-9)
