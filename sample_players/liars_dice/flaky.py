#!/usr/bin/env python3
"""Liar's Dice sample bot that misbehaves on purpose, to show the penalties.

It plays like a cautious random player (the lowest legal bid, or a challenge with
probability 0.3), but:

* ``--slow-every N``: every N-th request it sleeps 65 ms before answering, over the
  seed's 50 ms limit (a timeout: it loses a die and plays on);
* ``--crash-at N``: its process exits at its N-th request (a crash: it loses a die, and
  the referee restarts it at its next turn, where it counts from 1 again);
* ``--announce``: it writes ``life PID`` to stderr as it starts, so each life of it
  leaves its stderr behind (a tournament keeps it per life: ``NAME.stderr``,
  ``NAME.2.stderr``…).

Usage: flaky.py [--slow-every N] [--crash-at N] [--announce] [SEED]   (default seed 0)
"""

import argparse
import importlib.util
import os
import pathlib
import random
import sys
import time

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

from protocol import liars_dice as wire

SLOW_S = 0.065


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow-every", type=int, default=0)
    parser.add_argument("--crash-at", type=int, default=0)
    parser.add_argument("--announce", action="store_true")
    parser.add_argument("seed", type=int, nargs="?", default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.announce:
        print(f"life {os.getpid()}", file=sys.stderr, flush=True)
    out = sys.stdout.buffer
    asked = 0
    for line in sys.stdin.buffer:
        if not line.startswith(b"turn "):
            continue  # players / reveal / penalty / result: no answer expected
        asked += 1
        if args.crash_at and asked == args.crash_at:
            sys.exit(3)
        if args.slow_every and asked % args.slow_every == 0:
            time.sleep(SLOW_S)
        turn = wire.parse_request(line)
        bids = wire.legal_bids(turn.dice_in_play, turn.current)
        challenge = turn.current is not None and (not bids or rng.random() < 0.3)
        out.write(wire.encode_action(wire.CHALLENGE if challenge else bids[0]))
        out.flush()


if __name__ == "__main__":
    main()
