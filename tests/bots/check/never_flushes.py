#!/usr/bin/env python3
"""A Yahtzee bot that never flushes its answers: they sit in its own stdout buffer (a
pipe is block-buffered), the referee sees nothing, and the first answer never comes."""

import sys

from _yahtzee import answer

for line in sys.stdin.buffer:
    sys.stdout.buffer.write(answer(line))  # no flush: the bug
