"""A tournament's field: the bots named on the command line or in a configuration file.

Each name is what ``referee match`` takes — an executable, a quoted command, a directory
with a ``bot.toml`` — or a **folder of bots**: a directory without a ``bot.toml``, each
of whose entries is one bot (a course's submissions, one per student).  In a folder:

* an entry's name is the bot's name (the student's id): ``alice.py`` → ``alice``,
  ``bob/`` → ``bob``, whatever name a manifest inside gives;
* a directory entry needs a ``bot.toml``; a file entry is run as it is when executable,
  and otherwise by the usual interpreter for its suffix (``.py`` with ``python3``, ``.js``
  with ``node``…: ``referee.core.botspec``'s list);
* entries starting with ``.`` or ``_``, and documents (``.md``, ``.txt``, ``.pdf``,
  ``.toml``, ``.json``, ``.csv``, ``.log``), are not bots and are skipped.

A bot named explicitly that cannot be run is a usage error (a typo must not cost a
tournament); an entry of a folder that cannot be run is entered all the same, as a bot
that cannot start: it forfeits its matches with the ``startup`` verdict and the
tournament goes on.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.core.botspec import _RUNNERS, MANIFEST, BotSpec, BotSpecError, resolve, safe_name, unique_names

#: Suffixes of files in a folder of bots that are documents, not bots.
NOT_BOTS = frozenset({".md", ".txt", ".pdf", ".toml", ".json", ".csv", ".log", ".html", ".sqlite"})


@dataclass
class Entry:
    """One bot of the field: its spec, and why it cannot start if it cannot."""

    spec: BotSpec
    problem: str | None = None


def is_folder_of_bots(path: Path) -> bool:
    return path.is_dir() and not (path / MANIFEST).is_file()


def _from_folder_entry(path: Path) -> Entry:
    name = safe_name(path.stem if path.is_file() else path.name)
    try:
        spec = resolve(str(path))
    except BotSpecError as exc:
        runner = _RUNNERS.get(path.suffix.lower()) if path.is_file() else None
        if runner is None:
            home = str(path if path.is_dir() else path.parent)
            return Entry(BotSpec(name=name, argv=[str(path)], home=home), problem=str(exc))
        try:
            spec = resolve(f"{runner} {shlex.quote(str(path))}")
        except BotSpecError as again:
            return Entry(BotSpec(name=name, argv=[str(path)], home=str(path.parent)), problem=str(again))
    return Entry(msgspec.structs.replace(spec, name=name))


def expand(args: list[str], base: Path | None = None) -> list[Entry]:
    """Every bot the arguments name, in order (folders in name order); names made unique.

    BotSpecError for an explicitly named bot that cannot be run, or a folder that holds
    no bot.  ``base``: the directory relative names are relative to (a configuration
    file's), the current one by default.
    """
    base = base or Path.cwd()
    entries: list[Entry] = []
    for arg in args:
        path = Path(arg) if os.path.isabs(arg) else base / arg
        if is_folder_of_bots(path):
            found = [
                p
                for p in sorted(path.iterdir(), key=lambda p: p.name)
                if not p.name.startswith((".", "_")) and p.suffix.lower() not in NOT_BOTS
            ]
            if not found:
                raise BotSpecError(f"{arg}: a folder of bots, but it holds none")
            entries += [_from_folder_entry(p) for p in found]
        else:
            entries.append(Entry(resolve(arg, base)))
    names = unique_names(e.spec for e in entries)
    for entry, spec in zip(entries, names, strict=True):
        entry.spec = spec
    return entries
