"""Configuration mistakes said in the words of the file, not of its decoder.

msgspec reports a bad TOML table as ``Object contains unknown field `rnu` - at `$.limits```;
a student or a TA wrote a file, not an object, so :func:`explain` says
``unknown key `rnu` in [limits] (did you mean `run`?)``.
"""

from __future__ import annotations

import difflib
import re

import msgspec

_AT = re.compile(r" - at `\$((?:\.[A-Za-z0-9_-]+|\[\d+\])*)`$")
_UNKNOWN = re.compile(r"^Object contains unknown field `([^`]*)`")
_MISSING = re.compile(r"^Object missing required field `([^`]*)`")
_EXPECTED = re.compile(r"^Expected `([^`]*)`, got `([^`]*)`")
#: msgspec's type names, as a TOML file's reader says them.
_KINDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "array": "a list",
    "object": "a table",
    "null": "nothing",
}


def _kind(names: str) -> str:
    kinds = [_KINDS.get(n.strip(), n.strip()) for n in names.split("|") if n.strip() != "null"]
    return " or ".join(dict.fromkeys(kinds)) or "nothing"


def _table(path: str) -> str:
    """``.compete.options`` → ``[compete.options]``; ``.bots[2]`` → ``bots, item 3``."""
    parts = re.findall(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]", path)
    words = []
    for name, index in parts:
        words.append(name if name else f"item {int(index) + 1}")
    return ".".join(words)


def _fields(struct: type | None, path: str) -> list[str]:
    """The keys the table at ``path`` may hold, when ``struct`` says."""
    for name, _ in re.findall(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]", path):
        if struct is None or not name:
            return []
        field = next((f for f in msgspec.structs.fields(struct) if f.name == name), None)
        kind = field.type if field is not None else None
        # Optional structs (X | None) are unions: take the struct part.
        args = getattr(kind, "__args__", None)
        if args:
            kind = next((a for a in args if isinstance(a, type) and issubclass(a, msgspec.Struct)), None)
        struct = kind if isinstance(kind, type) and issubclass(kind, msgspec.Struct) else None
    if struct is None:
        return []
    return [f.name for f in msgspec.structs.fields(struct)]


def explain(exc: Exception, struct: type | None = None) -> str:
    """One line saying what is wrong with the file and where, with a suggestion for a
    misspelt key when ``struct`` (the file's top-level struct) lists the right ones."""
    text = str(exc)
    where = ""
    path = ""
    at = _AT.search(text)
    if at:
        path = at.group(1)
        text = text[: at.start()]
        table = _table(path)
        where = f" in [{table}]" if table else ""
    unknown = _UNKNOWN.match(text)
    if unknown:
        key = unknown.group(1)
        known = _fields(struct, path)
        close = difflib.get_close_matches(key, known, n=1)
        hint = (
            f" (did you mean `{close[0]}`?)" if close else (f" (keys: {', '.join(known)})" if known else "")
        )
        return f"unknown key `{key}`{where}{hint}"
    missing = _MISSING.match(text)
    if missing:
        return f"`{missing.group(1)}` is missing{where}"
    expected = _EXPECTED.match(text)
    if expected:
        text = f"must be {_kind(expected.group(1))}, not {_kind(expected.group(2))}"
    if at:
        key = _table(path)
        return f"{key}: {text[0].lower()}{text[1:]}" if key else text
    return text
