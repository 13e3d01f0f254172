"""The reference players the bot under check plays against."""

from __future__ import annotations

import shlex
import sys

import msgspec

from referee.core.botspec import BotSpec, BotSpecError, resolve
from referee.games.base import SAMPLE_PLAYERS, Game


def opponent_specs(game_cls: type[Game], command: str | None, bot: BotSpec, count: int) -> list[BotSpec]:
    """``count`` reference players, named apart from the bot.  Raises BotSpecError."""
    if command is None:
        if game_cls.check_opponent is None:
            raise BotSpecError(f"{game_cls.name} names no reference player: pass --opponent BOT")
        path, *args = shlex.split(game_cls.check_opponent)
        script = SAMPLE_PLAYERS / path
        if not script.is_file():
            raise BotSpecError(
                f"the reference player {script} is missing (the check needs the source tree's "
                "sample_players/): pass --opponent BOT"
            )
        command = shlex.join([sys.executable, str(script), *args])
    spec = resolve(command)
    base = f"reference-{spec.name}"
    while True:
        names = [base] + [f"{base}-{k}" for k in range(2, count + 1)]
        if bot.name not in names:
            return [msgspec.structs.replace(spec, name=name) for name in names]
        base += "-opponent"
