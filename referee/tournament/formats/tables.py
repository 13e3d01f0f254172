"""Tables: a field of bots shared out over many tables of ``table_size`` seats.

For the games of more than two seats: Liar's Dice plays four bots a game from the whole
field (seed 001), Hold'em tables of 8–9 from the class (seed 003).  Three things make a
schedule fair, in this order:

1. **Games per bot.**  Every bot plays the same number of tables, or — when
   ``tables × table_size`` is not a multiple of the field — some one more than the rest.
2. **Meetings.**  Every pair of bots shares a table as often as every other pair.  The
   mean is ``tables · C(K, 2) / C(n, 2)``; when it is not a whole number the best possible
   spread is 1, and even when it is, an exactly even schedule (a *design*) exists only for
   some fields: tables of 4 from 28 or 40 bots, not from 30.
3. **Seats.**  Every bot takes every seat position equally often (the first seat, the
   dealer's place, moves first in Liar's Dice and last in Hold'em).

**The construction**, all driven by ``random.Random(seed)``:

* *Rounds.*  Tables are built in rounds of ``n // K`` tables with distinct bots, so a
  runner can play a round's tables at once.  In each round the bots with the fewest games
  so far play (ties drawn at random) and the rest sit out.  That alone guarantees rule 1:
  games per bot never differ by more than one, at any round's end.
* *Meetings: local search.*  A random step swaps two bots between two tables of one round
  (or a playing bot with one sitting out, when that exchanges their game counts, so rule 1
  still holds) and keeps the swap if the sum of squared meeting counts does not grow.
  The sum of meetings is fixed, so this sum of squares is their spread: the search moves
  towards an even schedule, sideways moves letting it cross plateaus.  It is not
  guaranteed to find a design when one exists; :func:`balance` says how close it got.
* *Seats: an edge colouring.*  Then each table is seated by a bipartite edge colouring
  (:func:`_spread_seats`, König's theorem): every bot takes every seat position exactly
  equally often when the table size divides its number of tables, and otherwise ``⌊g/K⌋``
  or ``⌈g/K⌉`` times — the best possible, not a search.  A table's members are unchanged,
  so rules 1 and 2 are untouched.

Measured (tests/test_formats.py; about 0.2 s each): 10 bots at tables of 4, 90 tables —
games 36 each, seats exactly 9 each, meetings exactly 12 for every pair with 3 of seeds
0–7 and 11–13 with the others (6 of 8 reach 12 with ``steps`` = 1000 × tables, 0.65 s);
30 bots at tables of 4, 150 tables — games 20 each, seats exactly 5 each, meetings 1–3
(1–4 for some seeds) against a mean of 2.07 and a best possible spread of 1, no pair
that never meets.

The whole schedule is one round of ``next_round``; match ids are ``t{round}-{table}``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ._abc import Format, MatchOutcome, Pairing, by_id, check_bots

#: The annealing temperatures of the meeting search (in units of the sum of squares).
HOT, COLD = 10.0, 0.05


@dataclass(frozen=True, slots=True)
class Balance:
    """How far a tables schedule is from balanced.

    Each figure is a ``(least, most)`` pair over the field and the best spread
    (``most - least``) possible for that field: 0 when the mean is a whole number, else 1
    (for meetings 0 is further possible only where a design exists).
    """

    bots: int
    table_size: int
    tables: int
    #: Games per bot.
    games: tuple[int, int]
    games_best_spread: int
    #: Times a bot sat in a seat position, over every bot and position.
    seats: tuple[int, int]
    #: The largest spread of one bot's seat counts (its most used seat minus its least).
    seat_spread_per_bot: int
    #: Times a pair shared a table, over every pair; ``meetings_mean`` is their mean.
    meetings: tuple[int, int]
    meetings_mean: float
    meetings_best_spread: int
    #: Pairs that never shared a table.
    never_met: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-able."""
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.bots} bots, {self.tables} tables of {self.table_size}: "
            f"tables per bot {self.games[0]}–{self.games[1]} (best spread {self.games_best_spread}); "
            f"seat counts {self.seats[0]}–{self.seats[1]} (per bot spread ≤ {self.seat_spread_per_bot}); "
            f"meetings {self.meetings[0]}–{self.meetings[1]}, mean {self.meetings_mean:.2f} "
            f"(best spread {self.meetings_best_spread}), {self.never_met} pairs never met"
        )


def _best_spread(total: int, parts: int) -> int:
    return 0 if total % parts == 0 else 1


