"""Dice poker wire format (seed 000), shared by the referee and Python bots.  Stdlib only.

The seed's tournament calls ``AI(op, b, state, d)`` and uses the integer it returns.
Here each call is one line from the referee: those four integers, single-space
separated, and a line feed::

    op b state d

* ``op``: the stable id of the current opponent ("op: the id of the current
  opponent"), so that a bot can model each opponent, as the seed encourages ("a
  strategy that varies its behavior in response to the behavior of the opponent").
  The id is the opponent's position in the tournament's field, or in a plain
  ``referee match`` its position on the command line (0-based): in a match of bots A
  and B, A always reads ``op`` 1 and B reads 0, whichever seat they have.  It stays
  the same from deal to deal and match to match, so a bot can key per-opponent
  tables by it; a bot that does not model opponents ignores it.
* ``b``: the deal's bet B, 3..18.
* ``state``, with the seed's meaning: even = you are the first player (small blind),
  odd = you are the second player (big blind), and

  - ``0``/``1``: you are to decide; ``d`` is your own die (1..6);
  - ``2``/``3``: your opponent has folded; ``d`` is 0;
  - ``4``/``5``: the game has come to a showdown; ``d`` is your opponent's die (1..6).

* ``d``: as above.

A *request* (``state`` 0 or 1) and an *information line* (``state`` 2..5) have the same
form; the third integer tells them apart.  The bot answers **every** line with one
integer line, as the seed demands ("DO return a value even in this case"): for a
request, ``0`` folds and any non-zero integer raises to B (first player) or calls
(second player); the answer to an information line is read and ignored.

Reply grammar: optional spaces/tabs, an optional ``-``, one or more ASCII digits,
optional spaces/tabs, an optional final ``\\r``.  The integer may be of any size; only
whether it is zero matters.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.lines import integer_token

__all__ = [
    "BET_MAX",
    "BET_MIN",
    "BIG_BLIND",
    "FIRST_DECIDES",
    "FIRST_OPPONENT_FOLDED",
    "FIRST_SHOWDOWN",
    "FOLD",
    "OPPONENT_ID",
    "RAISE",
    "SECOND_DECIDES",
    "SECOND_OPPONENT_FOLDED",
    "SECOND_SHOWDOWN",
    "SMALL_BLIND",
    "Message",
    "decode_reply",
    "encode_message",
    "encode_reply",
    "parse_message",
]

#: The ``op`` of a game whose bots were not introduced (``GameState.introduce``
#: was not called, e.g. a state built directly in a test or by ``referee check``'s
#: prepared positions).  In a match each line carries the opponent's stable id instead.
OPPONENT_ID = 0
#: B is drawn uniformly from BET_MIN..BET_MAX ("a random integer B from the interval [3..18]").
BET_MIN = 3
BET_MAX = 18
#: What folding costs the first and the second player.
SMALL_BLIND = 1
BIG_BLIND = 2

# The seed's ``state`` values.  Even: first player (small blind); odd: second (big blind).
FIRST_DECIDES = 0
SECOND_DECIDES = 1
FIRST_OPPONENT_FOLDED = 2
SECOND_OPPONENT_FOLDED = 3
FIRST_SHOWDOWN = 4
SECOND_SHOWDOWN = 5

#: Decisions as the referee reads them: zero folds; non-zero raises to B (first player)
#: or calls (second player).  ``RAISE`` is the canonical non-zero answer.
FOLD = 0
RAISE = 1


class Message(NamedTuple):
    """One parsed line from the referee: the seed's four ``AI`` arguments."""

    op: int
    b: int
    state: int
    d: int

    @property
    def is_request(self) -> bool:
        """Whether a decision is due (state 0 or 1); otherwise it is information."""
        return self.state < 2

    @property
    def is_first(self) -> bool:
        """Whether the reader is the first player (small blind) of this deal."""
        return self.state % 2 == 0


# --------------------------------------------------------------------------- referee → bot


def encode_message(op: int, b: int, state: int, d: int) -> bytes:
    """The line (with its ``\\n``) for one call of the seed's ``AI(op, b, state, d)``."""
    return b"%d %d %d %d\n" % (op, b, state, d)


def parse_message(line: bytes | str) -> Message:
    """Parse a line from the referee (trailing newline optional); :class:`ValueError` if malformed.

    Checks the ranges too: B in 3..18, state in 0..5, ``d`` a die (1..6) for states
    0, 1, 4, 5 and 0 for states 2, 3.
    """
    if isinstance(line, bytes):
        line = line.decode("ascii")
    fields = line.split()
    if len(fields) != 4:
        raise ValueError(f"a message has 4 integers (op b state d), got {len(fields)}")
    op, b, state, d = (int(f) for f in fields)
    if op < 0:
        raise ValueError(f"op must not be negative, got {op}")
    if not BET_MIN <= b <= BET_MAX:
        raise ValueError(f"B must be {BET_MIN}..{BET_MAX}, got {b}")
    if not 0 <= state <= 5:
        raise ValueError(f"state must be 0..5, got {state}")
    if state in (FIRST_OPPONENT_FOLDED, SECOND_OPPONENT_FOLDED):
        if d != 0:
            raise ValueError(f"d must be 0 when the opponent has folded, got {d}")
    elif not 1 <= d <= 6:
        raise ValueError(f"d must be a die (1..6) in state {state}, got {d}")
    return Message(op, b, state, d)


# --------------------------------------------------------------------------- bot → referee


def encode_reply(decision: int) -> bytes:
    """The answer line for ``decision`` (0 = fold, non-zero = raise/call; any value for information)."""
    return b"%d\n" % decision


def decode_reply(line: bytes | str) -> int:
    """Parse a bot's answer (without its ``\\n``) into :data:`FOLD` or :data:`RAISE`.

    Any integer is a valid answer (the seed: "zero means you want to fold, non-zero means
    you want to bet/call"), so this never converts the digits: an integer of a million
    digits is as cheap as ``1``.  Anything that is not an integer raises
    :class:`ValueError` with a readable reason.
    """
    _, digits = integer_token(line, "an integer (0 = fold, non-zero = raise/call)")
    return RAISE if digits.strip(b"0") else FOLD
