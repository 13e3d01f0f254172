"""Yahtzee rules (referee.games.yahtzee) and wire format (protocol.yahtzee), seed 004."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import yahtzee as wire
from referee.core.verdict import ProtocolError, Verdict
from referee.games import yahtzee as rules
from referee.games.base import SeatCount
from referee.games.yahtzee import Yahtzee, YahtzeeState

# Seed 004, "APPENDIX - EXAMPLES OF LEGAL AND ILLEGAL PLAYS", in order: (position, action, verdict).
_P1 = "-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 20 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 1 3 4 5 6"
_P2 = "-1 0 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 -1 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 1 3 4 5 6 1"
_Y0 = "-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 0 -1 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 3 3 3 3 3 1"
_T0 = "-1 -1 6 -1 -1 -1 -1 -1 -1 -1 -1 0 -1 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 3 3 3 3 3 1"
_L0 = "-1 -1 6 -1 -1 -1 0 0 0 0 0 0 0 0 -1 2 3 -1 0 -1 0 -1 0 -1 0 0 0 0 3 3 3 3 3 1"
_Y50 = "-1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 50 -1 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 3 3 3 3 3 1"
_T50 = "-1 -1 6 -1 -1 -1 -1 -1 -1 -1 -1 50 -1 0 -1 -1 3 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 0 3 3 3 3 3 1"
_L50 = "-1 -1 6 -1 -1 -1 0 0 0 0 0 50 0 0 -1 2 3 -1 0 -1 0 -1 0 -1 0 0 0 0 3 3 3 3 3 1"
_EMPTY_UP = "Under the joker rules, if the appropriate upper section row is empty, it must be used"
_FULL_UP = (
    "Under the joker rules, if the appropriate upper section row is full, "
    "the lower section must be used unless the whole lower section is filled"
)
APPENDIX = [
    (_P1 + " 2", 1, "legal"),
    (_P1 + " 3", 1, "There are no rolls left"),
    (_P1 + " 1", 1, "legal"),
    (_P1 + " 1", -1, "Only the first five dice are available for holding"),
    (_P1 + " 1", 63, "legal"),
    (_P1 + " 1", 65, "Only the first five dice are available for holding"),
    (_P1 + " 1", 0, "legal"),
    (_P1 + " 1", -2, "Invalid row for placement"),
    (_P2, 24, "legal"),
    (_P2, 26, "Invalid row for placement"),
    (_P2, 22, "legal"),
    (_Y0, 22, "This row is already full"),
    (_Y0, 4, "legal"),
    (_Y0, 0, _EMPTY_UP),
    (_T0, 12, "legal"),
    (_T0, 2, _FULL_UP),
    (_L0, 2, "legal"),
    (_Y50, 22, "This row is already full"),
    (_Y50, 4, "legal"),
    (_Y50, 0, _EMPTY_UP),
    (_T50, 12, "legal"),
    (_T50, 2, _FULL_UP),
    (_L50, 2, "legal"),
]


def test_appendix_has_23_examples() -> None:
    assert len(APPENDIX) == 23


@pytest.mark.parametrize(
    ("position", "action", "expected"),
    APPENDIX,
    ids=[f"seed 004 appendix, example {n}" for n in range(1, len(APPENDIX) + 1)],
)
def test_seed_appendix(position: str, action: int, expected: str) -> None:
    """Seed 004 appendix, example N: legal, or illegal with the appendix's exact reason."""
    state = YahtzeeState.from_position(position)
    decoded = state.decode(0, str(action).encode())
    assert decoded == action
    reason = state.illegal(0, decoded)
    assert (reason or "legal") == expected
    pos = wire.parse_position(position)
    assert (wire.illegal_reason(pos.own, pos.dice, pos.roll, action) or "legal") == expected
    assert (action in wire.legal_actions(pos.own, pos.dice, pos.roll)) == (expected == "legal")
    if reason is None:
        state.apply(0, action)  # a legal action applies cleanly


# ----------------------------------------------------------------- the seed's worked example

SEED_EXAMPLE = _P1 + " 1"


