#!/usr/bin/env python3
"""Dice poker sample bot: folds every decision (loses 1 as first player, 2 as second if raised).

Usage: always_fold.py   (deterministic)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from protocol import dice_poker as wire


def main() -> None:
    out = sys.stdout.buffer
    fold_line = wire.encode_reply(wire.FOLD)
    for line in sys.stdin.buffer:
        wire.parse_message(line)  # a malformed line stops the bot loudly
        out.write(fold_line)  # a fold, or the answer every information line needs
        out.flush()


if __name__ == "__main__":
    main()
