"""The game interface: a tiny state surface that all five seed games fit.

A game is a pure, deterministic state machine.  It performs no I/O and draws every
random number from the :class:`random.Random` it is given, so the same seed always
gives the same game.  The referee drives it like this (see :mod:`referee.match`)::

    state = game.new_state(seats, rng)
    while not state.is_terminal():
        for event in state.drain_events():          # things seats must be told
            tell(event.seat, event.line)
        for seat in state.to_act():                 # one seat, or several at once
            reply = ask(seat, state.request(seat))  # bytes on the wire, both ways
            action = state.decode(seat, reply)      # raises ProtocolError
            if reason := state.illegal(seat, action):
                state.penalize(seat, Verdict.ILLEGAL)
            else:
                state.apply(seat, action)
    state.scores(), state.ranks()

Simultaneous moves (Bidding Wars) are several seats in ``to_act()``: the referee asks
them concurrently, checks each reply against the state *before* the step (``illegal``
must not depend on another seat's move of the same step), and then applies the whole
step at once with :meth:`GameState.apply_joint` — one joint action, as OpenSpiel does —
so no state ever holds half a move.  A seat whose bot has failed is asked for nothing:
the referee penalises it in place of its decision (:meth:`GameState.penalize`, or its
entry among ``apply_joint``'s penalties), which is where each game's penalty policy
lives (Yahtzee forfeits the game, Liar's Dice costs a die, poker folds or checks).

**The deal.**  Everything left to chance in a game — dice, cards, the prize order — is
*the deal*, and it depends only on the ``rng`` given to :meth:`Game.new_state` (a
match hands :meth:`Game.new_deal` the deal's seed, which makes that ``rng`` unless the
game draws from a hash of the seed itself) and on positions (seat, turn, round, hand,
the die's place in a roll), never on the decisions taken: the same seed gives the same dice to seat 0 in turn 5 whatever either bot did
before.  That is what lets a match replay one deal with the bots swapped
(``--duplicate``) and compare them on the same luck.  A game whose chance events follow
decisions (Yahtzee's rerolls, Liar's Dice rounds) draws them from streams keyed by
position, not from one sequence consumed in play order.

The wire format (building request lines, parsing replies) belongs to the game's module
in :mod:`protocol`, which the Python sample bots share; rules call into it.
"""

from __future__ import annotations

import abc
import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from referee.core.limits import Limits
from referee.core.verdict import ProtocolError, Verdict

#: The source tree's sample players, one folder per game (``sample_players/<game>/``): a
#: game's assets, which :attr:`Game.check_opponent` and :attr:`Game.random_player` name.
SAMPLE_PLAYERS = Path(__file__).resolve().parents[2] / "sample_players"


class DeadBot(enum.StrEnum):
    """What a match does with a bot whose process died (crash, CPU, memory)."""

    #: It loses every remaining game of the match (Yahtzee, per its seed). ``--recover``
    #: switches to RESTART.
    FORFEIT_MATCH = "forfeit-match"
    #: It is out of (or auto-penalised for the rest of) the current game, and restarted
    #: for the next one (Liar's Dice, Hold'em).
    RESTART = "restart"


class Lifetime(enum.StrEnum):
    """How long a bot's process lives in a tournament, from its seed."""

    #: Started for each match and closed after it (Yahtzee: "Your program will be
    #: restarted between matches"; Bidding Wars; Hold'em).
    MATCH = "match"
    #: One process for the whole tournament, playing all its matches (dice poker: "Init
    #: ... will be called only once at the very beginning of the tournament"; Liar's
    #: Dice: "Bot objects will persist from game to game in the tournament").
    TOURNAMENT = "tournament"


class Standing(enum.StrEnum):
    """What ranks bots in a tournament's standings, from the seed's goal."""

    #: Games won (a shared first place is half a win): Yahtzee, Bidding Wars, Liar's Dice.
    WINS = "wins"
    #: The total score, e.g. chips won: dice poker ("win as many chips as possible"), Hold'em.
    SCORE = "score"


