#!/usr/bin/env python3
"""Answers request number i with bad reply number i: garbage bytes, invalid UTF-8, huge numbers.

Usage: replies.py [--list]   (--list prints how many bad replies there are)

Every reply is one line; what is wrong is its content, which the game's decoder must turn
into a protocol or illegal verdict without the referee raising anything.  Ordered so that
in a Yahtzee match where each bad reply forfeits one game, game i meets reply i.
"""

import sys

BAD_REPLIES = [
    b"",  # empty
    b" \t \r",  # whitespace only
    b"\xff\xfe\xfd\xfc",  # invalid UTF-8
    b"\xc3\x28 \xa0\xa1 \xe2\x82",  # truncated and broken UTF-8 sequences
    "\u0663".encode(),  # ARABIC-INDIC DIGIT THREE: a digit to str.isdigit(), not ASCII
    "\uff11\uff12".encode(),  # FULLWIDTH DIGITS ONE TWO: int() would accept them
    b"\x00\x01\x02\x1b[2J\x7f",  # control bytes, a terminal escape
    b"9" * 4000,  # a 4000-digit number (int() refuses strings past 4300 digits)
    b"-" + b"9" * 4000,
    b"99999999999999999999999999999999",  # over 64 bits
    b"-1",
    b"1e9",
    b"0x10",
    b"1_000",  # int() accepts underscores; the wire grammar does not
    b"+5",
    b"5 5",
    b"nan",
    b"\xef\xbb\xbf0",  # a UTF-8 byte-order mark before a valid action
    bytes(range(11, 256)),  # every byte but \n (and \0..\n)
    b"7" * 5000,  # over the referee's 4096-byte line limit: a protocol fault at the pipe
]


def main() -> None:
    if sys.argv[1:] == ["--list"]:
        print(len(BAD_REPLIES))
        return
    out = sys.stdout.buffer
    for count, _line in enumerate(sys.stdin.buffer):
        out.write(BAD_REPLIES[count % len(BAD_REPLIES)] + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
