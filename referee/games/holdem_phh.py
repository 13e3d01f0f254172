"""Export a Hold'em game's log record to PHH, the poker hand-history standard, via pokerkit.

Entry point: :func:`phh_writer` (one PHH section per hand, ``[1]``, ``[2]``, ... numbered
across a match).  It reads ``summary`` as :meth:`referee.games.holdem.HoldemState.summary`
writes it into the JSON lines log, so a finished match can be exported later::

    write = phh_writer()
    for line in log:                                # the lines of ``referee match --log``
        record = json.loads(line)
        text = write(record["summary"], record["seats"])

PHH numbers a hand's players p1..pN in pokerkit's order: p1 is the first player left of
the dealer (the small blind), pN the dealer.  Heads-up with the seed's quirks the player
left of the dealer posts the small blind and acts first in every round; pokerkit's
heads-up rules put the dealer on the small blind, so such hands list the blinds in the
reverse order (``blinds_or_straddles = [BB, SB]``), which makes pokerkit replay them
exactly.  What PHH cannot say: the seed's per-round pots split odd chips pot by pot, and
at a bot showdown a bot may show a weaker five than its best; a replay by pokerkit pays
such hands its own way (the ``finishing_stacks`` field holds ours).

pokerkit is imported on first use, so importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def _pk(cards: str) -> str:
    """Our card text (``ASKD``) in pokerkit's notation (``AsKd``)."""
    return "".join(cards[i] + cards[i + 1].lower() for i in range(0, len(cards), 2))


def hand_actions(hand: dict[str, Any]) -> list[str]:
    """The PHH action lines of one hand record."""
    order: list[int] = hand["order"]
    label = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
    actions = [f"d dh {label[s]} {_pk(hand['hole'][s])}" for s in order]
    board: str = hand["board"]
    streets = hand["actions"].split("/")
    dealt = 0
    for street, segment in enumerate(streets):
        if street:
            count = 3 if street == 1 else 1
            actions.append(f"d db {_pk(board[2 * dealt : 2 * (dealt + count)])}")
            dealt += count
        bets: dict[int, int] = {}
        for entry in segment.split(",") if segment else ():
            letter_at = next(i for i, ch in enumerate(entry) if not ch.isdigit())
            seat, letter, chips = int(entry[:letter_at]), entry[letter_at], int(entry[letter_at + 1 :])
            bets[seat] = bets.get(seat, 0) + chips
            if letter == "f":
                actions.append(f"{label[seat]} f")
            elif letter in "kc":
                actions.append(f"{label[seat]} cc")
            elif letter == "r":
                actions.append(f"{label[seat]} cbr {bets[seat]}")
    for seat, hole, five, _rank in hand["shown"]:
        actions.append(f"{label[seat]} sm {_pk(hole)}" if five is not None else f"{label[seat]} sm")
    return actions


def hand_histories(summary: dict[str, Any], players: Sequence[str] | None = None) -> list[Any]:
    """One :class:`pokerkit.HandHistory` per hand of the game."""
    from pokerkit import HandHistory

    histories = []
    heads_up_quirk = bool(summary.get("seed_quirks", 1))
    for hand in summary["hands"]:
        order: list[int] = hand["order"]
        m = len(order)
        sb, bb = hand["sb"], hand["bb"]
        # pokerkit swaps heads-up blinds; [BB, SB] puts them where the seed's quirk does.
        blinds = [bb, sb] if m == 2 and heads_up_quirk else [sb, bb] + [0] * (m - 2)
        histories.append(
            HandHistory(
                variant="NT",
                antes=[0] * m,
                blinds_or_straddles=blinds,
                min_bet=bb,
                starting_stacks=[hand["stacks"][s] for s in order],
                actions=hand_actions(hand),
                hand=hand["hand"],
                seats=[s + 1 for s in order],
                seat_count=len(hand["stacks"]),
                players=[players[s] for s in order] if players is not None else None,
                finishing_stacks=[hand["end_stacks"][s] for s in order],
                user_defined_fields={
                    "_seed_quirks": bool(summary.get("seed_quirks", 1)),
                    "_bot_showdown": bool(summary.get("bot_showdown", 0)),
                    "_dealer_seat": hand["dealer"] + 1,
                },
            )
        )
    return histories


def phh_writer() -> Callable[[dict[str, Any], Sequence[str]], str]:
    """A PHH writer for one match: numbers the hands of all its games consecutively,
    so the file is one valid PHHS collection (``[1]``, ``[2]``, … with no repeats)."""
    written = 0

    def write(summary: dict[str, Any], players: Sequence[str]) -> str:
        nonlocal written
        histories = hand_histories(summary, players)
        sections = [f"[{written + i + 1}]\n{history.dumps()}" for i, history in enumerate(histories)]
        written += len(histories)
        return "".join(section + "\n\n" for section in sections)

    return write