def test_seed_example_place_small_straight() -> None:
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    assert state.request(0) == (SEED_EXAMPLE + "\n").encode()
    assert state.illegal(0, 18) is None
    state.apply(0, 18)
    assert wire.ROW_NAMES[9] == "small straight"
    assert state.card(0)[9] == 30
    assert state.seat == 1 and state.roll == 1
    # Seat 1 now sees its own card first.
    pos = wire.parse_position(state.request(1))
    assert pos.own[2] == 3 and pos.own[4] == 0 and pos.opp[3] == 8 and pos.opp[9] == 30


def test_seed_example_hold_the_three() -> None:
    assert wire.hold(0b00010) == 5
    for seed in range(50):
        state = YahtzeeState.from_position(SEED_EXAMPLE, random.Random(seed))
        state.apply(0, 5)
        assert state.roll == 2 and state.seat == 0
        assert state.dice[1] == 3


@pytest.mark.parametrize("mask", range(32))
def test_hold_keeps_exactly_the_held_dice(mask: int) -> None:
    changed = [False] * 5
    for seed in range(60):
        state = YahtzeeState.from_position(SEED_EXAMPLE, random.Random(seed))
        state.apply(0, wire.hold(mask))
        after = state.dice
        for k in range(5):
            if mask >> k & 1:
                assert after[k] == (1, 3, 4, 5, 6)[k]
            elif after[k] != (1, 3, 4, 5, 6)[k]:
                changed[k] = True
    assert changed == [not mask >> k & 1 for k in range(5)]


def test_hold_everything_uses_a_roll() -> None:
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    state.apply(0, 63)
    assert state.dice == (1, 3, 4, 5, 6) and state.roll == 2
    state.apply(0, 63)
    assert state.roll == 3
    assert state.illegal(0, 63) == "There are no rolls left"


def test_reroll_tables_are_uniform() -> None:
    """Every hold mask's table lists each outcome of the rerolled dice exactly once, and
    puts the stream's next values in the rerolled dice's places, in die order."""
    for mask in range(32):
        keep, take, scatter, shift = rules._REROLL[mask]
        free = [k for k in range(5) if not mask >> k & 1]
        assert len(scatter) == len(set(scatter.values())) == 6 ** len(free)
        assert shift == 4 * len(free) and take == (1 << shift) - 1
        assert keep == sum(7 << (3 * k) for k in range(5) if mask >> k & 1)
        for key, bits in scatter.items():
            values = [key >> (4 * i) & 15 for i in range(len(free))]
            assert all(1 <= v <= 6 for v in values)
            assert bits == sum(v << (3 * k) for k, v in zip(free, values, strict=True))
    assert sorted(rules._FIRST.values()) == sorted(c for c, d in enumerate(rules._DICE) if d is not None)


def test_random_bytes_make_uniform_independent_pairs_of_dice() -> None:
    """Each accepted byte (0..251) is two dice; every pair of faces comes from exactly 7
    bytes, so both dice are uniform and independent.  252..255 are rejected (0)."""
    pairs = Counter(rules._BYTE_TO_DICE[:252])
    assert len(pairs) == 36 and set(pairs.values()) == {7}
    assert all(1 <= b & 15 <= 6 and 1 <= b >> 4 <= 6 for b in pairs)
    assert rules._BYTE_TO_DICE[252:] == bytes(4)


def test_fresh_rolls_look_uniform() -> None:
    """Each die of a turn's first roll, and each later value of its stream, is uniform."""
    counts: Counter[tuple[int, int]] = Counter()
    n = 0
    for seed in range(500):
        for stream in rules._draw_dice(random.Random(seed)):
            n += 1
            for k in range(15):
                counts[k, stream >> (4 * k) & 15] += 1
    expected = n / 6
    sigma = (n * (1 / 6) * (5 / 6)) ** 0.5
    assert len(counts) == 15 * 6
    assert all(abs(c - expected) < 5 * sigma for c in counts.values())
    state = Yahtzee().new_state(2, random.Random(3))
    assert state.dice == rules._DICE[rules._FIRST[rules._draw_dice(random.Random(3))[0] & 0xFFFFF]]


