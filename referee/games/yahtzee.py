"""Yahtzee rules (seed 004): two players, 13 rounds, Hasbro scoring with the forced joker.

Each round seat 0 plays a whole turn (roll, up to two rerolls, a placement), then seat 1.
Totals are the boxes plus the upper bonus (35 at >= 63) and 100 per extra Yahtzee when
the Yahtzee box holds 50.  Any penalty forfeits the game for the penalised seat.

This is the referee's hot path, so the state is kept in pre-computed form:

* the dice are one integer *code*, three bits per die (die ``k`` in bits ``3k..3k+2``),
  which indexes tables built at import time: the line fragment, the pattern scores of
  all 13 rows, whether they are five of a kind;
* a reroll keeps the held dice with a bit mask and ORs in one table entry, found by the
  next values of the turn's dice stream (below) for every rerolled die at once;
* each card's 14-int prefix of the position line is cached as bytes and rebuilt (one
  bytes ``%`` format) only when that card changes.

**The deal** (see :mod:`referee.games.base`): the dice depend only on the seed and on
positions, never on the rerolls chosen.  Each (seat, turn) has its own stream of 15 dice
values, drawn at the start of the game: the turn's first roll is its first 5 values, and
each reroll takes the next values of the same stream for the rerolled dice, in die order
(5 + at most 5 + 5).  So seat 0's first roll in turn 5 is the same whatever either bot
did before, and two bots rerolling the same dice at the same point of a turn get the
same faces.  The streams are one block of random bytes, made into dice by
``bytes.translate`` (rejection sampling at C speed: each byte below 252 gives two dice,
``b % 36`` in base 6; 252..255 are dropped), each stream kept as one 64-bit integer with
a value per 4 bits, so the hot path reads a roll with a mask and one table look-up.

The wire format and the reference (slow, simple) scoring live in :mod:`protocol.yahtzee`.
"""

from __future__ import annotations

import itertools
import random
import sys
from array import array
from collections.abc import Sequence
from typing import Any

from protocol import yahtzee as wire
from referee.core.limits import GiB, Limits
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Game, GameState, SeatCount

_YAHTZEE = wire.YAHTZEE
_BONUS = wire.BONUS
_PLACEMENTS = 2 * wire.NUM_ROWS

# ---------------------------------------------------------------- tables (filled on first use)

_NCODES = 1 << 15
_DICE: list[tuple[int, ...] | None] = [None] * _NCODES
# Codes that are no five dice (a 0 or a 7 in a place) keep the empty placeholders.
_SCORES: list[tuple[int, ...]] = [()] * _NCODES  # pattern scores of the 13 rows
_FACE: list[int] = [0] * _NCODES  # the face when five of a kind, else 0
# The line's tail "d1 d2 d3 d4 d5 roll\n", by roll number (index 0 unused) and dice code.
_LINE_TAIL: list[list[bytes]] = [[], *([b""] * _NCODES for _ in range(3))]


def _code(dice: Sequence[int]) -> int:
    return sum(d << (3 * k) for k, d in enumerate(dice))


