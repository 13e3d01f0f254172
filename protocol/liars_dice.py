"""Liar's Dice wire format (seed 001), shared by the referee and Python bots.  Stdlib only.

Every message is one ASCII line of space-separated tokens ending in ``\\n``.  The first
token says what the line is.  A *hand* is one token: a seat's dice as digits in
ascending order (``13446``), or ``-`` for a seat without dice.

Request (the bot must answer it with one line)::

    turn <my seat> counts <c0> <c1> ... <c(n-1)> dice <my hand> bids <seat:quantity:face> ...

``counts`` has one entry per seat (0 for a seat that is out); ``bids`` lists every bid of
the round so far, oldest first (nothing after ``bids`` on the first turn of a round).

Reply::

    bid <quantity> <face>
    challenge

Information lines (the bot must NOT answer them)::

    players <id0> <id1> ... <id(n-1)>
    reveal <challenger> <bidder> <quantity> <face> <count> <loser> hands <h0> ... <h(n-1)>
    penalty <seat> <verdict> <dice lost> hands <h0> ... <h(n-1)>
    result <winner> eliminated <seat> ... (first eliminated first)

``players`` starts each game: the stable id of the bot in each seat, seat 0 first (your
own is at index ``<my seat>`` of your ``turn`` lines).  Seats change from game to game,
ids do not, so a bot that persists across games ("Bot objects will persist from game to
game in the tournament") can learn how each opponent plays.  ``reveal`` ends a round by
a challenge (``count`` = dice showing the face or a one); ``penalty`` ends a round
because a seat's bot failed (verdict ``timeout``, ``illegal``, ``protocol``, ``crash``,
...); ``result`` ends the game.  Both round endings show every seat's dice of that round.

Besides the wire format this module has small helpers for bots (legal bids, counting
matching dice).  The referee's rules module keeps its own cached encodings; the tests
check that both agree.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import Final, NamedTuple

from protocol.lines import show

__all__ = [
    "CHALLENGE",
    "DICE_PER_SEAT",
    "FACES",
    "FIRST_TURN_CHALLENGE",
    "NOT_YOUR_TURN",
    "WILD",
    "Action",
    "Bid",
    "Challenge",
    "Penalty",
    "PlacedBid",
    "Players",
    "Result",
    "Reveal",
    "Turn",
    "decode_action",
    "encode_action",
    "encode_hand",
    "encode_penalty",
    "encode_players",
    "encode_request",
    "encode_result",
    "encode_reveal",
    "illegal_reason",
    "legal_bids",
    "line_kind",
    "matching",
    "parse_hand",
    "parse_info",
    "parse_request",
    "show_number",
]

#: Dice each seat starts a game with (the seed: "Each bot gets five randomized dice").
DICE_PER_SEAT = 5
#: The faces a bid may name (the seed: "picking a face (2,3,4,5,or 6)").
FACES = (2, 3, 4, 5, 6)
#: Ones are wild: "All 1's are wild and count as the face of the current bid".
WILD = 1

# The reasons the referee gives for illegal decisions (the seed's invalid decisions:
# "A bid that is too low (or impossibly high), or a challenge on the first turn").
FIRST_TURN_CHALLENGE = "a challenge on the first turn of a round is not allowed"
NOT_YOUR_TURN = "it is not this seat's turn"


class Bid(NamedTuple):
    """A claim that at least ``quantity`` dice on the table show ``face`` (ones count too).

    Tuples compare field by field, which is exactly the seed's order: a higher quantity,
    or the same quantity and a higher face ("2 5's < 2 6's < 3 2's < 3 3's").
    """

    quantity: int
    face: int


class Challenge(enum.Enum):
    """The decision to call the current bid; :data:`CHALLENGE` is its only member (an
    enum, so that ``action is CHALLENGE`` narrows a :data:`Action` for the checker)."""

    CHALLENGE = "CHALLENGE"

    def __repr__(self) -> str:
        return "CHALLENGE"


CHALLENGE: Final = Challenge.CHALLENGE

#: A decoded reply.
Action = Bid | Challenge


class PlacedBid(NamedTuple):
    """A bid of the current round and the seat that made it."""

    seat: int
    quantity: int
    face: int


class Turn(NamedTuple):
    """A parsed request: everything a bot needs to decide."""

    seat: int
    counts: tuple[int, ...]
    dice: tuple[int, ...]
    bids: tuple[PlacedBid, ...]

    @property
    def dice_in_play(self) -> int:
        return sum(self.counts)

    @property
    def current(self) -> Bid | None:
        """The bid to beat (or challenge), or None on the first turn of a round."""
        return Bid(self.bids[-1].quantity, self.bids[-1].face) if self.bids else None


class Players(NamedTuple):
    """Who sits where this game: ``ids[seat]`` is the stable id of that seat's bot (its
    position in the tournament's field, or on the match's command line)."""

    ids: tuple[int, ...]


class Reveal(NamedTuple):
    challenger: int
    bidder: int
    quantity: int
    face: int
    # The field shadows tuple.count(): it is the protocol's name, which bots read, so it stays.
    count: int  # type: ignore[assignment]
    loser: int
    hands: tuple[tuple[int, ...], ...]


class Penalty(NamedTuple):
    seat: int
    verdict: str
    dice_lost: int
    hands: tuple[tuple[int, ...], ...]


class Result(NamedTuple):
    winner: int
    eliminated: tuple[int, ...]


# --------------------------------------------------------------------------- encoding


def encode_hand(dice: Sequence[int]) -> bytes:
    """A hand token: the dice as ascending digits, or ``-`` when there are none."""
    return "".join(map(str, sorted(dice))).encode("ascii") if dice else b"-"


def encode_request(
    seat: int, counts: Sequence[int], dice: Sequence[int], bids: Sequence[tuple[int, int, int]]
) -> bytes:
    """The request line (with its ``\\n``) for ``seat``; ``bids`` are (seat, quantity, face)."""
    parts = [b"turn %d counts" % seat]
    parts += [b"%d" % c for c in counts]
    parts += [b"dice", encode_hand(dice), b"bids"]
    parts += [b"%d:%d:%d" % tuple(b) for b in bids]
    return b" ".join(parts) + b"\n"


def encode_action(action: Action) -> bytes:
    """The reply line for ``action``."""
    if isinstance(action, Challenge):
        return b"challenge\n"
    return b"bid %d %d\n" % (action.quantity, action.face)


def _hands(hands: Sequence[Sequence[int]]) -> bytes:
    return b" hands " + b" ".join(encode_hand(h) for h in hands)


def encode_reveal(
    challenger: int, bidder: int, bid: Bid, count: int, loser: int, hands: Sequence[Sequence[int]]
) -> bytes:
    head = b"reveal %d %d %d %d %d %d" % (challenger, bidder, bid.quantity, bid.face, count, loser)
    return head + _hands(hands) + b"\n"


def encode_penalty(seat: int, verdict: str, dice_lost: int, hands: Sequence[Sequence[int]]) -> bytes:
    return b"penalty %d %s %d" % (seat, verdict.encode("ascii"), dice_lost) + _hands(hands) + b"\n"


def encode_players(ids: Sequence[int]) -> bytes:
    """The line that starts a game: the bots' stable ids by seat, seat 0 first."""
    return b" ".join([b"players", *(b"%d" % i for i in ids)]) + b"\n"


