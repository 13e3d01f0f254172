"""No-limit Hold'em rules (referee.games.holdem), wire format (protocol.holdem), PHH export, matches.

Sources: "seed" is seed 003 (PPCA 2014, /work/shared/seeds/003_97ecf071378643a5.txt), section 1
unless said; "reference" is /work/shared/reference.md §4 (pokerkit's short all-in vectors from
pokerkit's tests/test_rules.py, WSOP 2024 rule 96; the exhaustive 5-card counts).  The
comparison with pokerkit over thousands of random hands is tests/test_holdem_oracle.py.
"""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest
import trio
from conftest import BOT_PYTHON
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_5cards, evaluate_7cards

from protocol import holdem as wire
from referee import games
from referee.core.botspec import BotSpec
from referee.core.verdict import ProtocolError, Verdict
from referee.games.holdem import BETTING, OVER, SHOWING, Holdem, HoldemState, category
from referee.games.holdem_phh import phh_writer
from referee.match import Match, MatchConfig

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ROOT / "sample_players" / "holdem"


def cards(text: str) -> tuple[int, ...]:
    return wire.parse_cards(text)


def table(n: int, **kwargs) -> HoldemState:
    kwargs.setdefault("seed_quirks", False)
    return HoldemState(n, random.Random(kwargs.pop("seed", 0)), **kwargs)


def play(state: HoldemState, *replies: str) -> None:
    """Each reply by whoever is to act; every one must be legal."""
    for reply in replies:
        (seat,) = state.to_act()
        action = state.decode(seat, reply.encode())
        reason = state.illegal(seat, action)
        assert reason is None, f"seat {seat} {reply!r}: {reason}"
        state.apply(seat, action)


def request(state: HoldemState) -> wire.Request:
    (seat,) = state.to_act()
    return wire.parse_request(state.request(seat))


def last_result(state: HoldemState) -> wire.Result:
    """The result line of the hand just finished (the next hand has already posted its blinds)."""
    lines = [e.line for e in state.drain_events() if e.line.startswith(b"result")]
    return wire.parse_result(lines[-1])


def passive(state: HoldemState) -> None:
    """The player to act checks or calls."""
    (seat,) = state.to_act()
    state.apply(seat, wire.CALL if state.to_call or state.free_call else wire.CHECK)


# ============================================================================ the game


def test_game_definition() -> None:
    game = games.get("holdem")()
    assert game is not None and isinstance(game, Holdem)
    assert (Holdem.seats.low, Holdem.seats.high) == (2, 10)  # the brief: 2-10 bots
    assert Holdem.seats.default == 9  # "大约 8 至 9 人一组" (seed section 3)
    assert Holdem.dead_bot.value == "restart"
    assert game.options == {"seed_quirks": 1, "bot_showdown": 0}
    assert Holdem(seed_quirks=0).new_state(2, random.Random(1)).quirks is False
    with pytest.raises(ValueError):
        game.new_state(11, random.Random(1))


def test_starting_chips_and_first_request() -> None:
    """Seed: everyone starts with 1000; small blind left of the dealer, big blind next; big = 2 x small."""
    state = Holdem().new_state(4, random.Random(7))
    req = request(state)
    assert req.hand == 1 and req.dealer == 0 and (req.sb, req.bb) == (1, 2)
    assert req.stacks == (1000, 999, 998, 1000) and req.bets == (0, 1, 2, 0)
    assert req.seat == 3  # seed: preflop starts left of the big blind
    assert req.history == (((1, "s", 1), (2, "b", 2)),)
    assert req.legal == ("fold", "call", "raise") and req.to_call == 2
    assert (req.min_raise, req.max_raise) == (2, 998)
    assert req.status == "----" and req.pots == () and req.board == ()
    assert len(req.hole) == 2


