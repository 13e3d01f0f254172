"""A tournament's field: the bots named on the command line or in a configuration file.

Each name is what ``referee match`` takes — an executable, a quoted command, a directory
with a ``bot.toml`` — or a **folder of bots**: a directory without a ``bot.toml``, each
of whose entries is one bot (a course's submissions, one per student).  In a folder:

* an entry's name is the bot's name (the student's id): ``alice.py`` → ``alice``,
  ``bob/`` → ``bob``, whatever name a manifest inside gives;
* a directory entry needs a ``bot.toml``; a file entry is run as it is when executable,
  and otherwise by the usual interpreter for its suffix (``.py`` with ``python3``, ``.js``
  with ``node``…: ``referee.core.botspec``'s list);
* entries starting with ``.`` or ``_``, documents (``.md``, ``.txt``, ``.pdf``, ``.toml``,
  ``.json``, ``.csv``, ``.log``), and folders holding a tournament's results (a
  ``results.sqlite``: an earlier ``--out`` left there) are not bots and are skipped;
* a file entry is **copied into a folder of its own** (:func:`isolate`, under the
  tournament's directory) before it plays: a bot sees its own directory in the sandbox,
  and a student's bot must not see the rest of the class's submissions; the copy is
  also what is hashed (a resume refuses if it changed) and what plays to the end, even
  if the original is edited meanwhile.

A bot named explicitly that cannot be run is a usage error (a typo must not cost a
tournament); an entry of a folder that cannot be run is entered all the same, as a bot
that cannot start: it forfeits its matches with the ``startup`` verdict and the
tournament goes on.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.core.botspec import (
    MANIFEST,
    BotSpec,
    BotSpecError,
    interpreter_for,
    resolve,
    safe_name,
    unique_names,
)

#: Suffixes of files in a folder of bots that are documents, not bots.
NOT_BOTS = frozenset({".md", ".txt", ".pdf", ".toml", ".json", ".csv", ".log", ".html", ".sqlite"})


@dataclass
class Entry:
    """One bot of the field: its spec, and why it cannot start if it cannot."""

    spec: BotSpec
    problem: str | None = None
    #: A file of a folder of bots: to be copied into a folder of its own (:func:`isolate`).
    single_file: Path | None = None


def is_folder_of_bots(path: Path) -> bool:
    return path.is_dir() and not (path / MANIFEST).is_file()


def _from_folder_entry(path: Path) -> Entry:
    name = safe_name(path.stem if path.is_file() else path.name)
    entry = _resolve_entry(path, name)
    if path.is_file():
        entry.single_file = path
    return entry


def _resolve_entry(path: Path, name: str) -> Entry:
    """The entry at ``path``, named ``name``; a script that is not executable runs with
    its suffix's interpreter.  One that cannot be run is kept, with why."""
    runner = interpreter_for(path) if path.is_file() and not os.access(path, os.X_OK) else None
    try:
        spec = resolve(f"{runner} {shlex.quote(str(path))}" if runner else str(path))
    except BotSpecError as exc:
        home = path if path.is_dir() else path.parent
        return Entry(BotSpec(name=name, argv=[str(path)], home=str(home)), problem=str(exc))
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
                if not p.name.startswith((".", "_"))
                and p.suffix.lower() not in NOT_BOTS
                and not (p / "results.sqlite").exists()
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


def isolate(entries: list[Entry], destination: Path) -> None:
    """Copy each single-file entry into ``destination/NAME/`` and run it from there (the
    module's text says why).  Its mode is kept (an executable stays one)."""
    for entry in entries:
        source = entry.single_file
        if source is None:
            continue
        home = destination / entry.spec.name
        home.mkdir(parents=True, exist_ok=True)
        target = home / source.name
        shutil.copy2(source, target)
        resolved = _resolve_entry(target, entry.spec.name)
        entry.spec, entry.problem = resolved.spec, resolved.problem or entry.problem
        entry.single_file = None
