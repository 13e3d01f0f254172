#!/usr/bin/env python3
"""Yahtzee sample bot: the seed's "very simple greedy player".

On rolls 1 and 2 it keeps the dice showing its most common face (the higher face on a
tie) and rerolls the rest, unless the dice are already five of a kind.  Then it places
the dice in the open box where they score the most right now, scoring *without* the
joker rule.  Since it ignores that rule it sometimes plays an illegal move (an extra
Yahtzee placed elsewhere than the rule forces), which forfeits the game.  Deterministic.
"""

import importlib.util
import os
import pathlib
import sys

# The referee's protocol package: installed with the referee (any interpreter that has
# it), else from the checkout this file is in, however deep (docs/writing-a-bot.md).
if importlib.util.find_spec("protocol") is None:
    for _up in pathlib.Path(__file__).resolve().parents:
        if (_up / "protocol" / "__init__.py").is_file():
            sys.path.insert(0, str(_up))
            break
    else:  # a copy elsewhere, run by the referee: the package it names (REFEREE_PROTOCOL)
        _given = os.environ.get("REFEREE_PROTOCOL")
        if _given:
            sys.path.append(os.path.dirname(_given))

from protocol import yahtzee as wire


def choose(pos: wire.Position) -> int:
    dice = pos.dice
    if pos.roll < 3:
        counts = [dice.count(face) for face in range(7)]
        best = max(range(1, 7), key=lambda face: (counts[face], face))
        if counts[best] < 5:
            mask = sum(1 << k for k, d in enumerate(dice) if d == best)
            return wire.hold(mask)
    open_rows = [row for row in range(wire.NUM_ROWS) if pos.own[row] == wire.OPEN]
    row = max(open_rows, key=lambda r: wire.combo_score(dice, r))  # first of the best
    return wire.place(row)


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        out.write(wire.encode_action(choose(wire.parse_position(line))))
        out.flush()


if __name__ == "__main__":
    main()