def test_blind_schedule_and_27_hands() -> None:
    """Seed: small blind 1, 2, 5, 10, 20, 50, 100, 200, 500, rising every 3 hands: 27 hands a game."""
    state = table(3, chips=10**6, seed=3)
    seen = {}
    while not state.is_terminal():
        (seat,) = state.to_act()
        req = wire.parse_request(state.request(seat))
        seen[req.hand] = (req.sb, req.bb)
        passive(state)
    expected = [sb for sb in (1, 2, 5, 10, 20, 50, 100, 200, 500) for _ in range(3)]
    assert [seen[h][0] for h in range(1, 28)] == expected
    assert all(bb == 2 * sb for sb, bb in seen.values())
    assert state.hand_no == 27 and state.summary()["hands_played"] == 27


def test_dealer_moves_clockwise_and_skips_busted_players() -> None:
    """Seed: the dealer rotates clockwise; a player with no chips is out and only watches."""
    state = table(4, chips=[1000, 3, 1000, 1000], seed=5)
    rig(state, {0: "7C2D", 1: "ASAH", 2: "8C3D", 3: "9C4D"}, "KSQH5C6HJD")  # seat 1 survives hand 1
    dealers = []
    while not state.is_terminal() and state.hand_no < 6:
        dealers.append((state.hand_no, state.dealer, list(state.order)))
        hand = state.hand_no
        while state.hand_no == hand and not state.is_terminal():
            (seat,) = state.to_act()
            # Seat 1 shoves; the others fold to it or check it down.
            if seat == 1 and state.raise_reason is None:
                state.apply(seat, state.max_x)
            else:
                passive(state)
    assert [d for _, d, _ in dealers[:2]] == [0, 1]
    busted_at = next(i for i, (_, _, order) in enumerate(dealers) if 1 not in order)
    for _, dealer, order in dealers[busted_at:]:
        assert 1 not in order and dealer != 1
    _, _, order = dealers[busted_at]
    req = request(state)
    assert req.status[1] == "X" and req.stacks[1] == 0


def test_heads_up_blinds_seed_quirk() -> None:
    """Seed: "两人局的盲注依然按照正常局算" and the big blind is the dealer in a 2-player game."""
    state = table(2, seed_quirks=True, first_dealer=0)
    req = request(state)
    assert req.dealer == 0 and req.bets == (2, 1)  # the dealer posts the big blind
    assert req.seat == 1  # left of the big blind: the small blind acts first preflop
    play(state, "call", "call")  # the big blind "calls 0" (quirk)
    assert request(state).seat == 1  # and first after the flop too (left of the dealer)


def test_heads_up_standard_blinds() -> None:
    """Quirks off: the dealer posts the small blind, acts first preflop and last after the flop."""
    state = table(2, first_dealer=0)
    req = request(state)
    assert req.bets == (1, 2) and req.seat == 0
    play(state, "call", "check")
    assert request(state).seat == 1


def test_big_blind_calls_zero_seed_quirk() -> None:
    """Seed: preflop, when the largest bet equals the big blind, the big blind calls 0 instead of checking."""
    state = table(3, seed_quirks=True)
    play(state, "call", "call")
    req = request(state)
    assert req.seat == 2 and req.to_call == 0 and req.legal == ("fold", "call", "raise")
    assert state.illegal(2, wire.CHECK) is not None
    play(state, "call")
    assert request(state).history[0][-1] == (2, "c", 0)


def test_big_blind_checks_without_quirks() -> None:
    state = table(3)
    play(state, "call", "call")
    req = request(state)
    assert req.legal == ("fold", "check", "raise")
    assert state.illegal(2, wire.CALL) == "nothing to call: check"
    play(state, "check")
    assert request(state).round == "flop"


def test_later_rounds_start_left_of_the_dealer() -> None:
    """Seed: "后三轮下注都从庄家的下一名玩家开始"."""
    state = table(5, first_dealer=2)
    play(state, *["call"] * 4, "check")
    req = request(state)
    assert req.round == "flop" and req.seat == 3 and len(req.board) == 3
    play(state, *["check"] * 5)
    req = request(state)
    assert req.round == "turn" and req.seat == 3 and len(req.board) == 4


