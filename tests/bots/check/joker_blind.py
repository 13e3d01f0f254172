#!/usr/bin/env python3
"""A Yahtzee bot that ignores the forced joker rule: with five of a kind and its Yahtzee
box filled, it places the dice in its first open box, wherever the rule says they go."""

import sys

from _yahtzee import answer, wire

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    pos = wire.parse_position(line)
    if pos.roll == 3 and wire.is_joker(pos.own, pos.dice):
        out.write(wire.encode_action(wire.place(pos.own.index(wire.OPEN))))  # the bug
    else:
        out.write(answer(line))
    out.flush()