def encode_result(winner: int, eliminated: Sequence[int]) -> bytes:
    return b" ".join([b"result %d eliminated" % winner, *(b"%d" % s for s in eliminated)]) + b"\n"


# --------------------------------------------------------------------------- decoding replies

# The whole reply grammar.  Only spaces and tabs separate tokens; a final \r is allowed.
_REPLY = re.compile(rb"[ \t]*(?:(challenge)|bid[ \t]+([0-9]+)[ \t]+([0-9]+))[ \t]*\r?")
#: Longest number accepted (CPython refuses to convert much longer digit strings).
_MAX_DIGITS = 4000


def decode_action(line: bytes | str) -> Action:
    """Parse a reply line (without its ``\\n``) into :data:`CHALLENGE` or a :class:`Bid`.

    Grammar: ``challenge`` or ``bid <quantity> <face>``, where numbers are ASCII digits,
    separated by spaces/tabs, with optional spaces/tabs around and an optional final
    ``\\r``.  Anything else raises :class:`ValueError` with a readable reason.  A bid that
    parses is returned whatever its numbers; the rules judge them (``bid 0 9`` is illegal,
    not malformed).
    """
    if isinstance(line, str):
        try:
            line = line.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError(f"reply is not ASCII: {show(line)}") from None
    m = _REPLY.fullmatch(line)
    if m is None:
        if not line.strip(b" \t\r"):
            raise ValueError("empty reply: expected 'bid <quantity> <face>' or 'challenge'")
        raise ValueError(f"expected 'bid <quantity> <face>' or 'challenge', got {show(line)}")
    if m.group(1):
        return CHALLENGE
    return Bid(_number(m.group(2)), _number(m.group(3)))


def _number(digits: bytes) -> int:
    digits = digits.lstrip(b"0") or b"0"
    if len(digits) > _MAX_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits is too long")
    return int(digits)


def show_number(value: int) -> str:
    """``value`` for a message, kept short however large it is."""
    if -(10**12) < value < 10**12:
        return str(value)
    return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"  # str() may refuse it


