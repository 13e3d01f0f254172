"""Dice poker rules (seed 000): one deal between two players, blinds 1 and 2, bet B.

A game of the match is one *deal*, in the seed's phases:

1. The first player (seat 0) bets 1 chip, the small blind; the second (seat 1) bets 2,
   the big blind.
2. B is drawn uniformly from 3..18 and announced to both; each player rolls one secret
   die.  (Both are drawn here at once, before anyone acts.)
3. The first player folds, "thereby losing the small blind", or raises to B.
4. If raised, the second player folds, "thereby losing the big blind", or calls.
5. On a call, the higher die wins B from the other; a tie moves nothing ("the pot is
   split so that nobody wins or loses anything").

Chips always sum to zero: :meth:`DicePokerState.scores` is ``[c, -c]`` with ``c`` one of
−1 (first folded), +2 (second folded), +B, 0, −B (showdown).

Who is told what (each line is the seed's ``AI`` call, see :mod:`protocol.dice_poker`):
the player to decide gets a request (state 0 or 1, with its own die); when a player
folds, only its opponent is told (state 2 or 3: "your opponent has folded"); at a
showdown both are told the opponent's die (state 4 to the first, 5 to the second).
Every line is answered, so information lines are :class:`Event` with
``expects_reply=True``; the referee reads those answers and discards them.

Penalties: any faulty reply (timeout, protocol) and every decision of a dead bot counts
as a fold by that seat, with the same information line to the opponent.

Who plays whom: each line carries ``op``, "the id of the current opponent".  The match
calls :meth:`DicePokerState.introduce` with the bots' stable ids by seat before the
deal starts, and from then on seat 0's lines carry ``op`` = the id of the bot in seat 1
and vice versa; a state that is never introduced sends ``op`` 0.

This is the referee's hot path (millions of deals per tournament), so every line the
game can send is built once — for ``op`` 0 at import time, for any other op the first
time a deal uses it — and a deal is a handful of small integers and table lookups.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from hashlib import blake2b as _blake2b
from typing import Any

from protocol import dice_poker as wire
from referee.core.limits import Limits, MiB
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Event, Game, GameState, Lifetime, SeatCount, Standing

# ---------------------------------------------------------------- phases and outcomes

#: Whose decision is due; the value is also the seat to act.
FIRST_TO_ACT = 0
SECOND_TO_ACT = 1
OVER = 2

#: How a finished deal ended (for the log and the tests).
FIRST_FOLDED = "first folded"
SECOND_FOLDED = "second folded"
SHOWDOWN = "showdown"

_ACTORS: tuple[tuple[int, ...], ...] = ((0,), (1,), ())

NOT_YOUR_TURN = "It is not this player's turn"

# ---------------------------------------------------------------- import-time tables

_BETS = range(wire.BET_MIN, wire.BET_MAX + 1)


#: Fills the tables' slots no deal reaches (B below 3, die 0), keeping them typed.
_UNUSED = Event(-1, b"", True)


class _SeatLines:
    """Every line one seat can be sent in a deal, carrying one ``op``: built once per
    (op, seat), so that sending a line is a lookup, never string formatting.  Indexed
    by B and the die directly.

    ``seat`` 0 is the first player (even states), 1 the second (odd states).
    """

    __slots__ = ("folded", "request", "showdown")

    def __init__(self, op: int, seat: int) -> None:
        size = wire.BET_MAX + 1
        #: ``request[b][die]``: the decision request (state 0 or 1: the seat), own die.
        self.request: list[list[bytes]] = [[b""] * 7 for _ in range(size)]
        #: ``folded[b]``: the event "your opponent has folded" (state 2 or 3), d = 0.
        self.folded: list[Event] = [_UNUSED] * size
        #: ``showdown[b][die]``: the showdown event (state 4 or 5), the opponent's die.
        self.showdown: list[list[Event]] = [[_UNUSED] * 7 for _ in range(size)]
        for b in _BETS:
            line = wire.encode_message(op, b, wire.FIRST_OPPONENT_FOLDED + seat, 0)
            self.folded[b] = Event(seat, line, True)
            for die in range(1, 7):
                self.request[b][die] = wire.encode_message(op, b, wire.FIRST_DECIDES + seat, die)
                line = wire.encode_message(op, b, wire.FIRST_SHOWDOWN + seat, die)
                self.showdown[b][die] = Event(seat, line, True)


#: ``_LINES_BY_OP[op]``: both seats' lines carrying ``op``, built on first use (~0.3 ms)
#: and kept: a process sees at most one op per bot of its field, ~40 KiB each.
_LINES_BY_OP: dict[int, tuple[_SeatLines, _SeatLines]] = {}


def _lines_for(op: int) -> tuple[_SeatLines, _SeatLines]:
    """Both seats' lines carrying ``op`` (cached: a deal only looks them up)."""
    lines = _LINES_BY_OP.get(op)
    if lines is None:
        if not isinstance(op, int) or op < 0:
            raise ValueError(f"a bot id must be an integer >= 0, got {op!r}")
        lines = _LINES_BY_OP[op] = (_SeatLines(op, 0), _SeatLines(op, 1))
    return lines