# ----------------------------------------------------------------- scoring


def _card(**boxes: int) -> list[int]:
    card = [-1] * 13 + [0]
    for name, value in boxes.items():
        index = wire.BONUS if name == "bonus" else wire.ROW_NAMES.index(name.replace("_", " "))
        card[index] = value
    return card


def _place(card: list[int], dice: tuple[int, ...], row: int, opp: list[int] | None = None) -> YahtzeeState:
    line = wire.encode_position(card, opp or _card(), dice, 3)
    state = YahtzeeState.from_position(line)
    assert state.illegal(0, wire.place(row)) is None
    state.apply(0, wire.place(row))
    return state


def test_joker_full_house_with_yahtzee_50_scores_25_and_bonus() -> None:
    card = _card(yahtzee=50, threes=9)
    state = _place(card, (3, 3, 3, 3, 3), wire.FULL_HOUSE)
    assert state.card(0)[wire.FULL_HOUSE] == 25
    assert state.card(0)[wire.BONUS] == 100
    assert state.scores()[0] == 50 + 9 + 25 + 100
    assert wire.score_box((3,) * 5, wire.FULL_HOUSE, card) == 25
    assert wire.yahtzee_bonus(card, (3,) * 5) == 100


@pytest.mark.parametrize(("row", "points"), [(6, 20), (7, 20), (8, 25), (9, 30), (10, 40), (12, 20)])
def test_joker_lower_boxes_score_full_value(row: int, points: int) -> None:
    state = _place(_card(yahtzee=50, fours=12), (4,) * 5, row)
    assert state.card(0)[row] == points
    assert state.card(0)[wire.BONUS] == 100


def test_joker_upper_box_gets_bonus_too() -> None:
    state = _place(_card(yahtzee=50, bonus=100), (6,) * 5, 5)
    assert state.card(0)[5] == 30 and state.card(0)[wire.BONUS] == 200


def test_joker_zero_in_other_upper_box_when_lower_full() -> None:
    state = YahtzeeState.from_position(_L50)
    state.apply(0, wire.place(1))
    assert state.card(0)[1] == 0 and state.card(0)[wire.BONUS] == 100


def test_joker_with_yahtzee_zero_gives_no_bonus() -> None:
    state = _place(_card(yahtzee=0, threes=9), (3,) * 5, wire.FULL_HOUSE)
    assert state.card(0)[wire.FULL_HOUSE] == 25
    assert state.card(0)[wire.BONUS] == 0


def test_five_of_a_kind_is_not_a_full_house_without_joker() -> None:
    """Seed FAQ: "Is 5-of-a-kind a legal full house? Not unless the joker rule is active." """
    state = _place(_card(), (3,) * 5, wire.FULL_HOUSE)
    assert state.card(0)[wire.FULL_HOUSE] == 0
    assert wire.combo_score((3,) * 5, wire.FULL_HOUSE) == 0
    for row in (wire.SMALL_STRAIGHT, wire.LARGE_STRAIGHT):
        assert _place(_card(), (3,) * 5, row).card(0)[row] == 0


def test_first_yahtzee_scores_50_without_bonus() -> None:
    state = _place(_card(), (2,) * 5, wire.YAHTZEE)
    assert state.card(0)[wire.YAHTZEE] == 50 and state.card(0)[wire.BONUS] == 0


def test_four_of_a_kind_is_a_three_of_a_kind() -> None:
    """Seed FAQ: "Is 4-of-a-kind a legal 3-of-a-kind? Yes." """
    assert _place(_card(), (5, 5, 2, 5, 5), wire.THREE_KIND).card(0)[wire.THREE_KIND] == 22
    assert _place(_card(), (5, 5, 2, 5, 5), wire.FOUR_KIND).card(0)[wire.FOUR_KIND] == 22
    assert _place(_card(), (5, 5, 2, 2, 5), wire.FOUR_KIND).card(0)[wire.FOUR_KIND] == 0