def balance(schedule: Iterable[Sequence[str] | Pairing], bots: Sequence[str]) -> Balance:
    """Measure a schedule: tables as bot names in seat order (or :class:`Pairing`s)."""
    tables = [tuple(t.bots) if isinstance(t, Pairing) else tuple(t) for t in schedule]
    size = max((len(t) for t in tables), default=0)
    games: Counter[str] = Counter()
    seat: Counter[tuple[str, int]] = Counter()
    meet: Counter[tuple[str, str]] = Counter()
    order = {b: i for i, b in enumerate(bots)}
    for table in tables:
        for pos, bot in enumerate(table):
            games[bot] += 1
            seat[bot, pos] += 1
        for a, b in itertools.combinations(sorted(table, key=order.__getitem__), 2):
            meet[a, b] += 1
    n = len(bots)
    pairs = [meet[a, b] for a, b in itertools.combinations(bots, 2)]
    per_bot = [[seat[b, p] for p in range(size)] for b in bots]
    all_seats = [c for row in per_bot for c in row]
    total_meetings = sum(pairs)
    return Balance(
        bots=n,
        table_size=size,
        tables=len(tables),
        games=(min(games[b] for b in bots), max(games[b] for b in bots)),
        games_best_spread=_best_spread(len(tables) * size, n),
        seats=(min(all_seats, default=0), max(all_seats, default=0)),
        seat_spread_per_bot=max((max(row) - min(row) for row in per_bot if row), default=0),
        meetings=(min(pairs, default=0), max(pairs, default=0)),
        meetings_mean=total_meetings / max(1, len(pairs)),
        meetings_best_spread=_best_spread(total_meetings, max(1, len(pairs))),
        never_met=sum(1 for m in pairs if m == 0),
    )


def build_tables(
    n: int, size: int, tables: int, seed: int, steps: int | None = None
) -> list[list[tuple[int, ...]]]:
    """The schedule for bots ``0..n-1``: rounds of tables, each table in seat order.

    ``steps`` bounds each local search (default ``300 × tables``: well under a second for
    a few hundred tables).
    """
    if size < 2 or n < size:
        raise ValueError(f"tables of {size} need at least {size} bots and 2 seats")
    rng = random.Random(seed)
    steps = 300 * tables if steps is None else steps
    per_round = n // size
    count = [0] * n
    rounds: list[list[list[int]]] = []
    sitting: list[list[int]] = []
    left = tables
    while left > 0:
        k = min(per_round, left)
        ranked = sorted(range(n), key=lambda b: (count[b], rng.random()))
        playing = ranked[: k * size]
        rng.shuffle(playing)
        for b in playing:
            count[b] += 1
        rounds.append([playing[i * size : (i + 1) * size] for i in range(k)])
        sitting.append(ranked[k * size :])
        left -= k
    _spread_meetings(rounds, sitting, count, n, size, rng, steps)
    _spread_seats(rounds, n, size)
    return [[tuple(t) for t in r] for r in rounds]


def _spread_meetings(
    rounds: list[list[list[int]]],
    sitting: list[list[int]],
    count: list[int],
    n: int,
    size: int,
    rng: random.Random,
    steps: int,
) -> None:
    """Local search on the sum of squared meeting counts (see the module docstring)."""
    meet = [[0] * n for _ in range(n)]
    for r in rounds:
        for t in r:
            for a, b in itertools.combinations(t, 2):
                meet[a][b] += 1
                meet[b][a] += 1
    movable = [i for i, r in enumerate(rounds) if len(r) * size + len(sitting[i]) > size]
    if not movable:
        return
    with_sitters = [i for i in movable if sitting[i]]
    swappable = {i: with_sitters for i in with_sitters}
    for step in range(steps):
        # Simulated annealing: a worse swap is kept with probability exp(-delta / temperature),
        # the temperature falling geometrically from HOT to COLD; the last steps are greedy.
        temperature = HOT * (COLD / HOT) ** (step / steps)
        ri = rng.choice(movable)
        tabs, out = rounds[ri], sitting[ri]
        ta, ia = rng.randrange(len(tabs)), rng.randrange(size)
        x = tabs[ta][ia]
        others = (len(tabs) - 1) * size
        k = rng.randrange(others + len(out))
        mates_x = [o for o in tabs[ta] if o != x]
        if k < others:
            tb, ib = divmod(k, size)
            tb += tb >= ta
            y = tabs[tb][ib]
            mates_y = [o for o in tabs[tb] if o != y]
            # (m ± 1)² - m² = ±2m + 1: x leaves mates_x and joins mates_y, y the other way.
            delta = sum(2 * (meet[y][o] - meet[x][o]) + 2 for o in mates_x)
            delta += sum(2 * (meet[x][o] - meet[y][o]) + 2 for o in mates_y)
            if delta > 0 and rng.random() >= math.exp(-delta / temperature):
                continue
            _move(meet, x, y, mates_x)
            _move(meet, y, x, mates_y)
            tabs[ta][ia], tabs[tb][ib] = y, x
        elif ri in swappable and rng.random() < 0.5:
            # x plays here and y sits out; find a round where y plays and x sits out, and
            # swap them in both rounds: game counts stay as they were.
            y = out[k - others]
            back = [j for j in swappable[ri] if x in sitting[j] and y not in sitting[j]]
            if not back:
                continue
            rj = rng.choice(back)
            tb, ib = next((t, t_row.index(y)) for t, t_row in enumerate(rounds[rj]) if y in t_row)
            mates_y = [o for o in rounds[rj][tb] if o != y]
            delta = sum(2 * (meet[y][o] - meet[x][o]) + 2 for o in mates_x)
            _move(meet, x, y, mates_x)
            delta += sum(2 * (meet[x][o] - meet[y][o]) + 2 for o in mates_y)
            if delta > 0 and rng.random() >= math.exp(-delta / temperature):
                _move(meet, y, x, mates_x)
                continue
            _move(meet, y, x, mates_y)
            tabs[ta][ia], out[k - others] = y, x
            rounds[rj][tb][ib] = x
            sitting[rj][sitting[rj].index(x)] = y
        else:
            y = out[k - others]
            if count[x] != count[y] + 1:  # only an exchange of game counts keeps rule 1
                continue
            delta = sum(2 * (meet[y][o] - meet[x][o]) + 2 for o in mates_x)
            if delta > 0 and rng.random() >= math.exp(-delta / temperature):
                continue
            _move(meet, x, y, mates_x)
            tabs[ta][ia], out[k - others] = y, x
            count[x], count[y] = count[y], count[x]