#: The lines of a deal whose bots were not introduced: ``op`` is ``wire.OPPONENT_ID``.
_UNINTRODUCED = _lines_for(wire.OPPONENT_ID)

#: ``_SHOWDOWN_CHIPS[b][6 * (d0 - 1) + d1 - 1]``: chips the first player wins at showdown.
_SHOWDOWN_CHIPS: list[list[int]] = [[] for _ in range(wire.BET_MAX + 1)]
for _b in _BETS:
    for _d0 in range(1, 7):
        for _d1 in range(1, 7):
            _SHOWDOWN_CHIPS[_b].append(_b if _d0 > _d1 else -_b if _d0 < _d1 else 0)

# One draw deals B and both dice: 16 bets x 36 dice pairs = 576 equally likely deals.
# getrandbits(16) is rejected at or above 65088 = 576 * 113 (under 1% of draws); below
# it, the low 4 bits are uniform on the 16 bets and the rest uniform on the 36 pairs.
_DEAL_BITS = 16
_DEAL_LIMIT = (1 << _DEAL_BITS) // 576 * 576

del _b, _d0, _d1


def deal(rng: random.Random) -> tuple[int, int, int]:
    """Draw one deal, ``(b, die of seat 0, die of seat 1)``, all uniform and independent."""
    r = rng.getrandbits(_DEAL_BITS)
    while r >= _DEAL_LIMIT:
        r = rng.getrandbits(_DEAL_BITS)
    return _dealt(r)


def deal_of_seed(seed: int) -> tuple[int, int, int]:
    """The deal of a 64-bit deal seed (:func:`referee.core.seeding.deal_seed`), as
    :func:`deal` draws it but from a BLAKE2b of the seed: its four 16-bit words in turn,
    the first under the limit deals; when all four are over (p = (448/65536)**4 ≈
    2.2e-9) a generator seeded with the seed deals.  Hashed, not the seed's own bits:
    the deal seeds are SplitMix64 outputs of consecutive counters, and a bot that sees
    its deals must learn nothing of the next ones.  ~0.6 µs, against ~3.5 µs to seed a
    Mersenne Twister — most of the ~12 µs a deal cost the referee beside its round trips."""
    words = int.from_bytes(_blake2b(seed.to_bytes(8, "little"), digest_size=8).digest(), "little")
    r = words & 0xFFFF
    if r < _DEAL_LIMIT:  # 99.3 % of deals: _deal_of_words' first step, without the call
        return _dealt(r)
    return _deal_of_words(words) or deal(random.Random(seed))


