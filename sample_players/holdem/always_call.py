#!/usr/bin/env python3
"""Hold'em sample bot: always calls (checks when there is nothing to call).

It never folds or raises.  Where the seed makes the big blind "call 0" it calls, as
the ``legal`` field says.  At a bot showdown it shows its best five.  Deterministic.
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
