#!/usr/bin/env python3
"""Conformance harness against the original PPCA 2014 Hold'em server (issue 24).

A developer tool, not part of the test suite.  The original server and client
(``zzy7896321/holdem`` on GitHub) have no licence: nothing of them is in this
repository.  Get a checkout yourself (``git clone https://github.com/zzy7896321/holdem``)
and pass it with ``--original``; the tool copies what it builds into a work directory
(default ``/tmp/ppca-conformance``) and changes only that copy.  Building needs g++ and
Boost.Asio (Debian/Ubuntu: ``apt-get install -y g++ libboost-dev libboost-system-dev``).

Subcommands (docs/ppca-conformance.md):

``run``
    Build the server with four hooks applied by text substitution to the copy (the
    deck's shuffle seeded from ``PPCA_DECK_SEED`` instead of the clock; the first
    dealer's ``rand() % n`` seeded from ``PPCA_DEALER_SEED``; each shuffled deck
    written to the message log as ``[deck] AS KD …`` in deal order; the listening
    socket bound to 127.0.0.1), then play games at 2/3/6/9 seats against raw-protocol
    bots written here (random legal and illegal replies, aimed at the corners), one
    server process per game.  Each game's message log (the server's ``log.msg()``:
    ``[broadcast]``/``[send]``/``[receive]`` lines; standard error when ``-l`` is not
    given) goes to ``WORK/logs/<game>.log``.
``replay``
    Parse the logs into hands and replay each through ``HoldemState(rules="ppca")``
    with the server's cards, dealer, chips and blinds, feeding each raw client reply
    through the ppca dialect's decoder (``protocol.holdem_ppca``, as
    ``referee/seats/ppca.py`` does).  Compare each player's chips after the hand, the
    actions, the pot list at each round end and the payouts; count equal / equal but
    for the pot list / different and classify every difference.  ``--show HAND``
    prints one hand side by side.
``measure``
    ``run`` then ``replay``.
``client-vs-referee``
    Build the original client (its ``client/*.cpp`` with a simple ``Player`` written
    here into the work directory; assertions on) and run K of them against ``referee
    serve --game holdem --dialect ppca --rules ppca --table-size K`` at 3, 6 and 9
    seats; report how each client ended and its first error line.

Example::

    .venv/bin/python scripts/ppca_original.py measure --original ~/src/holdem --games 600
    .venv/bin/python scripts/ppca_original.py replay --show s6-g0012:h5
    .venv/bin/python scripts/ppca_original.py client-vs-referee --original ~/src/holdem
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.holdem import CARD_IDS, CARD_NAMES  # noqa: E402
from protocol.relay import RelayError  # noqa: E402
from referee.core.verdict import BotFault, ProtocolError, Verdict  # noqa: E402
from referee.games.holdem import SHOWING, HoldemState, best_five  # noqa: E402
from referee.seats.ppca import PpcaSeat, parse_client_line  # noqa: E402

DEFAULT_WORK = Path("/tmp/ppca-conformance")
SEAT_COUNTS = (2, 3, 6, 9)
CHIP_CHOICES = (40, 100, 250, 500, 1000)

# ====================================================================== building


def _substitute(text: str, old: str, new: str, what: str) -> str:
    if old not in text:
        raise SystemExit(f"hook '{what}': anchor not found ({old!r}); is this zzy7896321/holdem?")
    return text.replace(old, new)


def _hook_server(src: Path) -> None:
    """The four hooks, applied to the copy in ``src`` (never to the checkout)."""
    deck = (src / "Deck.h").read_text()
    helper = (
        '#include "Card.h"\n#include <cstdlib>\n#include <iostream>\n'
        "static unsigned ppca_env_seed(const char* name) {\n"
        "    const char* v = std::getenv(name);\n"
        "    return v ? (unsigned) std::strtoul(v, nullptr, 10) : 0u;\n}\n"
    )
    deck = _substitute(deck, '#include "Card.h"\n', helper, "helper")
    deck = _substitute(
        deck,
        "static unsigned seed = std::chrono::system_clock::now().time_since_epoch().count();",
        'static unsigned seed = ppca_env_seed("PPCA_DECK_SEED");',
        "deck seed",
    )
    deck = _substitute(
        deck,
        "std::shuffle(cards.begin(), cards.end(), generator);",
        "std::shuffle(cards.begin(), cards.end(), generator);\n"
        '        std::cerr << "[deck]";\n'
        "        for (auto it = cards.rbegin(); it != cards.rend(); ++it)\n"
        "            std::cerr << ' ' << it->rank << it->suit;\n"
        "        std::cerr << std::endl;",
        "deck log",
    )
    (src / "Deck.h").write_text(deck)
    game = (src / "Game.h").read_text()
    game = _substitute(
        game,
        "dealer = rand() % n;",
        'srand(ppca_env_seed("PPCA_DEALER_SEED"));\n\t\tdealer = rand() % n;',
        "dealer seed",
    )
    (src / "Game.h").write_text(game)
    server = (src / "Server.h").read_text()
    server = _substitute(
        server,
        "tcp::endpoint(tcp::v4(), port)",
        "tcp::endpoint(boost::asio::ip::address_v4::loopback(), port)",
        "loopback",
    )
    (src / "Server.h").write_text(server)


def _digest(paths: list[Path], extra: str) -> str:
    h = hashlib.sha256(extra.encode())
    for p in sorted(paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _compile(sources: list[Path], out: Path, flags: list[str], cwd: Path) -> None:
    cmd = ["g++", *flags, "-w", *[str(s) for s in sources], "-o", str(out), "-lpthread", "-lboost_system"]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise SystemExit(
            f"building {out.name} failed:\n{tail}\n"
            "(needs g++ and Boost.Asio: apt-get install -y g++ libboost-dev libboost-system-dev)"
        )


def build_server(original: Path, work: Path) -> Path:
    orig = original / "server"
    if not (orig / "Game.h").is_file():
        raise SystemExit(f"{original}: no server/Game.h (pass a checkout of zzy7896321/holdem)")
    files = [p for p in orig.iterdir() if p.suffix in (".h", ".cpp")]
    key = _digest(files, "server-hooks-v1")
    binary = work / "build" / f"server-{key}"
    if binary.exists():
        return binary
    src = work / "build" / f"server-src-{key}"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for p in files:
        shutil.copy2(p, src / p.name)
    _hook_server(src)
    print(f"building the original server (hooked copy in {src}) ...", flush=True)
    _compile(sorted(src.glob("*.cpp")), binary, ["-std=c++11", "-O2", "-DNDEBUG"], src)
    return binary


# A simple Player for the original client (written into the work directory only).
_PLAYER_CPP = r"""
#include "client.h"
#include "player.h"
#include "common.h"
#include <cstdlib>
#include <unistd.h>

