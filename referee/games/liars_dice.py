"""Liar's Dice rules (seed 001): 2–6 seats, five dice each, ones wild, last with dice wins.

A game is a series of *rounds*.  In a round every seat with dice rolls them in secret;
then, starting with the round's first seat and going round the table (skipping seats
that are out), each seat either bids higher than the last bid or challenges it::

    new round ──► bid ──► bid ──► ... ──► challenge ──► one seat loses a die ──► new round
                   ▲  (first turn: a bid only)             │ (or a penalty)
                   └─────────────────────────────────────────┘

* A bid is a quantity and a face 2..6: "at least this many dice on the table show this
  face", the ones counting too ("All 1's are wild").  A higher bid is a higher quantity,
  or the same quantity and a higher face; the quantity can't exceed the dice in play.
* A challenge ends the round: "If the bid is valid, the challenger loses a die.
  Otherwise, the bidder loses a die."  The loser starts the next round; "When a bot loses
  its last die, it leaves play and the next round starts with the next bot in line."
* A seat whose bot fails (timeout, crash, illegal or unparseable reply) loses the round,
  that is a die, and starts the next round.  A bot whose process died is restarted at its
  next turn (every request carries the whole state); while it cannot be, each of its
  turns costs a die.
* "The last bot with dice wins the game and gains a point."

Seats are ranked by how long they lasted: the winner 1st, the last seat eliminated 2nd,
..., the first eliminated last.

Who plays whom: seat numbers change every game (the match rotates the bots), so the
match calls :meth:`LiarsDiceState.introduce` with the bots' stable ids by seat, and every
seat is first told ``players <id0> ... <id(n-1)>``.  "Bot objects will persist from game
to game in the tournament.  The best bots could learn and adapt to the strategies their
competitor bots use" (seed 001): the ids are what they learn about.

The referee calls :meth:`request`, :meth:`decode`, :meth:`illegal` and :meth:`apply` for
every decision, so the state keeps everything pre-encoded: hands come from import-time
tables (dice, their wire token and per-face matching counts), each seat's request head is
built once per round, and each bid appends one cached token to the round's bid list.
The wire format itself lives in :mod:`protocol.liars_dice`.

**The deal** (see :mod:`referee.games.base`): the dice depend only on the seed and on
positions.  At the start of the game one block of random bytes is made into dice values
(``bytes.translate``: bytes 0..251 give ``b % 6 + 1``, 252..255 are dropped), five for
each (round, seat); in round r seat s rolls its k remaining dice as the first k values of
its five.  So a seat's dice in round r depend only on the seed and on how many dice it
still has, not on the bids and challenges before.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from protocol import liars_dice as wire
from protocol.liars_dice import CHALLENGE, Bid
from referee.core.limits import GiB, Limits
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Event, Game, GameState, Lifetime, SeatCount

MAX_SEATS = 6
_MAX_DICE = MAX_SEATS * wire.DICE_PER_SEAT

# ---------------------------------------------------------------- import-time tables


class _Hand:
    """One seat's roll: sorted dice, the wire token, and matching counts per bid face."""

    __slots__ = ("dice", "matching", "token")

    def __init__(self, dice: tuple[int, ...]) -> None:
        self.dice = dice
        self.token = wire.encode_hand(dice)
        #: ``matching[f]``: dice that count for a bid on face f (f itself or a wild one).
        self.matching = tuple(wire.matching(dice, f) for f in range(7))


# ``_HAND_OF[values]``: the hand rolled as ``values`` (bytes, one die 1..6 each, in die
# order, 0 to 5 of them).  Equal multisets share one _Hand (462 of them).
_HAND_OF: dict[bytes, _Hand] = {}


