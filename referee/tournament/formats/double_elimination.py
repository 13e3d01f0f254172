"""Double elimination: a bot is out after its second lost match.

Yahtzee's tournament (seed 004): a double-elimination knockout of 1000-game matches.

**The bracket.**  ``n`` bots in seeding order (given, or a qualification ranking) fill a
bracket of ``P`` places, ``P`` the power of two at or above ``n``, in the usual seed
positions (1 v P, then 1's half against 2's, and so on: 1 8 4 5 2 7 3 6 for ``P`` = 8), so
the top seeds meet last.  The ``P - n`` missing places fall to seeds 1, 2, …: **the top
seeds get the byes**.

* *Winners' bracket* ``W{r}-{i}``: ``log2 P`` rounds; the loser drops to the losers' bracket.
* *Losers' bracket* ``L{r}-{i}``: ``2 (log2 P - 1)`` rounds.  Round 1 pairs the losers of
  winners' round 1; each even round ``2j`` has the winners of round ``2j - 1`` meet the
  losers dropping from winners' round ``j + 1``; each odd round after the first halves the
  field.  The drop-downs are placed in reverse order into round 2, halves swapped into
  round 4, reversed again into 6, and so on — the usual placement, which keeps bots that
  met in the winners' bracket apart as long as the bracket allows.
* *Grand final* ``GF1``: the winners' bracket winner against the losers' bracket winner;
  if the latter wins, both have lost once and the *bracket reset* ``GF2`` decides.

That is ``2P - 2`` matches (``2P - 1`` with the reset), fewer the byes.

**Byes.**  A match with one bot is a bye: the bot goes through, unplayed; with none, the
place stays empty.  Byes happen in winners' round 1 (the top seeds), losers' round 1
(a loser whose neighbouring winners' match was a bye) and losers' round 2 (a drop-down
facing an empty place).  In that last case the drop-downs are placed once they are all
known, so that **a bot that has had a bye faces an opponent** and a bye goes to one that
has not had one: a bot gets two byes only when every drop-down of that round has had
one (brackets-manager.js's issues #54 and #122 are about getting this wrong).  Just above a
power of two that happens: with 5 bots seeds 1–3 have byes, one losers' round-1 place is
empty and the other holds the only round-1 loser (a bye too), so whoever drops from
winners' round 2 into the empty place has its second bye (measured: 2 byes at most for
5, 9–11 and 17–19 bots, 1 for the other fields from 2 to 19).

**Who wins a match**: most games won; on equal games won, the higher total score; on
equal score too, the better seed (:meth:`MatchOutcome.winner`).

**Standings**: the champion, the runner-up, then the others by the round they were
eliminated in, latest first; those eliminated in one round share a place (5th–6th, …).

``next_round`` answers with every match whose two bots are known and that has no outcome
yet (winners' and losers' matches together, as soon as they are ready); byes are not in
it (they are in :meth:`describe` and :meth:`render`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._abc import Format, MatchOutcome, Pairing, by_id, check_bots

#: A reference to a match slot: ("seed", k) is seed k (from 1); ("winner" | "loser", id).
Ref = tuple[str, Any]
PENDING = "\x00pending"


def seed_positions(size: int) -> list[int]:
    """Seeds (from 1) in bracket order for a bracket of ``size`` places: 1 8 4 5 2 7 3 6 for 8."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


@dataclass(frozen=True, slots=True)
class Node:
    """One match of the bracket: where its two bots come from."""

    match_id: str
    bracket: str  # "W", "L" or "F"
    round: int
    sources: tuple[Ref, Ref]


@dataclass(slots=True)
class Slot:
    """One match's state after the results so far."""

    bots: tuple[str | None, str | None]  # None: an empty place; PENDING: not known yet
    status: str  # "pending", "ready", "played", "bye", "empty"
    winner: str | None = None
    loser: str | None = None


