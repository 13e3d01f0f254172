"""Every game of ``games.available()`` keeps the GameState contract (referee/games/base.py).

Run over every game, at its lowest, default and highest seat count, plus a few option
variants: the same seed gives the same game; random play from ``legal_actions`` reaches
the end without tripping ``illegal``; at every position the enumeration is exact (each
listed action is accepted, encodes to a reply that decodes back to it and has its own
index; other actions — seen legal elsewhere in the game, or odd replies — are accepted
exactly when their index is listed); observations fit their bounds; nothing of this
changes the state; penalties of every verdict, in single and joint steps, still end the
game; and the number of decisions is bounded.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from referee import games
from referee.core.seeding import deal_seed
from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import GameState
from referee.games.random_play import RandomPlayer, play_out

#: Option variants that open code paths the defaults do not (each game's own options).
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "holdem": [{"bot_showdown": 1}, {"rules": "ppca"}, {"seed_quirks": 0}],
    "bidding-wars": [{"cards": 1}, {"cards": 4}],
}

#: No game may take more decisions than this (a simultaneous step is one).
MAX_DECISIONS = 20_000

#: Replies a bot might send that are not among a game's encoded actions: each is decoded
#: for the seat, and if it decodes, the rules must accept it exactly when it is listed.
ODD_REPLIES = [
    b"0",
    b"1",
    b"-1",
    b"2",
    b"7",
    b"13",
    b"14",
    b"26",
    b"63",
    b"64",
    b"99999999999999999999",
    b"challenge",
    b"bid 1 2",
    b"bid 1 1",
    b"bid 0 6",
    b"bid 31 6",
    b"bid 5 7",
    b"fold",
    b"check",
    b"call",
    b"raise 0",
    b"raise 1",
    b"raise 2",
    b"raise 999999",
    b"AS KS QS JS TS",
    b"2C 2C 2C 2C 2C",
]


def _cases() -> list[Any]:
    cases = []
    for name, cls in games.available().items():
        for seats in sorted({cls.seats.low, cls.seats.default, cls.seats.high}):
            cases.append(pytest.param(name, {}, seats, id=f"{name}-{seats}"))
        for options in VARIANTS.get(name, []):
            tag = ",".join(f"{k}={v}" for k, v in options.items())
            cases.append(pytest.param(name, options, cls.seats.default, id=f"{name}-{tag}"))
    return cases


CASES = _cases()


def _new(name: str, options: dict[str, Any], seats: int, seed: int) -> GameState:
    return games.get(name)(**options).new_state(seats, random.Random(seed))


def _seats(state: GameState) -> int:
    return len(state.scores())


def test_every_game_is_covered() -> None:
    assert {case.values[0] for case in CASES} == set(games.available())
    assert set(VARIANTS) <= set(games.available())


class Checker:
    """A random player that checks the whole contract at each position before it answers."""

    def __init__(self, seed: int, sample: int = 24) -> None:
        self.player = RandomPlayer(seed)
        self.rng = random.Random(seed + 1)
        self.sample = sample
        #: Actions seen legal so far in the game, by seat (candidates elsewhere).
        self.pool: list[tuple[int, Any]] = []
        self.checked = 0
        self.joint = 0

    def __call__(self, state: GameState, seat: int) -> bytes:
        self.check(state)
        legal = state.legal_actions(seat)
        if self.rng.random() < 0.6:
            # Mostly the lowest indices (Hold'em's fold, check and call; the lowest bids),
            # which uniform play over hundreds of raise amounts would hardly ever choose.
            return state.encode(seat, self.rng.choice(legal[:3]))
        return self.player.reply(state, seat)

    def check(self, state: GameState) -> None:
        actors = tuple(state.to_act())
        assert actors and not state.is_terminal()
        if len(actors) > 1:
            self.joint += 1
        before = (actors, [state.request(s) for s in actors])
        count = state.action_count()
        low, high = state.observation_bounds()
        assert len(low) == len(high) > 0
        assert all(lo <= 0 <= hi for lo, hi in zip(low, high, strict=True))
        for seat in range(_seats(state)):
            legal = state.legal_actions(seat)
            if seat not in actors:
                assert legal == [], f"seat {seat} is not to act but has legal actions"
                self.judge_candidates(state, seat, set())
                continue
            assert legal, f"seat {seat} is to act with no legal action"
            indices = [state.action_index(seat, a) for a in legal]
            assert indices == sorted(set(indices)), "legal actions out of index order, or sharing an index"
            assert indices[0] >= 0 and indices[-1] < count
            shown = legal if len(legal) <= 2 * self.sample else self.rng.sample(legal, 2 * self.sample)
            if len(legal) > 2 * self.sample:
                shown += [legal[0], legal[-1]]
            for action in shown:
                assert state.illegal(seat, action) is None, f"listed action {action!r} is illegal"
                line = state.encode(seat, action)
                assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
                assert state.decode(seat, line[:-1]) == action
                self.pool.append((seat, action))
            self.judge_candidates(state, seat, set(indices))
            observation = state.observation(state.request(seat))
            assert len(observation) == len(low)
            assert all(lo <= x <= hi for lo, x, hi in zip(low, observation, high, strict=True)), observation
        assert (tuple(state.to_act()), [state.request(s) for s in actors]) == before, (
            "enumeration changed the state"
        )
        if len(self.pool) > 4000:
            del self.pool[:2000]
        self.checked += 1

    def judge_candidates(self, state: GameState, seat: int, listed: set[int]) -> None:
        candidates = [a for _, a in self.rng.sample(self.pool, min(self.sample, len(self.pool)))]
        # Either side of each run of consecutive integers listed (a raise's bounds, a hand's cards).
        ints = [a for a in state.legal_actions(seat) if type(a) is int]
        for before, after in zip([None, *ints], [*ints, None], strict=True):
            if before is not None and after != before + 1:
                candidates.append(before + 1)
            if after is not None and before != after - 1:
                candidates.append(after - 1)
        for reply in ODD_REPLIES:
            with contextlib.suppress(ProtocolError):
                candidates.append(state.decode(seat, reply))
        for action in candidates:
            accepted = state.illegal(seat, action) is None
            try:
                index = state.action_index(seat, action)
            except ValueError:
                assert not accepted, f"legal action {action!r} has no index"
                continue
            assert accepted == (index in listed), (
                f"seat {seat}: {action!r} (index {index}) is {'accepted' if accepted else 'refused'} "
                f"by illegal() but {'listed' if index in listed else 'not listed'} by legal_actions()"
            )


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options", "seats"), CASES)
def test_same_seed_same_game(name: str, options: dict[str, Any], seats: int) -> None:
    """By ``new_state`` from a seeded generator, and by ``new_deal`` from a deal seed
    (what a match plays, which a game may override)."""
    game = games.get(name)(**options)
    for deal in (
        lambda seed: _new(name, options, seats, seed),
        lambda seed: game.new_deal(seats, deal_seed(7, seed)),
    ):
        transcripts = set()
        for seed in range(6):
            runs = []
            for _ in range(2):
                state = deal(seed)
                played = play_out(state, RandomPlayer(seed), max_decisions=MAX_DECISIONS)
                runs.append((played.lines, state.scores(), state.ranks(), state.summary(), state.tallies()))
            assert runs[0] == runs[1]
            transcripts.add(repr(runs[0][0]))
        if options != {"cards": 1}:  # one card: every game is the same
            assert len(transcripts) > 1, "different seeds all gave the same game"


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options", "seats"), CASES)
def test_random_play_keeps_the_contract(name: str, options: dict[str, Any], seats: int) -> None:
    for seed in range(3):
        state = _new(name, options, seats, seed)
        checker = Checker(seed)
        played = play_out(state, checker, max_decisions=MAX_DECISIONS)
        assert played.penalties == [], "a legal random reply was penalised"
        assert checker.checked >= played.decisions
        _check_end(state, seats)
        # After the end: nobody to act, nothing legal.
        assert all(state.legal_actions(s) == [] for s in range(seats))


def _check_end(state: GameState, seats: int) -> None:
    assert state.is_terminal() and not state.to_act()
    assert len(state.scores()) == len(state.ranks()) == seats
    assert all(1 <= r <= seats for r in state.ranks())
    assert min(state.ranks()) == 1


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize(("name", "options", "seats"), CASES)
def test_penalties_end_the_game(name: str, options: dict[str, Any], seats: int, verdict: Verdict) -> None:
    """Every verdict, sometimes (random seats, in single and joint steps alike) and
    always (every seat every time): the game still ends, with ranks for every seat."""
    rng = random.Random(7)
    player = RandomPlayer(8)

    def sometimes(state: GameState, seat: int) -> bytes | Verdict:
        return verdict if rng.random() < 0.15 else player.reply(state, seat)

    def always(state: GameState, seat: int) -> bytes | Verdict:
        return verdict

    for seed, chooser in ((1, sometimes), (2, sometimes), (3, always)):
        state = _new(name, options, seats, seed)
        played = play_out(state, chooser, max_decisions=MAX_DECISIONS)
        assert all(v is verdict for _, v in played.penalties)
        assert played.penalties or chooser is sometimes
        _check_end(state, seats)


@pytest.mark.parametrize(("name", "options", "seats"), CASES)
def test_bad_replies_are_penalised(name: str, options: dict[str, Any], seats: int) -> None:
    """Replies that do not parse or are illegal, from one seat: judged and penalised as
    the match does (protocol, illegal), and the game goes on to its end."""
    rng = random.Random(11)
    player = RandomPlayer(12)
    bad = [b"", b"\x00\xff", b"garbage", b"-5", b"99999999999999999999999", b"raise 0", b"bid 0 2"]

    def chooser(state: GameState, seat: int) -> bytes:
        return rng.choice(bad) if seat == 0 and rng.random() < 0.3 else player.reply(state, seat)

    state = _new(name, options, seats, 13)
    played = play_out(state, chooser, max_decisions=MAX_DECISIONS)
    assert {v for _, v in played.penalties} <= {Verdict.PROTOCOL, Verdict.ILLEGAL}
    assert all(seat == 0 for seat, _ in played.penalties)
    _check_end(state, seats)


@pytest.mark.parametrize(("name", "options", "seats"), CASES)
def test_take_is_decode_illegal_and_apply(name: str, options: dict[str, Any], seats: int) -> None:
    """``take`` (a match's one call a turn, which a game may fuse: Yahtzee) says and does
    exactly what decode, illegal and apply say and do: two states of one seed, one played
    by ``take``, the other by the three, fed the same replies — legal, odd and bad — give
    the same verdicts and the same lines, to the same end."""
    rng = random.Random(31)
    player = RandomPlayer(32)
    bad = [b"", b"\x00\xff", b"garbage", b"-5", b"99999999999999999999999", *ODD_REPLIES]
    for seed in range(2):
        taken, judged = _new(name, options, seats, seed), _new(name, options, seats, seed)
        for _ in range(MAX_DECISIONS):
            assert taken.drain_events() == judged.drain_events()
            assert taken.is_terminal() == judged.is_terminal()
            if taken.is_terminal():
                break
            actors = tuple(taken.to_act())
            assert actors == tuple(judged.to_act())
            if len(actors) > 1:  # a joint step: not a take; played alike on both
                actions = {s: taken.decode(s, player.reply(taken, s)[:-1]) for s in actors}
                taken.apply_joint(dict(actions), {})
                judged.apply_joint(dict(actions), {})
                continue
            seat = actors[0]
            assert taken.request(seat) == judged.request(seat)
            reply = rng.choice(bad) if rng.random() < 0.2 else player.reply(taken, seat)[:-1]
            outcome = taken.take(seat, reply)
            try:
                action = judged.decode(seat, reply)
            except ProtocolError as exc:
                expected: tuple[Verdict, str] | None = (Verdict.PROTOCOL, str(exc))
            else:
                reason = judged.illegal(seat, action)
                expected = None if reason is None else (Verdict.ILLEGAL, reason)
                if reason is None:
                    judged.apply(seat, action)
            assert outcome == expected, (reply, outcome, expected)
            if outcome is not None:
                taken.penalize(seat, outcome[0])
                judged.penalize(seat, outcome[0])
        assert taken.is_terminal() and judged.is_terminal()
        assert (taken.scores(), taken.ranks(), taken.summary()) == (
            judged.scores(),
            judged.ranks(),
            judged.summary(),
        )


@pytest.mark.parametrize("name", sorted(games.available()))
def test_check_positions_keep_the_contract(name: str) -> None:
    """``referee check``'s hand-built positions (a seat penalised in advance, a seat
    out, a showdown) enumerate and play out like any game."""
    for number, position in enumerate(games.get(name)().check_positions()):
        checker = Checker(number)
        play_out(position.state, checker, max_decisions=MAX_DECISIONS)
        _check_end(position.state, position.seats)


def test_simultaneous_games_are_stepped_jointly() -> None:
    """At least one game has simultaneous moves, and its steps were checked as such."""
    joint = 0
    for case in CASES:
        name, options, seats = case.values
        checker = Checker(0)
        play_out(_new(name, options, seats, 0), checker, max_decisions=MAX_DECISIONS)
        joint += checker.joint
        if joint:
            break  # one such game is the proof: the others need not be played again here
    assert joint > 0


def test_decisions_are_bounded() -> None:
    """Random play, 20 games of each case: the longest game stays far below the bound."""
    for case in CASES:
        name, options, seats = case.values
        longest = max(
            play_out(
                _new(name, options, seats, seed), RandomPlayer(seed), max_decisions=MAX_DECISIONS
            ).decisions
            for seed in range(20)
        )
        assert 1 <= longest < MAX_DECISIONS // 4, (case.id, longest)