# The dice streams: one per placement p (seat p % 2, turn p // 2), 16 values of 4 bits
# in one 64-bit int, lowest first (the 16th unused).  The first roll is the lowest five:
# ``_FIRST[s & _FIVE]`` is their dice code.  A reroll with hold mask m and u rerolled dice
# reads the next u values: with ``keep, take, scatter, shift = _REROLL[m]``,
# ``scatter[s & take]`` puts them in the rerolled dice's places (in die order), ``keep``
# keeps the held dice's bits, and the stream moves on by ``shift`` bits.  Every key and
# mask fits in 20 bits: the hot path's ints stay small.
_STREAMS = 2 * wire.NUM_ROWS
_FIVE = (1 << 20) - 1
#: A random byte to two dice values 1..6, one per nibble (low nibble first): bytes
#: 0..251 give ``b % 36`` as two base-6 digits, so both dice are uniform and independent;
#: 252..255 give 0, the mark of a rejected byte.
_BYTE_TO_DICE = bytes((b % 36 % 6 + 1) | (b % 36 // 6 + 1) << 4 if b < 252 else 0 for b in range(256))
_REROLL: list[tuple[int, int, dict[int, int], int]] = []  # by m: keep, take, scatter, shift
_FIRST: dict[int, int] = {}  # _REROLL[0]'s scatter: the first roll's five values to dice
_BIG_ENDIAN = sys.byteorder == "big"

#: The joker's fixed values by row (the wire module's table, as a tuple for the hot path).
_JOKER_FIXED = tuple(wire.JOKER_FIXED.get(row, 0) for row in range(wire.NUM_ROWS))
_JOKER_ROWS = frozenset(wire.JOKER_FIXED)
#: A card's 14 values as the position line's prefix, each followed by a space.
_CARD_FORMAT = b"%d " * (wire.NUM_ROWS + 1)
_TO_ACT = ((0,), (1,))


def _fill_tables() -> None:
    """Fill the tables above, in place: ~22 ms, paid by the first Yahtzee state of a
    process (:class:`YahtzeeState` calls it), not by every command that imports the game
    to list it."""
    # A row's score depends only on which faces were rolled, not their order: scored
    # once for each of the 252 sorted hands and shared by its orderings.
    by_hand: dict[tuple[int, ...], tuple[int, ...]] = {}
    roll_ends = (b"", b"1\n", b"2\n", b"3\n")
    for dice in itertools.product(range(1, 7), repeat=5):
        c = dice[0] | dice[1] << 3 | dice[2] << 6 | dice[3] << 9 | dice[4] << 12  # _code, inline
        _DICE[c] = dice
        hand = tuple(sorted(dice))
        row_scores = by_hand.get(hand)
        if row_scores is None:
            row_scores = by_hand[hand] = tuple(wire.combo_score(hand, row) for row in range(wire.NUM_ROWS))
        _SCORES[c] = row_scores
        _FACE[c] = dice[0] if dice.count(dice[0]) == 5 else 0
        prefix = b"%d %d %d %d %d " % dice
        for roll in (1, 2, 3):
            _LINE_TAIL[roll][c] = prefix + roll_ends[roll]
    rerolls = []
    for m in range(32):
        free = [k for k in range(5) if not m >> k & 1]
        # scatter: {sum(d_i << 4i): sum(d_i << 3 free[i])} over every faces d of the
        # rerolled dice, built a die at a time (each step adds one die's nibble and place).
        scatter = {0: 0}
        for i, k in enumerate(free):
            scatter = {
                key | d << (4 * i): value | d << (3 * k)
                for key, value in scatter.items()
                for d in range(1, 7)
            }
        rerolls.append(
            (
                sum(7 << (3 * k) for k in range(5) if m >> k & 1),
                (1 << (4 * len(free))) - 1,
                scatter,
                4 * len(free),
            )
        )
    _FIRST.update(rerolls[0][2])
    _REROLL[:] = rerolls  # last: an empty _REROLL means the tables are not filled yet


def _card_bytes(card: list[int]) -> bytes:
    return _CARD_FORMAT % tuple(card)


def _draw_dice(rng: random.Random) -> list[int]:
    """The game's dice: placement p's stream is ``words[p]``, 16 values of 4 bits."""
    need = 8 * _STREAMS
    pairs = rng.randbytes(need + 16).translate(_BYTE_TO_DICE).replace(b"\0", b"")
    while len(pairs) < need:  # 17 bytes or more rejected: rare, and drawn again
        pairs += rng.randbytes(need - len(pairs) + 8).translate(_BYTE_TO_DICE).replace(b"\0", b"")
    words = array("Q")
    words.frombytes(pairs[:need])
    if _BIG_ENDIAN:  # the same dice on every machine
        words.byteswap()
    return words.tolist()


# ---------------------------------------------------------------- state


class YahtzeeState(GameState):
    __slots__ = (
        "_cards",
        "_dice",
        "_enc",
        "_forfeit",
        "_over",
        "_placed",
        "_roll",
        "_seat",
        "_stream",
        "_words",
    )

    def __init__(self, rng: random.Random) -> None:
        if not _REROLL:
            _fill_tables()
        self._words = _draw_dice(rng)
        self._cards = [[-1] * wire.NUM_ROWS + [0], [-1] * wire.NUM_ROWS + [0]]
        self._enc = [_card_bytes(self._cards[0]), _card_bytes(self._cards[1])]
        self._seat = 0
        self._roll = 1
        self._placed = 0
        self._over = False
        self._forfeit: int | None = None
        s = self._words[0]
        self._dice = _FIRST[s & _FIVE]
        #: The current turn's stream, past the values already rolled.
        self._stream = s >> 20

    @classmethod
    def from_position(cls, line: bytes | str, rng: random.Random | None = None) -> YahtzeeState:
        """The state a position line describes, with its player as seat 0 to act.

        The opponent is seat 1.  Later dice come from streams drawn from ``rng`` (a fixed
        seed if None); this turn's rerolls from the stream of placement ``placements``.
        Used by tests and for replaying a logged position.
        """
        pos = wire.parse_position(line)
        for card in (pos.own, pos.opp):
            if any(v < -1 for v in card[: wire.NUM_ROWS]) or card[_BONUS] < 0 or card[_BONUS] % 100:
                raise ValueError(f"not a valid scorecard: {card}")
        state = cls(rng or random.Random(0))
        state._cards = [list(pos.own), list(pos.opp)]
        state._enc = [_card_bytes(state._cards[0]), _card_bytes(state._cards[1])]
        state._dice = _code(pos.dice)
        state._roll = pos.roll
        state._placed = sum(v != -1 for card in state._cards for v in card[: wire.NUM_ROWS])
        if state._cards[0][: wire.NUM_ROWS].count(-1) == 0:
            raise ValueError("the player to act has no open box")
        state._stream = state._words[state._placed] >> 20
        return state

    # -- the referee's per-decision calls (hot path) --

    def to_act(self) -> Sequence[int]:
        return () if self._over else _TO_ACT[self._seat]

    def request(self, seat: int) -> bytes:
        return self._enc[seat] + self._enc[seat ^ 1] + _LINE_TAIL[self._roll][self._dice]

    def decode(self, seat: int, reply: bytes) -> int:
        if reply.isdigit() and len(reply) <= 18:
            return int(reply)
        try:
            return wire.decode_action(reply)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None

    def take(self, seat: int, reply: bytes) -> tuple[Verdict, str] | None:
        # The usual reply (digits) parsed and judged here; anything else is the base
        # class's take, with decode's errors.  Its two last steps are repeated rather
        # than shared: a call more cost 0.1-0.2 us a decision (engine benchmark, 2026-11-28).
        if not (reply.isdigit() and len(reply) <= 18):
            return super().take(seat, reply)
        action = int(reply)
        reason = self.illegal(seat, action)
        if reason is not None:
            return Verdict.ILLEGAL, reason
        self.apply(seat, action)
        return None

    def illegal(self, seat: int, action: int) -> str | None:
        if self._over or seat != self._seat:
            return "It is not this player's turn"
        if action & 1:
            if not 0 < action < 64:
                return wire.BAD_HOLD
            if self._roll >= 3:
                return wire.NO_ROLLS_LEFT
            return None
        if not 0 <= action <= 24:
            return wire.BAD_ROW
        card = self._cards[seat]
        row = action >> 1
        if card[row] != -1:
            return wire.ROW_FULL
        face = _FACE[self._dice]
        if face and card[_YAHTZEE] != -1 and row != face - 1:
            if card[face - 1] == -1:
                return wire.JOKER_UPPER_OPEN
            if row < 6 and -1 in card[6:13]:
                return wire.JOKER_LOWER_FIRST
        return None

    def apply(self, seat: int, action: int) -> None:
        if action & 1:
            keep, take, scatter, shift = _REROLL[action >> 1]
            s = self._stream
            self._dice = (self._dice & keep) | scatter[s & take]
            self._stream = s >> shift
            self._roll += 1
            return
        row = action >> 1
        card = self._cards[seat]
        dice = self._dice
        points = _SCORES[dice][row]
        if _FACE[dice] and card[_YAHTZEE] != -1:  # the joker: extra Yahtzee
            if card[_YAHTZEE] == 50:
                card[_BONUS] += 100
            if row in _JOKER_ROWS:
                points = _JOKER_FIXED[row]
        card[row] = points
        self._enc[seat] = _card_bytes(card)
        self._placed += 1
        if self._placed >= _PLACEMENTS:
            self._over = True
            return
        self._seat = seat ^ 1
        self._roll = 1
        s = self._words[self._placed]
        self._dice = _FIRST[s & _FIVE]
        self._stream = s >> 20

    def penalize(self, seat: int, verdict: Verdict) -> None:
        """Any verdict forfeits the game: it ends now and the other seat wins."""
        if self._over:
            return
        self._over = True
        self._forfeit = seat

    # -- results --

    def is_terminal(self) -> bool:
        return self._over

    def scores(self) -> list[float]:
        return [float(wire.card_total(card)) for card in self._cards]

    def ranks(self) -> list[int]:
        if self._forfeit is not None:
            return [2, 1] if self._forfeit == 0 else [1, 2]
        a, b = (wire.card_total(card) for card in self._cards)
        return [1, 1] if a == b else [1, 2] if a > b else [2, 1]

    def summary(self) -> dict[str, Any]:
        return {
            "scorecards": [list(card) for card in self._cards],
            "totals": [wire.card_total(card) for card in self._cards],
            "upper_bonus": [wire.upper_bonus(card) for card in self._cards],
            "forfeited_by": self._forfeit,
        }

    # -- enumeration (random players, tests, referee.envs; never on the match path) --
    #
    # An action is its own index: 0..63 (even: place in row a/2, rows 0..12; odd: hold
    # the dice of mask a >> 1), so ``action_count()`` is 64 and 26..62 even are never legal.

    def legal_actions(self, seat: int) -> list[int]:
        """Holds (while rerolls are left) and the placements the joker rule allows,
        ascending: :func:`protocol.yahtzee.legal_actions`, the slow reference, so the
        conformance tests check the fast :meth:`illegal` against it."""
        if self._over or seat != self._seat:
            return []
        return wire.legal_actions(self._cards[seat], self.dice, self._roll)

    def encode(self, seat: int, action: int) -> bytes:
        return wire.encode_action(action)

    def action_count(self) -> int:
        return 64

    def action_index(self, seat: int, action: int) -> int:
        if not 0 <= action < 64:
            raise ValueError(f"action {action} has no index (actions are 0..63)")
        return action

    #: The most a box can hold (the joker's fixed values included), by row.
    _BOX_MAX = (5, 10, 15, 20, 25, 30, 30, 30, 25, 30, 40, 50, 30)

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """The request's 34 integers as they are: both cards (13 boxes, -1 when open,
        and the extra-Yahtzee points, up to 1200), the five dice and the roll number."""
        card_low = [-1.0] * wire.NUM_ROWS + [0.0]
        card_high = [float(v) for v in self._BOX_MAX] + [float(wire.YAHTZEE_BONUS * (wire.NUM_ROWS - 1))]
        return [*card_low, *card_low, *[0.0] * 6], [*card_high, *card_high, *[6.0] * 5, 3.0]

    def observation(self, line: bytes) -> list[float]:
        pos = wire.parse_position(line)
        return [float(v) for v in (*pos.own, *pos.opp, *pos.dice, pos.roll)]

    # -- inspection (tests, replays, logs) --

    @property
    def seat(self) -> int:
        """The seat whose turn it is."""
        return self._seat

    @property
    def roll(self) -> int:
        return self._roll

    @property
    def dice(self) -> tuple[int, ...]:
        dice = _DICE[self._dice]
        assert dice is not None
        return dice

    @property
    def placements(self) -> int:
        return self._placed

    def card(self, seat: int) -> tuple[int, ...]:
        return tuple(self._cards[seat])


class Yahtzee(Game):
    name = "yahtzee"
    title = "Yahtzee (seed 004): two players, 13 rounds, Hasbro scoring with the forced joker"
    seats = SeatCount(2, 2, default=2)
    #: The seed: 10 CPU minutes per 1000-game match, 2 GiB.  The wall limits are ours.
    limits = Limits(startup_s=60.0, decision_s=10.0, cpu_s=600.0, memory_bytes=2 * GiB)
    dead_bot = DeadBot.FORFEIT_MATCH

    def warm_up(self) -> None:
        if not _REROLL:
            _fill_tables()

    def new_state(self, seats: int, rng: random.Random) -> YahtzeeState:
        if seats not in self.seats:
            raise ValueError(f"yahtzee is played by 2 seats, not {seats}")
        return YahtzeeState(rng)

    # -- referee check (referee/check/) --

    #: Random legal play: it never faults, and it reaches every kind of position.
    check_opponent = "yahtzee/random_player.py"

    # -- grading and replays --

    #: Grading's ``random`` bot: uniformly random legal play.
    random_player = "yahtzee/random_player.py"
    #: Only this game's summaries have it.
    summary_key = "scorecards"

    #: The three ways the forced joker places five of a kind, as the check names them.
    JOKER_KINDS = ("joker: upper box open", "joker: lower box", "joker: zero in an upper box")

    def line_kinds(self) -> tuple[str, ...]:
        return ("roll 1", "roll 2", "roll 3", *self.JOKER_KINDS)

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        try:
            pos = wire.parse_position(line)
        except ValueError:
            return ()
        kinds = [f"roll {pos.roll}"]
        if wire.is_joker(pos.own, pos.dice):
            upper_open = pos.own[pos.dice[0] - 1] == wire.OPEN
            lower_open = wire.OPEN in pos.own[wire.THREE_KIND : wire.NUM_ROWS]
            kinds.append(self.JOKER_KINDS[0 if upper_open else 1 if lower_open else 2])
        return tuple(kinds)

    def check_positions(self) -> list[Any]:
        """The forced joker, one position per rule: the bot (seat 0) has five of a kind on
        its third roll, its Yahtzee box filled, and must (1) use the face's open upper
        box, (2) use a lower box since that upper box is full, or (3) put a 0 in an open
        upper box since the lower section is full.  Eleven boxes are filled on both
        cards, so each game is four placements long."""
        from referee.games.base import CheckPosition

        opponent = [2, 4, 6, 8, 10, 12, 17, 0, 25, 30, 0, -1, -1, 0]
        setups = [
            # five sixes; sixes and large straight open
            ([3, 6, 9, 12, 15, -1, 20, 0, 25, 30, -1, 50, 22, 0], 6),
            # five fours; fours filled, ones and full house open: a lower box it must be
            ([-1, 6, 9, 12, 15, 24, 20, 0, -1, 30, 40, 50, 22, 0], 4),
            # five threes; threes and the whole lower section filled (Yahtzee box 0)
            ([-1, -1, 9, 12, 15, 24, 20, 0, 25, 30, 40, 0, 22, 0], 3),
        ]
        positions = []
        for number, (card, face) in enumerate(setups):
            line = wire.encode_position(card, opponent, [face] * 5, 3)
            state = YahtzeeState.from_position(line, random.Random(number))
            positions.append(CheckPosition(self.JOKER_KINDS[number], state))
        # The second and third rolls come only to a bot that rerolls: pose them anyway,
        # so that a bot that never rerolls is still checked on them.
        fresh = [-1] * wire.NUM_ROWS + [0]
        for roll in (2, 3):
            line = wire.encode_position(fresh, fresh, [1, 2, 3, 5, 6], roll)
            positions.append(
                CheckPosition(f"roll {roll}", YahtzeeState.from_position(line, random.Random(roll)))
            )
        return positions