def test_minimum_raise_is_the_last_raise_or_the_big_blind() -> None:
    """Seed: a raise is at least the round's previous raise; the first bettor bets at least the big blind."""
    state = table(4, chips=1000)
    req = request(state)
    assert req.min_raise == 2  # opening preflop: one big blind over the big blind
    assert state.illegal(3, 1) == "raise 1 is below the minimum 2"
    play(state, "raise 10")  # to 12
    assert request(state).min_raise == 10
    play(state, "raise 25")  # to 37
    assert request(state).min_raise == 25
    state = table(3)
    play(state, "call", "call", "check")
    assert request(state).min_raise == 2  # flop: the first bet is at least the big blind


def test_raise_is_on_top_of_the_call() -> None:
    """Seed: <RAISE, 4> facing 4 with 2 in means calling to 4 and raising 4 more: the bet becomes 8."""
    state = table(3, small_blinds=(1,), hands_per_level=1, chips=100)
    play(state, "raise 2")  # seat 0 (left of the big blind, 3 players: the dealer) to 4
    assert state.bet[0] == 4
    (seat,) = state.to_act()
    assert seat == 1 and state.bet[1] == 1
    play(state, "raise 4")  # the small blind: 3 to call, then 4 more
    assert state.bet[1] == 8 and state.chips[1] == 92


def test_short_all_in_does_not_reopen_vector_1() -> None:
    """Reference vector 1 (WSOP 2024 rule 96, pokerkit): 650/20000/20000, blinds 100/200.

    The button raises to 600, the small blind goes all-in for 650, the big blind calls:
    the button may not re-raise.
    """
    state = table(3, chips=[650, 20000, 20000], small_blinds=(100,), hands_per_level=1, first_dealer=2)
    assert state.to_act() == (2,)
    play(state, "raise 400")  # the button to 600
    req = request(state)
    assert req.seat == 0 and (req.min_raise, req.max_raise) == (50, 50)  # all-in for less is allowed
    play(state, "raise 50", "call")
    req = request(state)
    assert req.seat == 2 and req.to_call == 50 and req.legal == ("fold", "call")
    assert "short all-in" in (state.illegal(2, 400) or "")


def test_consecutive_short_all_ins_reopen_vector_2() -> None:
    """Reference vector 2 (pokerkit test_2024_96_a): 20000 x3, 1300, 1700; bets 500, raise to 1000,
    call, all-in 1300, all-in 1700: betting is reopened, min raise-to 2200, max 20000.

    Played on the flop (our game has no antes): every stack is 2 larger and everyone limps.
    """
    stacks = [20002, 20002, 20002, 1302, 1702]
    for first in ("call", "fold"):
        state = table(5, chips=stacks, first_dealer=4)
        play(state, "call", "call", "call", "call", "check")
        assert request(state).round == "flop" and state.to_act() == (0,)
        play(state, "raise 500", "raise 500", "call", "raise 300", "raise 400")
        assert state.max_bet == 1700 and state.chips[3] == state.chips[4] == 0
        play(state, first)
        for seat in (1, 2):
            req = request(state)
            assert req.seat == seat and "raise" in req.legal
            assert state.max_bet + req.min_raise == 2200 and state.max_bet + req.max_raise == 20000
            play(state, "call")


def test_short_all_in_after_a_reopening_does_not_reopen_again() -> None:
    """Our rule 4 (pokerkit's): short all-ins of 300 and 400 reopen a 500 bet; a further short
    all-in of 100 starts a new count, so the first bettor, though facing 800, may only call."""
    state = table(6, chips=[20002, 20002, 802, 1202, 1302, 20002], first_dealer=5)
    play(state, *["call"] * 5, "check")
    play(state, "raise 500", "call", "raise 300", "raise 400", "raise 100", "call")
    req = request(state)
    assert req.seat == 0 and req.to_call == 800 and req.legal == ("fold", "call")
    assert "not reopened" in state.illegal(0, 500)


def test_raise_not_possible_when_everyone_else_is_all_in() -> None:
    state = table(2, chips=[50, 1000], first_dealer=0)
    play(state, "raise 48")  # the dealer (small blind) all-in for 50
    req = request(state)
    assert req.seat == 1 and req.legal == ("fold", "call") and req.to_call == 48
    assert state.illegal(1, 100) == "raise is not possible: every other player is all-in or folded"


