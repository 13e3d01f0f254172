#!/usr/bin/env python3
"""Dice poker sample bot: raises as the first player and calls as the second, always.

Usage: always_call.py   (deterministic; answers 0 to information lines)
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
    raise_line = wire.encode_reply(wire.RAISE)
    ignored = wire.encode_reply(0)
    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        # The seed: "DO return a value even in this case" (information lines too).
        out.write(raise_line if message.is_request else ignored)
        out.flush()


if __name__ == "__main__":
    main()
