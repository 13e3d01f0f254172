#!/usr/bin/env python3
"""Bidding Wars sample bot: bids a uniformly random card from its hand.

Usage: random.py [SEED]   (default seed 0, so runs are reproducible)

Answers every ``bid`` line with one card and ignores the ``reveal`` and ``end`` lines.
"""

import importlib.util
import os
import pathlib
import sys

# This file is called random.py, and Python puts its directory first on the import path:
# `import random` would import this very file.  Drop that entry; then find the referee's
# protocol package: installed with the referee, else from the checkout this file is in,
# however deep (docs/writing-a-bot.md).
del sys.path[0]
if importlib.util.find_spec("protocol") is None:
    for _up in pathlib.Path(__file__).resolve().parents:
        if (_up / "protocol" / "__init__.py").is_file():
            sys.path.insert(0, str(_up))
            break
    else:  # a copy elsewhere, run by the referee: the package it names (REFEREE_PROTOCOL)
        _given = os.environ.get("REFEREE_PROTOCOL")
        if _given:
            sys.path.append(os.path.dirname(_given))

import random  # noqa: E402

from protocol import bidding_wars as wire  # noqa: E402


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.startswith(b"bid "):
            continue  # reveal and end lines need no answer
        request = wire.parse_request(line)
        out.write(wire.encode_bid(rng.choice(request.hand)))
        out.flush()


if __name__ == "__main__":
    main()
