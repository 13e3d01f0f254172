"""Liar's Dice rules (referee.games.liars_dice) and wire format (protocol.liars_dice), seed 001.

"Seed" below is /work/shared/seeds/001_e84b923e34ce6bfa.txt; "OpenSpiel" is the pip package
open_spiel's game ``liars_dice`` (mapping as in the reference facts, §4 "Liar's Dice").
"""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
from pathlib import Path

import msgspec
import pytest
from conftest import BOT_PYTHON
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import liars_dice as wire
from protocol.liars_dice import CHALLENGE, Bid
from referee import games
from referee.core.botspec import BotSpec
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import DeadBot, Event
from referee.games.liars_dice import LiarsDice, LiarsDiceState
from referee.match import Match, MatchConfig
from referee.sinks.collect import Collector

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ROOT / "sample_players" / "liars_dice"
Z99 = 2.5758  # two-sided 99% normal quantile

NON_FATAL = [Verdict.TIMEOUT, Verdict.ILLEGAL, Verdict.PROTOCOL]
FATAL = [Verdict.CRASH, Verdict.CPU, Verdict.MEMORY, Verdict.STARTUP]


def bid(state: LiarsDiceState, quantity: int, face: int) -> None:
    """Play a bid for the seat to act, through decode/illegal/apply like the referee."""
    seat = state.turn
    action = state.decode(seat, b"bid %d %d" % (quantity, face))
    assert state.illegal(seat, action) is None
    state.apply(seat, action)


def challenge(state: LiarsDiceState) -> int:
    """The seat to act challenges; returns the seat that lost a die."""
    seat = state.turn
    before = state.counts
    action = state.decode(seat, b"challenge")
    assert state.illegal(seat, action) is None
    state.apply(seat, action)
    (loser,) = [s for s in range(len(before)) if state.counts[s] < before[s]]
    return loser


# ----------------------------------------------------------------- the game's definition


def test_game_definition() -> None:
    """Brief: 2-6 seats, default 4; seed: 50 ms per decision; a dead bot is restarted."""
    assert games.get("liars-dice") is LiarsDice
    assert (LiarsDice.seats.low, LiarsDice.seats.high) == (2, 6)
    assert LiarsDice.seats.default == 4
    assert LiarsDice.limits.decision_s == 0.05
    assert LiarsDice.limits.startup_s == 10.0
    assert LiarsDice.dead_bot is DeadBot.RESTART
    with pytest.raises(ValueError):
        LiarsDice().new_state(7, random.Random(0))
    with pytest.raises(ValueError):
        LiarsDice().new_state(1, random.Random(0))


@pytest.mark.parametrize("seats", range(2, 7))
def test_new_game(seats: int) -> None:
    """Seed: "Each bot gets five randomized dice"; "The first bot begins bidding" (seat 0)."""
    state = LiarsDice().new_state(seats, random.Random(seats))
    assert state.counts == (5,) * seats
    assert state.dice_in_play == 5 * seats
    assert state.to_act() == (0,)
    assert state.current_bid is None
    for seat in range(seats):
        assert len(state.hand(seat)) == 5
        assert all(1 <= d <= 6 for d in state.hand(seat))
    assert state.request(0) == wire.encode_request(0, [5] * seats, state.hand(0), [])


# ----------------------------------------------------------------- bids


def test_seed_bid_order() -> None:
    """Seed: "(2 5's < 2 6's < 3 2's < 3 3's)"."""
    chain = [Bid(2, 5), Bid(2, 6), Bid(3, 2), Bid(3, 3)]
    assert chain == sorted(chain)
    for lower, higher in itertools.pairwise(chain):
        state = LiarsDiceState.from_round([[2, 2, 2, 2, 2]] * 4)
        bid(state, *lower)
        assert state.illegal(state.turn, higher) is None
        state.apply(state.turn, higher)
        assert state.illegal(state.turn, lower) is not None  # "A bid that is too low"
        assert state.illegal(state.turn, higher) is not None  # equal is not higher


def test_higher_bid_is_higher_quantity_or_same_quantity_higher_face() -> None:
    """Seed: "a new bid with a higher quantity, or keeping the same quantity but raising the face"."""
    for q0 in range(1, 21):
        for f0 in wire.FACES:
            state = LiarsDiceState.from_round([[3] * 5] * 4)
            bid(state, q0, f0)
            for q in range(1, 21):
                for f in wire.FACES:
                    higher = q > q0 or (q == q0 and f > f0)
                    assert (state.illegal(state.turn, Bid(q, f)) is None) == higher


