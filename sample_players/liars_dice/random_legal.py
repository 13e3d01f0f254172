#!/usr/bin/env python3
"""Liar's Dice sample bot: a random legal decision.

When there is a bid to challenge it challenges with probability 1/4; otherwise it makes
a bid chosen uniformly among the (up to) six lowest legal bids, so that games are not
decided by a first bid of twenty sixes.  Information lines are read and ignored.

Usage: random_legal.py [SEED]   (default seed 0, so runs are reproducible)
"""

import importlib.util
import os
import pathlib
import random
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

CHALLENGE_PROBABILITY = 0.25
LOWEST_BIDS = 6


def decide(turn: wire.Turn, rng: random.Random) -> wire.Bid | wire.Challenge:
    current = turn.current
    bids = wire.legal_bids(turn.dice_in_play, current)
    if current is not None and (not bids or rng.random() < CHALLENGE_PROBABILITY):
        return wire.CHALLENGE
    return rng.choice(bids[:LOWEST_BIDS])


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.startswith(b"turn "):
            continue  # players / reveal / penalty / result: no answer expected
        out.write(wire.encode_action(decide(wire.parse_request(line), rng)))
        out.flush()


if __name__ == "__main__":
    main()