static int roll(int n) { return std::rand() % n; }

void Player::init() { std::srand(getpid()); }
void Player::destroy() {}
std::string Player::login_name() { return "orig"; }
void Player::login_name(std::string) {}

static decision_type decide_any() {
    int r = roll(20);
    if (r == 0) return make_decision(FOLD);
    if (r <= 3) return make_decision(RAISE, 1 + roll(60));
    if (r == 4) return make_decision(CHECK);
    return make_decision(CALL);
}

decision_type Player::preflop() { return decide_any(); }
decision_type Player::flop() { return decide_any(); }
decision_type Player::turn() { return decide_any(); }
decision_type Player::river() { return decide_any(); }

hand_type Player::showdown() {
    hand_type hand;
    const auto& board = query.community_cards();
    hand[0] = query.hole_cards()[0];
    hand[1] = query.hole_cards()[1];
    for (int i = 0; i < 3; ++i) hand[2 + i] = board[i];
    return hand;
}

void Player::game_end() {}
"""


def build_client(original: Path, work: Path) -> Path:
    orig = original / "client"
    if not (orig / "client.cpp").is_file():
        raise SystemExit(f"{original}: no client/client.cpp (pass a checkout of zzy7896321/holdem)")
    files = [p for p in orig.iterdir() if p.suffix in (".h", ".cpp")]
    key = _digest(files, "client-v1" + _PLAYER_CPP)
    binary = work / "build" / f"client-{key}"
    if binary.exists():
        return binary
    src = work / "build" / f"client-src-{key}"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for p in files:
        if p.name != "example.cpp":
            shutil.copy2(p, src / p.name)
    (src / "simple_player.cpp").write_text(_PLAYER_CPP)
    print(f"building the original client with a simple Player (in {src}), assertions on ...", flush=True)
    sources = [src / n for n in ("common.cpp", "client.cpp", "simple_player.cpp", "main.cpp")]
    _compile(sources, binary, ["-std=c++11", "-O1", "-g"], src)
    return binary


# ====================================================================== the raw bots


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_RANK_VALUE = {r: i for i, r in enumerate("23456789TJQKA")}


class RawBot:
    """One client speaking the server's protocol directly; random replies, legal or not,
    weighted towards the corners where the server and the engine may disagree."""

    def __init__(self, index: int, port: int, rng: random.Random) -> None:
        self.index = index
        self.port = port
        self.rng = rng
        self.error: str | None = None
        self.names: list[str] = []
        self.seat = -1

    # -- connection

    def connect(self, deadline: float) -> None:
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.settimeout(60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")
        self.send(f"login b{self.index}")
        confirmation = self.readline()
        if not confirmation.startswith("login "):
            raise RuntimeError(f"login not confirmed: {confirmation!r}")
        self.login = confirmation[6:]

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode() + b"\n")

    def readline(self) -> str:
        raw = self.file.readline()
        if not raw:
            raise EOFError
        return raw.decode("ascii", "replace").rstrip("\n")

    # -- the game

    def run(self) -> None:
        try:
            self._loop()
        except EOFError:
            pass
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            # Shut the socket down (the makefile keeps it open): the server must not wait.
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                self.sock.close()

    def _loop(self) -> None:
        while True:
            line = self.readline()
            if line == "player list end":
                self.seat = self.names.index(self.login)
                n = len(self.names)
                self.chips = [0] * n
                self.bets = [0] * n
                break
            self.names.append(line)
        expect_list = False
        while True:
            line = self.readline()
            words = line.split()
            if expect_list:
                self.participants = [int(w) for w in words]
                expect_list = False
            elif line == "game starts":
                self.bets = [0] * len(self.names)
                self.folded: set[int] = set()
                self.hole: list[str] = []
                self.board: list[str] = []
            elif line.startswith("number of players is"):
                expect_list = True
            elif line.startswith("small blind is"):
                self.blind = int(words[-1])
                self.last_raise = 2 * self.blind
            elif line.startswith("player") and len(words) >= 4 and words[2] == "blind":
                p, x = int(words[1]), int(words[4])
                self.bets[p] += x
            elif line.startswith("hole card"):
                self.hole.append(words[2] + words[3])
            elif words and words[0] in ("flop", "turn", "river") and len(words) == 4:
                self.board.append(words[2] + words[3])
            elif line == "round starts":
                self.last_raise = 2 * self.blind
            elif len(words) == 5 and words[0] == "player" and words[2] == "has":
                self.chips[int(words[1])] = int(words[3])
            elif len(words) == 4 and words[0] == "player" and words[2] == "bets":
                p, x = int(words[1]), int(words[3])
                top = max(self.bets)
                self.bets[p] += x
                self.chips[p] -= x
                self.last_raise = max(self.last_raise, self.bets[p] - top)
            elif len(words) == 3 and words[0] == "player" and words[2] == "folds":
                self.folded.add(int(words[1]))
            elif line == "round ends":
                self.bets = [0] * len(self.names)
            elif line == "action":
                self.send(self.action())
            elif line == "showdown":
                self.send(self.showdown())
            elif line == "game over":
                return

    def action(self) -> str:
        rng, me = self.rng, self.seat
        chips, bet = self.chips[me], self.bets[me]
        to_call = max(self.bets) - bet
        call = min(to_call, chips)
        min_raise = max(self.last_raise, 2 * self.blind)
        if chips == 0:  # asked while all-in (the server asks)
            return rng.choices(["bet 0", "check", "fold", "call"], [6, 3, 1, 1])[0]
        others = [p for p in self.participants if p != me and p not in self.folded]
        if others and all(self.chips[p] == 0 for p in others) and chips > call and rng.random() < 0.35:
            return f"bet {rng.randint(call + 1, chips)}"  # a raise nobody can answer
        options = {
            "call": 30,
            "check": 9,
            "bet0": 7,
            "fold": 4,
            "minraise": 10,
            "raise": 6,
            "allin": 8,
            "short": 3,
            "under": 2,
            "over": 2,
            "raise5": 3,
            "callword": 2,
            "Check": 1,
            "betnone": 0.7,
            "betneg": 0.5,
            "betextra": 0.5,
            "garbage": 1,
        }
        kind = rng.choices(list(options), list(options.values()))[0]
        if kind == "call":
            return f"bet {call}"
        if kind == "check":
            return "check"
        if kind == "bet0":
            return "bet 0"
        if kind == "fold":
            return "fold"
        if kind == "minraise":
            return f"bet {min(chips, to_call + min_raise)}"
        if kind == "raise":
            return f"bet {rng.randint(min(chips, to_call + 1), chips)}"
        if kind == "allin":
            return f"bet {chips}"
        if kind == "short":
            return f"bet {min(chips, to_call + rng.randint(1, max(1, min_raise - 1)))}"
        if kind == "under":
            return f"bet {max(0, to_call - 1 - rng.randint(0, 2))}"
        if kind == "over":
            return f"bet {chips + 1 + rng.randint(0, 5)}"
        if kind == "raise5":
            return "raise 5"
        if kind == "callword":
            return "call"
        if kind == "Check":
            return "Check"
        if kind == "betnone":
            return "bet"
        if kind == "betneg":
            return rng.choice(["bet -2", "bet -1"])
        if kind == "betextra":
            return f"bet {call} now"
        return rng.choice(["allin", "pass", "xyzzy", "bet x", "BET 5"])

    def showdown(self) -> str:
        rng = self.rng
        own = self.hole + self.board
        ids = [CARD_IDS[c] for c in own]

        def spaced(cards: list[str]) -> str:
            return " ".join(f"{c[0]} {c[1]}" for c in cards)

        best = [CARD_NAMES[c] for c in best_five(ids)[1]] if len(ids) == 7 else own[:5]
        kind = rng.choices(
            ["best", "worse", "wrong", "few", "dup", "lower", "compact", "extra", "garbage"],
            [60, 14, 5, 5, 5, 2, 2, 3, 2],
        )[0]
        if kind == "best":
            return spaced(best)
        if kind == "worse":
            return spaced(rng.sample(own, 5))
        if kind == "wrong":
            stranger = rng.choice([c for c in CARD_NAMES if c not in own])
            return spaced([*best[:4], stranger])
        if kind == "few":
            return spaced(best[: rng.choice([3, 4])])
        if kind == "dup":
            return spaced([*best[:4], best[0]])
        if kind == "lower":
            return spaced(best).lower()
        if kind == "compact":
            return " ".join(best)
        if kind == "extra":
            return spaced([*best, next(c for c in own if c not in best)])
        return rng.choice(["", "muck", "A S", "best"]) or "muck"


# ====================================================================== running games


@dataclass
class GameSpec:
    name: str
    seats: int
    chips: int
    seed: int


def play_game(server: Path, spec: GameSpec, logs: Path) -> dict[str, Any]:
    log_path = logs / f"{spec.name}.log"
    started = time.monotonic()
    for _attempt in range(3):
        port = _free_port()
        env = dict(os.environ, PPCA_DECK_SEED=str(spec.seed), PPCA_DEALER_SEED=str(spec.seed))
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [str(server), str(port), str(spec.seats), str(spec.chips), "-n", "1"],
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=env,
            )
            bots = [RawBot(i, port, random.Random(f"{spec.seed}-{i}")) for i in range(spec.seats)]
            try:
                deadline = time.monotonic() + 10
                for bot in bots:  # one at a time: bot i gets seat i
                    bot.connect(deadline)
            except (OSError, RuntimeError) as exc:
                proc.kill()
                proc.wait()
                if proc.returncode is not None and _attempt < 2:
                    continue
                return {"game": spec.name, "error": f"could not connect: {exc}"}
            threads = [threading.Thread(target=bot.run, daemon=True) for bot in bots]
            for t in threads:
                t.start()
            try:
                rc = proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = proc.wait()
            for t in threads:
                t.join(timeout=10)
        errors = [b.error for b in bots if b.error]
        return {
            "game": spec.name,
            "seats": spec.seats,
            "chips": spec.chips,
            "seed": spec.seed,
            "server_rc": rc,
            "bot_errors": errors,
            "seconds": round(time.monotonic() - started, 2),
        }
    return {"game": spec.name, "error": "no free port"}


def cmd_run(args: argparse.Namespace) -> None:
    work = Path(args.work)
    server = build_server(Path(args.original).expanduser(), work)
    logs = work / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    seat_counts = [int(s) for s in args.seats.split(",")]
    rng = random.Random(args.seed)
    specs = []
    for i in range(args.games):
        seats = seat_counts[i % len(seat_counts)]
        specs.append(
            GameSpec(f"s{seats}-g{i:04d}", seats, rng.choice(CHIP_CHOICES), args.seed * 1_000_003 + i)
        )
    print(f"playing {len(specs)} games at {args.seats} seats, {args.jobs} at a time ...", flush=True)
    started = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for k, res in enumerate(pool.map(lambda s: play_game(server, s, logs), specs), 1):
            results.append(res)
            if k % 50 == 0 or k == len(specs):
                print(f"  {k}/{len(specs)} games, {time.monotonic() - started:.0f} s", flush=True)
    (work / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    bad = [r for r in results if r.get("error") or r.get("server_rc") or r.get("bot_errors")]
    print(f"logs in {logs}; {len(bad)} game(s) with a problem (see {work / 'games.jsonl'})")
    for r in bad[:5]:
        print("  ", r)


# ====================================================================== parsing the logs


@dataclass
class Req:
    """One ``action`` or ``showdown`` the server sent, the reply, and what the server did."""

    line_no: int
    seat: int
    street: Any  # 0..3, or "show"
    reply: str = ""
    allin: bool = False  # the player had no chips when asked
    covering: bool = False  # every other player still in the hand had no chips
    to_call: int = 0
    outcome: Any = None  # ("fold",) / ("put", x, checked) / ("show", category)
    engine: Any = None  # the engine's outcome for this reply, once replayed
    engine_note: str = ""


@dataclass
class Hand:
    hid: str
    n: int
    names: list[str]
    deck: list[int] | None
    line_no: int
    participants: list[int] = field(default_factory=list)
    sb: int = 0
    dealer: int = -1
    blinds: list[tuple[int, int]] = field(default_factory=list)
    start_chips: list[int] = field(default_factory=list)
    hole_sent: dict[int, list[int]] = field(default_factory=dict)
    board_seen: list[int] = field(default_factory=list)
    reqs: list[Req] = field(default_factory=list)
    pot_rounds: list[list[tuple[int, tuple[int, ...]]]] = field(default_factory=list)
    payouts: list[list[tuple[int, int]]] = field(default_factory=list)
    puts: list[int] = field(default_factory=list)
    gets: list[int] = field(default_factory=list)
    folded: set[int] = field(default_factory=set)
    incidents: list[tuple[int, str, str]] = field(default_factory=list)
    complete: bool = False

    def end_chips(self) -> list[int]:
        return [c - p + g for c, p, g in zip(self.start_chips, self.puts, self.gets, strict=True)]


_LINE = re.compile(r"^\[(broadcast|send|receive)\] (?:\(([^)]*)\) )?(.*)$")


def parse_log(path: Path) -> tuple[list[Hand], str | None]:
    """The hands of one game's message log, and an error if the game broke off."""
    game = path.stem
    names: list[str] = []
    seat_of: dict[str, int] = {}
    hands: list[Hand] = []
    hand: Hand | None = None
    deck: list[int] | None = None
    error = None
    in_names = True
    chips: list[int] = []
    bets: list[int] = []
    street: Any = 0
    pots: list[tuple[int, tuple[int, ...]]] = []
    pots_round_start = 0
    expect_list = False
    pending: Req | None = None  # the request whose reply's broadcasts we are reading
    game_no = 0
    lines = path.read_text(errors="replace").splitlines()
    for no, text in enumerate(lines, 1):
        if text.startswith("[deck]"):
            deck = [CARD_IDS[c] for c in text.split()[1:]]
            continue
        if text.startswith("[Exception]"):
            error = text
            break
        m = _LINE.match(text)
        if not m:
            continue
        kind, who, msg = m.groups()
        if kind == "broadcast" and in_names:
            if msg == "player list end":
                in_names = False
                seat_of = {name: i for i, name in enumerate(names)}
            else:
                names.append(msg)
            continue
        if kind == "broadcast" and msg == "game starts":
            game_no += 1
            n = len(names)
            hand = Hand(f"{game}:h{game_no}", n, names, deck, no)
            hand.puts, hand.gets, hand.start_chips = [0] * n, [0] * n, [0] * n
            deck = None
            hands.append(hand)
            chips, bets, street, pots, pending = [0] * n, [0] * n, 0, [], None
            continue
        if hand is None:
            continue
        words = msg.split()
        if kind == "send":
            seat = seat_of[who]
            if msg.startswith("hole card"):
                hand.hole_sent.setdefault(seat, []).append(CARD_IDS[words[2] + words[3]])
            elif msg in ("action", "showdown"):
                req = Req(no, seat, "show" if msg == "showdown" else street)
                req.allin = msg == "action" and chips[seat] == 0
                others = [p for p in hand.participants if p != seat and p not in hand.folded]
                req.covering = all(chips[p] == 0 for p in others)
                req.to_call = max(bets) - bets[seat]
                hand.reqs.append(req)
                pending = req
            continue
        if kind == "receive":
            assert pending is not None and pending.seat == seat_of[who], (path, no)
            pending.reply = msg
            if pending.street == "show":
                pending = None
            continue
        # broadcasts
        if expect_list:
            hand.participants = [int(w) for w in words]
            expect_list = False
        elif msg.startswith("number of players is"):
            expect_list = True
        elif msg.startswith("small blind is"):
            hand.sb = int(words[-1])
        elif msg.startswith("dealer is"):
            hand.dealer = int(words[-1])
        elif len(words) == 5 and words[2] == "blind":
            p, x = int(words[1]), int(words[4])
            hand.blinds.append((p, x))
            bets[p] += x
            hand.puts[p] += x
        elif msg == "round starts":
            pots_round_start = len(pots)
        elif len(words) == 5 and words[0] == "player" and words[2] == "has":
            p, c = int(words[1]), int(words[3])
            chips[p] = c
            if street == 0:  # the preflop round's chips are after the blinds
                hand.start_chips[p] = c + hand.puts[p]
        elif len(words) == 4 and words[0] == "player" and words[2] == "bets":
            p, x = int(words[1]), int(words[3])
            bets[p] += x
            chips[p] -= x
            hand.puts[p] += x
            if pending is not None and pending.seat == p:
                checked = bool(pending.outcome and pending.outcome[0] == "check")
                pending.outcome = ("put", x, checked)
        elif len(words) == 3 and words[0] == "player" and words[2] == "checks":
            if pending is not None and pending.seat == int(words[1]):
                pending.outcome = ("check",)
        elif len(words) == 3 and words[0] == "player" and words[2] == "folds":
            p = int(words[1])
            hand.folded.add(p)
            if pending is not None and pending.seat == p:
                pending.outcome = ("fold",)
                if pending.allin:
                    hand.incidents.append((no, "server asked an all-in player and folded it", pending.reply))
        elif msg.startswith("pot ") and "contributed by" in msg:
            i, amount = int(words[1]), int(words[3])
            contributors = tuple(sorted(int(w) for w in words[7:]))
            if i == len(pots):
                pots.append((amount, contributors))
                if len(contributors) == 1:
                    hand.incidents.append((no, "one-player pot", msg))
            else:
                pots[i] = (pots[i][0] + amount, pots[i][1])
                where = "across rounds" if i < pots_round_start else "within a round"
                hand.incidents.append((no, f"pots merged {where}", msg))
        elif msg == "round ends":
            live = [p for p in hand.participants if p not in hand.folded]
            top = max(bets)
            if len(live) > 1 and any(chips[p] > 0 and bets[p] < top for p in live):
                hand.incidents.append((no, "round ended with a bet unanswered", ""))
            hand.pot_rounds.append(list(pots))
            bets = [0] * hand.n
            pending = None
        elif words and words[0] in ("flop", "turn", "river") and len(words) == 4:
            hand.board_seen.append(CARD_IDS[words[2] + words[3]])
            street = {"flop": 1, "turn": 2, "river": 3}[words[0]]
        elif msg == "start showdown":
            street = "show"
        elif len(words) >= 3 and words[0] == "player" and words[2] == "shows":
            p = int(words[1])
            category = int(words[-1])
            for r in reversed(hand.reqs):
                if r.seat == p and r.street == "show":
                    r.outcome = ("show", category)
                    break
        elif msg == "declare winner":
            pending = None
        elif len(words) == 7 and words[0] == "pot" and words[2] == "is":
            hand.payouts.append([])
        elif len(words) == 5 and words[0] == "player" and words[2] == "gets":
            p, c = int(words[1]), int(words[3])
            hand.payouts[-1].append((p, c))
            hand.gets[p] += c
            if p in hand.folded:
                hand.incidents.append((no, "a folded player paid", msg))
            if len(hand.payouts) == len(pots):
                hand.complete = True
    if hands and not hands[-1].complete:
        hands.pop()  # broken off (or no payout seen)
    return hands, error


