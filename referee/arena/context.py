"""An open arena: its folder, store, configuration and game, shared by the service's parts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee import games
from referee.arena.config import CONFIG, ArenaConfig, load
from referee.arena.store import Store
from referee.arena.tokens import Tokens
from referee.seats.process import sandbox


@dataclass
class Arena:
    folder: Path
    store: Store
    config: ArenaConfig
    game: str
    seed: int
    layer: sandbox.Layer
    allow_root: bool = False
    tokens: Tokens = field(init=False)
    #: Set when a submission is queued / a bot becomes active: wakes the intake / the ladder.
    intake_wake: trio.Event = field(default_factory=trio.Event)
    ladder_wake: trio.Event = field(default_factory=trio.Event)

    def __post_init__(self) -> None:
        self.tokens = Tokens(self.store)

    @property
    def game_cls(self) -> type[games.Game]:
        return games.get(self.game)

    def wake_intake(self) -> None:
        self.intake_wake.set()
        self.intake_wake = trio.Event()

    def wake_ladder(self) -> None:
        self.ladder_wake.set()
        self.ladder_wake = trio.Event()


def open_arena(folder: Path, *, sandbox_name: str | None = None, allow_root: bool = False) -> Arena:
    folder = Path(folder).resolve()
    store = Store(folder)
    config = load(folder / CONFIG)
    game = store.game
    seed = int(store.meta("seed") or 0)
    layer = sandbox.choose(sandbox_name or config.sandbox or "auto")
    return Arena(folder, store, config, game, seed, layer, allow_root)