def _fill_hands() -> None:
    """Fill :data:`_HAND_OF` (~8 ms): by the first state of a process, not by every
    command that imports the game to list it."""
    shared: dict[tuple[int, ...], _Hand] = {}
    hands = {}
    for k in range(wire.DICE_PER_SEAT + 1):
        for faces in itertools.product(range(1, 7), repeat=k):
            key = tuple(sorted(faces))
            hand = shared.get(key)
            if hand is None:  # made once per multiset: the 9,331 orderings share 462
                hand = shared[key] = _Hand(key)
            hands[bytes(faces)] = hand
    _HAND_OF.update(hands)


#: Random bytes to dice values 1..6; 0 marks a rejected byte (252..255).
_BYTE_TO_DIE = bytes(b % 6 + 1 if b < 252 else 0 for b in range(256))

#: ``_BID_TOKEN[seat][quantity][face]``: the bid's token in a request, with its space.
_BID_TOKEN = [
    [[b" %d:%d:%d" % (s, q, f) for f in range(7)] for q in range(_MAX_DICE + 1)] for s in range(MAX_SEATS)
]
#: ``_ACT[seat]``: the to_act() answer, built once.
_ACT: list[tuple[int, ...]] = [(s,) for s in range(MAX_SEATS)]
_NOBODY: tuple[int, ...] = ()
#: Replies seen before and what they decode to (a reply's meaning never depends on the
#: state).  Bots repeat a few hundred distinct lines; the size bound stops a flood of
#: distinct garbage from growing it.
_DECODED: dict[bytes, wire.Action] = {}
_DECODED_MAX = 4096


def _draw_dice(rng: random.Random, seats: int) -> bytes:
    """The game's dice: five values for each (round, seat), enough for every round a game
    of ``seats`` can have (each round costs one die, and the winner keeps one).  Seat s
    rolls its k dice in round r as the first k of the five values from ``(r * seats + s)
    * 5``."""
    need = wire.DICE_PER_SEAT * seats * wire.DICE_PER_SEAT * seats
    values = rng.randbytes(need + 64).translate(_BYTE_TO_DIE).replace(b"\0", b"")
    while len(values) < need:  # 65 bytes or more rejected: rare, and drawn again
        values += rng.randbytes(need - len(values) + 16).translate(_BYTE_TO_DIE).replace(b"\0", b"")
    return values[:need]


# ---------------------------------------------------------------- state


