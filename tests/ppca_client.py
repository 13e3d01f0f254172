"""A test double of the PPCA 2014 Hold'em client (seed 003), for ``referee serve --dialect ppca``.

The original client (github.com/zzy7896321/holdem: client/client.cpp, client.h, main.cpp,
pot.h, common.*) is public but unlicensed: this is our own Python, written to parse
exactly as it does — the same lines read in the same order, the same ``sscanf`` /
``istream`` readings, the same chip bookkeeping (with its ``assert``), the same corrections
of a decision and the same error texts — so that a line the original would choke on makes
this double fail at that line, with the original's message.  It does not judge the server
beyond what the original checks: a wrong line the original lets through passes here too.

``await play(host, port, name)`` logs in and plays until the client exits (``game over``,
an error, the end of the connection) and returns a :class:`Transcript`.  Without a
network, :class:`PpcaClient` is the same program: ``start()`` returns the login line,
``feed(line)`` the lines sent in answer, ``eof()`` ends the input.

What the double records of the original's run (:class:`Transcript`):

- ``errors``: the lines it prints to stderr (``[ERROR] …``, ``[Exception] …``, the failed
  assertion), in order, each with the number of the line received when it was printed;
- ``warnings``: the ``[WARNING] …`` lines of ``Client::decide`` (stdout);
- ``exit_status``: ``main``'s, as a process's return code: 0 (``game over``), 1 (a message
  error, or the login/initial chips not confirmed), 255 (``return -1``: an exception, such
  as the end of the connection in ``read_until``), -6 (SIGABRT: an ``assert`` failed);
  None while it runs or when the harness stopped it (``stall_at``, ``disconnect_at``);
- ``final_chips``: ``show_final_stat``'s chips, i.e. the client's own chip count.

``assert`` (``chips[player_id] == num_chips`` in ``bet_loop``, ``is_sorted`` in
``Pot::merge``) fires by default, as in the debug build (the Makefile's commented
``CFLAGS`` line); ``asserts=False`` is the Makefile's release build (``-DNDEBUG``).

Where the C++ has undefined behaviour (an index out of range: ``names[p]``,
``chips[p]``, ``HAND_STRING[kind]``) the double stops with ``exit_status`` None and an
``errors`` line ``[UB] …``: what the original does there is unknown, so a test fails.

The player (the student's ``Player``) is two callables: ``decide(state, round_name)``
returns a decision ``(kind, amount)``, kind ``CHECK`` | ``FOLD`` | ``CALL`` | ``RAISE``
(``Player::preflop`` … ``river``); ``show(state)`` returns five cards (``Player::showdown``).
:class:`State` is what the player's ``Query`` reads.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import trio

RANKS = "23456789TJQKA"
SUITS = "SHDC"
#: common.cpp's HAND_STRING: the server sends the index (``, which is 2``).
HAND_STRING = (
    "invalid",
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)
ROUNDS = ("preflop", "flop", "turn", "river")
#: common.h's PLAYER_STATUS.
NOT_ACTIONED, BET, CHECKED, FOLDED = "NOT_ACTIONED", "BET", "CHECKED", "FOLDED"
#: common.h's DECISION_VALUE.
DECISIONS = ("CHECK", "FOLD", "CALL", "RAISE")
#: client.h's LOOP_RESULT.
LOOP_NORMAL, LOOP_END, LOOP_MSG_ERROR = "LOOP_NORMAL", "LOOP_END", "LOOP_MSG_ERROR"
#: main.cpp's ways out, as a process's return code.
EXIT_END, EXIT_ERROR, EXIT_EXCEPTION, EXIT_ABORT = 0, 1, 255, -6
#: What boost's read_until throws at the end of the connection (main prints it).
EOF_EXCEPTION = "[Exception] read_until: End of file"

Card = tuple[str, str]  # common.h's card_type: (rank, suit)
Decision = tuple[str, int]  # common.h's decision_type


# --------------------------------------------------------------------------- hands (our own)


def five_value(five: Sequence[Card]) -> tuple[int, ...]:
    """(category, tie-breaks...) of five distinct cards; greater is stronger."""
    ranks = sorted((RANKS.index(r) for r, _ in five), reverse=True)
    flush = len({s for _, s in five}) == 1
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    order = [r for r, _ in groups]
    high = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            high = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:  # A-2-3-4-5: five high
            high = 3
    if high is not None:
        return (8 if flush else 4, high)
    if shape == [4, 1]:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if flush:
        return (5, *ranks)
    category = {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(shape), 0)
    return (category, *order)


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The strongest five of 5 to 7 distinct cards."""
    return max(combinations(cards, 5), key=five_value)


