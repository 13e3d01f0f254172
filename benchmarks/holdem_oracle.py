#!/usr/bin/env python3
"""Random hands played through our Hold'em rules and pokerkit side by side.

Each hand has 2-9 players with random stacks (many short, so blinds are shortened and
short all-ins happen), a random blind level and a random dealer.  At every decision both
engines must agree on the player to act, the amount to call, the minimum and maximum
raise-to (or that raising is not allowed), whether a few probing raise amounts are
legal, the stacks, the bets and the pots; at the end, on the final stacks.  The random
player folds, checks, calls, min-raises, goes all-in or raises a random amount.

With ``quirks=True`` the hand is heads-up with the seed's quirks on; pokerkit is given
the blinds reversed (so the player left of the dealer posts the small blind and acts
first in every round, as the seed says) and pots are compared by their total, since the
seed's per-round pots are not pokerkit's.

Run ``python benchmarks/holdem_oracle.py [HANDS]`` for a long run (default 100000); the
test suite runs a few thousand through :func:`play_hand`.  ``python benchmarks/holdem_oracle.py
speed`` measures the rules' cost per decision and the evaluator's speed instead.
"""

from __future__ import annotations

import random
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pokerkit import Automation, Mode, NoLimitTexasHoldem

from protocol import holdem as wire
from referee.games.holdem import BETTING, HoldemState

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
SMALL_BLINDS = (1, 2, 5, 10, 20, 50, 100)


def pk_cards(cards: tuple[int, ...] | list[int]) -> str:
    """Our card ids in pokerkit's notation (``As``)."""
    return "".join(wire.CARD_NAMES[c][0] + wire.CARD_NAMES[c][1].lower() for c in cards)


def random_stack(rng: random.Random, bb: int) -> int:
    kind = rng.random()
    if kind < 0.3:
        return rng.randint(1, 4 * bb)
    if kind < 0.7:
        return rng.randint(4 * bb, 40 * bb)
    return rng.randint(40 * bb, 400 * bb)


class Mismatch(AssertionError):
    pass


def _check(what: str, ours: object, theirs: object, log: list[str]) -> None:
    if ours != theirs:
        raise Mismatch(f"{what}: ours {ours!r}, pokerkit {theirs!r}\n  " + "\n  ".join(log))


