"""No-limit Texas Hold'em wire format (seed 003, PPCA 2014), shared by the referee and Python bots.

Stdlib only.  Every message is one ASCII line of space-separated tokens.  The referee
sends three kinds of line, told apart by their first word:

``act ...``       a betting decision is due: the bot answers one line (see below);
``show ...``      the seed's ``showdown()`` (only with the ``bot_showdown`` option): the
                  bot answers five cards;
``result ...``    information after every hand, and
``gameover ...``  information after the game's last hand: no answer to either.

After the first word the line is ``NAME VALUE`` pairs in a fixed order; a VALUE is one
token (lists are comma-separated inside it, ``-`` stands for an empty list).  The full
grammar, with a whole example game, is in ``docs/protocols/holdem.md``::

    act hand 1 seat 3 dealer 0 sb 1 bb 2 round preflop hole ASKD board - stacks 1000,999,998,1000
        bets 0,1,2,0 status ---- pots - tocall 2 minraise 2 maxraise 998 legal fold,call,raise
        history 1s1,2b2

A reply to ``act`` is ``fold``, ``check``, ``call`` or ``raise X`` where X is the number of
chips *on top of the call* (the seed's ``make_decision(RAISE, X)``).  Cards are the seed's
two characters: rank ``23456789TJQKA`` then suit ``SHDC``.

Decoded actions are small integers so the referee's hot path stays cheap:
:data:`FOLD`, :data:`CHECK`, :data:`CALL` are negative; a raise of X chips is X itself.

Besides the wire format this module has plain helpers for bots: parsers for each line
and a simple hand evaluator (:func:`hand_value`).  The referee ranks hands with a
library instead; the tests check that both agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from protocol.lines import show

__all__ = [
    "CALL",
    "CARD_IDS",
    "CARD_NAMES",
    "CATEGORY_NAMES",
    "CHECK",
    "FOLD",
    "HISTORY_LETTERS",
    "MAX_RAISE_DIGITS",
    "RANKS",
    "ROUNDS",
    "STATUS_LETTERS",
    "SUITS",
    "GameOver",
    "Request",
    "Result",
    "ShowRequest",
    "best_five",
    "card_id",
    "card_name",
    "cards_text",
    "decode_action",
    "decode_show",
    "encode_action",
    "encode_show",
    "gameover_line",
    "hand_value",
    "parse_cards",
    "parse_gameover",
    "parse_line",
    "parse_request",
    "parse_result",
    "parse_show_request",
    "request_line",
    "result_line",
    "show_line",
]

RANKS = "23456789TJQKA"
#: Suit order inside a card id (club, diamond, heart, spade); the wire letters are the seed's.
SUITS = "CDHS"
#: Card id = rank index * 4 + suit index (``2C`` = 0, ``AS`` = 51).
CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_IDS: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
ROUNDS = ("preflop", "flop", "turn", "river")

FOLD = -1
CHECK = -2
CALL = -3
#: A raise amount with more digits than this (leading zeros aside) does not parse.
MAX_RAISE_DIGITS = 9

#: Per-seat status letters of an ``act`` line (the seed's PLAYER_STATUS, plus two).
STATUS_LETTERS = {
    "-": "has not acted in this betting round",
    "B": "bet, called or raised in this round (the seed's BET)",
    "C": "checked in this round",
    "F": "folded this hand",
    "A": "all-in: in the hand with no chips left",
    "X": "out of the game (no chips), or not dealt in",
}
#: Letters of a history entry ``SEAT LETTER CHIPS``.
HISTORY_LETTERS = {
    "s": "posts the small blind",
    "b": "posts the big blind",
    "f": "folds",
    "k": "checks",
    "c": "calls (the seed's big blind 'calls 0' too)",
    "r": "raises",
}
CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


# --------------------------------------------------------------------------- cards


def card_id(name: str) -> int:
    """The id of a card named like ``"AS"`` (:class:`ValueError` if it is not a card)."""
    try:
        return CARD_IDS[name]
    except KeyError:
        raise ValueError(f"not a card: {name!r}") from None


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def cards_text(cards: Iterable[int]) -> str:
    """Cards run together (``"ASKD"``), or ``"-"`` for none."""
    return "".join(CARD_NAMES[c] for c in cards) or "-"


def parse_cards(text: str) -> tuple[int, ...]:
    """The cards of a token like ``"ASKD"``; ``"-"`` is no cards."""
    if text == "-":
        return ()
    if len(text) % 2:
        raise ValueError(f"not a list of cards: {text!r}")
    return tuple(card_id(text[i : i + 2]) for i in range(0, len(text), 2))


# --------------------------------------------------------------------------- replies


_ACTION_RE = re.compile(rb"[ \t]*(fold|check|call|raise[ \t]+([0-9]+))[ \t]*\r?")
_FIXED = {b"fold": FOLD, b"check": CHECK, b"call": CALL}
_CARD = rb"([2-9TJQKA][SHDC])"
_SHOW_RE = re.compile(rb"[ \t]*" + rb"[ \t]+".join([_CARD] * 5) + rb"[ \t]*\r?")


def _as_bytes(line: bytes | str) -> bytes:
    if isinstance(line, bytes):
        return line
    try:
        return line.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError(f"reply is not ASCII: {line[:60]!r}") from None


def decode_action(line: bytes | str) -> int:
    """Parse a reply to ``act`` (without its ``\\n``): :data:`FOLD`, :data:`CHECK`, :data:`CALL` or X >= 0.

    Grammar: optional spaces/tabs, then ``fold``, ``check``, ``call`` or ``raise`` followed by
    spaces/tabs and X (ASCII digits, at most :data:`MAX_RAISE_DIGITS` after leading zeros),
    then optional spaces/tabs and an optional final ``\\r``.  Lower case only.  Anything
    else raises :class:`ValueError` with a readable reason.  A raise that parses may still
    be illegal (the rules judge the amount).
    """
    line = _as_bytes(line)
    fixed = _FIXED.get(line)
    if fixed is not None:
        return fixed
    match = _ACTION_RE.fullmatch(line)
    if match is None:
        if not line.strip(b" \t\r"):
            raise ValueError("empty reply: expected fold, check, call or raise X")
        if not line.isascii():
            raise ValueError(f"reply is not ASCII: {show(line)}")
        words = line.split(None, 1)
        word = words[0] if words else b""
        if word.lower() in (b"fold", b"check", b"call", b"raise") and word.lower() != word:
            raise ValueError(f"actions are lower case: {show(line)}")
        if word == b"raise":
            raise ValueError(f"raise needs one amount X (chips on top of the call): {show(line)}")
        raise ValueError(f"not an action (fold, check, call or raise X): {show(line)}")
    digits = match.group(2)
    if digits is None:
        return _FIXED[match.group(1)]
    digits = digits.lstrip(b"0") or b"0"
    if len(digits) > MAX_RAISE_DIGITS:
        raise ValueError(f"raise amount has more than {MAX_RAISE_DIGITS} digits: {show(line)}")
    return int(digits)


def encode_action(action: int) -> bytes:
    """The reply line (with ``\\n``) for a decoded action."""
    if action == FOLD:
        return b"fold\n"
    if action == CHECK:
        return b"check\n"
    if action == CALL:
        return b"call\n"
    if action < 0:
        raise ValueError(f"no action {action}")
    return b"raise %d\n" % action


def decode_show(line: bytes | str) -> tuple[int, ...]:
    """Parse a reply to ``show``: five card tokens separated by spaces/tabs.

    Same leniency as :func:`decode_action`.  Whether the cards are the bot's own and
    distinct is for the rules to judge.
    """
    line = _as_bytes(line)
    match = _SHOW_RE.fullmatch(line)
    if match is None:
        if not line.strip(b" \t\r"):
            raise ValueError("empty reply: expected five cards like 'AS KD 7H 7C 2S'")
        raise ValueError(f"not five cards (rank 23456789TJQKA, suit SHDC): {show(line)}")
    return tuple(CARD_IDS[g.decode()] for g in match.groups())


def encode_show(cards: Sequence[int]) -> bytes:
    if len(cards) != 5:
        raise ValueError("a showdown reply has five cards")
    return (" ".join(CARD_NAMES[c] for c in cards) + "\n").encode()


# --------------------------------------------------------------------------- referee lines

#: The ``act`` line; the list-valued fields arrive pre-formatted (bytes) from the rules.
_REQUEST = (
    b"act hand %d seat %d dealer %d sb %d bb %d round %s hole %s board %s stacks %s bets %s"
    b" status %s pots %s tocall %d minraise %d maxraise %d legal %s history %s initial %d names %s\n"
)


def request_line(
    hand: int,
    seat: int,
    dealer: int,
    sb: int,
    bb: int,
    round_name: bytes,
    hole: bytes,
    board: bytes,
    stacks: bytes,
    bets: bytes,
    status: bytes,
    pots: bytes,
    to_call: int,
    min_raise: int,
    max_raise: int,
    legal: bytes,
    history: bytes,
    initial: int = 1000,
    names: bytes = b"-",
) -> bytes:
    """The ``act`` line.  List fields are pre-formatted tokens (see the module docstring)."""
    return _REQUEST % (
        hand,
        seat,
        dealer,
        sb,
        bb,
        round_name,
        hole,
        board,
        stacks,
        bets,
        status,
        pots,
        to_call,
        min_raise,
        max_raise,
        legal,
        history,
        initial,
        names,
    )


def show_line(hand: int, seat: int, hole: bytes, board: bytes) -> bytes:
    """The ``show`` line: choose five of your seven cards."""
    return b"show hand %d seat %d hole %s board %s\n" % (hand, seat, hole, board)


def result_line(hand: int, board: bytes, shown: bytes, pots: bytes, won: bytes, stacks: bytes) -> bytes:
    """The ``result`` line sent to every seat after a hand."""
    return b"result hand %d board %s shown %s pots %s won %s stacks %s\n" % (
        hand,
        board,
        shown,
        pots,
        won,
        stacks,
    )


def gameover_line(hands: int, stacks: bytes, ranks: bytes) -> bytes:
    """The ``gameover`` line sent to every seat after the game's last hand."""
    return b"gameover hands %d stacks %s ranks %s\n" % (hands, stacks, ranks)


