#!/usr/bin/env python3
"""An honest bot with a secret: writes SECRET to secret.txt in its working directory, then
answers "0" to every request.  The read-opponent probe tries to read that file.

Usage: victim.py SECRET
"""

import sys


def main() -> None:
    with open("secret.txt", "w") as fh:
        fh.write(sys.argv[1] + "\n")
    out = sys.stdout.buffer
    for _line in sys.stdin.buffer:
        out.write(b"0\n")
        out.flush()


if __name__ == "__main__":
    main()
