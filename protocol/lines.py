"""Pieces shared by the games' line grammars (stdlib only, like every wire module).

Integer replies follow one grammar everywhere: optional spaces/tabs, an optional ``-``,
one or more ASCII digits, optional spaces/tabs, an optional final ``\\r``.  Anything
else raises :class:`ValueError` with a readable reason.
"""

from __future__ import annotations

SPACE = b" \t"
#: Below CPython's int/str conversion limit (4300 digits).
DIGITS_MAX = 4000


def integer_token(line: bytes | str, expected: str, noun: str = "an integer") -> tuple[bool, bytes]:
    """Check an integer reply; return (negative, digits) without converting them.

    ``expected`` completes "empty reply: expected …"; ``noun`` completes "reply is not …".
    """
    if isinstance(line, str):
        try:
            line = line.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"reply is not valid text: {line[:60]!r}") from None
    raw = line
    if line.endswith(b"\r"):
        line = line[:-1]
    line = line.strip(SPACE)
    negative = line.startswith(b"-")
    digits = line[1:] if negative else line
    if not digits.isdigit():  # bytes.isdigit: ASCII digits only, False when empty
        if not raw.strip(b" \t\r"):
            raise ValueError(f"empty reply: expected {expected}")
        if not raw.isascii():
            raise ValueError(f"reply is not {noun} (non-ASCII bytes): {show(raw)}")
        raise ValueError(f"reply is not {noun}: {show(raw)}")
    return negative, digits


def decode_integer(line: bytes | str, expected: str, noun: str = "an integer") -> int:
    """Parse an integer reply exactly, however many digits it has."""
    if isinstance(line, bytes) and line.isdigit() and len(line) <= 18:
        return int(line)  # the common case, fast
    negative, digits = integer_token(line, expected, noun)
    digits = digits.lstrip(b"0") or b"0"
    if len(digits) <= DIGITS_MAX:
        value = int(digits)
    else:  # exact, without tripping the int/str conversion limit
        value = 0
        for i in range(0, len(digits), DIGITS_MAX):
            chunk = digits[i : i + DIGITS_MAX]
            value = value * 10 ** len(chunk) + int(chunk)
    return -value if negative else value


def show(raw: bytes | str, limit: int = 60) -> str:
    """A bounded, printable rendering of bot output for error messages: the text in
    quotes, with bytes that are not printable UTF-8 (and control characters) escaped,
    never a Python ``b'...'`` repr."""
    text = raw.decode("utf-8", "backslashreplace") if isinstance(raw, bytes) else raw
    cut = text[:limit]
    shown = "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in cut)
    return f"'{shown}'" + (f"… ({len(raw)} bytes)" if len(text) > limit else "")
