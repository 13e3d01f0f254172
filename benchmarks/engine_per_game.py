"""The match engine's own per-game cost: a match whose seats answer at once, in process.

What is left of a game's time once the bots cost nothing — the schedule, seeding the
deal, the rules, the records, the tallies — which rules a round robin of millions of
dice-poker deals.  Usage::

    python benchmarks/engine_per_game.py [GAMES] [GAME]     # default 50000 dice-poker

Prints µs per game for three runs (the first includes the sandbox probe of a new Match).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee import games
from referee.core.botspec import BotSpec
from referee.match import Match, MatchConfig
from referee.seats import Seat, SeatUsage


class Instant(Seat):
    """Answers "1" to everything, at once (legal for dice poker: raise or call)."""

    alive = True
    description = "instant"

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    async def start(self, nursery: trio.Nursery) -> None:
        pass

    async def request(self, line: bytes) -> bytes:
        return b"1"

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        pass

    def kill(self, verdict: object, detail: str) -> None:
        pass

    async def close(self) -> None:
        pass

    def usage(self) -> SeatUsage:
        return SeatUsage()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    name = sys.argv[2] if len(sys.argv) > 2 else "dice-poker"
    specs = [BotSpec(name=bot, argv=["(instant)"], home=".") for bot in ("a", "b")]
    for _ in range(3):
        match = Match(
            games.get(name)(),
            specs,
            MatchConfig(game=name, games=count, seed=1, pin=False),
            seat_factory=Instant,
        )
        started = time.perf_counter()
        trio.run(match.run)
        print(f"{name}: {(time.perf_counter() - started) / count * 1e6:.2f} µs per game (engine and rules)")


if __name__ == "__main__":
    main()