@pytest.mark.parametrize(
    ("dice", "row", "points"),
    [
        ((1, 1, 1, 2, 2), wire.FULL_HOUSE, 25),
        ((2, 2, 1, 1, 1), wire.FULL_HOUSE, 25),
        ((1, 1, 2, 2, 3), wire.FULL_HOUSE, 0),
        ((1, 1, 1, 1, 2), wire.FULL_HOUSE, 0),
        ((1, 2, 3, 4, 6), wire.SMALL_STRAIGHT, 30),
        ((3, 4, 5, 6, 3), wire.SMALL_STRAIGHT, 30),
        ((2, 3, 4, 5, 2), wire.SMALL_STRAIGHT, 30),
        ((1, 2, 3, 5, 6), wire.SMALL_STRAIGHT, 0),
        ((5, 4, 3, 2, 1), wire.LARGE_STRAIGHT, 40),
        ((2, 3, 4, 5, 6), wire.LARGE_STRAIGHT, 40),
        ((2, 3, 4, 5, 6), wire.SMALL_STRAIGHT, 30),
        ((1, 2, 3, 4, 6), wire.LARGE_STRAIGHT, 0),
        ((6, 6, 6, 1, 2), wire.THREE_KIND, 21),
        ((6, 6, 5, 1, 2), wire.THREE_KIND, 0),
        ((6, 6, 5, 1, 2), wire.CHANCE, 20),
        ((6, 6, 5, 1, 6), 5, 18),
        ((6, 6, 5, 1, 6), 0, 1),
        ((6, 6, 5, 1, 6), 1, 0),
    ],
)
def test_box_scores(dice: tuple[int, ...], row: int, points: int) -> None:
    assert wire.combo_score(dice, row) == points
    assert _place(_card(), dice, row).card(0)[row] == points


def test_scratching_is_legal_and_scores_zero() -> None:
    state = _place(_card(), (1, 2, 3, 5, 6), wire.LARGE_STRAIGHT)
    assert state.card(0)[wire.LARGE_STRAIGHT] == 0


