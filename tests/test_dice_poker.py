"""Dice poker rules (referee.games.dice_poker), wire format (protocol.dice_poker), seed 000.

Rule sources are quoted from seed 000 (/work/shared/seeds/000_6b0231818eccaab9.txt).
Published values come from the project's reference facts, §4 "Dice poker": V(B) per B,
one equilibrium family, and the mean −0.30652 over B.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import statistics
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path

import msgspec
import pytest
from conftest import BOT_PYTHON
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from protocol import dice_poker as wire
from referee.core.botspec import BotSpec
from referee.core.limits import LimitsOverride, MiB
from referee.core.seeding import deal_seed
from referee.core.verdict import ProtocolError, Verdict
from referee.games import DeadBot, Event, available
from referee.games import dice_poker as rules
from referee.games.dice_poker import DicePoker, DicePokerState
from referee.match import Match, MatchConfig
from referee.sinks.collect import Collector

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_players"
PLAYERS = SAMPLES / "dice_poker"
Z99 = 2.5758293035489004  # two-sided 99% normal quantile

# Reference §4: the equilibrium value to the first player, V(B).
V = {
    3: Fraction(1, 10), 4: Fraction(0), 5: Fraction(-1, 21), 6: Fraction(-1, 8), 7: Fraction(-2, 9),
    8: Fraction(-11, 45), 9: Fraction(-3, 11), 10: Fraction(-11, 36), 11: Fraction(-40, 117),
    12: Fraction(-8, 21), 13: Fraction(-19, 45), 14: Fraction(-67, 144), 15: Fraction(-26, 51),
    16: Fraction(-5, 9), 17: Fraction(-5, 9), 18: Fraction(-5, 9),
}  # fmt: skip
MEAN_V = -0.30652  # reference §4: mean over B uniform on 3..18
BETS = range(3, 19)
DICE = range(1, 7)
VERDICTS = list(Verdict)


def load_equilibrium_player():
    """The Python equilibrium player as a module (its solver, not its main loop)."""
    spec = importlib.util.spec_from_file_location("dice_poker_equilibrium", PLAYERS / "equilibrium.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EQ = load_equilibrium_player()
EQUILIBRIA = EQ.equilibria()  # {B: (value, p, q)} as exact fractions


def play(state: DicePokerState, first_raises: bool, second_calls: bool) -> DicePokerState:
    state.apply(0, int(first_raises))
    if not state.is_terminal():
        state.apply(1, int(second_calls))
    assert state.is_terminal()
    return state


def ci99(sample: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 99% confidence interval (normal, sample SD)."""
    return statistics.fmean(sample), Z99 * statistics.stdev(sample) / math.sqrt(len(sample))


# ----------------------------------------------------------------- the game and the deal


def test_game_definition() -> None:
    """Seed: 64 MB, Init "within 10 minutes", 1 µs mean per call is soft (no CPU budget)."""
    assert available()["dice-poker"] is DicePoker
    game = DicePoker()
    assert (game.seats.low, game.seats.high) == (2, 2)
    assert game.limits.memory_bytes == 64 * MiB
    assert game.limits.startup_s == 600.0
    assert game.limits.cpu_s is None
    assert game.limits.decision_s == 1.0
    assert game.dead_bot is DeadBot.FORFEIT_MATCH
    with pytest.raises(ValueError):
        game.new_state(3, random.Random(0))


def test_same_seed_same_deals() -> None:
    """All randomness comes from the rng given to new_state."""
    game = DicePoker()
    rng1, rng2 = random.Random(42), random.Random(42)
    a = [game.new_state(2, rng1) for _ in range(200)]
    b = [game.new_state(2, rng2) for _ in range(200)]
    assert [(s.b, s.dice) for s in a] == [(s.b, s.dice) for s in b]
    assert len({(s.b, s.dice) for s in a}) > 100


@pytest.mark.slow
def test_deal_is_uniform() -> None:
    """Seed: "a random integer B from the interval [3..18]"; each player rolls a die.

    Every B, every face of either die and the chance of equal dice (1/6) lie within the
    99% confidence interval of their sampled frequency.
    """
    rng = random.Random(2024)
    n = 120_000
    deals = [rules.deal(rng) for _ in range(n)]
    checks = [(f"B={b}", [d[0] == b for d in deals], 1 / 16) for b in BETS]
    checks += [(f"die{k}={f}", [d[1 + k] == f for d in deals], 1 / 6) for k in (0, 1) for f in DICE]
    checks.append(("equal dice", [d[1] == d[2] for d in deals], 1 / 6))
    for what, hits, p in checks:
        mean, half = ci99([float(h) for h in hits])
        assert abs(mean - p) <= half, f"{what}: {mean:.5f} ± {half:.5f}, expected {p:.5f}"
    assert {d[0] for d in deals} == set(BETS)


