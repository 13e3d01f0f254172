#!/usr/bin/env python3
"""A Yahtzee bot that prints a debugging line on stdout with each answer (instead of
writing it to stderr)."""

import sys

from _yahtzee import answer

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"thinking about " + line.split(b" ")[-1])  # the bug: debugging output on stdout
    out.write(answer(line))
    out.flush()