def test_bid_bounds() -> None:
    """Seed: faces "2,3,4,5,or 6", quantity "1 to 20" with 20 dice (1..dice in play)."""
    state = LiarsDiceState.from_round([[1, 2], [3], [4, 5, 6]])
    seat = state.turn
    assert state.dice_in_play == 6
    for q, f in [(1, 2), (6, 6), (1, 6), (6, 2)]:
        assert state.illegal(seat, Bid(q, f)) is None
    for q, f in [(0, 2), (7, 2), (1, 1), (1, 7), (1, 0), (10**30, 3), (2, 10**5000)]:
        reason = state.illegal(seat, Bid(q, f))
        assert reason is not None and len(reason) < 120


def test_challenge_on_the_first_turn_is_illegal() -> None:
    """Seed: "a challenge on the first turn of a round will automatically lose the round"."""
    state = LiarsDice().new_state(4, random.Random(3))
    assert state.illegal(0, CHALLENGE) == wire.FIRST_TURN_CHALLENGE
    bid(state, 1, 2)
    assert state.illegal(1, CHALLENGE) is None
    assert challenge(state) in (0, 1)
    # A new round: its first turn again.
    assert state.illegal(state.turn, CHALLENGE) == wire.FIRST_TURN_CHALLENGE


def test_only_the_seat_to_act_may_decide() -> None:
    state = LiarsDice().new_state(3, random.Random(3))
    assert state.illegal(1, Bid(1, 2)) == wire.NOT_YOUR_TURN


def test_turns_go_round_the_table_skipping_seats_that_are_out() -> None:
    """Seed: players bid in turn; a bot without dice "leaves play"."""
    state = LiarsDiceState.from_round([[2], [], [3, 3], [], [4]], starter=2)
    order = []
    for q in range(1, 5):
        order.append(state.turn)
        bid(state, q, 2)
    assert order == [2, 4, 0, 2]


# ----------------------------------------------------------------- challenges


@pytest.mark.parametrize(
    ("hands", "quantity", "face", "count"),
    [
        ([[1, 1, 4], [1, 4, 5]], 5, 4, 5),  # three wild ones and two fours
        ([[1, 1, 1], [1, 1, 1]], 6, 6, 6),  # all wild
        ([[1, 2, 3], [4, 5, 6]], 2, 3, 2),
        ([[2, 2, 2], [2, 2, 2]], 1, 3, 0),  # no ones, no threes
    ],
)
def test_ones_are_wild(hands, quantity: int, face: int, count: int) -> None:
    """Seed: "All 1's are wild and count as the face of the current bid, no matter who has them"."""
    for q, holds in ((count, True), (count + 1, False)):
        if not 1 <= q <= 6:
            continue
        state = LiarsDiceState.from_round(hands)
        bid(state, q, face)
        loser = challenge(state)
        # "If the bid is valid, the challenger loses a die. Otherwise, the bidder loses a die."
        assert loser == (1 if holds else 0)
        (reveal,) = {e.line for e in state.drain_events()}
        info = wire.parse_info(reveal)
        assert info == wire.Reveal(1, 0, q, face, count, loser, tuple(tuple(h) for h in hands))


def test_the_bid_stands_when_the_count_reaches_the_quantity() -> None:
    """Seed: "the bid is compared against all the dice. If the bid is valid, the challenger loses"."""
    hands = [[3, 3, 5], [1, 6], [3, 2, 2]]  # threes (ones included): 4
    for quantity, loser in [(3, 2), (4, 2), (5, 1)]:
        state = LiarsDiceState.from_round(hands)
        bid(state, 1, 2)
        bid(state, quantity, 3)  # seat 1 bids, seat 2 challenges
        assert challenge(state) == loser


