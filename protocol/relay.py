"""The relay protocol between ``referee serve`` and a remote player (``referee connect``).

A remote player is a bot on someone else's machine.  The server runs the match; the
client runs the bot (under its own sandbox and limits) and relays the game's lines,
unchanged, in both directions.  Everything is ASCII lines ending ``\\n`` over one TCP
connection (TLS off loopback); the first word says what a line is.

Client → server, once, first::

    hello 1 NAME TOKEN          protocol version 1; TOKEN is "-" when the server wants none

Server → client::

    welcome NAME GAME LIMITS    LIMITS: the match limits as compact JSON (no spaces)
    refused REASON…             then the connection closes
    start                       start the bot (a new life); answer "started" or "fault"
    ask LINE…                   the game's request line; answer "reply" or "fault"
    tell LINE…                  an information line; no answer
    tellr LINE…                 an information line the bot answers; the client drops
                                that answer itself (nothing goes back)
    stop                        close the bot (end of input); answer "stopped"
    bye REASON…                 the server is done with this client

Client → server, answers::

    started
    reply THINK_US TEXT…        the bot's reply (TEXT may be empty) and the microseconds
                                between writing the request and reading the reply
    fault VERDICT DETAIL…       the bot failed (a verdict of referee.core.verdict)
    stopped CPU_S PEAK_RSS [NOTES]
                                what the bot used, as measured on the client; NOTES,
                                when it wrote any (protocol.notes), is compact JSON
                                {"n": {NAME: COUNT…}, "e": {NAME: FIRST_TEXT…}}

The game's own lines go through verbatim: a game line is one line (no newline inside),
so ``ask``/``reply`` need no escaping.  The server measures each round trip; the
client's THINK_US lets it report network latency apart from thinking time.  What the
client reports about itself (think time, faults, usage) is its word: the server never
extends a time limit because of it, it only explains.
"""

from __future__ import annotations

import json
import re

from protocol.notes import NAMES_MAX, clean_text, is_name

VERSION = 1
#: Names: what results and other players see.
NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")
#: Bytes a relay line may add to the game's longest line.
OVERHEAD = 64

SERVER_KINDS = frozenset({"welcome", "refused", "start", "ask", "tell", "tellr", "stop", "bye"})
CLIENT_KINDS = frozenset({"hello", "started", "reply", "fault", "stopped"})


class RelayError(ValueError):
    """A relay line that does not parse; the message says why in one line."""


def split(line: bytes) -> tuple[str, bytes]:
    """``b"ask act hand 1"`` → ``("ask", b"act hand 1")``; the kind must be ASCII letters."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    kind, _, rest = line.partition(b" ")
    if not kind.isalpha() or not kind.isascii():
        raise RelayError(f"not a relay line: {line[:40]!r}")
    return kind.decode(), rest


# ------------------------------------------------------------------ client lines


def hello(name: str, token: str | None) -> bytes:
    return f"hello {VERSION} {name} {token or '-'}\n".encode()


def parse_hello(rest: bytes) -> tuple[int, str, str | None]:
    """The version, name and token of a ``hello`` line's rest."""
    words = rest.split()
    if len(words) != 3 or not words[0].isdigit():
        raise RelayError("expected: hello VERSION NAME TOKEN")
    name = words[1].decode("ascii", "replace")
    if not NAME.fullmatch(name):
        raise RelayError(f"bad name {name[:40]!r}: 1-40 of A-Z a-z 0-9 _ . -")
    token = words[2].decode("ascii", "replace")
    return int(words[0][:6]), name, None if token == "-" else token


