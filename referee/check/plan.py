"""The check's matches: a phase per seat count, its games by index, and the match that
plays positions as well as random games."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.seeding import deal_seed
from referee.games.base import CheckPosition, Game, GameState
from referee.match import Match, MatchConfig, Scheduled
from referee.seats.process.bot import BotProcess
from referee.sinks._abc import Sink


@dataclass
class Phase:
    """One match of the check: a seat count, and its games by index (a position or a
    random game, ``None``)."""

    seats: int
    plan: list[tuple[int, CheckPosition | None]]


def plan_phases(game: Game, random_games: int) -> list[Phase]:
    """The matches to play: ``random_games`` at the usual seat count (two when the game
    allows it) and its positions; then, for positions that need more seats (a side pot),
    a few random games and those positions at that count.

    The match seats player ``(seat + index) % n`` in ``seat`` of game ``index``, and the
    bot is player 0: a position's game index is chosen to put the bot in its seat.
    Indices keep growing across phases, so every game of the check has its own number.
    """
    usual = 2 if 2 in game.seats else game.seats.low
    by_seats: dict[int, list[CheckPosition]] = {}
    for position in game.check_positions():
        if position.seats not in game.seats:
            raise ValueError(f"{game.name}: position {position.name!r} has {position.seats} seats")
        by_seats.setdefault(position.seats, []).append(position)
    phases = []
    index = 0
    for seats in [usual, *sorted(set(by_seats) - {usual})]:
        plan: list[tuple[int, CheckPosition | None]] = []
        extra = random_games if seats == usual else min(random_games, max(1, random_games // 4))
        for _ in range(extra):
            plan.append((index, None))
            index += 1
        for position in by_seats.get(seats, []):
            while (position.seat + index) % seats:
                index += 1
            plan.append((index, position))
            index += 1
        phases.append(Phase(seats, plan))
    return phases


class CheckMatch(Match):
    """A match that plays its phase's plan: random games as usual, positions as given.

    Game ``i`` of the plan is played as game number ``plan[i][0]`` of a match — which
    decides the seat rotation, so the bot sits where the position wants it — from the
    position's prepared state, or from a fresh deal when it has none."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[BotSpec],
        config: MatchConfig,
        plan: list[tuple[int, CheckPosition | None]],
        process_class: type[BotProcess],
        sinks: Sequence[Sink] = (),
    ) -> None:
        super().__init__(game, specs, config, seat_factory=self._seat, sinks=sinks)
        self._process_class = process_class
        self.plan = plan
        self.games_requested = len(plan)
        self._positions = {index: position for index, position in plan if position is not None}

    def schedule(self) -> Iterator[Scheduled]:
        n = len(self.players)
        for index, _ in self.plan:
            yield Scheduled(index, index, index % n, deal_seed(self.config.seed, index))

    def deal(self, planned: Scheduled) -> GameState:
        position = self._positions.get(planned.index)
        return position.state if position is not None else super().deal(planned)

    def _seat(
        self, spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
    ) -> BotProcess:
        """The match's own process seat, as the recording subclass."""
        return self._process_class(
            spec,
            limits,
            stderr_path=stderr_path,
            cpu_budget_s=cpu_budget_s,
            layer=self.layer,
            allow_root=self.config.allow_root_bots,
            # As a match sends them (Game.hold_tells): a bot that takes one read for one
            # line must fail here, not first in a match.
            hold_tells=self.game.hold_tells,
        )