def _deal_of_words(words: int) -> tuple[int, int, int] | None:
    """The deal of the first of the four 16-bit words of ``words`` under the limit, or
    None if none is."""
    for shift in (0, 16, 32, 48):
        r = (words >> shift) & 0xFFFF
        if r < _DEAL_LIMIT:
            return _dealt(r)
    return None


def _dealt(r: int) -> tuple[int, int, int]:
    pair = (r >> 4) % 36
    return wire.BET_MIN + (r & 15), pair // 6 + 1, pair % 6 + 1


def showdown_chips(b: int, first_die: int, second_die: int) -> int:
    """Chips the first player wins on a call: +B with the higher die, −B with the lower, 0 on a tie."""
    return _SHOWDOWN_CHIPS[b][6 * (first_die - 1) + second_die - 1]


# ---------------------------------------------------------------- state


class DicePokerState(GameState):
    """One deal.  Seat 0 is the first player (small blind), seat 1 the second (big blind)."""

    __slots__ = ("_b", "_chips", "_dice", "_ended", "_events", "_lines", "_penalty", "_phase")

    def __init__(self, b: int, first_die: int, second_die: int) -> None:
        if not wire.BET_MIN <= b <= wire.BET_MAX:
            raise ValueError(f"B must be {wire.BET_MIN}..{wire.BET_MAX}, got {b}")
        if not (1 <= first_die <= 6 and 1 <= second_die <= 6):
            raise ValueError(f"dice must be 1..6, got {first_die} and {second_die}")
        self._b = b
        self._dice = (first_die, second_die)
        self._phase = FIRST_TO_ACT
        #: Chips won by seat 0 (seat 1 wins the opposite); settled when the deal ends.
        self._chips = 0
        #: Information lines due, built when the deal ends; drained by the referee.
        self._events: list[Event] = []
        self._ended: str | None = None
        #: ``(seat, verdict)`` when a fold was a penalty.
        self._penalty: tuple[int, str] | None = None
        #: Each seat's lines, carrying its opponent's id as ``op`` (see introduce).
        self._lines = _UNINTRODUCED

    def introduce(self, ids: Sequence[int]) -> None:
        """Put the opponent's stable id in every line each seat is sent from now on:
        ``op`` = ``ids[1]`` for seat 0, ``ids[0]`` for seat 1 (seed 000: "op: the id of
        the current opponent").  Without it, every line carries ``op`` 0."""
        first, second = ids  # exactly two seats
        try:  # per deal: two lookups, no call
            self._lines = (_LINES_BY_OP[second][0], _LINES_BY_OP[first][1])
        except KeyError:  # an op not seen before: build its lines once
            self._lines = (_lines_for(second)[0], _lines_for(first)[1])

    # -- the referee's per-decision calls (hot path) --

    def to_act(self) -> Sequence[int]:
        return _ACTORS[self._phase]

    def request(self, seat: int) -> bytes:
        return self._lines[seat].request[self._b][self._dice[seat]]

    def decode(self, seat: int, reply: bytes) -> int:
        # Nearly every bot answers exactly "0" or "1".
        if reply == b"1":
            return wire.RAISE
        if reply == b"0":
            return wire.FOLD
        try:
            return wire.decode_reply(reply)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None

    def take(self, seat: int, reply: bytes) -> tuple[Verdict, str] | None:
        # The usual reply, "1" (raise or call) from the seat to act, applied here: two
        # decisions a deal, millions of deals a tournament.  Anything else is the base
        # class's take (decode, illegal, apply).
        if reply == b"1" and seat == self._phase:
            if seat == FIRST_TO_ACT:
                self._phase = SECOND_TO_ACT
            else:
                self._showdown()
            return None
        return super().take(seat, reply)

    def illegal(self, seat: int, action: int) -> str | None:
        # Every integer is a decision (zero folds, anything else raises or calls), so
        # the only illegal thing is acting out of turn.
        return None if seat == self._phase else NOT_YOUR_TURN

    def apply(self, seat: int, action: int) -> None:
        """Fold on 0; raise (first player) or call (second player) on any other integer."""
        if not action:
            self._fold(seat)
        elif self._phase == FIRST_TO_ACT:
            self._phase = SECOND_TO_ACT
        else:  # the second player calls
            self._showdown()

    def _showdown(self) -> None:
        """The second player called: the higher die wins B, and each is told "what your
        opponent has rolled", the first player first."""
        b, (d0, d1), (first, second) = self._b, self._dice, self._lines
        self._chips = _SHOWDOWN_CHIPS[b][6 * d0 + d1 - 7]
        self._events = [first.showdown[b][d1], second.showdown[b][d0]]
        self._ended = SHOWDOWN
        self._phase = OVER

    def _fold(self, seat: int) -> None:
        """The seat to act folds and loses its blind; only its opponent is told."""
        if seat == 0:
            self._chips = -wire.SMALL_BLIND
            self._events = [self._lines[1].folded[self._b]]
            self._ended = FIRST_FOLDED
        else:
            self._chips = wire.BIG_BLIND
            self._events = [self._lines[0].folded[self._b]]
            self._ended = SECOND_FOLDED
        self._phase = OVER

    def penalize(self, seat: int, verdict: Verdict) -> None:
        """Any verdict (timeout, protocol, a dead bot...) counts as a fold by ``seat``."""
        if self._phase != seat:
            return  # not this seat's decision: nothing to penalise
        self._penalty = (seat, str(verdict))
        self._fold(seat)

    def drain_events(self) -> list[Event]:
        events = self._events
        if not events:
            return []
        self._events = []  # a fresh list: the one handed out is the caller's
        return events

    # -- results --

    def is_terminal(self) -> bool:
        return self._phase == OVER

    def scores(self) -> list[float]:
        """Chips won by each seat this deal, e.g. ``[-1.0, 1.0]`` when the first player folds."""
        return [float(self._chips), float(-self._chips)]

    def ranks(self) -> list[int]:
        chips = self._chips
        return [1, 2] if chips > 0 else [2, 1] if chips < 0 else [1, 1]

    def summary(self) -> dict[str, Any]:
        facts: dict[str, Any] = {"b": self._b, "dice": list(self._dice), "ended": self._ended}
        if self._penalty is not None:
            facts["penalty"] = list(self._penalty)
        return facts

    # -- enumeration (random players, tests, referee.envs; never on the match path) --

    def legal_actions(self, seat: int) -> list[int]:
        """Index 0 folds, index 1 raises (first player) or calls (second player): the two
        decoded replies, :data:`~protocol.dice_poker.FOLD` and ``RAISE``."""
        return [wire.FOLD, wire.RAISE] if seat == self._phase else []

    def encode(self, seat: int, action: int) -> bytes:
        return wire.encode_reply(action)

    def action_count(self) -> int:
        return 2

    def action_index(self, seat: int, action: int) -> int:
        return 1 if action else 0

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """``[B, state, own die]`` of the request ``op b state d`` (``op`` is left out:
        the opponent's id is not a fact of the deal)."""
        return [0.0, 0.0, 0.0], [float(wire.BET_MAX), 1.0, 6.0]

    def observation(self, line: bytes) -> list[float]:
        message = wire.parse_message(line)
        return [float(message.b), float(message.state), float(message.d)]

    # -- inspection (tests, replays) --

    @property
    def b(self) -> int:
        return self._b

    @property
    def dice(self) -> tuple[int, int]:
        return self._dice

    @property
    def phase(self) -> int:
        """FIRST_TO_ACT, SECOND_TO_ACT or OVER."""
        return self._phase

    @property
    def ended(self) -> str | None:
        """FIRST_FOLDED, SECOND_FOLDED or SHOWDOWN once the deal is over."""
        return self._ended

    @property
    def chips(self) -> int:
        """Chips won by seat 0 (seat 1 won the opposite)."""
        return self._chips


