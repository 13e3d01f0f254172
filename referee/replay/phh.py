"""PHH in: poker hand histories (https://phh.readthedocs.io) as Hold'em game records.

:func:`records_from_phh` reads ``.phh`` files (one hand, or a ``[1]``, ``[2]``, …
collection such as ``referee match --game holdem --export phh=PATH`` writes) with pokerkit,
replays each hand, and gives GameRecord-shaped dicts whose ``summary["hands"]`` has the
shape of :meth:`referee.games.holdem.HoldemState.summary`, so the holdem renderer draws
them like a ``--log``.

One record per *game*: a file's hands, in order, start a new record where the hand
number does not go up or a seat changes players (an ``--export`` file of a many-game
match gives one record per game).  A hand that names neither seats nor players is a
record of its own.  Seats: PHH ``seats`` numbers when given (seat k is index k-1), else
the players' names in order of appearance (p1..pN of the first hand: the dealer last).
``scores`` are each player's chips at the end minus at the start.

What PHH does not say is left out or taken from pokerkit: ``faults`` are empty, ``pots``
are pokerkit's (merged across rounds), the five cards shown are the best five.  Antes
(not in the referee's action grammar) are written as ``a`` entries (``3a5``).
"""

from __future__ import annotations

import tomllib
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

#: Texas Hold'em variants: two hole cards, a five-card board.
_TEXAS = {"NT", "FT", "NS"}


def _num(value: Any) -> int | float:
    if isinstance(value, Decimal | float):
        return int(value) if value == int(value) else float(value)
    return value


def _cards(cards: Any) -> str:
    """pokerkit cards as the referee's text: ``AsKd`` -> ``ASKD``, unknown as ``??``."""
    out = []
    for card in cards:
        text = repr(card)
        out.append("??" if "?" in text else text[0].upper() + text[1].upper())
    return "".join(out)


def _histories(path: Path) -> list[Any]:
    from pokerkit import HandHistory

    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
        if "variant" in raw:
            return [HandHistory.loads(text)]
        return list(HandHistory.loads_all(text))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a PHH file ({exc})") from None


