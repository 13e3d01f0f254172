"""No-limit Texas Hold'em (seed 003, PPCA 2014): a tournament table of 2–10 bots.

One *game* of a match is one tournament of up to 27 *hands* (the seed calls a hand
"一局").  Everyone starts with 1000 chips; the small blind follows the seed's schedule
1, 2, 5, 10, 20, 50, 100, 200, 500, rising every 3 hands, and the big blind is twice
it.  A player with no chips is out and only watches.  The game ends when one player has
all the chips or after the 27th hand.

A hand, in phases:

1. *Setting up*: the button moves to the next player with chips; the small blind is the
   next player clockwise, the big blind the one after (heads-up: see the quirks below).
   Blinds are posted, shortened to the stack (all-in) when a player has less.
   Two hole cards each; the board is burn + 3, burn + 1, burn + 1.
2. *Betting*, four rounds.  Preflop starts left of the big blind, later rounds left of
   the dealer.  Who acts next is a queue, as in the seed's three end conditions: a raise
   puts every other player who still has chips back into it; a round ends when the
   queue is empty or one player is left.  Raising (no-limit):

   - the minimum raise is the larger of the big blind and the *largest raise of this
     round so far* (the first bet counts as a raise over zero); the maximum is all-in;
   - an all-in for less than the minimum is allowed; it raises the bet others must
     match, and it is *full* (it reopens the betting) only if it is at least the
     largest raise so far;
   - a player may raise only if (a) they have chips beyond the call, (b) someone else
     still in the hand could answer (has more than the current bet in front of them and
     behind), (c) the call they face is at least the largest raise of this round, and
     (d) when they have acted since the last full raise, the short all-ins since then
     add up to a full raise (several short all-ins in a row reopen the betting).

   This is pokerkit's rule; the oracle test plays thousands of random hands against it.
3. *Showdown*: each pot goes to the best hand among its eligible players (their best
   five of seven, ranked by phevaluator; or, with ``bot_showdown``, the five cards the
   bot chooses).  Ties split; the odd chips go to the first winner clockwise from the
   dealer's left (the seed: "顺时针方向最靠近庄家").  An uncalled bet goes back to its
   owner.

The seed's quirks, on unless ``seed_quirks=0``:

- heads-up the blinds are posted as at a full table: the player left of the dealer
  posts the small blind and the dealer the big blind; that player acts first in every
  round;
- preflop, when the largest bet equals the big blind, the big blind *calls 0* (the
  reply ``call``) instead of checking;
- pots of different betting rounds are not merged (the seed's ``pots()``), so odd chips
  are split pot by pot, round by round.

Penalty (a timeout, a bad reply, a crashed bot): fold, or check when checking is free
(calls 0 under the big-blind quirk); at the bot's showdown, a muck.

The ``ppca`` rules (``rules="ppca"``; the default is ``"seed"``) follow the PPCA 2014
server (``server/Game.h``) hand for hand, but for five server behaviours that contradict
the seed or are bugs.  They imply the seed's quirks and the bot showdown, and change
seven things (``docs/protocols/holdem.md``, "The ppca rules"):

1. every penalty folds, even where checking (or the big blind's call 0) was free;
2. every check before the flop folds (nothing to call is a call of 0); after the flop a
   call of nothing is a check (the server's ``bet 0``);
3. a raise needs only the chips and the last full raise (or all-in): nobody need be able
   to answer it, and a short all-in need not have reopened the betting;
4. pots are made per betting round and per contribution level, and list every
   contributor, folded ones included; an unmatched bet stays in a pot of its own, paid
   back at the hand's end; a pot goes to the best hand among its contributors still in
   the hand, and back to its contributors when all of them folded;
5. odd chips go to the first winner clockwise counting from the dealer (inclusive);
6. at the showdown, asked in seat order, the five cards shown count (read character by
   character); an invalid choice ranks below every valid one (but may still win a pot
   whose other contributors folded);
7. the first dealer is drawn from the game's seeded RNG, uniformly among the seats.

The deal (see :mod:`referee.games.base`): each hand's deck depends only on the game's
seed and the hand's number.  The game draws one 64-bit seed at the start; hand h
shuffles the 52 cards with ``random.Random(seed + (h << 64))`` and deals from the top
(hole cards in two passes from the dealer's left, then burn + flop, burn + turn, burn +
river), so how many cards earlier hands used, or who busted, changes nothing in the
decks of later hands.

Hot path: the state keeps the pre-formatted pieces of the request line (stacks, bets,
statuses, pots, history) as bytes and refreshes only what an action changes; the
options of the player to act (call amount, raise bounds) are computed once per turn.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from typing import Any, ClassVar

try:  # the C functions behind phevaluator's API, without its per-card argument conversion
    from phevaluator._pheval import evaluate_5cards, evaluate_7cards
except ImportError:  # pragma: no cover - another phevaluator layout
    from phevaluator import evaluate_5cards, evaluate_7cards

from protocol import holdem as wire
from protocol import holdem_ppca as ppca
from protocol.lines import show
from referee.core.limits import GiB, Limits
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Event, Game, GameState, Option, SeatCount, Standing
from referee.games.holdem_phh import phh_writer

FOLD, CHECK, CALL = wire.FOLD, wire.CHECK, wire.CALL

#: The rule sets of the ``rules`` option: ours (the seed's text), or the PPCA 2014 server's.
RULES = ("seed", "ppca")

#: The seed's small-blind schedule; each level lasts ``HANDS_PER_LEVEL`` hands.
SMALL_BLINDS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
HANDS_PER_LEVEL = 3
STARTING_CHIPS = 1000

# Phases.
BETTING, SHOWING, OVER = range(3)

# phevaluator ranks hands 1 (royal flush) .. 7462 (seven-high); smaller is stronger.
# The first rank of each category, strongest category first.
_CATEGORY_STARTS = (
    (1, 8),
    (11, 7),
    (167, 6),
    (323, 5),
    (1600, 4),
    (1610, 3),
    (2468, 2),
    (3326, 1),
    (6186, 0),
)


def category(rank: int) -> int:
    """The category (0 high card .. 8 straight flush, see ``wire.CATEGORY_NAMES``) of a phevaluator rank."""
    for start, cat in reversed(_CATEGORY_STARTS):
        if rank >= start:
            return cat
    raise ValueError(f"no hand has rank {rank}")


_FIVES = tuple(itertools.combinations(range(7), 5))


def best_five(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """(phevaluator rank, the five cards making it) of the best hand in 7 cards."""
    rank = evaluate_7cards(*cards)
    for a, b, c, d, e in _FIVES:
        five = (cards[a], cards[b], cards[c], cards[d], cards[e])
        if evaluate_5cards(*five) == rank:
            return rank, five
    raise AssertionError("the 7-card rank is some five's rank")


# Pre-encoded tokens.
_INT = [b"%d" % v for v in range(10001)]  # every chip count of a 10-seat game
_ROUND = [r.encode() for r in wire.ROUNDS]
_CARDS2 = [[(wire.CARD_NAMES[a] + wire.CARD_NAMES[b]).encode() for b in range(52)] for a in range(52)]


def _int(v: int) -> bytes:
    return _INT[v] if 0 <= v <= 10000 else b"%d" % v


def _ints(values: Sequence[int]) -> bytes:
    return b",".join([_int(v) for v in values])


def _cards(cards: Sequence[int]) -> bytes:
    return wire.cards_text(cards).encode()


class HoldemState(GameState):
    """A tournament game in progress.  Seats 0..n-1 sit clockwise.

    The keyword arguments beyond the seed's game exist for tests and the oracle:
    ``chips`` (starting stacks, one number or one per seat), ``small_blinds`` (the
    schedule), ``first_dealer`` (default: seat 0; under the ppca rules drawn from
    ``rng``).  ``rules="ppca"`` implies the seed's quirks and the bot showdown: the
    ``seed_quirks`` and ``bot_showdown`` arguments are then ignored.
    """

    def __init__(
        self,
        seats: int,
        rng: random.Random,
        *,
        seed_quirks: bool = True,
        bot_showdown: bool = False,
        chips: int | Sequence[int] = STARTING_CHIPS,
        small_blinds: Sequence[int] = SMALL_BLINDS,
        hands_per_level: int = HANDS_PER_LEVEL,
        first_dealer: int | None = None,
        rules: str = "seed",
        narrate: bool = False,
    ) -> None:
        if seats < 2:
            raise ValueError("hold'em needs at least 2 seats")
        if rules not in RULES:
            raise ValueError(f"rules: {rules!r} is not one of {', '.join(RULES)}")
        self.n = seats
        self.rules = rules
        #: The PPCA 2014 server's rules (see the module docstring).
        self.ppca = ppca = rules == "ppca"
        #: The deal: hand h's deck comes from this seed and h alone (see _start_hand).
        self._deal_seed = rng.getrandbits(64)
        if first_dealer is None:
            # ppca: the first dealer is part of the seeded deal (drawn after the deck
            # seed, so both rule sets deal the same cards from the same rng).
            first_dealer = rng.randrange(seats) if ppca else 0
        self.quirks = bool(seed_quirks) or ppca
        self.bot_showdown = bool(bot_showdown) or ppca
        self._small_blinds = tuple(small_blinds)
        self._per_level = hands_per_level
        self.max_hands = len(self._small_blinds) * hands_per_level
        self.start_chips = [chips] * seats if isinstance(chips, int) else list(chips)
        if len(self.start_chips) != seats or min(self.start_chips) < 0:
            raise ValueError("chips: one non-negative number per seat")
        self.chips = list(self.start_chips)
        self.phase = BETTING
        self.hand_no = 0  # hands played so far; the current hand is hand_no + 1
        self.dealer = -1
        self._first_dealer = first_dealer % seats
        self._events: list[Event] = []
        self._hands: list[dict[str, Any]] = []
        #: Hands in which each seat took chips from a pot (a split pot counts for each winner).
        self._hands_won = [0] * seats
        #: seat -> (hands played when it busted, its chips at the start of that hand)
        self._busted: dict[int, tuple[int, int]] = {}
        self._faults: list[list[Any]] = []
        #: Tell every seat the PPCA server's sentences as the hand goes (protocol.holdem_ppca).
        self._narrate = narrate
        #: The players' names (``name_seats``), as the act line's token.
        self._names = b",".join(b"player%d" % s for s in range(seats))
        self._start_hand()

    # ================================================================== a hand

    def _start_hand(self) -> None:
        n = self.n
        alive = [s for s in range(n) if self.chips[s] > 0]
        if len(alive) <= 1 or self.hand_no >= self.max_hands:
            self._finish_game()
            return
        # The button moves clockwise to the next player with chips.
        start = self._first_dealer if self.dealer < 0 else self.dealer + 1
        dealer = next(s % n for s in range(start, start + n) if self.chips[s % n] > 0)
        self.dealer = dealer
        #: Players dealt in, clockwise from the dealer's left; the dealer is last.  This
        #: is also the order odd chips go in, and pokerkit's seat order.
        order = [s % n for s in range(dealer + 1, dealer + 1 + n) if self.chips[s % n] > 0]
        self.order = order
        self.in_hand = [False] * n
        for s in order:
            self.in_hand[s] = True
        self.sb = self._small_blinds[self.hand_no // self._per_level]
        self.bb = 2 * self.sb
        if len(order) == 2 and not self.quirks:
            # Standard heads-up: the dealer posts the small blind and acts first preflop.
            self.sb_seat, self.bb_seat = dealer, order[0]
        else:
            self.sb_seat, self.bb_seat = order[0], order[1 % len(order)]
        self.hand_chips = list(self.chips)
        self.folded = [False] * n
        self.bet = [0] * n
        self.committed = [0] * n  # collected into pots, this hand
        self.street_commit: list[list[int]] = []
        self.status = bytearray(b"-" * n)
        for s in range(n):
            if not self.in_hand[s]:
                self.status[s] = ord("X")
        # Deal: two passes of hole cards from the dealer's left, then burn+3, burn+1, burn+1.
        m = len(order)
        deck = list(range(52))
        random.Random(self._deal_seed + (self.hand_no << 64)).shuffle(deck)
        self.hole: list[tuple[int, int] | None] = [None] * n
        for i, s in enumerate(order):
            self.hole[s] = (deck[i], deck[m + i])
        self.board: tuple[int, ...] = (
            deck[2 * m + 1],
            deck[2 * m + 2],
            deck[2 * m + 3],
            deck[2 * m + 5],
            deck[2 * m + 7],
        )
        self.board_shown = 0
        self._board_full = _cards(self.board)
        self._board_bytes = b"-"
        self._hole_bytes = [_CARDS2[h[0]][h[1]] if h else b"-" for h in self.hole]
        self.street = 0
        #: At the showdown: seat -> (phevaluator rank, the five cards shown), or None for a muck.
        self.shown: dict[int, tuple[int, tuple[int, ...]] | None] = {}
        self._history = b""
        self._faults = []
        self._pots: list[tuple[int, tuple[int, ...]]] = []
        #: ppca: the characters each player's showdown answer was read as (the narration's).
        self._show_chars: dict[int, bytes] = {}
        self._pots_bytes = b"-"
        self._pots_stale = False
        self._stacks_tok = [_int(v) for v in self.chips]
        self._bets_tok = [b"0"] * n
        self.max_bet = 0
        self._post(self.sb_seat, self.sb, b"s")
        self._post(self.bb_seat, self.bb, b"b")
        self.max_bet = max(self.bet)
        if self._narrate:
            blinds = [(self.sb_seat, self.bet[self.sb_seat]), (self.bb_seat, self.bet[self.bb_seat])]
            self._say(ppca.hand_start(sorted(order), self.sb, dealer, blinds))
            for s in order:
                self._say(ppca.hole(self.hole[s] or ()), s)
        self._begin_round()

    def name_seats(self, names: Sequence[str]) -> None:
        """The seed's ``name_of()``: names become tokens of ``A-Z a-z 0-9 _ . -`` (others ``_``)."""
        self._names = b",".join(re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40].encode() or b"_" for name in names)

    def _say(self, sentences: Sequence[bytes], seat: int | None = None) -> None:
        """The narration (``narrate``): sentences to one seat, or to every seat."""
        seats = range(self.n) if seat is None else (seat,)
        self._events.extend([Event(s, ppca.line(text)) for text in sentences for s in seats])

    def _post(self, seat: int, blind: int, letter: bytes) -> None:
        amount = min(blind, self.chips[seat])
        self._move(seat, amount)
        self._log(seat, letter, amount)
        if self.chips[seat] == 0:
            self.status[seat] = ord("A")

    def _move(self, seat: int, amount: int) -> None:
        """Put ``amount`` chips of ``seat``'s stack into its bet."""
        self.chips[seat] -= amount
        self.bet[seat] += amount
        self._stacks_tok[seat] = _int(self.chips[seat])
        self._bets_tok[seat] = _int(self.bet[seat])

    def _log(self, seat: int, letter: bytes, amount: int) -> None:
        """Add ``SEAT LETTER CHIPS`` to the hand's history (``,`` within a round, ``/`` between)."""
        entry = b"%d%s%d" % (seat, letter, amount)
        if self._history and not self._history.endswith(b"/"):
            entry = b"," + entry
        self._history += entry

    def set_cards(self, hole: dict[int, Sequence[int]], board: Sequence[int]) -> None:
        """Replace the cards of the hand in progress: hole cards by seat, and the five board cards.

        For tests and replays; cards already shown to the bots should not change.
        """
        for seat, cards in hole.items():
            if not self.in_hand[seat]:
                raise ValueError(f"seat {seat} is not in this hand")
            self.hole[seat] = (cards[0], cards[1])
            self._hole_bytes[seat] = _CARDS2[cards[0]][cards[1]]
        self.board = tuple(board)
        dealt = [c for h in self.hole if h for c in h] + list(self.board)
        if len(self.board) != 5 or len(set(dealt)) != len(dealt) or not all(0 <= c < 52 for c in dealt):
            raise ValueError("five board cards, and no card twice")
        self._board_full = _cards(self.board)
        self._board_bytes = self._board_full[: 2 * self.board_shown] or b"-"

    # ================================================================== betting rounds

    def _begin_round(self) -> None:
        """Start the betting round of ``self.street``: build the queue of players to act."""
        if self._narrate:
            if self.street:
                turned = self.board[(0, 0, 3, 4)[self.street] : self.board_shown]
                self._say(ppca.board(self.street, turned))
            self._say(ppca.round_start([(s, self.chips[s]) for s in sorted(self.order)]))
        self.full_raise = 0  # the largest raise (increment) of this round
        self.acted = 0  # bit mask of seats that acted since the last full raise
        self.short_sum = 0  # short all-in raises since then, until they add up to a full one
        for s in self.order:
            if not self.folded[s]:
                self.status[s] = ord("A") if self.chips[s] == 0 else ord("-")
        order = self.order
        m = len(order)
        # Preflop the queue starts left of the big blind, later left of the dealer (the
        # dealer is last in ``order``).
        first = order.index(self.bb_seat) + 1 if self.street == 0 else 0
        queue = [order[(first + i) % m] for i in range(m)]
        # A player whose bet already covers every other player's whole stack has nothing
        # left to decide (pokerkit's "effective stack" of 0): they are not asked.
        second = sorted([self.bet[s] + self.chips[s] for s in order if not self.folded[s]])[-2]
        self.queue = [s for s in queue if not self.folded[s] and self.chips[s] > 0 and self.bet[s] < second]
        if not self.queue or (len(self.queue) == 1 and self.bet[self.queue[0]] >= self.max_bet):
            self._end_round()
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        """Work out the options of the player at the head of the queue."""
        seat = self.queue[0]
        self.actor = seat
        chips = self.chips[seat]
        owed = self.max_bet - self.bet[seat]  # what matching the bet takes
        to_call = min(chips, owed)
        self.to_call = to_call
        # The seed: preflop, with the largest bet equal to the big blind, the big blind
        # "calls 0" instead of checking.  The ppca server folds every preflop check
        # (``Game::check``): nothing to call before the flop is always a call of 0.
        self.free_call = (
            to_call == 0 and self.street == 0 and (self.ppca or (self.quirks and self.max_bet == self.bb))
        )
        reason = None
        if chips <= owed:
            reason = "raise is not possible: calling takes all the player's chips"
        elif self.ppca:
            # ``Game::bet`` takes any raise of at least the last full raise (or all-in) from
            # a player with the chips, whether or not anyone can answer it or the betting
            # was reopened; an unanswered excess becomes a pot of its own (_end_round).
            pass
        elif to_call < self.full_raise:
            reason = "raise is not possible: the bet faced is less than a full raise (a short all-in)"
        elif self.short_sum and self.acted >> seat & 1:
            reason = (
                "raise is not possible: betting was not reopened (a short all-in after this player acted)"
            )
        else:
            for s in self.order:
                if s != seat and not self.folded[s] and self.chips[s] + self.bet[s] > self.max_bet:
                    break
            else:
                reason = "raise is not possible: every other player is all-in or folded"
        self.raise_reason = reason
        if reason is None:
            self.max_x = chips - owed
            self.min_x = min(max(self.full_raise, self.bb), self.max_x)
        else:
            self.min_x = self.max_x = 0
        if to_call == 0 and not self.free_call:
            legal = b"fold,check,raise" if reason is None else b"fold,check"
        else:
            legal = b"fold,call,raise" if reason is None else b"fold,call"
        self._legal = legal

    def _act(self, seat: int, action: int) -> None:
        """Play a legal betting action of the player to act."""
        self.queue.pop(0)
        bit = 1 << seat
        self.acted |= bit
        if action == FOLD:
            self.folded[seat] = True
            self.status[seat] = ord("F")
            self._log(seat, b"f", 0)
            self._pots_stale = True  # a folded player is no longer eligible
            if self._narrate:
                self._say(ppca.action(seat, "fold", 0))
            if sum(1 for s in self.order if not self.folded[s]) == 1:
                self._end_round()
                return
        elif action in (CHECK, CALL):
            amount = self.to_call
            # ppca (only its rules take such a call): a call of nothing after the flop is
            # the server's ``bet 0``, a check that ``Game::bet`` narrates twice ("checks",
            # then "bets 0").
            bet0 = not amount and action == CALL and not self.free_call
            if bet0:
                action = CHECK
            self._move(seat, amount)
            if self.chips[seat] == 0:
                self.status[seat] = ord("A")
            else:
                self.status[seat] = ord("C") if action == CHECK else ord("B")
            self._log(seat, b"k" if action == CHECK else b"c", amount)
            if self._narrate:
                kind = "check0" if bet0 else "check" if action == CHECK else "bet"
                self._say(ppca.action(seat, kind, amount))
        else:
            raise_to = self.max_bet + action
            amount = raise_to - self.bet[seat]
            self._move(seat, amount)
            self.status[seat] = ord("A") if self.chips[seat] == 0 else ord("B")
            self._log(seat, b"r", amount)
            if self._narrate:
                self._say(ppca.action(seat, "bet", amount))
            if action >= self.full_raise:
                # A full raise: everyone else must act again and may re-raise.
                self.full_raise = action
                self.acted = bit
                self.short_sum = 0
            else:
                # A short all-in: it reopens the betting only once such raises add up.
                self.short_sum += action
                if self.short_sum >= self.full_raise:
                    self.short_sum = 0
            self.max_bet = raise_to
            m = len(self.order)
            i = self.order.index(seat)
            self.queue = [
                s
                for s in (self.order[(i + k) % m] for k in range(1, m))
                if not self.folded[s] and self.chips[s] > 0
            ]
        if self.queue:
            self._next_turn()
        else:
            self._end_round()

    def _end_round(self) -> None:
        """Collect the bets; go on to the next round, the showdown, or the next hand."""
        n = self.n
        if not self.ppca:
            # An uncalled bet goes back now.  (The ppca server makes it a pot of its own,
            # paid back to its only contributor when the hand is over: ``Game::bet_loop``.)
            bets = sorted([self.bet[s] for s in self.order])
            cutoff = bets[-2]
            for s in self.order:
                if self.bet[s] > cutoff:
                    self.chips[s] += self.bet[s] - cutoff
                    self.bet[s] = cutoff
                    self._stacks_tok[s] = _int(self.chips[s])
        self.street_commit.append(list(self.bet))
        for s in range(n):
            self.committed[s] += self.bet[s]
            self.bet[s] = 0
        self._bets_tok = [b"0"] * n
        self.max_bet = 0
        if self._narrate:
            # The pots of the rounds before this one (under the ppca rules a fold changes
            # none of them): the narration tells only the new ones.
            earlier = len(self._pots)
        self._refresh_pots()
        if self._narrate:
            self._say([*ppca.pots(self._pots[earlier:], earlier), b"round ends"])
        contenders = [s for s in self.order if not self.folded[s]]
        if len(contenders) == 1:
            self._award(contenders[0])
        elif self.street == 3:
            self._showdown(contenders)
        else:
            self.street += 1
            self.board_shown = 3 if self.street == 1 else self.board_shown + 1
            self._board_bytes = self._board_full[: 2 * self.board_shown]
            self._history += b"/"
            self._begin_round()

    # ================================================================== pots

    def pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """The pots of finished betting rounds: (amount, eligible seats clockwise from the dealer's left).

        Under the ppca rules the seats are every contributor, folded ones included.
        """
        if self._pots_stale:
            self._refresh_pots()
        return self._pots

    def _refresh_pots(self) -> None:
        self._pots_stale = False
        if self.ppca:
            pots = self._ppca_pots()
        else:
            pots = []
            if self.quirks:
                levels = []
                for commit in self.street_commit:
                    levels.extend(self._split(commit))
            else:
                levels = self._split(self.committed)
            for amount, eligible in levels:
                if eligible or not pots:
                    pots.append((amount, eligible))
                else:
                    # Chips no one still in the hand can win (everyone who put them in
                    # has folded, possibly when checking was free) join the pot below.
                    pots[-1] = (pots[-1][0] + amount, pots[-1][1])
        self._pots = pots
        self._pots_bytes = (
            b",".join(
                [_int(amount) + b":" + b".".join([_int(s) for s in sorted(elig)]) for amount, elig in pots]
            )
            or b"-"
        )

    def _ppca_pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """The ppca rules' pots: per betting round, one pot per contribution level, each
        listing every seat that reached the level (folded ones included), clockwise from
        the dealer's left.  Nothing is merged: within a round no two levels have the same
        contributors, and across rounds the seed forbids it ("不同轮贡献者相同的彩池不合并")."""
        order = self.order
        pots: list[tuple[int, tuple[int, ...]]] = []
        for contrib in self.street_commit:
            previous = 0
            for level in sorted({contrib[s] for s in order if contrib[s] > 0}):
                contributors = tuple([s for s in order if contrib[s] >= level])
                pots.append(((level - previous) * len(contributors), contributors))
                previous = level
        return pots

    def _split(self, contrib: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
        """Main and side pots of one set of contributions (chips of folded players stay in).

        A pot per contribution level; neighbouring levels with the same eligible players
        (those not folded who reached the level) are one pot.
        """
        order, folded = self.order, self.folded
        pots: list[tuple[int, tuple[int, ...]]] = []
        previous = 0
        for level in sorted({contrib[s] for s in order if contrib[s] > 0}):
            amount = 0
            live = []
            for s in order:
                c = contrib[s]
                if c > previous:
                    amount += (c if c < level else level) - previous
                    if c >= level and not folded[s]:
                        live.append(s)
            eligible = tuple(live)
            if pots and pots[-1][1] == eligible:
                pots[-1] = (pots[-1][0] + amount, eligible)
            else:
                pots.append((amount, eligible))
            previous = level
        return pots

    # ================================================================== showdown and payout

    def _showdown(self, contenders: list[int]) -> None:
        self.board_shown = 5
        self._board_bytes = self._board_full
        self.shown = {}
        if self._narrate:
            self._say([b"start showdown"])
        if self.bot_showdown:
            self.phase = SHOWING
            # The ppca server asks in seat order (its ``player_list``), the rules from the
            # dealer's left.
            self.queue = sorted(contenders) if self.ppca else list(contenders)
            self.actor = self.queue[0]
            return
        for s in contenders:
            hole = self.hole[s]
            assert hole is not None
            self.shown[s] = best_five((*hole, *self.board))
        self._pay_showdown()

    def _pay_showdown(self) -> None:
        """Each pot to the best hand among its eligible players; ties split, odd chips first."""
        if self.ppca:
            self._pay_ppca()
            return
        pots = self.pots()
        winners = [self._pot_winners(eligible) for _, eligible in pots]
        if not self.quirks:
            # The dealer's procedure (and pokerkit's): hands that win nothing are killed
            # first, then neighbouring pots left to the same hands are paid as one pot.
            live = {s for w in winners for s in w}
            merged: list[tuple[int, tuple[int, ...], list[int]]] = []
            for (amount, eligible), won in zip(pots, winners, strict=True):
                key = tuple(s for s in eligible if s in live)
                if merged and merged[-1][1] == key:
                    merged[-1] = (merged[-1][0] + amount, key, won)
                else:
                    merged.append((amount, key, won))
            paid = [(amount, won) for amount, _, won in merged]
        else:
            paid = [(amount, won) for (amount, _), won in zip(pots, winners, strict=True)]
        payout: dict[int, int] = {}
        pot_results: list[tuple[int, list[tuple[int, int]]]] = []
        for amount, won in paid:
            share, odd = divmod(amount, len(won))
            shares = []
            for i, s in enumerate(won):  # clockwise from the dealer's left: odd chips to the first
                got = share + (odd if i == 0 else 0)
                payout[s] = payout.get(s, 0) + got
                shares.append((s, got))
            pot_results.append((amount, shares))
        self._settle(payout, pot_results)

    def _pot_winners(self, eligible: tuple[int, ...]) -> list[int]:
        """The best shown hands among ``eligible`` (every one of them if all mucked)."""
        ranks = {s: v[0] for s in eligible if (v := self.shown.get(s)) is not None}
        if not ranks:
            # Every eligible hand was mucked (bot showdown): they split it as a tie.
            return list(eligible)
        best = min(ranks.values())
        return [s for s in eligible if ranks.get(s) == best]

    def _pay_ppca(self) -> None:
        """The ppca rules' payout (also when all but one folded): each pot to the best hand
        among its contributors still in the hand, an invalid show (``None``) ranking below
        every valid one; a pot whose contributors all folded goes back to them.  A tie
        splits the pot; the odd chips go to the first winner clockwise counting from the
        dealer, the dealer included."""
        n, dealer, folded = self.n, self.dealer, self.folded
        payout: dict[int, int] = {}
        winners: set[int] = set()
        pot_results: list[tuple[int, list[tuple[int, int]]]] = []
        for amount, contributors in self.pots():
            live = tuple([s for s in contributors if not folded[s]])
            if live:
                won = sorted(self._pot_winners(live), key=lambda s: (s - dealer) % n)
                if len(contributors) > 1:  # a pot of one (an uncalled excess) only goes back
                    winners.update(won)
            else:
                won = list(contributors)  # each gets back what it put into this level
            share, odd = divmod(amount, len(won))
            shares = []
            for i, s in enumerate(won):
                got = share + (odd if i == 0 else 0)
                payout[s] = payout.get(s, 0) + got
                shares.append((s, got))
            # Listed as the server lists them: descending seats (Game::declare_winner).
            pot_results.append((amount, sorted(shares, reverse=True)))
        self._settle(payout, pot_results, winners)

    def _award(self, seat: int) -> None:
        """Everyone else folded: the last player takes every pot."""
        self.shown = {}
        if self.ppca:
            self._pay_ppca()  # but not the pots it did not contribute to
            return
        total = sum(amount for amount, _ in self._pots)
        self._settle({seat: total}, [(amount, [(seat, amount)]) for amount, _ in self._pots])

    def _settle(
        self,
        payout: dict[int, int],
        pot_results: list[tuple[int, list[tuple[int, int]]]],
        winners: set[int] | None = None,
    ) -> None:
        """Pay the pots, tell every seat, record the hand and start the next one.

        ``winners``: the seats that won a pot (default: every seat paid); a seat only
        given its chips back (the ppca rules) has not won the hand.
        """
        n = self.n
        won = [0] * n
        for s, chips in payout.items():
            won[s] = chips
            self.chips[s] += chips
            if chips and (winners is None or s in winners):
                self._hands_won[s] += 1
        assert sum(self.chips) == sum(self.start_chips), "chips are conserved"
        shown_tokens = []
        shown_log = []
        for s in sorted(self.shown):
            hole = self.hole[s]
            assert hole is not None
            value = self.shown[s]
            if value is None:
                shown_tokens.append(b"%d:muck" % s)
                shown_log.append([s, wire.cards_text(hole), None, None])
            else:
                rank, five = value
                shown_tokens.append(b"%d:%s:%s" % (s, _CARDS2[hole[0]][hole[1]], _cards(five)))
                shown_log.append([s, wire.cards_text(hole), wire.cards_text(five), rank])
        board = self.board[: self.board_shown]
        pots_token = (
            b",".join(
                [
                    _int(amount) + b":" + b".".join([b"%d=%d" % (s, c) for s, c in sorted(shares)])
                    for amount, shares in pot_results
                ]
            )
            or b"-"
        )
        line = wire.result_line(
            self.hand_no + 1,
            self._board_bytes,
            b",".join(shown_tokens) or b"-",
            pots_token,
            _ints(won),
            _ints(self.chips),
        )
        if self._narrate:
            self._say([*self._told_shows(), *ppca.payout(pot_results)])
        self._events.extend(Event(s, line) for s in range(n))
        self._hands.append(
            {
                "hand": self.hand_no + 1,
                "dealer": self.dealer,
                "sb": self.sb,
                "bb": self.bb,
                "sb_seat": self.sb_seat,
                "bb_seat": self.bb_seat,
                "order": list(self.order),
                "stacks": list(self.hand_chips),
                "hole": [h.decode() if h != b"-" else None for h in self._hole_bytes],
                "board": self._board_bytes.decode() if board else "",
                "actions": self._history.decode(),
                "shown": shown_log,
                "pots": [[amount, [list(x) for x in shares]] for amount, shares in pot_results],
                "won": won,
                "end_stacks": list(self.chips),
                "faults": self._faults,
            }
        )
        for s in self.order:
            if self.chips[s] == 0:
                self._busted[s] = (self.hand_no + 1, self.hand_chips[s])
        self.hand_no += 1
        self.phase = BETTING
        self._start_hand()

    def _told_shows(self) -> list[bytes]:
        """``Game::showdown``'s sentences: the hands shown, best first (ties in seat
        order: the server's sort is stable for so few), each as the characters read
        and its ``HAND_*`` number, 0 for an invalid five."""
        keyed = []
        for s in sorted(self.shown):
            value = self.shown[s]
            chars = self._show_chars.get(s, ppca.show_chars(b""))
            if value is None:
                keyed.append((1 << 20, s, chars, ppca.HAND_INVALID))
            else:
                rank = value[0]
                kind = ppca.HAND_ROYAL_FLUSH if rank == 1 else category(rank) + 1
                keyed.append((rank, s, chars, kind))
        return [ppca.shows(s, chars, kind) for _, s, chars, kind in sorted(keyed)]

    def _finish_game(self) -> None:
        self.phase = OVER
        self.queue = []
        if self._narrate:
            self._say([b"game over"])  # once, after the last hand (``Server::start_game``)
        ranks = self.ranks()
        line = wire.gameover_line(self.hand_no, _ints(self.chips), _ints(ranks))
        self._events.extend(Event(s, line) for s in range(self.n))

    # ================================================================== the referee's calls (hot path)

    def to_act(self) -> Sequence[int]:
        return (self.actor,) if self.phase != OVER else ()

    def request(self, seat: int) -> bytes:
        if self.phase == SHOWING:
            return wire.show_line(self.hand_no + 1, seat, self._hole_bytes[seat], self._board_bytes)
        if self._pots_stale:
            self._refresh_pots()
        return wire.request_line(
            self.hand_no + 1,
            seat,
            self.dealer,
            self.sb,
            self.bb,
            _ROUND[self.street],
            self._hole_bytes[seat],
            self._board_bytes,
            b",".join(self._stacks_tok),
            b",".join(self._bets_tok),
            bytes(self.status),
            self._pots_bytes,
            self.to_call,
            self.min_x,
            self.max_x,
            self._legal,
            self._history,
            self.start_chips[seat],
            self._names,
        )

    def decode(self, seat: int, reply: bytes) -> Any:
        try:
            if self.phase == SHOWING:
                if self.ppca:
                    return self._decode_ppca_show(seat, reply)
                return wire.decode_show(reply)
            return wire.decode_action(reply)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None

    def _decode_ppca_show(self, seat: int, reply: bytes) -> tuple[int, ...]:
        """The five cards as the ppca server reads them (``protocol.holdem_ppca.show_chars``):
        characters two by two, spaces or none between them.  The characters are kept for
        the narration, which repeats them as read, valid or not."""
        chars = ppca.show_chars(reply)
        self._show_chars[seat] = chars
        try:
            return tuple(wire.card_id(chars[i : i + 2].decode("ascii")) for i in range(0, 10, 2))
        except (ValueError, KeyError, UnicodeDecodeError):
            raise ValueError(f"not five cards (rank 23456789TJQKA, suit SHDC): {show(reply)}") from None

    def illegal(self, seat: int, action: Any) -> str | None:
        if self.phase == OVER or seat != self.actor:
            return "it is not this player's turn"
        if self.phase == SHOWING:
            if not isinstance(action, tuple):
                return "a showdown needs five cards"
            hole = self.hole[seat]
            assert hole is not None
            own = {*hole, *self.board}
            if len(set(action)) != 5:
                return "the five cards must be different"
            if not own.issuperset(action):
                return "show five of your own seven cards (two hole cards and the board)"
            return None
        if not isinstance(action, int):
            return "expected fold, check, call or raise X"
        if action == FOLD:
            return None
        if action == CHECK:
            if self.to_call:
                return f"cannot check: {self.to_call} to call"
            if self.free_call:
                if self.ppca:
                    return "the PPCA server folds every check before the flop: reply call (its bet 0)"
                return "the big blind calls 0 here instead of checking (the seed's rule): reply call"
            return None
        if action == CALL:
            if self.to_call or self.free_call or self.ppca:  # ppca: the server's bet 0, a check
                return None
            return "nothing to call: check"
        if self.raise_reason is not None:
            return self.raise_reason
        if action < self.min_x:
            return f"raise {action} is below the minimum {self.min_x}"
        if action > self.max_x:
            return f"raise {action} is above the maximum {self.max_x} (all-in)"
        return None

    def apply(self, seat: int, action: Any) -> None:
        if self.phase == SHOWING:
            self._show(seat, tuple(action))
        else:
            self._act(seat, action)

    def penalize(self, seat: int, verdict: Verdict) -> None:
        """Fold, or check (call 0) when that is free; at the bot showdown, muck.

        The ppca rules fold even when checking is free (the original server folds any
        illegal reply); a muck there ranks below every valid hand shown.
        """
        if self.phase == OVER or seat != self.actor:
            return
        self._faults.append([seat, verdict.value])
        if self.phase == SHOWING:
            self._show(seat, None)
        elif self.to_call or self.ppca:
            self._act(seat, FOLD)
        else:
            self._act(seat, CALL if self.free_call else CHECK)

    def _show(self, seat: int, five: tuple[int, ...] | None) -> None:
        self.shown[seat] = None if five is None else (evaluate_5cards(*five), five)
        self.queue.pop(0)
        if self.queue:
            self.actor = self.queue[0]
        else:
            self._pay_showdown()

    def drain_events(self) -> list[Event]:
        events = self._events
        self._events = []
        return events

    # ================================================================== enumeration
    #
    # Not on the match path (random players, tests, referee.envs).  With T the chips at
    # the table (sum of the starting stacks): index 0 folds, 1 checks, 2 calls, 3 + X
    # raises X (X in 0..T; only min..max raise is ever legal), and with the bot showdown
    # 4 + T + k shows the k-th five of the seat's seven cards (hole then board, in
    # ``itertools.combinations(range(7), 5)`` order).  ``action_count()`` is 4 + T, plus
    # 21 with the bot showdown: 2004 heads-up, 9004 at the seed's table of 9.

    def legal_actions(self, seat: int) -> list[Any]:
        """Fold; check or call where allowed (both, under the ppca rules' free call
        after the flop); then every raise amount from the minimum to all-in.  At the bot
        showdown, the 21 choices of five of the seat's seven cards."""
        if self.phase == OVER or seat != self.actor:
            return []
        if self.phase == SHOWING:
            hole = self.hole[seat]
            assert hole is not None
            cards = (*hole, *self.board)
            return [tuple(cards[i] for i in five) for five in _FIVES]
        actions: list[Any] = [FOLD]
        if not self.to_call and not self.free_call:
            actions.append(CHECK)
        if self.to_call or self.free_call or self.ppca:
            actions.append(CALL)
        if self.raise_reason is None:
            actions.extend(range(self.min_x, self.max_x + 1))
        return actions

    def encode(self, seat: int, action: Any) -> bytes:
        return wire.encode_show(action) if isinstance(action, tuple) else wire.encode_action(action)

    def action_count(self) -> int:
        return 4 + sum(self.start_chips) + (len(_FIVES) if self.bot_showdown else 0)

    def action_index(self, seat: int, action: Any) -> int:
        table = sum(self.start_chips)
        if isinstance(action, tuple):
            hole = self.hole[seat]
            if not self.bot_showdown or hole is None:
                raise ValueError("no showdown choice has an index here")
            cards = (*hole, *self.board)
            try:
                return 4 + table + _FIVES.index(tuple(sorted(cards.index(c) for c in action)))
            except ValueError:
                raise ValueError(f"not five of the seat's seven cards: {action}") from None
        if action < 0:
            return (FOLD, CHECK, CALL).index(action)
        if action > table:
            raise ValueError(f"raise {action} has no index: the table has {table} chips")
        return 3 + action

    _STATUS = "-BCFAX"

    def observation_bounds(self) -> tuple[list[float], list[float]]:
        """From an ``act`` line (or a ``show`` line), with n seats and T chips: whether
        it is a showdown; the hand number, seat, dealer, small and big blind, the round
        (0 preflop .. 3 river); the hole cards and the board, one 0/1 per card (card id
        ``protocol.holdem.card_id``); each seat's stack, bet and status (its index in
        ``-BCFAX``); the pots' total, the call, the minimum and maximum raise; and 0/1
        for each of fold, check, call, raise in ``legal``.  A ``show`` line fills the
        first three fields and the cards, the rest 0."""
        n, table = self.n, float(sum(self.start_chips))
        sb = float(max(self._small_blinds))
        high = [1.0, float(self.max_hands), float(n - 1), float(n - 1), sb, 2 * sb, 3.0]
        high += [1.0] * 104 + [table] * (2 * n) + [5.0] * n + [table] * 4 + [1.0] * 4
        return [0.0] * len(high), high

    def observation(self, line: bytes) -> list[float]:
        parsed = wire.parse_line(line)
        if not isinstance(parsed, wire.Request | wire.ShowRequest):
            raise ValueError(f"not a request line: {show(line)}")
        n = self.n
        cards = [0.0] * 104
        for card in parsed.hole:
            cards[card] = 1.0
        for card in parsed.board:
            cards[52 + card] = 1.0
        if isinstance(parsed, wire.ShowRequest):
            head = [1.0, float(parsed.hand), float(parsed.seat), 0.0, 0.0, 0.0, 0.0]
            return head + cards + [0.0] * (3 * n + 8)
        head = [0.0, float(parsed.hand), float(parsed.seat), float(parsed.dealer), float(parsed.sb)]
        head += [float(parsed.bb), float(wire.ROUNDS.index(parsed.round))]
        return [
            *head,
            *cards,
            *map(float, parsed.stacks),
            *map(float, parsed.bets),
            *(float(self._STATUS.index(letter)) for letter in parsed.status),
            float(sum(amount for amount, _ in parsed.pots)),
            float(parsed.to_call),
            float(parsed.min_raise),
            float(parsed.max_raise),
            *(1.0 if word in parsed.legal else 0.0 for word in ("fold", "check", "call", "raise")),
        ]

    # ================================================================== results

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> list[float]:
        """Chips won: final chips minus starting chips (they add up to zero)."""
        return [float(c - s) for c, s in zip(self.chips, self.start_chips, strict=True)]

    def ranks(self) -> list[int]:
        """Placement: players with chips by chips; then busted players, the later bust first.

        Two players who bust in the same hand are ordered by their chips at the start of
        that hand; equal keys share a rank.
        """
        keys = []
        for s in range(self.n):
            if self.chips[s] > 0:
                keys.append((1, self.chips[s], 0))
            else:
                hand, chips = self._busted.get(s, (0, 0))
                keys.append((0, hand, chips))
        return [1 + sum(1 for other in keys if other > key) for key in keys]

    def summary(self) -> dict[str, Any]:
        """Everything a replay (or a PHH export) needs, hand by hand."""
        return {
            "rules": self.rules,
            "seed_quirks": int(self.quirks),
            "bot_showdown": int(self.bot_showdown),
            "starting_chips": list(self.start_chips),
            "final_chips": list(self.chips),
            "hands_played": self.hand_no,
            "busted": {str(s): hand for s, (hand, _) in sorted(self._busted.items())},
            "hands": self._hands,
        }

    def tallies(self) -> list[dict[str, float]]:
        return [{"hands_won": won} for won in self._hands_won]


class Holdem(Game):
    name = "holdem"
    title = "No-limit Texas Hold'em (seed 003): tournaments of 2-10 bots, 27 hands, rising blinds"
    seats = SeatCount(2, 10, default=9)
    #: The seed sets no time limits ("a reasonable running time"); these are ours.
    limits = Limits(startup_s=60.0, decision_s=10.0, cpu_s=600.0, memory_bytes=2 * GiB)
    dead_bot = DeadBot.RESTART
    #: The seed's name_of(): every act line carries the players' names.
    tells_names = True
    #: "赢得尽量多的筹码" (win as many chips as possible, seed 003): chips won rank.
    standing = Standing.SCORE
    #: PHH, the standard poker hand-history format (written with pokerkit).
    exports: ClassVar = {"phh": phh_writer}
    option_specs: ClassVar[dict[str, Option]] = {
        "seed_quirks": Option(
            int, 1, "hold'em: 1 plays the seed's quirks (heads-up blinds, big blind calls 0, per-round pots)"
        ),
        "bot_showdown": Option(
            int, 0, "hold'em: 1 lets bots choose the five cards they show (seed's showdown())"
        ),
        "rules": Option(
            str,
            "seed",
            "hold'em: seed (our rules, from the seed's text) or ppca (the PPCA 2014 server's "
            "behaviour where the seed is silent; implies --seed-quirks 1 --bot-showdown 1)",
        ),
    }

    #: Narrate each hand to every seat in the PPCA server's sentences (protocol.holdem_ppca):
    #: set on the instance by ``referee serve --dialect ppca``, whose seats pass them on.
    #: Not a game option: a bot speaking the referee's protocol is never sent them.
    narrate: bool = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        rules = self.options["rules"]
        if rules not in RULES:
            raise ValueError(f"option rules: {rules!r} is not one of {', '.join(RULES)}")
        if rules == "seed":
            # The default rules: ``options`` stays what it was before the option existed.
            del self.options["rules"]
            return
        # ppca: the original server always played the seed's quirks and asked for five cards.
        for implied in ("seed_quirks", "bot_showdown"):
            if implied in options and not self.options[implied]:
                raise ValueError(f"option {implied}: the ppca rules imply {implied} 1")
            self.options[implied] = 1

    @property
    def rules(self) -> str:
        return self.options.get("rules", "seed")

    def new_state(self, seats: int, rng: random.Random) -> HoldemState:
        if seats not in self.seats:
            raise ValueError(f"holdem is played by 2-10 seats, not {seats}")
        return HoldemState(
            seats,
            rng,
            seed_quirks=bool(self.options["seed_quirks"]),
            bot_showdown=bool(self.options["bot_showdown"]),
            rules=self.rules,
            narrate=self.narrate,
        )

    # -- referee check (referee/check/) --

    #: Random legal actions, min-raises and all-ins included: it never faults.
    check_opponent = "holdem/random_player.py"

    # -- grading and replays --

    #: Grading's ``random`` bot: uniformly random legal play.
    random_player = "holdem/random_player.py"
    #: Only this game's summaries have it.
    summary_key = "hands"

    def line_kinds(self) -> tuple[str, ...]:
        quirks, showdown = self.options["seed_quirks"], self.options["bot_showdown"]
        return (
            *(f"{name} decision" for name in wire.ROUNDS),
            "facing a raise",
            "raise not allowed",
            *(("big blind calls 0",) if quirks else ()),
            "side pot",
            *(("show (bot showdown)",) if showdown else ()),
            "result after folds",
            "showdown result",
            "gameover",
        )

    def kinds_of_line(self, line: bytes) -> tuple[str, ...]:
        try:
            parsed = wire.parse_line(line)
        except (ValueError, IndexError, KeyError, UnicodeDecodeError):
            return ()
        if isinstance(parsed, wire.ShowRequest):
            return ("show (bot showdown)",)
        if isinstance(parsed, wire.Result):
            return ("showdown result" if parsed.shown else "result after folds",)
        if isinstance(parsed, wire.GameOver):
            return ("gameover",)
        kinds = [f"{parsed.round} decision"]
        if parsed.to_call and any(letter == "r" for _, letter, _ in parsed.history[-1]):
            kinds.append("facing a raise")
        if "raise" not in parsed.legal:
            kinds.append("raise not allowed")
        if not parsed.to_call and "call" in parsed.legal:
            kinds.append("big blind calls 0")
        if len({eligible for _, eligible in parsed.pots}) > 1:
            kinds.append("side pot")
        return tuple(kinds)

    def check_positions(self) -> list[Any]:
        """One-hand games (blinds 10/20) set up so that the bot (seat 0) meets each kind of
        decision and result line whatever it plays: a decision on each street after the
        flop, a raise to face, an all-in it can only call or fold against, the big
        blind's call 0 (under the seed's quirks), a side pot (three seats, a short stack
        all-in and a re-raise), a showdown and a hand won by a fold.  Moves before the
        bot's decision, its own included, are made here with checks and calls."""
        from referee.games.base import CheckPosition

        def hand(seats: int = 2, chips: int | list[int] = STARTING_CHIPS) -> HoldemState:
            return HoldemState(
                seats,
                random.Random(seats),
                seed_quirks=bool(self.options["seed_quirks"]),
                bot_showdown=bool(self.options["bot_showdown"]),
                chips=chips,
                small_blinds=(10,),
                hands_per_level=1,
                first_dealer=0,  # the positions below need seat 0 on the button
                rules=self.rules,
            )

        def until(state: HoldemState, done: Any) -> HoldemState:
            """Check or call for whoever acts until ``done(state)``."""
            while state.phase == BETTING and not done(state):
                state.apply(state.actor, CALL if state.to_call or state.free_call else CHECK)
            return state

        def bot_to_act(street: int) -> Any:
            return lambda s: s.street == street and s.actor == 0

        def opponent_to_act(s: HoldemState) -> bool:
            return s.actor == 1

        positions = [
            CheckPosition(f"{wire.ROUNDS[street]} decision", until(hand(), bot_to_act(street)))
            for street in (1, 2, 3)
        ]
        raised = until(hand(), opponent_to_act)
        raised.apply(1, raised.min_x)
        positions.append(CheckPosition("facing a raise", raised))
        all_in = until(hand(chips=[300, 1000]), opponent_to_act)
        all_in.apply(1, all_in.max_x)
        positions.append(CheckPosition("raise not allowed", all_in))
        if self.options["seed_quirks"]:
            free = until(hand(), lambda s: s.actor == 0 and s.free_call)
            positions.append(CheckPosition("big blind calls 0", free))
        side = until(hand(3, chips=[1000, 60, 1000]), opponent_to_act)
        side.apply(1, side.max_x)  # the short stack is all-in for 60
        side = until(side, lambda s: s.actor == 2)
        side.apply(2, side.min_x)  # a re-raise only seats 0 and 2 can match: a side pot
        positions.append(CheckPosition("side pot", until(side, bot_to_act(1)), seats=3))
        showdown = until(hand(), opponent_to_act)
        showdown.apply(1, showdown.max_x)
        showdown.apply(0, CALL)  # all-in and called: the board is dealt out to a showdown
        name = "show (bot showdown)" if self.options["bot_showdown"] else "showdown result"
        positions.append(CheckPosition(name, showdown))
        folded = until(hand(), opponent_to_act)
        folded.apply(1, FOLD)
        positions.append(CheckPosition("result after folds", folded))
        return positions
