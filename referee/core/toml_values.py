"""Writing simple values as TOML: the files the referee writes for itself (a built bot's
``bot.toml``, a grading run's ``tournament.toml``).  The standard library reads TOML
but does not write it, and these files hold only strings, numbers, booleans and lists
of them, so a writer of those few kinds is all that is needed.
"""

from __future__ import annotations

import json
import math
import re

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def value(x: object) -> str:
    """``x`` as a TOML value; TypeError for anything else than the kinds above."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(x, str):
        # A JSON string is a TOML basic string, but for the escapes TOML lacks (\/ is
        # never written by json.dumps; \uXXXX is TOML too).
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(value(v) for v in x) + "]"
    raise TypeError(f"cannot write {x!r} as a TOML value")


def key(name: str) -> str:
    """``name`` as a TOML key: bare when it may be, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else value(name)