def _hand(hh: Any, seat_of: list[int], n: int, quirks: bool) -> dict[str, Any]:
    """One hand as the holdem summary writes it; ``seat_of[i]`` is player p(i+1)'s seat."""
    from pokerkit import StandardHighHand

    m = len(seat_of)
    nominal = [_num(b) for b in hh.blinds_or_straddles]
    if m == 2:  # pokerkit swaps heads-up blinds (see referee/games/holdem_phh.py)
        nominal.reverse()
    positive = sorted(b for b in nominal if b)
    sb = positive[0] if positive else 0
    bb = positive[1] if len(positive) > 1 else sb
    hole: list[str | None] = [None] * n
    stacks: list[int | float] = [0] * n
    for i, s in enumerate(seat_of):
        stacks[s] = _num(hh.starting_stacks[i])
        hole[s] = "????"
    posts: list[tuple[int, str]] = []
    streets: list[list[str]] = [[]]
    bets: list[int | float] = [0] * m
    board = ""
    shows: dict[int, str | None] = {}
    put_in: list[int | float] = [0] * n
    pots: list[list[Any]] = []
    with warnings.catch_warnings():  # pokerkit warns of folds when checking is free
        warnings.simplefilter("ignore")
        *_, (state, _) = hh.state_actions  # the hand played to its end
    for op in state.operations:
        kind = type(op).__name__
        p: int | None = getattr(op, "player_index", None)
        s = seat_of[p] if p is not None else -1
        if kind == "AntePosting":
            posts.append((0, f"{s}a{_num(op.amount)}"))
            put_in[s] += _num(op.amount)
        elif kind == "BlindOrStraddlePosting":
            assert p is not None  # a player's operation, as the three below
            amount = _num(op.amount)
            bets[p] += amount
            put_in[s] += amount
            letter = "s" if len(positive) > 1 and nominal[p] == sb else "b"
            posts.append((1 if letter == "s" else 2, f"{s}{letter}{amount}"))
        elif kind == "HoleDealing":
            held = hole[s]
            known = held if held and "?" not in held else ""
            hole[s] = known + _cards(op.cards) if known else _cards(op.cards)
        elif kind == "BoardDealing":
            board += _cards(op.cards)
            streets.append([])
            bets = [0] * m
        elif kind == "Folding":
            streets[-1].append(f"{s}f0")
        elif kind == "CheckingOrCalling":
            assert p is not None
            amount = _num(op.amount)
            bets[p] += amount
            put_in[s] += amount
            letter = "c" if amount or (quirks and len(streets) == 1) else "k"
            streets[-1].append(f"{s}{letter}{amount}")
        elif kind == "CompletionBettingOrRaisingTo":
            assert p is not None
            amount = _num(op.amount)
            streets[-1].append(f"{s}r{amount - bets[p]}")
            put_in[s] += amount - bets[p]
            bets[p] = amount
        elif kind == "HoleCardsShowingOrMucking":
            cards = _cards(op.hole_cards)
            if not cards:
                shows[s] = None
            elif "?" not in cards or s not in shows:
                shows[s] = cards
        elif kind == "ChipsPushing":
            shares = [[seat_of[i], _num(a)] for i, a in enumerate(op.amounts) if a]
            pots.append([sum(c for _, c in shares), sorted(shares)])
    final = hh.finishing_stacks or state.stacks
    end_stacks = list(stacks)
    for i, s in enumerate(seat_of):
        end_stacks[s] = _num(final[i])
    # The chips won: what the hand added to a stack beyond what went in, less the uncalled
    # bet that went back (the part of the largest contribution that nobody matched).
    top = max(range(n), key=lambda x: put_in[x])
    refund: list[int | float] = [0] * n
    refund[top] = max(0, put_in[top] - max((put_in[x] for x in range(n) if x != top), default=0))
    won = [_num(end_stacks[x] - stacks[x] + put_in[x] - refund[x]) if x in seat_of else 0 for x in range(n)]
    if sum(amount for amount, _ in pots) != sum(won):  # pokerkit keeps a fold winner's own bet out
        pots = [[sum(won), [[x, c] for x, c in enumerate(won) if c]]]
    streets[0][:0] = [entry for _, entry in sorted(posts, key=lambda x: x[0])]
    shown = []
    for s, showing in sorted(shows.items()):
        if showing is None:
            shown.append([s, hole[s], None, None])
            continue
        cards = showing
        if "?" not in (hole[s] or "?"):
            cards = hole[s] or cards
        hole[s] = cards
        five = None
        if "?" not in cards and len(board) == 10:
            pk = "".join(cards[i] + cards[i + 1].lower() for i in range(0, len(cards), 2))
            pkb = "".join(board[i] + board[i + 1].lower() for i in range(0, len(board), 2))
            five = _cards(StandardHighHand.from_game(pk, pkb).cards)
        shown.append([s, cards, five, None])
    dealer = hh.user_defined_fields.get("_dealer_seat")
    dealer = seat_of[-1] if not isinstance(dealer, int) or not 0 < dealer <= n else dealer - 1
    sb_seat = next((seat_of[i] for i, b in enumerate(nominal) if b == sb and len(positive) > 1), -1)
    bb_seat = next((seat_of[i] for i, b in enumerate(nominal) if b == bb and seat_of[i] != sb_seat), -1)
    return {
        "hand": hh.hand,
        "dealer": dealer,
        "sb": sb,
        "bb": bb,
        "sb_seat": sb_seat,
        "bb_seat": bb_seat,
        "order": list(seat_of),
        "stacks": stacks,
        "hole": hole,
        "board": board,
        "actions": "/".join(",".join(street) for street in streets),
        "shown": shown,
        "pots": pots,
        "won": won,
        "end_stacks": end_stacks,
        "faults": [],
    }


def _keys(hh: Any) -> list[Any] | None:
    """Who each player p1..pN is, as a seat number, a name, or None (nothing to go by)."""
    count = len(hh.starting_stacks)
    if hh.seats and len(hh.seats) == count:
        return [("seat", int(s)) for s in hh.seats]
    if hh.players and len(hh.players) == count and len(set(hh.players)) == count:
        return [("name", str(p)) for p in hh.players]
    return None


