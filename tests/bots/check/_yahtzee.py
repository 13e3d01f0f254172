"""What the Yahtzee test bots of ``referee check`` share: a plain legal policy.

Reroll all five dice on the first and second roll, then place in the first box the rules
allow.  Simple, legal, and it meets every kind of position the check names (rolls 1, 2
and 3).  Each bot in this directory breaks one rule on top of it.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))  # the project root

from protocol import yahtzee as wire


def choose(line: bytes) -> int:
    pos = wire.parse_position(line)
    if pos.roll < 3:
        return wire.hold(0)
    return next(a for a in wire.legal_actions(pos.own, pos.dice, pos.roll) if a % 2 == 0)


def answer(line: bytes) -> bytes:
    return wire.encode_action(choose(line))
