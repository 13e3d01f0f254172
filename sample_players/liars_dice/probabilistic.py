#!/usr/bin/env python3
"""Liar's Dice sample bot: plays the odds of the dice it cannot see.

Each unseen die counts for a bid on a face 2..6 with probability 1/3 (the face itself or
a wild one), independently, so the number of matching unseen dice is binomial
B(unseen, 1/3).  The chance a bid of ``q`` on ``face`` holds is therefore

    P(holds) = P(B(unseen, 1/3) >= q - (own dice matching face)).

The bot compares two chances: a challenge wins when the current bid fails, a raise
survives (if challenged) when it holds.  It challenges when the current bid is more
likely to fail than its best raise is to hold; otherwise it makes the raise most
likely to hold, and among equally likely raises the highest one (a bid its own dice
already prove is as safe as the lowest and puts more pressure on the next seat).
It ignores who made the earlier bids and the information lines.

Usage: probabilistic.py [SEED]   (the strategy is deterministic; SEED is accepted and unused)
"""

import importlib.util
import math
import os
import pathlib
import sys

# The referee's protocol package: installed with the referee (any interpreter that has
# it), else from the checkout this file is in, however deep (docs/writing-a-bot.md).
if importlib.util.find_spec("protocol") is None:
    for _up in pathlib.Path(__file__).resolve().parents:
        if (_up / "protocol" / "__init__.py").is_file():
            sys.path.insert(0, str(_up))
            break
    else:  # a copy elsewhere, run by the referee: the package it names (REFEREE_PROTOCOL)
        _given = os.environ.get("REFEREE_PROTOCOL")
        if _given:
            sys.path.append(os.path.dirname(_given))

from protocol import liars_dice as wire

MAX_DICE = 6 * wire.DICE_PER_SEAT


def _tails() -> list[list[float]]:
    """``TAIL[n][k]`` = P(B(n, 1/3) >= k) for k in 0..n+1 (and 0 beyond)."""
    tails = []
    for n in range(MAX_DICE + 1):
        pmf = [math.comb(n, k) * (1 / 3) ** k * (2 / 3) ** (n - k) for k in range(n + 1)]
        tail = [0.0] * (MAX_DICE + 2)
        acc = 0.0
        for k in range(n, -1, -1):
            acc += pmf[k]
            tail[k] = min(acc, 1.0)
        tail[0] = 1.0
        tails.append(tail)
    return tails


TAIL = _tails()


def holds(bid: wire.Bid, dice: tuple[int, ...], unseen: int) -> float:
    """The chance that ``bid`` holds given our dice and ``unseen`` dice we cannot see."""
    need = bid.quantity - wire.matching(dice, bid.face)
    if need <= 0:
        return 1.0
    return TAIL[unseen][need] if need <= unseen else 0.0


def decide(turn: wire.Turn) -> wire.Bid | wire.Challenge:
    unseen = turn.dice_in_play - len(turn.dice)
    current = turn.current
    best, best_p = None, -1.0
    for bid in wire.legal_bids(turn.dice_in_play, current):  # ascending: ">=" keeps the highest
        p = holds(bid, turn.dice, unseen)
        if p >= best_p:
            best, best_p = bid, p
    if current is not None and (best is None or 1.0 - holds(current, turn.dice, unseen) > best_p):
        return wire.CHALLENGE
    assert best is not None
    return best


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.startswith(b"turn "):
            continue  # players / reveal / penalty / result: no answer expected
        out.write(wire.encode_action(decide(wire.parse_request(line))))
        out.flush()


if __name__ == "__main__":
    main()
