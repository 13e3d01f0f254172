"""Pure game rules, one module per game, found automatically.

Every module here that defines a :class:`~referee.games.base.Game` subclass with a
``name`` is registered under that name; nothing else needs to change to add a game.
"""

from __future__ import annotations

import importlib
import pkgutil

from referee.games.base import DeadBot, Event, Game, GameState, Lifetime, Option, SeatCount, Standing

__all__ = [
    "DeadBot",
    "Event",
    "Game",
    "GameState",
    "Lifetime",
    "Option",
    "SeatCount",
    "Standing",
    "available",
    "get",
]

_registry: dict[str, type[Game]] | None = None


def _discover() -> dict[str, type[Game]]:
    found: dict[str, type[Game]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Game) and obj is not Game and "name" in vars(obj):
                found[obj.name] = obj
    return dict(sorted(found.items()))


def available() -> dict[str, type[Game]]:
    """All games by name."""
    global _registry
    if _registry is None:
        _registry = _discover()
    return _registry


def get(name: str) -> type[Game]:
    games = available()
    try:
        return games[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; choose from {', '.join(games)}") from None
