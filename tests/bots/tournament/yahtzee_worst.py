#!/usr/bin/env python3
"""Yahtzee test bot that plays as badly as it legally can (tests/test_tournament.py).

It never rerolls and places the first roll in the open box where it scores least, so it
loses to the random sample player (the seed's qualifier) game after game.
Deterministic.

Usage: yahtzee_worst.py
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))  # the project root

from protocol import yahtzee as wire


def choose(pos: wire.Position) -> int:
    places = [a for a in wire.legal_actions(pos.own, pos.dice, pos.roll) if a % 2 == 0]
    return min(places, key=lambda a: (wire.score_box(pos.dice, a >> 1, pos.own), a))


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        out.write(wire.encode_action(choose(wire.parse_position(line))))
        out.flush()


if __name__ == "__main__":
    main()
