#!/usr/bin/env python3
"""Dice poker sample bot: folds every decision (loses 1 as first player, 2 as second if raised).

Usage: always_fold.py   (deterministic)
"""

import importlib.util
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
