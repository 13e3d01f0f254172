#!/usr/bin/env python3
"""Dice poker sample bot: folds or raises/calls uniformly at random, whatever its die.

Usage: random_player.py [SEED]   (default: a seed drawn from os.urandom, so every run differs)

Every decision (state 0 or 1) has exactly two legal replies, fold (0) and raise/call
(non-zero); each is chosen with probability 1/2, ignoring B, the die and the opponent.
Information lines (states 2..5) are answered 0, as the seed demands.  The baseline
every real strategy should beat (``referee grade``'s qualification opponent): it loses
clearly to threshold.py.
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

from protocol import dice_poker as wire


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else int.from_bytes(os.urandom(8), "big")
    rng = random.Random(seed)
    out = sys.stdout.buffer
    ignored = wire.encode_reply(0)
    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        # The legal replies to a request: fold, or raise (first player) / call (second).
        # Information lines get an answer too ("DO return a value even in this case").
        out.write(wire.encode_reply(rng.choice((wire.FOLD, wire.RAISE))) if message.is_request else ignored)
        out.flush()


if __name__ == "__main__":
    main()
