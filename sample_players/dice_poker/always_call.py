#!/usr/bin/env python3
"""Dice poker sample bot: raises as the first player and calls as the second, always.

Usage: always_call.py   (deterministic; answers 0 to information lines)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

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