def test_challenge_resolution_agrees_with_openspiel() -> None:
    """OpenSpiel liars_dice (2 players, one round; its face 6 wild) on random two-seat rounds.

    Reference §4: the seed's 1 maps to OpenSpiel's 6 (wild), 2..6 to 1..5; OpenSpiel bids on
    its face 6 are skipped.  Checked: the set of legal bids, when a challenge is legal, and
    who loses the challenge.
    """
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install open_spiel)")
    rng = random.Random(20240410)
    spiel_games = {n: pyspiel.load_game("liars_dice", {"players": 2, "numdice": n}) for n in range(1, 6)}
    losses = [0, 0]
    for _ in range(1500):
        n = rng.randint(1, 5)
        hands = [[rng.randint(1, 6) for _ in range(n)] for _ in range(2)]
        ours = LiarsDiceState.from_round(hands, starter=0)
        theirs = spiel_games[n].new_initial_state()
        for hand in hands:  # OpenSpiel rolls player 0's dice first, one chance action per die
            for d in hand:
                theirs.apply_action((6 if d == 1 else d - 1) - 1)
        liar = spiel_games[n].num_distinct_actions() - 1
        seat = 0
        while True:
            legal = theirs.legal_actions()
            their_bids = {(a // 6 + 1, a % 6 + 2) for a in legal if a != liar and a % 6 != 5}
            our_bids = {
                (q, f)
                for q in range(1, 2 * n + 1)
                for f in wire.FACES
                if ours.illegal(seat, Bid(q, f)) is None
            }
            assert our_bids == their_bids
            assert (liar in legal) == (ours.illegal(seat, CHALLENGE) is None)
            if ours.current_bid is not None and (not our_bids or rng.random() < 0.3):
                break
            q, f = rng.choice(sorted(our_bids)[: rng.choice((3, 10, 60))])
            theirs.apply_action((q - 1) * 6 + (f - 2))
            ours.apply(seat, Bid(q, f))
            seat ^= 1
        theirs.apply_action(liar)
        ours.apply(seat, CHALLENGE)
        their_loser = theirs.returns().index(-1.0)
        our_loser = [s for s in (0, 1) if ours.counts[s] == n - 1]
        assert our_loser == [their_loser], (hands, theirs.history())
        losses[their_loser == seat] += 1
    assert min(losses) > 300  # both outcomes (challenger loses / bidder loses) well covered


# ----------------------------------------------------------------- rounds and the game


def test_the_loser_starts_the_next_round_and_dice_are_rerolled() -> None:
    """Seed: "The dice are again randomized (re-rolled) and the player who lost a die in the
    last round starts the next round"."""
    rerolled = 0
    for trial in range(30):
        state = LiarsDice().new_state(4, random.Random(trial))
        before = [state.hand(s) for s in range(4)]
        bid(state, 1, 2)
        bid(state, 12, 6)
        loser = challenge(state)  # seat 2 challenges seat 1
        assert loser in (1, 2)
        assert state.turn == state.starter == loser
        assert state.current_bid is None
        assert state.request(loser).endswith(b" bids\n")
        assert len(state.hand(loser)) == 4
        rerolled += [state.hand(s) for s in range(4)] != before
    assert rerolled == 30


def test_next_seat_in_line_starts_when_the_loser_is_eliminated() -> None:
    """Seed: "When a bot loses its last die, it leaves play and the next round starts with the
    next bot in line"."""
    # Seat 1 (one die) bids 5 sixes with no six or one anywhere; seat 2 challenges: seat 1 is out.
    state = LiarsDiceState.from_round([[2, 2], [3], [4, 4], [], [5]], starter=1)
    bid(state, 5, 6)
    assert challenge(state) == 1
    assert state.counts == (2, 0, 2, 0, 1)
    assert state.eliminated == (3, 1)
    assert state.starter == state.turn == 2
    # Wrapping round the table: the last seat is eliminated, seat 0 goes next.
    state = LiarsDiceState.from_round([[], [2, 2], [3, 3], [4]], starter=3)
    bid(state, 5, 6)
    assert challenge(state) == 3
    assert state.starter == 1  # seat 0 is out too


@pytest.mark.parametrize("verdict", NON_FATAL + FATAL)
def test_a_penalty_costs_exactly_one_die_and_the_penalized_seat_starts(verdict: Verdict) -> None:
    """Seed: "Bots will lose a round (and therefore a die) automatically in three circumstances:
    Timeouts, Exceptions, and Invalid Decisions"; the loser of the round starts the next.
    A crash is an exception: one die too (the match restarts the bot for its next turn)."""
    state = LiarsDice().new_state(4, random.Random(9))
    bid(state, 2, 3)
    bid(state, 3, 3)
    hands = [state.hand(s) for s in range(4)]
    state.penalize(2, verdict)
    assert state.counts == (5, 5, 4, 5)
    assert state.turn == state.starter == 2
    assert state.current_bid is None
    events = state.drain_events()
    assert [e.seat for e in events] == [0, 1, 2, 3]
    assert all(not e.expects_reply for e in events)
    assert wire.parse_info(events[0].line) == wire.Penalty(2, verdict.value, 1, tuple(hands))
    (record,) = state.summary()["rounds"]
    assert record["penalty"] == {"seat": 2, "verdict": verdict.value, "dice_lost": 1}
    assert record["bids"] == [[0, 2, 3], [1, 3, 3]]


def test_a_penalty_on_the_last_die_eliminates_and_passes_the_start() -> None:
    state = LiarsDiceState.from_round([[2, 2], [3], [4, 4]], starter=1)
    state.penalize(1, Verdict.TIMEOUT)
    assert state.counts == (2, 0, 2)
    assert state.turn == 2


@pytest.mark.parametrize("verdict", FATAL)
def test_a_seat_whose_bot_stays_down_loses_a_die_each_turn(verdict: Verdict) -> None:
    """Seed 001: a die per timeout, exception or invalid decision, so a bot that cannot
    be restarted loses one die at each of its turns until it is out (issue 9: never all
    its dice at once)."""
    state = LiarsDice().new_state(4, random.Random(5))
    bid(state, 1, 4)
    policy = random.Random(1)
    lost = 0
    while state.counts[1]:
        (seat,) = state.to_act()
        if seat == 1:
            before = state.counts[1]
            state.penalize(1, verdict)
            assert state.counts[1] == before - 1
            lost += 1
        else:
            play_random(state, seat, policy)
    assert lost == 5 and 1 in state.eliminated  # it never bids, so only penalties cost it dice


def test_the_last_seat_with_dice_wins() -> None:
    """Seed: "The last bot with dice wins the game and gains a point"; ranks by elimination."""
    state = LiarsDiceState.from_round([[2], [3], [], [5]], starter=3)
    bid(state, 1, 6)  # no six, no one
    assert challenge(state) == 3  # seat 0 challenges seat 3: seat 3 is out
    assert not state.is_terminal()
    state.penalize(state.turn, Verdict.ILLEGAL)  # seat 0 loses its last die
    assert state.is_terminal() and state.to_act() == ()
    assert state.winner == 1
    assert state.scores() == [0.0, 1.0, 0.0, 0.0]
    # Eliminated: seat 2 (before this round), then 3, then 0: the later, the better.
    assert state.ranks() == [2, 1, 4, 3]
    lines = [e.line for e in state.drain_events() if e.seat == 2]
    assert wire.line_kind(lines[-1]) == "result"
    assert wire.parse_info(lines[-1]) == wire.Result(1, (2, 3, 0))
    assert state.summary()["winner"] == 1


# ----------------------------------------------------------------- whole games


def play_random(state: LiarsDiceState, seat: int, policy: random.Random) -> None:
    """A uniformly random legal decision, through the wire format."""
    turn = wire.parse_request(state.request(seat))
    options: list[wire.Action] = wire.legal_bids(turn.dice_in_play, turn.current)
    if turn.current is not None:
        options.append(CHALLENGE)
    action = state.decode(seat, wire.encode_action(policy.choice(options)).rstrip(b"\n"))
    assert state.illegal(seat, action) is None
    state.apply(seat, action)


def play_game(
    seats: int, seed: int, policy_seed: int, penalty_rate: float = 0.0
) -> tuple[LiarsDiceState, list]:
    """A game of random legal players with random penalties; checks invariants as it goes."""
    state = LiarsDice().new_state(seats, random.Random(seed))
    policy = random.Random(policy_seed)
    trace: list = []
    while not state.is_terminal():
        for event in state.drain_events():
            trace.append(("event", event.seat, event.line))
        (seat,) = state.to_act()
        line = state.request(seat)
        trace.append(("request", seat, line))
        turn = wire.parse_request(line)
        assert turn.seat == seat and turn.counts == state.counts and turn.dice == state.hand(seat)
        assert wire.encode_request(*turn) == line
        before = sum(state.counts)
        if policy.random() < penalty_rate:
            verdict = policy.choice(NON_FATAL + FATAL)
            state.penalize(seat, verdict)
            assert sum(state.counts) == before - 1
        else:
            play_random(state, seat, policy)
            assert sum(state.counts) in (before, before - 1)
    for event in state.drain_events():
        trace.append(("event", event.seat, event.line))
    return state, trace


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**64), st.integers(0, 2**32), st.sampled_from([0.0, 0.02, 0.2]))
def test_games_always_end_with_one_winner(
    seats: int, seed: int, policy_seed: int, penalty_rate: float
) -> None:
    """Seed: "The last bot with dice wins the game"; every round costs exactly one die (or a
    dead bot's dice), so the game ends."""
    state, trace = play_game(seats, seed, policy_seed, penalty_rate)
    counts = state.counts
    assert sum(1 for c in counts if c) == 1
    winner = state.winner
    assert counts[winner] >= 1
    assert state.scores() == [1.0 if s == winner else 0.0 for s in range(seats)]
    assert sorted(state.ranks()) == list(range(1, seats + 1))
    assert state.ranks()[winner] == 1
    summary = json.loads(json.dumps(state.summary()))
    assert summary["eliminated"] == list(state.eliminated) and len(state.eliminated) == seats - 1
    # Replaying the summary reproduces each round: counts, dice, the challenge's count and loser.
    dice_left = [5] * seats
    for record in summary["rounds"]:
        assert [len(h) for h in record["dice"]] == dice_left
        if "challenge" in record:
            c = record["challenge"]
            _, quantity, face = record["bids"][-1]
            count = sum(wire.matching(h, face) for h in record["dice"])
            assert c["count"] == count
            assert c["loser"] == (c["challenger"] if count >= quantity else c["bidder"])
            dice_left[c["loser"]] -= 1
        else:
            p = record["penalty"]
            dice_left[p["seat"]] -= p["dice_lost"]
    assert dice_left == list(counts)
    # Every seat got every information line, the result last.
    for seat in range(seats):
        info = [line for kind, s, line in trace if kind == "event" and s == seat]
        assert len(info) == len(summary["rounds"]) + 1
        assert wire.parse_info(info[-1]) == wire.Result(winner, tuple(state.eliminated))