def _record(hands: list[tuple[Any, list[Any] | None]], number: int) -> dict[str, Any]:
    seats: list[Any] = []  # the key of each record seat
    names: list[str] = []
    for hh, keys in hands:
        for i, key in enumerate(keys or [("p", i) for i in range(len(hh.starting_stacks))]):
            name = hh.players[i] if hh.players and i < len(hh.players) else None
            if key not in seats:
                seats.append(key)
                names.append(str(name) if name is not None else f"p{i + 1}")
    if all(k[0] == "seat" for k in seats):
        seats.sort(key=lambda k: k[1])
        by_key = {
            k: (hh.players[i] if hh.players else None) for hh, keys in hands for i, k in enumerate(keys or ())
        }
        names = [str(by_key[k]) if by_key.get(k) is not None else f"seat {k[1]}" for k in seats]
    index = {k: i for i, k in enumerate(seats)}
    n = len(seats)
    summary_hands = []
    first: dict[int, Any] = {}
    last: dict[int, Any] = {}
    busted: dict[int, tuple[int, Any]] = {}  # seat -> (hand index, its stack at that hand's start)
    quirks = any(bool(hh.user_defined_fields.get("_seed_quirks")) for hh, _ in hands)
    for number_in_game, (hh, keys) in enumerate(hands, 1):
        seat_of = [index[k] for k in keys or [("p", i) for i in range(len(hh.starting_stacks))]]
        if hh.variant not in _TEXAS:
            raise ValueError(f"variant {hh.variant!r} is not Texas hold'em ({', '.join(sorted(_TEXAS))})")
        hand = _hand(hh, seat_of, n, bool(hh.user_defined_fields.get("_seed_quirks", quirks)))
        hand["hand"] = hand["hand"] if isinstance(hand["hand"], int) else number_in_game
        for s in seat_of:
            first.setdefault(s, hand["stacks"][s])
            last[s] = hand["end_stacks"][s]
            if not last[s]:
                busted.setdefault(s, (number_in_game, hand["stacks"][s]))
        summary_hands.append(hand)
    scores = [_num(last.get(s, 0) - first.get(s, 0)) for s in range(n)]
    # As the game ranks (docs/protocols/holdem.md, Results): players with chips by their
    # chips, then the busted, a later bust better, a same-hand bust by its starting stack.
    keys = [
        (1, last.get(s, 0), 0) if last.get(s, 0) or s not in busted else (0, *busted[s]) for s in range(n)
    ]
    ranks = [1 + sum(1 for o in keys if o > k) for k in keys]
    start = [first.get(s, 0) for s in range(n)]
    final = [last.get(s, 0) for s in range(n)]
    return {
        "game": number,
        "seats": names,
        "scores": scores,
        "ranks": ranks,
        "forfeits": [],
        "summary": {
            "seed_quirks": int(quirks),
            "bot_showdown": int(any(hh.user_defined_fields.get("_bot_showdown") for hh, _ in hands)),
            "starting_chips": start,
            "final_chips": final,
            "hands_played": len(summary_hands),
            "hands": summary_hands,
        },
        "transcript": [],
    }


def records_from_phh(paths: list[Path]) -> list[dict]:
    """Game records (one per game: see the module's doc) from PHH files, in order.

    A file that is not PHH, or a hand pokerkit cannot replay, raises ValueError naming
    the file."""
    records: list[dict] = []
    for path in paths:
        try:
            records.extend(_file_records(Path(path), len(records)))
        except (ArithmeticError, AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            message = str(exc)
            raise ValueError(message if message.startswith(f"{path}:") else f"{path}: {message}") from None
    if not records:
        raise ValueError(f"{', '.join(map(str, paths))}: no hands in it")
    return records


def _file_records(path: Path, first: int) -> list[dict]:
    """The file's hands, one record per game (a new game where the hand number does not
    go up, or a seat has another player)."""
    records: list[dict] = []
    group: list[tuple[Any, list[Any] | None]] = []
    seen: dict[Any, Any] = {}  # the player of each seat key in this group
    for hh in _histories(path):
        keys = _keys(hh)
        owners = {k: hh.players[i] if hh.players else None for i, k in enumerate(keys or ())}
        if group:
            prev, prev_keys = group[-1]
            restart = (
                keys is None
                or prev_keys is None
                or not isinstance(hh.hand, int)
                or not isinstance(prev.hand, int)
                or hh.hand <= prev.hand
                or any(k in seen and seen[k] != owner for k, owner in owners.items())
            )
            if restart:
                records.append(_record(group, first + len(records)))
                group, seen = [], {}
        group.append((hh, keys))
        seen.update(owners)
    if group:
        records.append(_record(group, first + len(records)))
    return records
