"""Means with confidence intervals, and how many games a question needs.

Nothing here imports scipy at import time (a match imports this module; scipy.stats
alone takes ~0.9 s to import on this project's VM).  Everything here works from **sufficient statistics** — a count, a sum and a sum of
squares — so that a match can keep them in O(1) per game and a tournament can add up
millions of deals without storing them one by one (:class:`Moments`).

The unit of a sample
--------------------

The observations are *units*: the games that share one deal (one game, or with
``--duplicate`` the deal played once per seat rotation).  A unit's value is the bot's mean
score per game within it.  Games of one duplicate deal are strongly correlated — that is
the point of duplicate — so they must not be counted as independent observations: the
unit is.

Formulas
--------

For units x₁…xₙ with mean x̄ and sample standard deviation
s = √(Σ(xᵢ − x̄)² / (n − 1)) = √((Σxᵢ² − n x̄²) / (n − 1)), the two-sided interval at
confidence 1 − α is the Student-t interval::

    x̄ ± t(1 − α/2; n − 1) · s / √n

The number of units a two-sided test at level α needs to detect a difference Δ with
power 1 − β, when one unit's standard deviation is σ (the normal approximation every
planner uses)::

    n = ((z(1 − α/2) + z(1 − β)) · σ / Δ)²

e.g. a win rate of 55 % against 50 % (σ = ½ per game, Δ = 0.05) at 95 % and 80 %:
n = (2.8016 · 0.5 / 0.05)² = 785 games; dice poker with σ ≈ 10.5 chips per deal and
Δ = 0.05 chips: 344,000 deals — the reason its seed plays millions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from statistics import NormalDist

import msgspec

from referee.core.results import Moments

#: The default confidence of every interval the referee reports.
CONFIDENCE = 0.95


def pooled(samples: Iterable[Moments]) -> Moments:
    """The units of several samples as one."""
    out = Moments()
    for sample in samples:
        out.add(sample)
    return out


class Interval(msgspec.Struct, kw_only=True):
    """A mean with its two-sided interval: ``mean`` in [``low``, ``high``] at
    ``confidence``, from ``n`` units whose standard deviation is ``sd``.  With fewer than
    two units there is no interval: ``low`` and ``high`` are ``None``."""

    mean: float
    low: float | None
    high: float | None
    sd: float
    n: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2


def z_value(confidence: float = CONFIDENCE) -> float:
    """z(1 − α/2) for a two-sided ``confidence`` = 1 − α (1.95996… for 95 %)."""
    _check_share(confidence, "confidence")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


#: From this many degrees of freedom on, :func:`t_value` uses the series below instead
#: of scipy: its relative error there is under 1e-10 for every confidence up to 99.9 %
#: (tests/test_intervals.py compares the two).
T_SERIES_FROM = 200


def t_value(confidence: float, dof: int) -> float:
    """t(1 − α/2; dof), the Student-t quantile of a two-sided interval.

    Every match's summary asks for it, and importing scipy.special costs a command
    ~0.25 s of CPU, about as much as playing 1,000 Yahtzee games between two instant
    bots: from :data:`T_SERIES_FROM` degrees of freedom on (a match of 201 games or
    more) it is the Cornish-Fisher series of the t quantile in powers of 1/dof
    (Abramowitz & Stegun 26.7.5, to the fourth power), below that scipy's ``stdtrit``.
    """
    _check_share(confidence, "confidence")
    p = 0.5 + confidence / 2
    if dof >= T_SERIES_FROM:
        z = NormalDist().inv_cdf(p)
        z2 = z * z
        g1 = (z2 + 1) * z / 4
        g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
        g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
        g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
        return z + (g1 + (g2 + (g3 + g4 / dof) / dof) / dof) / dof
    from scipy.special import stdtrit

    return float(stdtrit(dof, p))


def mean_interval(sample: Moments, confidence: float = CONFIDENCE) -> Interval:
    """The Student-t interval of the mean of ``sample``'s units (module docstring)."""
    mean, sd, n = sample.mean, sample.sd, sample.n
    if n < 2:
        return Interval(mean=mean, low=None, high=None, sd=sd, n=n, confidence=confidence)
    half = t_value(confidence, n - 1) * sd / math.sqrt(n)
    return Interval(mean=mean, low=mean - half, high=mean + half, sd=sd, n=n, confidence=confidence)


def rate_interval(sample: Moments, games_per_unit: int = 1, confidence: float = CONFIDENCE) -> Interval:
    """The interval of a score rate (values in [0, 1] per unit): the t-interval clipped to
    [0, 1] — except when every unit scored alike (a perfect record, say), where the
    t-interval has width 0 and the Wilson score interval of the ``n · games_per_unit``
    games is used instead::

        (p̂ + z²/2m ± z √(p̂(1 − p̂)/m + z²/4m²)) / (1 + z²/m),  m games
    """
    iv = mean_interval(sample, confidence)
    if iv.n == 0:
        return iv
    if iv.sd > 0 and iv.low is not None and iv.high is not None:
        return Interval(
            mean=iv.mean,
            low=max(0.0, iv.low),
            high=min(1.0, iv.high),
            sd=iv.sd,
            n=iv.n,
            confidence=confidence,
        )
    m = iv.n * games_per_unit
    z = z_value(confidence)
    p = min(1.0, max(0.0, iv.mean))
    centre = p + z * z / (2 * m)
    spread = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    scale = 1 + z * z / m
    return Interval(
        mean=iv.mean,
        # Exact at a perfect record: 1 (or 0) is an end, not 1 − 1e-17.
        low=0.0 if p == 0.0 else max(0.0, (centre - spread) / scale),
        high=1.0 if p == 1.0 else min(1.0, (centre + spread) / scale),
        sd=iv.sd,
        n=iv.n,
        confidence=confidence,
    )


def units_needed(sd: float, diff: float, confidence: float = CONFIDENCE, power: float = 0.8) -> int:
    """Units (games, or deals) needed to detect a mean difference ``diff`` when one unit
    has standard deviation ``sd``: ⌈((z(1 − α/2) + z(power)) · sd / diff)²⌉."""
    if diff <= 0:
        raise ValueError(f"the difference to detect must be positive, not {diff:g}")
    if sd < 0:
        raise ValueError(f"a standard deviation cannot be negative ({sd:g})")
    _check_share(power, "power")
    z = z_value(confidence) + NormalDist().inv_cdf(power)
    return max(1, math.ceil((z * sd / diff) ** 2))


def expected_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger: 1 / (1 + 10^(−elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score``: 400 · log10(s / (1 − s)),
    ±inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def superiority(interval: Interval, against: float = 0.0) -> float | None:
    """The likelihood of superiority, Φ((mean − against) / se): how sure the data make us
    that the true mean is above ``against`` (normal approximation).  ``se`` is read off
    the interval's side that faces ``against`` — (mean − low)/z above it, (high − mean)/z
    below — so that it agrees with the interval shown beside it, Wilson's asymmetric one
    included: ``against`` outside a 95 % interval ⇔ LOS above 97.5 % or below 2.5 % (a
    perfect record over few games is not a certainty)."""
    if interval.low is None or interval.high is None:
        return None
    side = interval.mean - interval.low if interval.mean >= against else interval.high - interval.mean
    se = side / z_value(interval.confidence)
    if se == 0.0:
        return 1.0 if interval.mean > against else 0.0 if interval.mean < against else 0.5
    return NormalDist().cdf((interval.mean - against) / se)


def _check_share(value: float, name: str) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be between 0 and 1, not {value:g}")
