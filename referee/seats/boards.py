"""What a person at the terminal sees of each game, and how their choice becomes a reply.

A :class:`Board` turns the line a seat is sent into a readable `rich` renderable — the
dice, the scorecard, the cards, the bets — offers the moves with a short key each
(``1 score chance (23)``, ``h PATTERN``, ``f fold``, ``r AMOUNT``) and translates what the
person types into the protocol's reply.  It knows the wire format only (the
:mod:`protocol` modules), never the rules' state: offering moves is a convenience, and
what is *accepted* is decided by the match itself (:attr:`referee.seats.Seat.judge`),
so a list that is incomplete, or a key that makes an illegal reply, never lets an
illegal move through — the person is told what a bot would have been told.

Whatever the person types that is not a key is sent as it is (a Bidding Wars card is
its number, a Liar's Dice ``bid 3 4`` is the protocol's own reply); ``=TEXT`` sends
``TEXT`` as it is even when it looks like a key (Yahtzee ``=18``: action 18).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from protocol import bidding_wars as bw_wire
from protocol import dice_poker as dp_wire
from protocol import holdem as he_wire
from protocol import liars_dice as ld_wire
from protocol import yahtzee as y_wire


@dataclass(frozen=True)
class Move:
    """One move offered: what to type (``key``, then ``arg`` if it takes one) and what it does."""

    key: str
    label: str
    #: The argument's placeholder, e.g. ``AMOUNT``; empty when the key is all there is.
    arg: str = ""


class Unclear(ValueError):
    """What the person typed is a key used wrongly (``h 12``): a hint, not a verdict."""


#: The boards by game name: every subclass that names its ``game`` (:func:`board_for`).
_BOARDS: dict[str, type[Board]] = {}


class Board:
    """A game's view for a person: see the module's text.  A subclass that sets ``game``
    is that game's board (found by name: nothing else lists it); a game without one is
    shown raw (:class:`RawBoard`)."""

    #: The game's name (``--game``).
    game: ClassVar[str]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "game" in vars(cls):
            _BOARDS[cls.game] = cls

    #: One line on how to type a move beyond the keys offered.
    hint: ClassVar[str] = "type a key from the list, or =REPLY to send a protocol reply as it is"

    def show(self, line: str) -> RenderableType:
        """A request, made readable (``line`` without its newline)."""
        raise NotImplementedError

    def moves(self, line: str) -> list[Move]:
        """The moves offered for a request."""
        raise NotImplementedError

    def translate(self, line: str, word: str, rest: str) -> str | None:
        """The reply for key ``word`` followed by ``rest``; ``None`` when ``word`` is no key
        (the text is then sent as typed).  :class:`Unclear` for a key used wrongly."""
        return None

    def inform(self, line: str) -> RenderableType | None:
        """An information line, made readable; ``None`` to show nothing."""
        return Text(line)

    def reply(self, line: str, typed: str) -> str:
        """The protocol reply for what the person typed at request ``line``."""
        text = typed.strip()
        if text.startswith("="):
            return text[1:].strip()
        word, _, rest = text.partition(" ")
        translated = self.translate(line, word, rest.strip())
        return typed if translated is None else translated


def board_for(game: str) -> Board:
    """A fresh board for the game named ``game`` (each seat keeps its own: boards remember);
    the raw lines for a game without a board of its own."""
    cls = _BOARDS.get(game)
    return cls() if cls is not None else RawBoard(game)


def moves_table(moves: Sequence[Move]) -> Table:
    """The offered moves, one a row: the key to type, then what it does."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for move in moves:
        table.add_row(f"{move.key} {move.arg}".strip(), move.label)
    return table


