"""The PPCA 2014 Hold'em server's text protocol (seed 003), for ``referee serve
--dialect ppca`` (docs/remote.md, "The PPCA dialect").

Every sentence here is the original server's (zzy7896321/holdem, ``server/Game.h`` and
``server/Server.h``), word for word, and so is the way a client's answers are read
(``Game::get_bet_from`` and ``Game::showdown``); docs/remote.md cites the function each
follows.  The rules narrate a hand in these sentences when asked to (the ``narrate``
option of ``holdem``): each is sent to the match's seats as an information line
prefixed ``ppca``, and the dialect's seat passes it to its client as it is.
Stdlib only, like every wire module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol.holdem import CARD_NAMES

#: The information lines of the narration start with this word.
PREFIX = b"ppca "

#: ``HAND_INVALID`` .. ``HAND_ROYAL_FLUSH``: the number a ``shows`` sentence ends with.
HAND_INVALID, HAND_ROYAL_FLUSH = 0, 10

_CARD = [f"{name[0]} {name[1]}".encode() for name in CARD_NAMES]


def card(c: int) -> bytes:
    """``b"T D"``: rank and suit as two tokens (the seed's ``card_type``)."""
    return _CARD[c]


def line(text: bytes) -> bytes:
    """One sentence as the rules tell it to a seat."""
    return PREFIX + text + b"\n"


def hand_start(
    participants: Sequence[int], small_blind: int, dealer: int, blinds: Iterable[tuple[int, int]]
) -> list[bytes]:
    """``Game::run``: the participants (players with chips) on one line, in seat order."""
    out = [b"game starts", b"number of players is %d" % len(participants)]
    out.append(b" ".join(b"%d" % p for p in participants))
    out += [b"small blind is %d" % small_blind, b"dealer is %d" % dealer]
    out += [b"player %d blind bet %d" % (seat, amount) for seat, amount in blinds]
    return out


def hole(cards: Sequence[int]) -> list[bytes]:
    return [b"hole card " + card(c) for c in cards]


def board(street: int, cards: Sequence[int]) -> list[bytes]:
    """The cards a street turns over (street 1: the flop's three)."""
    word = (b"flop", b"turn", b"river")[street - 1]
    return [word + b" card " + card(c) for c in cards]


def round_start(chips: Iterable[tuple[int, int]]) -> list[bytes]:
    return [b"round starts", *(b"player %d has %d chips" % sc for sc in chips)]


def action(seat: int, kind: str, amount: int) -> list[bytes]:
    """``Game::fold``, ``Game::check``, ``Game::bet``.  ``kind`` ``check0`` is a ``bet 0``
    with nothing bet yet after the flop: the server's ``bet()`` calls ``check()`` (which
    says ``checks``) and then says ``bets 0`` too."""
    if kind == "fold":
        return [b"player %d folds" % seat]
    if kind == "check":
        return [b"player %d checks" % seat]
    if kind == "check0":
        return [b"player %d checks" % seat, b"player %d bets 0" % seat]
    return [b"player %d bets %d" % (seat, amount)]


def pots(new_pots: Sequence[tuple[int, Sequence[int]]], first: int) -> list[bytes]:
    """``Game::bet_loop``'s end: the pots this round made, numbered from ``first`` (the
    number of pots of earlier rounds); contributors in seat order."""
    return [
        b"pot %d has %d chips contributed by %s"
        % (first + i, amount, b" ".join(b"%d" % s for s in sorted(seats)))
        for i, (amount, seats) in enumerate(new_pots)
    ]


def shows(seat: int, chars: bytes, kind: int) -> bytes:
    """``Game::showdown``: the ten characters read from the player's answer, as read,
    and its hand's number (``HAND_INVALID`` 0 .. ``HAND_ROYAL_FLUSH`` 10)."""
    return b"player %d shows %s, which is %d" % (seat, b" ".join(chars[i : i + 1] for i in range(10)), kind)


def payout(pot_results: Sequence[tuple[int, Sequence[tuple[int, int]]]]) -> list[bytes]:
    """``Game::declare_winner``: each pot's sharers as listed, which the ppca rules list
    in descending seat order (the server sorts ``(rank, player)`` pairs with
    ``std::greater``)."""
    out = [b"declare winner"]
    for i, (_, shares) in enumerate(pot_results):
        out.append(b"pot %d is shared by %d players" % (i, len(shares)))
        out += [b"player %d gets %d chips" % share for share in shares]
    return out


# ------------------------------------------------------------------ the client's answers

_INT_MAX, _INT_MIN = 2**31 - 1, -(2**31)


def _istream_int(text: bytes) -> int:
    """``iss >> int`` as libstdc++ reads it (C++11), on a line with something after
    ``bet``: leading white space skipped, an optional sign, decimal digits; no digits is
    0, an overflow the nearest limit."""
    text = text.lstrip(b" \t\n\v\f\r")
    sign, i = 1, 0
    if text[:1] in (b"+", b"-"):
        sign, i = (-1 if text[:1] == b"-" else 1), 1
    j = i
    while j < len(text) and 48 <= text[j] <= 57:
        j += 1
    if j == i:
        return 0
    value = sign * int(text[i:j])
    return max(_INT_MIN, min(_INT_MAX, value))


class Folded(ValueError):
    """An answer the original server folds: the message says why.  ``bet``: it was a bet
    of an amount the server refused (an illegal move), not an answer it could not read."""

    def __init__(self, message: str, *, bet: bool = False) -> None:
        super().__init__(message)
        self.bet = bet


def decode_action(reply: bytes, to_call: int, legal: Sequence[bytes]) -> bytes:
    """The referee's reply for a client's answer to ``action``, read as
    ``Game::get_bet_from`` reads it: the first word; ``bet`` and a number (``iss >>
    int``), ``check`` or ``fold``.  Anything else the server folds, and so does a
    negative bet, except ``bet -2``, which it takes for ``check`` (its code for one).
    ``bet`` alone left the server's amount undefined: folded here.

    ``bet N`` puts N chips in: the amount to call is a call (``bet 0`` with nothing to
    call: a check after the flop, the call of 0 before it), more is a raise of the
    difference (the rules judge it), less is folded (``Game::bet``).  Raises
    :class:`Folded` for what the server folds without asking the rules.
    """
    words = reply.split(None, 1)
    word = words[0] if words else b""
    if word == b"check":
        return b"check"
    if word == b"fold":
        return b"fold"
    if word != b"bet":
        shown = reply.decode("ascii", "replace")[:60]
        raise Folded(f"the PPCA server folds anything but check, fold or bet N: {shown!r}")
    if len(words) < 2:
        # ``iss >> bet`` at the end of the line never reads: the server's int stayed
        # uninitialised (undefined behaviour; it put in whatever it held).
        raise Folded("bet without an amount: the PPCA server read no number (its amount was undefined)")
    put = _istream_int(words[1])
    if put == -2:
        return b"check"
    if put < 0:
        raise Folded(f"bet {put}: the PPCA server folds a negative bet", bet=True)
    if put == to_call:
        return b"call" if b"call" in legal else b"check"
    if put > to_call:
        return b"raise %d" % (put - to_call)
    raise Folded(f"bet {put} is less than the {to_call} to call: the PPCA server folds it", bet=True)


def show_chars(reply: bytes) -> bytes:
    """The ten characters ``Game::showdown`` reads from a showdown answer: five times
    ``iss >> rank >> suit``, each a ``char`` after white space.  When the answer runs
    out, the rank and the suit keep what they last held (they are declared outside the
    loop), so ``A S K D`` reads as ``AS KD KD KD KD``.  What the server never read (its
    variables uninitialised) is ``?`` here; an empty answer is ten of them."""
    chars = bytes(b for b in reply if b not in b" \t\n\v\f\r")
    rank = suit = b"?"
    out = []
    for i in range(5):
        if 2 * i < len(chars):
            rank = chars[2 * i : 2 * i + 1]
        if 2 * i + 1 < len(chars):
            suit = chars[2 * i + 1 : 2 * i + 2]
        out.append(rank + suit)
    return b"".join(out)
