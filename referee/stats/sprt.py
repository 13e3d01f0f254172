"""The sequential probability ratio test: stop a match as soon as the games say whether
bot A is stronger than bot B — in Elo, on games won, for games ranked by wins; in mean
score, for games ranked by score (dice poker, Hold'em: "The score test" below).

``referee match a b --sprt "elo0=0 elo1=5 alpha=0.05 beta=0.05"`` tests H0: A is
``elo0`` Elo stronger than B, against H1: A is ``elo1`` stronger (elo0 < elo1), and stops
when one is accepted.  fastchess (``sprt.cpp``) is the reference; fishtest's
``stats/LLRcalc.py`` implements the same maths.  Both follow Michel Van den Bergh,
"Comments on Normalized Elo" (https://www.cantate.be/Fishtest/normalized_elo_practical.pdf)
and "Support MLE multinomial" (https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf).

Units and their scores
----------------------

* **trinomial** (games are independent): a unit is one game, scored aᵢ ∈ {0, ½, 1}
  (loss, draw, win of A); counts ``(losses, draws, wins)``.
* **pentanomial** (each deal is played twice with the seats swapped): a unit is the
  pair, scored by its two games' points / 2, aᵢ ∈ {0, ¼, ½, ¾, 1}; counts of pairs in
  that order (LL; LD; WL or DD; WD; WW).  The two games of a pair are correlated —
  that is what pairing is for — so the pair, not the game, is the independent unit.

For unit frequencies p̂ᵢ = nᵢ/N: the score s = Σ p̂ᵢ aᵢ and the variance per unit
σ² = Σ p̂ᵢ (aᵢ − s)².

Hypotheses: the two Elo models
------------------------------

* ``logistic``: the hypothesis fixes the expected score,
  s_h = 1 / (1 + 10^(−elo_h/400)).
* ``normalized`` (fastchess's default): the hypothesis fixes the t-value
  t = (s − ½)/σ, which makes the Elo independent of the draw rate:
  nElo = t · 800/ln 10 for games, and for pairs nElo = (s − ½)/√(2σ²) · 800/ln 10,
  so t_h = elo_h/(800/ln 10), times √2 for pairs.

Bounds and the log-likelihood ratio
-----------------------------------

Wald's bounds: lower = ln(β/(1 − α)), upper = ln((1 − β)/α) (±2.944 for α = β = 0.05).
H0 is accepted when LLR ≤ lower, H1 when LLR ≥ upper.  The LLR is the generalised one
(GSPRT): each hypothesis is represented by the distribution of unit outcomes that is
most likely given the data among those the hypothesis allows (the constrained
maximum-likelihood estimate, MLE), and

    LLR = Σ nᵢ ln(p¹ᵢ / p⁰ᵢ) = N Σ p̂ᵢ ln(p¹ᵢ / p⁰ᵢ).

The constrained MLE maximises Σ p̂ᵢ ln pᵢ subject to Σ pᵢ = 1 and the hypothesis.  The
Lagrange conditions give it the form

    pᵢ = p̂ᵢ / (1 + θ φᵢ),   θ the root of  f(θ) = Σ p̂ᵢ φᵢ / (1 + θ φᵢ) = 0

on the interval where every 1 + θ φᵢ > 0 (f falls monotonically from +∞ to −∞ there:
one root; at the root Σ pᵢ = 1 and Σ pᵢ φᵢ = 0, the constraint):

* logistic: φᵢ = aᵢ − s_h (the constraint Σ pᵢ aᵢ = s_h; Prop. 1.1 of the second paper);
* normalized: φᵢ = aᵢ − ½ − (t/2)(σ + (aᵢ − μ)²/σ) with μ, σ the mean and deviation
  of p itself (§4.1 of the first; at the root μ − ½ = tσ).  As in fastchess and
  fishtest, a fixed point: start from the uniform distribution, compute φ from the
  current p, solve for θ, update p, until p stops changing.

θ is found by Newton's method on f(θ)·(1 + θ min φ)(1 + θ max φ) — the same root
without the two poles that slow plain Newton when an outcome the data never saw must
become likely — kept inside a shrinking bracket, warm-started from the previous
fixed-point step.  We iterate until a further step would move the LLR by less than
1e-11 per unit (fastchess stops at max|Δpᵢ| < 1e-4 with θ to 1e-7, or to 1e-3 in the
logistic model): published LLRs agree to their printed precision; only degenerate
counts differ visibly (16,700 draws and nothing else, elo 0..5 normalized: exactly
−3.4505, fastchess's iteration −3.48).  fastchess's C++ ``SPRTResult`` names are
swapped (``SPRT_H0`` is returned when LLR ≥ upper, printed as "H1 was accepted"); we
use the usual names, as its Rust port and fishtest do: H1 when LLR ≥ upper.

Zero counts
-----------

A count of zero is replaced by 1e-3 before anything is computed, and N is the sum of
the regularised counts — exactly fastchess's ``regularize`` and fishtest's
``regularize``/``results_to_pdf``.  Without it the MLE would pin an unseen outcome at
probability 0 and the LLR of a one-sided start (a few wins, nothing else) would be
undefined.  No units at all give an LLR of 0.  The pentanomial cells are regularised
after WL and DD are merged into the ½ cell, as in both references.

Validity range: the normalized fixed point is reliable for |elo| ≤ 200 (t ≤ 0.82 for
pairs; from about 230 normalized Elo on pairs the first iterate already has no root),
so :class:`SprtSpec` accepts elo0, elo1 within ±200 there and ±1000 in the logistic
model (a test beyond that range is no sequential test of close strengths anyway).

Elo estimates
-------------

:func:`elo_interval` gives the estimate in the test's model with the normal interval
s ± z·σ/√N mapped through the model, as fastchess's ``elo_wdl.cpp`` and
``elo_pentanomial.cpp`` do (normalized: linear in s, with σ held fixed; logistic:
Elo(s) = −400 log10(1/s − 1)).  It uses the regularised counts, so it is finite for any
counts; an interval endpoint beyond a score of 0 or 1 is clipped to [2⁻⁵³, 1 − 2⁻⁵³]
(±6380 logistic Elo, read "unbounded").

The score test
--------------

Dice poker and Hold'em rank bots by chips, not by deals won, and a bot can win fewer
deals than its opponent and more chips (it folds small pots and wins big ones); an Elo
test on deals won then contradicts the results table.  For a game ranked by score
(``Game.standing``) ``--sprt "mean0=0 mean1=0.1"`` tests H0: A's *edge* is ``mean0``
per game against H1: it is ``mean1`` (mean0 < mean1), in the game's score units.  The
edge of a game is half A's score minus B's — A's own chips in a zero-sum game, the
"mean score per game" of the table and the tournament crosstable's edge.  Units are
independent: a game, or with ``--duplicate`` a deal's two games (seats swapped),
valued at their mean edge: the paired differences, whose variance pairing reduces.

The unit values xᵢ are modelled as normal with an unknown variance, and the LLR is the
generalised one (as for the Elo test): each hypothesis takes its maximum-likelihood
variance σ̂ₕ² = v + (x̄ − μₕ)², with x̄ the mean and v = Σ(xᵢ − x̄)²/N, so

    LLR = N/2 · ln(σ̂₀² / σ̂₁²) = N/2 · ln((v + (x̄ − μ₀)²) / (v + (x̄ − μ₁)²)),

to first order N (μ₁ − μ₀)(x̄ − (μ₀ + μ₁)/2) / v, Wald's LLR for a normal mean with the
variance plugged in; Wald's bounds as above.  The normal model needs no more than the
mean and variance of the units: for many units (what close hypotheses need: the LLR
drifts by about ±(μ₁ − μ₀)²/(2σ²) a unit) the central limit theorem makes it right
whatever the chips' distribution.  From a handful of units the variance can be far
too small (two deals of equal chips: none at all), and early decisions on it wrong —
so the test decides from its 30th unit on (:data:`SCORE_MIN_UNITS`), which costs games
only when the hypotheses are so far apart that it would have decided in fewer.
Simulated error rates (``_simulate_score`` of tests/test_sprt.py: a dice-poker-like
distribution of chips, σ ≈ 6.8 per game, mean0 = 0, 4000 runs at each hypothesis; α̂
the runs accepting H1 at mean0, β̂ those accepting H0 at mean1):

* mean1 = 0.5 (~1000 games a run): α̂, β̂ = 0.048, 0.054 on games; 0.049, 0.054 on pairs;
* mean1 = 2 (~60 units a run): 0.036, 0.043 on games; 0.030, 0.031 on pairs;

within Wald's bound α/(1 − β) = 0.0526 up to the simulations' standard error (0.0036).
Without the 30-unit minimum (1000 runs): 0.21, 0.10 on pairs at mean1 = 0.5; 0.22,
0.04 on games and 0.09, 0.06 on pairs at mean1 = 2.
The record reports x̄ with its 95 % interval
x̄ ± z·s/√N (s the sample deviation).

Cost
----

Measured on this project's VM (2 cores).  One LLR evaluation, one count vector, pure
Python (no numpy): logistic 10–20 µs; normalized 35–65 µs on typical counts (2–4
fixed-point steps per hypothesis, of 1–6 Newton steps each), ~95 µs on degenerate ones
(16,700 draws).  :class:`SprtTally` is O(1) per game: 0.1 µs for a pair's first game,
0.25 µs for a unit whose LLR need not be evaluated, and it evaluates only units that
could reach a bound (its docstring): about a third to 40 % of them while the test is
undecided, for an average of ~17 µs a game (trinomial) or ~11 µs a game (pairs) in
the normalized model, ~4 µs in the logistic one.  Batched (``(..., 3)``/``(..., 5)``
arrays, numpy, a few thousand vectors at once): 3.5–5 µs per vector normalized,
1–2 µs logistic.  numpy is imported by the batched path only: a match imports this
module without it.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from referee.core.results import SprtResult
from referee.stats.intervals import expected_score, z_value

if TYPE_CHECKING:
    import numpy as np

    from referee.core.records import GameRecord

#: Normalized Elo per unit of t-value: 800 / ln 10 = 347.4355…
NELO_PER_T = 800.0 / math.log(10.0)
#: The pseudo-count that replaces a zero count (fastchess and fishtest use the same).
REGULARIZATION = 1e-3
MODELS = ("normalized", "logistic")
#: The largest |elo0|, |elo1| accepted per model (module docstring, "Validity range").
ELO_LIMIT = {"normalized": 200.0, "logistic": 1000.0}

_GAME_SCORES = (0.0, 0.5, 1.0)
_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Newton on θ stops when the step moves the LLR per unit by at most this much.
_THETA_TOL = 1e-14
#: The fixed point stops when p moves the LLR per unit by at most this much.
_FIXED_TOL = 1e-11
_MAX_NEWTON = 200
_MAX_FIXED = 200


class SprtSpec(msgspec.Struct, frozen=True, kw_only=True):
    """What to test: H0 "A is ``elo0`` stronger" against H1 "A is ``elo1`` stronger",
    in the ``model``'s Elo ("normalized" or "logistic") — or, for games ranked by score,
    H0 "A's edge is ``mean0`` per game" against H1 "it is ``mean1``" (module docstring,
    "The score test"); exactly one of the two pairs is given.  Error rates ``alpha``
    (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds)."""

    elo0: float | None = None
    elo1: float | None = None
    mean0: float | None = None
    mean1: float | None = None
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        problem = _spec_problem(self)
        if problem:
            raise ValueError(f"invalid SPRT: {problem}")

    @property
    def on_score(self) -> bool:
        """A test of the mean edge per game (mean0, mean1), not of Elo (elo0, elo1)."""
        return self.mean0 is not None

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper): (ln(β/(1 − α)), ln((1 − β)/α))."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)


def _spec_problem(spec: SprtSpec) -> str | None:
    """What is wrong with ``spec``, or None."""
    for name in ("elo0", "elo1", "mean0", "mean1", "alpha", "beta"):
        value = getattr(spec, name)
        if value is None and name not in ("alpha", "beta"):
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return f"{name} must be a finite number, not {value!r}"
    on_elo = spec.elo0 is not None or spec.elo1 is not None
    on_score = spec.mean0 is not None or spec.mean1 is not None
    if on_elo and on_score:
        return f"give elo0 and elo1 or mean0 and mean1, not both ({HYPOTHESES})"
    pair = ("mean0", "mean1") if on_score else ("elo0", "elo1")
    missing = [name for name in pair if getattr(spec, name) is None]
    if missing:
        return f"missing {' and '.join(missing)} ({HYPOTHESES})"
    if spec.model not in MODELS:
        return f"unknown model {spec.model!r} (known: {', '.join(MODELS)})"
    if not 0.0 < spec.alpha < 1.0:
        return f"alpha must be between 0 and 1, not {spec.alpha:g}"
    if not 0.0 < spec.beta < 1.0:
        return f"beta must be between 0 and 1, not {spec.beta:g}"
    if spec.alpha + spec.beta >= 1.0:
        return f"alpha + beta must be below 1, not {spec.alpha + spec.beta:g}"
    if on_score:
        assert spec.mean0 is not None and spec.mean1 is not None
        if not spec.mean0 < spec.mean1:
            return f"mean0 must be less than mean1 ({spec.mean0:g} >= {spec.mean1:g})"
        return None
    assert spec.elo0 is not None and spec.elo1 is not None
    if not spec.elo0 < spec.elo1:
        return f"elo0 must be less than elo1 ({spec.elo0:g} >= {spec.elo1:g})"
    limit = ELO_LIMIT[spec.model]
    if max(abs(spec.elo0), abs(spec.elo1)) > limit:
        return f"elo0 and elo1 must lie within ±{limit:g} in the {spec.model} model"
    return None


_KEYS = ("elo0", "elo1", "mean0", "mean1", "alpha", "beta", "model")
#: What the two kinds of hypotheses are for, in messages.
HYPOTHESES = (
    'elo0, elo1 in Elo for games ranked by wins, e.g. "elo0=0 elo1=5"; '
    'mean0, mean1 in score per game for games ranked by score, e.g. "mean0=0 mean1=0.1"'
)


def parse_sprt(text: str) -> SprtSpec:
    """Read ``"elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"`` or ``"mean0=0
    mean1=0.1 alpha=0.05 beta=0.05"``: key=value pairs separated by spaces and/or
    commas; alpha, beta and model may be left out (0.05, 0.05, normalized; model is
    for the Elo test only).  A ValueError names the problem in one line."""
    fields: dict[str, Any] = {}
    # "elo0 = 0" is read as "elo0=0".
    for token in re.split(r"[\s,]+", re.sub(r"\s*=\s*", "=", text.strip())):
        if not token:
            continue
        key, sep, value = token.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"SPRT: expected key=value, got {token!r}")
        if key not in _KEYS:
            raise ValueError(f"SPRT: unknown key {key!r} (known: {', '.join(_KEYS)})")
        if key in fields:
            raise ValueError(f"SPRT: {key} given twice")
        fields[key] = value if key == "model" else _number(key, value)
    on_score = "mean0" in fields or "mean1" in fields
    if on_score and ("elo0" in fields or "elo1" in fields):
        raise ValueError(f"SPRT: give elo0 and elo1 or mean0 and mean1, not both ({HYPOTHESES})")
    if on_score and "model" in fields:
        raise ValueError("SPRT: model is for elo0 and elo1 (the score test has a normal model)")
    pair = ("mean0", "mean1") if on_score else ("elo0", "elo1")
    missing = [key for key in pair if key not in fields]
    if missing:
        example = '"mean0=0 mean1=0.1"' if on_score else '"elo0=0 elo1=5"'
        raise ValueError(f"SPRT: missing {' and '.join(missing)} (e.g. {example})")
    return SprtSpec(**fields)


def _number(key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"SPRT: {key} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"SPRT: {key} must be a finite number, not {value!r}")
    return number


def decide(llr: float, spec: SprtSpec) -> str | None:
    """The decision an LLR makes: "H0" when ``llr`` ≤ lower, "H1" when ``llr`` ≥ upper,
    None (undecided) in between."""
    lower, upper = spec.bounds
    if llr <= lower:
        return "H0"
    if llr >= upper:
        return "H1"
    return None


def hypothesis_targets(spec: SprtSpec, paired: bool) -> tuple[float, float]:
    """The constraint each hypothesis puts on the unit distribution: the expected score
    s_h (logistic) or the t-value t_h (normalized; ×√2 for pairs)."""
    if spec.elo0 is None or spec.elo1 is None:
        raise ValueError("a score test (mean0, mean1) has no Elo targets")
    if spec.model == "logistic":
        return expected_score(spec.elo0), expected_score(spec.elo1)
    scale = math.sqrt(2.0) if paired else 1.0
    return spec.elo0 / NELO_PER_T * scale, spec.elo1 / NELO_PER_T * scale


# --- one count vector, pure Python (the tally's hot path) -------------------------------


def _secular_root(w: Sequence[float], phi: Sequence[float], theta: float = 0.0) -> float:
    """The root θ of f(θ) = Σ wᵢ φᵢ / (1 + θ φᵢ) between the poles −1/max φ and
    −1/min φ (f decreases from +∞ to −∞ there).  NaN if φ has one sign.

    Newton's method from ``theta`` on h(θ) = f(θ)·(1 + θ min φ)(1 + θ max φ): the same
    root, without the two poles that make plain Newton crawl when the root is close to
    one (an outcome the data never saw, made likely by the hypothesis).  A step that
    would leave the bracket of known signs bisects it instead."""
    low, high = min(phi), max(phi)
    if not low < 0.0 < high:
        return math.nan
    lo, hi = -1.0 / high, -1.0 / low
    if not lo < theta < hi:
        theta = 0.0
    for _ in range(_MAX_NEWTON):
        f = slope = size = 0.0
        for wi, ph in zip(w, phi, strict=True):
            q = ph / (1.0 + theta * ph)
            f += wi * q
            slope += wi * q * q  # −f′
            size += wi * abs(q)
        d_low, d_high = 1.0 + theta * low, 1.0 + theta * high
        step = f * d_low * d_high / (slope * d_low * d_high - f * (low * d_high + high * d_low))
        # |step|·Σ wᵢ|qᵢ| bounds how much the step moves Σ p̂ᵢ ln pᵢ: past rounding noise.
        if abs(step) * size <= _THETA_TOL or theta + step == theta:
            return theta + step
        if f > 0.0:
            lo = theta
        else:
            hi = theta
        theta += step
        if not lo < theta < hi:
            theta = 0.5 * (lo + hi)
    return theta


def _mle_mean(w: Sequence[float], scores: Sequence[float], s: float) -> list[float]:
    """The MLE with expected score ``s``: pᵢ = wᵢ / (1 + θ(aᵢ − s))."""
    phi = [a - s for a in scores]
    theta = _secular_root(w, phi)
    return [wi / (1.0 + theta * ph) for wi, ph in zip(w, phi, strict=True)]


def _mle_t_value(w: Sequence[float], scores: Sequence[float], t: float) -> list[float]:
    """The MLE with t-value (μ − ½)/σ = ``t``: the fixed point of
    p ← w / (1 + θ φ(p)), φᵢ = aᵢ − ½ − (t/2)(σ + (aᵢ − μ)²/σ), from uniform."""
    p = [1.0 / len(w)] * len(w)
    theta = 0.0
    for _ in range(_MAX_FIXED):
        mu = sum(pi * a for pi, a in zip(p, scores, strict=True))
        sd = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, scores, strict=True)))
        phi = [a - 0.5 - 0.5 * t * (sd + (a - mu) ** 2 / sd) for a in scores]
        theta = _secular_root(w, phi, theta)
        new = [wi / (1.0 + theta * ph) for wi, ph in zip(w, phi, strict=True)]
        change = sum(wi * abs(n / pi - 1.0) for wi, n, pi in zip(w, new, p, strict=True))
        p = new
        if not change > _FIXED_TOL:  # converged (or NaN: no root, nothing to refine)
            break
    return p


def _fit(counts: Sequence[float], spec: SprtSpec) -> tuple[float, list[float], list[float]]:
    """The LLR of one count vector (3 or 5 counts; module docstring) with the MLEs
    p⁰, p¹ it compares."""
    k = len(counts)
    if not sum(counts) > 0:
        return 0.0, [1.0 / k] * k, [1.0 / k] * k
    scores = _PAIR_SCORES if k == 5 else _GAME_SCORES
    n = [c if c > 0 else REGULARIZATION for c in counts]
    total = sum(n)
    w = [c / total for c in n]
    mle = _mle_mean if spec.model == "logistic" else _mle_t_value
    p0, p1 = (mle(w, scores, target) for target in hypothesis_targets(spec, k == 5))
    return sum(c * math.log(b / a) for c, a, b in zip(n, p0, p1, strict=True)), p0, p1


def _llr_one(counts: Sequence[float], spec: SprtSpec) -> float:
    return _fit(counts, spec)[0]


# --- many count vectors at once, numpy --------------------------------------------------


def _secular_root_np(w: np.ndarray, phi: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """:func:`_secular_root` for every row of w, phi (rows, k), from ``theta`` (rows,).
    Each iteration works on the rows not yet converged only."""
    import numpy as np

    low, high = phi.min(-1), phi.max(-1)
    solvable = (low < 0.0) & (high > 0.0)  # otherwise NaN, below
    lo, hi = -1.0 / high, -1.0 / low
    theta = np.where((lo < theta) & (theta < hi), theta, 0.0)
    rows = np.flatnonzero(solvable)
    for _ in range(_MAX_NEWTON):
        if not rows.size:
            break
        t, ph, lw, hg = theta[rows], phi[rows], low[rows], high[rows]
        q = ph / (1.0 + t[:, None] * ph)
        wq = w[rows] * q
        f = wq.sum(-1)
        d_low, d_high = 1.0 + t * lw, 1.0 + t * hg
        step = f * d_low * d_high / ((wq * q).sum(-1) * d_low * d_high - f * (lw * d_high + hg * d_low))
        done = (np.abs(step) * np.abs(wq).sum(-1) <= _THETA_TOL) | (t + step == t)
        lo[rows] = np.where(f > 0.0, t, lo[rows])
        hi[rows] = np.where(f > 0.0, hi[rows], t)
        newton = t + step
        inside = (lo[rows] < newton) & (newton < hi[rows])
        theta[rows] = np.where(done | inside, newton, 0.5 * (lo[rows] + hi[rows]))
        # Converged rows leave: rounding noise must not send them bisecting.
        rows = rows[~done]
    return np.where(solvable, theta, np.nan)


def _mle_np(w: np.ndarray, scores: np.ndarray, target: np.ndarray, model: str) -> np.ndarray:
    """The constrained MLE for every row of ``w`` (rows, k), each under its own
    hypothesis ``target`` (rows,)."""
    import numpy as np

    if model == "logistic":
        phi = scores - target[:, None]
        theta = _secular_root_np(w, phi, np.zeros(len(w)))
        return w / (1.0 + theta[:, None] * phi)
    p = np.full(w.shape, 1.0 / w.shape[-1])
    theta = np.zeros(len(w))
    rows = np.arange(len(w))
    for _ in range(_MAX_FIXED):
        pr, wr, t = p[rows], w[rows], target[rows, None]
        mu = (pr * scores).sum(-1, keepdims=True)
        sd = np.sqrt((pr * (scores - mu) ** 2).sum(-1, keepdims=True))
        phi = scores - 0.5 - 0.5 * t * (sd + (scores - mu) ** 2 / sd)
        th = _secular_root_np(wr, phi, theta[rows])
        new = wr / (1.0 + th[:, None] * phi)
        theta[rows], p[rows] = th, new
        rows = rows[(wr * np.abs(new / pr - 1.0)).sum(-1) > _FIXED_TOL]
        if not rows.size:
            break
    return p


def _llr_np(counts: np.ndarray, spec: SprtSpec) -> np.ndarray:
    """The LLR of every count vector along the last axis of ``counts``."""
    import numpy as np

    k = counts.shape[-1]
    flat = counts.reshape(-1, k)
    scores = np.array(_PAIR_SCORES if k == 5 else _GAME_SCORES)
    n = np.where(flat > 0, flat, REGULARIZATION)
    w = n / n.sum(-1, keepdims=True)
    # Both hypotheses in one batch: row 2i is count vector i under H0, row 2i + 1 under H1.
    target = np.tile(np.array(hypothesis_targets(spec, k == 5)), len(flat))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = _mle_np(np.repeat(w, 2, axis=0), scores, target, spec.model).reshape(-1, 2, k)
        llr = (n * np.log(p[:, 1] / p[:, 0])).sum(-1)
    return np.where(flat.sum(-1) > 0, llr, 0.0).reshape(counts.shape[:-1])


def _llr(counts: Any, spec: SprtSpec, k: int) -> float | np.ndarray:
    import numpy as np

    array = np.asarray(counts, dtype=float)
    if array.ndim == 0 or array.shape[-1] != k:
        raise ValueError(f"expected {k} counts along the last axis, got shape {array.shape}")
    if (array < 0).any():
        raise ValueError("counts cannot be negative")
    if array.ndim == 1:
        return _llr_one(array.tolist(), spec)
    return _llr_np(array, spec)


def llr_trinomial(counts: Any, spec: SprtSpec) -> float | np.ndarray:
    """The LLR of H1 against H0 from game counts ``(losses, draws, wins)`` of A: shape
    (3,) gives a float, (..., 3) an array over the leading axes."""
    return _llr(counts, spec, 3)


def llr_pentanomial(counts: Any, spec: SprtSpec) -> float | np.ndarray:
    """The LLR of H1 against H0 from counts of pairs scoring 0, ¼, ½, ¾, 1 (0, 0.5, 1,
    1.5, 2 points of 2): shape (5,) gives a float, (..., 5) an array."""
    return _llr(counts, spec, 5)


# --- Elo estimates ----------------------------------------------------------------------


def elo_interval(counts: Sequence[float], model: str, confidence: float = 0.95) -> tuple[float, float, float]:
    """(estimate, low, high) of A's Elo advantage in ``model`` from trinomial (3) or
    pentanomial (5) ``counts``: the score s ± z·σ/√N mapped through
    nElo(x) = (x − ½)/σ_game · 800/ln 10 (σ_game = σ for games, √2·σ for pairs) or
    Elo(x) = −400 log10(1/x − 1).  Regularised counts (module docstring)."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r} (known: {', '.join(MODELS)})")
    if len(counts) not in (3, 5):
        raise ValueError(f"expected 3 or 5 counts, got {len(counts)}")
    scores = _PAIR_SCORES if len(counts) == 5 else _GAME_SCORES
    n = [c if c > 0 else REGULARIZATION for c in counts]
    total = sum(n)
    s = sum(c * a for c, a in zip(n, scores, strict=True)) / total
    sd = math.sqrt(sum(c * (a - s) ** 2 for c, a in zip(n, scores, strict=True)) / total)
    half = z_value(confidence) * sd / math.sqrt(total)
    if model == "normalized":
        per_game = sd * (math.sqrt(2.0) if len(counts) == 5 else 1.0)
        scale = NELO_PER_T / per_game
        return (s - 0.5) * scale, (s - half - 0.5) * scale, (s + half - 0.5) * scale
    return _logistic_elo(s), _logistic_elo(s - half), _logistic_elo(s + half)


