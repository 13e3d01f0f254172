"""Bidding Wars rules (seed 002): Goofspiel for two players with cards 1..n.

Each player holds one card of each rank 1..n; a prize deck 1..n is shuffled.  A game is
n *turns*, each in three phases:

1. **Reveal the prize.**  The top prize card ``k`` is turned over.
2. **Bid.**  Both players choose a card from their hand at the same time.  This is a
   simultaneous move: ``to_act()`` is ``(0, 1)``; the referee asks both seats, judges
   each reply against the state before the turn, and plays the turn as one joint action
   (:meth:`BiddingWarsState.apply_joint`).  No state ever holds one bid without the
   other, so no request can show the opponent's bid of the current turn.
3. **Settle.**  The higher card scores ``k`` points; equal cards discard the prize
   ("neither player wins and neither player adds to his/her score").  Both bid cards
   leave the hands, and both seats are told the two bids with a ``reveal`` line.

After n turns the higher total wins; equal totals draw.  A fault (a card not in the
hand, a reply that does not parse, a timeout, a dead bot) forfeits the game: the joint
step that carries a penalty ends the game unscored, and the offender loses whatever the
points.  When both seats are penalised in the same turn both forfeit, which is a draw.
Both seats get an ``end`` line when the game is over.

A single seat's :meth:`~BiddingWarsState.apply` or :meth:`~BiddingWarsState.penalize`
has no meaning in a simultaneous game and raises, except in a position built by hand
whose other seat was penalised in advance (``referee check``'s forfeit position): there
``to_act()`` is the one seat still to answer, and its answer completes the step.

Hot path: each hand is kept twice, as a membership table (``bytearray``, ``has[c]`` is
1 while card ``c`` is held) for :meth:`illegal`, and as the request's list text (cards
between single spaces, ``b" 1 2 3 "``) from which a bid card's token is cut out, so a
request is one bytes ``%`` format.  The wire format lives in :mod:`protocol.bidding_wars`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from protocol import bidding_wars as wire
from referee.core.limits import GiB, Limits
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Event, Game, GameState, Option, SeatCount

_BOTH = (0, 1)
_NOBODY = ()
#: ``b" 7 "``: a card's token as it sits in a list text (space before and after).
_TOKEN = [b" %d " % c for c in range(wire.MAX_CARDS + 1)]
_REQUEST = b"bid %d %d %d %d hand%s theirs%s prizes%s\n"
_REVEAL = b"reveal %d %d %d %s\n"
_WINNER = (b"tie", b"me", b"them")  # by the sign of (my card - their card): 0, +1, -1
#: The two ``reveal`` events of a turn, by (prize, seat 0's card, seat 1's card): events
#: are immutable, so games share them.  Bounded like Liar's Dice's decode cache (n = 13
#: has 2197 kinds of turn, n = 100 a million).
_REVEALS: dict[tuple[int, int, int], tuple[Event, Event]] = {}
_REVEALS_MAX = 1 << 13

NOT_YOUR_TURN = "this seat has no bid to make now"
SIMULTANEOUS = (
    "Bidding Wars moves are simultaneous: a turn is played with apply_joint(actions, penalties), "
    "both seats at once"
)


def _list_text(cards: Sequence[int]) -> bytes:
    """``b" 1 2 3 "``: ascending cards with a space before and after each one."""
    return b" " + b"".join(b"%d " % c for c in sorted(cards))


def _not_a_card(card: int, n: int) -> str:
    shown = str(card) if -(10**30) < card < 10**30 else "of over 30 digits"
    if 1 <= card <= n:
        return f"card {shown} is not in your hand (already played)"
    return f"card {shown} is not in your hand (cards are 1..{n})"


class BiddingWarsState(GameState):
    """One game.  Seats 0 and 1 are symmetric: they bid at the same time."""

    __slots__ = (
        "_acting",
        "_deck",
        "_events",
        "_faulted",
        "_has",
        "_history",
        "_lists",
        "_n",
        "_over",
        "_pending",
        "_points",
        "_turn",
        "_unseen",
    )

    def __init__(self, n: int, deck: list[int]) -> None:
        """A game whose prizes come up in ``deck`` order (a permutation of 1..n)."""
        if sorted(deck) != list(range(1, n + 1)):
            raise ValueError(f"the prize deck must be a permutation of 1..{n}")
        self._n = n
        self._deck = deck
        self._turn = 0
        self._points = [0, 0]
        full = bytearray(n + 1)
        full[1:] = b"\x01" * n
        self._has = [full, bytearray(full)]
        hand_text = _list_text(range(1, n + 1))
        self._lists = [hand_text, hand_text]
        # The prizes still face down, ascending: their order is hidden information.
        self._unseen = hand_text.replace(_TOKEN[deck[0]], b" ", 1)
        self._faulted = [False, False]
        #: The seats asked now: both while the game runs, none at the end (one only in a
        #: check position whose other seat is already penalised, see penalize_in_advance).
        self._acting: tuple[int, ...] = _BOTH
        #: Penalties decided before the turn was asked (check positions only).
        self._pending: dict[int, Verdict] = {}
        self._events: list[Event] = []
        self._over = False
        self._history: list[tuple[int, int, int]] = []

    def penalize_in_advance(self, seat: int, verdict: Verdict) -> None:
        """Decide ``seat``'s part of the current turn as a penalty before the turn is asked
        (its bot has timed out, say): only the other seat is asked, and its answer — a
        bid (:meth:`apply`) or a penalty (:meth:`penalize`) — completes the joint step.

        For positions built by hand (``referee check``): in a match every step comes
        whole through :meth:`apply_joint`.
        """
        if self._over or self._acting is not _BOTH:
            raise ValueError("a penalty in advance needs a turn that no seat has been judged in")
        self._pending = {seat: verdict}
        self._acting = (seat ^ 1,)

    # -- the referee's per-decision calls (hot path) --

    def to_act(self) -> Sequence[int]:
        return self._acting

    def request(self, seat: int) -> bytes:
        lists, points = self._lists, self._points
        other = seat ^ 1
        return _REQUEST % (
            self._deck[self._turn],
            points[seat],
            points[other],
            self._n,
            lists[seat][:-1],
            lists[other][:-1],
            self._unseen[:-1],
        )

    def decode(self, seat: int, reply: bytes) -> int:
        if reply.isdigit() and len(reply) <= 18:
            return int(reply)
        try:
            return wire.decode_bid(reply)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None

    def illegal(self, seat: int, action: int) -> str | None:
        if seat not in self._acting:
            return NOT_YOUR_TURN
        if 0 < action <= self._n and self._has[seat][action]:
            return None
        return _not_a_card(action, self._n)

    def apply_joint(self, actions: dict[int, Any], penalties: dict[int, Verdict]) -> None:
        """One turn, both seats at once: settle it, or end the game if a seat is penalised."""
        if penalties or self._acting is not _BOTH or len(actions) != 2:
            self._joint_with_penalties(actions, penalties)
            return
        a = actions[0]
        b = actions[1]
        prize = self._deck[self._turn]
        if a > b:
            self._points[0] += prize
        elif b > a:
            self._points[1] += prize
        has, lists = self._has, self._lists
        has[0][a] = 0
        has[1][b] = 0
        lists[0] = lists[0].replace(_TOKEN[a], b" ", 1)
        lists[1] = lists[1].replace(_TOKEN[b], b" ", 1)
        self._history.append((prize, a, b))
        key = (prize, a, b)
        reveals = _REVEALS.get(key)
        if reveals is None:
            sign = (a > b) - (a < b)
            reveals = (
                Event(0, _REVEAL % (prize, a, b, _WINNER[sign])),
                Event(1, _REVEAL % (prize, b, a, _WINNER[-sign])),
            )
            if len(_REVEALS) < _REVEALS_MAX:
                _REVEALS[key] = reveals
        self._events += reveals
        self._turn = turn = self._turn + 1
        if turn == self._n:
            self._finish(b"played")
        else:  # the next turn: turn over the next prize
            self._unseen = self._unseen.replace(_TOKEN[self._deck[turn]], b" ", 1)

    def _joint_with_penalties(self, actions: dict[int, Any], penalties: dict[int, Verdict]) -> None:
        """The slow path of :meth:`apply_joint`: any penalty forfeits the game, unscored."""
        if self._over:
            raise ValueError("the game is over: there is no turn to play")
        penalties = {**self._pending, **penalties}
        if set(actions) & set(penalties) or set(actions) | set(penalties) != set(_BOTH):
            raise ValueError(
                f"a turn needs each seat in exactly one of actions and penalties, "
                f"not actions {sorted(actions)} and penalties {sorted(penalties)}"
            )
        # (Without a penalty a whole turn takes the fast path, so here there is one.)
        self._pending = {}
        for seat in penalties:
            self._faulted[seat] = True
        self._finish(b"forfeit")

    def apply(self, seat: int, action: int) -> None:
        """Only to complete a turn whose other seat was penalised in advance (a check
        position); otherwise a turn is one joint step (:meth:`apply_joint`)."""
        if not self._pending or self._acting != (seat,):
            raise RuntimeError(SIMULTANEOUS)
        self._joint_with_penalties({seat: action}, {})

    def penalize(self, seat: int, verdict: Verdict) -> None:
        """Like :meth:`apply`: only to complete a turn whose other seat was penalised in
        advance.  Both penalised is a draw."""
        if not self._pending or self._acting != (seat,):
            raise RuntimeError(SIMULTANEOUS)
        self._joint_with_penalties({}, {seat: verdict})

    def drain_events(self) -> list[Event]:
        events = self._events
        self._events = []
        return events

    def _finish(self, how: bytes) -> None:
        self._over = True
        self._acting = _NOBODY
        ranks = self.ranks()
        p = self._points
        for seat in _BOTH:
            result = b"draw" if ranks[0] == ranks[1] else b"win" if ranks[seat] == 1 else b"loss"
            line = b"end %d %d %s %s\n" % (p[seat], p[seat ^ 1], result, how)
            self._events.append(Event(seat, line))

    # -- results --

    def is_terminal(self) -> bool:
        return self._over

    def scores(self) -> list[float]:
        return [float(self._points[0]), float(self._points[1])]

    def ranks(self) -> list[int]:
        f0, f1 = self._faulted
        if f0 or f1:
            return [1, 1] if f0 and f1 else [2, 1] if f0 else [1, 2]
        a, b = self._points
        return [1, 1] if a == b else [1, 2] if a > b else [2, 1]

    def summary(self) -> dict[str, Any]:
        return {
            "cards": self._n,
            "prizes": list(self._deck),
            "bids": [list(turn) for turn in self._history],
            "points": list(self._points),
            "discarded": sum(prize for prize, a, b in self._history if a == b),
            "forfeited_by": [seat for seat in _BOTH if self._faulted[seat]],
        }

    # -- enumeration (random players, tests, referee.envs; never on the match path) --
    #
    # The card c is index c - 1: ``action_count()`` is n.  Both seats choose in the same
    # step; :meth:`legal_actions` is judged against the state before it, as ``illegal``.

    def legal_actions(self, seat: int) -> list[int]:
        """The cards in ``seat``'s hand, ascending, while it has a bid to make."""
        return list(self.hand(seat)) if seat in self._acting else []

    def encode(self, seat: int, action: int) -> bytes:
        return wire.encode_bid(action)

    def action_count(self) -> int:
        return self._n

    def action_index(self, seat: int, action: int) -> int:
        if not 1 <= action <= self._n:
            raise ValueError(f"card {action} has no index in a game of cards 1..{self._n}")
        return action - 1

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """From the request ``bid PRIZE MINE THEIRS N hand ... theirs ... prizes ...``:
        the prize, both scores, then one 0/1 per card 1..n for each of the three lists
        (the own hand, the opponent's hand, the prizes still face down)."""
        n = self._n
        most = float(n * (n + 1) // 2)
        return [0.0] * (3 + 3 * n), [float(n), most, most, *[1.0] * (3 * n)]

    def observation(self, line: bytes) -> list[float]:
        request = wire.parse_request(line)
        n = self._n
        flags = [0.0] * (3 * n)
        for offset, cards in enumerate((request.hand, request.theirs, request.prizes)):
            for card in cards:
                flags[offset * n + card - 1] = 1.0
        return [float(request.prize), float(request.my_score), float(request.their_score), *flags]

    # -- inspection (tests, replays, logs) --

    @property
    def n(self) -> int:
        return self._n

    @property
    def turn(self) -> int:
        """Turns settled so far (0..n)."""
        return self._turn

    @property
    def prize(self) -> int:
        """The prize on the table (the last one once the game is over)."""
        return self._deck[min(self._turn, self._n - 1)]

    @property
    def deck(self) -> tuple[int, ...]:
        """The prize order of the whole game."""
        return tuple(self._deck)

    @property
    def history(self) -> list[tuple[int, int, int]]:
        """Settled turns: (prize, seat 0's card, seat 1's card)."""
        return list(self._history)

    @property
    def discarded(self) -> int:
        """Points of the prizes discarded on ties."""
        return sum(prize for prize, a, b in self._history if a == b)

    def hand(self, seat: int) -> tuple[int, ...]:
        has = self._has[seat]
        return tuple(c for c in range(1, self._n + 1) if has[c])


class BiddingWars(Game):
    name = "bidding-wars"
    title = "Bidding Wars (seed 002, Goofspiel): bid cards 1..n for prizes 1..n, simultaneously"
    seats = SeatCount(2, 2, default=2)
    #: The seed gives no limits; these are ours (docs/protocols/bidding-wars.md says why).
    #: No CPU budget: the 1 s wall limit per bid already bounds a bot's CPU per decision.
    limits = Limits(startup_s=10.0, decision_s=1.0, cpu_s=None, memory_bytes=1 * GiB)
    #: Bots keep their process across the many games of a match; a crash costs the game.
    dead_bot = DeadBot.RESTART
    option_specs: ClassVar[dict[str, Option]] = {
        "cards": Option(int, 13, f"cards per player in Bidding Wars ({wire.MIN_CARDS}..{wire.MAX_CARDS})")
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        n = self.options["cards"]
        if not wire.MIN_CARDS <= n <= wire.MAX_CARDS:
            raise ValueError(f"option cards: {n} is not in {wire.MIN_CARDS}..{wire.MAX_CARDS}")
        self.n: int = n

    def new_state(self, seats: int, rng: random.Random) -> BiddingWarsState:
        if seats not in self.seats:
            raise ValueError(f"bidding-wars is played by 2 seats, not {seats}")
        deck = list(range(1, self.n + 1))
        rng.shuffle(deck)
        return BiddingWarsState(self.n, deck)

    # -- referee check (referee/check/) --

    #: A uniformly random card from its hand: it never faults.
    check_opponent = "bidding_wars/random.py"

    # -- grading and replays --

    #: Grading's ``random`` bot: uniformly random legal play.
    random_player = "bidding_wars/random.py"
    #: Only this game's summaries have it.
    summary_key = "prizes"

    def line_kinds(self) -> tuple[str, ...]:
        middle = ("bid",) if self.n >= 3 else ()  # with n <= 2 every bid is the first or the last
        return ("first bid", *middle, "last bid (no prizes left)", "reveal", "end (played)", "end (forfeit)")

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        try:
            parsed = wire.parse_line(line)
        except (ValueError, UnicodeDecodeError):
            return ()
        if isinstance(parsed, wire.Reveal):
            return ("reveal",)
        if isinstance(parsed, wire.End):
            return (f"end ({parsed.how})",)
        kinds = []
        if len(parsed.hand) == parsed.n:
            kinds.append("first bid")
        if not parsed.prizes:
            kinds.append("last bid (no prizes left)")
        return tuple(kinds) or ("bid",)

    def check_positions(self) -> list[Any]:
        """A game the opponent forfeits in its first turn (it timed out): the bot bids,
        and the game ends with ``end ... forfeit``."""
        from referee.games.base import CheckPosition

        deck = list(range(1, self.n + 1))
        random.Random(3).shuffle(deck)
        forfeit = BiddingWarsState(self.n, deck)
        forfeit.penalize_in_advance(1, Verdict.TIMEOUT)
        return [CheckPosition("end (forfeit)", forfeit)]
