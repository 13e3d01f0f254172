"""Each bot of a tournament plays from its own snapshot, taken when the tournament starts.

A bot named by a path or a command used to be identified by every file under its
directory, so a log growing beside it (``run.log``), an editor's swap file or a second
run's output made a resume refuse, and a cluster's workers disagree with the
coordinator.  Now the tournament copies each bot into ``DIR/bots/NAME/`` before its
first match and plays that copy to the end: resume, ``--rerun-close``, ``--ship-bots``
and the cluster's workers all read the snapshot; what happens beside the originals
after the start changes nothing.  The bot's identity is the hash of its snapshot.

**What is copied** (:func:`files_of`):

* a **bot directory** (one with a ``bot.toml``): the whole directory (version-control
  directories and caches left out) — ``bot.toml`` is how a bot says exactly which files
  make it;
* a **loose command** (``./mybot``, ``"python3 bots/mybot.py"``): the files its command
  names (the executable, the script, an argument naming a file), and for a Python script
  what it may import from beside it: the ``*.py`` files of its directory and the package
  directories there (those with an ``__init__.py``).  A compiled executable is copied
  alone: files beside it (its logs, its data) are not part of it — a bot that reads a
  data file names it on its command line, or is given a ``bot.toml``;
* a Python bot that imports the referee's ``protocol`` package (the sample players do)
  and has none beside it gets a copy of the project's (stdlib only, a few hundred KB):
  the copy then runs under any Python, installed referee or not.

**Bounds**: at most :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes per bot.  More
is refused with one line naming ``bot.toml`` (a bot in a large home directory: give it
a folder of its own with a ``bot.toml``), before anything is recorded.

**Atomic**: each snapshot is written to a temporary directory beside its place, every
file and the directory synced, then renamed into place; the store is created after all
of them.  A ``kill -9`` during the snapshots leaves no tournament (its temporary
directories are removed by the next start, which takes the snapshots again from the
originals); once the store exists, every snapshot is whole.

Cost: a copy of the bot's files (hard links are not used: a bot's own build or an
editor writing its original in place would change the snapshot) and one ``fsync`` per
file; a sample Python player with ``protocol`` is 11 files, ~85 KB (a copy alone) or 15,
~95 KB (in ``sample_players/dice_poker/``), taken in 15–160 ms on a shared 2-core VM,
mostly its fsyncs (docs/tournaments.md, "Bot snapshots").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

import msgspec

from referee.core.botspec import MANIFEST, BotSpec, BotSpecError
from referee.sinks.files import fsync_path, write_atomically
from referee.tournament.store import HASH_SKIP_DIRS

#: The snapshots' directory in the tournament's.
BOTS_DIR = "bots"
#: A snapshot holds at most this many files…
MAX_FILES = 2000
#: …and this many bytes.
MAX_BYTES = 512 * 1024 * 1024

_IMPORTS_PROTOCOL = re.compile(rb"^\s*(from\s+protocol[\s.]|import\s+protocol\b)", re.MULTILINE)


def _protocol_dir() -> Path:
    from referee.seats.process.sandbox.paths import PROTOCOL_DIR

    return Path(PROTOCOL_DIR)


def _tree(root: Path) -> Iterable[Path]:
    """Regular files and links under ``root``, caches and version control left out."""
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in HASH_SKIP_DIRS)
        for name in sorted(files):
            yield Path(here, name)
        for name in dirs:
            if os.path.islink(os.path.join(here, name)):
                yield Path(here, name)


def _too_big(name: str, what: str) -> BotSpecError:
    return BotSpecError(
        f"bot {name}: {what}, more than a snapshot takes ({MAX_FILES} files, {MAX_BYTES >> 20} MiB); "
        f"put the bot in a folder of its own with a {MANIFEST} naming how to run it (docs/writing-a-bot.md)"
    )


def files_of(spec: BotSpec) -> dict[str, Path]:
    """What the snapshot of ``spec`` holds: its relative paths, each with its source
    (module docstring: the rule).  BotSpecError when it is too big."""
    home = Path(spec.home)
    out: dict[str, Path] = {}

    def add(path: Path, rel: str) -> None:
        if rel not in out:
            out[rel] = path
            if len(out) > MAX_FILES:
                raise _too_big(spec.name, f"more than {MAX_FILES} files under {home}")

    named = [Path(w) for w in spec.argv if os.path.isabs(w) and os.path.isfile(w)]
    named = [p for p in named if _in(p, home) or not (_system(p) or _runtime(p, spec.argv))]
    if (home / MANIFEST).is_file():
        for path in _tree(home):
            add(path, str(path.relative_to(home)))
    else:
        for path in named:
            if _in(path, home):
                add(path, str(path.relative_to(home)))
            if path.suffix == ".py":
                for beside in sorted(path.parent.glob("*.py")):
                    if beside.is_file():
                        add(beside, _rel(beside, home))
                for package in sorted(path.parent.iterdir()):
                    if (
                        package.is_dir()
                        and (package / "__init__.py").is_file()
                        and package.name not in HASH_SKIP_DIRS
                    ):
                        for inner in _tree(package):
                            add(inner, _rel(inner, home))
    for path in named:
        if not _in(path, home):
            add(path, _rel(path, home))
    if not any(rel == "protocol/__init__.py" for rel in out) and _imports_protocol(out.values()):
        source = _protocol_dir()
        for inner in _tree(source):
            if inner.suffix == ".py":
                add(inner, "protocol/" + str(inner.relative_to(source)))
    size = 0
    for path in out.values():
        try:
            size += path.lstat().st_size
        except OSError:
            continue
        if size > MAX_BYTES:
            raise _too_big(spec.name, f"more than {MAX_BYTES >> 20} MiB of files under {home}")
    return out


def _system(path: Path) -> bool:
    from referee.seats.process.sandbox import SYSTEM_DIRS

    text = str(path)
    return any(text == d or text.startswith(d + "/") for d in SYSTEM_DIRS)


#: Programs that run a bot's file rather than being the bot: installed where they are.
_RUNTIMES = re.compile(
    r"(python|pypy|java|node|deno|bun|ruby|perl|php|lua|luajit|julia|Rscript|dotnet|mono|bash|sh|dash|zsh)"
    r"[0-9.]*(\.exe)?"
)


def _runtime(path: Path, argv: list[str]) -> bool:
    """Whether ``path``, named outside the bot's home, is the machine's installed runtime
    that runs the bot (``python3`` of a virtualenv or pyenv, ``java``, ``node``…), not a
    file of the bot: its program word when it names an interpreter by name or is the
    referee's own Python (or lies in that Python's installation).  Such a runtime is run
    in place, as before (the sandbox shows its installation), never copied: a copied
    virtualenv ``python`` is a dangling link, and an installation is no part of a bot."""
    if str(path) != argv[0]:
        return False
    if _RUNTIMES.fullmatch(path.name):
        return True
    real = os.path.realpath(path)
    if real in {os.path.realpath(sys.executable), os.path.realpath(getattr(sys, "_base_executable", ""))}:
        return True
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return any(_in(Path(p), Path(prefix)) for p in (str(path), real) for prefix in prefixes if prefix)


def _in(path: Path, home: Path) -> bool:
    try:
        path.relative_to(home)
    except ValueError:
        return False
    return True


def _rel(path: Path, home: Path) -> str:
    """Where a file goes in the snapshot: as under the bot's home, or — named from
    elsewhere — under ``_named/`` with its path."""
    if _in(path, home):
        return str(path.relative_to(home))
    return "_named" + str(path)


def _imports_protocol(paths: Iterable[Path]) -> bool:
    for path in paths:
        if path.suffix != ".py":
            continue
        try:
            with open(path, "rb") as fh:
                if _IMPORTS_PROTOCOL.search(fh.read(1 << 20)):
                    return True
        except OSError:
            continue
    return False


def _copy(files: dict[str, Path], target: Path) -> None:
    target.mkdir(parents=True)
    dirs = {target}
    for rel, source in files.items():
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dirs.update(p for p in dest.parents if _in(p, target))
        if source.is_symlink() and not rel.startswith("_named/"):
            os.symlink(os.readlink(source), dest)
            continue
        shutil.copy2(source, dest)
        mode = dest.stat().st_mode
        dest.chmod(mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # bots may run as their own uid
        fsync_path(dest)
    for directory in dirs:
        directory.chmod(0o755)
        fsync_path(directory)


def _moved(spec: BotSpec, files: dict[str, Path], target: Path) -> BotSpec:
    """``spec`` run from its snapshot at ``target``: its home, and every word naming a copied file."""
    where = {str(source): str(target / rel) for rel, source in files.items()}
    argv = [where.get(w, w) if os.path.isabs(w) else w for w in spec.argv]
    return msgspec.structs.replace(spec, argv=argv, home=str(target))


def is_snapshot(spec: BotSpec, out: Path, folder: str = BOTS_DIR) -> bool:
    """Whether ``spec`` already runs from the run's own folder (a snapshot, or a
    folder entry's copy)."""
    return _in(Path(spec.home).resolve(), (out / folder).resolve())