def test_same_seed_same_game() -> None:
    """All randomness comes from the rng given to new_state."""
    _, first = play_game(4, 1234, 99, 0.05)
    _, again = play_game(4, 1234, 99, 0.05)
    _, other = play_game(4, 1235, 99, 0.05)
    assert first == again
    assert first != other


def test_dice_are_fair() -> None:
    """Each face has probability 1/6, and a die counts for a bid face with probability 1/3
    (the face or a wild one: what probabilistic.py assumes).  99% intervals, fixed seed."""
    rng = random.Random(77)
    dice = []
    for _ in range(4000):
        state = LiarsDice().new_state(6, rng)
        for seat in range(6):
            dice.extend(state.hand(seat))
    n = len(dice)

    def within(indicators_sum: int, p: float) -> None:
        mean = indicators_sum / n
        sd = math.sqrt(mean * (1 - mean))
        half = Z99 * sd / math.sqrt(n)
        assert mean - half <= p <= mean + half, (mean, half, p)

    for face in range(1, 7):
        within(dice.count(face), 1 / 6)
    for face in wire.FACES:
        within(sum(1 for d in dice if d in (1, face)), 1 / 3)


# ----------------------------------------------------------------- wire format


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        (b"challenge", CHALLENGE),
        (b"bid 3 4", Bid(3, 4)),
        (b"bid 20 6", Bid(20, 6)),
        (b"  bid\t3   4 \t", Bid(3, 4)),
        (b"challenge\r", CHALLENGE),
        (b" challenge \r", CHALLENGE),
        (b"bid 03 4", Bid(3, 4)),
        (b"bid 0 9", Bid(0, 9)),  # parses; illegal
        (b"bid 99999999999999999999999 2", Bid(10**23 - 1, 2)),
    ],
)
def test_decode_accepts(reply: bytes, action: wire.Action) -> None:
    state = LiarsDice().new_state(2, random.Random(0))
    assert state.decode(0, reply) == action
    assert state.decode(0, reply) == action  # second time from the cache
    assert wire.decode_action(reply.decode()) == action


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"   ",
        b"\r",
        b"Challenge",
        b"challenge now",
        b"bid",
        b"bid 3",
        b"bid 3 4 5",
        b"bid -3 4",
        b"bid +3 4",
        b"bid 3.0 4",
        b"bid three 4",
        b"bid 3 4\n",
        b"bid\v3 4",
        b"bid 3 4\r\r",
        b"3 4",
        b"\xff\xfe",
        b"bid \xd9\xa3 4",  # Arabic-Indic digit three
        b"bid 1" + b"0" * 5000 + b" 4",
    ],
)
def test_decode_rejects(reply: bytes) -> None:
    state = LiarsDice().new_state(2, random.Random(0))
    with pytest.raises(ProtocolError):
        state.decode(0, reply)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=64))
