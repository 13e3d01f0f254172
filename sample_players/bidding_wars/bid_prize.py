#!/usr/bin/env python3
"""Bidding Wars sample bot: bids the card equal to the prize.

Both decks hold 1..n and every prize comes up once, so the card equal to the prize has
never been bid before: it is always in the hand.

Usage: bid_prize.py [SEED]   (the seed is accepted and unused: the bot is deterministic)
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

from protocol import bidding_wars as wire


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.startswith(b"bid "):
            continue  # reveal and end lines need no answer
        request = wire.parse_request(line)
        out.write(wire.encode_bid(request.prize))
        out.flush()


if __name__ == "__main__":
    main()