# --------------------------------------------------------------------------- parsing (bots, tests)


@dataclass(frozen=True, slots=True)
class Request:
    """A parsed ``act`` line.  ``min_raise``/``max_raise`` are X values (0, 0 when raising is not legal)."""

    hand: int
    seat: int
    dealer: int
    sb: int
    bb: int
    round: str
    hole: tuple[int, ...]
    board: tuple[int, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    status: str
    #: (amount, eligible seats) per pot, chips of finished betting rounds only.
    pots: tuple[tuple[int, tuple[int, ...]], ...]
    to_call: int
    min_raise: int
    max_raise: int
    legal: tuple[str, ...]
    #: One list per betting round so far: (seat, letter, chips put in) entries.
    history: tuple[tuple[tuple[int, str, int], ...], ...]
    #: Everyone's starting chips (the seed's ``initial_chips()``).
    initial: int = 1000
    #: The players' names by seat (the seed's ``name_of()``); empty from an older referee.
    names: tuple[str, ...] = ()

    @property
    def players(self) -> int:
        return len(self.stacks)

    @property
    def street(self) -> int:
        return ROUNDS.index(self.round)

    @property
    def pot_total(self) -> int:
        """All chips in the middle: finished pots plus this round's bets."""
        return sum(amount for amount, _ in self.pots) + sum(self.bets)


@dataclass(frozen=True, slots=True)
class ShowRequest:
    hand: int
    seat: int
    hole: tuple[int, ...]
    board: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Result:
    hand: int
    board: tuple[int, ...]
    #: (seat, hole cards, the five shown) per showdown hand; a mucked hand shows ((), ()).
    shown: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    #: Per pot: (amount, ((seat, chips won), ...)).
    pots: tuple[tuple[int, tuple[tuple[int, int], ...]], ...]
    won: tuple[int, ...]
    stacks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver:
    hands: int
    stacks: tuple[int, ...]
    ranks: tuple[int, ...]


def _fields(line: bytes | str, keyword: str, names: Sequence[str]) -> dict[str, str]:
    if isinstance(line, bytes):
        line = line.decode("ascii")
    tokens = line.split()
    if not tokens or tokens[0] != keyword:
        raise ValueError(f"not a {keyword!r} line: {line[:60]!r}")
    if len(tokens) != 1 + 2 * len(names) or tuple(tokens[1::2]) != tuple(names):
        raise ValueError(f"malformed {keyword!r} line: {line[:80]!r}")
    return dict(zip(tokens[1::2], tokens[2::2], strict=True))


def _ints(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(int(v) for v in text.split(","))


_REQUEST_NAMES = [
    "hand",
    "seat",
    "dealer",
    "sb",
    "bb",
    "round",
    "hole",
    "board",
    "stacks",
    "bets",
    "status",
    "pots",
    "tocall",
    "minraise",
    "maxraise",
    "legal",
    "history",
    "initial",
    "names",
]
#: The act line's fields before ``initial`` and ``names`` (which older referees did not send).
_REQUEST_NAMES_OLD = _REQUEST_NAMES[:-2]


def parse_request(line: bytes | str) -> Request:
    """Parse an ``act`` line (:class:`ValueError` if malformed)."""
    try:
        f = _fields(line, "act", _REQUEST_NAMES)
    except ValueError:
        f = _fields(line, "act", _REQUEST_NAMES_OLD)  # an older log's line
    pots = []
    if f["pots"] != "-":
        for pot in f["pots"].split(","):
            amount, seats = pot.split(":")
            pots.append((int(amount), _ints(seats.replace(".", ","))))
    history = []
    for segment in f["history"].split("/"):
        entries = []
        for entry in segment.split(",") if segment else ():
            m = re.fullmatch(r"(\d+)([sbfkcr])(\d+)", entry)
            if m is None:
                raise ValueError(f"bad history entry {entry!r}")
            entries.append((int(m.group(1)), m.group(2), int(m.group(3))))
        history.append(tuple(entries))
    if f["round"] not in ROUNDS:
        raise ValueError(f"unknown round {f['round']!r}")
    return Request(
        hand=int(f["hand"]),
        seat=int(f["seat"]),
        dealer=int(f["dealer"]),
        sb=int(f["sb"]),
        bb=int(f["bb"]),
        round=f["round"],
        hole=parse_cards(f["hole"]),
        board=parse_cards(f["board"]),
        stacks=_ints(f["stacks"]),
        bets=_ints(f["bets"]),
        status=f["status"],
        pots=tuple(pots),
        to_call=int(f["tocall"]),
        min_raise=int(f["minraise"]),
        max_raise=int(f["maxraise"]),
        legal=tuple(f["legal"].split(",")),
        history=tuple(history),
        initial=int(f.get("initial", 1000)),
        names=() if f.get("names", "-") == "-" else tuple(f["names"].split(",")),
    )


def parse_show_request(line: bytes | str) -> ShowRequest:
    f = _fields(line, "show", ("hand", "seat", "hole", "board"))
    return ShowRequest(int(f["hand"]), int(f["seat"]), parse_cards(f["hole"]), parse_cards(f["board"]))


def parse_result(line: bytes | str) -> Result:
    f = _fields(line, "result", ("hand", "board", "shown", "pots", "won", "stacks"))
    shown: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    if f["shown"] != "-":
        for entry in f["shown"].split(","):
            parts = entry.split(":")
            if parts[1:] == ["muck"]:
                shown.append((int(parts[0]), (), ()))
            else:
                shown.append((int(parts[0]), parse_cards(parts[1]), parse_cards(parts[2])))
    pots: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    if f["pots"] != "-":
        for pot in f["pots"].split(","):
            amount, winners = pot.split(":")
            pairs: list[tuple[int, int]] = []
            for w in winners.split("."):
                seat, chips = (int(v) for v in w.split("="))
                pairs.append((seat, chips))
            pots.append((int(amount), tuple(pairs)))
    return Result(
        hand=int(f["hand"]),
        board=parse_cards(f["board"]),
        shown=tuple(shown),
        pots=tuple(pots),
        won=_ints(f["won"]),
        stacks=_ints(f["stacks"]),
    )


def parse_gameover(line: bytes | str) -> GameOver:
    f = _fields(line, "gameover", ("hands", "stacks", "ranks"))
    return GameOver(int(f["hands"]), _ints(f["stacks"]), _ints(f["ranks"]))


def parse_line(line: bytes | str) -> Request | ShowRequest | Result | GameOver:
    """Parse any referee line by its first word."""
    text = line.decode("ascii") if isinstance(line, bytes) else line
    word = text.split(None, 1)[0] if text.strip() else ""
    if word == "act":
        return parse_request(text)
    if word == "show":
        return parse_show_request(text)
    if word == "result":
        return parse_result(text)
    if word == "gameover":
        return parse_gameover(text)
    raise ValueError(f"unknown line: {text[:60]!r}")


# --------------------------------------------------------------------------- a plain evaluator for bots


def _five_value(cards: Sequence[int]) -> tuple[int, ...]:
    """(category, tie-break ranks...) of exactly five cards; greater is stronger."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_high = -1
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_high = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:  # the wheel: A-2-3-4-5, five high
            straight_high = 3
    if straight_high >= 0:
        return (8 if flush else 4, straight_high)
    if flush:
        return (5, *ranks)
    # Group by (count, rank), largest groups first: the order of tie-breaks.
    groups = sorted(((ranks.count(r), r) for r in distinct), reverse=True)
    shape = tuple(count for count, _ in groups)
    order = tuple(r for _, r in groups)
    category = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(shape, 0)
    return (category, *order)


def hand_value(cards: Sequence[int]) -> tuple[int, ...]:
    """The value of the best five of 5–7 cards: ``(category, tie-breaks...)``, greater is stronger.

    ``CATEGORY_NAMES[value[0]]`` names the hand.  Simple and slow (it tries every five);
    meant for bots written in Python, not for the referee.
    """
    if not 5 <= len(cards) <= 7:
        raise ValueError("a hand has 5 to 7 cards")
    return max(_five_value(five) for five in combinations(cards, 5))


def best_five(cards: Sequence[int]) -> tuple[int, ...]:
    """The best five of 5–7 cards (for a ``show`` reply)."""
    if not 5 <= len(cards) <= 7:
        raise ValueError("a hand has 5 to 7 cards")
    return max(combinations(cards, 5), key=_five_value)