def reply(think_ns: int, text: bytes) -> bytes:
    return b"reply %d %s\n" % (think_ns // 1000, text)


def parse_reply(rest: bytes) -> tuple[int, bytes]:
    """(think time in ns, the bot's reply) of a ``reply`` line's rest."""
    think, _, text = rest.partition(b" ")
    if not think.isdigit() or len(think) > 12:
        raise RelayError("expected: reply THINK_US TEXT")
    return int(think) * 1000, text


def fault(verdict: str, detail: str) -> bytes:
    detail = " ".join(detail.split())[:300]
    return f"fault {verdict} {detail}\n".encode("utf-8", "replace")


def parse_fault(rest: bytes) -> tuple[str, str]:
    verdict, _, detail = rest.partition(b" ")
    return verdict.decode("ascii", "replace"), detail.decode("utf-8", "replace")


#: The most a ``stopped`` line's notes take, at most (``stopped(room=…)`` may ask less).
NOTES_MAX = 2048
#: A note's count, at most, as the server takes it.
NOTE_COUNT_MAX = 1 << 40


def stopped(
    cpu_s: float,
    peak_rss: int,
    notes: dict[str, int] | None = None,
    examples: dict[str, str] | None = None,
    room: int = NOTES_MAX,
) -> bytes:
    """The ``stopped`` line; its notes take at most ``room`` bytes (the server's line
    limit less the rest of the line: the client knows it from ``welcome``)."""
    line = b"stopped %.3f %d" % (cpu_s, peak_rss)
    if notes:
        room = min(room, NOTES_MAX)
        # Examples go first when room runs out, then names: counts matter more than text.
        for value in ({"n": notes, "e": examples or {}}, {"n": notes}, {"n": dict(list(notes.items())[:16])}):
            encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=True).encode()
            if len(encoded) <= room:
                line += b" " + encoded
                break
    return line + b"\n"


def parse_stopped(rest: bytes) -> tuple[float, int, dict[str, int], dict[str, str]]:
    """CPU seconds, peak RSS, and the bot's notes by name with their first texts.
    Anything malformed is a :class:`RelayError` (the client's word, checked as a bot's
    own notes are: protocol.notes)."""
    try:
        cpu, rss, *more = rest.split(None, 2)
        usage = max(0.0, float(cpu)), max(0, int(rss))
    except ValueError:
        raise RelayError("expected: stopped CPU_S PEAK_RSS [NOTES]") from None
    notes: dict[str, int] = {}
    examples: dict[str, str] = {}
    if more:
        try:
            value = json.loads(more[0][:NOTES_MAX])
        except (ValueError, RecursionError):
            raise RelayError("stopped: NOTES is not JSON") from None
        counts = value.get("n", {}) if isinstance(value, dict) else None
        texts = value.get("e", {}) if isinstance(value, dict) else None
        if not isinstance(counts, dict) or not isinstance(texts, dict):
            raise RelayError('stopped: NOTES is not {"n": {...}, "e": {...}}')
        for name, count in counts.items():
            ok = type(count) is int and 0 < count <= NOTE_COUNT_MAX  # a JSON true is no count
            if ok and isinstance(name, str) and is_name(name) and len(notes) < NAMES_MAX:
                notes[name] = count
        for name, text in texts.items():
            if name in notes and isinstance(text, str):
                examples[name] = clean_text(text)
    return *usage, notes, examples


# ------------------------------------------------------------------ server lines


def welcome(name: str, game: str, limits: dict[str, object]) -> bytes:
    return f"welcome {name} {game} {json.dumps(limits, separators=(',', ':'))}\n".encode()


def parse_welcome(rest: bytes) -> tuple[str, str, dict[str, object]]:
    try:
        name, game, limits = rest.split(b" ", 2)
        value = json.loads(limits)
    except ValueError:
        raise RelayError("expected: welcome NAME GAME LIMITS") from None
    if not isinstance(value, dict):
        raise RelayError("welcome: LIMITS is not an object")
    return name.decode(), game.decode(), value


def message(kind: str, text: bytes | str = b"") -> bytes:
    """A server line: ``kind`` and the rest (a game line without its newline, or words)."""
    if isinstance(text, str):
        text = text.encode("utf-8", "replace")
    if text.endswith(b"\n"):
        text = text[:-1]
    return kind.encode() + (b" " + text if text else b"") + b"\n"