def test_round_ends_when_action_returns_to_the_raiser() -> None:
    """Seed: the round ends when all have acted, bets are equal, and the next to act is the last raiser."""
    state = table(3)
    play(state, "raise 4", "call", "call")  # dealer raises, blinds call
    assert request(state).round == "flop"


def test_uncalled_bet_is_returned() -> None:
    state = table(3, chips=1000)
    play(state, "raise 500", "fold", "fold")  # to 502; nobody calls
    # The raiser wins the blinds; the 500 over the big blind came back (not a pot won).
    result = wire.parse_result(state.drain_events()[0].line)
    assert result.stacks == (1003, 999, 998) and result.pots == ((5, ((0, 5),)),)
    assert result.won == (5, 0, 0) and result.shown == ()


def test_fold_when_checking_is_free_is_legal() -> None:
    """Seed: with nothing to call a player may check, fold or raise."""
    state = table(3)
    play(state, "call", "call", "check", "fold")
    assert state.folded[1] and request(state).status[1] == "F"  # seat 1 acts first on the flop


def rig(state: HoldemState, hole: dict[int, str], board: str) -> None:
    state.set_cards({s: cards(h) for s, h in hole.items()}, cards(board))


@pytest.mark.parametrize(("dealer", "first_winner"), [(2, 0), (0, 1)])
def test_odd_chip_goes_clockwise_from_the_dealer(dealer: int, first_winner: int) -> None:
    """Seed: ties split a pot; the remainder goes to the winner closest clockwise to the dealer."""
    state = table(3, chips=100, first_dealer=dealer)
    rig(state, {0: "TC3D", 1: "TD3H", 2: "KS4H"}, "6C7D8H9S2C")
    sb, bb = state.sb_seat, state.bb_seat
    play(state, "call", "call", "raise 3")  # the big blind raises to 5
    play(state, "call", "call")  # pot 15
    for _ in range(9):
        play(state, "check")
    result = last_result(state)
    won = result.won
    assert won[2] == 0 and {won[0], won[1]} == {7, 8}
    assert won[first_winner] == 8, (sb, bb, won)
    assert result.pots == ((15, ((0, won[0]), (1, won[1]))),)


def _tie_two_rounds(quirks: bool) -> HoldemState:
    state = table(3, chips=100, first_dealer=2, seed_quirks=quirks)
    rig(state, {0: "TC3D", 1: "TD3H", 2: "KS4H"}, "6C7D8H9S2C")
    play(state, "call", "call", "raise 3", "call", "call")  # preflop pot 15
    play(state, "raise 3", "call", "call")  # flop pot 9
    return state


def test_per_round_pots_seed_quirk() -> None:
    """Seed: pots() — "不同轮贡献者相同的彩池不合并": pots of different rounds are not merged."""
    state = _tie_two_rounds(quirks=True)
    assert request(state).pots == ((15, (0, 1, 2)), (9, (0, 1, 2)))
    for _ in range(6):
        play(state, "check")
    # Each pot splits on its own: 15 -> 8 + 7 and 9 -> 5 + 4; seat 0 is first from the dealer's left.
    assert last_result(state).won == (13, 11, 0)
    merged = _tie_two_rounds(quirks=False)
    assert request(merged).pots == ((24, (0, 1, 2)),)
    for _ in range(6):
        play(merged, "check")
    assert last_result(merged).won == (12, 12, 0)


def test_side_pots_and_eligibility() -> None:
    state = table(3, chips=[20, 100, 100], first_dealer=2)
    rig(state, {0: "ASAH", 1: "KSKH", 2: "QSQH"}, "2C3D8H9SJC")
    play(state, "raise 48")  # the dealer to 50
    play(state, "call")  # the small blind calls all-in for 20
    play(state, "call")  # the big blind to 50
    req = request(state)
    assert req.pots == ((60, (0, 1, 2)), (60, (1, 2)))
    play(state, *["check"] * 6)
    # Aces win the main pot (60), kings the side pot (60).
    result = last_result(state)
    assert result.stacks == (60, 110, 50) and result.pots == ((60, ((0, 60),)), (60, ((1, 60),)))


