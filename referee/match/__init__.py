"""A match: the same bots play a series of games of one kind.

:mod:`.spec` a match as pure data; :mod:`.schedule` which deal each game plays and who
sits where; :mod:`.lineup` the bots' lives; :mod:`.scoreboard` the totals;
:mod:`.engine` the game loop; :mod:`.run` ``run_match(spec)``.
"""

from referee.core.records import GameRecord, MatchRecord
from referee.match.engine import DETAIL_CHARS, Match, file_sinks
from referee.match.lineup import Lineup, MatchError, OutputError, Player
from referee.match.run import run_match
from referee.match.schedule import Scheduled, schedule
from referee.match.scoreboard import FORFEIT_DETAILS_KEPT, PlayerStats
from referee.match.spec import GIVE_UP_AFTER, MatchConfig, MatchSpec

__all__ = [
    "DETAIL_CHARS",
    "FORFEIT_DETAILS_KEPT",
    "GIVE_UP_AFTER",
    "GameRecord",
    "Lineup",
    "Match",
    "MatchConfig",
    "MatchError",
    "MatchRecord",
    "MatchSpec",
    "OutputError",
    "Player",
    "PlayerStats",
    "Scheduled",
    "file_sinks",
    "run_match",
    "schedule",
]
