"""Means with intervals, sample sizes and the planner's arithmetic (referee.stats.intervals,
referee.stats.planning), checked against published values and simulated samples whose
true mean is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.stats.intervals import (
    T_SERIES_FROM,
    Moments,
    elo_of_score,
    expected_score,
    mean_interval,
    pooled,
    rate_interval,
    superiority,
    t_value,
    units_needed,
    z_value,
)
from referee.stats.planning import estimate, variance_reduction


def _moments(values) -> Moments:
    m = Moments()
    for v in values:
        m.push(float(v))
    return m


def test_moments_are_the_sample_mean_and_standard_deviation():
    values = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0]
    m = _moments(values)
    assert m.mean == pytest.approx(np.mean(values))
    assert m.sd == pytest.approx(np.std(values, ddof=1))
    halves = pooled([_moments(values[:2]), _moments(values[2:])])
    assert (halves.n, halves.total, halves.total_sq) == (m.n, m.total, m.total_sq)
    assert Moments().sd == 0.0 and _moments([2.0]).sd == 0.0


def test_quantiles_are_the_textbook_ones():
    """z(0.975) = 1.959964 and t(0.975; 10) = 2.228139 (any statistics table)."""
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert t_value(0.95, 10) == pytest.approx(2.228139, abs=1e-6)


def test_the_t_series_agrees_with_scipy_where_it_is_used():
    """From T_SERIES_FROM degrees of freedom on, t_value uses a series instead of scipy's
    stdtrit: within 1e-10 (relative) of it for every confidence a summary can ask for,
    and t(0.975; 1000) = 1.962339 (tables)."""
    from scipy.special import stdtrit

    assert t_value(0.95, 1000) == pytest.approx(1.962339, abs=1e-6)
    for confidence in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999):
        for dof in (T_SERIES_FROM, 201, 250, 499, 1000, 9_999, 10**5, 10**7):
            exact = float(stdtrit(dof, 0.5 + confidence / 2))
            assert t_value(confidence, dof) == pytest.approx(exact, rel=1e-10), (confidence, dof)
    # Below it, scipy itself.
    assert t_value(0.95, T_SERIES_FROM - 1) == float(stdtrit(T_SERIES_FROM - 1, 0.975))


def test_games_needed_reproduce_the_published_figures():
    """reference.md §6, "Games needed" (95 % two-sided, 80 % power): a win rate of 55 %
    against 50 % needs 785 games and 51 % needs 19,623 (σ = ½ per game); Elo 20 needs
    2,374 and Elo 10 9,480 (within 0.3 %: the published figures round the expected score
    differently); dice poker at σ ≈ 10.5 chips per deal needs 86,011 deals for Δ = 0.1
    (the published σ is 10.5 rounded: within 1 %)."""
    assert units_needed(0.5, 0.05) == 785
    assert units_needed(0.5, 0.01) == 19_623
    assert units_needed(0.5, expected_score(20) - 0.5) == pytest.approx(2_374, rel=3e-3)
    assert units_needed(0.5, expected_score(10) - 0.5) == pytest.approx(9_480, rel=3e-3)
    assert units_needed(10.5, 0.1) == pytest.approx(86_011, rel=1e-2)
    with pytest.raises(ValueError):
        units_needed(1.0, 0.0)


def test_elo_and_expected_score_invert_each_other():
    for elo in (-400.0, -35.5, 0.0, 10.0, 191.3):
        assert elo_of_score(expected_score(elo)) == pytest.approx(elo)
    assert elo_of_score(1.0) == math.inf and elo_of_score(0.0) == -math.inf


def test_t_intervals_cover_the_true_mean_95_percent_of_the_time():
    """2000 samples of 30 skewed units (exponential, mean 1): the t-interval's coverage
    must be 95 % within 1.5 points (3 binomial standard errors are 1.5 points; the
    skew costs a little: the exact figure for n = 30 is ~93.9–94.5 %)."""
    rng = np.random.default_rng(2026)
    hits = 0
    for sample in rng.exponential(1.0, size=(2000, 30)):
        iv = mean_interval(_moments(sample))
        hits += iv.low <= 1.0 <= iv.high
    assert abs(hits / 2000 - 0.95) < 0.015 + 0.01  # the skew's own shortfall allowed for


def test_duplicate_style_paired_units_cover_too():
    """Units that are the mean of two correlated games (a duplicate deal): coverage of
    the mean is still 95 % (± 1.5 points) when the unit, not the game, is the sample."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(2000):
        luck = rng.normal(0, 3, 40)
        games = np.stack([0.2 + luck + rng.normal(0, 1, 40), 0.2 - luck + rng.normal(0, 1, 40)])
        iv = mean_interval(_moments(games.mean(axis=0)))
        hits += iv.low <= 0.2 <= iv.high
    assert abs(hits / 2000 - 0.95) < 0.015


def test_a_perfect_record_gets_the_wilson_interval():
    """40 wins in 40 games: the t-interval would have width 0; Wilson's lower end is
    m / (m + z²) = 40 / 43.84 = 0.912 (Wilson 1927, for p̂ = 1)."""
    iv = rate_interval(_moments([1.0] * 40))
    assert iv.high == 1.0
    assert iv.low == pytest.approx(40 / (40 + z_value() ** 2), abs=1e-9)
    mixed = rate_interval(_moments([1.0, 0.0, 0.5, 1.0]))
    assert mixed.low >= 0.0 and mixed.high <= 1.0


def test_superiority_is_half_for_no_difference_and_near_one_for_a_clear_one():
    assert superiority(mean_interval(_moments([1.0, -1.0] * 50))) == pytest.approx(0.5)
    assert superiority(mean_interval(_moments([1.0, 1.2, 0.9, 1.1] * 10))) > 0.999


def test_the_planner_compares_modes_on_the_variance_per_game():
    """Independent deals with σ = 4 per game against duplicate deals of two games with σ = 2
    per deal: variance per game 16 against 2² · 2 = 8 — half the games for one question."""
    rng = np.random.default_rng(3)
    single = estimate("single", _moments(rng.normal(0.1, 4.0, 20_000)), 1, 0.05)
    duplicate = estimate("duplicate", _moments(rng.normal(0.1, 2.0, 20_000)), 2, 0.05)
    assert single.variance_per_game == pytest.approx(16, rel=0.03)
    assert duplicate.variance_per_game == pytest.approx(8, rel=0.03)
    assert variance_reduction(single, duplicate) == pytest.approx(2, rel=0.05)
    assert duplicate.games_needed == pytest.approx(single.games_needed / 2, rel=0.05)
    assert single.games_needed == units_needed(single.observed.sd, 0.05)


def test_superiority_agrees_with_the_interval_beside_it():
    """Two wins in two games: Wilson's interval [34 %, 100 %] holds 50 %, so the LOS over
    50 % must stay below 97.5 % (it read 100 % before review, from a zero sd)."""
    iv = rate_interval(_moments([1.0, 1.0]))
    assert iv.low < 0.5
    los = superiority(iv, 0.5)
    assert los is not None and 0.5 < los < 0.975
