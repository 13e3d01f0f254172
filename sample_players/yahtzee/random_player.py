#!/usr/bin/env python3
"""Yahtzee sample bot: one uniformly random legal action per position.

Usage: random_player.py [SEED]   (default seed 0, so runs are reproducible)
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
