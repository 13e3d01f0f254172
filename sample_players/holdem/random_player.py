#!/usr/bin/env python3
"""Hold'em sample bot: a random legal action each time (a fuzzer for the referee).

It folds, checks or calls, min-raises, goes all-in or raises a random amount, always
within the bounds the request gives.  At a bot showdown it shows five random cards of
its seven.  Deterministic given the optional seed argument (default 1).
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

from protocol import holdem as wire


def decide(request: wire.Request, rng: random.Random) -> int:
    k = rng.random()
    if "raise" in request.legal and k < 0.3:
        return rng.choice(
            (request.min_raise, request.max_raise, rng.randint(request.min_raise, request.max_raise))
        )
    if k < 0.45:
        return wire.FOLD
    return wire.CALL if "call" in request.legal else wire.CHECK


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if line.startswith(b"act "):
            out.write(wire.encode_action(decide(wire.parse_request(line), rng)))
        elif line.startswith(b"show "):
            show = wire.parse_show_request(line)
            out.write(wire.encode_show(rng.sample(show.hole + show.board, 5)))
        else:
            continue
        out.flush()


if __name__ == "__main__":
    main()
