#!/usr/bin/env python3
"""A Liar's Dice bot that answers every line, information lines (reveal, penalty, result)
included, which the protocol says must not be answered."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from protocol import liars_dice as wire

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if line.startswith(b"turn "):
        turn = wire.parse_request(line)
        action = wire.CHALLENGE if turn.current else wire.legal_bids(turn.dice_in_play, None)[0]
        out.write(wire.encode_action(action))
    else:
        out.write(b"challenge\n")  # the bug: nobody asked
    out.flush()