def test_decode_arbitrary_bytes(reply: bytes) -> None:
    state = LiarsDice().new_state(2, random.Random(0))
    try:
        action = state.decode(0, reply)
    except ProtocolError:
        return
    assert action is CHALLENGE or (isinstance(action, Bid) and action.quantity >= 0 and action.face >= 0)
    reason = state.illegal(0, action)
    assert reason is None or isinstance(reason, str)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_decode_arbitrary_text(reply: str) -> None:
    state = LiarsDice().new_state(2, random.Random(0))
    try:
        action = state.decode(0, reply.encode("utf-8", "surrogatepass"))
    except ProtocolError:
        return
    assert action is CHALLENGE or isinstance(action, Bid)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 10**40),
    st.integers(0, 99),
    st.sampled_from(["", " ", "\t", " \t "]),
    st.sampled_from(["", " ", "\t"]),
    st.booleans(),
)
def test_decode_bids(quantity: int, face: int, before: str, after: str, cr: bool) -> None:
    reply = f"{before}bid {quantity}{after or ' '}{face}{after}{chr(13) if cr else ''}".encode()
    assert LiarsDice().new_state(2, random.Random(0)).decode(0, reply) == Bid(quantity, face)


def test_requests_and_replies_round_trip() -> None:
    line = b"turn 2 counts 5 0 3 4 dice 136 bids 3:1:2 0:2:6\n"
    turn = wire.parse_request(line)
    assert turn == wire.Turn(2, (5, 0, 3, 4), (1, 3, 6), (wire.PlacedBid(3, 1, 2), wire.PlacedBid(0, 2, 6)))
    assert turn.current == Bid(2, 6) and turn.dice_in_play == 12
    assert wire.encode_request(*turn) == line
    assert wire.line_kind(line) == "turn"
    for action in (CHALLENGE, Bid(3, 4)):
        assert wire.decode_action(wire.encode_action(action).rstrip(b"\n")) == action