# --------------------------------------------------------------------------- parsing lines


def line_kind(line: bytes | str) -> str:
    """The leading keyword: ``turn`` (answer it) or ``players``/``reveal``/``penalty``/``result`` (don't)."""
    if isinstance(line, bytes):
        line = line.decode("ascii")
    return line.split(None, 1)[0] if line.strip() else ""


def parse_hand(token: str) -> tuple[int, ...]:
    if token == "-":
        return ()
    if not token.isdigit() or any(not "1" <= ch <= "6" for ch in token):
        raise ValueError(f"not a hand: {token!r}")
    return tuple(int(ch) for ch in token)


def _int(token: str) -> int:
    if not token.isdigit():
        raise ValueError(f"not a number: {token!r}")
    return int(token)


def parse_request(line: bytes | str) -> Turn:
    """Parse a request line (trailing newline optional); :class:`ValueError` if malformed."""
    if isinstance(line, bytes):
        line = line.decode("ascii")
    tokens = line.split()
    try:
        if tokens[0] != "turn" or tokens[2] != "counts":
            raise ValueError("a request starts 'turn <seat> counts'")
        seat = _int(tokens[1])
        i = tokens.index("dice")
        counts = tuple(_int(t) for t in tokens[3:i])
        if tokens[i + 2] != "bids":
            raise ValueError("'dice <hand>' must be followed by 'bids'")
        dice = parse_hand(tokens[i + 1])
        bids = []
        for token in tokens[i + 3 :]:
            s, q, f = token.split(":")
            bids.append(PlacedBid(_int(s), _int(q), _int(f)))
    except (IndexError, ValueError) as exc:
        raise ValueError(f"malformed request {line.strip()!r}: {exc}") from None
    if not 0 <= seat < len(counts) or counts[seat] != len(dice) or not dice:
        raise ValueError(f"malformed request {line.strip()!r}: the seat's dice do not match its count")
    return Turn(seat, counts, dice, tuple(bids))


def parse_info(line: bytes | str) -> Players | Reveal | Penalty | Result:
    """Parse an information line; :class:`ValueError` if it is none."""
    if isinstance(line, bytes):
        line = line.decode("ascii")
    tokens = line.split()
    try:
        kind = tokens[0]
        if kind == "players":
            if len(tokens) < 3:
                raise ValueError("expected an id for each of at least 2 seats")
            return Players(tuple(_int(t) for t in tokens[1:]))
        if kind == "reveal":
            if tokens[7] != "hands":
                raise ValueError("expected 'hands'")
            c, b, q, f, n, loser = (_int(t) for t in tokens[1:7])
            return Reveal(c, b, q, f, n, loser, tuple(parse_hand(t) for t in tokens[8:]))
        if kind == "penalty":
            if tokens[4] != "hands":
                raise ValueError("expected 'hands'")
            hands = tuple(parse_hand(t) for t in tokens[5:])
            return Penalty(_int(tokens[1]), tokens[2], _int(tokens[3]), hands)
        if kind == "result":
            if tokens[2] != "eliminated":
                raise ValueError("expected 'eliminated'")
            return Result(_int(tokens[1]), tuple(_int(t) for t in tokens[3:]))
    except (IndexError, ValueError) as exc:
        raise ValueError(f"malformed information line {line.strip()!r}: {exc}") from None
    raise ValueError(f"not an information line: {line.strip()!r}")


# --------------------------------------------------------------------------- rules helpers


def matching(dice: Sequence[int], face: int) -> int:
    """How many of ``dice`` count for a bid on ``face``: the face itself and the wild ones."""
    return sum(1 for d in dice if d in (face, WILD))


def illegal_reason(dice_in_play: int, current: Bid | None, action: Action) -> str | None:
    """Why ``action`` is not allowed, or None: the seed's invalid decisions.

    ``current`` is the bid to beat (None on the first turn of a round).
    """
    if isinstance(action, Challenge):
        return FIRST_TURN_CHALLENGE if current is None else None
    quantity, face = action
    if face not in FACES:
        return f"the face of a bid must be 2..6, not {show_number(face)}"
    if not 1 <= quantity <= dice_in_play:
        return (
            f"the quantity of a bid must be 1..{dice_in_play} (the dice in play), not {show_number(quantity)}"
        )
    if current is not None and action <= current:
        return f"bid {quantity} {face} is not higher than the current bid {current.quantity} {current.face}"
    return None


def legal_bids(dice_in_play: int, current: Bid | None) -> list[Bid]:
    """Every bid allowed now, lowest first."""
    bids = [Bid(q, f) for q in range(1, dice_in_play + 1) for f in FACES]
    return bids if current is None else [b for b in bids if b > current]