def _number(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise Unclear(f"{what} is a whole number, not {text!r}" if text else f"{what} is missing")
    return int(text)


# ---------------------------------------------------------------------------- any game


class RawBoard(Board):
    """A game without a board of its own: the lines as they are, replies typed as they are."""

    hint = "type the protocol's reply (docs/protocols/)"

    def __init__(self, game: str) -> None:
        self.name = game

    def show(self, line: str) -> RenderableType:
        return Text(line)

    def moves(self, line: str) -> list[Move]:
        return []


# ---------------------------------------------------------------------------- Yahtzee

_DIE_FACES = "⚀⚁⚂⚃⚄⚅"
_BOX_TITLES = tuple(name.capitalize() for name in y_wire.ROW_NAMES)


def _dice_text(dice: Sequence[int]) -> Text:
    text = Text()
    for k, d in enumerate(dice):
        text.append(f" {_DIE_FACES[d - 1]} {d} ", style="bold reverse")
        if k < len(dice) - 1:
            text.append("  ")
    return text


def _card_value(value: int) -> str:
    return "" if value == y_wire.OPEN else str(value)


class YahtzeeBoard(Board):
    game = "yahtzee"
    hint = "type a box's number, h and five 0/1 marks (h 11001 keeps dice 1, 2 and 5), or r"

    def __init__(self) -> None:
        #: The opponent's card at the last request: what changed since is what they did.
        self._opponent: tuple[int, ...] | None = None

    def show(self, line: str) -> RenderableType:
        pos = y_wire.parse_position(line)
        parts: list[RenderableType] = []
        news = self._opponent_news(pos.opp)
        if news:
            parts.append(Text(news, style="magenta"))
        rolls_left = 3 - pos.roll
        parts.append(
            Text.assemble(
                ("Yahtzee", "bold"),
                f" — roll {pos.roll} of 3 ({rolls_left} reroll{'s' if rolls_left != 1 else ''} left), ",
                f"round {14 - pos.own[: y_wire.NUM_ROWS].count(y_wire.OPEN)} of 13",
            )
        )
        parts.append(_dice_text(pos.dice))
        parts.append(Text("  ".join(f"die {k}" for k in range(1, 6)), style="dim"))
        parts.append(self._scorecard(pos))
        return Group(*parts)

    def _opponent_news(self, opp: tuple[int, ...]) -> str:
        before, self._opponent = self._opponent, opp
        if before is None:
            return ""
        filled = [
            row for row in range(y_wire.NUM_ROWS) if before[row] == y_wire.OPEN and opp[row] != y_wire.OPEN
        ]
        if len(filled) != 1:  # a new game, or nothing new
            return ""
        row = filled[0]
        return f"Your opponent scored {opp[row]} in {y_wire.ROW_NAMES[row]}."

    def _scorecard(self, pos: y_wire.Position) -> Table:
        table = Table(title=None, show_edge=False, pad_edge=False)
        table.add_column("#", justify="right", style="cyan")
        table.add_column("box")
        table.add_column("you", justify="right")
        table.add_column("now", justify="right", style="green")
        table.add_column("opponent", justify="right")
        legal = set(y_wire.legal_actions(pos.own, pos.dice, pos.roll))
        for row in range(y_wire.NUM_ROWS):
            now = ""
            if y_wire.place(row) in legal:
                now = str(y_wire.score_box(pos.dice, row, pos.own))
            table.add_row(
                str(row + 1),
                _BOX_TITLES[row],
                _card_value(pos.own[row]),
                now,
                _card_value(pos.opp[row]),
                end_section=row == 5,
            )
        upper_you = sum(v for v in pos.own[:6] if v > 0)
        upper_opp = sum(v for v in pos.opp[:6] if v > 0)
        table.add_row(
            "", "upper bonus (63+)", f"{y_wire.upper_bonus(pos.own)} ({upper_you}/63)", "",
            f"{y_wire.upper_bonus(pos.opp)} ({upper_opp}/63)",
        )  # fmt: skip
        table.add_row("", "Yahtzee bonus", str(pos.own[y_wire.BONUS]), "", str(pos.opp[y_wire.BONUS]))
        table.add_row(
            "", Text("total", style="bold"), Text(str(y_wire.card_total(pos.own)), style="bold"), "",
            Text(str(y_wire.card_total(pos.opp)), style="bold"),
        )  # fmt: skip
        return table

    def moves(self, line: str) -> list[Move]:
        pos = y_wire.parse_position(line)
        moves = []
        for action in y_wire.legal_actions(pos.own, pos.dice, pos.roll):
            if action & 1:
                continue
            row = action >> 1
            points = y_wire.score_box(pos.dice, row, pos.own)
            moves.append(Move(str(row + 1), f"score {y_wire.ROW_NAMES[row]} ({points})"))
        if pos.roll < 3:
            moves.append(
                Move(
                    "h",
                    "hold the dice marked 1, reroll those marked 0 (h 11001: keep dice 1, 2, 5)",
                    "PATTERN",
                )
            )
            moves.append(Move("r", "reroll all five dice"))
        return moves

    def translate(self, line: str, word: str, rest: str) -> str | None:
        if word.isdigit() and word.isascii():
            row = int(word) - 1
            if not 0 <= row < y_wire.NUM_ROWS or rest:
                raise Unclear(
                    f"no box {word} {rest}".strip() + ": boxes are 1 to 13 (=N sends action N as is)"
                )
            return str(y_wire.place(row))
        if word == "h":
            marks = rest.replace(" ", "")
            if len(marks) != 5 or set(marks) - {"0", "1"}:
                raise Unclear("h needs five marks, one per die: 1 holds it, 0 rerolls it (h 11001)")
            mask = sum(1 << k for k, mark in enumerate(marks) if mark == "1")
            return str(y_wire.hold(mask))
        if word == "r" and not rest:
            return str(y_wire.hold(0))
        return None


# ---------------------------------------------------------------------------- dice poker


class DicePokerBoard(Board):
    game = "dice-poker"
    hint = "type f or r/c (or the protocol's 0 to fold, 1 to raise or call)"

    def __init__(self) -> None:
        #: Your die in the deal under way (the showdown line tells only the opponent's).
        self._die = 0

    def show(self, line: str) -> RenderableType:
        msg = dp_wire.parse_message(line)
        self._die = msg.d
        if msg.is_first:
            role = "first player: you posted the small blind (1 chip)"
            situation = f"Raise to B = {msg.b}, or fold and lose your 1 chip."
        else:
            role = "second player: you posted the big blind (2 chips)"
            situation = f"Your opponent raised to B = {msg.b}. Call, or fold and lose your 2 chips."
        return Group(
            Text.assemble(("Dice poker", "bold"), f" — B = {msg.b}; you are the {role}"),
            Text.assemble("Your die: ", _dice_text([msg.d])),
            Text(situation),
            Text("At a showdown the higher die wins B from the other; equal dice: nobody wins.", style="dim"),
        )

    def moves(self, line: str) -> list[Move]:
        msg = dp_wire.parse_message(line)
        lose = dp_wire.SMALL_BLIND if msg.is_first else dp_wire.BIG_BLIND
        go = Move("r", f"raise to {msg.b}") if msg.is_first else Move("c", f"call {msg.b}")
        return [Move("f", f"fold (lose {lose} chip{'s' if lose > 1 else ''})"), go]

    def translate(self, line: str, word: str, rest: str) -> str | None:
        if rest:
            return None
        if word == "f":
            return str(dp_wire.FOLD)
        if word in ("r", "c"):
            return str(dp_wire.RAISE)
        return None

    def inform(self, line: str) -> RenderableType | None:
        try:
            msg = dp_wire.parse_message(line)
        except ValueError:
            return Text(line)
        if msg.state in (dp_wire.FIRST_OPPONENT_FOLDED, dp_wire.SECOND_OPPONENT_FOLDED):
            won = dp_wire.BIG_BLIND if msg.is_first else dp_wire.SMALL_BLIND
            return Text(f"Your opponent folded: you win {won} chip{'s' if won > 1 else ''}.", style="green")
        mine, theirs = self._die, msg.d
        outcome = (
            f"you win {msg.b} chips"
            if mine > theirs
            else f"you lose {msg.b} chips"
            if mine < theirs
            else "a tie: nobody wins anything"
        )
        return Text(f"Showdown: your die {mine}, your opponent's {theirs} — {outcome}.", style="bold")


# ---------------------------------------------------------------------------- Bidding Wars


def _cards_list(cards: Sequence[int]) -> str:
    return " ".join(map(str, cards)) or "none"


_BW_RESULTS = {"win": "you win", "loss": "you lose", "draw": "a draw"}


class BiddingWarsBoard(Board):
    game = "bidding-wars"
    hint = "type the card you bid"

    def show(self, line: str) -> RenderableType:
        req = bw_wire.parse_request(line)
        turn = req.n - len(req.hand) + 1
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        table.add_row("Prize", Text(str(req.prize), style="bold yellow"))
        table.add_row("Score", f"you {req.my_score} — opponent {req.their_score}")
        table.add_row("Your hand", _cards_list(req.hand))
        table.add_row("Their hand", _cards_list(req.theirs))
        table.add_row("Prizes to come", _cards_list(req.prizes))
        return Group(
            Text.assemble(
                ("Bidding Wars", "bold"),
                f" — turn {turn} of {req.n}: both bid a card at once; the higher card takes the prize",
            ),
            table,
        )

    def moves(self, line: str) -> list[Move]:
        req = bw_wire.parse_request(line)
        return [Move(str(card), f"bid {card}") for card in req.hand]

    def inform(self, line: str) -> RenderableType | None:
        try:
            parsed = bw_wire.parse_line(line)
        except ValueError:
            return Text(line)
        if isinstance(parsed, bw_wire.Reveal):
            who = {"me": "you take it", "them": "your opponent takes it", "tie": "a tie: nobody takes it"}
            return Text(
                f"Prize {parsed.prize}: you bid {parsed.mine}, your opponent {parsed.theirs} — "
                f"{who[parsed.winner]}."
            )
        if isinstance(parsed, bw_wire.End):
            how = " (a forfeit ended it)" if parsed.how == "forfeit" else ""
            return Text(
                f"Game over: you {parsed.my_score}, your opponent {parsed.their_score} — "
                f"{_BW_RESULTS[parsed.result]}{how}.",
                style="bold",
            )
        return None


# ---------------------------------------------------------------------------- Liar's Dice

_FACE_NAMES = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _bid_text(quantity: int, face: int) -> str:
    name = _FACE_NAMES.get(face)
    if name is None:
        return f"{quantity} × {face}"
    return f"{quantity} {name}{'es' if name == 'six' else 's'}" if quantity != 1 else f"1 {name}"


def _dice_count(count: int) -> str:
    return "1 die shows" if count == 1 else f"{count} dice show"


class LiarsDiceBoard(Board):
    game = "liars-dice"
    hint = "type a key, b QUANTITY FACE, c, or the protocol's 'bid Q F' / 'challenge'"

    def __init__(self) -> None:
        #: Your seat in the game under way, once a request has said it.
        self._seat: int | None = None

    def _who(self, seat: int) -> str:
        return "you" if seat == self._seat else f"seat {seat}"

    def _whose(self, seat: int) -> str:
        return "your" if seat == self._seat else f"seat {seat}'s"

    def _loses(self, seat: int) -> str:
        return "you lose" if seat == self._seat else f"seat {seat} loses"

    def show(self, line: str) -> RenderableType:
        turn = ld_wire.parse_request(line)
        self._seat = turn.seat
        seats = Table(show_edge=False, pad_edge=False)
        seats.add_column("seat", justify="right")
        seats.add_column("dice", justify="right")
        for seat, count in enumerate(turn.counts):
            name = f"{seat} (you)" if seat == turn.seat else str(seat)
            seats.add_row(name, str(count) if count else "out", style="bold" if seat == turn.seat else None)
        parts: list[RenderableType] = [
            Text.assemble(
                ("Liar's Dice", "bold"),
                f" — {turn.dice_in_play} dice in play; ones are wild (they count as any face)",
            ),
            Text.assemble("Your dice: ", _dice_text(turn.dice)),
            seats,
        ]
        if turn.bids:
            history = ", ".join(f"{self._who(b.seat)}: {_bid_text(b.quantity, b.face)}" for b in turn.bids)
            parts.append(Text(f"Bids this round: {history}"))
            current = turn.bids[-1]
            yours = ld_wire.matching(turn.dice, current.face)
            parts.append(
                Text.assemble(
                    "Current bid: ",
                    (_bid_text(current.quantity, current.face), "bold yellow"),
                    f" by {self._who(current.seat)}: it claims at least {current.quantity} of the "
                    f"{turn.dice_in_play} dice show {current.face} or 1; {yours} of your {len(turn.dice)} do.",
                )
            )
        else:
            parts.append(Text("You open the round: make the first bid."))
        return Group(*parts)

    def _offered_bids(self, turn: ld_wire.Turn) -> list[ld_wire.Bid]:
        """The lowest legal bid on each face, lowest first."""
        lowest: dict[int, ld_wire.Bid] = {}
        for bid in ld_wire.legal_bids(turn.dice_in_play, turn.current):
            lowest.setdefault(bid.face, bid)
        return sorted(lowest.values())

    def moves(self, line: str) -> list[Move]:
        turn = ld_wire.parse_request(line)
        moves = []
        if turn.current is not None:
            moves.append(Move("c", f"challenge the bid of {_bid_text(*turn.current)}"))
        for number, bid in enumerate(self._offered_bids(turn), 1):
            moves.append(Move(str(number), f"bid {_bid_text(*bid)}"))
        moves.append(Move("b", "bid QUANTITY dice of FACE (2 to 6)", "QUANTITY FACE"))
        return moves

    def translate(self, line: str, word: str, rest: str) -> str | None:
        if word == "c" and not rest:
            return "challenge"
        if word == "b":
            numbers = rest.split()
            if len(numbers) != 2:
                raise Unclear("b needs a quantity and a face: b 3 5 bids three fives")
            quantity, face = (_number(n, "a bid's number") for n in numbers)
            return f"bid {quantity} {face}"
        if word.isdigit() and word.isascii() and not rest:
            offered = self._offered_bids(ld_wire.parse_request(line))
            number = int(word)
            if not 1 <= number <= len(offered):
                raise Unclear(f"no move {word}: use b QUANTITY FACE for another bid")
            bid = offered[number - 1]
            return f"bid {bid.quantity} {bid.face}"
        return None

    def inform(self, line: str) -> RenderableType | None:
        try:
            info = ld_wire.parse_info(line)
        except ValueError:
            return Text(line)
        if isinstance(info, ld_wire.Players):
            return Text(f"A new game of Liar's Dice: {len(info.ids)} seats, five dice each.", style="bold")
        hands = getattr(info, "hands", ())
        shown = ", ".join(
            f"{self._who(seat)} {''.join(map(str, hand)) or '-'}" for seat, hand in enumerate(hands)
        )
        if isinstance(info, ld_wire.Reveal):
            holds = "holds" if info.count >= info.quantity else "fails"
            return Text(
                f"{self._who(info.challenger).capitalize()} challenged {self._whose(info.bidder)} bid of "
                f"{_bid_text(info.quantity, info.face)}: {_dice_count(info.count)} {info.face} or 1, so the "
                f"bid {holds} — {self._loses(info.loser)} a die. Dice: {shown}."
            )
        if isinstance(info, ld_wire.Penalty):
            return Text(
                f"{self._who(info.seat).capitalize()} forfeited the round ({info.verdict}): "
                f"{self._loses(info.seat)} a die. Dice: {shown}.",
                style="red",
            )
        if isinstance(info, ld_wire.Result):
            out = ", then ".join(self._who(s) for s in info.eliminated)
            return Text(f"Game over: {self._who(info.winner)} won (out first to last: {out}).", style="bold")
        return Text(line)


# ---------------------------------------------------------------------------- Hold'em

_SUIT_SYMBOLS = {"S": ("♠", ""), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "")}