def _move(meet: list[list[int]], leaving: int, joining: int, mates: list[int]) -> None:
    for o in mates:
        meet[leaving][o] -= 1
        meet[o][leaving] -= 1
        meet[joining][o] += 1
        meet[o][joining] += 1


def _spread_seats(rounds: list[list[list[int]]], n: int, size: int) -> None:
    """Seat every table so that each bot takes each seat position as evenly as possible.

    This is an edge colouring: the tables and the bots are the two sides of a bipartite
    graph, a table's seat is an edge to the bot in it, and a seat position is a colour
    (a table has each colour once).  Split each bot's tables into groups of ``size`` (its
    *copies*, the last group maybe smaller): every node then has at most ``size`` edges,
    and by König's theorem a bipartite graph can be coloured with as many colours as its
    largest degree.  So each full copy takes every seat exactly once: a bot with ``g``
    tables sits in every seat ``g // size`` or ``g // size + 1`` times — exactly equally
    when ``size`` divides ``g``.  The colouring is the classic one: colour each edge with a
    colour free at both ends, and when the two free colours differ, swap them along the
    alternating path from the bot's end first (it cannot reach the table's end).  A
    table's members never change, so games and meetings are untouched.
    """
    tabs = [t for r in rounds for t in r]
    used = [0] * n
    at_table: list[dict[int, tuple[int, int]]] = [{} for _ in tabs]  # colour -> copy
    at_copy: dict[tuple[int, int], dict[int, int]] = {}  # copy -> colour -> table
    for ti, table in enumerate(tabs):
        for bot in table:
            copy = (bot, used[bot] // size)
            used[bot] += 1
            mine = at_copy.setdefault(copy, {})
            a = next(c for c in range(size) if c not in at_table[ti])
            if a in mine:
                b = next(c for c in range(size) if c not in mine)
                _swap_path(at_table, at_copy, copy, a, b)
            at_table[ti][a] = copy
            mine[a] = ti
    for ti, table in enumerate(tabs):
        table[:] = [at_table[ti][p][0] for p in range(size)]


def _swap_path(
    at_table: list[dict[int, tuple[int, int]]],
    at_copy: dict[tuple[int, int], dict[int, int]],
    start: tuple[int, int],
    a: int,
    b: int,
) -> None:
    """Swap colours ``a`` and ``b`` along the path from copy ``start`` that alternates them
    (``a`` first): afterwards ``a`` is free at ``start``."""
    path: list[tuple[int, tuple[int, int], int]] = []  # (table, copy, colour)
    copy: tuple[int, int] | None = start
    colour, other = a, b
    while copy is not None:
        table = at_copy[copy].get(colour)
        if table is None:
            break
        path.append((table, copy, colour))
        copy = at_table[table].get(other)
        if copy is not None:
            path.append((table, copy, other))
        # Next, from that copy, the edge of the first colour again.
    for table, copy_, c in path:
        del at_table[table][c]
        del at_copy[copy_][c]
    for table, copy_, c in path:
        swapped = b if c == a else a
        at_table[table][swapped] = copy_
        at_copy[copy_][swapped] = table


class Tables(Format):
    """``tables`` tables of ``table_size`` bots, balanced as the module docstring says."""

    name = "tables"

    def __init__(
        self, bots: Sequence[str], table_size: int, tables: int, seed: int = 0, steps: int | None = None
    ) -> None:
        self.bots = check_bots(bots, least=table_size)
        if tables < 1:
            raise ValueError("tables must be at least 1")
        self.seats = table_size
        self.rounds = build_tables(len(self.bots), table_size, tables, seed, steps)
        self.schedule = [
            Pairing(f"t{r + 1}-{k + 1}", tuple(self.bots[i] for i in table))
            for r, tabs in enumerate(self.rounds)
            for k, table in enumerate(tabs)
        ]

    def next_round(self, results: Sequence[MatchOutcome]) -> list[Pairing] | None:
        done = by_id(results)
        return list(self.schedule) if any(p.match_id not in done for p in self.schedule) else None

    def balance(self) -> Balance:
        """This schedule's :class:`Balance`."""
        return balance(self.schedule, self.bots)

    def describe(self, results: Sequence[MatchOutcome]) -> dict[str, Any]:
        return {"format": self.name, "table_size": self.seats, "balance": self.balance().as_dict()}
