"""Bidding Wars wire format (seed 002, Goofspiel), shared by the referee and Python bots.  Stdlib only.

The referee sends three kinds of line, told apart by their first word:

``bid <prize> <my score> <their score> <n> hand <cards> theirs <cards> prizes <prizes>``
    A *request*: the bot must answer with one card.  ``<prize>`` is the prize card
    turned over this turn, ``<n>`` the number of cards each player was dealt, ``hand``
    the bot's remaining cards, ``theirs`` the opponent's remaining cards (the card the
    opponent is bidding right now is still among them), ``prizes`` the prize cards
    still face down after this one.  Every list is ascending; ``hand`` and ``theirs``
    are never empty, ``prizes`` is empty on the last turn (the line then ends in
    ``prizes``).  The list keywords separate the lists, so empty lists are unambiguous.

``reveal <prize> <my card> <their card> <me|them|tie>``
    Information (no reply): both bids of the turn, and who took the prize.

``end <my score> <their score> <win|loss|draw> <played|forfeit>``
    Information (no reply): the game is over.  ``forfeit`` when a fault ended it.

The reply to a request is one integer, the card bid: ``[ \\t]* -? DIGIT+ [ \\t]* \\r?``.
A reply that does not fit is a protocol error; an integer that is not a card in the
bot's hand parses, and is then illegal.  Sent lines are single-space separated and end
in ``\\n``; replies are read without their ``\\n``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from protocol.lines import decode_integer

__all__ = [
    "BID",
    "END",
    "ENDINGS",
    "MAX_CARDS",
    "MIN_CARDS",
    "RESULTS",
    "REVEAL",
    "WINNERS",
    "End",
    "Request",
    "Reveal",
    "decode_bid",
    "encode_bid",
    "encode_end",
    "encode_request",
    "encode_reveal",
    "parse_line",
    "parse_request",
]

#: The first word of each line the referee sends.
BID = "bid"
REVEAL = "reveal"
END = "end"
#: The card counts the referee accepts for ``--cards``.
MIN_CARDS = 1
MAX_CARDS = 100
#: Who took the prize, as the reveal line tells it (from the reader's side).
WINNERS = ("me", "them", "tie")
#: The game result, as the end line tells it (from the reader's side).
RESULTS = ("win", "loss", "draw")
#: How the game ended.
ENDINGS = ("played", "forfeit")


class Request(NamedTuple):
    """A parsed ``bid`` line: everything a bot needs to choose its card."""

    prize: int
    my_score: int
    their_score: int
    n: int
    hand: tuple[int, ...]
    theirs: tuple[int, ...]
    prizes: tuple[int, ...]


class Reveal(NamedTuple):
    """A parsed ``reveal`` line."""

    prize: int
    mine: int
    theirs: int
    winner: str  # one of WINNERS


class End(NamedTuple):
    """A parsed ``end`` line."""

    my_score: int
    their_score: int
    result: str  # one of RESULTS
    how: str  # one of ENDINGS


# --------------------------------------------------------------------------- referee -> bot


def encode_request(
    prize: int,
    my_score: int,
    their_score: int,
    n: int,
    hand: Iterable[int],
    theirs: Iterable[int],
    prizes: Iterable[int],
) -> bytes:
    """The ``bid`` line (with its ``\\n``).  The lists are sorted here, as the grammar says."""
    parts = [BID, str(prize), str(my_score), str(their_score), str(n), "hand"]
    parts += map(str, sorted(hand))
    parts.append("theirs")
    parts += map(str, sorted(theirs))
    parts.append("prizes")
    parts += map(str, sorted(prizes))
    return (" ".join(parts) + "\n").encode("ascii")


def encode_reveal(prize: int, mine: int, theirs: int) -> bytes:
    """The ``reveal`` line for the player who bid ``mine``."""
    winner = "me" if mine > theirs else "them" if mine < theirs else "tie"
    return f"{REVEAL} {prize} {mine} {theirs} {winner}\n".encode("ascii")


def encode_end(my_score: int, their_score: int, result: str, how: str) -> bytes:
    """The ``end`` line; ``result`` in :data:`RESULTS`, ``how`` in :data:`ENDINGS`."""
    if result not in RESULTS or how not in ENDINGS:
        raise ValueError(f"bad end line fields: {result!r} {how!r}")
    return f"{END} {my_score} {their_score} {result} {how}\n".encode("ascii")


def _ints(words: list[str], what: str) -> tuple[int, ...]:
    if not all(w.isdigit() and w.isascii() for w in words):
        raise ValueError(f"{what}: expected non-negative integers, got {' '.join(words)!r}")
    return tuple(int(w) for w in words)


def parse_request(line: bytes | str) -> Request:
    """Parse a ``bid`` line (trailing newline optional); :class:`ValueError` if malformed."""
    words = (line.decode("ascii") if isinstance(line, bytes) else line).split()
    if len(words) < 6 or words[0] != BID or words[5] != "hand":
        raise ValueError(f"not a bid line: {line!r}")
    try:
        at_theirs = words.index("theirs", 6)
        at_prizes = words.index("prizes", at_theirs + 1)
    except ValueError:
        raise ValueError(f"a bid line needs 'theirs' and 'prizes' after 'hand': {line!r}") from None
    prize, mine, their_score, n = _ints(words[1:5], "prize, scores and n")
    hand = _ints(words[6:at_theirs], "hand")
    theirs = _ints(words[at_theirs + 1 : at_prizes], "theirs")
    prizes = _ints(words[at_prizes + 1 :], "prizes")
    if not hand or not theirs:
        raise ValueError(f"a bid line needs cards in both hands: {line!r}")
    return Request(prize, mine, their_score, n, hand, theirs, prizes)


def parse_line(line: bytes | str) -> Request | Reveal | End:
    """Parse any line the referee sends, by its first word; :class:`ValueError` if malformed."""
    text = line.decode("ascii") if isinstance(line, bytes) else line
    words = text.split()
    kind = words[0] if words else ""
    if kind == BID:
        return parse_request(text)
    if kind == REVEAL and len(words) == 5 and words[4] in WINNERS:
        prize, mine, theirs = _ints(words[1:4], "reveal")
        return Reveal(prize, mine, theirs, words[4])
    if kind == END and len(words) == 5 and words[3] in RESULTS and words[4] in ENDINGS:
        mine, theirs = _ints(words[1:3], "end")
        return End(mine, theirs, words[3], words[4])
    raise ValueError(f"not a Bidding Wars line: {line!r}")


# --------------------------------------------------------------------------- bot -> referee


def encode_bid(card: int) -> bytes:
    """The reply line bidding ``card``."""
    return b"%d\n" % card


def decode_bid(line: bytes | str) -> int:
    """Parse a reply line (without its ``\\n``) into the card bid.

    Grammar: optional spaces/tabs, an optional ``-``, one or more ASCII digits, optional
    spaces/tabs, an optional final ``\\r``.  Anything else raises :class:`ValueError`
    with a readable reason.  Any integer is returned exactly, however large: whether it
    is a card in the bidder's hand is for the rules to judge.
    """
    return decode_integer(line, "a card (an integer)", noun="a card number")
