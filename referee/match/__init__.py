"""A match: the same bots play a series of games of one kind."""

from referee.match.engine import *  # noqa: F403
from referee.match.engine import (  # noqa: F401
    DETAIL_CHARS,
    FORFEIT_DETAILS_KEPT,
    GIVE_UP_AFTER,
    game_seed,
    pinned_to_one_core,
)
