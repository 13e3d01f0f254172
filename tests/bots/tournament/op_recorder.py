#!/usr/bin/env python3
"""Dice poker test bot that records what it is told (tests/test_tournament.py).

It writes ``init <pid>`` to stderr once, when it starts (the seed's ``Init``), and
``op <op> state <state>`` for every line it reads; it answers every line: 1 to a
request (state 0 or 1: raise, call), 0 to an information line (state 2..5).

Usage: op_recorder.py [LABEL]   (the label only makes the command, and the bot's name, distinct)
"""

import os
import sys


def main() -> None:
    err = sys.stderr
    err.write(f"init {os.getpid()}\n")
    err.flush()
    out = sys.stdout
    for line in sys.stdin:
        fields = line.split()
        op, state = fields[0], int(fields[2])
        err.write(f"op {op} state {state}\n")
        err.flush()
        out.write("1\n" if state in (0, 1) else "0\n")
        out.flush()


if __name__ == "__main__":
    main()