def play_hand(
    seed: int,
    quirks: bool = False,
    *,
    stacks: list[int] | None = None,
    sb: int | None = None,
    dealer: int | None = None,
    script: list[str] | None = None,
) -> int:
    """Play one hand through both engines; return the number of decisions compared.

    Random unless given: ``stacks`` by seat, the small blind, the dealer's seat, and a
    ``script`` of replies (``fold``, ``check``, ``call``, ``raise X``) played in turn.
    """
    rng = random.Random(seed)
    n = 2 if quirks else rng.randint(2, 9)
    if stacks is not None:
        n = len(stacks)
    sb = sb or rng.choice(SMALL_BLINDS)
    bb = 2 * sb
    if stacks is None:
        if rng.random() < 0.3:
            # Close stacks: successive all-ins then raise by little (short all-ins).
            base = rng.randint(2 * bb, 40 * bb)
            stacks = [base + rng.randint(0, base // 2) for _ in range(n)]
        else:
            stacks = [random_stack(rng, bb) for _ in range(n)]
    # A third of the hands are played by shovers: raises are mostly all-in.
    shove = rng.random() < 0.3
    ours = HoldemState(
        n,
        random.Random(seed ^ 0x5EED),
        seed_quirks=quirks,
        chips=stacks,
        small_blinds=(sb,),
        hands_per_level=1,
        first_dealer=rng.randrange(n) if dealer is None else dealer,
    )
    order = list(ours.order)  # pokerkit's index i is our seat order[i]
    index = {seat: i for i, seat in enumerate(order)}
    blinds = (bb, sb) if quirks else (sb, bb)
    theirs = NoLimitTexasHoldem.create_state(
        AUTOMATIONS, True, 0, blinds, bb, [stacks[s] for s in order], n, mode=Mode.TOURNAMENT
    )
    for seat in order:
        theirs.deal_hole(pk_cards(ours.hole[seat]))
    board = ours.board
    dealt = 0
    log: list[str] = [
        f"seed {seed} n {n} blinds {sb}/{bb} stacks {stacks} dealer {ours.dealer} order {order}"
    ]

    def deal_board() -> None:
        nonlocal dealt
        while theirs.can_deal_board():
            count = 3 if dealt == 0 else 1
            theirs.deal_board(pk_cards(board[dealt : dealt + count]))
            dealt += count

    decisions = 0
    while not ours.is_terminal():
        deal_board()
        assert ours.phase == BETTING
        (seat,) = ours.to_act()
        _check("actor", index[seat], theirs.actor_index, log)
        _check("to call", ours.to_call, theirs.checking_or_calling_amount, log)
        _check("stacks", [ours.chips[s] for s in order], list(theirs.stacks), log)
        _check("bets", [ours.bet[s] for s in order], list(theirs.bets), log)
        pots = [(amount, tuple(sorted(index[s] for s in elig))) for amount, elig in ours.pots()]
        their_pots = [(p.amount, tuple(p.player_indices)) for p in theirs.pots]
        if quirks:
            _check("pot total", sum(a for a, _ in pots), sum(a for a, _ in their_pots), log)
        else:
            _check("pots", pots, their_pots, log)
        max_bet = ours.max_bet
        if ours.raise_reason is None:
            _check(
                "min raise-to", max_bet + ours.min_x, theirs.min_completion_betting_or_raising_to_amount, log
            )
            _check(
                "max raise-to", max_bet + ours.max_x, theirs.max_completion_betting_or_raising_to_amount, log
            )
            probes = {ours.min_x - 1, ours.min_x, ours.max_x, ours.max_x + 1, rng.randint(0, ours.max_x + 2)}
            for x in probes:
                if x >= 0:
                    legal = ours.illegal(seat, x) is None
                    _check(f"raise {x} legal", legal, theirs.can_complete_bet_or_raise_to(max_bet + x), log)
        else:
            _check("raise possible", False, theirs.can_complete_bet_or_raise_to(), log)
        # A random legal action, or the script's.
        k = rng.random()
        if script is not None:
            action = wire.decode_action(script[decisions])
        elif ours.to_call and k < 0.15:
            action = wire.FOLD
        elif ours.raise_reason is None and k < 0.5:
            if shove and k < 0.4:
                action = ours.max_x
            else:
                action = rng.choice((ours.min_x, ours.max_x, rng.randint(ours.min_x, ours.max_x)))
        elif ours.to_call or ours.free_call:
            action = wire.CALL
        else:
            action = wire.CHECK
        reason = ours.illegal(seat, action)
        assert reason is None, reason
        log.append(f"seat {seat} (p{index[seat]}) {wire.encode_action(action).decode().strip()}")
        ours.apply(seat, action)
        if action == wire.FOLD:
            theirs.fold()
        elif action in (wire.CHECK, wire.CALL):
            theirs.check_or_call()
        else:
            theirs.complete_bet_or_raise_to(max_bet + action)
        decisions += 1
    deal_board()
    _check("hand over", False, bool(theirs.status), log)
    _check("final stacks", [ours.chips[s] for s in order], list(theirs.stacks), log)
    return decisions


def run(hands: int, first_seed: int = 0, quirks_every: int = 10) -> tuple[int, int]:
    """Play ``hands`` hands (every ``quirks_every``-th heads-up with the quirks on)."""
    decisions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(first_seed, first_seed + hands):
            decisions += play_hand(seed, quirks=seed % quirks_every == 0)
    return hands, decisions


def rules_speed(games: int = 300, seats: int = 9) -> tuple[int, float]:
    """Microseconds per decision of the referee's calls (request, decode, illegal, apply, events).

    The replies are recorded in a first pass (a random policy over legal actions) and
    replayed in the timed pass, so only the rules' own work is measured.
    """
    scripts = []
    for seed in range(games):
        rng = random.Random(seed)
        state = HoldemState(seats, random.Random(seed))
        replies = []
        while not state.is_terminal():
            (seat,) = state.to_act()
            k = rng.random()
            if state.raise_reason is None and k < 0.2:
                action = rng.choice((state.min_x, state.min_x, state.max_x))
            elif state.to_call and k < 0.45:
                action = wire.FOLD
            else:
                action = wire.CALL if state.to_call or state.free_call else wire.CHECK
            replies.append(wire.encode_action(action).rstrip(b"\n"))
            state.apply(seat, action)
        scripts.append(replies)
    decisions = sum(map(len, scripts))
    started = time.perf_counter()
    for seed, replies in enumerate(scripts):
        state = HoldemState(seats, random.Random(seed))
        for reply in replies:
            state.drain_events()
            (seat,) = state.to_act()
            state.request(seat)
            action = state.decode(seat, reply)
            if state.illegal(seat, action) is None:
                state.apply(seat, action)
        state.drain_events()
        state.scores(), state.ranks(), state.summary()
    elapsed = time.perf_counter() - started
    return decisions, elapsed / decisions * 1e6


def evaluator_speed(hands: int = 200_000) -> float:
    """7-card hands per second of the evaluator the rules use (phevaluator)."""
    from phevaluator import evaluate_7cards

    rng = random.Random(1)
    deals = [rng.sample(range(52), 7) for _ in range(hands)]
    started = time.perf_counter()
    for cards in deals:
        evaluate_7cards(*cards)
    return hands / (time.perf_counter() - started)


def main() -> None:
    if sys.argv[1:2] == ["speed"]:
        decisions, us = rules_speed()
        print(f"rules: {decisions} decisions of 9-seat games, {us:.1f} µs per decision")
        print(f"evaluator: {evaluator_speed() / 1e6:.2f} M 7-card hands/s")
        return
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    started = time.perf_counter()
    played, decisions = run(hands)
    elapsed = time.perf_counter() - started
    print(f"{played} hands, {decisions} decisions compared with pokerkit, all equal, in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
