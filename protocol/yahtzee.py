"""Yahtzee wire format (seed 004), shared by the referee and Python bots.  Stdlib only.

The referee sends one *position* per decision: 34 single-space-separated integers and
a line feed::

    own card (14)  opponent card (14)  dice (5)  roll (1)

A card is the 13 boxes in :data:`ROW_NAMES` order (``-1`` = open) followed by the
points earned for extra Yahtzees (multiples of 100).  The bot answers one integer,
the *action*:

* even: ``row << 1`` places the dice in ``row`` (0..12);
* odd: ``mask << 1 | 1`` holds die ``k`` (the ``29+k``-th integer) when bit ``k`` of
  ``mask`` is set and rerolls the others; only allowed before the third roll.

Besides the wire format this module has small, plain helpers for bots (scoring with
the forced joker rule, legal actions).  The referee's rules module keeps its own fast
tables built from :func:`combo_score`; the tests check that both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from protocol.lines import decode_integer

__all__ = [
    "BONUS",
    "CARD_LEN",
    "CHANCE",
    "FOUR_KIND",
    "FULL_HOUSE",
    "LARGE_STRAIGHT",
    "NUM_ROWS",
    "OPEN",
    "POSITION_INTS",
    "ROW_NAMES",
    "SMALL_STRAIGHT",
    "THREE_KIND",
    "YAHTZEE",
    "Position",
    "card_total",
    "combo_score",
    "decode_action",
    "encode_action",
    "encode_position",
    "hold",
    "illegal_reason",
    "is_joker",
    "legal_actions",
    "parse_position",
    "place",
    "score_box",
    "upper_bonus",
    "yahtzee_bonus",
]

ROW_NAMES = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three of a kind",
    "four of a kind",
    "full house",
    "small straight",
    "large straight",
    "yahtzee",
    "chance",
)
NUM_ROWS = 13
THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, YAHTZEE, CHANCE = range(6, 13)
#: Index of the extra-Yahtzee bonus points in a 14-int card.
BONUS = 13
CARD_LEN = 14
POSITION_INTS = 34
#: The value of an unfilled box.
OPEN = -1
UPPER_BONUS = 35
UPPER_BONUS_AT = 63
YAHTZEE_BONUS = 100
#: Fixed values of the boxes the joker rule fills regardless of the dice pattern.
JOKER_FIXED = {FULL_HOUSE: 25, SMALL_STRAIGHT: 30, LARGE_STRAIGHT: 40}

# The seed appendix's wording for illegal actions.
NO_ROLLS_LEFT = "There are no rolls left"
BAD_HOLD = "Only the first five dice are available for holding"
BAD_ROW = "Invalid row for placement"
ROW_FULL = "This row is already full"
JOKER_UPPER_OPEN = "Under the joker rules, if the appropriate upper section row is empty, it must be used"
JOKER_LOWER_FIRST = (
    "Under the joker rules, if the appropriate upper section row is full, "
    "the lower section must be used unless the whole lower section is filled"
)


class Position(NamedTuple):
    """A parsed position: both 14-int cards, the five dice and the roll number (1..3)."""

    own: tuple[int, ...]
    opp: tuple[int, ...]
    dice: tuple[int, ...]
    roll: int


# --------------------------------------------------------------------------- wire format


def encode_position(own: Sequence[int], opp: Sequence[int], dice: Sequence[int], roll: int) -> bytes:
    """The position line (with its ``\\n``) for the player whose card is ``own``."""
    if len(own) != CARD_LEN or len(opp) != CARD_LEN or len(dice) != 5:
        raise ValueError("a position needs two 14-int cards and five dice")
    return (" ".join(map(str, (*own, *opp, *dice, roll))) + "\n").encode("ascii")


def parse_position(line: bytes | str) -> Position:
    """Parse a position line (trailing newline optional); :class:`ValueError` if malformed."""
    if isinstance(line, bytes):
        line = line.decode("ascii")
    fields = line.split()
    if len(fields) != POSITION_INTS:
        raise ValueError(f"a position has {POSITION_INTS} integers, got {len(fields)}")
    ints = [int(f) for f in fields]
    dice = tuple(ints[28:33])
    roll = ints[33]
    if not all(1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be 1..6, got {dice}")
    if not 1 <= roll <= 3:
        raise ValueError(f"the roll number must be 1..3, got {roll}")
    return Position(tuple(ints[0:14]), tuple(ints[14:28]), dice, roll)


def encode_action(action: int) -> bytes:
    """The reply line for ``action``."""
    return b"%d\n" % action


def place(row: int) -> int:
    """The action placing the dice in ``row``."""
    return row << 1


def hold(mask: int) -> int:
    """The action holding the dice whose bits are set in ``mask`` (bit k = die k)."""
    return mask << 1 | 1


def decode_action(line: bytes | str) -> int:
    """Parse a reply line (without its ``\\n``) into an integer action.

    Grammar: optional spaces/tabs, an optional ``-``, one or more ASCII digits, optional
    spaces/tabs, an optional final ``\\r``.  Anything else raises :class:`ValueError`
    with a readable reason.  A number that parses is returned however large it is; the
    rules then judge it (any integer outside 0..63 is illegal, not malformed).
    """
    return decode_integer(line, "an action (an integer 0..63)")


# --------------------------------------------------------------------------- scoring


def combo_score(dice: Sequence[int], row: int) -> int:
    """Points ``dice`` score in ``row`` by the pattern alone, without the joker rule."""
    if row < 6:
        face = row + 1
        return face * sum(1 for d in dice if d == face)
    counts = sorted((sum(1 for d in dice if d == f) for f in range(1, 7)), reverse=True)
    total = sum(dice)
    faces = set(dice)
    if row == THREE_KIND:
        return total if counts[0] >= 3 else 0
    if row == FOUR_KIND:
        return total if counts[0] >= 4 else 0
    if row == FULL_HOUSE:
        return 25 if counts[0] == 3 and counts[1] == 2 else 0
    if row == SMALL_STRAIGHT:
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 30 if any(run <= faces for run in runs) else 0
    if row == LARGE_STRAIGHT:
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if row == YAHTZEE:
        return 50 if counts[0] == 5 else 0
    if row == CHANCE:
        return total
    raise ValueError(f"no row {row}")


def is_joker(card: Sequence[int], dice: Sequence[int]) -> bool:
    """Whether the forced joker rule applies: five of a kind with the Yahtzee box filled."""
    return card[YAHTZEE] != OPEN and dice.count(dice[0]) == 5


def score_box(dice: Sequence[int], row: int, card: Sequence[int]) -> int:
    """The points written in ``row`` when the dice are placed there (joker rule honoured).

    The extra-Yahtzee bonus a placement may also earn is :func:`yahtzee_bonus`.
    """
    if row in JOKER_FIXED and is_joker(card, dice):
        return JOKER_FIXED[row]
    return combo_score(dice, row)


def yahtzee_bonus(card: Sequence[int], dice: Sequence[int]) -> int:
    """Bonus points any placement of ``dice`` adds to the card's 14th entry (0 or 100)."""
    return YAHTZEE_BONUS if card[YAHTZEE] == 50 and dice.count(dice[0]) == 5 else 0


