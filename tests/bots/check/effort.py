#!/usr/bin/env python3
"""A Yahtzee bot for the points order of issue 28: ``effort.py clean``, ``effort.py hang N``
(no answer from its Nth request on: it sleeps) or ``effort.py crash-every N`` (every
process raises at its Nth request; restarted, it plays on)."""

import sys
import time

from _yahtzee import answer

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
for count, line in enumerate(sys.stdin.buffer, 1):
    if mode == "hang" and count >= n:
        time.sleep(3600)
    if mode == "crash-every" and count == n:
        raise RuntimeError(f"effort.py crashes at request {n}")
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