def hand_kind(five: Sequence[Card]) -> int:
    """The server's category number of five distinct cards (HAND_STRING's index)."""
    value = five_value(five)
    if value[0] == 8 and value[1] == RANKS.index("A"):
        return 10  # royal flush
    return value[0] + 1


# --------------------------------------------------------------------------- C library readings


def scan(fmt: str, text: str) -> tuple[int, list[Any]]:
    """``sscanf(text, fmt, …)`` for formats of literals, spaces, ``%d`` and ``%c``.

    Returns (sscanf's return value, the values assigned): the number of conversions
    assigned, or -1 (EOF) when the input ran out before the first conversion.  A space in
    the format matches any whitespace, none included; ``%d`` skips whitespace, ``%c``
    does not; a literal that does not match stops the scan (the rest is ignored).
    """
    values: list[Any] = []
    i = j = 0
    while i < len(fmt):
        f = fmt[i]
        if f.isspace():
            while j < len(text) and text[j].isspace():
                j += 1
            i += 1
            continue
        if f != "%":
            if j >= len(text):
                break  # input failure
            if text[j] != f:
                return len(values), values  # matching failure
            i, j = i + 1, j + 1
            continue
        conv = fmt[i + 1]
        i += 2
        if conv == "c":
            if j >= len(text):
                break
            values.append(text[j])
            j += 1
        elif conv == "d":
            while j < len(text) and text[j].isspace():
                j += 1
            if j >= len(text):
                break
            k = j + (text[j] in "+-")
            end = k
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == k:
                return len(values), values
            values.append(int(text[j:end]))
            j = end
        else:
            raise ValueError(f"unsupported conversion %{conv}")
    return (len(values) if values else -1), values


class IStream:
    """``std::istringstream`` (libstdc++) for ``>> std::string``, ``>> char``, ``>> int``.

    Each read takes the variable's current value and returns its new one: unchanged when
    the stream had already failed or held only whitespace (the sentry fails), 0 for an
    ``int`` that does not start with a number (C++11's num_get).  ``ok`` is ``!fail()``.
    """

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.ok = text, 0, True

    def _sentry(self) -> bool:
        if not self.ok:
            return False
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        if self.pos >= len(self.text):
            self.ok = False
        return self.ok

    def word(self, current: str = "") -> str:
        if not self._sentry():
            return current
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace():
            self.pos += 1
        return self.text[start : self.pos]

    def char(self, current: str = "") -> str:
        if not self._sentry():
            return current
        self.pos += 1
        return self.text[self.pos - 1]

    def int(self, current: int = 0) -> int:
        if not self._sentry():
            return current
        k = self.pos + (self.text[self.pos] in "+-")
        end = k
        while end < len(self.text) and self.text[end].isdigit():
            end += 1
        if end == k:
            self.ok = False
            return 0
        value = int(self.text[self.pos : end])
        self.pos = end
        if not -(2**31) <= value < 2**31:
            self.ok = False
            return 2**31 - 1 if value > 0 else -(2**31)
        return value


def cdiv(a: int, b: int) -> int:
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# --------------------------------------------------------------------------- what the client knows


@dataclass
class Pot:
    """pot.h's Pot: the chips each contributor put in, and the contributors."""

    chips: int
    contributors: list[int] = field(default_factory=list)

    def amount(self) -> int:
        return self.chips * len(self.contributors)


@dataclass
class HandInfo:
    """common.h's HANDINFO: a ``player P shows …, which is K`` line."""

    hand: list[Card]
    player: int
    kind: int


