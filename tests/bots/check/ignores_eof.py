#!/usr/bin/env python3
"""A Yahtzee bot that does not exit when its input ends: it waits for a line that never
comes (until the referee kills it)."""

import sys
import time

from _yahtzee import answer

while True:
    line = sys.stdin.buffer.readline()
    if not line:
        time.sleep(0.05)  # the bug: EOF is taken for "no line yet"
        continue
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