def upper_bonus(card: Sequence[int]) -> int:
    """35 when the six upper boxes add up to at least 63, else 0."""
    return UPPER_BONUS if sum(v for v in card[:6] if v > 0) >= UPPER_BONUS_AT else 0


def card_total(card: Sequence[int]) -> int:
    """A card's total score: filled boxes, the upper bonus and the extra-Yahtzee bonus."""
    return sum(v for v in card[:NUM_ROWS] if v > 0) + upper_bonus(card) + card[BONUS]


# --------------------------------------------------------------------------- legality


def illegal_reason(card: Sequence[int], dice: Sequence[int], roll: int, action: int) -> str | None:
    """Why ``action`` is illegal for the player with ``card`` (the seed's words), or None.

    The action's form is judged before the state: an out-of-range hold or row is
    reported as such even when no rolls are left or the row is full.
    """
    if action & 1:
        if not 1 <= action <= 63:
            return BAD_HOLD
        if roll >= 3:
            return NO_ROLLS_LEFT
        return None
    row = action >> 1
    if not 0 <= row < NUM_ROWS:
        return BAD_ROW
    if card[row] != OPEN:
        return ROW_FULL
    if is_joker(card, dice):
        upper = dice[0] - 1
        if row != upper:
            if card[upper] == OPEN:
                return JOKER_UPPER_OPEN
            if row < 6 and any(card[r] == OPEN for r in range(6, NUM_ROWS)):
                return JOKER_LOWER_FIRST
    return None


def legal_actions(card: Sequence[int], dice: Sequence[int], roll: int) -> list[int]:
    """Every legal action, ascending: holds (if rolls are left) and allowed placements."""
    return [a for a in range(64) if illegal_reason(card, dice, roll, a) is None]