class DoubleElimination(Format):
    """Double elimination over ``bots`` in seeding order."""

    name = "double-elimination"

    def __init__(self, bots: Sequence[str]) -> None:
        self.bots = check_bots(bots)
        n = len(self.bots)
        self.size = 1 << (n - 1).bit_length()
        self.rank = {b: i for i, b in enumerate(self.bots)}
        self.nodes: list[Node] = []
        self._build()
        self._index = {node.match_id: node for node in self.nodes}

    # -- structure -----------------------------------------------------------------------

    def _build(self) -> None:
        k = self.size.bit_length() - 1
        pos = seed_positions(self.size)
        add = self.nodes.append
        for i in range(self.size // 2):
            add(Node(f"W1-{i + 1}", "W", 1, (("seed", pos[2 * i]), ("seed", pos[2 * i + 1]))))
        for r in range(2, k + 1):
            for i in range(self.size >> r):
                add(
                    Node(
                        f"W{r}-{i + 1}",
                        "W",
                        r,
                        (("winner", f"W{r - 1}-{2 * i + 1}"), ("winner", f"W{r - 1}-{2 * i + 2}")),
                    )
                )
        if k >= 2:
            for i in range(self.size // 4):
                add(Node(f"L1-{i + 1}", "L", 1, (("loser", f"W1-{2 * i + 1}"), ("loser", f"W1-{2 * i + 2}"))))
        for j in range(1, k):
            m = self.size >> (j + 1)
            for i in range(m):
                drop = m - 1 - i if j % 2 == 1 else (i + m // 2) % m
                survivor: Ref = ("winner", f"L{2 * j - 1}-{i + 1}")
                add(Node(f"L{2 * j}-{i + 1}", "L", 2 * j, (survivor, ("loser", f"W{j + 1}-{drop + 1}"))))
            if j < k - 1:
                for i in range(m // 2):
                    a, b = f"L{2 * j}-{2 * i + 1}", f"L{2 * j}-{2 * i + 2}"
                    add(Node(f"L{2 * j + 1}-{i + 1}", "L", 2 * j + 1, (("winner", a), ("winner", b))))
        wb_final = f"W{k}-1"
        lb_final: Ref = ("winner", f"L{2 * (k - 1)}-1") if k >= 2 else ("loser", wb_final)
        add(Node("GF1", "F", 1, (("winner", wb_final), lb_final)))
        add(Node("GF2", "F", 2, (("winner", wb_final), lb_final)))

    def _absent(self, ref: Ref) -> bool:
        """Whether a slot is empty whatever the results (it comes only from missing seeds)."""
        kind, what = ref
        if kind == "seed":
            return what > len(self.bots)
        a, b = self._index[what].sources
        return (
            (self._absent(a) and self._absent(b))
            if kind == "winner"
            else (self._absent(a) or self._absent(b))
        )

    # -- state ---------------------------------------------------------------------------

    def _resolve(self, results: Sequence[MatchOutcome]) -> tuple[dict[str, Slot], set[str]]:
        """Every match's state, and the bots that have had a bye."""
        done = by_id(results)
        slots: dict[str, Slot] = {}
        byes: set[str] = set()

        def bot_of(ref: Ref) -> str | None:
            kind, what = ref
            if kind == "seed":
                return self.bots[what - 1] if what <= len(self.bots) else None
            slot = slots[what]
            if slot.status in ("pending", "ready"):
                return PENDING
            return slot.winner if kind == "winner" else slot.loser

        for node in self.nodes:
            if node.match_id == "GF2":
                gf1 = slots["GF1"]
                if gf1.status == "played" and gf1.winner == gf1.bots[0]:
                    continue  # no reset: the winners' bracket winner took the first final
                if gf1.status != "played":
                    slots["GF2"] = Slot((PENDING, PENDING), "pending")
                    continue
            first, second = (bot_of(ref) for ref in node.sources)
            if node.bracket == "L" and node.round == 2:
                first, second = self._place_dropdown(node, slots, byes, first, second)
            slots[node.match_id] = slot = Slot((first, second), "pending")
            if PENDING in (first, second):
                continue
            if first is None or second is None:
                slot.status = "empty" if first is None and second is None else "bye"
                slot.winner = first if second is None else second
                if slot.winner is not None:
                    byes.add(slot.winner)
            elif node.match_id in done:
                slot.status = "played"
                slot.winner = done[node.match_id].winner(self.rank)
                slot.loser = second if slot.winner == first else first
            else:
                slot.status = "ready"
        return slots, byes

    def _place_dropdown(
        self, node: Node, slots: dict[str, Slot], byes: set[str], survivor: str | None, dropped: str | None
    ) -> tuple[str | None, str | None]:
        """Losers' round 2 with empty places: re-place the drop-downs so that byes go to those without one."""
        nodes = [n for n in self.nodes if n.bracket == "L" and n.round == 2]
        empty = [self._absent(n.sources[0]) for n in nodes]
        if not any(empty) or all(empty):
            return survivor, dropped
        drops = [bot_of_loser(slots, n.sources[1][1]) for n in nodes]
        if PENDING in drops:
            return survivor, PENDING
        # Keep the usual placement, then swap a bye-holder facing an empty place with a
        # drop-down without a bye facing an opponent.
        for i, is_empty in enumerate(empty):
            if is_empty and drops[i] in byes:
                for j, other_empty in enumerate(empty):
                    if not other_empty and drops[j] not in byes:
                        drops[i], drops[j] = drops[j], drops[i]
                        break
        return survivor, drops[nodes.index(node)]

    # -- the interface -------------------------------------------------------------------

    def next_round(self, results: Sequence[MatchOutcome]) -> list[Pairing] | None:
        slots, _ = self._resolve(results)
        if (slots.get("GF2") or slots["GF1"]).status == "played":
            return None
        return [
            Pairing(mid, tuple(b for b in slot.bots if b is not None))
            for mid, slot in slots.items()
            if slot.status == "ready"
        ]

    def champion(self, results: Sequence[MatchOutcome]) -> str | None:
        """The winner, once the tournament is over."""
        if self.next_round(results) is not None:
            return None
        slots, _ = self._resolve(results)
        return (slots.get("GF2") or slots["GF1"]).winner

    def standings(self, results: Sequence[MatchOutcome]) -> list[list[str]]:
        """Elimination order, best first (still-running bots first, in seed order)."""
        slots, _ = self._resolve(results)
        losses: dict[str, int] = {b: 0 for b in self.bots}
        out_at: dict[str, int] = {}
        for order, node in enumerate(self.nodes):
            slot = slots.get(node.match_id)
            if slot is None or slot.status != "played" or slot.loser is None:
                continue
            losses[slot.loser] += 1
            if losses[slot.loser] == 2 or node.bracket == "L":
                out_at.setdefault(slot.loser, order)
        champion = self.champion(results)
        alive = [b for b in self.bots if b not in out_at and b != champion]
        places: list[list[str]] = [[champion]] if champion else []
        if alive:
            places.append(alive)
        by_node: dict[int, list[str]] = {}
        for bot, order in out_at.items():
            node = self.nodes[order]
            by_node.setdefault(-self._depth(node), []).append(bot)
        for key in sorted(by_node):
            places.append(sorted(by_node[key], key=self.rank.__getitem__))
        return places

    def _depth(self, node: Node) -> int:
        """How late a round is: losers' and final rounds in elimination order."""
        return 1000 + node.round if node.bracket == "F" else node.round

    def describe(self, results: Sequence[MatchOutcome]) -> dict[str, Any]:
        """The bracket as JSON-able data (``bracket.json``)."""
        slots, byes = self._resolve(results)
        matches = []
        for node in self.nodes:
            slot = slots.get(node.match_id)
            if slot is None:
                continue
            matches.append(
                {
                    "id": node.match_id,
                    "bracket": {"W": "winners", "L": "losers", "F": "final"}[node.bracket],
                    "round": node.round,
                    "from": [
                        f"{kind} {what}" if kind != "seed" else f"seed {what}" for kind, what in node.sources
                    ],
                    "bots": [None if b in (None, PENDING) else b for b in slot.bots],
                    "status": slot.status,
                    "winner": slot.winner,
                    "loser": slot.loser,
                }
            )
        return {
            "format": self.name,
            "seeds": list(self.bots),
            "size": self.size,
            "matches": matches,
            "byes": sorted(byes, key=self.rank.__getitem__),
            "champion": self.champion(results),
            "standings": self.standings(results),
        }

    def render(self, results: Sequence[MatchOutcome]) -> str:
        """The bracket as text: one line per match, round by round."""
        slots, _ = self._resolve(results)
        done = by_id(results)
        names = {"W": "Winners' round", "L": "Losers' round"}
        lines: list[str] = []
        heading = None
        for node in self.nodes:
            slot = slots.get(node.match_id)
            if slot is None:
                continue
            if node.bracket == "F":
                title = "Grand final" if node.round == 1 else "Grand final, bracket reset"
            else:
                title = f"{names[node.bracket]} {node.round}"
            if title != heading:
                lines.append(title)
                heading = title
            a, b = (self._label(x) for x in slot.bots)
            if slot.status == "played":
                out = done[node.match_id]
                score = "–".join(str(out.tallies[x].won) for x in slot.bots if x is not None)
                lines.append(f"  {node.match_id:<6} {a} v {b}  {score}  → {slot.winner}")
            elif slot.status == "bye":
                lines.append(f"  {node.match_id:<6} {slot.winner} (bye)")
            elif slot.status == "empty":
                lines.append(f"  {node.match_id:<6} (empty)")
            else:
                lines.append(f"  {node.match_id:<6} {a} v {b}")
        return "\n".join(lines)

    def _label(self, bot: str | None) -> str:
        if bot is None:
            return "—"
        if bot == PENDING:
            return "?"
        return f"{bot} ({self.rank[bot] + 1})"


def bot_of_loser(slots: dict[str, Slot], match_id: str) -> str | None:
    """The loser of ``match_id`` so far, or PENDING."""
    slot = slots.get(match_id)
    if slot is None or slot.status in ("pending", "ready"):
        return PENDING
    return slot.loser
