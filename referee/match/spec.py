"""A match as pure data: what a process pool or a cluster worker receives."""

from __future__ import annotations

from typing import Any

import msgspec

from referee.core.botspec import BotSpec
from referee.core.limits import LimitsOverride
from referee.stats.sprt import SprtSpec

#: A bot that fails to start, or dies before its first answer, this many times in a row
#: sits out the rest of the match (``--give-up-after``): each try can cost a whole
#: startup allowance, and a broken bot must not stretch a match to hours.
GIVE_UP_AFTER = 3


class MatchConfig(msgspec.Struct, frozen=True):
    game: str
    games: int = 1000
    seed: int = 0
    #: Play each deal once per seat rotation, bots swapped (same dice, cards, prizes):
    #: ``games`` is then rounded up to a whole number of deals.
    duplicate: bool = False
    recover: bool = False
    pin: bool = True
    #: ``auto``, ``strict`` or a layer of referee.seats.process.sandbox.Layer.
    sandbox: str = "auto"
    #: As root, run a bot that cannot have a uid of its own as root instead of refusing it.
    allow_root_bots: bool = False
    limits: LimitsOverride | None = None
    #: Where the JSON-lines game log goes (``--log``), if anywhere.
    log_path: str | None = None
    #: Where the summary goes (``--json``), if anywhere; checkpointed during the match.
    summary_path: str | None = None
    stderr_dir: str | None = None
    options: dict[str, Any] = {}
    #: Extra formats to write every game in: format name (from ``Game.exports``) -> path.
    exports: dict[str, str] = {}
    #: A bot that cannot start at the beginning forfeits its games and the others play
    #: on (default for more than two bots); otherwise the match cannot be played.
    keep_going: bool = False
    #: Failed starts in a row after which a bot is out for the rest of the match.
    give_up_after: int = GIVE_UP_AFTER
    #: The bots' stable ids, in lineup order, for games that tell bots who they play
    #: (``Game.tells_ids``); ``None``: their positions in the lineup, 0 to n-1.  A
    #: tournament passes each bot's position in its field.
    ids: list[int] | None = None
    #: Bots that can never start in this match, with why (a failed build; a bot a
    #: tournament has given up on): they forfeit their games without being started.
    unstartable: dict[str, str] = {}
    #: Stop as soon as this sequential test decides between its hypotheses (two bots;
    #: pentanomial on deal pairs with ``duplicate``, trinomial otherwise).
    sprt: SprtSpec | None = None
    #: The bot the test is about, by name; ``None``: the first of the lineup.
    sprt_bot: str | None = None
    #: Play a game again, at most this many times, when a bot's forfeit in it was the
    #: machine's fault, not the bot's (issue 28, ``--replay-overloaded``): 0, never.
    replay_overloaded: int = 0


class MatchSpec(msgspec.Struct, frozen=True):
    """Everything a match is, as pure data.  It pickles and encodes to JSON
    (``msgspec.json.encode(spec)``)."""

    bots: list[BotSpec]
    config: MatchConfig
