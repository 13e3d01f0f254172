"""An independent PPCA 2014 Hold'em client, for the tests of ``referee serve --dialect ppca``.

It speaks the text protocol of the PPCA 2014 server (seed 003) as the original client did
(reference.md §5), in the form docs/remote.md ("The PPCA dialect") fixes, and checks every
line it receives against that description, strictly: any deviation raises
:class:`ProtocolViolation` with the line's number, the line and the reason.  It shares no
code with the referee (its own turn order, pots and hand evaluator), so a bug in the
referee's rules cannot hide the same bug in the server's output.

``await play(host, port, name)`` logs in, plays every hand it is asked to (``policy``
decides; the default calls or checks), answers ``showdown`` with its best five, and
returns a :class:`Transcript` when the server closes the connection.  Without a network,
:class:`PpcaClient` is the same state machine: ``feed(line)`` returns the reply to send.

What is checked, and the readings taken where docs/remote.md leaves a choice open:

- Framing: ASCII lines ending in ``\\n``, tokens separated by one space, integers in plain
  decimal (``0`` or no leading zero); a line that does not fit the grammar expected at
  that point is a violation (so are a stray ``\\r``, a blank line and an early EOF).
- Login: ``login NAME_<table>_<id>`` (``<id>`` a seat of the table); the names follow, one
  per line, up to ``player list end``; the name listed at our seat is the assigned name.
  ``initial chips = N`` with N > 0.
- Each hand: ``number of players is P`` = the players who have chips (at least 2); the P
  ids in increasing seat order; ``dealer is D`` with D a participant; the small blind from
  the dealer's left, the big blind next (heads-up too: the seed's quirk 1), each posting
  ``min(blind, stack)``; exactly two ``hole card`` lines to a participant (valid, distinct),
  none to anyone else.
- Cards: two tokens, rank ``23456789TJQKA``, suit ``SHDC``; no card twice among our hole
  cards and the board; three ``flop card``, one ``turn card``, one ``river card``, only
  when that street is due (never after everyone but one folded).
- Betting rounds: ``round starts``, then one ``player P has C chips`` per participant (any
  order), C = that player's chips behind as tracked, and the chips at the table (stacks +
  pots + bets) equal to the table's total.  ``action`` only to us when we are the player
  to act; ``player P bets X | checks | folds`` only by the player to act (turn order:
  preflop from the big blind's left, later from the dealer's left, a raise re-opening to
  everyone with chips, all-in players never asked), and only a legal action (an illegal
  reply must be broadcast as ``folds``).  Our own action must be broadcast as sent (or as
  ``folds`` when we sent something illegal or nothing).  A round in which nobody can bet
  (all-in) may come with or without its ``round starts`` … ``round ends`` frame.
- Pots at ``round ends``: the pots of the ppca rules (per round, one pot per contribution
  level, every contributor listed, folded ones too; an uncalled bet goes back first).
  Either every pot of the hand is listed (``pot 0`` …) or only the new ones of the round
  (numbered on from the earlier ones); the server must keep to one reading.
- Showdown: ``start showdown`` with at least two players left and five board cards;
  ``showdown`` only to us, once, when we are in the hand; ``player P shows`` five cards
  ``which is`` the category of those five (when they are five distinct cards), once per
  player left in the hand; ours exactly the five we sent.  After a fold-out ``start
  showdown`` may be sent or not, but nobody is asked to show.
- Payout: ``declare winner``, then per pot ``pot I is shared by N players`` and N ``player P
  gets C chips`` lines: each pot once, winners among its contributors still in the hand
  (all its contributors when they all folded), shares adding up to the pot, chips at the
  table constant after every ``gets``; ``game over`` only when every pot is paid.
- End: the server may close only between hands, and only once the game is over (one
  player has every chip, or ``max_hands`` hands were played).

Decisions are corrected as the stock client did, and each correction is counted in
``Transcript.corrections``: ``call-to-check`` (CALL with nothing to call), ``raise-below-minimum``
(sent as a call), ``raise-above-stack`` (sent as all-in), and ``raise-not-allowed`` (ours: a
RAISE where the rules allow no raise is sent as a call).  CHECK facing a bet is sent as is.
The big blind's CALL where the seed's quirk wants "call 0" is sent as ``bet 0``
(``bb_call_zero=False``: as ``check``, the stock client's literal correction, which the
server folds).  ``stall_at`` is permanent: from that action on the client answers nothing.

``check_rules`` (default on) also checks the Hold'em rules that are not wire syntax
(docs/protocols/holdem.md, ``--rules ppca``): the blind schedule (1, 2, 5, … every 3
hands), the button moving to the next player with chips, raise sizes (minimum raise,
re-opening after short all-ins), the winners of each pot (when every hand still in could
be judged from the ``shows`` lines) and the split (equal shares, odd chips to the first
winner counting from the dealer, inclusive).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, NoReturn

import trio

RANKS = "23456789TJQKA"
SUITS = "SHDC"
#: The hand categories, weakest first, named as in the English poker terms the seed points
#: to (Wikipedia); docs/remote.md gives only the first and the last.
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
SMALL_BLINDS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
HANDS_PER_LEVEL = 3
MAX_HANDS = 27
ROUNDS = ("preflop", "flop", "turn", "river")
#: The seed's PLAYER_STATUS values.
NOT_ACTIONED, BET, CHECKED, FOLDED = "NOT_ACTIONED", "BET", "CHECKED", "FOLDED"
DECISIONS = ("CHECK", "FOLD", "CALL", "RAISE")

Card = tuple[str, str]  # the seed's card_type: (rank, suit)

_INT = re.compile(r"0|[1-9][0-9]*")


class ProtocolViolation(Exception):
    """The server sent something the protocol does not allow.

    ``line_number`` counts the lines received, from 1 (the line at fault; for a violation
    found at the end of the connection, one past the last line, with ``line`` empty).
    ``transcript`` is what was exchanged up to then (set by :func:`play`).
    """

    def __init__(self, line_number: int, line: str, why: str) -> None:
        super().__init__(f"line {line_number} {line!r}: {why}")
        self.line_number = line_number
        self.line = line
        self.why = why
        self.transcript: Transcript | None = None


# --------------------------------------------------------------------------- hands


def five_value(five: Sequence[Card]) -> tuple[int, ...]:
    """(category, tie-breaks...) of five distinct cards; greater is stronger."""
    ranks = sorted((RANKS.index(r) for r, _ in five), reverse=True)
    flush = len({s for _, s in five}) == 1
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    order = [r for r, _ in groups]
    high = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            high = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:  # A-2-3-4-5: five high
            high = 3
    if high is not None:
        return (8 if flush else 4, high)
    if shape == [4, 1]:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if flush:
        return (5, *ranks)
    category = {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(shape), 0)
    return (category, *order)


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The strongest five of 5 to 7 distinct cards."""
    return max(combinations(cards, 5), key=five_value)


