"""Gauntlet: each candidate plays every bot of the field; the field does not play itself.

The engine tester's format (cutechess-cli's ``-tournament gauntlet``): a new bot, or a few,
measured against a fixed set of opponents, with no matches spent among the opponents.
Candidates do not play each other either.

**Order.**  With candidates ``c_0..c_{k-1}`` and field ``f_0..f_{m-1}``, turn ``t`` has
candidate ``i`` play field bot ``(i + t) mod m``: within a turn no field bot plays twice
while ``k <= m``, so a runner going front to back spreads the load over the field.

**Seats.**  Candidate ``i`` takes the first seat against field bot ``j`` in round ``r``
(from 0) when ``i + j + r`` is even.  So within one round every candidate alternates
seats along the field and every field bot alternates along the candidates: each takes
the first seat ⌈g/2⌉ or ⌊g/2⌋ times of its ``g`` games, and over an even number of rounds
exactly half the time, every pair having played both ways round.

Each round is one ``next_round`` call; match ids are ``g{round}-{candidate}-{field}``
(1-based indexes in the given orders).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._abc import Pairing, RepeatedRounds, check_bots


class Gauntlet(RepeatedRounds):
    """Every candidate against every other bot, ``rounds`` times."""

    name = "gauntlet"

    def __init__(self, bots: Sequence[str], candidates: Sequence[str], rounds: int = 1) -> None:
        self.bots = check_bots(bots)
        chosen = set(candidates)
        if not chosen or not chosen <= set(self.bots):
            raise ValueError("candidates must be one or more of the bots")
        self.candidates = tuple(b for b in self.bots if b in chosen)
        self.field = tuple(b for b in self.bots if b not in chosen)
        if not self.field:
            raise ValueError("a gauntlet needs at least one bot that is not a candidate")
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        self.rounds = rounds

    def round(self, number: int) -> list[Pairing]:
        """Round ``number`` (from 1)."""
        r = number - 1
        m = len(self.field)
        out = []
        for t in range(m):
            for i, cand in enumerate(self.candidates):
                j = (i + t) % m
                pair = (cand, self.field[j]) if (i + j + r) % 2 == 0 else (self.field[j], cand)
                out.append(Pairing(f"g{number}-{i + 1}-{j + 1}", pair))
        return out
