#!/usr/bin/env python3
"""Hold'em sample bot: always calls (checks when there is nothing to call).

It never folds or raises.  Where the seed makes the big blind "call 0" it calls, as
the ``legal`` field says.  At a bot showdown it shows its best five.  Deterministic.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from protocol import holdem as wire


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if line.startswith(b"act "):
            request = wire.parse_request(line)
            action = wire.CALL if "call" in request.legal else wire.CHECK
            out.write(wire.encode_action(action))
        elif line.startswith(b"show "):
            show = wire.parse_show_request(line)
            out.write(wire.encode_show(wire.best_five(show.hole + show.board)))
        else:
            continue  # result and gameover lines need no answer
        out.flush()


if __name__ == "__main__":
    main()
