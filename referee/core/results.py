"""Result structs the statistics produce and the records carry.

:class:`Moments` (a sample's count, sum and sum of squares: :mod:`referee.stats.intervals`
builds intervals from them) and :class:`SprtResult` (where a sequential test stands:
:mod:`referee.stats.sprt` computes it) are part of a match's record
(:mod:`referee.core.records`, docs/records.md), so they live here, below both the
records and the statistics: the records never import the statistics.
"""

from __future__ import annotations

import math

import msgspec


class Moments(msgspec.Struct, array_like=True):
    """Count, sum and sum of squares of some units' values: enough for a mean, its
    standard deviation and its interval, and additive (:meth:`add`, :func:`pooled`).
    Encoded as a three-element array: ``[n, sum, sum of squares]``."""

    n: int = 0
    total: float = 0.0
    total_sq: float = 0.0

    def push(self, value: float) -> None:
        """Add one unit's value."""
        self.n += 1
        self.total += value
        self.total_sq += value * value

    def add(self, other: Moments) -> None:
        """Add another sample's units."""
        self.n += other.n
        self.total += other.total
        self.total_sq += other.total_sq

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def sd(self) -> float:
        """The sample standard deviation (n − 1 in the denominator; 0 below two units)."""
        if self.n < 2:
            return 0.0
        # Rounding can make a zero variance slightly negative.
        return math.sqrt(max(0.0, (self.total_sq - self.total * self.total / self.n) / (self.n - 1)))


class SprtResult(msgspec.Struct, kw_only=True):
    """Where a sequential test stands: its statistics, LLR and bounds, its decision
    ("H0", "H1" or None while undecided), and its estimate with a 95 % interval — the
    Elo in the test's model (as fastchess reports them), or for a score test
    (``statistics`` "normal") the tested bot's mean edge per game.  ``games`` counts the
    games in the statistics (an unfinished pair's first game is not in them).  An Elo
    test leaves the mean fields None, a score test the Elo fields; its ``counts`` are
    empty and its ``model`` is "normal"."""

    statistics: str
    counts: list[int]
    llr: float
    lower: float
    upper: float
    decision: str | None
    elo0: float | None
    elo1: float | None
    alpha: float
    beta: float
    model: str
    games: int
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    mean0: float | None = None
    mean1: float | None = None
    mean: float | None = None
    mean_low: float | None = None
    mean_high: float | None = None

    def describe(self) -> str:
        """The hypotheses and error rates, e.g. "pentanomial, normalized elo0=0 elo1=5
        alpha=0.05 beta=0.05" or "normal, mean0=0 mean1=0.1 per game alpha=…"."""
        if self.statistics == "normal":
            hypotheses = f"mean0={self.mean0:g} mean1={self.mean1:g} per game"
        else:
            hypotheses = f"{self.model} elo0={self.elo0:g} elo1={self.elo1:g}"
        return f"{self.statistics}, {hypotheses} alpha={self.alpha:g} beta={self.beta:g}"

    def estimate(self) -> str:
        """The test's estimate with its 95 % interval, e.g. "normalized Elo +12.0 [+3.1,
        +20.9]" or "edge +0.191 [+0.048, +0.334] per game"."""
        if self.statistics == "normal":
            return f"edge {self.mean:+.3f} [{self.mean_low:+.3f}, {self.mean_high:+.3f}] per game"
        return f"{self.model} Elo {signed_elo(self.elo)} [{signed_elo(self.elo_low)}, {signed_elo(self.elo_high)}]"


def signed_elo(value: float | None) -> str:
    """An Elo figure as reports print it: "+12.3", "-inf", "+inf"; "?" when unknown."""
    if value is None:
        return "?"
    return "+inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:+.1f}"
