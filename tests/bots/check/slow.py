#!/usr/bin/env python3
"""A Yahtzee bot that takes 1 s over its third request (the check's tests set a 0.5 s
limit), then answers promptly again."""

import sys
import time

from _yahtzee import answer

for count, line in enumerate(sys.stdin.buffer, 1):
    if count == 3:
        time.sleep(1.0)
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