class LiarsDiceState(GameState):
    """One game.  Seat 0 starts the first round."""

    __slots__ = (
        "_bid",
        "_bidder",
        "_bids",
        "_bids_wire",
        "_counts",
        "_counts_wire",
        "_dice",
        "_eliminated",
        "_events",
        "_hands",
        "_heads",
        "_in_play",
        "_n",
        "_over",
        "_round",
        "_rounds",
        "_starter",
        "_to_act",
        "_turn",
    )

    def __init__(self, seats: int, rng: random.Random) -> None:
        if not _HAND_OF:
            _fill_hands()
        self._n = seats
        #: The deal, by position: see _draw_dice.  ``_round`` numbers the rounds from 0.
        self._dice = _draw_dice(rng, seats)
        self._round = -1
        self._counts = [wire.DICE_PER_SEAT] * seats
        self._in_play = seats * wire.DICE_PER_SEAT
        self._eliminated: list[int] = []  # first out first
        self._events: list[Event] = []
        self._over = False
        #: Finished rounds for summary(): (starter, hands, bids, how it ended).
        self._rounds: list[tuple[int, list[_Hand | None], list[tuple[int, Bid]], tuple[Any, ...]]] = []
        self._start_round(0)

    @classmethod
    def from_round(
        cls,
        hands: Sequence[Sequence[int]],
        starter: int = 0,
        rng: random.Random | None = None,
    ) -> LiarsDiceState:
        """A game whose current round has these dice (``[]`` for a seat that is out).

        ``starter`` makes the first decision; later rounds draw from ``rng`` (a fixed seed
        if None).  For tests and for replaying a logged round.
        """
        if not 2 <= len(hands) <= MAX_SEATS:
            raise ValueError(f"2..{MAX_SEATS} seats, not {len(hands)}")
        if any(len(h) > wire.DICE_PER_SEAT or any(not 1 <= d <= 6 for d in h) for h in hands):
            raise ValueError(f"not valid hands: {hands}")
        if not hands[starter] or sum(1 for h in hands if h) < 2:
            raise ValueError("the starter and at least one other seat need dice")
        state = cls(len(hands), rng or random.Random(0))
        state._counts = [len(h) for h in hands]
        state._in_play = sum(state._counts)
        state._eliminated = [s for s, h in enumerate(hands) if not h]
        state._round = -1  # this is round 0, and later rounds follow it
        state._start_round(starter)
        state._hands = [_HAND_OF[bytes(sorted(h))] if h else None for h in hands]
        return state

    def introduce(self, ids: Sequence[int]) -> None:
        """Tell every seat who sits where, before anything else of the game: the
        ``players`` line, ``ids[s]`` being the stable id of the bot in seat s.

        Seed 001: "Bot objects will persist from game to game in the tournament.  The
        best bots could learn and adapt to the strategies their competitor bots use."
        Seats move every game; the ids let a bot follow each competitor across games.
        """
        if len(ids) != self._n:
            raise ValueError(f"{len(ids)} ids for {self._n} seats")
        if any(not isinstance(i, int) or i < 0 for i in ids):
            raise ValueError(f"bot ids are integers >= 0, got {list(ids)}")
        line = wire.encode_players(ids)
        # First, even before lines already due (a position prepared mid-round).
        self._events[:0] = [Event(s, line) for s in range(self._n)]

    # -- phases --

    def _start_round(self, starter: int) -> None:
        """Roll every seat's dice; ``starter`` makes the first bid."""
        self._round = r = self._round + 1
        dice, per = self._dice, wire.DICE_PER_SEAT
        start = r * self._n * per
        self._hands = [
            _HAND_OF[dice[o : o + c]] if c else None
            for o, c in zip(range(start, start + self._n * per, per), self._counts, strict=True)
        ]
        self._counts_wire = b" ".join(b"%d" % c for c in self._counts)
        self._heads: list[bytes | None] = [None] * self._n
        self._bids: list[tuple[int, Bid]] = []
        self._bids_wire = b""
        self._bid: Bid | None = None
        self._bidder = -1
        self._starter = starter
        self._turn = starter
        self._to_act = _ACT[starter]

    def _next_in_line(self, seat: int) -> int:
        """The next seat after ``seat`` (round the table) that still has dice."""
        counts, n = self._counts, self._n
        s = seat
        while True:
            s = s + 1 if s + 1 < n else 0
            if counts[s]:
                return s

    def _end_round(self, loser: int, dice_lost: int, head: bytes, ending: tuple[Any, ...]) -> None:
        """``loser`` loses ``dice_lost`` dice; everyone sees the dice; next round or the end."""
        hands = self._hands
        line = head + b" hands " + b" ".join(h.token if h else b"-" for h in hands) + b"\n"
        self._events.extend(Event(s, line) for s in range(self._n))
        self._rounds.append((self._starter, hands, self._bids, ending))
        counts = self._counts
        counts[loser] -= dice_lost
        self._in_play -= dice_lost
        if counts[loser] == 0:
            self._eliminated.append(loser)
        if len(self._eliminated) == self._n - 1:
            self._over = True
            self._to_act = _NOBODY
            winner = self.winner
            assert winner is not None  # the game is over
            line = wire.encode_result(winner, self._eliminated)
            self._events.extend(Event(s, line) for s in range(self._n))
            return
        # "the player who lost a die in the last round starts the next round", or, if it
        # left play, "the next bot in line".
        self._start_round(loser if counts[loser] else self._next_in_line(loser))

    # -- the referee's per-decision calls (hot path) --

    def to_act(self) -> Sequence[int]:
        return self._to_act

    def request(self, seat: int) -> bytes:
        head = self._heads[seat]
        if head is None:
            hand = self._hands[seat]
            assert hand is not None, "a seat without dice is never asked"
            head = b"turn %d counts %s dice %s bids" % (seat, self._counts_wire, hand.token)
            self._heads[seat] = head
        return head + self._bids_wire + b"\n"

    def decode(self, seat: int, reply: bytes) -> wire.Action:
        action = _DECODED.get(reply)
        if action is not None:
            return action
        try:
            action = wire.decode_action(reply)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
        if len(_DECODED) < _DECODED_MAX and len(reply) <= 32:
            _DECODED[reply] = action
        return action

    def illegal(self, seat: int, action: wire.Action) -> str | None:
        if seat != self._turn or self._over:
            return wire.NOT_YOUR_TURN
        if action is CHALLENGE:
            return None if self._bid is not None else wire.FIRST_TURN_CHALLENGE
        quantity, face = action
        if 2 <= face <= 6 and 1 <= quantity <= self._in_play and (self._bid is None or action > self._bid):
            return None
        return wire.illegal_reason(self._in_play, self._bid, action)  # says which rule, slowly

    def apply(self, seat: int, action: wire.Action) -> None:
        if action is CHALLENGE:
            self._challenge(seat)
            return
        self._bids.append((seat, action))
        self._bid = action
        self._bidder = seat
        self._bids_wire += _BID_TOKEN[seat][action.quantity][action.face]
        self._turn = turn = self._next_in_line(seat)
        self._to_act = _ACT[turn]

    def _challenge(self, challenger: int) -> None:
        """Count the dice against the bid: "If the bid is valid, the challenger loses a die."""
        bid, bidder = self._bid, self._bidder
        assert bid is not None
        face = bid.face
        count = sum(h.matching[face] for h in self._hands if h is not None)
        loser = challenger if count >= bid.quantity else bidder
        head = b"reveal %d %d %d %d %d %d" % (challenger, bidder, bid.quantity, face, count, loser)
        self._end_round(loser, 1, head, ("challenge", challenger, bidder, count, loser))

    def penalize(self, seat: int, verdict: Verdict) -> None:
        """The seat loses the round: one die, whatever the verdict.

        Seed: "Bots will lose a round (and therefore a die) automatically in three
        circumstances: Timeouts, Exceptions, and Invalid Decisions."  A crash is an
        exception; the match restarts a dead bot for its next turn, and while it cannot,
        each turn it misses costs one die.
        """
        if self._over or not self._counts[seat]:
            return
        lost = 1
        head = b"penalty %d %s %d" % (seat, verdict.value.encode(), lost)
        self._end_round(seat, lost, head, ("penalty", seat, verdict.value, lost))

    def drain_events(self) -> list[Event]:
        events = self._events
        if events:
            self._events = []
        else:
            events = []  # never hand out the list we append to
        return events

    # -- results --

    def is_terminal(self) -> bool:
        return self._over

    @property
    def winner(self) -> int | None:
        """The last seat with dice, once the game is over."""
        if not self._over:
            return None
        return next(s for s in range(self._n) if self._counts[s])

    def scores(self) -> list[float]:
        """One point to the winner ("gains a point in the overall tournament")."""
        winner = self.winner
        return [1.0 if s == winner else 0.0 for s in range(self._n)]

    def ranks(self) -> list[int]:
        """1 for each seat still with dice (the winner, at the end); then the later a seat
        was eliminated, the better its rank."""
        n = self._n
        ranks = [1] * n
        for order, seat in enumerate(self._eliminated):
            ranks[seat] = n - order
        return ranks

    def summary(self) -> dict[str, Any]:
        """Everything a replay needs: each round's dice, bids and how it ended."""
        rounds = []
        for starter, hands, bids, ending in self._rounds:
            record: dict[str, Any] = {
                "starter": starter,
                "dice": [list(h.dice) if h else [] for h in hands],
                "bids": [[s, b.quantity, b.face] for s, b in bids],
            }
            if ending[0] == "challenge":
                _, challenger, bidder, count, loser = ending
                record["challenge"] = {
                    "challenger": challenger,
                    "bidder": bidder,
                    "count": count,
                    "loser": loser,
                }
            else:
                _, seat, verdict, lost = ending
                record["penalty"] = {"seat": seat, "verdict": verdict, "dice_lost": lost}
            rounds.append(record)
        return {"winner": self.winner, "eliminated": list(self._eliminated), "rounds": rounds}

    # -- enumeration (random players, tests, referee.envs; never on the match path) --
    #
    # Index 0 is the challenge; the bid of quantity q on face f is 1 + 5 (q - 1) + (f - 2),
    # for q in 1..5n (the dice of n seats) and f in 2..6: ``action_count()`` is 1 + 25 n.

    def legal_actions(self, seat: int) -> list[wire.Action]:
        """The challenge (when there is a bid to challenge), then every higher bid whose
        quantity is at most the dice in play, lowest first (:func:`protocol.liars_dice.legal_bids`)."""
        if self._over or seat != self._turn:
            return []
        bids: list[wire.Action] = list(wire.legal_bids(self._in_play, self._bid))
        return bids if self._bid is None else [CHALLENGE, *bids]

    def encode(self, seat: int, action: wire.Action) -> bytes:
        return wire.encode_action(action)

    def action_count(self) -> int:
        return 1 + len(wire.FACES) * wire.DICE_PER_SEAT * self._n

    def action_index(self, seat: int, action: wire.Action) -> int:
        if action is CHALLENGE:
            return 0
        quantity, face = action
        if not (1 <= quantity <= wire.DICE_PER_SEAT * self._n and face in wire.FACES):
            raise ValueError(f"bid {quantity} {face} has no index in a game of {self._n} seats")
        return 1 + len(wire.FACES) * (quantity - 1) + face - wire.FACES[0]

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """From the request ``turn S counts ... dice ... bids ...``, with n seats and
        N = 5n dice: the seat S; each seat's dice count; the own dice per face 1..6;
        how many bids this round; the current bid's quantity and face and its bidder
        plus one (all 0 on the round's first turn); each seat's latest bid of the
        round, quantity and face (0 0 if none)."""
        n, per = self._n, wire.DICE_PER_SEAT
        dice = per * n
        low = [0.0] * (11 + 3 * n)
        high = [
            float(n - 1),
            *[float(per)] * n,
            *[float(per)] * 6,
            float(len(wire.FACES) * dice),
            float(dice),
            6.0,
            float(n),
            *[float(dice), 6.0] * n,
        ]
        return low, high

    def observation(self, line: bytes) -> list[float]:
        turn = wire.parse_request(line)
        n = self._n
        latest = [0.0] * (2 * n)
        for bid in turn.bids:
            latest[2 * bid.seat : 2 * bid.seat + 2] = [float(bid.quantity), float(bid.face)]
        last = turn.bids[-1] if turn.bids else None
        return [
            float(turn.seat),
            *map(float, turn.counts),
            *(float(turn.dice.count(face)) for face in range(1, 7)),
            float(len(turn.bids)),
            float(last.quantity if last else 0),
            float(last.face if last else 0),
            float(last.seat + 1 if last else 0),
            *latest,
        ]

    # -- inspection (tests, replays) --

    @property
    def turn(self) -> int:
        """The seat to decide now."""
        return self._turn

    @property
    def starter(self) -> int:
        """The seat that made (or makes) the first bid of the current round."""
        return self._starter

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self._counts)

    @property
    def dice_in_play(self) -> int:
        return self._in_play

    @property
    def current_bid(self) -> Bid | None:
        return self._bid

    @property
    def eliminated(self) -> tuple[int, ...]:
        return tuple(self._eliminated)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The seat's dice this round, ascending (empty when it is out)."""
        hand = self._hands[seat]
        return hand.dice if hand else ()