class DicePoker(Game):
    name = "dice-poker"
    title = "Dice poker (seed 000): one deal per game, blinds 1/2, raise to B in 3..18, a secret die each"
    seats = SeatCount(2, 2, default=2)
    #: The seed: "no more than 64 MB of memory", "the initialization function runs within
    #: 10 minutes" (the first answer may come that late).  The seed's 1 µs mean per call
    #: is for in-process play and "not hard": reported per bot, not enforced (no CPU
    #: budget).  The 1 s per answer is ours: a million times the seed's mean, far above
    #: any scheduling hiccup, and it bounds how long a hung bot can stall a match.
    limits = Limits(startup_s=600.0, decision_s=1.0, cpu_s=None, memory_bytes=64 * MiB)
    dead_bot = DeadBot.FORFEIT_MATCH
    #: "Init ... will be called only once at the very beginning of the tournament" (seed 000).
    lifetime = Lifetime.TOURNAMENT
    #: "trying to win as many chips as possible".
    standing = Standing.SCORE
    #: "op: the id of the current opponent" (seed 000), so that a bot can model it.
    tells_ids = True
    # The fold and showdown lines are the seed's AI calls "to inform you what the
    # opponent has rolled", whose return value "is irrelevant": each goes out with the
    # bot's next request (one wake-up of the bot fewer a line), or at the match's end.
    hold_tells = True

    def new_state(self, seats: int, rng: random.Random) -> DicePokerState:
        self._check_seats(seats)
        return DicePokerState(*deal(rng))

    def new_deal(self, seats: int, seed: int) -> DicePokerState:
        if seats != 2:  # per deal: one comparison, not the seat count's check
            self._check_seats(seats)
        return DicePokerState(*deal_of_seed(seed))

    def _check_seats(self, seats: int) -> None:
        if seats not in self.seats:
            raise ValueError(f"dice-poker is played by 2 seats, not {seats}")

    # -- referee check (referee/check/) --

    #: Raises and calls with a die of 4 or more: both seats' choices come up in a few deals.
    check_opponent = "dice_poker/threshold.py"

    # -- grading and replays --

    #: Grading's ``random`` bot: uniformly random legal play.
    random_player = "dice_poker/random_player.py"
    #: Only this game's summaries have it.
    summary_key = "b"

    #: The check's name for each ``state`` of a line (the seed's six).
    LINE_KINDS = (
        "first player decides",
        "second player decides",
        "opponent folded (to the first player)",
        "opponent folded (to the second player)",
        "showdown (to the first player)",
        "showdown (to the second player)",
    )

    def line_kinds(self) -> tuple[str, ...]:
        return self.LINE_KINDS

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        try:
            return (self.LINE_KINDS[wire.parse_message(line).state],)
        except ValueError:
            return ()

    def check_positions(self) -> list[Any]:
        """Each of the six lines once, whatever the bot plays: both decisions (the second
        after a raise), and each information line with the deal's decisions already made,
        so that a bot that always folds still answers them."""
        from referee.games.base import CheckPosition

        def deal(b: int, first_die: int, second_die: int, *actions: int) -> DicePokerState:
            state = DicePokerState(b, first_die, second_die)
            for seat, action in enumerate(actions):
                state.apply(seat, action)
            return state

        raise_, fold, call = wire.RAISE, wire.FOLD, wire.RAISE
        return [
            CheckPosition(self.LINE_KINDS[0], deal(5, 2, 4), seat=0),
            CheckPosition(self.LINE_KINDS[1], deal(9, 5, 3, raise_), seat=1),
            CheckPosition(self.LINE_KINDS[2], deal(12, 4, 2, raise_, fold), seat=0),
            CheckPosition(self.LINE_KINDS[3], deal(7, 2, 6, fold), seat=1),
            CheckPosition(self.LINE_KINDS[4], deal(15, 6, 1, raise_, call), seat=0),
            CheckPosition(self.LINE_KINDS[5], deal(4, 3, 3, raise_, call), seat=1),
        ]
