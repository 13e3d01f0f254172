"""Tournament formats: pure scheduling, from the outcomes so far to the next matches.

``FORMATS`` maps each ``--format`` name to its class; each class's docstring, and its
module's, say what it guarantees.  The interface is in :mod:`._abc`.
"""

from __future__ import annotations

from ._abc import BotTally, Format, MatchOutcome, Pairing, outcome
from .double_elimination import DoubleElimination
from .gauntlet import Gauntlet
from .round_robin import RoundRobin
from .swiss import Swiss
from .tables import Balance, Tables, balance

FORMATS: dict[str, type[Format]] = {
    cls.name: cls for cls in (RoundRobin, Gauntlet, DoubleElimination, Swiss, Tables)
}

__all__ = [
    "FORMATS",
    "Balance",
    "BotTally",
    "DoubleElimination",
    "Format",
    "Gauntlet",
    "MatchOutcome",
    "Pairing",
    "RoundRobin",
    "Swiss",
    "Tables",
    "balance",
    "outcome",
]