@dataclass
class State:
    """client.h's fields, as the player's ``Query`` reads them (same names)."""

    login_name: str = "uninitialized"
    names: list[str] = field(default_factory=list)
    my_id: int = -1
    initial_chips: int = 0
    round: int = 0  # the number of ``game starts`` seen
    chips: list[int] = field(default_factory=list)
    player_status: list[str] = field(default_factory=list)
    current_bets: list[int] = field(default_factory=list)
    all_chips_won_in_last_game: list[int] = field(default_factory=list)
    num_of_participating_players: int = 0
    player_list: list[int] = field(default_factory=list)
    out_of_game: bool = False
    dealer: int = 0
    bet_sequence: list[tuple[int, int]] = field(default_factory=list)
    community_cards: list[Card] = field(default_factory=list)
    hands: list[HandInfo] = field(default_factory=list)
    pots: list[Pot] = field(default_factory=list)
    won_chips: list[list[tuple[int, int]]] = field(default_factory=list)
    blind: int = 0
    last_raise_amount: int = 0
    hole_cards: list[Card] = field(default_factory=lambda: [("", ""), ("", "")])


DecideFn = Callable[[State, str], Decision]
ShowFn = Callable[[State], Sequence[Card]]


def call_always(state: State, round_name: str) -> Decision:
    """The default player: CALL (which ``decide`` turns into a check when nothing was bet)."""
    return ("CALL", 0)


def show_best(state: State) -> list[Card]:
    """The default ``Player::showdown``: the best five of the hole cards and the board."""
    return list(best_five([*state.hole_cards, *state.community_cards]))


@dataclass
class Transcript:
    """One run of the client: see the module's doc.  ``lines``: ``("recv" | "sent", line)``."""

    name: str
    lines: list[tuple[str, str]]
    errors: list[tuple[int, str]]
    warnings: list[str]
    exit_status: int | None
    final_chips: list[int]
    hands: int
    stalled: bool
    disconnected: bool
    state: State

    @property
    def received(self) -> list[str]:
        return [line for way, line in self.lines if way == "recv"]

    @property
    def sent(self) -> list[str]:
        return [line for way, line in self.lines if way == "sent"]

    @property
    def error_texts(self) -> list[str]:
        return [text for _, text in self.errors]

    @property
    def clean(self) -> bool:
        """It ended on ``game over`` (exit 0) without printing an error."""
        return self.exit_status == EXIT_END and not self.errors

    def why(self) -> str:
        """The errors with the lines they were printed at (for assertion messages)."""
        received = self.received
        return (
            "; ".join(
                f"{text} (at line {n} {received[n - 1]!r})" if 0 < n <= len(received) else text
                for n, text in self.errors
            )
            or f"exit {self.exit_status}"
        )


# --------------------------------------------------------------------------- the client


class _Abort(Exception):
    """A failed ``assert``: the process aborts (nothing is caught)."""


class _Undefined(Exception):
    """The C++ would have undefined behaviour here."""


class _EndOfFile(Exception):
    """boost::asio::read_until found the end of the connection."""


class _Stop(Exception):
    """The harness stops the client (``stall_at``, ``disconnect_at``)."""