def category_name(five: Sequence[Card]) -> str:
    return CATEGORY_NAMES[five_value(five)[0]]


# --------------------------------------------------------------------------- what the client knows


@dataclass
class Pot:
    """A pot (the seed's pot.h): chips and every player who put chips into it."""

    chips: int
    contributors: tuple[int, ...]


@dataclass
class ShownHand:
    """A ``player P shows ... which is K`` line (the seed's HANDINFO)."""

    player: int
    cards: tuple[Card, ...]
    category: str


@dataclass
class State:
    """What the original client's ``Query`` offered, plus the decision at hand.

    Game: ``names``, ``my_id``, ``login_name`` (as assigned), ``initial_chips``, ``chips``
    (chips behind, per player).  Hand: ``hand`` (1..), ``participants``, ``out_of_game``,
    ``dealer``, ``blind`` (the small blind), ``hole_cards``, ``community_cards``, ``pots``
    (of finished rounds, never merged).  Round: ``round``, ``bets`` ((player, chips put in)
    per bet, call or raise, blinds included), ``player_status``, ``current_bets``.  Last
    hand: ``hands``, ``won_chips_in_pots``, ``chips_won_in_last_game``.  At ``action``:
    ``to_call`` (what a call puts in), ``must_call_zero`` (the big blind's "call 0" of the
    seed's quirk, where a check folds), ``can_raise``, ``min_raise`` and ``max_raise`` (the
    RAISE amount on top of the call).
    """

    login_name: str = ""
    names: list[str] = field(default_factory=list)
    my_id: int = -1
    initial_chips: int = 0
    chips: list[int] = field(default_factory=list)
    hand: int = 0
    participants: list[int] = field(default_factory=list)
    out_of_game: bool = False
    dealer: int = -1
    blind: int = 0
    hole_cards: list[Card] = field(default_factory=list)
    community_cards: list[Card] = field(default_factory=list)
    pots: list[Pot] = field(default_factory=list)
    round: str = ""
    bets: list[tuple[int, int]] = field(default_factory=list)
    player_status: list[str] = field(default_factory=list)
    current_bets: list[int] = field(default_factory=list)
    hands: list[ShownHand] = field(default_factory=list)
    won_chips_in_pots: list[list[tuple[int, int]]] = field(default_factory=list)
    chips_won_in_last_game: list[int] = field(default_factory=list)
    to_call: int = 0
    must_call_zero: bool = False
    can_raise: bool = False
    min_raise: int = 0
    max_raise: int = 0

    @property
    def number_of_player(self) -> int:
        return len(self.names)

    @property
    def number_of_participants(self) -> int:
        return len(self.participants)


Policy = Callable[[State], tuple[str, int]]


def call_or_check(state: State) -> tuple[str, int]:
    """The default policy: call a bet (and the big blind's call 0), else check."""
    return ("CALL", 0) if state.to_call > 0 or state.must_call_zero else ("CHECK", 0)


@dataclass
class Transcript:
    """What one connection saw: ``lines`` are ``("recv" | "sent", line)`` in order."""

    name: str
    lines: list[tuple[str, str]]
    final_chips: list[int]
    hands: int
    corrections: Counter[str]
    actions: int
    disconnected: bool
    state: State

    @property
    def received(self) -> list[str]:
        return [line for way, line in self.lines if way == "recv"]

    @property
    def sent(self) -> list[str]:
        return [line for way, line in self.lines if way == "sent"]

    @property
    def total_corrections(self) -> int:
        return sum(self.corrections.values())


# --------------------------------------------------------------------------- the client


