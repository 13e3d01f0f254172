#!/usr/bin/env python3
"""Answers every line with "<uid> <oom_score_adj>": what the sandbox gave this bot."""

import os
import sys

for _ in sys.stdin:
    with open("/proc/self/oom_score_adj") as fh:
        oom = fh.read().strip()
    print(os.getuid(), oom, flush=True)