def test_penalty_folds_or_checks() -> None:
    """The brief: a fault folds, or checks when checking is free (calls 0 under the seed's quirk)."""
    state = table(3, seed_quirks=True)
    state.penalize(0, Verdict.TIMEOUT)
    assert state.folded[0]
    state.penalize(1, Verdict.ILLEGAL)  # the small blind faces 1: fold
    result = last_result(state)  # the big blind wins the small blind; its uncalled 1 comes back
    assert state.hand_no == 1 and result.won == (0, 0, 2) and result.stacks == (1000, 999, 1001)
    assert state.summary()["hands"][0]["faults"] == [[0, "timeout"], [1, "illegal"]]
    state = table(3, seed_quirks=True)
    play(state, "call", "call")
    state.penalize(2, Verdict.CRASH)  # the big blind's free option: calls 0
    assert not state.folded[2] and request(state).history[0][-1] == (2, "c", 0)
    assert state.summary()["hands"] == [] and state._faults == [[2, "crash"]]


def test_ranks_and_scores() -> None:
    """Placement by final chips; busted players after, the later bust ranking better (our rule)."""
    state = table(4)
    state.chips = [2500, 0, 1500, 0]
    state._busted = {1: (3, 400), 3: (7, 100)}
    assert state.ranks() == [1, 4, 2, 3]
    state._busted = {1: (7, 400), 3: (7, 100)}  # same hand: more chips before it ranks better
    assert state.ranks() == [1, 3, 2, 4]
    state._busted = {1: (7, 100), 3: (7, 100)}
    assert state.ranks() == [1, 3, 2, 3]
    assert sum(state.scores()) == 0


def test_game_ends_when_one_player_has_every_chip() -> None:
    """Seed: the game ends when one player remains (or after 27 hands)."""
    state = table(3, seed=11)
    while not state.is_terminal():
        (seat,) = state.to_act()
        state.apply(
            seat, state.max_x if state.raise_reason is None else wire.CALL if state.to_call else wire.CHECK
        )
    assert sorted(state.chips)[:-1] == [0, 0] and state.hand_no < 27
    events = state.drain_events()
    over = wire.parse_gameover(events[-1].line)
    assert over.stacks == tuple(state.chips) and over.ranks == tuple(state.ranks())
    assert state.to_act() == () and state.phase == OVER


# ============================================================================ bot showdown


def _to_showdown(**kwargs) -> HoldemState:
    state = table(2, bot_showdown=True, first_dealer=0, **kwargs)
    rig(state, {0: "ASAH", 1: "KSKH"}, "2C3D8H9SJC")
    play(state, "call", "check", *["check"] * 6)
    assert state.phase == SHOWING
    return state


def test_bot_showdown_request_and_legality() -> None:
    """Seed: showdown() returns the five cards shown; they must be among the bot's seven."""
    state = _to_showdown()
    (seat,) = state.to_act()
    assert seat == 1  # left of the dealer first
    line = state.request(seat)
    assert line == b"show hand 1 seat 1 hole KSKH board 2C3D8H9SJC\n"
    assert wire.parse_show_request(line).hole == cards("KSKH")
    assert state.illegal(1, cards("KSKH2C3D8H")) is None
    assert "own seven" in state.illegal(1, cards("ASKH2C3D8H"))
    assert "different" in state.illegal(1, (*cards("KSKS"), *cards("2C3D8H")))
    with pytest.raises(ProtocolError):
        state.decode(1, b"KS KH 2C 3D")


def test_bot_showdown_compares_the_shown_hands() -> None:
    state = _to_showdown()
    play(state, "KS KH 2C 3D 8H", "2C 3D 8H 9S JC")  # the aces show only the board
    result = last_result(state)
    assert result.stacks == (998, 1002)
    assert result.shown[0] == (0, cards("ASAH"), cards("2C3D8H9SJC"))


def test_bot_showdown_invalid_choice_mucks() -> None:
    state = _to_showdown()
    play(state, "KS KH 2C 3D 8H")
    state.penalize(0, Verdict.ILLEGAL)  # the aces muck: the kings win
    result = last_result(state)
    assert result.stacks == (998, 1002) and result.shown[0] == (0, (), ())