@pytest.mark.parametrize(
    "line",
    [
        b"turn 0 counts 5 5 dice 1234 bids\n",  # four dice, count five
        b"turn 2 counts 5 5 dice 12345 bids\n",  # no seat 2
        b"turn 0 counts 5 5 dice 12347 bids\n",
        b"turn 0 counts 5 5 dice 12345\n",
        b"turn 0 counts 5 5 dice 12345 bids 1:2\n",
        b"reveal 0 1 2 3 4 0 hands 1 2\n",
    ],
)
def test_parse_request_rejects_malformed(line: bytes) -> None:
    with pytest.raises(ValueError):
        wire.parse_request(line)


def test_information_lines_are_told_apart_from_requests() -> None:
    """Requests start with "turn"; players, reveal, penalty and result lines need no answer."""
    state = LiarsDiceState.from_round([[1, 4], [2], [6]])
    state.introduce([4, 0, 9])
    assert [wire.line_kind(e.line) for e in state.drain_events()] == ["players"] * 3
    assert wire.line_kind(state.request(0)) == "turn"
    bid(state, 2, 4)
    assert challenge(state) == 1  # 2 fours (a one and a four): seat 1 loses its only die
    assert state.turn == 2
    state.penalize(2, Verdict.CRASH)
    events = state.drain_events()
    assert [wire.line_kind(e.line) for e in events] == ["reveal"] * 3 + ["penalty"] * 3 + ["result"] * 3
    assert not any(e.expects_reply for e in events)
    assert events[-1].line == b"result 0 eliminated 1 2\n"


# ----------------------------------------------------------------- who plays whom


def test_bots_are_told_whom_they_play() -> None:
    """Seed: "Bot objects will persist from game to game in the tournament. The best bots
    could learn and adapt to the strategies their competitor bots use": the match
    introduces the bots to every game."""
    assert LiarsDice.tells_ids


@pytest.mark.parametrize("ids", [[0, 1], [7, 3], [5, 0, 2, 9], [11, 12, 13, 14, 15, 16]])
def test_a_game_starts_by_telling_every_seat_the_players(ids: list[int]) -> None:
    """Seed: bots "could learn and adapt to the strategies their competitor bots use",
    and seats change every game: each game's first line to every seat, before its first
    request, is ``players`` with the stable ids by seat (not answered)."""
    n = len(ids)
    state = LiarsDice().new_state(n, random.Random(n))
    state.introduce(ids)
    line = b"players " + b" ".join(b"%d" % i for i in ids) + b"\n"
    assert state.drain_events() == [Event(s, line) for s in range(n)]
    assert wire.parse_info(line) == wire.Players(tuple(ids))
    assert state.to_act() == (0,) and wire.line_kind(state.request(0)) == "turn"
    # Told once: the rest of the game is rounds and the result, as without ids.
    policy = random.Random(1)
    lines = []
    while not state.is_terminal():
        play_random(state, state.turn, policy)
        lines += [event.line for event in state.drain_events()]
    assert lines and not any(wire.line_kind(line) == "players" for line in lines)
    assert wire.line_kind(lines[-1]) == "result"