# ====================================================================== replaying


def _history_entries(text: bytes) -> list[tuple[int, str, int]]:
    out = []
    for entry in re.findall(r"(\d+)([a-z])(\d+)", text.decode()):
        out.append((int(entry[0]), entry[1], int(entry[2])))
    return out


def _norm_server(outcome: Any) -> Any:
    if outcome is None:
        return ("none",)
    if outcome[0] == "check":
        return ("put", 0)
    if outcome[0] == "put":
        return ("put", outcome[1])
    return outcome[:2]


def _classify_reply(req: Req) -> str:
    """Why the server and the engine judged the same reply differently."""
    words = req.reply.split()
    w0 = words[0] if words else ""
    server, engine = _norm_server(req.outcome), req.engine
    street = req.street
    note = req.engine_note
    if street == "show":
        if req.reply != req.reply.upper() and req.reply.upper() != req.reply:
            return "showdown: lower-case cards (server: invalid, engine: valid)"
        if len(words) == 5:
            return "showdown: cards without spaces (server reads them, engine: muck)"
        if len(words) > 10:
            return "showdown: more than five cards (server reads the first five, engine: muck)"
        return f"showdown judged differently ({req.reply!r})"
    well_formed_bet = len(words) == 2 and w0 == "bet" and words[1].isdigit()
    if words == ["bet"]:
        return "bare 'bet': the server's `iss >> bet` leaves its int uninitialised (undefined behaviour)"
    if server == ("fold",) and engine != ("fold",):
        if w0 == "check" and street == 0:
            return "preflop check: the server folds it, the engine allows it"
        if w0 in ("raise", "call"):
            return f"non-bet word accepted by the engine ('{w0}'; the server folds all but check/fold/bet N)"
        if w0 == "check":
            return "check folded by the server, allowed by the engine"
        if well_formed_bet:
            return "bet folded by the server, accepted by the engine"
        return f"reply folded by the server, accepted by the engine ({req.reply!r})"
    if engine == ("fold",) and server != ("fold",):
        if well_formed_bet:
            if "every other player is all-in" in note:
                return "bet accepted by the server when no raise is possible (every other player all-in)"
            if "short all-in" in note or "not reopened" in note:
                return "bet accepted by the server facing a short all-in"
            return f"bet accepted by the server, folded by the engine ({_generic(note)})"
        if w0 == "bet":
            return "malformed bet read by the server ('bet', 'bet -2', 'bet x', 'bet N word')"
        if w0 == "check":
            return f"check accepted by the server, folded by the engine ({_generic(note)})"
        return f"reply accepted by the server, folded by the engine ({req.reply!r})"
    return f"amounts differ (server {server}, engine {engine})"