def test_bot_showdown_all_mucked_split() -> None:
    state = _to_showdown()
    state.penalize(1, Verdict.TIMEOUT)
    state.penalize(0, Verdict.TIMEOUT)
    assert last_result(state).stacks == (1000, 1000)


# ============================================================================ hand evaluation


@pytest.mark.slow
def test_exhaustive_five_card_category_counts() -> None:
    """Reference: 40 / 624 / 3,744 / 5,108 / 10,200 / 54,912 / 123,552 / 1,098,240 / 1,302,540; 7,462 ranks."""
    counts = Counter(evaluate_5cards(*five) for five in itertools.combinations(range(52), 5))
    assert len(counts) == 7462
    by_category = Counter()
    for rank, count in counts.items():
        by_category[category(rank)] += count
    assert [by_category[c] for c in range(8, -1, -1)] == [
        40,
        624,
        3744,
        5108,
        10200,
        54912,
        123552,
        1098240,
        1302540,
    ]


def test_protocol_evaluator_agrees_with_phevaluator() -> None:
    rng = random.Random(3)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(1500)]
    theirs = [evaluate_7cards(*h) for h in hands]
    ours = [wire.hand_value(h) for h in hands]
    for i in range(len(hands) - 1):
        a, b = theirs[i], theirs[i + 1]
        x, y = ours[i], ours[i + 1]
        assert (a < b) == (x > y) and (a == b) == (x == y), (hands[i], hands[i + 1])
        assert x[0] == category(a)
    five = wire.best_five(hands[0])
    assert evaluate_5cards(*five) == theirs[0]


def test_pair_dealt_one_time_in_17() -> None:
    """Two hole cards are a pair with probability 3/51 = 1/17 (99% interval from the sample)."""
    hits = []
    for seed in range(3000):
        state = HoldemState(9, random.Random(seed))
        hits.extend(int(h[0] >> 2 == h[1] >> 2) for h in state.hole if h)
    n = len(hits)
    mean = sum(hits) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in hits) / (n - 1))
    half = 2.576 * sd / math.sqrt(n)
    assert mean - half <= 1 / 17 <= mean + half, (mean, half)


# ============================================================================ wire format


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        (b"fold", wire.FOLD),
        (b"check", wire.CHECK),
        (b"call", wire.CALL),
        (b"raise 12", 12),
        (b" \traise \t 007\t \r", 7),
        (b"call\r", wire.CALL),
        (b"raise 0", 0),
        (b"raise 999999999", 999999999),
        (b"raise 000000000000000042", 42),
    ],
)
def test_decode_accepts(reply: bytes, action: int) -> None:
    assert table(3).decode(0, reply) == action
    assert wire.decode_action(wire.encode_action(action).rstrip(b"\n")) == action


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"   ",
        b"Fold",
        b"CALL",
        b"raise",
        b"raise -5",
        b"raise 5 5",
        b"raise5",
        b"raise 1000000000",
        b"call\n",
        b"call\r\r",
        b"check fold",
        b"allin",
        b"\xff\xfe",
        b"raise 1e3",
        b"raise \xd9\xa3",  # an Arabic-Indic digit
    ],
)
def test_decode_rejects(reply: bytes) -> None:
    with pytest.raises(ProtocolError):
        table(3).decode(0, reply)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=60))
def test_decode_arbitrary_bytes(reply: bytes) -> None:
    state = table(3)
    try:
        action = state.decode(0, reply)
    except ProtocolError:
        return
    assert isinstance(action, int) and action >= wire.CALL
    state.illegal(0, action)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_decode_arbitrary_text(reply: str) -> None:
    state = table(3)
    for raw in (reply.encode("utf-8", "surrogatepass"), ("raise " + reply).encode("utf-8", "surrogatepass")):
        try:
            action = state.decode(0, raw)
        except ProtocolError:
            continue
        assert isinstance(action, int)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40))