def _logistic_elo(score: float) -> float:
    """−400 log10(1/s − 1), with s clipped into the open interval (0, 1)."""
    score = min(max(score, math.ulp(0.5)), 1.0 - math.ulp(0.5))
    return 400.0 * math.log10(score / (1.0 - score))


# --- the match's accumulator ------------------------------------------------------------


#: A game's score → half-points (the index of its trinomial cell).
_HALF_POINTS = {0: 0, 0.5: 1, 1: 2}
#: Slack for the MLE's own convergence error when bounding the LLR between evaluations.
_BOUND_MARGIN = 1e-6


class SprtTally:
    """Mutable accumulator on the hot path (called once per game, millions of times):
    O(1) per game.

    With ``paired``, games 2k and 2k+1 form a pair (the deal with the seats swapped)
    and the statistics are pentanomial; otherwise each game is a trinomial unit.  The
    LLR is looked at when a unit completes, never mid-pair.  ``decision`` is the first
    bound crossed and stays; games added after it are still counted (``result`` reports
    their LLR, which may have drifted back inside the bounds).

    Evaluating the LLR costs tens of µs (module docstring), so a unit that cannot have
    moved it to a bound is only counted.  Between evaluations the LLR is bounded
    exactly: writing ℓₕ(n) = max Σ nᵢ ln pᵢ over the distributions hypothesis h allows,
    the MLE pʰ found at counts n is still allowed at n + Δ (Δ ≥ 0, the units since), and
    adding units never raises a log-likelihood, so

        ℓₕ(n) + Σ Δᵢ ln pʰᵢ ≤ ℓₕ(n + Δ) ≤ ℓₕ(n),
        LLR(n) − Σ Δᵢ (−ln p¹ᵢ) ≤ LLR(n + Δ) ≤ LLR(n) + Σ Δᵢ (−ln p⁰ᵢ).

    The LLR is re-evaluated when that interval reaches a bound: the decisions are
    those of evaluating after every unit.  (A zero count's regularisation only makes
    its first Δ 0.999 instead of 1.)  Typically a third to a half of the units need an
    evaluation while the test is undecided."""

    __slots__ = (
        *("_fall", "_lower", "_pending", "_rise", "_stale", "_step0", "_step1", "_upper"),
        *("counts", "decision", "evaluations", "llr", "paired", "spec"),
    )

    def __init__(self, spec: SprtSpec, paired: bool) -> None:
        self.spec = spec
        self.paired = paired
        if spec.on_score:
            raise ValueError("an Elo test needs elo0 and elo1 (ScoreSprtTally tests mean0, mean1)")
        k = 5 if paired else 3
        #: Units per cell: (losses, draws, wins) or pairs scoring 0, ¼, ½, ¾, 1.
        self.counts = [0] * k
        self.decision: str | None = None
        #: The LLR at the last evaluation, of ``evaluations`` so far.
        self.llr = 0.0
        self.evaluations = 0
        self._lower, self._upper = spec.bounds
        self._pending: int | None = None  # half-points of a pair's first game
        self._stale = False  # units counted since ``llr`` was evaluated
        # How far one more unit in cell i can raise (−ln p⁰ᵢ) or lower (−ln p¹ᵢ) the
        # LLR, and how far the units since the evaluation can have: none evaluated yet.
        self._step0 = self._step1 = [math.inf] * k
        self._rise = self._fall = 0.0

    @staticmethod
    def value_of(record: GameRecord, position: int) -> float:
        """What :meth:`add` takes of a two-bot game: the points of the lineup's bot
        ``position`` (it sits in seat ``(position + rotation) mod 2``): 1 a win, ½ a draw,
        0 a loss."""
        ranks = record.ranks
        seat = (position + record.rotation) % 2
        mine, theirs = ranks[seat], ranks[1 - seat]
        return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0

    def add(self, score: float) -> str | None:
        """File one game's score of bot A (1, 0.5 or 0); the decision so far."""
        try:
            cell = _HALF_POINTS[score]
        except (KeyError, TypeError):
            raise ValueError(f"a game's score must be 0, 0.5 or 1, not {score!r}") from None
        if self.paired:
            if self._pending is None:
                self._pending = cell
                return self.decision
            cell += self._pending
            self._pending = None
        self.counts[cell] += 1
        self._stale = True
        if self.decision is None:
            self._rise += self._step0[cell]
            self._fall += self._step1[cell]
            llr = self.llr
            if (
                llr + self._rise + _BOUND_MARGIN >= self._upper
                or llr - self._fall - _BOUND_MARGIN <= self._lower
            ):
                self._evaluate()
                self.decision = decide(self.llr, self.spec)
        return self.decision

    def _evaluate(self) -> None:
        self.llr, p0, p1 = _fit(self.counts, self.spec)
        self.evaluations += 1
        self._step0 = [-math.log(p) for p in p0]
        self._step1 = [-math.log(p) for p in p1]
        self._rise = self._fall = 0.0
        self._stale = False

    def result(self) -> SprtResult:
        """The test's state as a record (the LLR of all units counted)."""
        spec = self.spec
        if self._stale:
            self._evaluate()
        elo, low, high = elo_interval(self.counts, spec.model)
        units = sum(self.counts)
        assert spec.elo0 is not None and spec.elo1 is not None
        return SprtResult(
            statistics="pentanomial" if self.paired else "trinomial",
            counts=list(self.counts),
            llr=self.llr,
            lower=self._lower,
            upper=self._upper,
            decision=self.decision,
            elo0=spec.elo0,
            elo1=spec.elo1,
            alpha=spec.alpha,
            beta=spec.beta,
            model=spec.model,
            games=2 * units if self.paired else units,
            elo=elo,
            elo_low=low,
            elo_high=high,
        )