def test_upper_bonus_at_63_not_62() -> None:
    at_63 = _card(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert wire.upper_bonus(at_63) == 35 and wire.card_total(at_63) == 63 + 35
    at_62 = _card(ones=2, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert wire.upper_bonus(at_62) == 0 and wire.card_total(at_62) == 62
    # Reaching 63 by the last upper placement, through the rules.
    state = _place(_card(ones=3, twos=6, threes=9, fours=12, fives=15), (6, 6, 6, 1, 2), 5)
    assert state.scores()[0] == 63 + 35
    state = _place(_card(ones=2, twos=6, threes=9, fours=12, fives=15), (6, 6, 6, 1, 2), 5)
    assert state.scores()[0] == 62


# ----------------------------------------------------------------- game flow, penalties


def test_game_definition() -> None:
    from referee.games import get

    assert get("yahtzee") is Yahtzee
    assert Yahtzee.seats == SeatCount(2, 2, default=2) and 3 not in Yahtzee.seats
    assert Yahtzee.limits.cpu_s == 600.0 and Yahtzee.limits.memory_bytes == 2 << 30
    assert Yahtzee.limits.startup_s == 60.0 and Yahtzee.limits.decision_s == 10.0
    assert Yahtzee.dead_bot.value == "forfeit-match"
    with pytest.raises(ValueError):
        Yahtzee().new_state(3, random.Random(0))


def test_turn_order_and_rolls() -> None:
    state = Yahtzee().new_state(2, random.Random(3))
    assert list(state.to_act()) == [0] and state.roll == 1
    state.apply(0, wire.hold(0))
    state.apply(0, wire.hold(0))
    assert state.roll == 3 and state.illegal(0, wire.hold(0)) == "There are no rolls left"
    assert state.illegal(1, wire.place(0)) is not None  # not seat 1's turn
    state.apply(0, wire.place(12))
    assert list(state.to_act()) == [1] and state.roll == 1
    state.apply(1, wire.place(12))
    assert list(state.to_act()) == [0]
    assert state.illegal(0, wire.place(12)) == "This row is already full"


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("seat", [0, 1])
def test_penalty_forfeits_the_game(seat: int, verdict: Verdict) -> None:
    state = Yahtzee().new_state(2, random.Random(5))
    state.apply(0, wire.place(wire.CHANCE))  # seat 0 leads on points
    if seat == 0:
        state.apply(1, wire.place(0))
    state.penalize(seat, verdict)
    assert state.is_terminal() and list(state.to_act()) == []
    ranks = state.ranks()
    assert ranks[seat] == 2 and ranks[1 - seat] == 1
    summary = state.summary()
    assert summary["forfeited_by"] == seat
    assert summary["totals"] == [int(s) for s in state.scores()]


def test_draw_when_totals_are_equal() -> None:
    line = wire.encode_position(_card(), _card(), (1, 1, 1, 1, 1), 3)
    state = YahtzeeState.from_position(line)
    state._placed = 25  # the final placement of the game
    state.apply(0, wire.place(0))  # 5 points for seat 0, seat 1 has none
    assert state.is_terminal() and state.ranks() == [1, 2]
    card = _card(chance=5)
    state = YahtzeeState.from_position(wire.encode_position(_card(), card, (1, 1, 1, 1, 1), 3))
    state._placed = 25
    state.apply(0, wire.place(0))
    assert state.scores() == [5.0, 5.0] and state.ranks() == [1, 1]


def _play(seed: int, policy_seed: int) -> tuple[YahtzeeState, list[bytes]]:
    """A whole game of random legal actions, checking the rules against protocol.yahtzee."""
    policy = random.Random(policy_seed)
    state = Yahtzee().new_state(2, random.Random(seed))
    lines = []
    while not state.is_terminal():
        (seat,) = state.to_act()
        line = state.request(seat)
        lines.append(line)
        pos = wire.parse_position(line)
        legal = wire.legal_actions(pos.own, pos.dice, pos.roll)
        for action in (*range(-3, 70), 10**50, -(10**50) - 1):
            expected = wire.illegal_reason(pos.own, pos.dice, pos.roll, action)
            assert state.illegal(seat, action) == expected
        action = policy.choice(legal)
        state.apply(seat, state.decode(seat, b"%d" % action))
        if not action & 1:
            row = action >> 1
            card = state.card(seat)
            assert card[row] == wire.score_box(pos.dice, row, pos.own)
            assert card[wire.BONUS] == pos.own[wire.BONUS] + wire.yahtzee_bonus(pos.own, pos.dice)
    return state, lines


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64), st.integers(0, 2**32))
def test_random_legal_games(seed: int, policy_seed: int) -> None:
    state, lines = _play(seed, policy_seed)
    assert state.placements == 26
    for seat in (0, 1):
        card = state.card(seat)
        assert -1 not in card
        upper = sum(card[:6])
        expected = sum(card[:13]) + (35 if upper >= 63 else 0) + card[wire.BONUS]
        assert state.scores()[seat] == expected
        assert state.summary()["totals"][seat] == expected
        assert state.summary()["scorecards"][seat] == list(card)
    turns = 0
    for line in lines:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        fields = line.split(b" ")
        assert len(fields) == 34 and all(fields)
        pos = wire.parse_position(line)
        assert wire.encode_position(*pos) == line
        turns += pos.roll == 1
    assert turns == 26
    a, b = state.scores()
    assert state.ranks() == ([1, 1] if a == b else [1, 2] if a > b else [2, 1])


def test_same_seed_same_positions() -> None:
    _, first = _play(1234, 99)
    _, again = _play(1234, 99)
    _, other = _play(1235, 99)
    assert first == again
    assert first != other


# ----------------------------------------------------------------- decoding


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        (b"0", 0),
        (b"18", 18),
        (b"63", 63),
        (b"007", 7),
        (b"-1", -1),
        (b" 18", 18),
        (b"18 ", 18),
        (b"\t18\t", 18),
        (b"18\r", 18),
        (b" -2 \r", -2),
        (b"-0", 0),
        (b"1" + b"0" * 50, 10**50),
    ],
)
def test_decode_accepts(reply: bytes, value: int) -> None:
    state = Yahtzee().new_state(2, random.Random(0))
    assert state.decode(0, reply) == value
    assert wire.decode_action(reply) == value


