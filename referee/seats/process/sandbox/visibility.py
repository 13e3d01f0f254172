"""What a sandboxed bot sees of the host, and which program it runs.

A bot sees the system directories (:data:`.paths.SYSTEM_DIRS`) and, read-only, what it
needs besides: its own directory, the wire modules, and the installation of its
program (a virtualenv's ``python`` needs both the venv and the Python it links to).
:func:`_visible` works that out from the command; a directory shared with others, such
as ``/tmp`` or the user's home, is never bound whole, only the files the command names.

The program itself is resolved against the user's PATH the way their shell would, but
with the sandbox in mind (:func:`_resolve_program`): a wrapper script found outside
the system directories could not run there, so the system's program of that name is
preferred to it.  :func:`cannot_exec` says, before anything is spawned, why a command
could not start at all.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from referee.seats.process.sandbox.paths import _SECRET_DIRS, _SECRET_FILES, PROTOCOL_DIR, SYSTEM_DIRS


def _system_binds() -> list[str]:
    args = []
    for path in SYSTEM_DIRS:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    # A bot that runs as root (no uid of its own was possible) could read these.
    for path in _SECRET_FILES:
        if os.path.isfile(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in _SECRET_DIRS:
        if os.path.isdir(path):
            args += ["--tmpfs", path]
    return args


def _installations(program: str) -> set[str]:
    """The directory trees an absolute program needs: the prefix (``X`` for
    ``X/bin/prog``) of the path as named and of the file it resolves to — a
    virtualenv's ``python`` is a symlink into the base installation, and both hold
    parts of it (``pyvenv.cfg`` and site-packages; the standard library)."""

    def prefix(path: Path) -> str:
        return str(path.parent.parent if path.parent.name == "bin" else path.parent)

    found = {prefix(Path(os.path.abspath(program))), prefix(Path(os.path.realpath(program)))}
    # Every link on the way too: a venv's python -> ~/tools/python3 -> /usr/bin/python3.11.
    hop = os.path.abspath(program)
    for _ in range(40):
        if not os.path.islink(hop):
            break
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
        found.add(prefix(Path(os.path.normpath(hop))))
    return found


def cannot_exec(argv: list[str], path: str) -> str | None:
    """Why ``argv`` cannot be executed (checked before spawning, whatever the layer)."""
    program = argv[0] if os.path.isabs(argv[0]) else shutil.which(argv[0], path=path)
    if program is None or not os.path.isfile(program):
        return f"no such program {argv[0]!r}"
    if not os.access(program, os.X_OK):
        return f"{program} is not executable"
    try:
        with open(program, "rb") as fh:
            head = fh.read(256)
    except OSError as exc:
        return f"cannot read {program}: {exc.strerror}"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        interpreter = words[0].decode(errors="replace") if words else ""
        if not interpreter or not os.access(interpreter, os.X_OK):
            return f"{program}: its interpreter {interpreter!r} does not exist"
    return None


def _system_path(path_dirs: list[str]) -> str:
    """The bot's PATH in a sandbox: the user's PATH entries it can see (the system's),
    then the standard ones, so that ``awk`` or ``python3`` is found whatever the user's
    PATH looks like."""
    kept = [d for d in path_dirs if _under(d, SYSTEM_DIRS)]
    kept += [d for d in ("/usr/local/bin", "/usr/bin", "/bin") if d not in kept]
    return os.pathsep.join(kept)


def _under(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _is_binary(path: str) -> bool:
    try:
        with open(os.path.realpath(path), "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _resolve_program(argv: list[str], path_dirs: list[str]) -> list[str]:
    """``argv`` with a bare program name made absolute when it must come from outside
    the system directories: a program found first on the user's PATH outside them (a
    virtualenv's python, a Node from nvm) is used as it is, if it is a real binary; a
    wrapper script (a pyenv shim) could not work in the sandbox, so the system's
    program of that name is used instead when there is one."""
    program = argv[0]
    if os.path.isabs(program) or "/" in program:
        return argv
    found = shutil.which(program, path=os.pathsep.join(path_dirs))
    if found is None or _under(found, SYSTEM_DIRS):
        return argv
    system = shutil.which(program, path=os.pathsep.join(d for d in path_dirs if _under(d, SYSTEM_DIRS)))
    if _is_binary(found) or system is None:
        return [found, *argv[1:]]
    return argv


#: Directories never bound whole: they hold the private tmpfs (or everyone's files).
_SHARED_DIRS = ("/", "/tmp", "/var/tmp", "/dev", "/dev/shm", "/proc", "/home", "/root")


def _visible(argv: list[str], home: str, workdir: str = "") -> list[str]:
    """What a bot sees read-only besides the system: its own directory, the wire
    modules, and the installation of its program and of any file its command names.

    A directory shared with others (``/tmp`` itself, the user's home directory, where
    their keys are, or one that holds either) or one that holds the bot's working
    directory is never bound whole: only the files the command names are, so a bot kept
    loose in /tmp cannot read everything else there.  Its program's installation is
    visible all the same (``python3 ~/bot.py`` with a virtualenv under ~ activated).
    """
    named = [w for w in argv if os.path.isabs(w) and os.path.exists(w)]
    shared_dirs = {*_SHARED_DIRS, os.path.expanduser("~")}

    def shared(path: str) -> bool:
        return any(_under(d, [path]) for d in shared_dirs) or bool(workdir and _under(workdir, [path]))

    # Only a home bound whole holds what lies under it; a shared one holds nothing but
    # the files named.
    whole_home = not shared(home)
    visible = {PROTOCOL_DIR}
    wanted = [home]
    for word in named:
        if _under(word, SYSTEM_DIRS) or (whole_home and _under(word, [home])):
            # A program in a bot's own directory is confined there (a manifest's links
            # must not widen what the bot sees): nothing to add.
            continue
        if word == argv[0]:
            wanted += sorted(_installations(word))
        elif not _under(word, [home]):
            wanted.append(str(Path(word).parent))
    for path in wanted:
        if shared(path):
            visible.update(w for w in named if _under(w, [path]) and not _under(w, SYSTEM_DIRS))
        else:
            visible.add(path)
    # Nothing under what is visible already (the system, a directory bound whole): a
    # second bind inside a read-only one could not make its mount point there.
    return sorted(p for p in visible if not _under(p, [*SYSTEM_DIRS, *(q for q in visible if q != p)]))
