#!/usr/bin/env python3
"""A Yahtzee bot that prints a farewell on stdout when its input ends."""

import sys

from _yahtzee import answer

for line in sys.stdin.buffer:
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
print("bye")  # the bug: nobody asked
