"""Verdicts: the one vocabulary for how a bot's decision (or its whole life) ended.

Every layer speaks it.  The process layer raises :class:`BotFault` when the bot itself
misbehaves (it timed out, crashed, overflowed a line, ran out of CPU or memory); the
match layer adds ``illegal`` and ``protocol`` after asking the game's rules about a
reply; the results count forfeits by verdict; the game's penalty policy maps a verdict to
its in-game consequence (Yahtzee forfeits the game, Liar's Dice costs a die, poker folds).
"""

from __future__ import annotations

import enum
import re

import msgspec


class Verdict(enum.StrEnum):
    #: The reply parsed but the rules do not allow it here.
    ILLEGAL = "illegal"
    #: The reply does not parse, is over-long, or came when no reply was due.
    PROTOCOL = "protocol"
    #: No reply within the per-decision wall-clock limit.
    TIMEOUT = "timeout"
    #: The bot's process tree used up its CPU-time budget for the match.
    CPU = "cpu"
    #: The bot's process tree went over its resident-memory cap.
    MEMORY = "memory"
    #: The bot exited, was killed by a signal, or closed its pipes.
    CRASH = "crash"
    #: The bot could not be started, or gave no first answer within the startup allowance.
    STARTUP = "startup"

    @property
    def kills(self) -> bool:
        """Whether the bot's process cannot go on after this verdict."""
        return self in _FATAL


_FATAL = frozenset({Verdict.CPU, Verdict.MEMORY, Verdict.CRASH, Verdict.STARTUP})


class BotFault(Exception):
    """Raised by a bot endpoint when the bot, not the referee, is at fault."""

    def __init__(
        self, verdict: Verdict, detail: str, reply: bytes | None = None, overload: str | None = None
    ) -> None:
        super().__init__(f"{verdict}: {detail}")
        self.verdict = verdict
        self.detail = detail
        self.reply = reply
        #: A timing fault the grading machine caused (issue 28): the evidence in words.
        self.overload = overload


class ProtocolError(ValueError):
    """Raised by a protocol decoder for a reply that does not parse; the message is the reason."""


class Forfeit(msgspec.Struct, frozen=True, omit_defaults=True):
    """One penalised decision, as recorded in results and logs.

    ``game`` and ``decision`` are 0-based indices within the match and the game; a game
    lost without being played (its bot was already dead) has ``decision == -1``.
    """

    verdict: Verdict
    game: int
    decision: int
    detail: str
    reply: str | None = None
    position: str | None = None


def shorten(data: bytes | str | None, limit: int = 200) -> str | None:
    """A printable, bounded rendering of bot output for messages and logs."""
    if data is None:
        return None
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    if len(text) > limit:
        return f"{text[:limit]}… ({len(text)} chars)"
    return text


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (escape sequences, NUL, CR,
    newlines) a bot wrote are shown escaped (``\x1b``, ``\n``), never passed through."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


#: The CPU figure a process seat adds to a timeout's detail (docs/limits-and-verdicts.md).
_CPU_NOTE = re.compile(r"; it used ([0-9.e+-]+) s of CPU meanwhile")


def cpu_note(cpu_s: float, most_s: float | None = None) -> str:
    """What a timeout's detail says of the CPU the bot used while it was waited for (a
    range, from ``cpu_s`` to ``most_s``, for several timeouts shown together)."""
    used = f"{cpu_s:.3g}" if most_s is None or most_s == cpu_s else f"{cpu_s:.3g}–{most_s:.3g}"
    return f"; it used {used} s of CPU meanwhile"


def split_cpu_note(detail: str) -> tuple[str, float | None]:
    """A forfeit's detail without its CPU figure, and the figure: forfeits that say the
    same thing but for the CPU are shown together."""
    found = _CPU_NOTE.search(detail)
    if found is None:
        return detail, None
    return detail[: found.start()] + detail[found.end() :], float(found[1])
