#!/usr/bin/env python3
"""Dice poker sample bot: a Nash equilibrium of every B's game, computed at startup.

Usage: equilibrium.py [SEED]     play, mixing with random.Random(SEED) (default 0)
       equilibrium.py --table    print V(B) and both strategies for each B, then exit

Each B is its own small zero-sum game.  With die i, the first player raises with
probability p_i; with die j, the second calls with probability q_j.  The payoff to the
first player is −1 if it folds, +2 if it raises and the second folds, and B·sign(i−j)
on a call, so averaged over the 36 equally likely dice pairs::

    V(p, q) = −1 + ½ Σ_i p_i + (1/36) Σ_j q_j c_j(p),     c_j(p) = Σ_i a_ij p_i,
    a_ij = B·sign(i−j) − 2.

Against a fixed p the second player calls with die j exactly when c_j(p) < 0, so the
first player's maximin strategy solves the linear program

    maximise   ½ Σ_i p_i − (1/36) Σ_j s_j
    subject to −Σ_i a_ij p_i − s_j ≤ 0   (j = 1..6;  s_j plays max(0, −c_j(p)))
               p_i ≤ 1,   p, s ≥ 0,

and V(B) = −1 + its optimum.  Its dual is the second player's minimax problem: the
dual price of row j is q_j / 36.  An exact simplex over fractions (Bland's rule, so
the many degenerate pivots cannot cycle) solves it.  Then the result is checked by
best response: the first player's best reply to q and the second's best reply to p
must both earn exactly V(B), which makes (p, q) an equilibrium.
"""

import importlib.util
import os
import pathlib
import random
import sys
from fractions import Fraction

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

from protocol import dice_poker as wire

DICE = range(1, 7)
ZERO = Fraction(0)


def gains(b):
    """a[i-1][j-1]: what a call adds to the first player's raise payoff, with dice i and j."""
    return [[b * ((i > j) - (i < j)) - 2 for j in DICE] for i in DICE]


def simplex(c, rows, rhs):
    """Maximise c·x subject to rows·x <= rhs, x >= 0, where rhs >= 0 (the origin is feasible).

    Returns (optimum, x, y) with y the dual prices of the rows, all as Fractions.
    """
    m, n = len(rows), len(c)
    # Tableau rows: the constraint coefficients, one slack per row, the right-hand side.
    tab = [
        [Fraction(v) for v in row] + [Fraction(int(k == r)) for k in range(m)] + [Fraction(rhs[r])]
        for r, row in enumerate(rows)
    ]
    objective = [-Fraction(v) for v in c] + [ZERO] * (m + 1)
    basis = [n + r for r in range(m)]
    while True:
        # Bland's rule: the lowest-numbered improving column enters...
        enter = next((k for k in range(n + m) if objective[k] < 0), None)
        if enter is None:
            break
        # ...and, among the rows with the smallest ratio, the lowest-numbered basic one leaves.
        leave, best = None, None
        for r in range(m):
            if tab[r][enter] > 0:
                key = (tab[r][-1] / tab[r][enter], basis[r])
                if best is None or key < best:
                    leave, best = r, key
        if leave is None:
            raise ArithmeticError("the linear program is unbounded")
        pivot = tab[leave][enter]
        tab[leave] = [v / pivot for v in tab[leave]]
        for r in range(m):
            factor = tab[r][enter]
            if r != leave and factor:
                tab[r] = [v - factor * w for v, w in zip(tab[r], tab[leave], strict=True)]
        factor = objective[enter]
        objective = [v - factor * w for v, w in zip(objective, tab[leave], strict=True)]
        basis[leave] = enter
    x = [ZERO] * (n + m)
    for r, k in enumerate(basis):
        x[k] = tab[r][-1]
    return objective[-1], x[:n], objective[n : n + m]


def solve(b):
    """(V(B), p, q): the value to the first player and one equilibrium, as Fractions."""
    a = gains(b)
    c = [Fraction(1, 2)] * 6 + [Fraction(-1, 36)] * 6
    rows = [[-a[i][j] for i in range(6)] + [-int(k == j) for k in range(6)] for j in range(6)]
    rows += [[int(k == i) for k in range(6)] + [0] * 6 for i in range(6)]
    optimum, x, y = simplex(c, rows, [0] * 6 + [1] * 6)
    p = x[:6]
    q = [36 * y[j] for j in range(6)]
    return optimum - 1, p, q


def best_response_values(b, p, q):
    """(what the first player's best reply to q earns, what it earns against the second's best reply to p)."""
    a = gains(b)
    first = -1 + sum(max(ZERO, Fraction(1, 2) + sum(a[i][j] * q[j] for j in range(6)) / 36) for i in range(6))
    second = -1 + sum(p) / 2 + sum(min(ZERO, sum(a[i][j] * p[i] for i in range(6))) for j in range(6)) / 36
    return first, second


def equilibria():
    """{B: (V(B), p, q)} for every B, each verified by best response (SystemExit if not)."""
    table = {}
    for b in range(wire.BET_MIN, wire.BET_MAX + 1):
        value, p, q = solve(b)
        if best_response_values(b, p, q) != (value, value):
            raise SystemExit(f"equilibrium.py: the solution for B={b} fails the best-response check")
        table[b] = (value, p, q)
    return table


def print_table(table):
    mean = sum(v for v, _, _ in table.values()) / len(table)
    print("# B V(B) | raise probability for dice 1..6 | call probability for dice 1..6")
    for b, (value, p, q) in table.items():
        print(b, value, "|", *p, "|", *q)
    print(f"# mean over B: {mean} = {float(mean):.6f}")


def main():
    if sys.argv[1:] == ["--table"]:
        print_table(equilibria())
        return
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    # P(raise or call) by [b][state][die] for the two deciding states (0 = first, 1 = second).
    chance = [[[0.0] * 7, [0.0] * 7] for _ in range(wire.BET_MAX + 1)]
    for b, (_, p, q) in equilibria().items():
        for die in DICE:
            chance[b][0][die] = float(p[die - 1])
            chance[b][1][die] = float(q[die - 1])
    out = sys.stdout.buffer
    raise_line, fold_line = wire.encode_reply(wire.RAISE), wire.encode_reply(wire.FOLD)
    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        if message.is_request and rng.random() < chance[message.b][message.state][message.d]:
            out.write(raise_line)
        else:
            out.write(fold_line)  # a fold, or the answer every information line needs
        out.flush()


if __name__ == "__main__":
    main()