class PpcaClient:
    """The original client as one program: ``start``, then ``feed`` each line, ``eof`` at the end.

    ``name`` is what ``Player::login_name()`` returns; ``player_id`` main's optional third
    argument (then the login is ``NAME_ID``).  ``stall_at=k``: the player never returns from
    its k-th decision (the client reads nothing more).  ``disconnect_at=k``: the process
    dies at its k-th ``action`` (``disconnected``; ``play`` closes the connection).
    """

    def __init__(
        self,
        name: str,
        decide: DecideFn | None = None,
        *,
        show: ShowFn | None = None,
        player_id: str | None = None,
        asserts: bool = True,
        stall_at: int | None = None,
        disconnect_at: int | None = None,
    ) -> None:
        self.name, self.player_id = name, player_id
        self.player_decide = decide or call_always
        self.player_show = show or show_best
        self.asserts = asserts
        self.stall_at, self.disconnect_at = stall_at, disconnect_at
        self.state = State()
        self.lines: list[tuple[str, str]] = []
        self.outbox: list[str] = []
        self.errors: list[tuple[int, str]] = []
        self.warnings: list[str] = []
        self.lineno = 0
        self.actions = 0
        self.exit_status: int | None = None
        self.stalled = self.disconnected = False
        self.done = False
        self._program: Iterator[None] | None = None

    # ---------------------------------------------------------------- the driver

    def start(self) -> list[str]:
        """Run up to the first read: returns the lines sent (the login)."""
        self._program = self._main()
        self._step(None)
        return self._flush()

    def feed(self, line: str) -> list[str]:
        """One line received (without its ``\\n``): returns the lines sent in answer.

        After the client has exited (or stalled) the line is left unread: not recorded.
        """
        if self.done:
            return []
        self.lineno += 1
        self.lines.append(("recv", line))
        self._step(line)
        return self._flush()

    def eof(self) -> None:
        """The connection ended: a client still reading throws (main prints it, returns -1)."""
        if not self.done:
            self._step(_EndOfFile())

    def _step(self, value: str | _EndOfFile | None) -> None:
        assert self._program is not None
        try:
            if isinstance(value, _EndOfFile):
                self._program.throw(value)
            elif value is None:
                next(self._program)
            else:
                self._program.send(value)
        except StopIteration:
            self.done = True
        except _Stop:
            self.done = True
        except _Abort as exc:
            self._err(str(exc))
            self.exit_status = EXIT_ABORT
            self.done = True
        except _Undefined as exc:
            self._err(f"[UB] {exc}")
            self.done = True

    def _flush(self) -> list[str]:
        out, self.outbox = self.outbox, []
        return out

    def transcript(self) -> Transcript:
        return Transcript(
            name=self.state.login_name,
            lines=list(self.lines),
            errors=list(self.errors),
            warnings=list(self.warnings),
            exit_status=self.exit_status,
            final_chips=list(self.state.chips),
            hands=self.state.round,
            stalled=self.stalled,
            disconnected=self.disconnected,
            state=self.state,
        )

    # ---------------------------------------------------------------- client.cpp's I/O

    def _err(self, text: str) -> None:
        self.errors.append((self.lineno, text))

    def _send(self, text: str) -> None:
        """Client::send: the line and its ``\\n``."""
        self.lines.append(("sent", text))
        self.outbox.append(text)

    def _receive(self) -> Iterator[None]:
        """Client::receive(std::string&): one line (``getline``: a ``\\r`` is kept)."""
        line = yield
        return line

    def _receive_fmt(self, count: int, fmt: str) -> Iterator[None]:
        """Client::receive(int, fmt, …): ``vsscanf`` assigns ``count`` values (a prefix match)."""
        msg = yield from self._receive()
        n, values = scan(fmt, msg)
        return n == count, values

    def _assert(self, ok: bool, expression: str, function: str) -> None:
        if self.asserts and not ok:
            raise _Abort(f"client: client.cpp: {function}: Assertion `{expression}' failed.")

    def _index(self, seq: list[Any], i: int, what: str) -> Any:
        if not 0 <= i < len(seq):
            raise _Undefined(f"{what}[{i}] of {len(seq)}")
        return seq[i]

    # ---------------------------------------------------------------- main.cpp

    def _main(self) -> Iterator[None]:
        try:
            initialized = yield from self._construct()
            if not initialized:
                self._err("[ERROR] Unable to initialize the client.")
                self.exit_status = EXIT_ERROR
                return
            while True:
                result = yield from self._loop()
                if result == LOOP_MSG_ERROR:
                    self.exit_status = EXIT_ERROR  # after show_final_stat
                    return
                if result == LOOP_END:
                    self.exit_status = EXIT_END
                    return
        except _EndOfFile:
            self._err(EOF_EXCEPTION)
            self.exit_status = EXIT_EXCEPTION

    def _construct(self) -> Iterator[None]:
        """Client::Client: login, the names, the initial chips."""
        st = self.state
        login = self.name if self.player_id is None else f"{self.name}_{self.player_id}"
        self._send(f"login {login}")
        confirmation = yield from self._receive()
        if confirmation[:6] != "login ":
            self._err("[ERROR] login is not confirmed")
            return False
        st.login_name = confirmation[6:]
        yield from self._receive_names()
        ok, values = yield from self._receive_fmt(1, "initial chips = %d")
        if not ok:
            self._err("[ERROR] unexpected message, expecting initial chips")
            return False
        st.initial_chips = values[0]
        # initialize_runtime_data
        k = len(st.names)
        st.chips = [st.initial_chips] * k
        st.player_status = [NOT_ACTIONED] * k
        st.current_bets = [0] * k
        st.all_chips_won_in_last_game = [0] * k
        return True

    def _receive_names(self) -> Iterator[None]:
        """Client::receive_names: every line up to ``player list end``; ours is my_id."""
        st = self.state
        msg = yield from self._receive()
        while msg != "player list end":
            st.names.append(msg)
            if msg == st.login_name:
                st.my_id = len(st.names) - 1
            msg = yield from self._receive()

    # ---------------------------------------------------------------- Client::loop

    def _loop(self) -> Iterator[None]:
        st = self.state
        msg = yield from self._receive()
        if msg == "game starts":
            st.round += 1
        elif msg == "game over":
            return LOOP_END
        else:
            self._err('[ERROR] unexpected message, expecting "game starts", or "game over".')
            return LOOP_MSG_ERROR
        ok = yield from self._receive_round_init_msgs()
        if not ok:
            return LOOP_MSG_ERROR
        game_continue = True
        for round_name in ROUNDS:
            if game_continue:  # TEST_LOOP_RESULT: the round is not played once the game ended
                result = yield from self._bet_loop(round_name)
                if result == LOOP_END:
                    game_continue = False
                elif result == LOOP_MSG_ERROR:
                    return LOOP_MSG_ERROR
        # clear_single_game_stat
        st.hands = []
        st.won_chips = []
        st.all_chips_won_in_last_game = [0] * len(st.all_chips_won_in_last_game)
        if game_continue:
            result = yield from self._showdown_loop()
            if result == LOOP_MSG_ERROR:
                return LOOP_MSG_ERROR
        result = yield from self._receive_winner()
        if result == LOOP_MSG_ERROR:
            return LOOP_MSG_ERROR
        return LOOP_NORMAL

    def _receive_round_init_msgs(self) -> Iterator[None]:
        st = self.state
        st.player_status = [NOT_ACTIONED] * len(st.player_status)
        st.current_bets = [0] * len(st.current_bets)
        st.bet_sequence = []
        st.community_cards = []
        st.pots = []
        ok, values = yield from self._receive_fmt(1, "number of players is %d")
        if not ok:
            self._err("[ERROR] unexpected message, expecting participants.")
            return False
        st.num_of_participating_players = n = values[0]
        msg = yield from self._receive()  # ONE line of ids, read with `iss >> int`
        iss = IStream(msg)
        # vector::resize keeps the old ids; a failed read leaves one unchanged (or 0).
        st.player_list = (st.player_list + [0] * max(0, n - len(st.player_list)))[: max(n, 0)]
        for i in range(n):
            st.player_list[i] = iss.int(st.player_list[i])
            self._index(st.names, st.player_list[i], "names")  # printed: names[player_list[i]]
        st.out_of_game = st.my_id not in st.player_list
        ok, values = yield from self._receive_fmt(1, "small blind is %d")
        if ok:
            st.blind = values[0]
        else:
            self._err("[ERROR] unexpected message, expecting the amount of small blind.")  # no return
        ok, values = yield from self._receive_fmt(1, "dealer is %d")
        if not ok:
            self._err("[ERROR] unexpected message, expecting dealer.")
            return False
        st.dealer = values[0]
        self._index(st.names, st.dealer, "names")
        for which in ("small", "big"):
            ok, values = yield from self._receive_fmt(2, "player %d blind bet %d")
            if not ok:
                self._err(f"[ERROR] unexpected message, expecting {which} blind.")
                return False
            player, bet = values
            self._index(st.chips, player, "chips")
            st.bet_sequence.append((player, bet))
            st.current_bets[player] += bet
            st.chips[player] -= bet
            if which == "small":
                st.blind = bet
        if not st.out_of_game:
            for i in (0, 1):
                ok, values = yield from self._receive_fmt(2, "hole card %c %c")
                if not ok:
                    self._err(f"[ERROR] unexcepted message, expecting hole card {i + 1}.")
                    return False
                st.hole_cards[i] = (values[0], values[1])
        return True

    # ---------------------------------------------------------------- Client::bet_loop

    def _bet_loop(self, round_name: str) -> Iterator[None]:
        st = self.state
        msg = yield from self._receive()
        iss = IStream(msg)
        first_word = iss.word("")
        if first_word == round_name:
            card = iss.word("")
            rank = iss.char("?")
            suit = iss.char("?")
            if card != "card":
                self._err(f"[ERROR] unexpected message, expecting {first_word} card.")
                return LOOP_MSG_ERROR
            st.community_cards.append((rank, suit))
            if round_name == "flop":
                for _ in range(2):
                    msg = yield from self._receive()
                    iss = IStream(msg)  # the variables keep their values on a failed read
                    first_word = iss.word(first_word)
                    card = iss.word(card)
                    rank = iss.char(rank)
                    suit = iss.char(suit)
                    if first_word != round_name or card != "card":
                        self._err(f"[ERROR] unexpected message, expecting {first_word} card.")
                        return LOOP_MSG_ERROR
                    st.community_cards.append((rank, suit))
            msg = yield from self._receive()
        elif first_word == "declare":
            if msg != "declare winner":
                self._err("[ERROR] unexpected message, expecting declare winner")
                return LOOP_MSG_ERROR
            return LOOP_END
        if msg != "round starts":
            self._err("[ERROR] unexpected message, expecting round starts")
            return LOOP_MSG_ERROR
        if round_name != "preflop":
            st.current_bets = [0] * len(st.current_bets)
            st.bet_sequence = []
        st.player_status = [s if s == FOLDED else NOT_ACTIONED for s in st.player_status]
        st.last_raise_amount = st.blind >> 1
        for _ in st.player_list:
            ok, values = yield from self._receive_fmt(2, "player %d has %d chips")
            if not ok:
                self._err("[ERROR] unexpected message, expecting player's number of chips")
                return LOOP_MSG_ERROR
            player_id, num_chips = values
            ours = self._index(st.chips, player_id, "chips")
            self._assert(ours == num_chips, "chips[player_id] == num_chips", "Client::bet_loop")
        # the actions
        while True:
            msg = yield from self._receive()
            if msg == "action":
                self.actions += 1
                if self.actions == self.disconnect_at:
                    self.disconnected = True
                    raise _Stop
                if self.actions == self.stall_at:
                    self.stalled = True
                    raise _Stop
                decision = self.player_decide(st, round_name)
                self.decide(decision, round_name)
                continue
            if msg == "round ends":
                return LOOP_NORMAL
            iss = IStream(msg)
            player = iss.word("")
            if not iss.ok:
                self._err("[ERROR] unexpected message, expecting players' bets or pot summary")
                return LOOP_MSG_ERROR
            if player == "pot":
                break
            if player != "player":
                self._err("[ERROR] unexpected message, expecting players' bets")
                return LOOP_MSG_ERROR
            player_id = iss.int(-1)
            if not iss.ok or player_id < 0 or player_id >= len(st.names):
                self._err(f"[ERROR] unexpected message, player id {player_id} is out of range")
                return LOOP_MSG_ERROR
            action = iss.word("")
            if not iss.ok:
                self._err("[ERROR] unexpected message, action not found")
                return LOOP_MSG_ERROR
            if action == "checks":
                st.player_status[player_id] = CHECKED
            elif action == "bets":
                bet_amount = iss.int(-1)
                if not iss.ok or bet_amount < 0:
                    self._err(f"[ERROR] unexpected message, bet amount {bet_amount} < 0")
                    return LOOP_MSG_ERROR
                previous_max_bet = max(st.current_bets)
                st.current_bets[player_id] += bet_amount
                st.chips[player_id] -= bet_amount
                st.bet_sequence.append((player_id, bet_amount))
                st.player_status[player_id] = BET
                if st.chips[player_id] == 0:
                    st.last_raise_amount = max(
                        st.current_bets[player_id] - previous_max_bet, st.last_raise_amount
                    )
                elif st.current_bets[player_id] != previous_max_bet:
                    st.last_raise_amount = st.current_bets[player_id] - previous_max_bet
            elif action == "folds":
                st.player_status[player_id] = FOLDED
            else:
                self._err(f"[ERROR] unexpected message, unknown action {action}")
                return LOOP_MSG_ERROR
        # the pots, up to `round ends`
        while msg != "round ends":
            iss = IStream(msg)
            word = iss.word("")
            if not iss.ok or word != "pot":
                self._err("[ERROR] unexpected message, expecting pot summary")
                return LOOP_MSG_ERROR
            pot_id = iss.int(0)
            if not iss.ok or pot_id < 0 or pot_id > len(st.pots):  # (size_t) pot_id > pots.size()
                self._err("[ERROR] unexpected message, pot_id > pot.size()")
                return LOOP_MSG_ERROR
            word = iss.word(word)
            if not iss.ok or word != "has":
                self._err("[ERROR] unexpected message, expecting 'has'")
                return LOOP_MSG_ERROR
            pot_amount = iss.int(0)
            if not iss.ok:
                self._err("[ERROR] unexpected message, expecting pot amount")
                return LOOP_MSG_ERROR
            word = iss.word(iss.word(iss.word(word)))  # `iss >> str >> str >> str`
            if not iss.ok or word != "by":
                self._err("[ERROR] unexpected message, expecting 'chips contributed by'")
                return LOOP_MSG_ERROR
            pot = Pot(0)
            while True:
                contributor = iss.int(0)
                if not iss.ok:
                    break
                pot.contributors.append(contributor)
            if not pot.contributors:
                self._err("[ERROR] unexpected message, expecting contributor list")
                return LOOP_MSG_ERROR
            pot.chips = cdiv(pot_amount, len(pot.contributors))
            if pot_id + 1 == len(st.pots):
                if not self._merge(st.pots[-1], pot):
                    self._err("[ERROR] the pots should be able to be merged")
                    return LOOP_MSG_ERROR
            else:
                st.pots.append(pot)
            msg = yield from self._receive()
        return LOOP_NORMAL

    def _merge(self, into: Pot, pot: Pot) -> bool:
        """Pot::merge: the same contributors (both lists sorted: asserted) add their chips."""
        for m in (into.contributors, pot.contributors):
            self._assert(m == sorted(m), "std::is_sorted(m.begin(), m.end())", "bool holdem::Pot::merge")
        if into.contributors != pot.contributors:
            return False
        into.chips += pot.chips
        return True

    # ---------------------------------------------------------------- Client::decide

    def decide(self, decision: Decision, round_name: str) -> None:
        """What the client sends for the player's decision (its own corrections, all-in caps)."""
        st = self.state
        kind, amount = decision
        kind = str(kind).upper()
        if kind == "CHECK":
            if st.bet_sequence:
                self.warnings.append("[WARNING] CANNOT check when another player has raised")
            self._send("check")
        elif kind == "FOLD":
            self._send("fold")
        elif kind == "CALL":
            if not st.bet_sequence:
                self.warnings.append("[WARNING] CANNOT call when no one has raised. check instead")
                self._send("check")
                return
            me = self._index(st.chips, st.my_id, "chips")
            to_bet = max(st.current_bets) - st.current_bets[st.my_id]
            to_bet = min(to_bet, me)  # insufficient chips to call: all in
            self._send(f"bet {to_bet}")
        elif kind == "RAISE":
            me = self._index(st.chips, st.my_id, "chips")
            to_bet = max(st.current_bets) - st.current_bets[st.my_id]
            if amount <= 0:
                if not st.bet_sequence:
                    self.warnings.append(
                        "[WARNING] CANNOT raise a non-positive quantity of chips. Check instead."
                    )
                    self._send("check")
                else:
                    self.warnings.append(
                        "[WARNING] CANNOT raise a non-positive quantity of chips. Call instead."
                    )
                    self.decide(("CALL", 0), round_name)
                return
            to_bet += amount
            if to_bet > me:
                to_bet = me  # insufficient chips to raise: all in
            elif to_bet != me and amount < st.last_raise_amount:
                if not st.bet_sequence:
                    self.warnings.append(
                        f"[WARNING] CANNOT raise {amount} that is smaller than the last raise "
                        f"{st.last_raise_amount}. Check instead."
                    )
                    self._send("check")
                else:
                    self.warnings.append(
                        f"[WARNING] CANNOT raise {amount} that is smaller than the last raise "
                        f"{st.last_raise_amount}. Call instead."
                    )
                    self.decide(("CALL", 0), round_name)
                return
            self._send(f"bet {to_bet}")
        else:
            raise ValueError(f"a decision is one of {DECISIONS}, not {kind!r}")

    # ---------------------------------------------------------------- showdown and winners

    def _showdown_loop(self) -> Iterator[None]:
        st = self.state
        msg = yield from self._receive()
        if msg == "declare winner":
            return LOOP_END
        if msg != "start showdown":
            self._err("[ERROR] unexpected message, expecting start showdown")
            return LOOP_MSG_ERROR
        while True:
            msg = yield from self._receive()
            if not msg:
                continue
            if msg[0] == "s":
                if msg == "showdown":
                    hand = list(self.player_show(st))
                    # `oss << rank << ' ' << suit << ' '` per card: a space at the end too
                    self._send("".join(f"{r} {s} " for r, s in hand))
            elif msg[0] == "p":
                n, values = scan("player %d shows %c %c %c %c %c %c %c %c %c %c, which is %d", msg)
                if n != 12:
                    self._err("[ERROR] unexpected message, expecting player's showdown")
                    return LOOP_MSG_ERROR
                player, kind = values[0], values[11]
                self._index(st.names, player, "names")
                self._index(list(HAND_STRING), kind, "HAND_STRING")
                cards = values[1:11]
                st.hands.append(HandInfo([(cards[i], cards[i + 1]) for i in range(0, 10, 2)], player, kind))
            elif msg[0] == "d" and msg == "declare winner":
                return LOOP_NORMAL
            # anything else is ignored

    def _receive_winner(self) -> Iterator[None]:
        st = self.state
        for i, pot in enumerate(st.pots):
            ok, values = yield from self._receive_fmt(2, "pot %d is shared by %d players")
            if not ok or values[0] != i:
                self._err(f"[ERROR] unexpected message, expecting winner of pot {i}")
                return LOOP_MSG_ERROR
            sharer_cnt = values[1]
            per_player = cdiv(pot.amount(), len(pot.contributors))
            for player in pot.contributors:
                self._index(st.all_chips_won_in_last_game, player, "all_chips_won_in_last_game")
                st.all_chips_won_in_last_game[player] -= per_player
            pot_chips: list[tuple[int, int]] = []
            for _ in range(sharer_cnt):
                ok, values = yield from self._receive_fmt(2, "player %d gets %d chips")
                if not ok:
                    self._err(f"[ERROR] unexpected messag,e expecting winner of pot {i}")  # sic
                    return LOOP_MSG_ERROR
                player, num_of_chips = values
                self._index(st.chips, player, "chips")
                st.chips[player] += num_of_chips
                pot_chips.append((player, num_of_chips))
                st.all_chips_won_in_last_game[player] += num_of_chips
            st.won_chips.append(pot_chips)
        return LOOP_NORMAL


