"""The deal depends only on the seed and on positions, never on the decisions taken.

referee/games/base.py, "The deal": everything left to chance — dice, cards, the prize
order — depends only on the ``rng`` given to ``new_state`` and on positions (seat, turn,
round, hand, a die's place in a roll).  That is what lets a match replay one deal with
the bots swapped (``--duplicate``) and compare them on the same luck.  So for each game:
two games from one seed with *different* decisions show the same chance outcomes at the
same positions, and the same seed with the same decisions gives the same game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from protocol import holdem as holdem_wire
from protocol import liars_dice as ld_wire
from protocol import yahtzee as yahtzee_wire
from referee.games.bidding_wars import BiddingWars
from referee.games.dice_poker import DicePoker
from referee.games.holdem import Holdem, HoldemState
from referee.games.liars_dice import LiarsDice, LiarsDiceState
from referee.games.yahtzee import Yahtzee, YahtzeeState

SEEDS = range(8)

# ----------------------------------------------------------------- Yahtzee


def _yahtzee(seed: int, policy_seed: int) -> tuple[list[tuple[int, ...]], list[bytes], YahtzeeState]:
    """A game of random legal actions: the first roll of each turn, by placement (seat 0
    turn 1, seat 1 turn 1, seat 0 turn 2...), and every request line."""
    policy = random.Random(policy_seed)
    state = Yahtzee().new_state(2, random.Random(seed))
    firsts, lines = [], []
    while not state.is_terminal():
        (seat,) = state.to_act()
        line = state.request(seat)
        lines.append(line)
        pos = yahtzee_wire.parse_position(line)
        if pos.roll == 1:
            assert seat == state.placements % 2
            firsts.append(pos.dice)
        state.apply(seat, policy.choice(yahtzee_wire.legal_actions(pos.own, pos.dice, pos.roll)))
    return firsts, lines, state


@pytest.mark.parametrize("seed", SEEDS)
def test_yahtzee_first_rolls_do_not_depend_on_decisions(seed: int) -> None:
    """Each seat's first roll of each turn is the same whatever both bots rerolled and
    placed before (and whatever the other seat did)."""
    firsts_a, lines_a, a = _yahtzee(seed, policy_seed=1)
    firsts_b, lines_b, b = _yahtzee(seed, policy_seed=2)
    assert lines_a != lines_b and a.card(0) != b.card(0)  # different decisions...
    assert len(firsts_a) == len(firsts_b) == 26
    assert firsts_a == firsts_b  # ...the same first rolls
    assert firsts_a != _yahtzee(seed + 100, policy_seed=1)[0]


def test_yahtzee_rerolls_take_the_next_values_of_the_turns_stream() -> None:
    """A reroll takes the next values of the (seat, turn) stream, in die order, for the
    rerolled dice: the faces a bot gets depend on how many dice it has rerolled so far
    in the turn, not on which."""
    for seed in SEEDS:
        a = Yahtzee().new_state(2, random.Random(seed))
        b = Yahtzee().new_state(2, random.Random(seed))
        assert a.dice == b.dice
        first = a.dice
        a.apply(0, yahtzee_wire.hold(0b00000))  # all five: stream values 5..9
        a1 = a.dice
        a.apply(0, yahtzee_wire.hold(0b00111))  # dice 3 and 4: values 10, 11
        a2 = a.dice
        b.apply(0, yahtzee_wire.hold(0b10101))  # dice 1 and 3: values 5, 6
        b1 = b.dice
        b.apply(0, yahtzee_wire.hold(0b00000))  # all five: values 7..11
        b2 = b.dice
        assert b1 == (first[0], a1[0], first[2], a1[1], first[4])
        assert b2 == (a1[2], a1[3], a1[4], a2[3], a2[4])
        assert a2[:3] == a1[:3]


def test_yahtzee_same_seed_same_decisions_same_game() -> None:
    assert _yahtzee(5, 9)[1] == _yahtzee(5, 9)[1]


# ----------------------------------------------------------------- Liar's Dice


def _liars_dice(seats: int, seed: int, policy_seed: int) -> tuple[dict[str, Any], list[bytes]]:
    """A game of random legal bids and challenges: its summary and every request."""
    policy = random.Random(policy_seed)
    state = LiarsDice().new_state(seats, random.Random(seed))
    lines = []
    while not state.is_terminal():
        (seat,) = state.to_act()
        lines.append(state.request(seat))
        bid = state.current_bid
        if bid is not None and (policy.random() < 0.4 or bid.quantity >= state.dice_in_play):
            action: Any = ld_wire.CHALLENGE
        elif bid is None:
            action = ld_wire.Bid(policy.randint(1, 2), policy.randint(2, 6))
        else:
            action = ld_wire.Bid(bid.quantity + 1, policy.randint(2, 6))
        assert state.illegal(seat, action) is None
        state.apply(seat, action)
    return state.summary(), lines


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_liars_dice_a_seats_dice_depend_only_on_the_round_and_its_count(seats: int) -> None:
    """Round r's dice of seat s come from the stream of (r, s): the first round's dice are
    the same whatever the bids; later, a seat with as many dice rolls the same hand in
    both games, and with fewer dice a part of that hand (the first of the same values)."""
    compared = 0
    for seed in SEEDS:
        a, lines_a = _liars_dice(seats, seed, policy_seed=1)
        b, lines_b = _liars_dice(seats, seed, policy_seed=2)
        assert lines_a != lines_b
        assert a["rounds"][0]["dice"] == b["rounds"][0]["dice"]
        for ra, rb in zip(a["rounds"], b["rounds"], strict=False):
            for da, db in zip(ra["dice"], rb["dice"], strict=True):
                small, large = sorted((da, db), key=len)
                assert not Counter(small) - Counter(large), (da, db)
                compared += len(da) == len(db) > 0
    assert compared > 20 * seats


@pytest.mark.parametrize("seed", SEEDS)
def test_liars_dice_a_hand_built_round_is_round_0(seed: int) -> None:
    """A game from from_round plays its given dice as round 0 and rolls the next rounds
    from the streams of rounds 1, 2...: the same dice as a game dealt from that seed."""
    built = LiarsDiceState.from_round([[2, 3, 4, 5, 6], [1, 1, 2, 2, 3]], rng=random.Random(seed))
    dealt = LiarsDice().new_state(2, random.Random(seed))
    for state in (built, dealt):
        state.apply(0, ld_wire.Bid(10, 5))
        state.apply(1, ld_wire.CHALLENGE)
    if dealt.counts == built.counts == (4, 5):  # seat 0's bid failed in both
        assert built.hand(0) == dealt.hand(0) and built.hand(1) == dealt.hand(1)
    else:  # ten fives and ones in the dealt game: seat 1 lost instead
        assert dealt.counts == (5, 4)


def test_liars_dice_same_seed_same_decisions_same_game() -> None:
    assert _liars_dice(4, 3, 7) == _liars_dice(4, 3, 7)


# ----------------------------------------------------------------- Hold'em


def _holdem(seed: int, policy: Callable[[HoldemState, random.Random], Any]) -> list[tuple[Any, ...]]:
    """A tournament: for each hand, (hand number, players dealt in, hole cards, board)."""
    rng = random.Random(0)
    state = Holdem().new_state(9, random.Random(seed))
    hands = []
    while not state.is_terminal():
        if not hands or hands[-1][0] != state.hand_no + 1:
            hands.append((state.hand_no + 1, tuple(state.order), tuple(state.hole), state.board))
        (seat,) = state.to_act()
        action = policy(state, rng)
        assert state.illegal(seat, action) is None
        state.apply(seat, action)
        state.drain_events()
    return hands


def _passive(state: HoldemState, rng: random.Random) -> Any:
    return holdem_wire.CALL if state.to_call or state.free_call else holdem_wire.CHECK


def _loose(state: HoldemState, rng: random.Random) -> Any:
    if state.to_call and rng.random() < 0.3:
        return holdem_wire.FOLD
    if state.raise_reason is None and rng.random() < 0.2:
        return state.min_x
    return _passive(state, rng)


@pytest.mark.parametrize("seed", SEEDS)
def test_holdem_each_hands_cards_depend_only_on_the_hand_number(seed: int) -> None:
    """Hand h's deck depends on h alone: with the same players dealt in, the same hole
    cards and board, however the earlier hands were played; with fewer players (someone
    busted in one game only), the same top of the deck."""
    passive = _holdem(seed, _passive)
    loose = _holdem(seed, _loose)
    assert passive != loose
    same_table = [(p, q) for p, q in zip(passive, loose, strict=False) if p[:2] == q[:2]]
    assert same_table and same_table[0][0][0] == 1
    for p, q in same_table:
        assert p == q
    # The first pass of hole cards is the top of the deck, one card per player in order.
    for (hand, order_p, hole_p, _), (_, order_q, hole_q, _) in zip(passive, loose, strict=False):
        k = min(len(order_p), len(order_q))
        assert [hole_p[s][0] for s in order_p[:k]] == [hole_q[s][0] for s in order_q[:k]], hand
    # Hands differ from hand to hand.
    assert len({hand[3] for hand in passive}) == len(passive)


@pytest.mark.slow
def test_holdem_busts_do_not_shift_later_decks() -> None:
    """Across seeds, games whose tables differ (a bust in one only) still agree on the
    top of each later hand's deck (this is what needs hand-keyed decks)."""
    differing = 0
    for seed in range(40):
        passive = _holdem(seed, _passive)
        loose = _holdem(seed, _loose)
        for (hand, order_p, hole_p, _), (_, order_q, hole_q, _) in zip(passive, loose, strict=False):
            differing += order_p != order_q
            k = min(len(order_p), len(order_q))
            assert [hole_p[s][0] for s in order_p[:k]] == [hole_q[s][0] for s in order_q[:k]], (seed, hand)
    assert differing > 0


