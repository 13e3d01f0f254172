"""Which deal each game of a match plays, and who sits where.

Game ``g`` of a match between ``n`` bots plays seat rotation ``r``: seat ``s`` is played
by bot ``(s + r) mod n`` of the lineup, so every bot takes every seat equally often (for
two bots the first player alternates).  Without ``--duplicate`` every game is a fresh
deal (deal ``g``, rotation ``g mod n``); with it each deal is played ``n`` times in a row,
once per rotation — the same dice, cards or prize order with the bots moved round the
table — so bots are compared on the same luck (for more than two seats the rotations
are the ``n`` cyclic shifts, not every permutation).
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from referee.core.seeding import deal_seeder


class Scheduled(msgspec.Struct, frozen=True, gc=False):
    """One game to play.  A struct, not a frozen dataclass: one is made per game
    (millions a tournament), in ~0.07 µs against ~0.9 µs."""

    #: Its number in the match.
    index: int
    deal: int
    rotation: int
    #: The deal's seed: the game's ``random.Random`` is seeded with it.
    seed: int


def games_to_play(games: int, seats: int, duplicate: bool) -> int:
    """``games``, rounded up to whole deals when each deal is played once per rotation."""
    return -(-games // seats) * seats if duplicate else games


def schedule(match_seed: int, games: int, seats: int, duplicate: bool) -> Iterator[Scheduled]:
    """The games of a match, in the order they are played."""
    seed_of = deal_seeder(match_seed)
    if duplicate:
        for index in range(games_to_play(games, seats, True)):
            deal, rotation = divmod(index, seats)
            yield Scheduled(index, deal, rotation, seed_of(deal))
    else:
        for index in range(games):
            yield Scheduled(index, index, index % seats, seed_of(index))


def seat_order(rotation: int, seats: int) -> list[int]:
    """Lineup positions by seat for ``rotation``: seat ``s`` is bot ``(s + rotation) % n``."""
    return [(seat + rotation) % seats for seat in range(seats)]
