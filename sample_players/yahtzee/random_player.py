#!/usr/bin/env python3
"""Yahtzee sample bot: one uniformly random legal action per position.

Usage: random_player.py [SEED]   (default seed 0, so runs are reproducible)
"""

import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from protocol import yahtzee as wire


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        pos = wire.parse_position(line)
        out.write(wire.encode_action(rng.choice(wire.legal_actions(pos.own, pos.dice, pos.roll))))
        out.flush()


if __name__ == "__main__":
    main()