# --- the score test ---------------------------------------------------------------------

#: Units (deals) a score test counts before it may decide: its variance is estimated,
#: and from a handful of units it can be far too small (module docstring).
SCORE_MIN_UNITS = 30


def llr_score(units: int, mean: float, m2: float, spec: SprtSpec) -> float:
    """The generalised LLR of H1 (mean edge ``mean1``) against H0 (``mean0``) from
    ``units`` unit values with sample ``mean`` and sum of squared deviations ``m2``, in
    a normal model whose variance each hypothesis fits by maximum likelihood:
    N/2 · ln((v + (x̄ − μ₀)²) / (v + (x̄ − μ₁)²)), v = m2/N (module docstring)."""
    assert spec.mean0 is not None and spec.mean1 is not None
    if units <= 0:
        return 0.0
    v = max(m2, 0.0) / units
    d0 = v + (mean - spec.mean0) ** 2
    d1 = v + (mean - spec.mean1) ** 2
    if d0 <= 0.0 or d1 <= 0.0:  # every unit exactly at one hypothesis
        return -math.inf if d0 <= 0.0 else math.inf
    return 0.5 * units * math.log(d0 / d1)


class ScoreSprtTally:
    """The score test's accumulator, like :class:`SprtTally` (``add`` once per game,
    O(1), a decision that sticks) on the tested bot's *edge* per game: half its score
    minus its opponent's.  With ``paired`` a unit is a deal's two games (2k, 2k + 1)
    and its value their mean edge; otherwise a unit is one game.  The unit values'
    mean and squared deviations are kept by Welford's update; the LLR (a logarithm) is
    evaluated at every unit from the :data:`SCORE_MIN_UNITS`-th on."""

    __slots__ = ("_lower", "_pending", "_upper", "decision", "llr", "m2", "mean", "paired", "spec", "units")

    def __init__(self, spec: SprtSpec, paired: bool) -> None:
        if not spec.on_score:
            raise ValueError("a score test needs mean0 and mean1")
        self.spec = spec
        self.paired = paired
        self.units = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.decision: str | None = None
        self.llr = 0.0
        self._lower, self._upper = spec.bounds
        self._pending: float | None = None  # a pair's first edge

    @staticmethod
    def value_of(record: GameRecord, position: int) -> float:
        """What :meth:`add` takes of a two-bot game: the edge of the lineup's bot
        ``position``, half its score minus its opponent's (its own chips in a zero-sum
        game)."""
        scores = record.scores
        seat = (position + record.rotation) % 2
        return 0.5 * (scores[seat] - scores[1 - seat])

    def add(self, edge: float) -> str | None:
        """File one game's edge of the tested bot; the decision so far."""
        if self.paired:
            if self._pending is None:
                self._pending = edge
                return self.decision
            edge = 0.5 * (self._pending + edge)
            self._pending = None
        units = self.units = self.units + 1
        delta = edge - self.mean
        self.mean += delta / units
        self.m2 += delta * (edge - self.mean)
        if self.decision is None and units >= SCORE_MIN_UNITS:
            llr = self.llr = llr_score(units, self.mean, self.m2, self.spec)
            if llr <= self._lower:
                self.decision = "H0"
            elif llr >= self._upper:
                self.decision = "H1"
        return self.decision

    def result(self) -> SprtResult:
        """The test's state as a record (the LLR of all units counted)."""
        spec = self.spec
        units = self.units
        self.llr = llr_score(units, self.mean, self.m2, spec)
        half = z_value(0.95) * math.sqrt(self.m2 / (units - 1) / units) if units > 1 else math.inf
        return SprtResult(
            statistics="normal",
            counts=[],
            llr=_finite(self.llr),
            lower=self._lower,
            upper=self._upper,
            decision=self.decision,
            elo0=None,
            elo1=None,
            alpha=spec.alpha,
            beta=spec.beta,
            model="normal",
            games=2 * units if self.paired else units,
            elo=None,
            elo_low=None,
            elo_high=None,
            mean0=spec.mean0,
            mean1=spec.mean1,
            mean=self.mean,
            mean_low=_finite(self.mean - half),
            mean_high=_finite(self.mean + half),
        )


