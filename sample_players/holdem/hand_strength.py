#!/usr/bin/env python3
"""Hold'em sample bot: bets by a rough estimate of its hand's strength.

Strength is a number in [0, 1]:

* preflop, the Chen formula for the two hole cards (pairs, high cards, suited,
  connected), scaled to [0, 1];
* later, the category of its best five (see ``protocol.holdem.hand_value``), lowered
  when the board alone makes that hand, raised for a flush or open-ended straight draw.

It is shaded down for each extra opponent, then: very strong hands raise the pot (or go
all-in), good ones raise half the pot, and the rest call when the strength beats the pot
odds, check when free, fold otherwise.  Now and then it bets half the pot on nothing.
Deterministic given the optional seed argument (default 1).
"""

import importlib.util
import os
import pathlib
import random
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

from protocol import holdem as wire

# Chen formula points of a card's rank (2 .. A).
CHEN_HIGH = (1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 10)
# Strength of each category when the hole cards make it (high card .. straight flush).
CATEGORY_STRENGTH = (0.1, 0.45, 0.7, 0.8, 0.85, 0.88, 0.95, 0.99, 1.0)


def preflop_strength(hole: tuple[int, ...]) -> float:
    high, low = sorted((c >> 2 for c in hole), reverse=True)
    score = CHEN_HIGH[high]
    if high == low:
        score = max(5.0, 2 * score)
    else:
        gap = high - low - 1
        score -= (0, 1, 2, 4, 5)[min(gap, 4)]
        if gap <= 1 and high < 10:  # connectors below the queen
            score += 1
    if hole[0] & 3 == hole[1] & 3:
        score += 2
    return max(0.0, min(1.0, score / 20))


def draw_bonus(cards: tuple[int, ...]) -> float:
    """Extra strength for four cards of a suit (+0.15) and four ranks in a row (+0.1)."""
    suits = [c & 3 for c in cards]
    bonus = 0.15 if max(suits.count(s) for s in range(4)) == 4 else 0.0
    ranks = {c >> 2 for c in cards}
    if 12 in ranks:
        ranks.add(-1)  # the ace also plays low (A-2-3-4)
    if any(all(r in ranks for r in range(low, low + 4)) for low in range(-1, 10)):
        bonus += 0.1
    return bonus


def strength(request: wire.Request) -> float:
    if not request.board:
        return preflop_strength(request.hole)
    cards = request.hole + request.board
    value = wire.hand_value(cards)
    s = CATEGORY_STRENGTH[value[0]]
    if value[0] == 1:  # one pair: is it at least the board's top card?
        s = 0.6 if value[1] >= max(c >> 2 for c in request.board) else 0.35
    if len(request.board) == 5 and wire.hand_value(request.board) >= value:
        return 0.1  # the board plays: everyone has this hand
    if value[0] <= 1 and len(request.board) < 5:
        s += draw_bonus(cards)
    return min(1.0, s)


def decide(request: wire.Request, rng: random.Random) -> int:
    opponents = sum(1 for seat, st in enumerate(request.status) if seat != request.seat and st not in "FX")
    s = strength(request) - 0.04 * max(0, opponents - 1)
    pot = request.pot_total
    to_call = request.to_call
    can_raise = "raise" in request.legal
    passive = wire.CALL if "call" in request.legal else wire.CHECK
    if can_raise and s >= 0.95:
        return request.max_raise
    if can_raise and s >= 0.8:
        return max(request.min_raise, min(request.max_raise, pot))
    if can_raise and s >= 0.6 and to_call <= pot // 2:
        return max(request.min_raise, min(request.max_raise, pot // 2))
    if to_call == 0:
        if can_raise and rng.random() < 0.05:
            return max(request.min_raise, min(request.max_raise, pot // 2))
        return passive
    if not request.board:
        return wire.CALL if s >= 0.4 or (to_call <= request.bb and s >= 0.25) else wire.FOLD
    return wire.CALL if s >= to_call / (pot + to_call) + 0.1 else wire.FOLD


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if line.startswith(b"act "):
            out.write(wire.encode_action(decide(wire.parse_request(line), rng)))
        elif line.startswith(b"show "):
            show = wire.parse_show_request(line)
            out.write(wire.encode_show(wire.best_five(show.hole + show.board)))
        else:
            continue
        out.flush()


if __name__ == "__main__":
    main()
