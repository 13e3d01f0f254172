#!/usr/bin/env python3
"""A Yahtzee bot that crashes at its fifth request, with a message on stderr."""

import sys

from _yahtzee import answer

for count, line in enumerate(sys.stdin.buffer, 1):
    if count == 5:
        raise RuntimeError("crashes.py cannot handle request 5")
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