@dataclass(frozen=True, slots=True)
class SeatCount:
    """How many seats a game takes — from ``low`` to ``high`` — and how many its seed
    seats at a table (``default``): declared once per game, read by the match, the CLI
    and ``referee check``."""

    low: int
    high: int
    default: int

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.default <= self.high:
            raise ValueError(f"seat counts need 1 <= low <= default <= high, got {self}")

    def __contains__(self, n: object) -> bool:
        return isinstance(n, int) and self.low <= n <= self.high

    def __str__(self) -> str:
        return f"{self.low}" if self.low == self.high else f"{self.low}-{self.high}"

    def wanted(self) -> str:
        """``"exactly 2"`` or ``"2 to 6"``, for messages."""
        return f"exactly {self.low}" if self.low == self.high else f"{self.low} to {self.high}"


@dataclass(frozen=True, slots=True)
class Option:
    """A game option, offered on the command line as ``--NAME`` (dashes for underscores)."""

    type: type
    default: Any
    help: str


@dataclass(frozen=True, slots=True)
class Event:
    """An information line for one seat, sent without a decision being due.

    ``expects_reply``: the seat's bot answers it with a line the referee reads and
    discards (dice poker's seed demands an answer to every call).
    """

    seat: int
    line: bytes
    expects_reply: bool = False