def test_holdem_the_deck_of_a_hand_does_not_depend_on_the_cards_used_before() -> None:
    """Hand 2's deck is the same whether hand 1 was dealt to 9 players or to 3."""
    nine = HoldemState(9, random.Random(11))
    three = HoldemState(3, random.Random(11))
    for state in (nine, three):
        hand = state.hand_no
        while state.hand_no == hand:
            _passive_step(state)
    # Hole cards go round the table from the top of the deck: the first three cards
    # (the first card of the first three players) are the same.
    assert nine.hand_no == three.hand_no == 1
    assert [nine.hole[s][0] for s in nine.order[:3]] == [three.hole[s][0] for s in three.order]


def _passive_step(state: HoldemState) -> None:
    (seat,) = state.to_act()
    state.apply(seat, _passive(state, random.Random(0)))


def test_holdem_same_seed_same_decisions_same_game() -> None:
    assert _holdem(2, _loose) == _holdem(2, _loose)


# ----------------------------------------------------------------- dice poker, Bidding Wars


@pytest.mark.parametrize("seed", SEEDS)
def test_dice_poker_deal_is_drawn_before_any_decision(seed: int) -> None:
    """One draw at new_state: B and both dice, whatever the seats then do."""
    summaries = []
    for replies in ([b"0"], [b"1", b"0"], [b"1", b"1"]):  # fold; raise, fold; raise, call
        state = DicePoker().new_state(2, random.Random(seed))
        for reply in replies:
            (seat,) = state.to_act()
            state.request(seat)
            action = state.decode(seat, reply)
            assert state.illegal(seat, action) is None
            state.apply(seat, action)
        assert state.is_terminal()
        summaries.append(state.summary())
    assert len({s["ended"] for s in summaries}) == 3
    assert len({(s["b"], tuple(s["dice"])) for s in summaries}) == 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_bidding_wars_prize_order_does_not_depend_on_the_bids(seed: int) -> None:
    """The prize deck is shuffled at new_state: the same prizes in the same turns
    whatever the bids (or a forfeit)."""
    prizes = []
    for policy_seed in (1, 2):
        policy = random.Random(policy_seed)
        state = BiddingWars(cards=9).new_state(2, random.Random(seed))
        while not state.is_terminal():
            state.apply_joint({s: policy.choice(state.hand(s)) for s in (0, 1)}, {})
        prizes.append([prize for prize, _, _ in state.history])
    assert prizes[0] == prizes[1] == list(BiddingWars(cards=9).new_state(2, random.Random(seed)).deck)
