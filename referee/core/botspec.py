"""Naming a bot on the command line: an executable, a quoted command, or a directory.

* ``./bots/mybot`` — an executable file, run as it is.
* ``"python3 bots/mybot.py"`` — a command line; words that name existing files are made
  absolute, because bots run in a private working directory.
* ``bots/mybot/`` — a directory with a ``bot.toml`` manifest::

      name = "mybot"                 # optional: defaults to the directory's name
      run = "python3 mybot.py"       # required: words naming files in the directory are made absolute
      build = "make"                 # optional: run in the directory before the match
      [limits]                       # optional: any field of referee.core.limits.Limits
      decision_s = 2.0

A bot learns where its own files are from ``$REFEREE_BOT_DIR``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

import msgspec

from referee.core.limits import LimitsOverride
from referee.core.toml_errors import explain

MANIFEST = "bot.toml"
#: The system's directories, read-only and visible to every bot under every sandbox layer
#: (:mod:`referee.seats.process.sandbox.paths` builds the views from them).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


class BotSpecError(ValueError):
    """The bot as named cannot be run; the message says why in one line."""


class Manifest(msgspec.Struct, forbid_unknown_fields=True):
    run: str
    name: str | None = None
    build: str | None = None
    limits: LimitsOverride | None = None


class BotSpec(msgspec.Struct, frozen=True):
    name: str
    argv: list[str]
    #: The bot's own directory (its manifest's directory, or the executable's).
    home: str
    build: str | None = None
    limits: LimitsOverride | None = None


def _absolutize(words: list[str], base: Path) -> list[str]:
    out = []
    for word in words:
        candidate = base / word
        if not os.path.isabs(word) and ("/" in word or candidate.is_file()) and candidate.exists():
            out.append(str(candidate.resolve()))
        else:
            out.append(word)
    return out


def _confine(argv: list[str], home: Path, manifest_path: Path) -> None:
    """A manifest may name files only in its own directory or the system's.

    Every file a bot's command names is made visible to it in the sandbox; a manifest
    is the bot author's, so a word such as ``../opponent/secret.txt`` or an absolute
    path elsewhere would let a bot widen its own sandbox to another bot's files.
    (Programs named without a path, like ``python3``, come from the user's PATH.)
    """
    allowed = (str(home), *SYSTEM_DIRS)
    for word in argv:
        if not os.path.isabs(word) or not os.path.exists(word):
            continue
        real = os.path.realpath(word)
        if not any(p == d or p.startswith(d.rstrip("/") + "/") for p in (word, real) for d in allowed):
            raise BotSpecError(
                f"{manifest_path}: 'run' names {word}, outside the bot's directory; a manifest may name "
                "only files in its own directory or the system's (name interpreters without a path, e.g. python3)"
            )


def safe_name(name: str) -> str:
    """A bot's name as it may appear in file names (its stderr file, its working
    directory): letters, digits, ``_ . -``, at most 64, never starting with a dot.  A
    manifest's ``name`` is its author's, and ``../../etc/x`` must not become a path."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64].lstrip(".")
    return cleaned or "bot"


def _stem(word: str) -> str:
    return safe_name(Path(word).stem or word)


#: The usual command for a script that is not executable, by its suffix.
_RUNNERS = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".sh": "sh",
    ".bash": "bash",
    ".lua": "lua",
    ".php": "php",
    ".r": "Rscript",
    ".awk": "mawk -W interactive -f",  # mawk buffers its input otherwise
    ".jar": "java -jar",
}


def _missing_script(words: list[str], cwd: Path) -> str | None:
    """The script a command names first, if it has a script's suffix and is not there
    (``python3 mybot_typo.py``).  Only the first argument: later ones may be files the
    bot creates, URLs, or code (``python3 -c ...``, ``sh -c ...`` start with an option)."""
    if not words:
        return None
    word = words[0]
    if word.startswith("-"):
        return None
    suffix = Path(word).suffix.lower()
    if (suffix in _RUNNERS or suffix in _SCRIPT_SUFFIXES) and not (cwd / word).exists():
        return word
    return None


def interpreter_for(path: Path) -> str | None:
    """The usual command that runs a script like ``path`` (``python3`` for ``.py``), or None."""
    return _RUNNERS.get(path.suffix.lower())


#: Suffixes of files a command names as its program's input, beyond _RUNNERS'.
_SCRIPT_SUFFIXES = {".class", ".exe", ".ts", ".cjs", ".go", ".java", ".scm", ".hs", ".ml", ".jl"}


def resolve(arg: str, cwd: Path | None = None) -> BotSpec:
    """Turn one command-line bot argument into a :class:`BotSpec`."""
    cwd = cwd or Path.cwd()
    path = (cwd / arg) if not os.path.isabs(arg) else Path(arg)
    if path.is_dir():
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            raise BotSpecError(f"{arg}: a directory needs a {MANIFEST} manifest (see docs/writing-a-bot.md)")
        try:
            manifest = msgspec.toml.decode(manifest_path.read_bytes(), type=Manifest)
        except msgspec.ValidationError as exc:
            raise BotSpecError(f"{manifest_path}: {explain(exc, Manifest)}") from None
        except msgspec.DecodeError as exc:
            raise BotSpecError(f"{manifest_path}: {exc}") from None
        words = shlex.split(manifest.run)
        if not words:
            raise BotSpecError(f"{manifest_path}: 'run' is empty")
        home = path.resolve()
        argv = _absolutize(words, home)
        _confine(argv, home, manifest_path)
        name = safe_name(manifest.name or home.name)
        return BotSpec(name=name, argv=argv, home=str(home), build=manifest.build, limits=manifest.limits)
    if path.is_file():
        if not os.access(path, os.X_OK):
            runner = interpreter_for(path)
            how = (
                f'name the command that runs it: "{runner} {arg}"'
                if runner
                else "name the command that runs it"
            )
            raise BotSpecError(f"{arg}: not executable (chmod +x it and give it a #! line, or {how})")
        resolved = path.resolve()
        return BotSpec(name=_stem(arg), argv=[str(resolved)], home=str(resolved.parent))
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise BotSpecError(f"{arg!r}: {exc}") from None
    if not words:
        raise BotSpecError("empty bot command")
    argv = _absolutize(words, cwd)
    program = argv[0]
    if not os.path.isabs(program) and shutil.which(program) is None:
        raise BotSpecError(f"{arg}: no such file, directory or command {program!r}")
    missing = _missing_script(argv[1:], cwd)
    if missing is not None:
        # "python3 mybot_typo.py" would start, fail to open its script in the bot's
        # private directory, and crash every game: say it now.
        raise BotSpecError(f"{arg}: no such file {missing!r} (in {cwd})")
    if os.path.isabs(program) and not os.access(program, os.X_OK):
        raise BotSpecError(f"{arg}: {program} is not executable")
    files = [w for w in argv[1:] if os.path.isabs(w) and os.path.isfile(w)]
    main = files[0] if files else program
    where = str(Path(main).parent) if os.path.isabs(main) else str(cwd)
    return BotSpec(name=_stem(main), argv=argv, home=where)


def unique_names(specs: Iterable[BotSpec]) -> list[BotSpec]:
    """Rename bots that share a name to ``name-1``, ``name-2``… in order."""
    specs = list(specs)
    counts: dict[str, int] = {}
    for spec in specs:
        counts[spec.name] = counts.get(spec.name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        if counts[spec.name] == 1:
            out.append(spec)
            continue
        seen[spec.name] = seen.get(spec.name, 0) + 1
        out.append(msgspec.structs.replace(spec, name=f"{spec.name}-{seen[spec.name]}"))
    return out