def _generic(note: str) -> str:
    return re.sub(r"\d+", "N", note)


class _SeatStandIn:
    """Stands in for a ``PpcaSeat`` when its ``_answer`` (the dialect's decoding of one
    client line, stateless but for the fault it sets aside) is called on a reply."""

    _folded: BotFault | None = None


@dataclass
class Outcome:
    verdict: str  # "equal", "pots", "different", "error"
    cause: str
    line_no: int
    engine_actions: list[tuple[Any, int, Any]]
    server_actions: list[tuple[Any, int, Any]]
    engine_pots: list[list[tuple[int, tuple[int, ...]]]]
    engine_payouts: list[list[tuple[int, int]]]
    engine_end: list[int]
    extra_asks: list[tuple[int, Any]]
    checks: dict[str, bool]


def replay(hand: Hand) -> Outcome:
    n = hand.n
    if hand.deck is None:
        raise ValueError("no [deck] line before the hand (not a hooked server?)")
    order = sorted(hand.participants)
    m = len(order)
    deck = hand.deck
    hole = {s: [deck[i], deck[m + i]] for i, s in enumerate(order)}
    board = [deck[2 * m + 1], deck[2 * m + 2], deck[2 * m + 3], deck[2 * m + 5], deck[2 * m + 7]]
    if hole != hand.hole_sent or board[: len(hand.board_seen)] != hand.board_seen:
        raise ValueError("the deck line does not match the cards dealt")
    snapshots: list[list[tuple[int, tuple[int, ...]]]] = []

    class Snapshotting(HoldemState):
        """The pots at each round's end: _end_round goes on to one of these three (a hand
        whose blinds put everyone all-in ends its rounds inside the constructor)."""

        def _snapshot(self) -> None:
            if self.street_commit:  # not the hand's first round starting
                snapshots.append([(amount, tuple(sorted(seats))) for amount, seats in self._pots])

        def _begin_round(self) -> None:
            self._snapshot()
            super()._begin_round()

        def _award(self, seat: int) -> None:
            self._snapshot()
            super()._award(seat)

        def _showdown(self, contenders: list[int]) -> None:
            self._snapshot()
            super()._showdown(contenders)

    state = Snapshotting(
        n,
        random.Random(0),
        chips=hand.start_chips,
        small_blinds=(hand.sb,),
        hands_per_level=1,
        first_dealer=hand.dealer,
        rules="ppca",
    )
    blinds = [(s, x) for s, letter, x in _history_entries(state._history) if letter in "sb"][:2]
    if state.dealer != hand.dealer or blinds != hand.blinds:
        raise ValueError(f"set-up differs: dealer {state.dealer}, blinds {blinds} vs {hand.blinds}")
    state.set_cards(hole, board)

    queues: dict[tuple[int, Any], collections.deque[Req]] = collections.defaultdict(collections.deque)
    for r in hand.reqs:
        if not r.allin:
            queues[(r.seat, r.street)].append(r)
    consumed: list[Req] = []
    extra: list[tuple[int, Any]] = []
    engine_actions: list[tuple[Any, int, Any]] = []
    while not state.is_terminal():
        state.drain_events()
        for seat in state.to_act():
            line = state.request(seat)
            showing = state.phase == SHOWING
            street = "show" if showing else state.street
            q = queues.get((seat, street))
            req = q.popleft() if q else None
            if req is None:
                extra.append((seat, street))
                raw = "fold"
            else:
                raw = req.reply
                consumed.append(req)
            history_before = state._history
            data = raw.encode()
            if data.endswith(b"\r"):
                data = data[:-1]
            note = ""
            try:
                # What the ppca seat does with a client's line (referee/seats/ppca.py).
                _, data = parse_client_line(data)
                seat_stand_in = _SeatStandIn()
                _, reply = PpcaSeat._answer(seat_stand_in, line, data, 0)  # type: ignore[arg-type]
                fault = getattr(seat_stand_in, "_folded", None)
            except RelayError as exc:
                fault = BotFault(Verdict.PROTOCOL, str(exc))
            if fault is not None:
                note = f"{fault.verdict.value}: {fault.detail}"
                state.penalize(seat, fault.verdict)
            else:
                try:
                    action = state.decode(seat, reply)
                except ProtocolError as exc:
                    note = f"protocol: {exc}"
                    state.penalize(seat, Verdict.PROTOCOL)
                else:
                    reason = state.illegal(seat, action)
                    if reason is not None:
                        note = f"illegal: {reason}"
                        state.penalize(seat, Verdict.ILLEGAL)
                    else:
                        state.apply(seat, action)
            if showing:
                shown = state.shown.get(seat)
                out: Any = ("show", "valid" if shown else "invalid")
            else:
                new = state._history[len(history_before) :]
                mine = [e for e in _history_entries(new) if e[0] == seat]
                letter, amount = mine[0][1], mine[0][2]
                out = ("fold",) if letter == "f" else ("put", amount)
                engine_actions.append((street, seat, out))
            if req is not None:
                req.engine, req.engine_note = out, note
    summary = state.summary()["hands"][0]
    engine_payouts = [[(s, c) for s, c in shares] for _, shares in summary["pots"]]
    engine_end = summary["end_stacks"]

    # The server's actions, without the no-ops the engine never asks for (all-in players
    # and players covering every other stack, asked and answering 0).
    server_actions = []
    for r in hand.reqs:
        if r.street == "show":
            continue
        out = _norm_server(r.outcome)
        if (r.allin or r.engine is None) and out == ("put", 0):
            continue
        server_actions.append((r.street, r.seat, out))

    # Differences, earliest first.
    incidents = list(hand.incidents)
    for r in hand.reqs:
        if r.engine is None:
            if not r.allin and _norm_server(r.outcome) != ("put", 0):
                if _norm_server(r.outcome)[0] == "fold":
                    what = "server asked a player the engine does not ask (all others all-in) and folded it"
                elif r.covering:
                    what = "a bet nobody can answer (the server asks the last player with chips; the engine does not)"
                else:
                    what = "server asked a player the engine did not"
                incidents.append((r.line_no, what, r.reply))
            continue
        if r.street == "show":
            valid = r.outcome is not None and r.outcome[1] != 0
            if valid != (r.engine[1] == "valid"):
                incidents.append((r.line_no, _classify_reply(r), r.reply))
        elif _norm_server(r.outcome) != r.engine:
            incidents.append((r.line_no, _classify_reply(r), r.reply))
    for seat, street in extra:
        incidents.append((10**9, "engine asked a player the server did not", f"seat {seat} street {street}"))
    incidents.sort(key=lambda i: i[0])
    checks = {
        "chips": engine_end == hand.end_chips(),
        "actions": engine_actions == server_actions,
        "pots": snapshots == hand.pot_rounds and engine_payouts == hand.payouts,
    }
    if all(checks.values()):
        verdict, cause, at = "equal", "", 0
    else:
        verdict = "pots" if checks["chips"] and checks["actions"] else "different"
        secondary = (
            "server asked a player the engine did not",
            "a bet nobody",
            "a folded player paid",
            "engine asked",
        )
        pot_only = ("one-player pot", "pots merged")
        serious = [i for i in incidents if not i[1].startswith(secondary + pot_only)]
        second = [i for i in incidents if i[1].startswith(secondary)]
        pot_causes = [i for i in incidents if i[1].startswith(pot_only)]
        first_choice = (
            [serious, second, pot_causes] if verdict == "different" else [pot_causes, second, serious]
        )
        pick = next((group for group in first_choice if group), [])
        same_shares = [sorted(x) for x in engine_payouts] == [sorted(x) for x in hand.payouts]
        if pick:
            at, cause = pick[0][0], pick[0][1]
        elif snapshots == hand.pot_rounds and same_shares:
            at, cause = (
                0,
                "a split pot's shares told in another order (the server: by hand, then seat, descending)",
            )
        else:
            at = 0
            cause = "unclassified: " + ", ".join(k for k, ok in checks.items() if not ok) + " differ"
    return Outcome(
        verdict,
        cause,
        at,
        engine_actions,
        server_actions,
        snapshots,
        engine_payouts,
        engine_end,
        extra,
        checks,
    )