def test_a_deal_seeds_words_deal_every_deal_equally_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "a random integer B from the interval [3..18]", then "both players secretly
    roll their own die".  A match deals from the 16-bit words of a hash of the deal seed
    (``deal_of_seed``): every word under the limit deals, and each of the 16 × 36
    (B, die, die) is dealt by exactly as many words (113), so a uniform word is a
    uniform deal; a word at or over the limit is passed over for the next one, and when
    all four are, the seeded generator deals."""
    limit = rules._DEAL_LIMIT
    assert limit == 576 * 113
    counts = Counter(rules._deal_of_words(word) for word in range(limit))
    assert set(counts) == {(b, d0, d1) for b in BETS for d0 in DICE for d1 in DICE}
    assert set(counts.values()) == {113}
    for word in range(limit, 1 << 16):  # the low word refused: the next one deals
        assert rules._deal_of_words(word | 7 << 16) == rules._deal_of_words(7)
    assert rules._deal_of_words(0xFFFF_FFF0_FFFF_FFFF) is None

    class AllRefused:
        def __init__(self, *_: object, **__: object) -> None:
            pass

        def digest(self) -> bytes:
            return b"\xff" * 8

    monkeypatch.setattr(rules, "_blake2b", AllRefused)
    assert rules.deal_of_seed(12345) == rules.deal(random.Random(12345))


def test_deals_are_a_hash_of_the_seed_not_its_bits() -> None:
    """A bot sees its deals; the deal seeds are SplitMix64 outputs of consecutive
    counters, so a deal is a hash of its seed, never the seed's own bits (from which
    the next seeds could be worked out)."""
    seeds = [deal_seed(11, k) for k in range(2000)]
    own_bits = sum(rules.deal_of_seed(seed) == rules._deal_of_words(seed) for seed in seeds)
    assert own_bits < 20  # ~1/576 of them by chance


@pytest.mark.slow
def test_a_matchs_deals_are_uniform_and_unrelated() -> None:
    """The deals of one match seed, as a match draws them (``new_deal`` from
    ``deal_seed``), 120,000 of them: the 576 (B, die, die) equally likely, and each
    deal's B unrelated to the one before (the 256 pairs equally likely) — Pearson's
    chi-square test does not reject either at the 0.1% level."""
    game = DicePoker()
    deals = [(s.b, *s.dice) for s in (game.new_deal(2, deal_seed(2026, k)) for k in range(120_000))]
    cells = Counter(deals)
    pairs = Counter((a[0], b[0]) for a, b in itertools.pairwise(deals))
    assert chisquare([cells[(b, x, y)] for b in BETS for x in DICE for y in DICE]).pvalue > 0.001
    assert chisquare([pairs[(a, b)] for a in BETS for b in BETS]).pvalue > 0.001


def test_same_deal_seed_same_deal() -> None:
    game = DicePoker()
    seeds = [deal_seed(9, k) for k in range(200)]
    a = [game.new_deal(2, seed) for seed in seeds]
    b = [game.new_deal(2, seed) for seed in seeds]
    assert [(s.b, s.dice) for s in a] == [(s.b, s.dice) for s in b]
    assert len({(s.b, s.dice) for s in a}) > 100
    with pytest.raises(ValueError):
        game.new_deal(3, seeds[0])


@pytest.mark.parametrize(("b", "d0", "d1"), [(2, 1, 1), (19, 1, 1), (3, 0, 1), (3, 1, 7)])
def test_state_rejects_impossible_deals(b: int, d0: int, d1: int) -> None:
    with pytest.raises(ValueError):
        DicePokerState(b, d0, d1)


# ----------------------------------------------------------------- chips


@pytest.mark.parametrize("b", BETS)
def test_chips_of_every_ending(b: int) -> None:
    """Seed: the first player "folds (thereby losing the small blind)"; the second
    "folds (thereby losing the big blind)"; on a call "the player with the higher number
    rolled wins (in case of a tie, the pot is split so that nobody wins or loses anything)".
    Blinds 1 and 2; the winner of a showdown wins B ("raises to B").
    """
    for d0 in DICE:
        for d1 in DICE:
            s = play(DicePokerState(b, d0, d1), False, False)
            assert (s.scores(), s.ranks(), s.ended) == ([-1.0, 1.0], [2, 1], rules.FIRST_FOLDED)
            s = play(DicePokerState(b, d0, d1), True, False)
            assert (s.scores(), s.ranks(), s.ended) == ([2.0, -2.0], [1, 2], rules.SECOND_FOLDED)
            s = play(DicePokerState(b, d0, d1), True, True)
            assert s.ended == rules.SHOWDOWN
            if d0 > d1:
                assert (s.scores(), s.ranks()) == ([b, -b], [1, 2])
            elif d0 < d1:
                assert (s.scores(), s.ranks()) == ([-b, b], [2, 1])
            else:
                assert (s.scores(), s.ranks()) == ([0.0, 0.0], [1, 1])
            assert rules.showdown_chips(b, d0, d1) == s.chips


def test_nonzero_integers_raise_and_call() -> None:
    """Seed: "zero means you want to fold, non-zero means you want to bet/call"."""
    s = DicePokerState(9, 6, 2)
    s.apply(0, s.decode(0, b"-5"))
    s.apply(1, s.decode(1, b"123456789012345678901234567890"))
    assert s.scores() == [9.0, -9.0]
    s = DicePokerState(9, 6, 2)
    s.apply(0, s.decode(0, b"0000"))
    assert s.ended == rules.FIRST_FOLDED


@pytest.mark.parametrize("seat", [0, 1])
def test_always_fold_loses_its_blind_exactly(seat: int) -> None:
    """Always-fold loses exactly 1 per deal as first player, exactly 2 as second facing
    always-call (seed: the blinds are 1 and 2).  Every one of the 576 deals."""
    for b in BETS:
        for d0 in DICE:
            for d1 in DICE:
                s = DicePokerState(b, d0, d1)
                if seat == 0:
                    s.apply(0, wire.FOLD)
                else:
                    s.apply(0, wire.RAISE)  # always-call raises as the first player
                    s.apply(1, wire.FOLD)
                assert s.is_terminal()
                assert s.scores()[seat] == -1 - seat


@given(
    seed=st.integers(0, 2**64),
    moves=st.lists(st.sampled_from(["fold", "raise", *VERDICTS]), min_size=2, max_size=2),
)
def test_chips_sum_to_zero_in_every_deal(seed: int, moves: list) -> None:
    """Chips move between the two players only: every deal sums to zero, whatever is played."""
    s = DicePoker().new_state(2, random.Random(seed))
    for move in moves:
        if s.is_terminal():
            break
        (seat,) = s.to_act()
        assert s.illegal(seat, wire.RAISE) is None
        if isinstance(move, Verdict):
            s.penalize(seat, move)
        else:
            s.apply(seat, wire.RAISE if move == "raise" else wire.FOLD)
    assert s.is_terminal() and s.to_act() == ()
    scores = s.scores()
    assert scores[0] + scores[1] == 0
    assert scores[0] in {-1, 2, s.b, 0, -s.b}
    assert s.ranks() == ([1, 1] if scores[0] == 0 else [1, 2] if scores[0] > 0 else [2, 1])


# ----------------------------------------------------------------- who is told what


def test_requests_carry_own_die_with_seed_states() -> None:
    """Seed: state "even ... first player, odd ... second"; "0, 1 means you are to decide
    what to do"; d: "when state = 0, 1, it says what you have rolled"; op first."""
    s = DicePokerState(11, 2, 5)
    assert s.to_act() == (0,)
    assert s.request(0) == b"0 11 0 2\n"
    assert s.drain_events() == []
    s.apply(0, wire.RAISE)
    assert s.to_act() == (1,)
    assert s.request(1) == b"0 11 1 5\n"
    assert s.drain_events() == []  # nothing is announced before the deal ends