class GameState(abc.ABC):
    """One game in progress.  Seats are numbered 0..n-1 in turn order for this game."""

    @abc.abstractmethod
    def to_act(self) -> Sequence[int]:
        """Seats that must decide now: one, or several for a simultaneous move."""

    @abc.abstractmethod
    def request(self, seat: int) -> bytes:
        """The observation line sent to ``seat``, ending in ``b"\\n"``."""

    @abc.abstractmethod
    def decode(self, seat: int, reply: bytes) -> Any:
        """Parse a reply line (without its newline). Raise ``ProtocolError`` if it does not parse."""

    @abc.abstractmethod
    def illegal(self, seat: int, action: Any) -> str | None:
        """Why ``action`` is not allowed for ``seat`` now, or ``None`` when it is legal."""

    @abc.abstractmethod
    def apply(self, seat: int, action: Any) -> None:
        """Play a legal action."""

    def judge(self, seat: int, reply: bytes) -> tuple[Any, tuple[Verdict, str] | None]:
        """:meth:`decode` and :meth:`illegal`, nothing applied: ``(action, None)`` for a
        legal move, else ``(None, (verdict, why))`` with ``protocol`` or ``illegal`` —
        what a match records of a reply (a simultaneous step judges each reply so, and
        a person's seat asks it before answering)."""
        try:
            action = self.decode(seat, reply)
        except ProtocolError as exc:
            return None, (Verdict.PROTOCOL, str(exc))
        reason = self.illegal(seat, action)
        if reason is not None:
            return None, (Verdict.ILLEGAL, reason)
        return action, None

    def take(self, seat: int, reply: bytes) -> tuple[Verdict, str] | None:
        """:meth:`judge` and :meth:`apply` in one call, as a match plays a turn: None once
        the reply's action is applied, else the verdict and why, nothing applied.  A
        game may fuse them where its rules allow (Yahtzee parses the usual reply
        inline): it is called once a decision, millions of times a tournament."""
        action, failure = self.judge(seat, reply)
        if failure is None:
            self.apply(seat, action)
        return failure

    @abc.abstractmethod
    def penalize(self, seat: int, verdict: Verdict) -> None:
        """Apply the game's penalty for ``verdict`` in place of ``seat``'s decision.

        Called only while ``seat`` is in ``to_act()``: for a faulty reply, or because the
        seat's bot is no longer running — then ``verdict`` is the one that stopped it
        (``timeout`` for a bot stopped because it hung).
        A penalty that takes the seat out of the game must also take it out of
        ``to_act()`` for the rest of the game.  (A simultaneous step's penalties come
        in :meth:`apply_joint` instead.)
        """

    def apply_joint(self, actions: dict[int, Any], penalties: dict[int, Verdict]) -> None:
        """Play one simultaneous step at once (when ``to_act()`` has several seats).

        Every seat of ``to_act()`` is in exactly one of the two maps: ``actions`` holds
        the legal action it chose (checked with :meth:`illegal` against the state before
        the step), ``penalties`` the verdict it is penalised for instead (a faulty reply,
        or a bot that is not running).  Games without simultaneous moves never get this
        call.
        """
        raise NotImplementedError(f"{type(self).__name__} has no simultaneous moves")

    def drain_events(self) -> list[Event]:
        """Information lines due now, oldest first; the list is cleared."""
        return []

    @abc.abstractmethod
    def is_terminal(self) -> bool: ...

    @abc.abstractmethod
    def scores(self) -> list[float]:
        """Points per seat (the game's own measure: Yahtzee score, chips, dice...)."""

    @abc.abstractmethod
    def ranks(self) -> list[int]:
        """Placement per seat at the end: 1 is best, equal ranks are ties."""

    def summary(self) -> dict[str, Any]:
        """Game-specific facts for the log (final scorecards, cards dealt...)."""
        return {}

    def introduce(self, ids: Sequence[int]) -> None:
        """The stable ids of the bots in this game, by seat, before anything is sent.

        Called only for games that set :attr:`Game.tells_ids`: those whose bots are told
        who they play (dice poker's ``op``, Liar's Dice's player ids).  An id is a bot's
        position in the tournament's field, or in the match's lineup (0-based).
        """
        return None

    def name_seats(self, names: Sequence[str]) -> None:
        """The bots' names, by seat, before anything is sent.

        Called only for games that set :attr:`Game.tells_names` (Hold'em: the seed's
        ``name_of()``).  Names are the match's (``referee match``'s bot names).
        """
        return None

    def tallies(self) -> list[dict[str, float]]:
        """Per-seat counts a match adds up for each bot, e.g. Hold'em's hands won.

        Empty (the default) when the game has none beyond scores and ranks.
        """
        return []

    # ------------------------------------------------------------------ enumeration
    #
    # Not on the match path: the referee never calls these while it plays.  They serve
    # the generic random player (:mod:`referee.games.random_play`), the conformance tests
    # (tests/test_game_conformance.py) and the PettingZoo environments (:mod:`referee.envs`),
    # which wrap the rules above, never a copy of them.  Every game implements them all.
    #
    # Actions are *indexed*: each game numbers every action it can ever accept, in any
    # position and for any seat, ``0 .. action_count() - 1`` (an environment's
    # ``Discrete(action_count())`` with an action mask).  The numbering is the game's,
    # documented in its module; it depends on the game's options and seat count only.

    def legal_actions(self, seat: int) -> list[Any]:
        """Every action that :meth:`illegal` accepts from ``seat`` now, as :meth:`decode`
        returns them, in increasing :meth:`action_index`; empty when ``seat`` is not in
        ``to_act()``.

        The list is *complete*: an action (a decoded reply) is legal exactly when its
        index is among the list's.  Every game's set is finite: a reply that may be any
        integer (a card, a raise) is legal for finitely many values, all listed (a
        Hold'em raise lists every amount from the minimum to all-in).  Where two replies
        decode to equivalent moves with one index (a Hold'em showdown's five cards in
        another order), the list holds one of them.
        """
        raise NotImplementedError(f"{type(self).__name__} does not enumerate its actions")

    def encode(self, seat: int, action: Any) -> bytes:
        """The reply line (ending in ``b"\\n"``) a bot sends for ``action``, so that
        ``decode(seat, encode(seat, action)[:-1]) == action``."""
        raise NotImplementedError(f"{type(self).__name__} does not encode replies")

    def action_count(self) -> int:
        """How many indexed actions the game has: the same for every state of a game
        with the same options and seat count."""
        raise NotImplementedError(f"{type(self).__name__} does not index its actions")

    def action_index(self, seat: int, action: Any) -> int:
        """The index of ``action`` (a decoded reply of ``seat``) in ``range(action_count())``.

        Defined for every legal action; for another action it may raise :class:`ValueError`
        (an integer reply far outside the game's range has no index)."""
        raise NotImplementedError(f"{type(self).__name__} does not index its actions")

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """The lowest and highest value of each number of :meth:`observation`: two lists
        of one fixed length (the same for every state of the game), every low <= 0 <=
        high, so that all zeros (nothing seen yet) is within them."""
        raise NotImplementedError(f"{type(self).__name__} does not encode observations")

    def observation(self, line: bytes) -> list[float]:
        """A request line of this game (as :meth:`request` gives it to a seat) as a
        fixed-length list of numbers within :meth:`observation_bounds`.

        Made from the line alone, through the game's wire parser, so that it holds
        exactly what a bot in that seat is told by the request, nothing hidden.
        """
        raise NotImplementedError(f"{type(self).__name__} does not encode observations")