def test_decode_beyond_the_int_conversion_limit() -> None:
    """5000 digits: over CPython's 4300-digit str->int limit, still decoded exactly."""
    value = wire.decode_action(b"9" * 5000)
    assert value == 10**5000 - 1
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    assert state.illegal(0, state.decode(0, b"-" + b"9" * 5000)) == wire.BAD_HOLD


@pytest.mark.parametrize(
    "reply",
    [b"", b" ", b"\r", b"+5", b"1_0", b"5 6", b"0x1", b"1.0", b"- 1", b"--1", b"-", b"\xd9\xa3", b"\xff",
     b"5\n", b"\x005", b"\r5", b"five", "\uff15".encode()],
)  # fmt: skip
def test_decode_rejects(reply: bytes) -> None:
    state = Yahtzee().new_state(2, random.Random(0))
    with pytest.raises(ProtocolError) as info:
        state.decode(0, reply)
    assert str(info.value)
    with pytest.raises(ValueError):
        wire.decode_action(reply)


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (10**50, "Invalid row for placement"),
        (10**50 + 1, "Only the first five dice are available for holding"),
        (-(10**50) - 1, "Only the first five dice are available for holding"),
        (64, "Invalid row for placement"),
    ],
)
def test_huge_numbers_parse_and_are_illegal(action: int, reason: str) -> None:
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    assert state.illegal(0, state.decode(0, str(action).encode())) == reason


@given(st.binary(max_size=40))
def test_decode_arbitrary_bytes(reply: bytes) -> None:
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    try:
        action = state.decode(0, reply)
    except ProtocolError:
        with pytest.raises(ValueError):
            wire.decode_action(reply)
    else:
        assert isinstance(action, int) and wire.decode_action(reply) == action
        assert state.illegal(0, action) in (None, *_REASONS)


_REASONS = {wire.NO_ROLLS_LEFT, wire.BAD_HOLD, wire.BAD_ROW, wire.ROW_FULL, _EMPTY_UP, _FULL_UP}


@given(st.text(max_size=40))
def test_decode_arbitrary_text(reply: str) -> None:
    state = YahtzeeState.from_position(SEED_EXAMPLE)
    try:
        action: int | None = wire.decode_action(reply)
    except ValueError:
        action = None
    try:
        decoded: int | None = state.decode(0, reply.encode("utf-8", "surrogatepass"))
    except ProtocolError:
        decoded = None
    assert decoded == action


@given(st.integers(), st.sampled_from(["", " ", "\t", "  "]), st.sampled_from(["", " ", "\t"]),
       st.booleans())  # fmt: skip
def test_decode_integers(value: int, before: str, after: str, cr: bool) -> None:
    line = f"{before}{value}{after}{chr(13) if cr else ''}".encode()
    assert wire.decode_action(line) == value
    assert YahtzeeState.from_position(SEED_EXAMPLE).decode(0, line) == value


# ----------------------------------------------------------------- protocol helpers


def test_parse_position_rejects_malformed() -> None:
    for bad in [
        "",
        "1 2 3",
        SEED_EXAMPLE + " 1",
        SEED_EXAMPLE[:-1] + "4",
        _P1 + " 0",
        _P1.replace("6", "7") + " 1",
    ]:
        with pytest.raises(ValueError):
            wire.parse_position(bad)
    with pytest.raises(ValueError):
        wire.parse_position(SEED_EXAMPLE.replace("8", "x"))


def test_legal_actions_of_seed_example() -> None:
    pos = wire.parse_position(SEED_EXAMPLE)
    legal = wire.legal_actions(pos.own, pos.dice, pos.roll)
    holds = [a for a in legal if a & 1]
    places = [a >> 1 for a in legal if not a & 1]
    assert holds == list(range(1, 64, 2))
    assert places == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]
    pos3 = pos._replace(roll=3)
    assert wire.legal_actions(pos3.own, pos3.dice, 3) == [2 * r for r in places]
