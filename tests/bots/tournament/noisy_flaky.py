#!/usr/bin/env python3
"""Liar's Dice test bot that crashes on purpose and says on stderr when it starts, so
that every life of its process leaves a stderr file (tests/test_tournament.py).

It plays as sample_players/liars_dice/flaky.py does (the lowest legal bid, or a
challenge with probability 0.3) and, like ``flaky.py --crash-at N``, its process exits
at its N-th request; restarted, it counts from 1 again.  (A copy rather than a wrapper:
the sandbox lets a bot read its own directory, not the sample players'.)

Usage: noisy_flaky.py --crash-at N [SEED]   (default seed 0)
"""

import argparse
import os
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))  # the project root

from protocol import liars_dice as wire


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crash-at", type=int, default=0)
    parser.add_argument("seed", type=int, nargs="?", default=0)
    args = parser.parse_args()
    sys.stderr.write(f"life {os.getpid()}\n")
    sys.stderr.flush()
    rng = random.Random(args.seed)
    out = sys.stdout.buffer
    asked = 0
    for line in sys.stdin.buffer:
        if not line.startswith(b"turn "):
            continue  # players / reveal / penalty / result: no answer expected
        asked += 1
        if args.crash_at and asked == args.crash_at:
            sys.exit(3)
        turn = wire.parse_request(line)
        bids = wire.legal_bids(turn.dice_in_play, turn.current)
        challenge = turn.current is not None and (not bids or rng.random() < 0.3)
        out.write(wire.encode_action(wire.CHALLENGE if challenge else bids[0]))
        out.flush()


if __name__ == "__main__":
    main()