def _cards(cards: Sequence[int]) -> Text:
    text = Text()
    for card in cards:
        name = he_wire.card_name(card)
        symbol, colour = _SUIT_SYMBOLS[name[1]]
        text.append(f"{name[0].replace('T', '10')}{symbol}", style=f"bold {colour} reverse".strip())
        text.append(" ")
    return text if cards else Text("none ", style="dim")


_STATUS_WORDS = {
    "-": "to act",
    "B": "bet",
    "C": "checked",
    "F": "folded",
    "A": "all-in",
    "X": "out",
}
#: A history entry's letter as a verb and what follows it; chips put in come after "+".
_ACTIONS = {
    "s": ("post", " the small blind +"),
    "b": ("post", " the big blind +"),
    "f": ("fold", ""),
    "k": ("check", ""),
    "c": ("call", " +"),
    "r": ("raise", ", putting in +"),
}


class HoldemBoard(Board):
    game = "holdem"
    hint = "type f, k, c, r AMOUNT or a (or the protocol's fold/check/call/raise X)"

    def __init__(self) -> None:
        self._seat: int | None = None

    def _who(self, seat: int) -> str:
        return "you" if seat == self._seat else f"seat {seat}"

    def _action(self, seat: int, letter: str, chips: int) -> str:
        verb, rest = _ACTIONS[letter]
        you = seat == self._seat
        return f"{self._who(seat)} {verb}{'' if you else 's'}{rest}{chips if rest.endswith('+') else ''}"

    def show(self, line: str) -> RenderableType:
        if line.startswith("show "):
            showdown = he_wire.parse_show_request(line)
            return Group(
                Text.assemble(
                    ("Showdown", "bold"), f" — hand {showdown.hand}: choose the five cards you show"
                ),
                Text.assemble("Your cards: ", _cards(showdown.hole), "  board: ", _cards(showdown.board)),
            )
        req = he_wire.parse_request(line)
        self._seat = req.seat
        table = Table(show_edge=False, pad_edge=False)
        for header in ("seat", "", "stack", "bet", ""):
            table.add_column(header, justify="right" if header in ("stack", "bet") else "left")
        sb_seat = next((s for s, letter, _ in req.history[0] if letter == "s"), None) if req.history else None
        bb_seat = next((s for s, letter, _ in req.history[0] if letter == "b"), None) if req.history else None
        for seat, (stack, bet, status) in enumerate(zip(req.stacks, req.bets, req.status, strict=True)):
            tags = [t for t, s in (("dealer", req.dealer), ("SB", sb_seat), ("BB", bb_seat)) if s == seat]
            table.add_row(
                f"{seat} (you)" if seat == req.seat else str(seat),
                " ".join(tags),
                str(stack),
                str(bet) if bet else "",
                _STATUS_WORDS.get(status, status),
                style="bold" if seat == req.seat else None,
            )
        history = " / ".join(
            ", ".join(self._action(seat, letter, chips) for seat, letter, chips in street) or "none yet"
            for street in req.history
        )
        return Group(
            Text.assemble(
                ("Hold'em", "bold"),
                f" — hand {req.hand}, blinds {req.sb}/{req.bb}, {req.round}",
            ),
            Text.assemble("Your cards: ", _cards(req.hole), "  board: ", _cards(req.board)),
            table,
            Text(f"Actions: {history}", style="dim"),
            Text.assemble(
                "Pot: ",
                (str(req.pot_total), "bold yellow"),
                "   to call: ",
                (str(req.to_call), "bold"),
            ),
        )

    def moves(self, line: str) -> list[Move]:
        if line.startswith("show "):
            showdown = he_wire.parse_show_request(line)
            best = he_wire.best_five((*showdown.hole, *showdown.board))
            name = he_wire.CATEGORY_NAMES[he_wire.hand_value(best)[0]]
            return [
                Move("b", f"show your best five: {' '.join(map(he_wire.card_name, best))} ({name})"),
                Move("", "show five cards of your seven, e.g. AS KD 7H 7C 2S", "CARDS"),
            ]
        req = he_wire.parse_request(line)
        moves = []
        for word in req.legal:
            if word == "fold":
                moves.append(Move("f", "fold"))
            elif word == "check":
                moves.append(Move("k", "check"))
            elif word == "call":
                moves.append(Move("c", f"call {req.to_call}"))
            elif word == "raise":
                top = max(req.bets) if req.bets else 0
                moves.append(
                    Move(
                        "r",
                        f"raise by AMOUNT on top of the call, {req.min_raise} to {req.max_raise} "
                        f"(your bet becomes {top} + AMOUNT)",
                        "AMOUNT",
                    )
                )
                moves.append(Move("a", f"all in (raise {req.max_raise})"))
        return moves

    def translate(self, line: str, word: str, rest: str) -> str | None:
        if line.startswith("show "):
            if word == "b" and not rest:
                req = he_wire.parse_show_request(line)
                return he_wire.encode_show(he_wire.best_five((*req.hole, *req.board))).decode().strip()
            return None
        simple = {"f": "fold", "k": "check", "c": "call"}
        if word in simple and not rest:
            return simple[word]
        if word == "r":
            return f"raise {_number(rest, 'the raise')}"
        if word == "a" and not rest:
            return f"raise {he_wire.parse_request(line).max_raise}"
        return None

    def inform(self, line: str) -> RenderableType | None:
        try:
            parsed = he_wire.parse_line(line)
        except (ValueError, IndexError, KeyError):
            return Text(line)
        if isinstance(parsed, he_wire.Result):
            shown: list[RenderableType] = []
            for seat, hole, five in parsed.shown:
                if not hole:
                    shown.append(Text(f"  {self._who(seat)} mucked"))
                    continue
                name = he_wire.CATEGORY_NAMES[he_wire.hand_value(five)[0]]
                shown.append(Text.assemble(f"  {self._who(seat)}: ", _cards(hole), f"— {name}"))
            winners = ", ".join(
                f"{self._who(s)} take{'' if s == self._seat else 's'} {won}"
                for s, won in enumerate(parsed.won)
                if won
            )
            how = "" if parsed.shown else " (the others folded)"
            return Group(
                Text.assemble(
                    (f"Hand {parsed.hand} is over", "bold"),
                    ": board ",
                    _cards(parsed.board),
                    f"— {winners}{how}",
                ),
                *shown,
                Text("Stacks: " + ", ".join(f"{self._who(s)} {c}" for s, c in enumerate(parsed.stacks))),
            )
        if isinstance(parsed, he_wire.GameOver):
            places = ", ".join(
                f"{self._who(s)} {c} (rank {r})"
                for s, (c, r) in enumerate(zip(parsed.stacks, parsed.ranks, strict=True))
            )
            hands = f"{parsed.hands} hand{'s' if parsed.hands != 1 else ''}"
            return Text(f"Game over after {hands}: {places}.", style="bold")
        return Text(line)
