#!/usr/bin/env python3
"""Bidding Wars sample bot: bids the card equal to the prize.

Both decks hold 1..n and every prize comes up once, so the card equal to the prize has
never been bid before: it is always in the hand.

Usage: bid_prize.py [SEED]   (the seed is accepted and unused: the bot is deterministic)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

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