def test_first_player_fold_is_told_to_the_second_only() -> None:
    """Seed: "2, 3 means your opponent has folded": the second player (odd) gets 3."""
    s = DicePokerState(7, 4, 1)
    s.apply(0, wire.FOLD)
    assert s.drain_events() == [Event(1, b"0 7 3 0\n", expects_reply=True)]
    assert s.drain_events() == []


def test_second_player_fold_is_told_to_the_first_only() -> None:
    """Seed: "2, 3 means your opponent has folded": the first player (even) gets 2."""
    s = DicePokerState(18, 4, 1)
    s.apply(0, wire.RAISE)
    s.apply(1, wire.FOLD)
    assert s.drain_events() == [Event(0, b"0 18 2 0\n", expects_reply=True)]


def test_showdown_tells_both_the_opponents_die() -> None:
    """Seed: "4, 5 means the game has come to a showdown"; d: "when state = 4, 5, it says
    what your opponent has rolled"; AI is "also [called] after the showdown"."""
    s = DicePokerState(3, 6, 2)
    s.apply(0, wire.RAISE)
    s.apply(1, wire.RAISE)
    assert s.drain_events() == [
        Event(0, b"0 3 4 2\n", expects_reply=True),
        Event(1, b"0 3 5 6\n", expects_reply=True),
    ]
    assert s.summary() == {"b": 3, "dice": [6, 2], "ended": "showdown"}