def test_decode_show_arbitrary_bytes(reply: bytes) -> None:
    state = _to_showdown()
    try:
        five = state.decode(1, reply)
    except ProtocolError:
        return
    assert len(five) == 5
    state.illegal(1, five)


def test_request_line_matches_the_state() -> None:
    """Every request parses, and says what the rules will judge (a bot needs no memory)."""
    rng = random.Random(5)
    for seed in range(30):
        state = HoldemState(2 + seed % 9, random.Random(seed), seed_quirks=bool(seed % 2))
        while not state.is_terminal():
            state.drain_events()
            (seat,) = state.to_act()
            req = wire.parse_request(state.request(seat))
            assert req.seat == seat and req.stacks == tuple(state.chips) and req.bets == tuple(state.bet)
            assert req.hole == state.hole[seat] and req.board == state.board[: len(req.board)]
            legal = {a for a in (wire.FOLD, wire.CHECK, wire.CALL) if state.illegal(seat, a) is None}
            assert {wire.encode_action(a).decode().strip() for a in legal} | (
                {"raise"} if state.illegal(seat, req.max_raise) is None and req.max_raise else set()
            ) == set(req.legal)
            assert req.pot_total + sum(req.stacks) == sum(state.start_chips)
            k = rng.random()
            if "raise" in req.legal and k < 0.3:
                action = rng.choice((req.min_raise, req.max_raise))
            elif k < 0.4:
                action = wire.FOLD
            else:
                action = wire.CALL if "call" in req.legal else wire.CHECK
            state.apply(seat, action)
        results = [wire.parse_line(e.line) for e in state.drain_events()]
        assert isinstance(results[-1], wire.GameOver)


def test_result_line_after_each_hand() -> None:
    """The seed's hands() / won_chips_in_pots() / chips_won_in_last_game() go to every seat."""
    state = table(3)
    rig(state, {0: "ASAH", 1: "KSKH", 2: "QSQH"}, "2C3D8H9SJC")
    play(state, "call", "call", "check", *["check"] * 9)
    events = state.drain_events()
    assert [e.seat for e in events] == [0, 1, 2] and not any(e.expects_reply for e in events)
    assert events[0].line == (
        b"result hand 1 board 2C3D8H9SJC shown 0:ASAH:ASAH8H9SJC,1:KSKH:KSKH8H9SJC,"
        b"2:QSQH:QSQH8H9SJC pots 6:0=6 won 6,0,0 stacks 1004,998,998\n"
    )


def test_same_seed_same_game() -> None:
    def run(seed: int) -> dict:
        state = HoldemState(6, random.Random(seed))
        while not state.is_terminal():
            passive(state)
        return state.summary()

    assert run(4) == run(4) and run(4) != run(5)


# ============================================================================ PHH export