class LiarsDice(Game):
    name = "liars-dice"
    title = "Liar's Dice (seed 001): 2-6 seats, five dice each, ones wild, last with dice wins"
    seats = SeatCount(2, MAX_SEATS, default=4)
    #: The seed: 50 ms per decision, "A slow bot will be interrupted and lose a die
    #: whenever it takes longer" — the first decision too: the startup allowance ends
    #: when a bot has read its first request.  A late answer is awaited (up to 10 s)
    #: and dropped before the bot's next request, so one slow decision costs one die
    #: and the bot keeps running ("Bot objects will persist").  Ours: 10 s to start,
    #: 1 GiB; no CPU budget per match, since the seed bounds time per decision only and
    #: matches vary in length.
    limits = Limits(
        startup_s=10.0,
        decision_s=0.05,
        first_answer_in_startup=False,
        late_s=10.0,
        cpu_s=None,
        memory_bytes=1 * GiB,
    )
    dead_bot = DeadBot.RESTART
    restart_in_game = True
    #: "Bot objects will persist from game to game in the tournament" (seed 001).
    lifetime = Lifetime.TOURNAMENT
    #: "The best bots could learn and adapt to the strategies their competitor bots use"
    #: (seed 001): each game starts with a ``players`` line of the bots' stable ids.
    tells_ids = True

    def warm_up(self) -> None:
        if not _HAND_OF:
            _fill_hands()

    def new_state(self, seats: int, rng: random.Random) -> LiarsDiceState:
        if seats not in self.seats:
            raise ValueError(f"liars-dice is played by 2..{MAX_SEATS} seats, not {seats}")
        return LiarsDiceState(seats, rng)

    # -- referee check (referee/check/) --

    #: Random legal bids and challenges: it never faults, and rounds end both ways.
    check_opponent = "liars_dice/random_legal.py"

    # -- grading and replays --

    #: Grading's ``random`` bot: uniformly random legal play.
    random_player = "liars_dice/random_legal.py"
    #: Only this game's summaries have it.
    summary_key = "rounds"

    #: The check's kinds: the three requests, then each information line's keyword.
    LINE_KINDS = (
        "opening bid",
        "raise or challenge",
        "turn with a seat out",
        "players",
        "reveal",
        "penalty",
        "result",
    )
    _INFO_KINDS = frozenset(("players", "reveal", "penalty", "result"))

    def line_kinds(self) -> tuple[str, ...]:
        return self.LINE_KINDS

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        try:
            kind = wire.line_kind(line)
            if kind != "turn":
                return (kind,) if kind in self._INFO_KINDS else ()
            turn = wire.parse_request(line)
        except (ValueError, UnicodeDecodeError):
            return ()
        kinds = ["raise or challenge" if turn.bids else "opening bid"]
        if 0 in turn.counts:
            kinds.append("turn with a seat out")
        return tuple(kinds)

    def check_positions(self) -> list[Any]:
        """A ``penalty`` line (the opponent's round lost to a timeout, before the bot
        bids), and a three-seat game in which one seat is already out."""
        from referee.games.base import CheckPosition

        penalty = LiarsDiceState.from_round(
            [[2, 2, 3, 5, 6], [1, 3, 4, 4, 6]], starter=1, rng=random.Random(1)
        )
        penalty.penalize(1, Verdict.TIMEOUT)
        seat_out = LiarsDiceState.from_round([[1, 2, 3, 4, 5], [], [2, 3, 3, 6, 6]], rng=random.Random(2))
        return [CheckPosition("penalty", penalty), CheckPosition("turn with a seat out", seat_out, seats=3)]
