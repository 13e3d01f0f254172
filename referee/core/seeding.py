"""Seeds: a match seed names every deal of the match.

A *deal* is everything left to chance in one game (dice, cards, the prize order).  It is
identified by ``(match seed, deal number)`` and its seed is :func:`deal_seed` of the
two: a pure function, the same on every platform and Python version, so a deal can be
replayed alone — by another seat rotation (``--duplicate``), a tournament's other
pairing, or a worker on another machine — without playing the deals before it.

The mix is SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom
number generators", OOPSLA 2014): a bijection of 64-bit words with full avalanche,
~0.3 µs in Python, against ~1 µs for a SHA-256 of the same pair.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

#: Match seeds are the whole numbers below this (64 bits): each names its own deals.
SEEDS = 1 << 64
_MASK = SEEDS - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def deal_seed(match_seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` of the match seeded ``match_seed`` (64 bits).

    Distinct deals of a match get unrelated seeds; so do equal deal numbers of distinct
    match seeds (the match seed is mixed first, then the deal number).  ``match_seed``
    is in ``range(SEEDS)``; the match refuses others (folding more bits into 64 would
    make two seeds play the same deals).
    """
    return deal_seeder(match_seed)(deal)


#: The environment variable that carries :func:`bot_seed` to a bot's process.
BOT_SEED_VAR = "REFEREE_SEED"


def bot_seed(match_seed: int, name: str) -> int:
    """A bot's own seed in the match seeded ``match_seed`` (``$REFEREE_SEED``; 32 bits,
    so that C's ``srand`` and any language's integer take it): the same for the same
    match seed and bot name, unrelated between bots.  The dice poker seed has the
    organiser seed the students' ``rand()`` ("Do not call srand ..., that is our
    responsibility"): its adapter does so from this.

    A SHA-256 of the two, apart from the deals' mix: SplitMix64's finaliser is a
    bijection, so 32 bits of it would leave a bot 2**32 guesses (seconds in C) from the
    match seed's mix and every deal of the match; of a hash, nothing short of the
    match seed itself (:func:`fresh_seed`: 64 random bits)."""
    digest = hashlib.sha256(b"referee bot seed\0%d\0" % match_seed + name.encode()).digest()
    return int.from_bytes(digest[:4], "big")


def fresh_seed() -> int:
    """A match seed for a match not given one: 64 random bits, as many as a seed holds
    (fewer could be searched from a bot's view of the match)."""
    return secrets.randbits(64)


def deal_seeder(match_seed: int) -> Callable[[int], int]:
    """:func:`deal_seed` for one match seed, with the match seed's mix done once."""
    base = _mix((match_seed & _MASK) ^ (match_seed >> 64))

    def seed_of(deal: int) -> int:
        return _mix((base + _GOLDEN * (deal + 1)) & _MASK)

    return seed_of