def _load_hands(work: Path) -> tuple[list[Hand], list[str]]:
    logs = sorted((work / "logs").glob("*.log"))
    if not logs:
        raise SystemExit(f"no logs in {work / 'logs'}: run `run` (or `measure`) first")
    hands: list[Hand] = []
    problems = []
    for path in logs:
        got, error = parse_log(path)
        hands.extend(got)
        if error:
            problems.append(f"{path.stem}: {error}")
    return hands, problems


def cmd_replay(args: argparse.Namespace) -> None:
    work = Path(args.work)
    hands, problems = _load_hands(work)
    if args.show:
        wanted = [h for h in hands if h.hid == args.show]
        if not wanted:
            raise SystemExit(f"no hand {args.show} (ids look like s6-g0012:h5)")
        show_hand(wanted[0], work)
        return
    counts: collections.Counter[str] = collections.Counter()
    causes: dict[str, collections.Counter[str]] = {
        "pots": collections.Counter(),
        "different": collections.Counter(),
    }
    examples: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    per_seats: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    records = []
    for hand in hands:
        try:
            out = replay(hand)
        except Exception as exc:
            counts["error"] += 1
            examples[("error", str(exc)[:80])].append(hand.hid)
            causes.setdefault("error", collections.Counter())[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1
            continue
        counts[out.verdict] += 1
        per_seats[hand.n][out.verdict] += 1
        if out.verdict != "equal":
            causes[out.verdict][out.cause] += 1
            examples[(out.verdict, out.cause)].append(hand.hid)
        records.append({"hand": hand.hid, "verdict": out.verdict, "cause": out.cause, **out.checks})
    (work / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    games = len({h.hid.split(":")[0] for h in hands})
    total = sum(counts.values())
    print(f"{total} hands from {games} games (logs in {work / 'logs'})")
    for seats in sorted(per_seats):
        c = per_seats[seats]
        print(
            f"  {seats} seats: {sum(c.values())} hands, {c['equal']} equal, {c['pots']} equal but for the pots, "
            f"{c['different']} different"
        )
    labels = {
        "equal": "equal",
        "pots": "equal but for the pot list",
        "different": "different",
        "error": "error",
    }
    for key in ("equal", "pots", "different", "error"):
        if not counts[key] and key == "error":
            continue
        print(f"{labels[key]}: {counts[key]}")
        for cause, k in causes.get(key, collections.Counter()).most_common():
            ex = examples[(key, cause)] if key != "error" else []
            print(f"    {k:5d}  {cause}" + (f"   e.g. {', '.join(ex[:3])}" if ex else ""))
    if problems:
        print(f"{len(problems)} game(s) broke off (their last hand is left out):")
        for p in problems[:5]:
            print("   ", p)
    print(f"per hand: {work / 'replay.jsonl'}; one hand side by side: replay --show HAND")


def _fmt_out(out: Any) -> str:
    if out is None:
        return "-"
    if out[0] == "put":
        return f"put {out[1]}" + (" (check)" if len(out) > 2 and out[2] else "")
    if out[0] == "check":
        return "check"
    if out[0] == "show":
        return f"show {out[1]}"
    return out[0]


def _fmt_pots(pots: list[tuple[int, tuple[int, ...]]] | None) -> str:
    if pots is None:
        return "-"
    return ", ".join(f"{a}:{'.'.join(map(str, c))}" for a, c in pots) or "none"


def show_hand(hand: Hand, work: Path) -> None:
    out = replay(hand)
    cards = lambda cs: " ".join(CARD_NAMES[c] for c in cs)  # noqa: E731
    print(
        f"hand {hand.hid}: {hand.n} seats, participants {hand.participants}, dealer {hand.dealer}, "
        f"small blind {hand.sb}, blinds posted {hand.blinds}"
    )
    print(f"start chips {hand.start_chips}")
    for s in sorted(hand.hole_sent):
        print(f"  seat {s} hole {cards(hand.hole_sent[s])}")
    assert hand.deck is not None
    m = len(hand.participants)
    d = hand.deck
    print(
        f"  board {cards([d[2 * m + 1], d[2 * m + 2], d[2 * m + 3], d[2 * m + 5], d[2 * m + 7]])}"
        f" (dealt by the server: {cards(hand.board_seen) or '-'})"
    )
    print(f"\nverdict: {out.verdict}" + (f" — {out.cause}" if out.cause else "") + f"   checks: {out.checks}")
    print(f"\n{'log line':>8}  {'street':6} seat  {'reply':24} {'server':16} {'engine':14} note")
    for r in hand.reqs:
        mark = " " if r.engine is None or _norm_server(r.outcome) == r.engine or r.street == "show" else "*"
        flag = " all-in" if r.allin else ""
        print(
            f"{r.line_no:8d}{mark} {r.street!s:6} {r.seat:4d}  {r.reply[:24]:24} {_fmt_out(r.outcome):16} "
            f"{_fmt_out(r.engine) if r.engine else 'not asked':14} {r.engine_note[:70]}{flag}"
        )
    for seat, street in out.extra_asks:
        print(f"{'':8}* {street!s:6} {seat:4d}  (engine asked; no server request: fed 'fold')")
    print("\npots at each round end (amount: contributors)")
    rounds = max(len(hand.pot_rounds), len(out.engine_pots))
    for i in range(rounds):
        sp = hand.pot_rounds[i] if i < len(hand.pot_rounds) else None
        ep = out.engine_pots[i] if i < len(out.engine_pots) else None
        print(f"  round {i}: server {_fmt_pots(sp)}")
        print(f"  {'':8} engine {_fmt_pots(ep)}" + ("" if sp == ep else "   <- differs"))
    print(f"\npayouts  server {hand.payouts}")
    print(f"         engine {out.engine_payouts}")
    print(f"end chips server {hand.end_chips()}")
    print(f"          engine {out.engine_end}")
    if hand.incidents:
        print("\nserver-side notes:")
        for no, what, detail in hand.incidents:
            print(f"  line {no}: {what} {detail}")
    print(f"\n(the log: {work}/logs/{hand.hid.split(':')[0]}.log, from line {hand.line_no})")


# ====================================================================== client vs referee serve


def _run_table(client: Path, seats: int, work: Path, timeout: float) -> list[dict[str, Any]]:
    out_dir = work / f"serve-{seats}"
    shutil.rmtree(out_dir, ignore_errors=True)
    referee = ROOT / ".venv" / "bin" / "referee"
    cmd = [
        str(referee if referee.exists() else "referee"),
        "serve",
        "--game",
        "holdem",
        "--dialect",
        "ppca",
        "--rules",
        "ppca",
        "--table-size",
        str(seats),
        "--tables",
        "1",
        "--port",
        "0",
        "--out",
        str(out_dir),
    ]
    serve_log = work / f"serve-{seats}.out"
    with serve_log.open("wb") as log:
        serve = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    port = None
    deadline = time.monotonic() + 30
    while port is None and time.monotonic() < deadline and serve.poll() is None:
        found = re.search(r"at 127\.0\.0\.1:(\d+)", serve_log.read_text(errors="replace"))
        if found:
            port = int(found.group(1))
        else:
            time.sleep(0.1)
    if port is None:
        serve.kill()
        serve.wait()
        return [{"client": "-", "status": "referee serve did not start: " + serve_log.read_text()[-300:]}]
    procs = []
    for i in range(seats):
        err = (work / f"client-{seats}-{i}.err").open("wb")
        outf = (work / f"client-{seats}-{i}.out").open("wb")
        procs.append(
            (
                subprocess.Popen(
                    [str(client), "127.0.0.1", str(port), str(i)], stdout=outf, stderr=err, cwd=work
                ),
                err,
                outf,
            )
        )
        time.sleep(0.2)
    results = []
    end = time.monotonic() + timeout
    for i, (proc, err, outf) in enumerate(procs):
        try:
            rc = proc.wait(timeout=max(1.0, end - time.monotonic()))
            status = f"exit {rc}" if rc >= 0 else f"killed by signal {-rc}"
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            status = f"still running after {timeout:g} s: killed"
        err.close()
        outf.close()
        text = (work / f"client-{seats}-{i}.err").read_text(errors="replace")
        out_text = (work / f"client-{seats}-{i}.out").read_text(errors="replace")
        first = next(
            (
                ln
                for ln in text.splitlines() + out_text.splitlines()
                if ln.startswith(("[ERROR]", "[Exception]")) or "Assertion" in ln
            ),
            "",
        )
        games = out_text.count("game starts")
        ended = "[END]" in out_text
        results.append(
            {
                "client": i,
                "status": status,
                "finished normally": ended and status == "exit 0",
                "hands seen": games,
                "first error": first,
                "last line received": next(
                    (ln for ln in reversed(text.splitlines()) if ln.startswith("[receive]")), ""
                ),
            }
        )
    try:
        serve.wait(timeout=20)
    except subprocess.TimeoutExpired:
        serve.kill()
        serve.wait()
    return results


def cmd_client_vs_referee(args: argparse.Namespace) -> None:
    work = Path(args.work)
    client = build_client(Path(args.original).expanduser(), work)
    runs = work / "client-vs-referee"
    runs.mkdir(parents=True, exist_ok=True)
    any_bad = False
    for seats in [int(s) for s in args.seats.split(",")]:
        print(f"{seats} original clients vs referee serve --dialect ppca --rules ppca --table-size {seats}:")
        for r in _run_table(client, seats, runs, args.timeout):
            any_bad |= not r.get("finished normally")
            print(
                f"  client {r['client']}: {r['status']}, "
                f"{'finished normally' if r.get('finished normally') else 'did NOT finish normally'}, "
                f"{r.get('hands seen', 0)} hand(s) seen"
            )
            if r.get("first error"):
                print(f"      first error: {r['first error']}")
            if not r.get("finished normally") and r.get("last line received"):
                print(f"      last line received: {r['last line received']}")
    print(f"(clients' output in {runs}/client-K-I.out/.err; the referee's in {runs}/serve-K.out)")
    sys.exit(1 if any_bad else 0)


# ====================================================================== main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, original: bool) -> None:
        p.add_argument("--work", default=str(DEFAULT_WORK), help="work directory (default %(default)s)")
        if original:
            p.add_argument(
                "--original",
                required=True,
                help="a checkout of github.com/zzy7896321/holdem (get it yourself)",
            )

    for name in ("run", "measure"):
        p = sub.add_parser(
            name, help="play games on the original server" + (" and replay them" if name == "measure" else "")
        )
        common(p, True)
        p.add_argument("--games", type=int, default=600, help="games to play (default %(default)s)")
        p.add_argument("--seats", default="2,3,6,9", help="table sizes, in turn (default %(default)s)")
        p.add_argument("--seed", type=int, default=1, help="seed of the games (default %(default)s)")
        p.add_argument("--jobs", type=int, default=2, help="games at once (default %(default)s)")
    p = sub.add_parser("replay", help="replay the logs through HoldemState(rules='ppca') and compare")
    common(p, False)
    p.add_argument("--show", metavar="HAND", help="print one hand side by side (e.g. s6-g0012:h5)")
    p = sub.add_parser(
        "client-vs-referee", help="run the original client against referee serve --dialect ppca"
    )
    common(p, True)
    p.add_argument("--seats", default="3,6,9", help="table sizes (default %(default)s)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per table (default %(default)s)")
    args = parser.parse_args()
    if args.command == "run":
        cmd_run(args)
    elif args.command == "measure":
        cmd_run(args)
        args.show = None
        cmd_replay(args)
    elif args.command == "replay":
        cmd_replay(args)
    else:
        cmd_client_vs_referee(args)


if __name__ == "__main__":
    main()