class Game(abc.ABC):
    """A game's definition: its name, seats, seed limits and how to start a game.

    Subclasses are found by :mod:`referee.games` automatically; adding a game means
    adding its rules module here, its wire module in :mod:`protocol`, its protocol page
    and its sample players, and nothing else (docs/architecture.md, "Adding a game"):
    what the rest of the referee needs of a game are the attributes below.
    """

    #: The name used on the command line (``--game NAME``).
    name: ClassVar[str]
    #: One line for ``referee match --help``.
    title: ClassVar[str]
    #: Allowed seat counts and the seed's table size.
    seats: ClassVar[SeatCount]
    #: The seed's limits.
    limits: ClassVar[Limits]
    #: Games in a match when ``--games`` is not given.
    default_games: ClassVar[int] = 1000
    dead_bot: ClassVar[DeadBot] = DeadBot.FORFEIT_MATCH
    #: How long a bot process lives in a tournament (its seed's rule).
    lifetime: ClassVar[Lifetime] = Lifetime.MATCH
    #: What ranks bots in a tournament (the seed's goal).
    standing: ClassVar[Standing] = Standing.WINS
    #: Whether bots are told the stable ids of who they play (:meth:`GameState.introduce`).
    tells_ids: ClassVar[bool] = False
    #: Whether bots are told the names of everyone at the table (:meth:`GameState.name_seats`).
    tells_names: ClassVar[bool] = False
    #: With ``dead_bot`` RESTART: a bot whose process died is restarted at its next turn
    #: within the same game (each request carries the whole state), rather than for the
    #: next game.  Bounded like every restart by the match's ``give_up_after``.
    restart_in_game: ClassVar[bool] = False
    #: Whether an information line (an :class:`Event`) may wait to reach a bot until the
    #: referee next writes to it: a process seat then writes them together, and the bot
    #: wakes once for both (a dice-poker deal: two round trips of four).  The bot reads
    #: the same lines in the same order; what changes is when: an answer it owes such a
    #: line is read with its next reply, and the time it takes over the line counts in
    #: that next decision's.  So only for games whose information lines need nothing
    #: back before the bot's next turn, and whose seed does not time them apart.
    hold_tells: ClassVar[bool] = False
    #: Options this game takes, by name; their values are in ``self.options``.
    option_specs: ClassVar[dict[str, Option]] = {}
    #: Other formats games can be written in (``referee match --export FORMAT=PATH``):
    #: name -> a factory called once per match, returning a writer that turns one game
    #: (its ``summary()`` and the seat names) into text appended to the file.
    exports: ClassVar[dict[str, Callable[[], Callable[[dict[str, Any], list[str]], str]]]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.option_specs))
        if unknown:
            raise ValueError(f"game {self.name} has no option {', '.join(unknown)}")
        self.options: dict[str, Any] = {name: spec.default for name, spec in self.option_specs.items()}
        for name, value in options.items():
            try:
                self.options[name] = self.option_specs[name].type(value)
            except (TypeError, ValueError):
                raise ValueError(
                    f"option {name}: {value!r} is not a {self.option_specs[name].type.__name__}"
                ) from None

    @abc.abstractmethod
    def new_state(self, seats: int, rng: random.Random) -> GameState:
        """A fresh game for ``seats`` players, drawing all randomness from ``rng``."""

    def new_deal(self, seats: int, seed: int) -> GameState:
        """The game dealt from a deal's seed (:func:`referee.core.seeding.deal_seed`, 64
        bits): what a match, a tournament and :mod:`referee.envs` play.  By default
        :meth:`new_state` drawing from ``random.Random(seed)``.  A game whose deal needs
        a few bits may take them from a hash of the seed instead (never the seed's own
        bits: the deal seeds of a match are SplitMix64 outputs of consecutive counters,
        and a bot's view of its deals must not lead to the next ones): seeding a
        Mersenne Twister costs ~3.5 µs, the most of a short deal (dice poker) after its
        round trips.  The same seed must give the same game."""
        return self.new_state(seats, random.Random(seed))

    def warm_up(self) -> None:
        """Do now what a process's first game would do once (fill lookup tables), so
        that a match can do it while its bots start rather than after.  Pure, and
        harmless to call again; by default nothing."""
        return None

    # ------------------------------------------------------------------ referee check
    #
    # ``referee check BOT --game NAME`` (referee/check/) plays a few games between a
    # student's bot and the game's reference player and judges every line of them.  A
    # game tells it three things; the defaults make the check play random games only.

    #: The reference player the check pits a bot against: a Python sample player, as its
    #: path under ``sample_players/`` with any arguments (``"yahtzee/random_player.py"``),
    #: run with the referee's own interpreter.  It must never fault: any legal play does.
    check_opponent: ClassVar[str | None] = None

    # ------------------------------------------------------------------ the rest of the referee
    #
    # What grading and the replays read of a game, so that a game is its module (plus
    # its wire module, its protocol page and its sample players): nothing else names it.

    #: The game's random legal player, as its path under ``sample_players/`` (as
    #: :attr:`check_opponent`): grading's ``random`` bot and its default qualification
    #: opponent (docs/grading.md).  ``None``: grading has no default opponent for it, and
    #: refuses to grade it.
    random_player: ClassVar[str | None] = None
    #: A key only this game's :meth:`GameState.summary` has: how ``referee replay`` tells a
    #: log's game from records that do not name it (``GameRecord.game_name``: logs written
    #: before records named their game).  ``None``: such a log needs ``--game``.
    summary_key: ClassVar[str | None] = None

    def line_kinds(self) -> tuple[str, ...]:
        """Every kind of line a bot of this game must handle (requests and information
        lines), named for the check's coverage item; empty when the game declares none.

        Kinds are what a bot could get wrong separately: Yahtzee's third roll (no
        rerolls left) and the joker; each decision point and information line of poker.
        """
        return ()

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        """The kinds (among :meth:`line_kinds`) of one line the referee sent a bot, with
        or without its newline.  A line may be of several kinds (a joker is also a roll)."""
        return ()

    def check_positions(self) -> list[CheckPosition]:
        """Positions the check poses besides its random games: states set up where random
        play rarely goes (a second Yahtzee, a side pot), so every kind of line is posed.

        Each is built with the game's own state class, deterministically, and is played
        by the check like any game of a match, from there to its end: the bot in its
        ``seat``, the reference player in the others.  Moves may already have been
        applied for either seat (the state's history shows them), which is why a
        position can reach an information line the bot's own play would not.
        """
        return []


@dataclass(frozen=True)
class CheckPosition:
    """One position ``referee check`` poses (see :meth:`Game.check_positions`)."""

    #: What it poses, as the checklist names it (e.g. ``"joker: upper box open"``).
    name: str
    #: The game from here on: a fresh state, played to its end.
    state: GameState
    #: How many seats the state has; the check plays it with that many players.
    seats: int = 2
    #: The seat of the bot under check.
    seat: int = 0