def take(specs: dict[str, BotSpec], out: Path, folder: str = BOTS_DIR) -> dict[str, BotSpec]:
    """Snapshot every bot into ``out/FOLDER/NAME/`` (module docstring; FOLDER is
    ``bots`` for a tournament, ``house`` for a grading run's own bots); the specs that run
    the snapshots, by name.  BotSpecError (one line) when a bot is too big.  Where each
    snapshot came from is recorded in ``out/FOLDER/sources.json`` (:func:`sources`)."""
    root = out.resolve() / folder
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.glob(".taking-*"):  # a start killed mid-snapshot
        shutil.rmtree(stale, ignore_errors=True)
    plans = {}
    for name, spec in specs.items():
        if not is_snapshot(spec, out, folder):
            plans[name] = files_of(spec)  # all checked before anything is copied
    moved = dict(specs)
    origins = sources(out, folder)
    for name, files in plans.items():
        spec = specs[name]
        target = root / spec.name
        temporary = root / f".taking-{spec.name}-{os.getpid()}"
        _copy(files, temporary)
        if target.exists():  # from a start that was killed before its store existed
            shutil.rmtree(target)
        os.rename(temporary, target)
        moved[name] = _moved(spec, files, target)
        origins[spec.name] = spec.home
    write_atomically(str(root / SOURCES), json.dumps(origins, indent=1, sort_keys=True).encode())
    fsync_path(root)
    return moved


#: Where each snapshot came from (its original home), by the snapshot's folder name.
SOURCES = "sources.json"


def sources(out: Path, folder: str = BOTS_DIR) -> dict[str, str]:
    """Each snapshot's original home (the directory it was taken from), by its folder
    name under ``out/FOLDER``: a grading run finds its students' bots in a tournament's
    store by it.  Empty for a run that recorded none."""
    try:
        data = json.loads((out / folder / SOURCES).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def describe(
    specs: Iterable[BotSpec], out: Path, folder: str = BOTS_DIR, started: str = "the tournament started"
) -> str:
    """``--resume``'s line: which copies of the bots it plays."""
    specs = list(specs)
    taken = [s for s in specs if is_snapshot(s, out, folder)]
    if len(taken) == len(specs):
        return f"playing the bots' snapshots in {out / folder} (taken when {started})"
    loose = ", ".join(s.name for s in specs if s not in taken)
    return f"playing {loose} from their original paths (a run started before bots were snapshotted)"