def _finite(value: float) -> float:
    """``value`` clipped to the largest finite floats (a record must encode to JSON)."""
    return min(max(value, -sys.float_info.max), sys.float_info.max)


def new_tally(spec: SprtSpec, paired: bool) -> SprtTally | ScoreSprtTally:
    """The accumulator for ``spec``: Elo (:class:`SprtTally`, fed a game's points 0, ½,
    1) or score (:class:`ScoreSprtTally`, fed a game's edge)."""
    return ScoreSprtTally(spec, paired) if spec.on_score else SprtTally(spec, paired)


def standing_problem(spec: SprtSpec, game: str, standing: str) -> str | None:
    """Why ``spec`` cannot test a match of ``game``, which ranks bots by ``standing``
    ("wins" or "score"), or None: a game ranked by score is tested on the mean edge,
    one ranked by wins on Elo — the test then agrees with the results table."""
    if standing == "score" and not spec.on_score:
        return (
            f"{game} ranks bots by score (chips), so --sprt tests the mean edge per game there: "
            f'give its hypotheses in score per game, e.g. "mean0=0 mean1=0.1", not elo0 and elo1'
        )
    if standing != "score" and spec.on_score:
        return (
            f"{game} ranks bots by games won, so --sprt tests Elo there: "
            f'give elo0 and elo1, e.g. "elo0=0 elo1=5", not mean0 and mean1'
        )
    return None
