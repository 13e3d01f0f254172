#!/usr/bin/env python3
"""A bot that answers "0" to the first N lines, then misbehaves as MODE says.

Usage: misbehave.py MODE [N]. Used by tests/test_process.py; each mode is one failure
the referee must turn into a verdict within a bounded time, leaving no process behind.
"""

import os
import signal
import sys
import time

mode = sys.argv[1]
good = int(sys.argv[2]) if len(sys.argv) > 2 else 0
out = sys.stdout.buffer


def answer() -> None:
    out.write(b"0\n")
    out.flush()


if mode == "noread":
    time.sleep(3600)
if mode == "exit-at-once":
    sys.exit(0)
for _ in range(good):
    if not sys.stdin.buffer.readline():
        sys.exit(0)
    answer()
line = sys.stdin.buffer.readline()
if mode == "sleep":
    time.sleep(3600)
elif mode == "stop":
    os.kill(os.getpid(), signal.SIGSTOP)
elif mode == "exit1":
    sys.exit(1)
elif mode == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "garbage":
    out.write(b"\xff\xfe not a number\n")
    out.flush()
    time.sleep(3600)
elif mode == "two-lines":
    out.write(b"0\n0\n")
    out.flush()
    time.sleep(3600)
elif mode == "long-line":
    out.write(b"7" * (10 << 20))
    out.flush()
    time.sleep(3600)
elif mode == "slow":  # answers every request, each after 0.6 s
    while line:
        time.sleep(0.6)
        answer()
        line = sys.stdin.buffer.readline()
elif mode == "memory":
    hog = bytearray(400 << 20)
    for i in range(0, len(hog), 4096):
        hog[i] = 1
    time.sleep(3600)
elif mode == "memory-child":
    if os.fork() == 0:
        hog = bytearray(400 << 20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        time.sleep(3600)
    time.sleep(3600)
elif mode == "cpu":
    while True:
        pass
elif mode == "fork-holds-stdout":
    if os.fork() == 0:
        time.sleep(3600)  # keeps the inherited stdout open
    os._exit(0)
elif mode == "daemon":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)  # escaped the process group, holds stdout
        os._exit(0)
    time.sleep(3600)
elif mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    answer()
    while sys.stdin.buffer.readline():
        answer()
    time.sleep(3600)  # even after EOF, stays
else:
    sys.exit(f"unknown mode {mode}")
