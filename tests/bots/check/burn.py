#!/usr/bin/env python3
"""A Yahtzee bot that burns CPU_MS milliseconds of CPU (process time, not wall time) over
every request after its first: ``burn.py CPU_MS``."""

import sys
import time

from _yahtzee import answer

burn_s = float(sys.argv[1]) / 1000
for count, line in enumerate(sys.stdin.buffer, 1):
    if count > 1:
        end = time.process_time() + burn_s
        while time.process_time() < end:
            pass
    sys.stdout.buffer.write(answer(line))
    sys.stdout.buffer.flush()