@pytest.mark.slow
def test_phh_export_replays_in_pokerkit() -> None:
    from pokerkit import HandHistory

    rng = random.Random(2)
    checked = 0
    for seed in range(40):
        n = 2 + seed % 6
        state = HoldemState(n, random.Random(seed), seed_quirks=seed % 4 == 0)
        while not state.is_terminal():
            (seat,) = state.to_act()
            if state.raise_reason is None and rng.random() < 0.25:
                state.apply(seat, rng.choice((state.min_x, state.min_x, state.max_x)))
            elif state.to_call and rng.random() < 0.3:
                state.apply(seat, wire.FOLD)
            else:
                passive(state)
        summary = state.summary()
        text = phh_writer()(summary, [f"bot{i}" for i in range(n)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            histories = list(HandHistory.loads_all(text))
            assert len(histories) == summary["hands_played"]
            for history, hand in zip(histories, summary["hands"], strict=True):
                final = list(list(history)[-1].stacks)
                ours = [hand["end_stacks"][s] for s in hand["order"]]
                assert sum(final) == sum(ours)
                if not summary["seed_quirks"]:
                    assert final == ours, hand["hand"]
                checked += 1
    assert checked > 150


# ============================================================================ matches with real bots


@pytest.fixture(scope="module")
def built() -> None:
    subprocess.run(["make", "-C", str(ROOT / "sample_players")], check=True, capture_output=True)


def _spec(name: str, argv: list[str]) -> BotSpec:
    return BotSpec(name=name, argv=argv, home=str(PLAYERS))


@pytest.mark.slow
async def test_match_of_sample_players(built: None) -> None:
    specs = [
        _spec("montecarlo", [str(PLAYERS / "bin" / "montecarlo")]),
        _spec("hand_strength", [BOT_PYTHON, str(PLAYERS / "hand_strength.py")]),
        _spec("always_call", [BOT_PYTHON, str(PLAYERS / "always_call.py")]),
        _spec("random", [BOT_PYTHON, str(PLAYERS / "random_player.py"), "3"]),
    ]
    config = MatchConfig(game="holdem", games=8, seed=1, pin=False, options={"bot_showdown": 1})
    result = await Match(Holdem(bot_showdown=1), specs, config).run()
    assert result.completed and result.games_played == 8
    assert sum(p.mean_score for p in result.players) == pytest.approx(0)
    for p in result.players:
        assert p.games == 8 and p.forfeits == {}, p


@pytest.mark.slow
async def test_crashed_bot_folds_and_the_table_goes_on(built: None, tmp_path: Path) -> None:
    """The brief: a crashed bot folds/checks for the rest of the game and is restarted for the next."""
    crasher = "import sys\nfor i, line in enumerate(sys.stdin):\n    if i == 4: sys.exit(3)\n" + (
        "    if line.startswith('act'): print('call' if ' call' in line.split('legal')[1] else 'check', flush=True)\n"
    )
    specs = [
        _spec("montecarlo", [str(PLAYERS / "bin" / "montecarlo")]),
        _spec("crasher", [BOT_PYTHON, "-c", crasher]),
        _spec("always_call", [BOT_PYTHON, str(PLAYERS / "always_call.py")]),
    ]
    config = MatchConfig(game="holdem", games=3, seed=2, pin=False, log_path=str(tmp_path / "log.jsonl"))
    with trio.fail_after(60):
        result = await Match(Holdem(), specs, config).run()
    assert result.completed and result.games_played == 3
    crashed = result.player("crasher")
    assert crashed.forfeits.get("crash", 0) >= 3 and crashed.restarts >= 2
    import json

    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert all(len(r["summary"]["hands"]) >= 1 for r in records)
    assert any(f[1] == "crash" for r in records for h in r["summary"]["hands"] for f in h["faults"])


@pytest.mark.slow
def test_cli_match_nine_seats(built: None, tmp_path: Path) -> None:
    """The issue: a 9-seat match of the sample players runs from the CLI."""
    bots = [str(PLAYERS / "bin" / "montecarlo")] * 3 + [
        f"python3 {PLAYERS / 'hand_strength.py'}",
        f"python3 {PLAYERS / 'always_call.py'}",
        f"python3 {PLAYERS / 'random_player.py'} 1",
        f"python3 {PLAYERS / 'random_player.py'} 2",
        f"python3 {PLAYERS / 'hand_strength.py'} 2",
        f"python3 {PLAYERS / 'always_call.py'} x",
    ]
    options = ["--game", "holdem", "--games", "2", "--seed", "3", "--no-pin", "--seed-quirks", "0"]
    log = tmp_path / "games.jsonl"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "match",
            *bots,
            *options,
            "--json",
            str(tmp_path / "r.json"),
            "--log",
            str(log),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    import json

    result = json.loads((tmp_path / "r.json").read_text())
    assert result["games_played"] == 2 and len(result["players"]) == 9
    assert result["options"] == {"seed_quirks": 0}
    # Issue 15, point 7: the seed's name_of() and initial_chips() are in every act line.
    for line in log.read_text().splitlines():
        game = json.loads(line)
        asked = [
            step for step in game["transcript"] if step["kind"] == "ask" and step["line"].startswith("act")
        ]
        assert asked
        for step in asked:
            request = wire.parse_request(step["line"])
            assert request.initial == 1000 and list(request.names) == game["seats"], step


def test_phase_constants() -> None:
    assert (BETTING, SHOWING, OVER) == (0, 1, 2)
