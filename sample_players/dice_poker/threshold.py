#!/usr/bin/env python3
"""Dice poker sample bot: raises (first player) or calls (second) when its die >= a threshold.

Usage: threshold.py [THRESHOLD]   (default 4: raise/call with 4, 5, 6; deterministic)
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
    threshold = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    out = sys.stdout.buffer
    raise_line = wire.encode_reply(wire.RAISE)
    fold_line = wire.encode_reply(wire.FOLD)
    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        if message.is_request and message.d >= threshold:
            out.write(raise_line)
        else:
            out.write(fold_line)  # a fold, or the answer to an information line
        out.flush()


if __name__ == "__main__":
    main()