@pytest.mark.parametrize("verdict", VERDICTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_a_bad_reply_folds_with_its_verdict(seat: int, verdict: Verdict) -> None:
    """Penalty (brief): any faulty reply, or a dead bot's turn, counts as a fold by that seat."""
    s = DicePokerState(10, 6, 6)
    if seat == 1:
        s.apply(0, wire.RAISE)
    s.penalize(1 - seat, verdict)  # not that seat's turn: nothing happens
    assert not s.is_terminal()
    s.penalize(seat, verdict)
    assert s.is_terminal()
    assert s.scores()[seat] == -1 - seat
    assert s.drain_events() == [Event(1 - seat, b"0 10 %d 0\n" % (3 - seat), expects_reply=True)]
    assert s.summary()["penalty"] == [seat, verdict.value]


def test_out_of_turn_is_illegal_and_every_integer_is_legal() -> None:
    s = DicePokerState(5, 1, 2)
    assert s.illegal(1, wire.RAISE) == rules.NOT_YOUR_TURN
    assert s.illegal(0, s.decode(0, b"-99")) is None
    s.apply(0, wire.RAISE)
    assert s.illegal(0, wire.FOLD) == rules.NOT_YOUR_TURN
    assert s.illegal(1, wire.FOLD) is None
    s.apply(1, wire.FOLD)
    assert s.illegal(0, wire.FOLD) == s.illegal(1, wire.FOLD) == rules.NOT_YOUR_TURN


@pytest.mark.parametrize("first", [b"1", b"0", b"01", b" 1", b"x", b"1\r"])
@pytest.mark.parametrize("second", [b"1", b"0", b"7", b"1 ", b""])
@pytest.mark.parametrize("wrong_seat_first", [False, True])
def test_the_fused_take_is_the_base_take(first: bytes, second: bytes, wrong_seat_first: bool) -> None:
    """DicePokerState.take applies the usual "1" itself (the hot path): every reply, from
    the seat to act or the other, must give what GameState.take gives — the same verdict
    and reason, the same state after (chips, events, phase)."""
    from referee.games.base import GameState

    def play(take) -> list:  # type: ignore[no-untyped-def]
        s = DicePokerState(9, 5, 2)
        seen = []
        if wrong_seat_first:
            seen.append(take(s, 1, b"1"))  # out of turn: illegal, nothing changes
        seen.append(take(s, 0, first))
        if not s.is_terminal():
            seen.append(take(s, 0, b"1"))  # the first player again: out of turn
            seen.append(take(s, 1, second))
        return [*seen, s.to_act(), s.is_terminal(), s.drain_events(), s.scores(), s.summary()]

    assert play(DicePokerState.take) == play(GameState.take)


# ----------------------------------------------------------------- who plays whom


def test_bots_are_told_whom_they_play() -> None:
    """Seed: AI's "op: the id of the current opponent"; the match introduces the bots."""
    assert DicePoker.tells_ids


def introduced(b: int, d0: int, d1: int, ids: list[int]) -> DicePokerState:
    state = DicePokerState(b, d0, d1)
    state.introduce(ids)
    return state


@pytest.mark.parametrize("ids", [[7, 3], [3, 7], [0, 1], [5, 5], [123456789, 0]])
def test_every_line_carries_the_opponents_id(ids: list[int]) -> None:
    """Seed: "op: the id of the current opponent" in every AI call — each request, "your
    opponent has folded" and the showdown: seat 0 reads the id of the bot in seat 1 and
    seat 1 the id of the bot in seat 0."""
    first_op, second_op = ids[1], ids[0]
    s = introduced(11, 2, 5, ids)
    assert s.request(0) == b"%d 11 0 2\n" % first_op
    s.apply(0, wire.RAISE)
    assert s.request(1) == b"%d 11 1 5\n" % second_op
    s.apply(1, wire.RAISE)
    assert s.drain_events() == [
        Event(0, b"%d 11 4 5\n" % first_op, expects_reply=True),
        Event(1, b"%d 11 5 2\n" % second_op, expects_reply=True),
    ]
    s = introduced(7, 4, 1, ids)
    s.apply(0, wire.FOLD)
    assert s.drain_events() == [Event(1, b"%d 7 3 0\n" % second_op, expects_reply=True)]
    s = introduced(18, 4, 1, ids)
    s.apply(0, wire.RAISE)
    s.apply(1, wire.FOLD)
    assert s.drain_events() == [Event(0, b"%d 18 2 0\n" % first_op, expects_reply=True)]
    for seat in (0, 1):  # a penalty is a fold: its line names the opponent too
        s = introduced(10, 6, 6, ids)
        if seat == 1:
            s.apply(0, wire.RAISE)
        s.penalize(seat, Verdict.TIMEOUT)
        assert s.drain_events() == [Event(1 - seat, b"%d 10 %d 0\n" % (ids[seat], 3 - seat), True)]


def test_every_line_of_every_deal_names_the_opponent() -> None:
    """All 576 deals and all three endings, read back with the bots' parser: each seat's
    every line has op = the other seat's id (seed: "op: the id of the current opponent")."""
    ids = [41, 9]
    for b in BETS:
        for d0 in DICE:
            for d1 in DICE:
                for moves in ([wire.FOLD], [wire.RAISE, wire.FOLD], [wire.RAISE, wire.RAISE]):
                    s = introduced(b, d0, d1, ids)
                    lines = []
                    for seat, move in enumerate(moves):
                        lines.append((seat, s.request(seat)))
                        s.apply(seat, move)
                    lines += [(e.seat, e.line) for e in s.drain_events()]
                    for seat, line in lines:
                        message = wire.parse_message(line)
                        assert (message.op, message.b, message.is_first) == (ids[1 - seat], b, seat == 0)


def test_introductions_do_not_leak_between_deals() -> None:
    """Lines are cached per op: a deal introduced with other ids, or not at all (op 0,
    ``wire.OPPONENT_ID``), is not affected by earlier ones."""
    a = introduced(9, 3, 4, [7, 3])
    b = introduced(9, 3, 4, [3, 7])
    plain = DicePokerState(9, 3, 4)
    assert (a.request(0), b.request(0), plain.request(0)) == (b"3 9 0 3\n", b"7 9 0 3\n", b"0 9 0 3\n")
    for s in (a, b, plain):
        s.apply(0, wire.RAISE)
    assert (a.request(1), b.request(1), plain.request(1)) == (b"7 9 1 4\n", b"3 9 1 4\n", b"0 9 1 4\n")


@pytest.mark.parametrize("ids", [[1], [1, 2, 3], [-1, 0], [0, -5]])
def test_introduce_refuses_what_is_not_two_ids(ids: list[int]) -> None:
    """Two seats, two ids; an id is a position (>= 0), and a negative ``op`` would break
    the bots' parser (``parse_message`` refuses it)."""
    with pytest.raises(ValueError):
        DicePokerState(5, 1, 2).introduce(ids)


# ----------------------------------------------------------------- the wire format


@pytest.mark.parametrize(
    ("reply", "decision"),
    [
        (b"0", 0), (b"1", 1), (b"-1", 1), (b"-0", 0), (b"000", 0), (b"007", 1), (b"18", 1),
        (b" 1", 1), (b"1 ", 1), (b"\t0\t", 0), (b"1\r", 1), (b" -2 \r", 1), (b"0" * 5000, 0),
        (b"9" * 100_000, 1), (b"-" + b"0" * 9000 + b"1", 1),
    ],
)  # fmt: skip
def test_decode_accepts_any_integer(reply: bytes, decision: int) -> None:
    state = DicePokerState(3, 1, 1)
    assert state.decode(0, reply) == decision
    assert wire.decode_reply(reply) == decision


@pytest.mark.parametrize(
    "reply",
    [b"", b" ", b"\r", b"+5", b"1_0", b"5 6", b"0x1", b"1.0", b"- 1", b"--1", b"-", b"\xd9\xa3",
     b"\xff", b"5\n", b"\x005", b"\r5", b"raise", b"fold", "\uff15".encode(), b"1e3", b"true"],
)  # fmt: skip
def test_decode_rejects_non_integers(reply: bytes) -> None:
    state = DicePokerState(3, 1, 1)
    with pytest.raises(ProtocolError) as info:
        state.decode(0, reply)
    assert str(info.value)
    with pytest.raises(ValueError):
        wire.decode_reply(reply)


@pytest.mark.slow
@given(st.binary(max_size=40))
def test_decode_arbitrary_bytes(reply: bytes) -> None:
    state = DicePokerState(3, 1, 1)
    try:
        action = state.decode(0, reply)
    except ProtocolError:
        return
    assert action in (wire.FOLD, wire.RAISE)
    assert state.illegal(0, action) is None


@given(st.text(max_size=40))
def test_decode_arbitrary_text(reply: str) -> None:
    state = DicePokerState(3, 1, 1)
    try:
        expected: int | None = wire.decode_reply(reply)
    except ValueError:
        expected = None
    try:
        decoded: int | None = state.decode(0, reply.encode("utf-8", "surrogatepass"))
    except ProtocolError:
        decoded = None
    assert decoded == expected


@given(st.integers(), st.sampled_from(["", " ", "\t", "  "]), st.sampled_from(["", " ", "\t"]),
       st.booleans())  # fmt: skip
def test_decode_integers(value: int, before: str, after: str, cr: bool) -> None:
    line = f"{before}{value}{after}{chr(13) if cr else ''}".encode()
    assert wire.decode_reply(line) == (wire.RAISE if value else wire.FOLD)
    assert DicePokerState(3, 1, 1).decode(0, line) == (1 if value else 0)


def test_messages_round_trip() -> None:
    for state, d in [(0, 1), (1, 6), (2, 0), (3, 0), (4, 3), (5, 6)]:
        line = wire.encode_message(0, 12, state, d)
        message = wire.parse_message(line)
        assert message == (0, 12, state, d)
        assert message.is_request == (state < 2)
        assert message.is_first == (state % 2 == 0)
    assert wire.parse_message(" 0 3  1 6 \r\n") == (0, 3, 1, 6)
    assert wire.encode_reply(0) == b"0\n" and wire.encode_reply(wire.RAISE) == b"1\n"


@pytest.mark.parametrize(
    "line",
    ["", "0 3 0", "0 3 0 1 1", "0 2 0 1", "0 19 0 1", "0 3 6 1", "0 3 -1 1", "0 3 0 0", "0 3 0 7",
     "0 3 2 1", "0 3 4 0", "-1 3 0 1", "0 3 0 x", b"0 3 0 \xff"],
)  # fmt: skip
def test_parse_message_rejects(line: str | bytes) -> None:
    with pytest.raises(ValueError):
        wire.parse_message(line)


# ----------------------------------------------------------------- the equilibrium


def test_computed_values_are_the_published_v() -> None:
    """Reference §4: V(B) for every B, and its mean −0.30652 over B uniform on 3..18."""
    assert {b: value for b, (value, _, _) in EQUILIBRIA.items()} == V
    assert abs(float(sum(V.values()) / 16) - MEAN_V) < 5e-6


@pytest.mark.parametrize("b", BETS)
def test_computed_strategies_are_an_equilibrium(b: int) -> None:
    """Each side's best response to the other's computed strategy earns exactly V(B)."""
    _, p, q = EQUILIBRIA[b]
    assert all(0 <= x <= 1 for x in (*p, *q))
    assert EQ.best_response_values(b, p, q) == (V[b], V[b])


def reference_family(b: int) -> tuple[list[Fraction], list[Fraction]]:
    """Reference §4's equilibrium (bluffing with a 3 for 7 <= B <= 15, as its example)."""
    f = Fraction
    if b == 3:  # "raise 3–6, raise a 1 with probability 1/5; call 4–6, call a 3 with probability 3/5"
        return [f(1, 5), f(0), f(1), f(1), f(1), f(1)], [f(0), f(0), f(3, 5), f(1), f(1), f(1)]
    if 7 <= b <= 16:  # "always raises a 5 or a 6 ... (B−4)/(B+2) ... calls a 6, ... a 5 with (16−B)/(B+2)"
        return [f(0), f(0), f(b - 4, b + 2), f(0), f(1), f(1)], [f(0)] * 4 + [f(16 - b, b + 2), f(1)]
    assert b >= 16
    return [f(0)] * 5 + [f(1)], [f(0)] * 5 + [f(1)]  # "raise and call only a 6"


@pytest.mark.parametrize("b", [3, *range(7, 19)])
def test_reference_family_is_an_equilibrium(b: int) -> None:
    """Reference §4: "each side's best response against the other earns exactly V(B)"."""
    p, q = reference_family(b)
    assert EQ.best_response_values(b, p, q) == (V[b], V[b])


def exact_value(b: int, p: list[Fraction], q: list[Fraction]) -> Fraction:
    """E[chips of the first player] under (p, q), by enumerating the dice through the rules."""
    total = Fraction(0)
    for d0 in DICE:
        for d1 in DICE:
            pr, pc = p[d0 - 1], q[d1 - 1]
            total += (1 - pr) * play(DicePokerState(b, d0, d1), False, False).chips
            total += pr * (1 - pc) * play(DicePokerState(b, d0, d1), True, False).chips
            total += pr * pc * play(DicePokerState(b, d0, d1), True, True).chips
    return total / 36


@pytest.mark.parametrize("b", BETS)
def test_exact_expectation_through_the_rules_is_v(b: int) -> None:
    """Equilibrium against equilibrium, every dice pair enumerated: exactly V(B) (reference §4)."""
    _, p, q = EQUILIBRIA[b]
    assert exact_value(b, p, q) == V[b]
    one = [Fraction(1)] * 6
    assert exact_value(b, one, one) == 0  # reference §4: always raise vs always call: 0
    assert exact_value(b, [Fraction(0)] * 6, one) == -1  # reference §4: always fold: −1


@pytest.mark.slow
def test_sampled_equilibrium_play_agrees_with_v() -> None:
    """Equilibrium vs equilibrium, 20,000 deals per B through the rules module: V(B) lies
    within the 99% confidence interval of the mean chips of the first player."""
    rng = random.Random(0)
    n = 20_000
    failures = []
    for b in BETS:
        _, p, q = EQUILIBRIA[b]
        raise_p = [0.0, *map(float, p)]
        call_q = [0.0, *map(float, q)]
        chips = []
        for _ in range(n):
            s = DicePokerState(b, rng.randrange(1, 7), rng.randrange(1, 7))
            d0, d1 = s.dice
            s.apply(0, int(rng.random() < raise_p[d0]))
            if not s.is_terminal():
                s.apply(1, int(rng.random() < call_q[d1]))
            chips.append(s.scores()[0])
        mean, half = ci99(chips)
        if abs(mean - float(V[b])) > half:
            failures.append(f"B={b}: {mean:.4f} ± {half:.4f}, V(B) = {float(V[b]):.4f}")
    assert not failures, failures


def test_sampled_mean_over_b_agrees_with_reference() -> None:
    """New deals (B drawn by the rules), equilibrium vs equilibrium: −0.30652 within the 99% CI."""
    rng = random.Random(5)
    game = DicePoker()
    raise_p = {b: [0.0, *map(float, p)] for b, (_, p, _) in EQUILIBRIA.items()}
    call_q = {b: [0.0, *map(float, q)] for b, (_, _, q) in EQUILIBRIA.items()}
    chips = []
    for _ in range(60_000):
        s = game.new_state(2, rng)
        s.apply(0, int(rng.random() < raise_p[s.b][s.dice[0]]))
        if not s.is_terminal():
            s.apply(1, int(rng.random() < call_q[s.b][s.dice[1]]))
        chips.append(s.scores()[0])
    mean, half = ci99(chips)
    assert abs(mean - MEAN_V) <= half, f"{mean:.4f} ± {half:.4f}"


# ----------------------------------------------------------------- end to end, real processes


@pytest.fixture(scope="module")
def built() -> Path:
    subprocess.run(["make", "-s", "-C", str(SAMPLES)], check=True)
    return PLAYERS / "bin"


def test_c_player_table_is_an_equilibrium(built: Path) -> None:
    """equilibrium.c's closed-form family: exact best responses earn V(B) for every B."""
    out = subprocess.run([str(built / "equilibrium"), "--table"], capture_output=True, text=True, check=True)
    rows = [line for line in out.stdout.splitlines() if not line.startswith("#")]
    assert len(rows) == 16
    for row in rows:
        b_text, raise_text, call_text = row.split("|")
        b = int(b_text)
        floats = [float(x) for x in (*raise_text.split(), *call_text.split())]
        exact = [Fraction(x).limit_denominator(100) for x in floats]
        assert all(abs(float(e) - x) < 1e-15 for e, x in zip(exact, floats, strict=True))
        assert EQ.best_response_values(b, exact[:6], exact[6:]) == (V[b], V[b]), f"B={b}"


def python_bot(name: str, script: Path, *args: str) -> BotSpec:
    return BotSpec(name=name, argv=[BOT_PYTHON, str(script), *args], home=str(script.parent))


async def run_match(specs: list[BotSpec], tmp_path: Path, games: int, **config):
    outcomes = []
    # Scripted bots here record what they receive in the test's directory, which every
    # layer but none (rightly) forbids; isolation itself is tested in test_hostile.py.
    config.setdefault("sandbox", "none")
    cfg = MatchConfig(
        game="dice-poker",
        games=games,
        pin=False,
        log_path=str(tmp_path / "games.jsonl"),
        stderr_dir=str(tmp_path / "stderr"),
        **config,
    )
    collector = Collector(transcripts=True, summaries=True)
    result = await Match(DicePoker(), specs, cfg, sinks=[collector]).run()
    outcomes += collector.games
    assert result.completed and result.games_played == games == len(outcomes)
    players = {p.name: msgspec.to_builtins(p) for p in result.players}
    for outcome in outcomes:
        assert sum(outcome.scores) == 0
    assert sum(p["mean_score"] * p["games"] for p in players.values()) == 0  # the whole match
    return players, outcomes


def expected_chips(b: int, d0: int, d1: int, ended: str) -> int:
    """The seed's payoff to the first player, written independently of the rules module."""
    if ended == rules.FIRST_FOLDED:
        return -1
    if ended == rules.SECOND_FOLDED:
        return 2
    return b * ((d0 > d1) - (d0 < d1))


def expected_lines(
    b: int, d0: int, d1: int, ended: str, ops: tuple[int, int] = (0, 0)
) -> tuple[list[str], list[str]]:
    """What the first and the second player must receive in one deal (seed wording);
    ``ops[s]`` is the ``op`` seat s reads ("the id of the current opponent")."""
    op0, op1 = ops
    first, second = [f"{op0} {b} 0 {d0}"], []
    if ended == rules.FIRST_FOLDED:
        second.append(f"{op1} {b} 3 0")  # "your opponent has folded"; the folder is told nothing
    else:
        second.append(f"{op1} {b} 1 {d1}")
        if ended == rules.SECOND_FOLDED:
            first.append(f"{op0} {b} 2 0")
        else:  # showdown: each learns "what your opponent has rolled"
            first.append(f"{op0} {b} 4 {d1}")
            second.append(f"{op1} {b} 5 {d0}")
    return first, second


def opponents_ids(seats: list[str], ids: dict[str, int]) -> tuple[int, int]:
    """The ``op`` each seat reads: the id of the bot in the other seat."""
    return ids[seats[1]], ids[seats[0]]


async def test_c_equilibrium_against_python_equilibrium(built: Path, tmp_path: Path) -> None:
    specs = [
        BotSpec(name="eq-c", argv=[str(built / "equilibrium"), "7"], home=str(built)),
        python_bot("eq-py", PLAYERS / "equilibrium.py", "3"),
    ]
    players, outcomes = await run_match(specs, tmp_path, games=300, seed=11)
    assert players["eq-c"]["forfeits"] == {} and players["eq-py"]["forfeits"] == {}
    assert [o.seats[0] for o in outcomes[:4]] == ["eq-c", "eq-py"] * 2  # first player alternates
    ids = {"eq-c": 0, "eq-py": 1}  # positions on the command line
    for o in outcomes:
        b, (d0, d1), ended = o.summary["b"], o.summary["dice"], o.summary["ended"]
        assert o.scores[0] == expected_chips(b, d0, d1, ended)
        first, second = expected_lines(b, d0, d1, ended, opponents_ids(o.seats, ids))
        sent = {
            0: [s.line for s in o.transcript if s.seat == 0],
            1: [s.line for s in o.transcript if s.seat == 1],
        }
        assert sent == {0: first, 1: second}


async def test_always_fold_loses_exactly_its_blinds(built: Path, tmp_path: Path) -> None:
    """Always-fold: −1 as first player, −2 as second facing always-call; −1.5 per deal over pairs."""
    specs = [python_bot("fold", PLAYERS / "always_fold.py"), python_bot("call", PLAYERS / "always_call.py")]
    players, outcomes = await run_match(specs, tmp_path, games=20, seed=1)
    assert players["fold"]["mean_score"] == -1.5 and players["call"]["mean_score"] == 1.5
    for o in outcomes:
        seat = o.seats.index("fold")
        assert o.scores[seat] == -1 - seat
    assert players["fold"]["forfeits"] == {} == players["call"]["forfeits"]


SCRIPTED = """
import sys, time
mode, record = sys.argv[1], (open(sys.argv[2], "a") if len(sys.argv) > 2 else None)
requests = 0
for line in sys.stdin:
    if record:
        record.write(line)
        record.flush()
    op, b, state, d = map(int, line.split())
    if state >= 2:  # information: answered with anything
        answer = "never checked" if mode == "garbage" else "0"
    else:
        requests += 1
        if mode == "garbage":
            answer = "raise"
        elif mode == "odd":  # raise/call with an odd die, written loosely but validly
            answer = " -12 \\r" if d % 2 else "000"
        elif mode == "slow":
            if requests == 2:
                time.sleep(0.6)
            answer = "1"
        elif mode == "crash":
            if requests == 3:
                sys.exit(3)
            answer = "1"
    sys.stdout.write(answer + "\\n")
    sys.stdout.flush()
"""


@pytest.fixture
def scripted(tmp_path: Path):
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    return lambda name, *args: python_bot(name, script, *args)


@pytest.mark.parametrize("hold", [True, False], ids=["held", "told-at-once"])
@pytest.mark.parametrize("given_ids", [None, [7, 3]])
async def test_each_seat_receives_exactly_its_lines(
    built: Path, tmp_path: Path, scripted, given_ids: list[int] | None, hold: bool, monkeypatch
) -> None:
    """What the bots themselves read, and the transcript: requests, "opponent has folded"
    to the non-folder only, the opponent's die at showdown to both (seed 000's AI calls),
    and in every line ``op``, "the id of the current opponent": the other bot's position
    on the command line, or its id in the tournament (``MatchConfig.ids``), whichever
    seat either bot has in the deal.  The same whether the fold and showdown lines wait
    for the bot's next request (DicePoker.hold_tells: the last deal's at the close) or
    are told at once."""
    monkeypatch.setattr(DicePoker, "hold_tells", hold)
    records = {name: tmp_path / f"{name}.lines" for name in ("A", "B")}
    specs = [scripted(name, "odd", str(path)) for name, path in records.items()]
    _, outcomes = await run_match(specs, tmp_path, games=80, seed=5, ids=given_ids)
    ids = dict(zip("AB", given_ids or [0, 1], strict=True))
    expected: dict[str, list[str]] = {"A": [], "B": []}
    endings = set()
    for o in outcomes:
        b, (d0, d1), ended = o.summary["b"], o.summary["dice"], o.summary["ended"]
        # the bots' policy decides the ending: raise/call with odd dice
        assert ended == (
            rules.FIRST_FOLDED if d0 % 2 == 0 else rules.SECOND_FOLDED if d1 % 2 == 0 else rules.SHOWDOWN
        )
        endings.add(ended)
        assert o.scores[0] == expected_chips(b, d0, d1, ended)
        first, second = expected_lines(b, d0, d1, ended, opponents_ids(o.seats, ids))
        assert [s.line for s in o.transcript if s.seat == 0] == first
        assert [s.line for s in o.transcript if s.seat == 1] == second
        expected[o.seats[0]] += first
        expected[o.seats[1]] += second
    assert endings == {rules.FIRST_FOLDED, rules.SECOND_FOLDED, rules.SHOWDOWN}
    assert {o.seats[0] for o in outcomes} == {"A", "B"}  # each bot was first and second
    for name, path in records.items():
        assert path.read_text().splitlines() == expected[name]
    # Read without the helper: every line A read names B, and every line B read names A.
    for name, other in (("A", "B"), ("B", "A")):
        assert {line.split()[0] for line in records[name].read_text().splitlines()} == {str(ids[other])}


@pytest.mark.slow
async def test_garbage_replies_fold_with_a_protocol_verdict(built: Path, tmp_path: Path, scripted) -> None:
    """Not an integer: a protocol fault and a fold; answers to information lines are not checked."""
    specs = [scripted("garbage", "garbage"), python_bot("call", PLAYERS / "always_call.py")]
    players, outcomes = await run_match(specs, tmp_path, games=10, seed=2)
    assert players["garbage"]["forfeits"] == {"protocol": 10}  # one decision per deal
    assert players["garbage"]["mean_score"] == -1.5
    detail = players["garbage"]["forfeit_details"][0]
    assert detail["verdict"] == "protocol" and detail["reply"] == "raise"
    for o in outcomes:
        seat = o.seats.index("garbage")
        assert o.summary["penalty"] == [seat, "protocol"]


@pytest.mark.slow
async def test_a_timeout_folds_and_the_match_goes_on(built: Path, tmp_path: Path, scripted) -> None:
    specs = [scripted("slow", "slow"), python_bot("call", PLAYERS / "always_call.py")]
    limits = LimitsOverride(decision_s=0.4)
    players, outcomes = await run_match(specs, tmp_path, games=12, seed=4, limits=limits)
    assert players["slow"]["forfeits"] == {"timeout": 1}
    penalized = [o for o in outcomes if "penalty" in o.summary]
    assert len(penalized) == 1
    o = penalized[0]
    seat = o.seats.index("slow")
    assert o.summary["penalty"] == [seat, "timeout"]
    assert o.scores[seat] == -1 - seat
    # every other deal: both raise/call, so a showdown (the late answer was not misread)
    assert all(x.summary["ended"] == rules.SHOWDOWN for x in outcomes if x is not o)


async def test_a_crashed_bot_folds_every_remaining_deal(built: Path, tmp_path: Path, scripted) -> None:
    """DeadBot.FORFEIT_MATCH: after the crash, every decision of that seat is a fold."""
    specs = [scripted("crash", "crash"), python_bot("call", PLAYERS / "always_call.py")]
    players, outcomes = await run_match(specs, tmp_path, games=10, seed=3)
    crashed_at = next(i for i, o in enumerate(outcomes) if "penalty" in o.summary)
    assert players["crash"]["forfeits"] == {"crash": 10 - crashed_at}
    assert players["crash"]["restarts"] == 0
    for o in outcomes[crashed_at:]:
        seat = o.seats.index("crash")
        assert o.summary["penalty"] == [seat, "crash"]
        assert o.scores[seat] == -1 - seat