def test_players_come_before_lines_already_due() -> None:
    """A state that already owes lines (a position prepared mid-game, as ``referee check``
    poses) still tells the players first: the game starts with them."""
    state = LiarsDiceState.from_round([[2, 2, 3], [1, 3, 4]], starter=1)
    state.penalize(1, Verdict.TIMEOUT)
    state.introduce([3, 8])
    assert [(e.seat, wire.line_kind(e.line)) for e in state.drain_events()] == [
        (0, "players"), (1, "players"), (0, "penalty"), (1, "penalty"),
    ]  # fmt: skip


def test_introduction_does_not_change_the_game() -> None:
    """The ids are information only: the same seed and the same decisions give the same
    game, line for line, after the ``players`` lines."""

    def lines_of_a_game(ids: list[int] | None) -> list[tuple[int, bytes]]:
        state = LiarsDice().new_state(4, random.Random(2024))
        if ids is not None:
            state.introduce(ids)
        policy, lines = random.Random(7), []
        while True:
            lines += [(e.seat, e.line) for e in state.drain_events()]
            if state.is_terminal():
                return lines
            lines.append((state.turn, state.request(state.turn)))
            play_random(state, state.turn, policy)

    told, plain = lines_of_a_game([9, 8, 7, 6]), lines_of_a_game(None)
    assert told[:4] == [(s, b"players 9 8 7 6\n") for s in range(4)]
    assert told[4:] == plain and len(plain) > 20


@pytest.mark.parametrize("ids", [[1], [1, 2, 3], [0, -1], [-4, 2]])
def test_introduce_wants_one_id_per_seat(ids: list[int]) -> None:
    """One id per seat, each a position (>= 0); anything else is the caller's mistake."""
    with pytest.raises(ValueError):
        LiarsDice().new_state(2, random.Random(0)).introduce(ids)


@pytest.mark.parametrize(
    "line", [b"players\n", b"players 4\n", b"players 1 x\n", b"players 1 -2\n", b"player 1 2\n"]
)
def test_parse_info_rejects_malformed_players(line: bytes) -> None:
    with pytest.raises(ValueError):
        wire.parse_info(line)


def test_players_is_a_kind_of_line_for_the_check() -> None:
    """``referee check`` reports the ``players`` line as posed (its coverage item)."""
    game = LiarsDice()
    assert "players" in game.line_kinds()
    assert game.kinds_of_line(wire.encode_players([3, 1])) == ("players",)
    assert game.kinds_of_line(b"players 3 1") == ("players",)


# ----------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def built() -> None:
    subprocess.run(["make", "-C", str(ROOT / "sample_players")], check=True, capture_output=True)


def _player(name: str, script: str, *args: str) -> BotSpec:
    return BotSpec(name=name, argv=[BOT_PYTHON, str(PLAYERS / script), *args], home=str(PLAYERS))


async def _match(specs: list[BotSpec], games_n: int, log: Path) -> tuple[dict, list[dict]]:
    """Play a match through referee.match.Match; the players' results by name and the log."""
    config = MatchConfig(game="liars-dice", games=games_n, seed=11, pin=False, log_path=str(log))
    result = await Match(LiarsDice(), specs, config).run()
    assert result.completed and result.games_played == games_n
    players = {p.name: msgspec.to_builtins(p) for p in result.players}
    assert sum(p["wins"] for p in players.values()) == games_n
    records = [json.loads(line) for line in log.read_text().splitlines()]
    n = len(specs)
    for g, record in enumerate(records):  # the match rotates the bots over the seats
        assert record["seats"] == [specs[(s + g) % n].name for s in range(n)]
    return players, records


