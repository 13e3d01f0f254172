"""How the checklist writes its figures: durations, counts, sizes, a stderr tail."""

from __future__ import annotations

from referee.core.limits import MiB

STDERR_TAIL_LINES = 5


def duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def mib(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n % MiB else f"{n // MiB} MiB"


def stderr_last_lines(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    """The last non-blank lines of a bot's stderr."""
    return "\n".join([line.rstrip() for line in text.splitlines() if line.strip()][-lines:])
