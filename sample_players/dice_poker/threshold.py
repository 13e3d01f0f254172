#!/usr/bin/env python3
"""Dice poker sample bot: raises (first player) or calls (second) when its die >= a threshold.

Usage: threshold.py [THRESHOLD]   (default 4: raise/call with 4, 5, 6; deterministic)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

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
