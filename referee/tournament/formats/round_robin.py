"""Round robin: every pair of bots plays once per round; ``rounds`` repeats the whole schedule.

This is dice poker's tournament (seed 000: "in each round, each pair of AIs plays one
deal") and the default way to rank a small field.

**The circle method.**  Put the ``n`` bots (plus a dummy when ``n`` is odd: whoever
meets the dummy sits the turn out) round a table of ``m`` = ``n`` rounded up to even
places; place 0 is fixed, the others rotate one step per turn.  In each turn place ``i``
plays place ``m - 1 - i``.  After ``m - 1`` turns every pair has met exactly once, and
within a turn no bot plays twice, so the turns are the natural order for a runner: a bot
plays at most once per ``m / 2`` matches and never waits more than about two turns.

**Seats.**  The first seat in a turn goes to the upper place when ``i`` is odd and to the
lower when it is even; the fixed place alternates turn by turn.  With the dummy in the
fixed place (odd ``n``), this gives every bot exactly ``(n - 1) / 2`` first seats per
round.  With even ``n`` each bot plays ``n - 1`` games, an odd number, so one seat is taken
once more than the other: ``n / 2`` against ``n / 2 - 1``, the least imbalance possible.
Every second round swaps all seats, so over an even number of rounds every bot takes
each seat exactly equally often and every pair plays both ways round.

**More than two seats** (``seats`` K > 2): every K-bot combination is a table, as in the
BYU Liar's Dice tournament (every 4-bot combination played).  Each table's seat order is
the cyclic rotation of the sorted combination that adds least to its bots' counts of
that seat so far (a greedy balance, measured in the tests), and round ``r`` turns each
table ``r`` further places.  For large fields use :mod:`.tables` instead: C(30, 4) is
27,405 tables.

Each round is returned by one ``next_round`` call; match ids are ``rr{round}-{turn}-{k}``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ._abc import Pairing, RepeatedRounds, check_bots


def circle_turns(n: int) -> list[list[tuple[int, int]]]:
    """The circle-method turns for bots ``0..n-1``: per turn, the pairs ``(first, second)``."""
    m = n + n % 2
    places = ([n] if n % 2 else []) + list(range(n))  # the dummy ``n`` sits in the fixed place
    turns = []
    for turn in range(m - 1):
        pairs = []
        for i in range(m // 2):
            upper, lower = places[i], places[m - 1 - i]
            upper_first = turn % 2 == 0 if i == 0 else i % 2 == 1
            if upper < n and lower < n:
                pairs.append((upper, lower) if upper_first else (lower, upper))
        turns.append(pairs)
        places = [places[0], places[-1], *places[1:-1]]
    return turns


def table_rotations(n: int, seats: int) -> list[tuple[int, ...]]:
    """Every ``seats``-combination of ``0..n-1``, each rotated to balance seat positions (greedy)."""
    count = [[0] * seats for _ in range(n)]
    tables = []
    for combo in itertools.combinations(range(n), seats):
        best = min(
            range(seats),
            key=lambda r: (sum(count[combo[(p + r) % seats]][p] for p in range(seats)), r),
        )
        table = tuple(combo[(p + best) % seats] for p in range(seats))
        for p, bot in enumerate(table):
            count[bot][p] += 1
        tables.append(table)
    return tables


class RoundRobin(RepeatedRounds):
    """Every pair (every ``seats``-table) plays once per round, for ``rounds`` rounds."""

    name = "round-robin"

    def __init__(self, bots: Sequence[str], rounds: int = 1, seats: int = 2) -> None:
        self.bots = check_bots(bots, least=max(2, seats))
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        if seats < 2:
            raise ValueError("seats must be at least 2")
        self.rounds = rounds
        self.seats = seats
        n = len(self.bots)
        if seats == 2:
            self._base: list[tuple[str, tuple[int, ...]]] = [
                (f"{t + 1}-{k + 1}", p) for t, turn in enumerate(circle_turns(n)) for k, p in enumerate(turn)
            ]
        else:
            self._base = [(f"1-{k + 1}", p) for k, p in enumerate(table_rotations(n, seats))]

    def round(self, number: int) -> list[Pairing]:
        """Round ``number`` (from 1): the whole schedule, seats turned ``number - 1`` places."""
        shift = number - 1
        out = []
        for suffix, table in self._base:
            order = table[shift % len(table) :] + table[: shift % len(table)]
            out.append(Pairing(f"rr{number}-{suffix}", tuple(self.bots[i] for i in order)))
        return out