# --------------------------------------------------------------------------- the connection


async def play(host: str, port: int, name: str, decide: DecideFn | None = None, **options: Any) -> Transcript:
    """Run the client against ``host:port`` until it exits (or the harness stops it).

    ``options`` are :class:`PpcaClient`'s.  A stalled client (``stall_at``) reads nothing
    more; the connection is drained unparsed until the server closes it.  The client's
    exit closes the connection, as the process's would.
    """
    client = PpcaClient(name, decide, **options)
    stream = await trio.open_tcp_stream(host, port)
    async with stream:
        for line in client.start():
            await _send(stream, line)
        buffer = bytearray()
        while not client.done:
            try:
                data = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                data = b""
            if not data:
                client.eof()
                break
            buffer += data
            while not client.done and (end := buffer.find(b"\n")) >= 0:
                raw = bytes(buffer[:end])
                del buffer[: end + 1]
                for line in client.feed(raw.decode("latin-1")):
                    await _send(stream, line)
        if client.stalled:
            while True:
                try:
                    if not await stream.receive_some(65536):
                        break
                except trio.BrokenResourceError:
                    break
    return client.transcript()


async def _send(stream: trio.SocketStream, line: str) -> None:
    # A broken connection: the client finds out at its next read.
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await stream.send_all(line.encode("latin-1") + b"\n")
