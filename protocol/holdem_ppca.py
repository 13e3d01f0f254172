"""The PPCA 2014 Hold'em server's text protocol (seed 003), for ``referee serve
--dialect ppca`` (docs/remote.md, "The PPCA dialect").

The rules narrate a hand in these sentences when asked to (the ``narrate`` option of
``holdem``): each is sent to the match's seats as an information line prefixed
``ppca``, and the dialect's seat passes it to its client as it is.  The client's
answers (``check``, ``fold``, ``bet N``; five cards ``R S`` at a showdown) are turned
into the referee's replies here.  Stdlib only, like every wire module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol.holdem import CARD_NAMES, CATEGORY_NAMES, card_id

#: The information lines of the narration start with this word.
PREFIX = b"ppca "

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
    out = [b"game starts", b"number of players is %d" % len(participants)]
    out += [b"%d" % p for p in participants]
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


def action(seat: int, kind: str, amount: int) -> bytes:
    if kind == "fold":
        return b"player %d folds" % seat
    if kind == "check":
        return b"player %d checks" % seat
    return b"player %d bets %d" % (seat, amount)


def pots(all_pots: Sequence[tuple[int, Sequence[int]]]) -> list[bytes]:
    return [
        b"pot %d has %d chips contributed by %s" % (i, amount, b" ".join(b"%d" % s for s in sorted(seats)))
        for i, (amount, seats) in enumerate(all_pots)
    ]


def shows(seat: int, five: Sequence[int] | None, category: int | None) -> bytes:
    if five is None:
        return b"player %d shows nothing valid" % seat
    return b"player %d shows %s which is %s" % (
        seat,
        b" ".join(card(c) for c in five),
        CATEGORY_NAMES[category or 0].encode(),
    )


def payout(pot_results: Sequence[tuple[int, Sequence[tuple[int, int]]]]) -> list[bytes]:
    out = [b"declare winner"]
    for i, (_, shares) in enumerate(pot_results):
        out.append(b"pot %d is shared by %d players" % (i, len(shares)))
        out += [b"player %d gets %d chips" % share for share in shares]
    return out


# ------------------------------------------------------------------ the client's answers


def decode_action(reply: bytes, to_call: int, legal: Sequence[bytes]) -> bytes:
    """The referee's reply for a client's ``check`` / ``fold`` / ``bet N``.

    ``bet N`` puts N chips in: the amount to call is a call (``bet 0`` with nothing to
    call, a check, unless the seed's big blind must call 0), more is a raise of the
    difference, less is not a legal move.  What does not parse is passed on as it is,
    for the rules to judge (and, under the ppca rules, fold).
    """
    words = reply.split()
    if len(words) == 1 and words[0] in (b"check", b"fold"):
        return words[0]
    if len(words) == 2 and words[0] == b"bet" and words[1].isdigit() and len(words[1]) <= 12:
        put = int(words[1])
        if put == to_call:
            return b"call" if b"call" in legal else b"check"
        if put > to_call:
            return b"raise %d" % (put - to_call)
        return b"raise 0"  # less than the call: illegal, as the server judged it
    return reply


def decode_show(reply: bytes) -> bytes:
    """``A S K D …`` (ten tokens) → ``AS KD …``; anything else is passed on to be judged."""
    words = reply.split()
    if len(words) != 10:
        return reply
    try:
        cards = [card_id((words[i] + words[i + 1]).decode("ascii").upper()) for i in range(0, 10, 2)]
    except (ValueError, UnicodeDecodeError):
        return reply
    return b" ".join(CARD_NAMES[c].encode() for c in cards)