class PpcaClient:
    """The protocol state machine of one connection: ``feed`` each line, send what it returns.

    ``stall_at=k``: from the k-th ``action`` on, answer nothing (``action`` nor
    ``showdown``) but keep reading; the server must fold us.  ``disconnect_at=k``: at the
    k-th ``action`` set ``disconnected`` (the caller closes).  ``bad_reply_at=k``: answer the
    k-th ``action`` with ``check`` whatever the situation.  ``any_five``: show the first five
    of our seven cards (hole cards, then the board) instead of the best five.
    ``bb_call_zero``: the big blind's CALL where the seed's quirk wants "call 0" is sent as
    ``bet 0`` (docs/remote.md); with False the stock client's correction "CALL with nothing
    to call → check" applies there too, which the server folds, as the original did.
    ``max_hands``: the game's length (None: any).  ``check_rules``: see the module's doc.
    """

    def __init__(
        self,
        name: str,
        policy: Policy | None = None,
        *,
        stall_at: int | None = None,
        disconnect_at: int | None = None,
        bad_reply_at: int | None = None,
        any_five: bool = False,
        bb_call_zero: bool = True,
        check_rules: bool = True,
        max_hands: int | None = MAX_HANDS,
    ) -> None:
        if not name or not name.isascii() or not name.isprintable() or " " in name:
            raise ValueError(f"a login name is one printable ASCII token: {name!r}")
        self.name = name
        self.policy = policy or call_or_check
        self.stall_at, self.disconnect_at, self.bad_reply_at = stall_at, disconnect_at, bad_reply_at
        self.any_five, self.bb_call_zero = any_five, bb_call_zero
        self.check_rules, self.max_hands = check_rules, max_hands
        self.state = State()
        self.lines: list[tuple[str, str]] = [("sent", f"login {name}")]
        self.lineno = 0
        self.line = ""
        self.phase = "login"
        self.actions = 0  # `action` lines received
        self.dead = False  # stalled: answers nothing any more
        self.disconnected = False
        self.corrections: Counter[str] = Counter()
        self.hands_seen = 0  # hands finished with `game over`
        self.k = 0  # seats at the table
        self.total = 0  # chips at the table
        self.prev_dealer: int | None = None
        self.pot_mode: str | None = None  # "all" or "new": how `round ends` lists pots

    # ---------------------------------------------------------------- plumbing

    def _fail(self, why: str) -> NoReturn:
        raise ProtocolViolation(self.lineno, self.line, why)

    def _int(self, token: str, what: str) -> int:
        if not _INT.fullmatch(token):
            self._fail(f"{what}: {token!r} is not a number")
        return int(token)

    def _seat(self, token: str, what: str) -> int:
        seat = self._int(token, what)
        if seat >= self.k:
            self._fail(f"{what}: no seat {seat} at a table of {self.k}")
        return seat

    def _card(self, rank: str, suit: str) -> Card:
        if len(rank) != 1 or rank not in RANKS or len(suit) != 1 or suit not in SUITS:
            self._fail(f"{rank!r} {suit!r} is not a card (rank {RANKS}, suit {SUITS})")
        return (rank, suit)

    def _cards(self, tokens: Sequence[str]) -> list[Card]:
        return [self._card(tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]

    def transcript(self) -> Transcript:
        return Transcript(
            name=self.state.login_name,
            lines=list(self.lines),
            final_chips=list(self.state.chips),
            hands=self.hands_seen,
            corrections=Counter(self.corrections),
            actions=self.actions,
            disconnected=self.disconnected,
            state=self.state,
        )

    def feed(self, line: str) -> str | None:
        """One line received (without its ``\\n``); returns the line to send, if any."""
        self.lineno += 1
        self.line = line
        self.lines.append(("recv", line))
        if not line.isascii():
            self._fail("not ASCII")
        reply = self._dispatch(line.split(" "))
        if reply is not None:
            self.lines.append(("sent", reply))
        return reply

    def _dispatch(self, words: list[str]) -> str | None:
        return getattr(self, f"_on_{self.phase}")(words)

    def finish(self) -> None:
        """The server closed the connection: only allowed once the game is over."""
        self.lineno += 1
        self.line = ""
        if self.phase != "between":
            self._fail(f"connection closed in the middle of {'a hand' if self.state.hand else 'the login'}")
        alive = sum(1 for c in self.state.chips if c > 0)
        if self.max_hands is not None and self.hands_seen < self.max_hands and alive > 1:
            self._fail(f"connection closed after {self.hands_seen} hands, with {alive} players still in")

    # ---------------------------------------------------------------- login

    def _on_login(self, words: list[str]) -> None:
        prefix = self.name + "_"
        if len(words) != 2 or words[0] != "login" or not words[1].startswith(prefix):
            self._fail(f"expected 'login {self.name}_<table>_<id>'")
        table, sep, seat = words[1][len(prefix) :].rpartition("_")
        if not sep or not table:
            self._fail(f"expected 'login {self.name}_<table>_<id>'")
        self.state.my_id = self._int(seat, "id")
        self.state.login_name = words[1]
        self.phase = "names"

    def _on_names(self, words: list[str]) -> None:
        st = self.state
        if words != ["player", "list", "end"]:
            st.names.append(self.line)
            return
        self.k = len(st.names)
        if st.my_id >= self.k:
            self._fail(f"our id {st.my_id} is not a seat of this table of {self.k}")
        if st.names[st.my_id] != st.login_name:
            self._fail(f"seat {st.my_id} is listed as {st.names[st.my_id]!r}, not {st.login_name!r}")
        self.phase = "initial"

    def _on_initial(self, words: list[str]) -> None:
        if len(words) != 4 or words[:3] != ["initial", "chips", "="]:
            self._fail("expected 'initial chips = N'")
        chips = self._int(words[3], "initial chips")
        if chips == 0:
            self._fail("no initial chips")
        st = self.state
        st.initial_chips = chips
        st.chips = [chips] * self.k
        st.chips_won_in_last_game = [0] * self.k
        self.total = chips * self.k
        self.phase = "between"

    # ---------------------------------------------------------------- a hand's start

    def _on_between(self, words: list[str]) -> None:
        if words != ["game", "starts"]:
            self._fail("expected 'game starts' (or the end of the connection)")
        st = self.state
        if self.max_hands is not None and self.hands_seen >= self.max_hands:
            self._fail(f"a hand after the last ({self.max_hands})")
        alive = [p for p in range(self.k) if st.chips[p] > 0]
        if len(alive) < 2:
            self._fail(f"a hand with {len(alive)} player(s) holding chips")
        st.hand += 1
        st.participants = []
        st.hole_cards = []
        st.community_cards = []
        st.pots = []
        st.round = ""
        st.bets = []
        st.current_bets = [0] * self.k
        st.player_status = [FOLDED] * self.k
        st.to_call, st.must_call_zero, st.can_raise, st.min_raise, st.max_raise = 0, False, False, 0, 0
        self.bet = [0] * self.k
        self.folded = [False] * self.k
        self.asked = False  # `action` received, our broadcast not yet
        self.expect_mine: tuple[str, int] | None = None
        self.phase = "nplayers"

    def _on_nplayers(self, words: list[str]) -> None:
        if len(words) != 5 or words[:4] != ["number", "of", "players", "is"]:
            self._fail("expected 'number of players is P'")
        count = self._int(words[4], "number of players")
        alive = sum(1 for c in self.state.chips if c > 0)
        if count != alive:
            self._fail(f"{alive} players have chips, not {count}")
        self.phase = "ids"

    def _on_ids(self, words: list[str]) -> None:
        st = self.state
        if len(words) != 1:
            self._fail("expected a participant's id")
        seat = self._seat(words[0], "participant")
        if st.chips[seat] == 0:
            self._fail(f"player {seat} has no chips")
        if st.participants and seat <= st.participants[-1]:
            self._fail("participants not in increasing seat order")
        st.participants.append(seat)
        if len(st.participants) == sum(1 for c in st.chips if c > 0):
            st.out_of_game = st.my_id not in st.participants
            for p in st.participants:
                st.player_status[p] = NOT_ACTIONED
            self.phase = "sb"

    def _on_sb(self, words: list[str]) -> None:
        if len(words) != 4 or words[:3] != ["small", "blind", "is"]:
            self._fail("expected 'small blind is B'")
        blind = self._int(words[3], "small blind")
        if blind == 0:
            self._fail("a small blind of 0")
        st = self.state
        level = min((st.hand - 1) // HANDS_PER_LEVEL, len(SMALL_BLINDS) - 1)
        if self.check_rules and blind != SMALL_BLINDS[level]:
            self._fail(f"hand {st.hand}'s small blind is {SMALL_BLINDS[level]}")
        st.blind = blind
        self.phase = "dealer"

    def _on_dealer(self, words: list[str]) -> None:
        if len(words) != 3 or words[:2] != ["dealer", "is"]:
            self._fail("expected 'dealer is D'")
        st = self.state
        dealer = self._seat(words[2], "dealer")
        if dealer not in st.participants:
            self._fail(f"the dealer {dealer} is not in the hand")
        if self.check_rules and self.prev_dealer is not None:
            due = next(
                s % self.k
                for s in range(self.prev_dealer + 1, self.prev_dealer + 1 + self.k)
                if st.chips[s % self.k]
            )
            if dealer != due:
                self._fail(f"the button moves from {self.prev_dealer} to {due}")
        st.dealer = self.prev_dealer = dealer
        # Clockwise (increasing seats) from the dealer's left; the dealer is last.
        self.order = [s % self.k for s in range(dealer + 1, dealer + 1 + self.k) if st.chips[s % self.k]]
        self.sb_seat, self.bb_seat = self.order[0], self.order[1]
        self.phase = "blind1"

    def _on_blind1(self, words: list[str]) -> None:
        self._blind(words, self.sb_seat, self.state.blind, "small")
        self.phase = "blind2"

    def _on_blind2(self, words: list[str]) -> None:
        self._blind(words, self.bb_seat, 2 * self.state.blind, "big")
        self.max_bet = max(self.bet)
        if self.state.my_id in self.state.participants:
            self.phase = "hole"
        else:
            self._begin_round(0)

    def _blind(self, words: list[str], seat: int, blind: int, which: str) -> None:
        if len(words) != 5 or words[0] != "player" or words[2:4] != ["blind", "bet"]:
            self._fail(f"expected 'player P blind bet X' (the {which} blind)")
        player = self._seat(words[1], "blind")
        amount = self._int(words[4], "blind")
        if player != seat:
            self._fail(f"the {which} blind is player {seat}'s")
        due = min(blind, self.state.chips[seat])
        if amount != due:
            self._fail(f"the {which} blind is {due}")
        self._put(seat, amount)

    def _on_hole(self, words: list[str]) -> None:
        st = self.state
        if len(words) != 4 or words[:2] != ["hole", "card"]:
            self._fail(
                "expected 'hole card R S' (our second)" if st.hole_cards else "expected 'hole card R S'"
            )
        card = self._card(words[2], words[3])
        if card in st.hole_cards:
            self._fail("the same hole card twice")
        st.hole_cards.append(card)
        if len(st.hole_cards) == 2:
            self._begin_round(0)

    # ---------------------------------------------------------------- betting

    def _put(self, seat: int, amount: int) -> None:
        st = self.state
        st.chips[seat] -= amount
        self.bet[seat] += amount
        st.current_bets[seat] = self.bet[seat]
        st.bets.append((seat, amount))

    def _live(self) -> list[int]:
        return [s for s in self.order if not self.folded[s]]

    def _begin_round(self, street: int) -> None:
        st = self.state
        self.street = street
        st.round = ROUNDS[street]
        if street:
            st.bets = []
            st.current_bets = [0] * self.k
            self.max_bet = 0
        for s in self.order:
            st.player_status[s] = FOLDED if self.folded[s] else NOT_ACTIONED
        self.full_raise = 0  # the largest raise of the round
        self.acted: set[int] = set()  # who acted since the last full raise
        self.short_sum = 0  # short all-in raises since then, until they make a full one
        m = len(self.order)
        first = (self.order.index(self.bb_seat) + 1) % m if street == 0 else 0
        turn = [self.order[(first + i) % m] for i in range(m)]
        # Asked: players with chips who have something to decide (someone else still in
        # the hand can put in more than they have in front of them).
        second = sorted(self.bet[s] + st.chips[s] for s in self._live())[-2]
        self.queue = [s for s in turn if not self.folded[s] and st.chips[s] > 0 and self.bet[s] < second]
        self.round_over = not self.queue or (len(self.queue) == 1 and self.bet[self.queue[0]] >= self.max_bet)
        self.settled = False
        self.pot_lines: list[tuple[int, int, tuple[int, ...]]] = []
        self.has_seen: set[int] = set()
        if not self.round_over:
            self._options()
        self.phase = "round_start"

    def _options(self) -> None:
        """The options of the player at the head of the queue."""
        st = self.state
        seat = self.queue[0]
        chips = st.chips[seat]
        self.owed = self.max_bet - self.bet[seat]
        self.to_call = min(chips, self.owed)
        bb = 2 * st.blind
        self.free_call = self.to_call == 0 and self.street == 0 and self.max_bet == bb
        others = any(
            s != seat and not self.folded[s] and st.chips[s] + self.bet[s] > self.max_bet for s in self.order
        )
        self.can_raise = (
            chips > self.owed
            and self.to_call >= self.full_raise
            and not (self.short_sum and seat in self.acted)
            and others
        )
        if self.can_raise:
            self.max_x = chips - self.owed
            self.min_x = min(max(self.full_raise, bb), self.max_x)
        else:
            self.min_x = self.max_x = 0

    def _legal(self, kind: str, amount: int) -> str | None:
        """Why the head of the queue may not do this (None: legal)."""
        if kind == "folds":
            return None
        if kind == "checks":
            if self.to_call:
                return f"a check facing {self.to_call} to call"
            if self.free_call:
                return "a check by the big blind, who must call 0 (the seed's quirk)"
            return None
        chips = self.state.chips[self.queue[0]]
        if amount > chips:
            return f"a bet of {amount} with {chips} chips"
        if amount < self.to_call:
            return f"a bet of {amount} facing {self.to_call} to call"
        if amount == self.to_call:
            return None  # a call (0 for the big blind's call 0, or when checking is free)
        if not self.can_raise and (self.check_rules or chips <= self.owed):
            return "a raise where raising is not allowed"
        x = amount - self.owed
        if self.check_rules and not self.min_x <= x <= self.max_x:
            return f"a raise of {x}, outside {self.min_x}..{self.max_x}"
        return None

    def _apply(self, seat: int, kind: str, amount: int) -> None:
        st = self.state
        self.queue.pop(0)
        self.acted.add(seat)
        if kind == "folds":
            self.folded[seat] = True
            st.player_status[seat] = FOLDED
            if len(self._live()) == 1:
                self.round_over = True
                return
        elif kind == "checks":
            st.player_status[seat] = CHECKED
        else:
            raising = amount > self.to_call
            x = amount - self.owed
            self._put(seat, amount)
            st.player_status[seat] = BET
            if raising:
                if x >= self.full_raise:
                    self.full_raise = x
                    self.acted = {seat}
                    self.short_sum = 0
                else:
                    self.short_sum += x
                    if self.short_sum >= self.full_raise:
                        self.short_sum = 0
                self.max_bet = self.bet[seat]
                m = len(self.order)
                i = self.order.index(seat)
                turn = (self.order[(i + j) % m] for j in range(1, m))
                self.queue = [s for s in turn if not self.folded[s] and st.chips[s] > 0]
        if self.queue:
            self._options()
        else:
            self.round_over = True

    def _settle(self) -> None:
        """The round is over: the uncalled bet goes back, then the round's pots are made."""
        if self.settled:
            return
        self.settled = True
        st = self.state
        cutoff = sorted(self.bet[s] for s in self.order)[-2]
        for s in self.order:
            if self.bet[s] > cutoff:
                st.chips[s] += self.bet[s] - cutoff
                self.bet[s] = cutoff
        self.new_pots = []
        previous = 0
        for level in sorted({self.bet[s] for s in self.order if self.bet[s] > 0}):
            contributors = tuple(s for s in self.order if self.bet[s] >= level)
            self.new_pots.append(Pot((level - previous) * len(contributors), contributors))
            previous = level
        st.pots.extend(self.new_pots)
        self.bet = [0] * self.k
        self.max_bet = 0

    def _after_round(self) -> None:
        live = self._live()
        if len(live) == 1:
            self.started_showdown = False
            self.phase = "foldout"
        elif self.street == 3:
            self.phase = "showdown_start"
        else:
            self.street += 1
            self.phase = "cards"

    def _on_round_start(self, words: list[str]) -> str | None:
        if words == ["round", "starts"]:
            self.phase = "has"
            return None
        if not self.round_over:
            self._fail("expected 'round starts'")
        # Nobody can bet this round: the frame may be left out.
        self._settle()
        self._after_round()
        return self._dispatch(words)

    def _on_has(self, words: list[str]) -> None:
        st = self.state
        if len(words) != 5 or words[0] != "player" or words[2] != "has" or words[4] != "chips":
            self._fail(
                f"expected 'player P has C chips' ({len(self.has_seen)} of {len(st.participants)} so far)"
            )
        seat = self._seat(words[1], "player")
        chips = self._int(words[3], "chips")
        if seat not in st.participants:
            self._fail(f"player {seat} is not in the hand")
        if seat in self.has_seen:
            self._fail(f"player {seat}'s chips twice")
        if chips != st.chips[seat]:
            self._fail(f"player {seat} has {st.chips[seat]} chips behind")
        self.has_seen.add(seat)
        if len(self.has_seen) == len(st.participants):
            on_table = sum(st.chips) + sum(p.chips for p in st.pots) + sum(self.bet)
            if on_table != self.total:
                self._fail(f"{on_table} chips at the table (stacks, pots and bets), not {self.total}")
            self.phase = "betting"

    def _on_betting(self, words: list[str]) -> str | None:
        st = self.state
        me = st.my_id
        if words == ["action"]:
            if self.round_over or self.queue[0] != me:
                who = "nobody" if self.round_over else f"player {self.queue[0]}"
                self._fail(f"'action' to us, but {who} is to act")
            if self.asked:
                self._fail("a second 'action' before our action was broadcast")
            self.asked = True
            return self._decide()
        if len(words) in (3, 4) and words[0] == "player" and words[2] in ("bets", "checks", "folds"):
            if (words[2] == "bets") != (len(words) == 4):
                self._fail("expected 'player P bets X', 'player P checks' or 'player P folds'")
            seat = self._seat(words[1], "player")
            amount = self._int(words[3], "bet") if len(words) == 4 else 0
            if self.round_over:
                self._fail(f"player {seat} acts after the round is over")
            if seat != self.queue[0]:
                self._fail(f"player {seat} acts, but player {self.queue[0]} is to act")
            if seat == me:
                if not self.asked and not self.dead:
                    self._fail("our action broadcast, but we were not asked")
                kind, chips = self.expect_mine or ("folds", 0)
                if (words[2], amount) != (kind, chips):
                    self._fail(f"our action is 'player {me} {kind}{f' {chips}' if kind == 'bets' else ''}'")
                self.asked = False
                self.expect_mine = None
            else:
                why = self._legal(words[2], amount)
                if why:
                    self._fail(f"the server accepted an illegal action: {why} (it must fold)")
            self._apply(seat, words[2], amount)
            return None
        if words[:1] == ["pot"]:
            if not self.round_over:
                self._fail("a pot before the round is over")
            self._settle()
            if len(words) < 8 or words[2] != "has" or words[4:7] != ["chips", "contributed", "by"]:
                self._fail("expected 'pot I has A chips contributed by P Q ...'")
            index = self._int(words[1], "pot")
            amount = self._int(words[3], "pot chips")
            who = [self._seat(w, "contributor") for w in words[7:]]
            if len(set(who)) != len(who):
                self._fail("a contributor listed twice")
            self._pot_line(index, amount, tuple(sorted(who)))
            return None
        if words == ["round", "ends"]:
            if not self.round_over:
                self._fail(f"the round ends, but player {self.queue[0]} is to act")
            self._settle()
            self._check_pots()
            self._after_round()
            return None
        self._fail("expected 'action', 'player P bets X | checks | folds', 'pot ...' or 'round ends'")

    def _pot_line(self, index: int, amount: int, who: tuple[int, ...]) -> None:
        """A ``pot`` line of ``round ends``: every pot of the hand from pot 0 (reading "all"),
        or only this round's new pots (reading "new"), in order; one reading for the game."""
        pots = self.state.pots
        if index >= len(pots):
            self._fail(f"there is no pot {index}: the hand has {len(pots)} ({self._pots_text()})")
        pot = pots[index]
        if (amount, who) != (pot.chips, tuple(sorted(pot.contributors))):
            self._fail(f"pot {index} has {pot.chips} chips contributed by {sorted(pot.contributors)}")
        old = len(pots) - len(self.new_pots)
        if self.pot_lines:
            due = {self.pot_lines[-1][0] + 1}
        else:
            due = {0 if self.pot_mode != "new" else old, old if self.pot_mode != "all" else 0}
        if index not in due:
            self._fail(f"pot {index} listed where pot {' or '.join(map(str, sorted(due)))} is due")
        self.pot_lines.append((index, amount, who))

    def _pots_text(self) -> str:
        return ", ".join(
            f"pot {i}: {p.chips} by {sorted(p.contributors)}" for i, p in enumerate(self.state.pots)
        )

    def _check_pots(self) -> None:
        """``round ends``: were all the pots of one reading listed?"""
        pots = self.state.pots
        old = len(pots) - len(self.new_pots)
        first = self.pot_lines[0][0] if self.pot_lines else len(pots)
        last = self.pot_lines[-1][0] + 1 if self.pot_lines else len(pots)
        readings = [mode for mode, start in (("all", 0), ("new", old)) if first == start]
        if last != len(pots) or not readings:
            self._fail(
                f"the round ends with pots left out ({self._pots_text()}; this round's from pot {old})"
            )
        if len(readings) == 1:
            if self.pot_mode not in (None, readings[0]):
                self._fail(
                    f"pots listed as the {readings[0]} pots this round, the {self.pot_mode} pots before"
                )
            self.pot_mode = readings[0]

    def _decide(self) -> str | None:
        st = self.state
        self.actions += 1
        k = self.actions
        st.to_call, st.must_call_zero = self.to_call, self.free_call
        st.can_raise, st.min_raise, st.max_raise = self.can_raise, self.min_x, self.max_x
        if self.dead:
            return None
        if k == self.disconnect_at:
            self.disconnected = True
            return None
        if k == self.stall_at:
            self.dead = True
            return None
        if k == self.bad_reply_at:
            reply = "check"
        else:
            kind, amount = self.policy(st)
            reply = self._correct(str(kind).upper(), amount)
        if reply == "fold":
            self.expect_mine = ("folds", 0)
        elif reply == "check":
            self.expect_mine = ("folds", 0) if self._legal("checks", 0) else ("checks", 0)
        else:
            amount = int(reply.split()[1])
            self.expect_mine = ("folds", 0) if self._legal("bets", amount) else ("bets", amount)
        return reply

    def _correct(self, kind: str, amount: int) -> str:
        """The stock client's corrections of a decision (reference.md §5)."""
        if kind == "FOLD":
            return "fold"
        if kind == "CHECK":
            return "check"  # not corrected, even facing a bet: the server folds it
        if kind == "RAISE":
            if not self.can_raise:
                self.corrections["raise-not-allowed"] += 1
                return self._call()
            if amount > self.max_x:
                self.corrections["raise-above-stack"] += 1
                amount = self.max_x
            elif amount < self.min_x:
                self.corrections["raise-below-minimum"] += 1
                return self._call()
            return f"bet {self.owed + amount}"
        if kind == "CALL":
            if self.to_call == 0 and not (self.free_call and self.bb_call_zero):
                self.corrections["call-to-check"] += 1
            return self._call()
        raise ValueError(f"a decision is one of {DECISIONS}, not {kind!r}")

    def _call(self) -> str:
        if self.to_call == 0 and not (self.free_call and self.bb_call_zero):
            return "check"
        return f"bet {self.to_call}"

    # ---------------------------------------------------------------- cards

    def _on_cards(self, words: list[str]) -> None:
        st = self.state
        street = ("flop", "turn", "river")[self.street - 1]
        if len(words) != 4 or words[0] != street or words[1] != "card":
            self._fail(f"expected '{street} card R S'")
        card = self._card(words[2], words[3])
        if card in st.community_cards or card in st.hole_cards:
            self._fail(f"{card[0]} {card[1]} is already dealt")
        st.community_cards.append(card)
        if len(st.community_cards) == (3, 4, 5)[self.street - 1]:
            self._begin_round(self.street)

    # ---------------------------------------------------------------- showdown and payout

    def _on_showdown_start(self, words: list[str]) -> None:
        if words != ["start", "showdown"]:
            self._fail("expected 'start showdown'")
        self.asked_show = False
        self.my_five: tuple[Card, ...] | None = None
        self.shown: dict[int, tuple[Card, ...]] = {}
        self.shown_as: dict[int, str] = {}
        #: Players told as ``player P shows nothing valid`` (an invalid or missing five).
        self.invalid: set[int] = set()
        self.phase = "showdown"

    def _on_foldout(self, words: list[str]) -> None:
        if words == ["start", "showdown"] and not self.started_showdown:
            self.started_showdown = True
            return
        if words != ["declare", "winner"]:
            self._fail("expected 'declare winner' (everyone else folded)")
        self.shown, self.shown_as = {}, {}
        self.invalid = set()
        self.my_five = None
        self._start_payout()

    def _on_showdown(self, words: list[str]) -> str | None:
        st = self.state
        me = st.my_id
        if words == ["showdown"]:
            if me not in self._live():
                self._fail("'showdown' to us, but we are not in the hand")
            if self.asked_show:
                self._fail("'showdown' to us twice")
            self.asked_show = True
            if self.dead:
                return None
            seven = [*st.hole_cards, *st.community_cards]
            self.my_five = tuple(seven[:5]) if self.any_five else best_five(seven)
            return " ".join(f"{r} {s}" for r, s in self.my_five)
        if (
            len(words) >= 16
            and words[0] == "player"
            and words[2] == "shows"
            and words[13:15] == ["which", "is"]
        ):
            seat = self._seat(words[1], "player")
            five = tuple(self._cards(words[3:13]))
            category = " ".join(words[15:])
            if category not in CATEGORY_NAMES:
                self._fail(f"{category!r} is not a hand category ({', '.join(CATEGORY_NAMES)})")
            if seat not in self._live():
                self._fail(f"player {seat} shows, but is not in the hand")
            if seat in self.shown:
                self._fail(f"player {seat} shows twice")
            if seat == me and not self.dead:
                if self.my_five is None:
                    self._fail("our hand is shown before we were asked for it")
                if sorted(five) != sorted(self.my_five):
                    self._fail("these are not the five cards we showed")
            if len(set(five)) == 5 and category != category_name(five):
                self._fail(f"these five are a {category_name(five)}")
            self.shown[seat] = five
            self.shown_as[seat] = category
            return None
        if len(words) == 5 and words[0] == "player" and words[2:] == ["shows", "nothing", "valid"]:
            # docs/remote.md: an invalid five, or none in time, ranks lowest.
            seat = self._seat(words[1], "player")
            if seat not in self._live():
                self._fail(f"player {seat} shows, but is not in the hand")
            if seat in self.shown or seat in self.invalid:
                self._fail(f"player {seat} shows twice")
            if seat == me and not self.dead and self.my_five is not None and len(set(self.my_five)) == 5:
                self._fail("our valid five is told as nothing valid")
            self.invalid.add(seat)
            return None
        if words == ["declare", "winner"]:
            if me in self._live() and not self.dead:
                if not self.asked_show:
                    self._fail("the showdown ends, but we were not asked for our five cards")
                if me not in self.shown:
                    self._fail("the showdown ends, but our hand was not shown")
            self._start_payout()
            return None
        self._fail("expected 'showdown', 'player P shows R S ×5 which is K' or 'declare winner'")

    def _value(self, seat: int) -> tuple[int, ...] | bool | None:
        """A hand still in: its value, None for an invalid five, False when it cannot be judged."""
        st = self.state
        if seat == st.my_id:
            return five_value(self.my_five) if self.my_five is not None and not self.dead else None
        if seat in self.invalid:
            return None
        five = self.shown.get(seat)
        if five is None:
            return False
        board = set(st.community_cards)
        own = [c for c in five if c not in board]
        if len(set(five)) != 5 or len(own) > 2 or any(c in st.hole_cards for c in own):
            return None  # certainly not five of that player's seven
        for other, theirs in self.shown.items():
            if other != seat and any(c in theirs for c in own):
                return False  # two players claim the same hole card: one is invalid, which?
        return five_value(five)

    def _start_payout(self) -> None:
        st = self.state
        self.paid = [0] * len(st.pots)
        self.announced: set[int] = set()
        st.won_chips_in_pots = [[] for _ in st.pots]
        st.chips_won_in_last_game = [0] * self.k
        st.hands = [ShownHand(p, five, self.shown_as[p]) for p, five in sorted(self.shown.items())]
        self.phase = "payout"

    def _winners(self, pot: Pot) -> tuple[set[int], set[int] | None]:
        """Who may be paid from the pot, and who must be (None: cannot be judged)."""
        live = [s for s in pot.contributors if not self.folded[s]]
        if not live:
            return set(pot.contributors), set(pot.contributors)  # given back
        if len(live) == 1:
            return set(live), set(live)
        values = {s: self._value(s) for s in live}
        if any(v is False for v in values.values()):
            return set(live), None
        valid = {s: v for s, v in values.items() if v is not None}
        if not valid:
            return set(live), set(live)
        best = max(valid.values())
        return set(live), {s for s, v in valid.items() if v == best}

    def _on_payout(self, words: list[str]) -> None:
        st = self.state
        if (
            len(words) == 7
            and words[0] == "pot"
            and words[2:5] == ["is", "shared", "by"]
            and words[6] == "players"
        ):
            index = self._int(words[1], "pot")
            if index >= len(st.pots):
                self._fail(f"there is no pot {index} (the hand has {len(st.pots)})")
            if index in self.announced:
                self._fail(f"pot {index} shared twice")
            count = self._int(words[5], "winners")
            if count == 0:
                self._fail("a pot shared by nobody")
            self.announced.add(index)
            self.pot_index, self.pot_count = index, count
            self.pot_shares: list[tuple[int, int]] = []
            self.phase = "gets"
            return
        if words == ["game", "over"]:
            unpaid = [i for i, pot in enumerate(st.pots) if self.paid[i] != pot.chips]
            if unpaid:
                self._fail(f"the hand is over with pot(s) {unpaid} not paid")
            self._check_total()
            self.hands_seen += 1
            st.out_of_game = st.chips[st.my_id] == 0
            self.phase = "between"
            return
        self._fail("expected 'pot I is shared by N players' or 'game over'")

    def _check_total(self) -> None:
        st = self.state
        on_table = sum(st.chips) + sum(p.chips for p in st.pots) - sum(self.paid)
        if on_table != self.total:
            self._fail(f"{on_table} chips at the table (stacks and pots not yet paid), not {self.total}")

    def _on_gets(self, words: list[str]) -> None:
        st = self.state
        if len(words) != 5 or words[0] != "player" or words[2] != "gets" or words[4] != "chips":
            self._fail(
                f"expected 'player P gets C chips' ({len(self.pot_shares)} of {self.pot_count} so far)"
            )
        seat = self._seat(words[1], "player")
        chips = self._int(words[3], "chips")
        pot = st.pots[self.pot_index]
        allowed, must = self._winners(pot)
        if seat not in allowed:
            self._fail(
                f"player {seat} may not win pot {self.pot_index} (contributors {list(pot.contributors)})"
            )
        if any(s == seat for s, _ in self.pot_shares):
            self._fail(f"player {seat} paid twice from pot {self.pot_index}")
        if self.paid[self.pot_index] + chips > pot.chips:
            self._fail(f"pot {self.pot_index} has only {pot.chips} chips")
        self.pot_shares.append((seat, chips))
        self.paid[self.pot_index] += chips
        st.chips[seat] += chips
        st.chips_won_in_last_game[seat] += chips
        st.won_chips_in_pots[self.pot_index].append((seat, chips))
        self._check_total()
        if len(self.pot_shares) < self.pot_count:
            return
        if self.paid[self.pot_index] != pot.chips:
            self._fail(f"pot {self.pot_index} has {pot.chips} chips, {self.paid[self.pot_index]} paid")
        if self.check_rules:
            won = {s for s, _ in self.pot_shares}
            if must is not None and won != must:
                self._fail(f"pot {self.pot_index} goes to {sorted(must)}")
            share, odd = divmod(pot.chips, len(won))
            first = min(won, key=lambda s: (s - st.dealer) % self.k)
            for s, c in self.pot_shares:
                due = share + (odd if s == first else 0)
                if c != due:
                    self._fail(
                        f"player {s}'s share of pot {self.pot_index} is {due} (odd chips from the dealer on)"
                    )
        self.phase = "payout"


# --------------------------------------------------------------------------- the connection


async def play(host: str, port: int, name: str, policy: Policy | None = None, **options: Any) -> Transcript:
    """Log in as ``name`` at ``host:port``, play until the server closes, return the transcript.

    Raises :class:`ProtocolViolation` (with ``.transcript``) on anything the protocol does
    not allow.  ``options`` are :class:`PpcaClient`'s (``stall_at``, ``bad_reply_at``…).
    """
    client = PpcaClient(name, policy, **options)
    try:
        stream = await trio.open_tcp_stream(host, port)
        async with stream:
            await _send(client, stream, f"login {name}")
            buffer = bytearray()
            while True:
                try:
                    data = await stream.receive_some(65536)
                except trio.BrokenResourceError as exc:
                    client.lineno += 1
                    raise ProtocolViolation(client.lineno, "", f"connection broken: {exc}") from exc
                if not data:
                    if buffer:
                        client.lineno += 1
                        raise ProtocolViolation(
                            client.lineno, buffer.decode("latin-1"), "a last line without '\\n'"
                        )
                    client.finish()
                    break
                buffer += data
                while (end := buffer.find(b"\n")) >= 0:
                    raw = bytes(buffer[:end])
                    del buffer[: end + 1]
                    reply = client.feed(raw.decode("latin-1"))
                    if client.disconnected:
                        return client.transcript()
                    if reply is not None:
                        await _send(client, stream, reply)
    except ProtocolViolation as exc:
        exc.transcript = client.transcript()
        raise
    return client.transcript()


async def _send(client: PpcaClient, stream: trio.SocketStream, line: str) -> None:
    try:
        await stream.send_all(line.encode("ascii") + b"\n")
    except trio.BrokenResourceError as exc:
        raise ProtocolViolation(
            client.lineno, client.line, f"connection broken while sending {line!r}"
        ) from exc