@pytest.mark.slow
async def test_four_bot_match_with_a_bot_that_times_out(built: None, tmp_path: Path) -> None:
    """Brief: a 4-bot match with real processes; a bot over the seed's 50 ms loses a die each
    time (and starts the next round) but stays in the match."""
    specs = [
        BotSpec(name="reader", argv=[str(PLAYERS / "bin" / "reader")], home=str(PLAYERS)),
        _player("probabilistic", "probabilistic.py"),
        _player("random", "random_legal.py", "3"),
        _player("slow", "flaky.py", "--slow-every", "6"),  # 65 ms on every 6th request
    ]
    players, records = await _match(specs, 8, tmp_path / "games.jsonl")
    for name in ("reader", "probabilistic", "random"):
        # A loaded machine may make anyone late; nothing else may happen to the samples.
        assert set(players[name]["forfeits"]) <= {"timeout"}, players[name]["forfeits"]
        assert players[name]["restarts"] == 0
    slow = players["slow"]
    assert set(slow["forfeits"]) == {"timeout"} and slow["forfeits"]["timeout"] >= 3
    assert slow["restarts"] == 0 and slow["games"] == 8

    timeouts = 0
    for record in records:
        seat = record["seats"].index("slow")
        rounds = record["summary"]["rounds"]
        for i, rnd in enumerate(rounds):
            p = rnd.get("penalty")
            if p and p["seat"] == seat:
                assert p == {"seat": seat, "verdict": "timeout", "dice_lost": 1}
                timeouts += 1
                if len(rnd["dice"][seat]) > 1 and i + 1 < len(rounds):
                    assert rounds[i + 1]["starter"] == seat  # the penalized seat starts
        # It stays in the match: it made legal decisions in every game.
        assert any(
            s["kind"] == "ask" and "verdict" not in s and s["seat"] == seat for s in record["transcript"]
        )
    assert timeouts == slow["forfeits"]["timeout"]


@pytest.mark.slow
async def test_a_crash_costs_one_die_and_the_bot_is_restarted_within_the_game(
    built: None, tmp_path: Path
) -> None:
    """Seed 001: an exception costs a round, that is one die ("Bots will lose a round
    (and therefore a die) automatically in three circumstances: Timeouts, Exceptions,
    and Invalid Decisions").  Every request carries the whole state, so the match
    restarts the crashed bot at its next turn and it plays on (issue 9)."""
    specs = [
        _player("random", "random_legal.py", "4"),
        _player("crashy", "flaky.py", "--crash-at", "4"),  # exits at its 4th request
        _player("probabilistic", "probabilistic.py"),
    ]
    players, records = await _match(specs, 4, tmp_path / "games.jsonl")
    crashy = players["crashy"]
    crashes = crashy["forfeits"]["crash"]
    assert set(crashy["forfeits"]) == {"crash"} and crashes >= 4
    assert crashy["restarts"] in (crashes - 1, crashes)  # the very last crash may end the match
    penalties = played_on = 0
    for record in records:
        seat = record["seats"].index("crashy")
        for rnd in record["summary"]["rounds"]:
            if rnd.get("penalty"):
                assert rnd["penalty"] == {"seat": seat, "verdict": "crash", "dice_lost": 1}
                penalties += 1
        # Restarted within the game: it decided again after its first crash.
        steps = record["transcript"]
        first = next(i for i, s in enumerate(steps) if "verdict" in s and s["seat"] == seat)
        played_on += any(
            s["kind"] == "ask" and "verdict" not in s and s["seat"] == seat for s in steps[first:]
        )
    assert penalties == crashes
    assert played_on >= 3, played_on


@pytest.mark.slow
async def test_a_match_tells_each_game_who_sits_where(built: None, tmp_path: Path) -> None:
    """Seed: "Bot objects will persist from game to game in the tournament. The best bots
    could learn and adapt to the strategies their competitor bots use."  Through a whole
    match with a tournament's ids: every game's transcript starts with ``players`` to
    every seat, the ids of the bots in their seats this game, and has no other; the
    sample players (Python and C) skip the line and play on."""
    specs = [
        BotSpec(name="reader", argv=[str(PLAYERS / "bin" / "reader")], home=str(PLAYERS)),
        _player("probabilistic", "probabilistic.py"),
        _player("random", "random_legal.py", "3"),
        _player("flaky", "flaky.py"),  # well-behaved without its flags
    ]
    ids = {"reader": 40, "probabilistic": 7, "random": 13, "flaky": 2}
    config = MatchConfig(game="liars-dice", games=6, seed=5, pin=False, ids=list(ids.values()))
    collector = Collector(transcripts=True)
    result = await Match(LiarsDice(), specs, config, sinks=[collector]).run()
    assert result.completed and len(collector.games) == 6
    for p in result.players:  # a loaded machine may make anyone late; nothing else
        assert set(p.forfeits) <= {"timeout"}, (p.name, p.forfeits)
    assert len({tuple(r.seats) for r in collector.games}) == 4  # every rotation was played
    for record in collector.games:
        transcript = record.transcript
        assert transcript is not None
        line = "players " + " ".join(str(ids[name]) for name in record.seats)
        assert [(s.seat, s.kind, s.line) for s in transcript[:4]] == [(s, "tell", line) for s in range(4)]
        assert transcript[4].kind == "ask" and transcript[4].line.startswith("turn 0 ")
        assert sum(s.line.startswith("players") for s in transcript) == 4
